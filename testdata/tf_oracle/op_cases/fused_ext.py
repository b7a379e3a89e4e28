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


def _pad_conv_case(dtype, xs, fs, pads, mode, strides=(1, 1, 1, 1), padding="VALID",
                   size=None, align=False, variant="", **kw):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    op = "FusedPadConv2D" if size is None else "FusedResizeAndPadConv2D"
    bf16 = dtype == "bfloat16"
    name = (f"{op}/{dtype if bf16 else np.dtype(dtype).name}{list(xs)}/"
            f"{mode},{padding},s={strides[1]}{variant}").replace(" ", "")
    ph_dtype = np.float32 if bf16 else dtype

    def build():
        x = tf.compat.v1.placeholder(ph_dtype, None, name="x")
        f = tf.compat.v1.placeholder(ph_dtype, None, name="f")
        xin, fin = (tf.cast(x, tf.bfloat16), tf.cast(f, tf.bfloat16)) if bf16 else (x, f)
        p = tf.constant(pads, tf.int32)
        if size is None:
            y = tf.raw_ops.FusedPadConv2D(input=xin, paddings=p, filter=fin, mode=mode,
                                          strides=list(strides), padding=padding)
        else:
            y = tf.raw_ops.FusedResizeAndPadConv2D(
                input=xin, size=tf.constant(size, tf.int32), paddings=p, filter=fin,
                mode=mode, strides=list(strides), padding=padding,
                resize_align_corners=align)
        y = tf.cast(y, tf.float32) if bf16 else y
        return [y], {x: data(name + "x", ph_dtype, xs, "small"),
                     f: data(name + "f", ph_dtype, fs, "small")}
    return OpCase(name, [op], build, **kw)


# Batch 1 only: TensorFlow 2.21's fused kernel gives every image of a batch
# the first image's result (dfg convolves each image).
PADS = [[0, 0], [1, 2], [2, 1], [0, 0]]


def _pad_conv_cases():
    for dtype in (np.float32, np.float64, np.float16, "bfloat16"):
        # Half: a 1x1x1 filter (one product per output): TensorFlow's half
        # GEMM sums in half in an order of its own.
        half = dtype == np.float16
        xs = (1, 5, 6, 1) if half else (1, 5, 6, 3)
        f33, f32 = ((1, 1, 1, 2), (1, 1, 1, 2)) if half else ((3, 3, 3, 4), (3, 2, 3, 4))
        for mode in ("REFLECT", "SYMMETRIC"):
            yield _pad_conv_case(dtype, xs, f33, PADS, mode)
        if dtype == "bfloat16":
            continue
        yield _pad_conv_case(dtype, xs, f32, PADS, "REFLECT", size=(7, 9), variant="/resize")
        yield _pad_conv_case(dtype, xs, f32, PADS, "SYMMETRIC", size=(4, 8), align=True,
                             variant="/resize_align")
    for padding in ("SAME", "VALID"):
        yield _pad_conv_case(np.float32, (1, 7, 7, 2), (2, 2, 2, 3),
                             [[0, 0], [1, 1], [1, 1], [0, 0]], "SYMMETRIC",
                             strides=(1, 4, 3, 1), padding=padding)
        yield _pad_conv_case(np.float32, (1, 7, 7, 2), (2, 3, 2, 3),
                             [[0, 0], [1, 1], [2, 0], [0, 0]], "REFLECT",
                             strides=(1, 4, 3, 1), padding=padding, size=(5, 8),
                             variant="/resize")
    yield _pad_conv_case(np.float32, (1, 3, 3, 2), (2, 2, 2, 3),
                         [[0, 0], [3, 0], [0, 0], [0, 0]], "REFLECT", variant="/too_far",
                         expect_error="paddings must be less than the dimension size: 3, 0")
    yield _pad_conv_case(np.float32, (1, 3, 3, 2), (2, 2, 2, 3),
                         [[1, 0], [0, 0], [0, 0], [0, 0]], "SYMMETRIC", variant="/batch",
                         expect_error="Fused mirror padding only support spatial padding, "
                                      "not batches")
    yield _pad_conv_case(np.float32, (0, 3, 3, 2), (2, 2, 2, 3), PADS, "SYMMETRIC",
                         expect_error="Input tensor can't be empty")
    yield _pad_conv_case(np.float32, (1, 3, 3, 2), (2, 2, 3, 3), PADS, "SYMMETRIC",
                         variant="/depth",
                         expect_error="input and filter must have the same depth: 2 vs 3")


