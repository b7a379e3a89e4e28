"""BatchNormWithGlobalNormalization and its gradient (half, float, double).
TensorFlow's Python refuses to build them (deprecated at GraphDef version
9), so a case builds Identity / IdentityN over the inputs and its edit turns
that node into the op in a GraphDef of producer 8. Grappler's fused ops
(_UnaryOpsComposition...) the same way: Python cannot emit them, so an edit
turns a plain node into the fused one. _FusedBatchNormEx has no cases:
TensorFlow 2.21's Eigen CPU kernel leaves its outputs unset in every mode
("Missing 0-th output from {{node y}}"; only oneDNN's rewrite runs it)."""
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


UNARY_CHAINS = [
    ["Abs", "Sqrt", "Log1p", "Neg", "Exp", "Expm1"],
    ["Sin", "Cos", "Tan", "Sinh", "Cosh", "Tanh"],
    ["Tanh", "Atanh", "Tanh", "Asin", "Tanh", "Acos", "Square", "Asinh", "Exp", "Acosh"],
    ["Floor", "Reciprocal"], ["Ceil", "Inv", "Rsqrt"], ["Round"], ["Rint"],
    ["Elu", "Relu6", "Selu", "Relu", "Sigmoid"], ["Selu"], ["Elu", "Tanh"],
]
HALF_CHAINS = [
    ["Abs", "Sqrt", "Log1p", "Neg", "Exp", "Expm1", "Sigmoid", "Tanh", "Square"],
    ["Elu", "Selu", "Relu6", "Relu", "Sin", "Cos"], ["Round"],
    ["Floor", "Ceil", "Reciprocal", "Inv", "Rsqrt"],
]
HALVES = [0.5, 1.5, 2.5, -0.5, -1.5, 3.7, -2.2, 4.5]


def _unary_edit(names):
    def edit(graph_def):
        for node in graph_def.node:
            if node.name == "y":
                node.op = "_UnaryOpsComposition"
                node.attr["op_names"].list.s[:] = [n.encode() for n in names]
    return edit


def _unary_case(dtype, names, shape=(3, 4), values=None, **kw):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = (f"_UnaryOpsComposition/{np.dtype(dtype).name}{list(shape)}/"
            + ",".join(names)).replace(" ", "")

    def build():
        x = tf.compat.v1.placeholder(dtype, shape, name="x")
        v = data(name, dtype, shape, "small") if values is None else np.array(values, dtype)
        return [tf.identity(x, name="y")], {x: v}
    return OpCase(name, ["_UnaryOpsComposition"], build, edit=_unary_edit(names), **kw)


def _unary_cases():
    for dtype in (np.float32, np.float64):
        for names in UNARY_CHAINS:
            halves = names in (["Round"], ["Rint"])
            yield _unary_case(dtype, names, shape=(8,) if halves else (3, 4),
                              values=HALVES if halves else None)
    for names in HALF_CHAINS:
        yield _unary_case(np.float16, names, shape=(8,) if names == ["Round"] else (3, 4),
                          values=HALVES if names == ["Round"] else None)
    yield _unary_case(np.float32, ["Relu", "Exp"], shape=(0, 3))
    yield _unary_case(np.float16, ["Rint"], expect_error=(
        "Do not have a compute function registered for op: Rint"))
    yield _unary_case(np.float32, ["Relu", "Gelu"], expect_error=(
        "Do not have a compute function registered for op: Gelu"))
    yield _unary_case(np.float32, [], expect_error=(
        "Unary op composition must have at least one op"))


def cases():
    yield from _unary_cases()
    for op in OPS:
        for dtype in (np.float16, np.float32, np.float64):
            for scale in (True, False):
                yield _case(op, dtype, (2, 3, 4, 5), scale)
        yield _case(op, np.float32, (0, 2, 2, 3), True)
        yield _case(op, np.float32, (2, 3, 5), True, variant="/rank3",
                    expect_error="input must be 4-dimensional")
        yield _case(op, np.float32, (2, 3, 4, 5), True, variant="/producer9", producer=9,
                    expect_error=f"Op {op} is not available in GraphDef version 9")
