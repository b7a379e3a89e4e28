"""Summary ops returning serialized tensorflow.Summary protos: ScalarSummary,
HistogramSummary, TensorSummary(V2), AudioSummaryV2, ImageSummary,
MergeSummary. Each
fetch goes through EncodeBase64 (`dfg run`'s .npy strings would lose a
proto's trailing zero bytes)."""
import numpy as np

from op_case import OpCase, data


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _case(name, ops, make, error=None):
    def build():
        tf = _tf()
        out, feeds = make(tf)
        return [tf.raw_ops.EncodeBase64(input=out)], feeds
    return OpCase(name, ops + ["EncodeBase64"], build, expect_error=error)


def _scalar(dtype, shape, error=None, tag_shape=None):
    name = f"ScalarSummary/{np.dtype(dtype).name}{list(shape)}".replace(" ", "")
    if tag_shape is not None:
        name += f"/tags{list(tag_shape)}".replace(" ", "")

    def make(tf):
        x = tf.compat.v1.placeholder(dtype, None, name="x")
        ts = shape if tag_shape is None else tag_shape
        tags = tf.constant(np.array([f"t{i}" for i in range(int(np.prod(ts)))],
                                    object).reshape(ts), tf.string)
        v = data(name, dtype, shape)
        return tf.raw_ops.ScalarSummary(tags=tags, values=x), {x: v}
    return _case(name, ["ScalarSummary"], make, error)


def _histogram(dtype, shape, tag="h", special=None, error=None):
    name = f"HistogramSummary/{np.dtype(dtype).name}{list(shape)}".replace(" ", "")
    if special is not None:
        name += f"/{special}"

    def make(tf):
        x = tf.compat.v1.placeholder(dtype, shape, name="x")
        v = data(name, dtype, shape)
        if np.dtype(dtype).kind == "f":
            v = (v * 1000).astype(dtype)
        if special is not None:
            v.flat[0] = {"nan": np.nan, "inf": np.inf, "zero": 0, "tiny": 1e-30}[special]
        t = tf.compat.v1.placeholder_with_default(tf.constant(tag), shape=None)
        return tf.raw_ops.HistogramSummary(tag=t, values=x, name="hist"), {x: v}
    return _case(name, ["HistogramSummary"], make, error)


def _tensor_summary(dtype, v2):
    op = "TensorSummaryV2" if v2 else "TensorSummary"
    name = f"{op}/{np.dtype(dtype).name if dtype is not object else 'string'}"

    def make(tf):
        if dtype is object:
            x, feeds = tf.constant(["a", "bc"]), {}
        else:
            x = tf.compat.v1.placeholder(dtype, (2, 3), name="x")
            feeds = {x: data(name, dtype, (2, 3))}
        if v2:
            from tensorflow.core.framework import summary_pb2  # pylint: disable=import-outside-toplevel
            meta = summary_pb2.SummaryMetadata(display_name="shown", summary_description="d")
            meta.plugin_data.plugin_name = "scalars"
            meta.plugin_data.content = b"\x08\x01"
            y = tf.raw_ops.TensorSummaryV2(tag="t", tensor=x,
                                           serialized_summary_metadata=meta.SerializeToString())
        else:
            y = tf.raw_ops.TensorSummary(tensor=x, description="d", labels=["a"],
                                         display_name="n", name="ts")
        return y, feeds
    return _case(name, [op], make)


def _audio(shape, max_outputs=3, rate=8000.0, error=None, tag=""):
    name = f"AudioSummaryV2/{list(shape)}/max={max_outputs}{tag}".replace(" ", "")

    def make(tf):
        x = tf.compat.v1.placeholder(tf.float32, None, name="x")
        v = data(name, np.float32, shape, "unit") * 1.2
        r = tf.compat.v1.placeholder(tf.float32, (), name="rate")
        y = tf.raw_ops.AudioSummaryV2(tag="au", tensor=x, sample_rate=r,
                                      max_outputs=max_outputs)
        return y, {x: v, r: np.float32(rate)}
    return _case(name, ["AudioSummaryV2"], make, error)


