#include "lib/kernels/tensor.h"

#include <cmath>

#include "lib/kernels/kernel_test_util.h"
#include "lib/kernels/variant.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using testing::MakeTensor;
using testing::Render;

TensorProto Proto(const std::string& text) {
  return testing::ParseTextProto<TensorProto>(text);
}

std::string Decode(const std::string& text) {
  StatusOr<Tensor> t = Tensor::FromProto(Proto(text));
  if (!t.ok()) return t.status().ToString();
  return Render(*t);
}

TEST_CASE("tensor shapes print and count like TensorFlow's", "[kernels]") {
  CHECK(TensorShape().DebugString() == "[]");
  CHECK(TensorShape().num_elements() == 1);
  CHECK(TensorShape({2, 3}).DebugString() == "[2,3]");
  CHECK(TensorShape({2, 0, 3}).num_elements() == 0);
  TensorShape big({1, 2, 3, 4, 5, 6, 7, 8});  // beyond the inline dims
  CHECK(big.num_elements() == 40320);
  TensorShape copy = big;
  copy.RemoveDim(0);
  CHECK(copy.DebugString() == "[2,3,4,5,6,7,8]");
  copy.InsertDim(1, 9);
  CHECK(copy.DebugString() == "[2,9,3,4,5,6,7,8]");
  CHECK(big.DebugString() == "[1,2,3,4,5,6,7,8]");
  TensorShapeProto partial;
  partial.add_dim()->set_size(-1);
  partial.add_dim()->set_size(3);
  CHECK(PartialShapeDebugString(partial) == "[?,3]");
  CHECK(TensorShape::FromProto(partial).status().code() ==
        Code::kInvalidArgument);
}

TEST_CASE("tensor copies share a 64-byte aligned buffer", "[kernels]") {
  Tensor a(tensorflow::DT_FLOAT, TensorShape({3}));
  CHECK(reinterpret_cast<uintptr_t>(a.data()) % 64 == 0);
  CHECK(a.RefCountIsOne());
  Tensor b = a;
  CHECK(b.SharesBufferWith(a));
  CHECK_FALSE(a.RefCountIsOne());
  a.flat<float>()[1] = 5;
  CHECK(b.flat<float>()[1] == 5);
  Tensor c = a.DeepCopy();
  CHECK_FALSE(c.SharesBufferWith(a));
  Tensor r;
  CHECK(r.CopyFrom(a, TensorShape({1, 3})));
  CHECK_FALSE(r.CopyFrom(a, TensorShape({2})));
  CHECK(r.shape().DebugString() == "[1,3]");
  CHECK_FALSE(Tensor().IsInitialized());
  CHECK_FALSE(Tensor(tensorflow::DT_FLOAT).IsInitialized());
  Tensor strings = MakeTensor<std::string>({2}, {"a", "bc"});
  Tensor s2 = strings.DeepCopy();
  s2.flat<std::string>()[0] = "z";
  CHECK(Render(strings) == "string [2] [\"a\" \"bc\"]");
}

