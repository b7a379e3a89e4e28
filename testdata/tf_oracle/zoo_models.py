"""The model zoo of the savedmodel section: SavedModels as TensorFlow 2.21 and
Keras 3 users write them, one family each (make_savedmodels.py imports ZOO
into its MODELS; same conventions: function(path) -> {signature: {input:
ndarray}}). Every model has the one signature serving_default.

  k_*    Keras 3 models (model.export): layers by family
  app_*  keras.applications (weights=None, the smallest input allowed)
  tfm_*  tf.Module models with @tf.function signatures (tf.saved_model.save)
  tf1_*  a TF1 graph written by SavedModelBuilder

Builds stay small: each under ~10 s and ~30 MB (ResNet50 and ConvNeXtTiny cut
after their second stage).
"""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
RNG = np.random.default_rng(20261128)


def _keras():
    import keras  # pylint: disable=import-outside-toplevel
    return keras


def _export(layers, inputs, path, seed):
    """A Sequential model of `layers` after keras.Input(**inputs[k]) for its one
    input, exported."""
    keras = _keras()
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.Input(**inputs)] + layers)
    model.export(path, format="tf_saved_model", verbose=False)


def _uniform(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def _functional(build, path, seed):
    """A functional model: build(keras) returns (inputs, outputs)."""
    keras = _keras()
    keras.utils.set_random_seed(seed)
    inputs, outputs = build(keras)
    keras.Model(inputs, outputs).export(path, format="tf_saved_model", verbose=False)


# --- Keras layers -------------------------------------------------------------

def _activations(names):
    def build(keras):
        x = keras.Input((6,), name="x")
        return x, keras.layers.Concatenate()(
            [keras.layers.Dense(4, activation=a)(x) for a in names])
    return build


def k_activations(path):
    """relu, elu, selu, softplus, softsign, swish, tanh, sigmoid, hard_sigmoid,
    mish, relu6, leaky_relu, log_softmax, exponential, gelu(approximate=True)."""
    keras = _keras()
    names = ["relu", "elu", "selu", "softplus", "softsign", "swish", "tanh",
             "sigmoid", "hard_sigmoid", "mish", "relu6", "leaky_relu",
             "log_softmax", "exponential",
             lambda t: keras.activations.gelu(t, approximate=True)]
    _functional(_activations(names), path, 10)
    return {"serving_default": {"x": _uniform(3, 6)}}


def k_gelu_exact(path):
    keras = _keras()
    _functional(_activations([lambda t: keras.activations.gelu(t, approximate=False)]),
                path, 11)
    return {"serving_default": {"x": _uniform(3, 6, lo=-3, hi=3)}}


def k_conv1d(path):
    keras = _keras()
    _export([keras.layers.Conv1D(6, 3, padding="causal", dilation_rate=2, activation="relu"),
             keras.layers.MaxPooling1D(2), keras.layers.Conv1D(4, 3, strides=2),
             keras.layers.AveragePooling1D(2, padding="same"),
             keras.layers.GlobalMaxPooling1D(), keras.layers.Dense(3)],
            {"shape": (20, 5), "name": "seq"}, path, 12)
    return {"serving_default": {"seq": _uniform(2, 20, 5)}}


def k_conv2d_bn(path):
    keras = _keras()
    _export([keras.layers.Conv2D(8, 3, strides=2, padding="same", use_bias=False),
             keras.layers.BatchNormalization(), keras.layers.ReLU(),
             keras.layers.Conv2D(8, (1, 3), dilation_rate=(1, 2)),
             keras.layers.AveragePooling2D(2), keras.layers.GlobalMaxPooling2D(),
             keras.layers.Dense(4, activation="softmax")],
            {"shape": (16, 16, 3), "name": "image"}, path, 13)
    return {"serving_default": {"image": _uniform(2, 16, 16, 3)}}


def _random_bn(keras):
    """A BatchNormalization whose inference scale and offset differ by channel
    (a fresh layer's are all 1/sqrt(1+eps) and 0)."""
    return keras.layers.BatchNormalization(
        beta_initializer="random_normal", gamma_initializer="random_uniform",
        moving_mean_initializer="random_normal",
        moving_variance_initializer=keras.initializers.RandomUniform(0.5, 2.0))


def k_conv_bias_bn(path):
    """Convolutions and a Dense with biases, each followed by a
    BatchNormalization with per-channel statistics, a residual sum: what the
    optimizer folds into the filters and biases (arithmetic pass)."""
    def build(keras):
        x = keras.Input((12, 12, 3), name="image")
        bias = {"bias_initializer": "random_normal"}
        y = keras.layers.Conv2D(8, 3, padding="same", **bias)(x)
        y = keras.layers.ReLU()(_random_bn(keras)(y))
        y = _random_bn(keras)(keras.layers.Conv2D(8, 1, **bias)(y))
        s = _random_bn(keras)(keras.layers.Conv2D(8, 1, **bias)(x))
        y = keras.layers.ReLU()(keras.layers.Add()([y, s]))
        y = keras.layers.GlobalAveragePooling2D()(y)
        y = _random_bn(keras)(keras.layers.Dense(6, **bias)(y))
        return x, keras.layers.Dense(3)(keras.layers.ReLU()(y))
    _functional(build, path, 17)
    return {"serving_default": {"image": _uniform(2, 12, 12, 3)}}


def k_conv3d(path):
    keras = _keras()
    _export([keras.layers.Conv3D(4, 3, padding="same", activation="relu"),
             keras.layers.MaxPooling3D(2), keras.layers.Conv3D(4, 2),
             keras.layers.AveragePooling3D(1), keras.layers.GlobalAveragePooling3D(),
             keras.layers.Dense(2)],
            {"shape": (8, 8, 8, 2), "name": "volume"}, path, 14)
    return {"serving_default": {"volume": _uniform(2, 8, 8, 8, 2)}}


def k_separable(path):
    keras = _keras()
    _export([keras.layers.SeparableConv2D(8, 3, depth_multiplier=2, padding="same"),
             keras.layers.DepthwiseConv2D(3, strides=2),
             keras.layers.Reshape((7 * 7, 8)),
             keras.layers.SeparableConv1D(4, 3), keras.layers.Flatten(),
             keras.layers.Dense(3)],
            {"shape": (16, 16, 3), "name": "image"}, path, 15)
    return {"serving_default": {"image": _uniform(2, 16, 16, 3)}}


def k_conv_transpose(path):
    keras = _keras()
    _export([keras.layers.Conv2DTranspose(6, 3, strides=2, padding="same"),
             keras.layers.UpSampling2D(2, interpolation="bilinear"),
             keras.layers.Conv2DTranspose(3, 2, strides=1),
             keras.layers.UpSampling2D((1, 2)), keras.layers.Conv2D(2, 3)],
            {"shape": (5, 5, 4), "name": "code"}, path, 16)
    return {"serving_default": {"code": _uniform(2, 5, 5, 4)}}


def k_normalization(path):
    keras = _keras()
    _export([keras.layers.Dense(8), keras.layers.LayerNormalization(),
             keras.layers.Reshape((4, 2)), keras.layers.GroupNormalization(groups=2),
             keras.layers.UnitNormalization(), keras.layers.Flatten(),
             keras.layers.LayerNormalization(axis=-1, rms_scaling=True)],
            {"shape": (5,), "name": "x"}, path, 17)
    return {"serving_default": {"x": _uniform(3, 5)}}


def k_embedding(path):
    keras = _keras()
    _export([keras.layers.Embedding(50, 8), keras.layers.GlobalAveragePooling1D(),
             keras.layers.Dense(3)],
            {"shape": (6,), "dtype": "int32", "name": "tokens"}, path, 18)
    return {"serving_default": {"tokens": RNG.integers(0, 50, (4, 6)).astype(np.int32)}}


def _rnn(layer, path, seed):
    keras = _keras()
    _export([layer(keras), keras.layers.Dense(2)],
            {"shape": (7, 3), "name": "seq"}, path, seed)
    return {"serving_default": {"seq": _uniform(2, 7, 3)}}


def k_lstm(path):
    return _rnn(lambda k: k.layers.LSTM(5), path, 19)


def k_lstm_sequences(path):
    keras = _keras()
    _export([keras.layers.LSTM(4, return_sequences=True), keras.layers.LSTM(3)],
            {"shape": (6, 2), "name": "seq"}, path, 20)
    return {"serving_default": {"seq": _uniform(2, 6, 2)}}


def k_gru(path):
    return _rnn(lambda k: k.layers.GRU(5), path, 21)


def k_simplernn(path):
    return _rnn(lambda k: k.layers.SimpleRNN(5, return_sequences=False), path, 22)


def k_bidirectional(path):
    return _rnn(lambda k: k.layers.Bidirectional(k.layers.LSTM(4)), path, 23)


def _attention(causal):
    def build(keras):
        x = keras.Input((5, 8), name="x")
        y = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(
            x, x, use_causal_mask=causal)
        return x, keras.layers.LayerNormalization()(x + y)
    return build


def k_attention(path):
    _functional(_attention(False), path, 24)
    return {"serving_default": {"x": _uniform(2, 5, 8)}}


def k_attention_causal(path):
    _functional(_attention(True), path, 25)
    return {"serving_default": {"x": _uniform(2, 5, 8)}}


def k_reshape(path):
    """Dropout (inference: identity), Reshape, Permute, Flatten, RepeatVector."""
    keras = _keras()
    _export([keras.layers.Dropout(0.5), keras.layers.Reshape((3, 4)),
             keras.layers.Permute((2, 1)), keras.layers.Flatten(),
             keras.layers.RepeatVector(2), keras.layers.SpatialDropout1D(0.3),
             keras.layers.Flatten(), keras.layers.Dense(3)],
            {"shape": (12,), "name": "x"}, path, 26)
    return {"serving_default": {"x": _uniform(2, 12)}}


def k_padding(path):
    """ZeroPadding, Cropping, UpSampling in 1, 2 and 3 dimensions."""
    def build(keras):
        x = keras.Input((6, 6, 6, 2), name="volume")
        l = keras.layers
        a = l.Cropping3D(((1, 0), (0, 1), (1, 1)))(l.ZeroPadding3D(1)(x))
        a = l.UpSampling3D((1, 2, 1))(a)
        b = l.Reshape((36, 12))(x)
        b = l.UpSampling1D(2)(l.Cropping1D((2, 3))(l.ZeroPadding1D((1, 2))(b)))
        c = l.Reshape((6, 6, 12))(x)
        c = l.Cropping2D(((0, 1), (2, 0)))(l.ZeroPadding2D(((1, 2), (0, 1)))(c))
        return x, [l.Flatten()(a), l.Flatten()(b), l.Flatten()(c)]
    _functional(build, path, 27)
    return {"serving_default": {"volume": _uniform(2, 6, 6, 6, 2)}}


def k_preprocessing(path):
    keras = _keras()
    norm = keras.layers.Normalization()
    norm.adapt(_uniform(20, 12, 12, 3, lo=0, hi=4))
    _export([keras.layers.Resizing(10, 10), keras.layers.Rescaling(0.5, offset=-1.0),
             norm, keras.layers.CenterCrop(6, 6),
             keras.layers.Resizing(4, 5, interpolation="nearest")],
            {"shape": (12, 12, 3), "name": "image"}, path, 28)
    return {"serving_default": {"image": _uniform(2, 12, 12, 3, lo=0, hi=4)}}


TEXTS = np.array([[b"the cat sat on the mat"], [b"The dog ate my homework!"],
                  [b"a cat, a dog"]])
VOCAB = ["the", "cat", "dog", "sat", "on", "mat", "a"]


def _text_vectorization(mode, path, seed, **kwargs):
    keras = _keras()
    layer = keras.layers.TextVectorization(output_mode=mode, **kwargs)
    layer.adapt(tf.constant(TEXTS[:, 0]))
    _export([layer], {"shape": (1,), "dtype": "string", "name": "text"}, path, seed)
    return {"serving_default": {"text": TEXTS}}


def k_textvec_int(path):
    return _text_vectorization("int", path, 29, output_sequence_length=8)


def k_textvec_multi_hot(path):
    return _text_vectorization("multi_hot", path, 30, max_tokens=8)


def k_textvec_tf_idf(path):
    return _text_vectorization("tf_idf", path, 31, ngrams=2)


def k_string_lookup(path):
    keras = _keras()
    _export([keras.layers.StringLookup(vocabulary=VOCAB, num_oov_indices=3)],
            {"shape": (4,), "dtype": "string", "name": "words"}, path, 32)
    return {"serving_default": {"words": np.array(
        [[b"cat", b"bird", b"mat", b"zebra"], [b"a", b"the", b"ox", b"dog"]])}}


def k_integer_lookup(path):
    keras = _keras()
    _export([keras.layers.IntegerLookup(vocabulary=[4, 8, 15, 16, 23, 42],
                                        num_oov_indices=2, output_mode="int")],
            {"shape": (3,), "dtype": "int64", "name": "ids"}, path, 33)
    return {"serving_default": {"ids": np.int64([[4, 5, 42], [7, 16, 99]])}}


def k_hashing(path):
    keras = _keras()
    _export([keras.layers.Hashing(num_bins=16)],
            {"shape": (3,), "dtype": "string", "name": "words"}, path, 34)
    return {"serving_default": {"words": np.array(
        [[b"cat", b"dog", b""], [b"tensor", b"flow", b"cat"]])}}


def k_hashing_salted(path):
    keras = _keras()
    _export([keras.layers.Hashing(num_bins=16, salt=[7, 11])],
            {"shape": (3,), "dtype": "string", "name": "words"}, path, 35)
    return {"serving_default": {"words": np.array(
        [[b"cat", b"dog", b""], [b"tensor", b"flow", b"cat"]])}}


def k_category_encoding(path):
    def build(keras):
        x = keras.Input((3,), dtype="int32", name="ids")
        l = keras.layers
        return x, [l.CategoryEncoding(6, output_mode="multi_hot")(x),
                   l.CategoryEncoding(6, output_mode="count")(x),
                   l.CategoryEncoding(6, output_mode="one_hot")(x[:, :1])]
    _functional(build, path, 36)
    return {"serving_default": {"ids": np.int32([[0, 2, 2], [5, 1, 0]])}}


# --- keras.applications -------------------------------------------------------

def _application(name, path, seed, until=None, pixels=(-1.0, 1.0), **kwargs):
    """keras.applications' `name`; cut after layer `until` when given (the
    whole ResNet50 or ConvNeXtTiny SavedModel is ~200 MB: the cut keeps every
    kind of block and ~10 MB)."""
    keras = _keras()
    keras.utils.set_random_seed(seed)
    model = getattr(keras.applications, name)(weights=None, input_shape=(32, 32, 3),
                                              **kwargs)
    if until:
        model = keras.Model(model.inputs, model.get_layer(until).output)
    model.export(path, format="tf_saved_model", verbose=False)
    key = model.inputs[0].name
    # Inputs as the model's preprocess_input leaves them (EfficientNet
    # rescales inside): float32 sums over a deep stack stay within 1e-5.
    return {"serving_default": {key: _uniform(1, 32, 32, 3, lo=pixels[0], hi=pixels[1])}}


def app_mobilenetv2(path):
    return _application("MobileNetV2", path, 40, alpha=0.35, classes=10)


def app_resnet50(path):
    return _application("ResNet50", path, 41, until="conv3_block4_out", include_top=False)


def app_efficientnetb0(path):
    return _application("EfficientNetB0", path, 42, pixels=(0, 255), classes=10)


def app_convnext_tiny(path):
    return _application("ConvNeXtTiny", path, 43, until="convnext_tiny_stage_1_block_2_identity",
                        include_top=False)


# --- tf.Module models ---------------------------------------------------------

def _save(module, fn, path):
    tf.saved_model.save(module, path, signatures={"serving_default": fn})


def _spec(shape, dtype, name):
    return tf.TensorSpec(shape, dtype, name=name)


class TensorArrays(tf.Module):
    @tf.function(input_signature=[_spec([None, 3], tf.float32, "x")])
    def f(self, x):
        n = tf.shape(x)[0]
        ta = tf.TensorArray(tf.float32, size=n)
        grow = tf.TensorArray(tf.float32, size=0, dynamic_size=True,
                              infer_shape=False)
        for i in tf.range(n):
            ta = ta.write(i, x[i] * tf.cast(i + 1, tf.float32))
            grow = grow.write(i, tf.repeat(x[i], i + 1))
        return {"stacked": ta.stack(), "concat": grow.concat(),
                "gathered": ta.gather([0, n - 1])}


def tfm_tensor_array(path):
    m = TensorArrays()
    _save(m, m.f, path)
    return {"serving_default": {"x": _uniform(4, 3)}}


class Scatter(tf.Module):
    @tf.function(input_signature=[_spec([4, 2], tf.int32, "indices"),
                                  _spec([4], tf.float32, "updates")])
    def f(self, indices, updates):
        base = tf.reshape(tf.range(16, dtype=tf.float32), [4, 4])
        return {"scatter_nd": tf.scatter_nd(indices, updates, [4, 4]),
                "add": tf.tensor_scatter_nd_add(base, indices, updates),
                "max": tf.tensor_scatter_nd_max(base, indices, updates * 10),
                "update": tf.tensor_scatter_nd_update(base, indices, updates)}


def tfm_scatter(path):
    m = Scatter()
    _save(m, m.f, path)
    return {"serving_default": {"indices": np.int32([[0, 1], [2, 3], [0, 1], [3, 0]]),
                                "updates": np.float32([1.5, -2, 3, 4])}}


class Segments(tf.Module):
    @tf.function(input_signature=[_spec([6, 2], tf.float32, "data"),
                                  _spec([6], tf.int32, "ids")])
    def f(self, data, ids):
        m = tf.math
        return {"sum": m.segment_sum(data, ids), "mean": m.segment_mean(data, ids),
                "max": m.segment_max(data, ids), "min": m.segment_min(data, ids),
                "prod": m.segment_prod(data, ids),
                "umax": m.unsorted_segment_max(data, ids[::-1], 5),
                "usum": m.unsorted_segment_sum(data, ids[::-1], 5)}


def tfm_segment(path):
    m = Segments()
    _save(m, m.f, path)
    return {"serving_default": {"data": _uniform(6, 2), "ids": np.int32([0, 0, 1, 3, 3, 3])}}


class CumOps(tf.Module):
    @tf.function(input_signature=[_spec([3, 5], tf.float32, "x")])
    def f(self, x):
        return {"logsumexp": tf.math.cumulative_logsumexp(x, axis=1),
                "reverse": tf.math.cumulative_logsumexp(x, axis=0, reverse=True,
                                                        exclusive=True),
                "cumsum": tf.math.cumsum(x, axis=1, exclusive=True),
                "cumprod": tf.math.cumprod(x, axis=0, reverse=True)}


def tfm_cumulative(path):
    m = CumOps()
    _save(m, m.f, path)
    return {"serving_default": {"x": _uniform(3, 5, lo=-3, hi=3)}}


class Resize(tf.Module):
    @tf.function(input_signature=[_spec([1, 9, 7, 2], tf.float32, "image")])
    def f(self, image):
        r = tf.image.resize
        return {"area": r(image, [4, 3], method="area"),
                "bicubic": r(image, [13, 11], method="bicubic"),
                "bilinear": r(image, [5, 9], method="bilinear", antialias=False),
                "nearest": r(image, [12, 4], method="nearest")}


def tfm_resize(path):
    m = Resize()
    _save(m, m.f, path)
    return {"serving_default": {"image": _uniform(1, 9, 7, 2)}}


class Strings(tf.Module):
    @tf.function(input_signature=[_spec([3], tf.string, "s")])
    def f(self, s):
        st = tf.strings
        return {"upper": st.upper(s), "lower": st.lower(s), "length": st.length(s),
                "substr": st.substr(s, 1, 3), "join": st.join([s, s], separator="|"),
                "regex": st.regex_replace(s, "[aeiou]", "_"),
                "reduce": st.reduce_join(s, separator=","),
                "format": st.format("{}!", [st.length(s)]),
                "number": st.to_number(st.as_string(st.length(s) * 3)),
                "bucket": st.to_hash_bucket_fast(s, 100),
                "full": st.regex_full_match(s, ".*o.*")}


def tfm_strings(path):
    m = Strings()
    _save(m, m.f, path)
    return {"serving_default": {"s": np.array([b"Hello World", b"  tOo  ", b"xyz"])}}


class StringsMore(tf.Module):
    @tf.function(input_signature=[_spec([3], tf.string, "s")])
    def f(self, s):
        return {"strip": tf.strings.strip(s),
                "strong": tf.strings.to_hash_bucket_strong(s, 50, key=[1, 2]),
                "bucket": tf.strings.to_hash_bucket(s, 50)}


def tfm_strings_hash(path):
    m = StringsMore()
    _save(m, m.f, path)
    return {"serving_default": {"s": np.array([b"Hello World", b"  tOo  ", b"xyz"])}}


class Bitwise(tf.Module):
    @tf.function(input_signature=[_spec([4], tf.int32, "a"), _spec([4], tf.int32, "b")])
    def f(self, a, b):
        bw = tf.bitwise
        return {"and": bw.bitwise_and(a, b), "or": bw.bitwise_or(a, b),
                "xor": bw.bitwise_xor(a, b), "invert": bw.invert(a),
                "left": bw.left_shift(a, b % 8), "right": bw.right_shift(a, b % 8)}


def tfm_bitwise(path):
    m = Bitwise()
    _save(m, m.f, path)
    return {"serving_default": {"a": np.int32([12, -7, 255, 1 << 20]),
                                "b": np.int32([10, 3, 17, 5])}}


class IntMod(tf.Module):
    @tf.function(input_signature=[_spec([5], tf.int64, "a"), _spec([5], tf.int64, "b")])
    def f(self, a, b):
        return {"mod": a % b, "floordiv": a // b,
                "truncatemod": tf.truncatemod(a, b), "truncatediv": tf.truncatediv(a, b)}


def tfm_int64_mod(path):
    m = IntMod()
    _save(m, m.f, path)
    return {"serving_default": {"a": np.int64([7, -7, 7, -7, 2 ** 40 + 3]),
                                "b": np.int64([3, 3, -3, -3, 1000])}}


class Bincount(tf.Module):
    @tf.function(input_signature=[_spec([6], tf.int32, "x")])
    def f(self, x):
        return {"counts": tf.math.bincount(x, minlength=5),
                "weighted": tf.math.bincount(x, weights=tf.cast(x, tf.float32) * 0.5)}


def tfm_bincount(path):
    m = Bincount()
    _save(m, m.f, path)
    return {"serving_default": {"x": np.int32([1, 1, 3, 0, 4, 1])}}


class ControlFlowVariables(tf.Module):
    """tf.cond (nested) and tf.while_loop bodies that read variables: what
    freeze must turn into constants inside the branch and loop functions."""

    def __init__(self):
        super().__init__()
        self.scale = tf.Variable(np.float32([1.5, -2.0, 0.5]))
        self.shift = tf.Variable(np.float32([0.25, 0.0, -1.0]))

    @tf.function(input_signature=[_spec([3], tf.float32, "x")])
    def f(self, x):
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * self.scale,
                    lambda: tf.cond(x[0] > 0, lambda: x + self.shift, lambda: x))
        z = tf.while_loop(lambda k, a: k < 4,
                          lambda k, a: (k + 1, a * self.scale + self.shift), [0, x])[1]
        return {"y": y, "z": z}