def _merge(tags, error=None, tag=""):
    def make(tf):
        parts = [tf.raw_ops.ScalarSummary(tags=t, values=float(i)) for i, t in enumerate(tags)]
        parts.append(tf.raw_ops.HistogramSummary(tag="hist", values=[1.0, 2.0]))
        stacked = tf.stack(parts[:2])
        return tf.raw_ops.MergeSummary(inputs=[stacked] + parts[2:]), {}
    return _case(f"MergeSummary/{len(tags)}{tag}", ["MergeSummary"], make, error)


def cases():
    for dt in (np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.int8):
        yield _scalar(dt, (3,))
        yield _histogram(dt, (4, 5))
    yield _scalar(np.float32, (2, 2))
    yield _scalar(np.float32, ())
    yield _scalar(np.float32, (0,))
    yield _scalar(np.float32, (2,), tag_shape=(1,),
                  error="tags and values are not the same shape: \\[1\\] != \\[2\\] \\(tag 't0'\\)")
    yield _histogram(np.float32, (0,))
    yield _histogram(np.float64, (1000,))
    yield _histogram(np.float32, (6,), special="zero")
    yield _histogram(np.float32, (6,), special="tiny")
    yield _histogram(np.float32, (6,), special="nan", error="Nan in summary histogram for: hist")
    yield _histogram(np.float64, (6,), special="inf", error="Infinity in Histogram for: hist")
    yield _histogram(np.float32, (2,), tag=["a", "b"], error="tags must be scalar")
    for dt in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_, np.float16,
               object):
        yield _tensor_summary(dt, False)
        yield _tensor_summary(dt, True)
    yield _audio((2, 5))
    yield _audio((4, 7, 2), max_outputs=2)
    yield _audio((2, 3), max_outputs=1)
    yield _audio((1, 6), rate=22050.5, tag="/fractional_rate")
    yield _audio((2, 5), rate=0.0, error="sample_rate must be > 0", tag="/zero_rate")
    yield _audio((5,), error="Tensor must be 3-D or 2-D, got: \\[5\\]", tag="/rank1")
    yield _merge(["a", "b", "c"])
    yield _merge(["a", "b", "a"], error="Duplicate tag a found in summary inputs", tag="/dup")
    yield from image_cases()


def _image(dtype, shape, max_images=3, special=None, error=None, tag="", bad_color=None):
    name = (f"ImageSummary/{np.dtype(dtype).name}{list(shape)}/max={max_images}"
            f"{'/' + special if special else ''}{tag}").replace(" ", "")

    def make(tf):
        x = tf.compat.v1.placeholder(dtype, None, name="x")
        if np.dtype(dtype) == np.uint8:
            v = np.random.default_rng(7).integers(0, 256, shape).astype(np.uint8)
        else:
            v = data(name, dtype, shape, special or "any")
            if special == "pos":
                v = np.abs(v)
            if special == "nonfinite":
                v.flat[0] = np.nan
                v.flat[-1] = np.inf
        kw = {} if bad_color is None else {"bad_color": tf.make_tensor_proto(bad_color)}
        y = tf.raw_ops.ImageSummary(tag="img", tensor=x, max_images=max_images, **kw)
        return y, {x: v}
    return _case(name, ["ImageSummary"], make, error)


def image_cases():
    for dt in (np.uint8, np.float32, np.float64, np.float16):
        for shape in ((2, 5, 7, 3), (1, 4, 4, 1), (4, 3, 6, 4)):
            yield _image(dt, shape)
    yield _image(np.float32, (2, 5, 7, 3), special="pos")
    yield _image(np.float16, (2, 5, 7, 3), special="pos")
    yield _image(np.float32, (2, 5, 7, 3), special="nonfinite")
    yield _image(np.float32, (2, 5, 7, 3), special="nonfinite", tag="/bad_color",
                 bad_color=np.array([1, 2, 3], np.uint8))
    yield _image(np.float32, (3, 4, 4, 1), max_images=1)
    yield _image(np.float32, (1, 4, 4, 2), error="Tensor must be 4-D with last dim 1, 3, or 4")
    yield _image(np.float32, (1, 0, 4, 3), error="input tensor must have non-zero dims")
    yield _image(np.float32, (1, 2, 2, 4), special="nonfinite", tag="/short_bad_color",
                 bad_color=np.array([1, 2, 3], np.uint8),
                 error="expected depth <= bad_color.size")