def _conv_case(dtype, xs, fs, variant="", **attrs):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    expect_error = attrs.pop("expect_error", None)
    name = f"Conv/{np.dtype(dtype).name}{list(xs)}/{variant}".replace(" ", "")

    def build():
        x = tf.compat.v1.placeholder(dtype, None, name="x")
        f = tf.compat.v1.placeholder(dtype, None, name="f")
        y = tf.raw_ops.Conv(input=x, filter=f, **attrs)
        return [y], {x: data(name + "x", dtype, xs, "small"),
                     f: data(name + "f", dtype, fs, "small")}
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else {}
    return OpCase(name, ["Conv"], build, expect_error=expect_error, **tol)


def _conv_cases():
    one4, one5 = [1, 1, 1, 1], [1, 1, 1, 1, 1]
    for dtype in (np.float32, np.float64, np.int32):
        yield _conv_case(dtype, (2, 7, 6, 3), (3, 3, 3, 4), "2d_same", strides=one4,
                         padding="SAME")
    yield _conv_case(np.float32, (2, 7, 6, 3), (3, 2, 3, 4), "2d_strided_dilated",
                     strides=[1, 2, 1, 1], padding="VALID", dilations=[1, 1, 2, 1])
    yield _conv_case(np.float32, (2, 7, 6, 3), (3, 3, 3, 4), "2d_explicit", strides=one4,
                     padding="EXPLICIT", explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0])
    for dtype in (np.float32, np.float64):
        yield _conv_case(dtype, (2, 5, 4, 5, 3), (2, 3, 2, 3, 4), "3d", strides=[1, 1, 2, 1, 1],
                         padding="SAME")
    yield _conv_case(np.float32, (2, 7, 3), (3, 3, 4), "1d", strides=[1, 1, 1],
                     padding="VALID",
                     expect_error="The input must have 2 or 3 spatial dimensions but got 1")
    yield _conv_case(np.float32, (2, 7, 6, 4), (3, 3, 2, 4), "groups", strides=one4,
                     padding="SAME", groups=2,
                     expect_error="Grouped/Depthwise Convolutions are not supported yet")
    yield _conv_case(np.float32, (2, 3, 7, 6), (3, 3, 3, 4), "channels_first", strides=one4,
                     padding="SAME", data_format="CHANNELS_FIRST",
                     expect_error="only supports the NHWC tensor format on the CPU")
    yield _conv_case(np.float32, (2, 5, 5, 5, 3), (2, 2, 2, 3, 4), "3d_dilated",
                     strides=one5, padding="SAME", dilations=[1, 2, 1, 1, 1],
                     expect_error="only supports dilated rates of 1")


def cases():
    yield from _unary_cases()
    yield from _conv_cases()
    yield from _pad_conv_cases()
    for op in OPS:
        for dtype in (np.float16, np.float32, np.float64):
            for scale in (True, False):
                yield _case(op, dtype, (2, 3, 4, 5), scale)
        yield _case(op, np.float32, (0, 2, 2, 3), True)
        yield _case(op, np.float32, (2, 3, 5), True, variant="/rank3",
                    expect_error="input must be 4-dimensional")
        yield _case(op, np.float32, (2, 3, 4, 5), True, variant="/producer9", producer=9,
                    expect_error=f"Op {op} is not available in GraphDef version 9")
