
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
Ã
dense_1/kernelConst*
dtype0*œ
value’B*€Õxi½ffF?ÙÎ÷>øSã=5¿j¼t¿ÙÎ?ªñÒ>d;¿‰A >þÔ˜¿î|ÿ>F¶³>ÇK÷>ÓMb¾×£°>Ý$¾áz4¿ºIŒ>Âu>Å °=J>ã¥›¾
×£;åÐ"¾Ûùþ¾‰Aà¾o½X9„¿Év¾½;ß/?w¾??
Y
dense_1/biasConst*
dtype0*5
value,B** /]=‡Y=žï'½B`å</]½ƒÀ=`åP½/Ý$¾
4
dense_1/MatMulMatMulxdense_1/kernel*
T0
A
dense_1/BiasAddBiasAdddense_1/MatMuldense_1/bias*
T0
.
dense_1/ReluReludense_1/BiasAdd*
T0
®
dense_2/kernelConst"/device:GPU:0*
dtype0*y
valuepBn*`Õx)¿¬Ü¾+‡?fff¿—î>¶ó}½^º‰¾˜n’>#Û™?%>o=®Gá=Ý$¾Ë¡Å>Ñ"¿J¿mçû½)\>/ÝD¿\¿žïg¿ÙÎ½\Â¾åÐ">
T
