"""_MklLayerNorm (the node TensorFlow's remapper, with oneDNN, and dfg's make
of Keras' LayerNormalization): normalization over the last dimension of a
rank 2 or 3 x, in float and bfloat16, rows split over two threads
for the large ones; and its errors (rank, a 2-D scale, scale and offset of
different lengths). Python cannot emit the op, so a case builds IdentityN
over the operands and its edit turns that node into _MklLayerNorm."""
import numpy as np

from op_case import OpCase, data


def _edit(dtype, epsilon):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    def edit(graph_def):
        for node in graph_def.node:
            if node.name != "y":
                continue
            node.op = "_MklLayerNorm"
            del node.attr["T"]
            node.attr["T"].type = tf.as_dtype(dtype).as_datatype_enum
            if epsilon is not None:
                node.attr["epsilon"].f = epsilon
    return edit


def _case(dtype, shape, scale_shape=None, offset_shape=None, epsilon=None, **kw):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    tname = "bfloat16" if dtype == "bfloat16" else np.dtype(dtype).name
    depth = shape[-1]
    scale_shape = scale_shape or (depth,)
    offset_shape = offset_shape or (depth,)
    name = (f"_MklLayerNorm/{tname}{list(shape)}/scale{list(scale_shape)}"
            f"/offset{list(offset_shape)}"
            f"{f'/epsilon={epsilon}' if epsilon is not None else ''}").replace(" ", "")
    np_dtype = np.float32 if dtype == "bfloat16" else dtype
    tf_dtype = tf.bfloat16 if dtype == "bfloat16" else dtype
    specs = [("x", shape), ("scale", scale_shape), ("offset", offset_shape)]

    def build():
        vals = [data(name + s, np_dtype, shp, "small") for s, shp in specs]
        if dtype == "bfloat16":  # no bfloat16 in .npy: constants, a float fetch
            ins = [tf.constant(v, tf_dtype, name=s) for v, (s, _) in zip(vals, specs)]
            feeds = {}
        else:
            ins = [tf.compat.v1.placeholder(tf_dtype, shp, name=s) for s, shp in specs]
            feeds = dict(zip(ins, vals))
        outs = tf.raw_ops.IdentityN(input=ins, name="y")
        if dtype == "bfloat16":
            return [tf.cast(outs[0], tf.float32)], feeds
        return [outs[0]], feeds
    return OpCase(name, ["_MklLayerNorm"], build, edit=_edit(tf_dtype, epsilon), **kw)


def cases():
    for shape in ((5, 8), (2, 3, 16), (1, 1, 1)):
        yield _case(np.float32, shape, rtol=1e-5, atol=1e-5)
    yield _case(np.float32, (4, 6), epsilon=1e-12, rtol=1e-5, atol=1e-5)
    yield _case(np.float32, (4, 6), epsilon=0.5, rtol=1e-5, atol=1e-5)
    # Rows split over two threads.
    yield _case(np.float32, (8, 64, 128), rtol=1e-5, atol=1e-5)
    yield _case("bfloat16", (3, 4, 32), rtol=2e-2, atol=3e-2)
    # No half case: TensorFlow's half kernel needs oneDNN's f16 layer norm,
    # which CPUs without AVX512-FP16 lack ("could not create a primitive
    # descriptor"); dfg's computes in float (nn_ext_ops_test.cc).
    yield _case(np.float32, (0, 8))
    yield _case(np.float32, (4, 0))
    yield _case(np.float32, (2, 2, 2, 4), expect_error=r"input must be 2D or 3D\[2,2,2,4\]")
    yield _case(np.float32, (7,), expect_error=r"input must be 2D or 3D\[7\]")
    yield _case(np.float32, (3, 4), scale_shape=(1, 4),
                expect_error=r"scale must be 1D tensor\[1,4\]")
    yield _case(np.float32, (3, 4), offset_shape=(5,),
                expect_error="Number of elements in scale and shifttensors are not same")