TEST_CASE("FromProto decodes every typed field", "[kernels]") {
  CHECK(Decode("dtype: DT_FLOAT tensor_shape { dim { size: 2 } } "
               "float_val: 1.5 float_val: -2") == "float [2] [1.5  -2]");
  CHECK(Decode("dtype: DT_DOUBLE tensor_shape {} double_val: 0.25") ==
        "double [] 0.25");
  CHECK(Decode("dtype: DT_INT32 tensor_shape { dim { size: 3 } } "
               "int_val: 1 int_val: 2 int_val: 3") == "int32 [3] [1 2 3]");
  CHECK(Decode("dtype: DT_INT8 tensor_shape { dim { size: 2 } } "
               "int_val: -128 int_val: 127") == "int8 [2] [-128  127]");
  CHECK(Decode("dtype: DT_UINT8 tensor_shape { dim { size: 1 } } "
               "int_val: 255") == "uint8 [1] [255]");
  CHECK(Decode("dtype: DT_INT16 tensor_shape {} int_val: -7") == "int16 [] -7");
  CHECK(Decode("dtype: DT_UINT16 tensor_shape {} int_val: 65535") ==
        "uint16 [] 65535");
  CHECK(Decode("dtype: DT_INT64 tensor_shape { dim { size: 2 } } "
               "int64_val: 9000000000 int64_val: -1") ==
        "int64 [2] [9000000000         -1]");
  CHECK(Decode("dtype: DT_UINT32 tensor_shape {} uint32_val: 4000000000") ==
        "uint32 [] 4000000000");
  CHECK(Decode("dtype: DT_UINT64 tensor_shape {} "
               "uint64_val: 18000000000000000000") ==
        "uint64 [] 18000000000000000000");
  CHECK(Decode("dtype: DT_BOOL tensor_shape { dim { size: 2 } } "
               "bool_val: true bool_val: false") == "bool [2] [ True False]");
  CHECK(Decode("dtype: DT_STRING tensor_shape { dim { size: 2 } } "
               "string_val: 'ab' string_val: 'c\\n'") ==
        "string [2] [\"ab\" \"c\\n\"]");
  CHECK(Decode("dtype: DT_COMPLEX64 tensor_shape {} "
               "scomplex_val: 1 scomplex_val: -2") == "complex64 [] (1-2j)");
  CHECK(Decode("dtype: DT_COMPLEX128 tensor_shape { dim { size: 1 } } "
               "dcomplex_val: 0.5 dcomplex_val: 3") ==
        "complex128 [1] [(0.5+3j)]");
  // Half and bfloat16: the raw 16 bits (0x3c00 = 1.0, 0x4000 = 2.0).
  CHECK(Decode("dtype: DT_HALF tensor_shape { dim { size: 2 } } "
               "half_val: 15360 half_val: 49152") == "half [2] [ 1 -2]");
  CHECK(Decode("dtype: DT_BFLOAT16 tensor_shape {} half_val: 16384") ==
        "bfloat16 [] 2");
  CHECK(Decode("dtype: DT_QINT8 tensor_shape {} int_val: -3") == "qint8 [] -3");
}

TEST_CASE("FromProto repeats the last value and zero-fills", "[kernels]") {
  CHECK(Decode("dtype: DT_FLOAT tensor_shape { dim { size: 4 } } "
               "float_val: 1 float_val: 2") == "float [4] [1 2 2 2]");
  CHECK(Decode("dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { size: 2 "
               "} }") == "int32 [2,2] [[0 0]\n [0 0]]");
  CHECK(Decode("dtype: DT_INT32 tensor_shape { dim { size: 1 } } "
               "int_val: 1 int_val: 2 int_val: 3") == "int32 [1] [1]");
  CHECK(Decode("dtype: DT_STRING tensor_shape { dim { size: 3 } } "
               "string_val: 'x'") == "string [3] [\"x\" \"x\" \"x\"]");
  CHECK(Decode("dtype: DT_COMPLEX64 tensor_shape { dim { size: 2 } } "
               "scomplex_val: 1 scomplex_val: 2") ==
        "complex64 [2] [(1+2j) (1+2j)]");
  CHECK(Decode("dtype: DT_BOOL tensor_shape { dim { size: 0 } }") ==
        "bool [0] []");
}