def tfm_control_flow_vars(path):
    m = ControlFlowVariables()
    _save(m, m.f, path)
    return {"serving_default": {"x": np.float32([1, -0.5, 2])}}


class ResourceGather(tf.Module):
    """tf.gather of a variable (ResourceGather; freeze makes it GatherV2)."""

    def __init__(self):
        super().__init__()
        self.table = tf.Variable(RNG.normal(size=(6, 3)).astype(np.float32))

    @tf.function(input_signature=[_spec([2], tf.int32, "i")])
    def f(self, i):
        return {"rows": tf.gather(self.table, i)}


def tfm_resource_gather(path):
    m = ResourceGather()
    _save(m, m.f, path)
    return {"serving_default": {"i": np.int32([5, 2])}}


class StatelessRandom(tf.Module):
    @tf.function(input_signature=[_spec([2], tf.int64, "seed")])
    def f(self, seed):
        return {"uniform": tf.random.stateless_uniform([3, 2], seed),
                "normal": tf.random.stateless_normal([4], seed),
                "ints": tf.random.stateless_uniform([5], seed, minval=0, maxval=10,
                                                    dtype=tf.int32)}


def tfm_stateless_random(path):
    m = StatelessRandom()
    _save(m, m.f, path)
    return {"serving_default": {"seed": np.int64([7, 42])}}


