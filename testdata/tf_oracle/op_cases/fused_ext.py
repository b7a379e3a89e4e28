"""BatchNormWithGlobalNormalization and its gradient (half, float, double).
TensorFlow's Python refuses to build them (deprecated at GraphDef version
9), so a case builds Identity / IdentityN over the inputs and its edit turns
that node into the op in a GraphDef of producer 8."""
import numpy as np

from op_case import OpCase, data

OPS = ("BatchNormWithGlobalNormalization", "BatchNormWithGlobalNormalizationGrad")


def _edit(op, dtype, eps, scale, producer=8):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    def edit(graph_def):
        for node in graph_def.node:
            if node.name != "y":
                continue
            node.op = op
            if not op.endswith("Grad"):
                node.input[:] = ["t", "m", "v", "beta", "gamma"]
            del node.attr["T"]
            node.attr["T"].type = tf.as_dtype(dtype).as_datatype_enum
            node.attr["variance_epsilon"].f = eps
            node.attr["scale_after_normalization"].b = scale
        graph_def.versions.producer = producer
    return edit


def _case(op, dtype, shape, scale, eps=1e-3, variant="", producer=8, **kw):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    grad = op.endswith("Grad")
    name = f"{op}/{np.dtype(dtype).name}{list(shape)}/scale={scale}{variant}".replace(" ", "")
    depth = shape[-1] if len(shape) else 1
    specs = [("t", shape, "any"), ("m", (depth,), "any"), ("v", (depth,), "pos"),
             ("gamma" if grad else "beta", (depth,), "any"),
             ("backprop" if grad else "gamma", shape if grad else (depth,), "any")]

    def build():
        phs = [tf.compat.v1.placeholder(dtype, None, name=n) for n, _, _ in specs]
        if grad:
            outs = tf.raw_ops.IdentityN(input=phs, name="y")
        else:
            outs = [tf.identity(phs[0], name="y")]
        vals = [data(name + n, dtype, s, d) for n, s, d in specs]
        return list(outs), dict(zip(phs, vals))
    return OpCase(name, [op], build, edit=_edit(op, dtype, eps, scale, producer), **kw)


def cases():
    for op in OPS:
        for dtype in (np.float16, np.float32, np.float64):
            for scale in (True, False):
                yield _case(op, dtype, (2, 3, 4, 5), scale)
        yield _case(op, np.float32, (0, 2, 2, 3), True)
        yield _case(op, np.float32, (2, 3, 5), True, variant="/rank3",
                    expect_error="input must be 4-dimensional")
        yield _case(op, np.float32, (2, 3, 4, 5), True, variant="/producer9", producer=9,
                    expect_error=f"Op {op} is not available in GraphDef version 9")