TEST_CASE("FromProto reads tensor_content and checks its size", "[kernels]") {
  // Two little-endian int32s: 1 and 258.
  CHECK(Decode("dtype: DT_INT32 tensor_shape { dim { size: 2 } } "
               "tensor_content: '\\001\\000\\000\\000\\002\\001\\000\\000'") ==
        "int32 [2] [  1 258]");
  CHECK(Decode("dtype: DT_BOOL tensor_shape { dim { size: 2 } } "
               "tensor_content: '\\001\\000'") == "bool [2] [ True False]");
  // String content: all lengths as varints, then the bytes.
  CHECK(Decode("dtype: DT_STRING tensor_shape { dim { size: 2 } } "
               "tensor_content: '\\001\\002abc'") ==
        "string [2] [\"a\" \"bc\"]");
  StatusOr<Tensor> bad = Tensor::FromProto(
      Proto("dtype: DT_FLOAT tensor_shape { dim { size: 2 } } "
            "tensor_content: '\\000\\000\\000\\000'"));
  CHECK(bad.status().code() == Code::kInvalidArgument);
  CHECK_THAT(bad.status().message(),
             Catch::Matchers::Contains("tensor_content has 4 bytes"));
  CHECK(Tensor::FromProto(Proto("dtype: DT_FLOAT tensor_shape { "
                                "unknown_rank: true }"))
            .status()
            .code() == Code::kInvalidArgument);
  CHECK(Tensor::FromProto(Proto("dtype: DT_INVALID")).status().code() ==
        Code::kInvalidArgument);
  CHECK(Tensor::FromProto(Proto("dtype: DT_FLOAT8_E5M2")).status().code() ==
        Code::kUnimplemented);
  // A variant with no variant_val is an empty variant, as in TensorFlow.
  StatusOr<Tensor> variant = Tensor::FromProto(Proto("dtype: DT_VARIANT"));
  REQUIRE(variant.ok());
  CHECK(variant->flat<Variant>()[0].value == nullptr);
}

TEST_CASE("ToProto round-trips through both encodings", "[kernels]") {
  const Tensor t = MakeTensor<int64_t>({2, 2}, {1, -2, 3, 1LL << 40});
  for (bool content : {true, false}) {
    TensorProto p;
    t.ToProto(&p, content);
    CHECK(p.tensor_content().empty() == !content);
    CHECK(Render(*Tensor::FromProto(p)) == Render(t));
  }
  const Tensor h = MakeTensor<Half>({2}, {FloatToHalf(0.5f), FloatToHalf(3)});
  TensorProto hp;
  h.ToProto(&hp, false);
  CHECK(hp.half_val_size() == 2);
  CHECK(Render(*Tensor::FromProto(hp)) == "half [2] [0.5   3]");
  const Tensor s = MakeTensor<std::string>({1}, {"q"});
  TensorProto sp;
  s.ToProto(&sp);
  CHECK(sp.string_val_size() == 1);
}

TEST_CASE("16-bit floats round to nearest even", "[kernels]") {
  CHECK(FloatToHalf(1.0f).bits == 0x3c00);
  CHECK(FloatToHalf(65504.0f).bits == 0x7bff);
  CHECK(FloatToHalf(65520.0f).bits == 0x7c00);            // rounds up to inf
  CHECK(FloatToHalf(1.0f + 1.0f / 2048).bits == 0x3c00);  // tie: even
  CHECK(FloatToHalf(1.0f + 3.0f / 2048).bits == 0x3c02);  // tie: even
  CHECK(std::isnan(HalfToFloat(FloatToHalf(NAN))));
  CHECK(HalfToFloat(Half{0x0001}) == std::ldexp(1.0f, -24));  // subnormal
  CHECK(FloatToBFloat16(1.00390625f).bits == 0x3f80);         // tie: even
  CHECK(FloatToBFloat16(1.01171875f).bits == 0x3f82);         // tie: even up
  CHECK(FloatToBFloat16Truncate(1.01171875f).bits == 0x3f81);
}

TEST_CASE("SummarizeValue aligns columns like NumPy and truncates",
          "[kernels]") {
  const Tensor t = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6.5});
  CHECK(t.SummarizeValue(-1) == "[[  1   2   3]\n [  4   5 6.5]]");
  CHECK(MakeTensor<int32_t>({2}, {1, -10}).SummarizeValue() == "[  1 -10]");
  CHECK(t.SummarizeValue(4) == "[[1 2 3]\n [4 ...]]");
  const Tensor c = MakeTensor<int32_t>({2, 1, 2}, {1, 2, 3, 4});
  CHECK(c.SummarizeValue(-1) == "[[[1 2]]\n\n [[3 4]]]");
  CHECK(Tensor::Scalar<int32_t>(7).SummarizeValue() == "7");
  CHECK(Tensor(tensorflow::DT_FLOAT, TensorShape({0})).SummarizeValue() ==
        "[]");
  CHECK(Tensor::Scalar<bool>(true).DebugString() ==
        "Tensor<type: bool shape: [] values: True>");
}

}  // namespace
}  // namespace dfg