# --- TF1 ----------------------------------------------------------------------

def tf1_builder_rnn(path):
    """A TF1 graph (SavedModelBuilder): resource variables, a v1 while loop
    (Enter/Exit, lowered control flow) that reads one, and a conv layer."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None, 6, 6, 1], name="x")
        k = tf1.get_variable("kernel", initializer=RNG.normal(size=(3, 3, 1, 2)).astype(
            np.float32), use_resource=True)
        w = tf1.get_variable("w", initializer=np.float32([[0.5, -1.0], [2.0, 0.25]]),
                             use_resource=True)
        h = tf.nn.relu(tf.nn.conv2d(x, k, strides=1, padding="SAME"))
        h = tf.reduce_mean(h, axis=[1, 2])
        _, y = tf1.while_loop(lambda i, a: i < 3,
                              lambda i, a: (i + 1, tf.tanh(tf.matmul(a, w))), [0, h])
        y = tf.identity(y, name="y")
        with tf1.Session(graph=graph) as sess:
            sess.run(tf1.global_variables_initializer())
            builder = tf1.saved_model.Builder(path)
            builder.add_meta_graph_and_variables(
                sess, [tf1.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default":
                                   tf1.saved_model.predict_signature_def({"x": x}, {"y": y})})
            builder.save()
    return {"serving_default": {"x": _uniform(2, 6, 6, 1)}}


ZOO = {f.__name__: f for f in [
    k_activations, k_gelu_exact, k_conv1d, k_conv2d_bn, k_conv_bias_bn, k_conv3d, k_separable,
    k_conv_transpose, k_normalization, k_embedding, k_lstm, k_lstm_sequences, k_gru,
    k_simplernn, k_bidirectional, k_attention, k_attention_causal, k_reshape, k_padding,
    k_preprocessing, k_textvec_int, k_textvec_multi_hot, k_textvec_tf_idf,
    k_string_lookup, k_integer_lookup, k_hashing, k_hashing_salted, k_category_encoding,
    app_mobilenetv2, app_resnet50, app_efficientnetb0, app_convnext_tiny,
    tfm_tensor_array, tfm_scatter, tfm_segment, tfm_cumulative, tfm_resize, tfm_strings,
    tfm_strings_hash, tfm_bitwise, tfm_int64_mod, tfm_bincount, tfm_control_flow_vars, tfm_resource_gather,
    tfm_stateless_random, tf1_builder_rnn]}
ZOO_SIGNATURES = {name: ["serving_default"] for name in ZOO}
