"""Training-step ops dfg has kernels for: the optimizers' apply ops (ref and
resource variables, one step from known values) and the gradient ops of
tf.gradients."""
import numpy as np

from op_case import OpCase, data

SHAPE = (3, 4)


def _ref_apply(op, dtype, extra):
    """op(var=<VariableV2 assigned x>, accum..., scalars, grad): the value
    the apply op leaves in the variable. `extra`: [(input, domain or scalar)]."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = f"{op}/{np.dtype(dtype).name}{list(SHAPE)}".replace(" ", "")

    def build():
        feeds, args = {}, {}
        var = tf.raw_ops.VariableV2(shape=SHAPE, dtype=dtype, name="var")
        x = tf.compat.v1.placeholder(dtype, SHAPE, name="x")
        feeds[x] = data(name + "/x", dtype, SHAPE)
        args["var"] = tf.raw_ops.Assign(ref=var, value=x)
        for arg, how in extra:
            if isinstance(how, float):
                args[arg] = tf.constant(how, dtype)
            elif how.startswith("slot"):
                slot = tf.raw_ops.VariableV2(shape=SHAPE, dtype=dtype, name=arg)
                v = tf.compat.v1.placeholder(dtype, SHAPE, name=arg + "_init")
                feeds[v] = data(f"{name}/{arg}", dtype, SHAPE, "pos")
                args[arg] = tf.raw_ops.Assign(ref=slot, value=v)
            else:
                g = tf.compat.v1.placeholder(dtype, SHAPE, name=arg)
                feeds[g] = data(f"{name}/{arg}", dtype, SHAPE, how)
                args[arg] = g
        out = getattr(tf.raw_ops, op)(**args, name="apply")
        return [tf.identity(out, name="y")], feeds
    return OpCase(name, [op, "VariableV2", "Assign"], build)


def _resource_apply(op, dtype, extra):
    """The resource form: VarHandleOp + AssignVariableOp, the apply, then
    ReadVariableOp of the variable (ordered by control edges)."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = f"{op}/{np.dtype(dtype).name}{list(SHAPE)}".replace(" ", "")

    def build():
        feeds, args, inits = {}, {}, []

        def variable(arg, domain):
            h = tf.raw_ops.VarHandleOp(dtype=dtype, shape=SHAPE, shared_name=arg, name=arg)
            v = tf.compat.v1.placeholder(dtype, SHAPE, name=arg + "_init")
            feeds[v] = data(f"{name}/{arg}", dtype, SHAPE, domain)
            inits.append(tf.raw_ops.AssignVariableOp(resource=h, value=v))
            return h
        args["var"] = variable("var", "any")
        for arg, how in extra:
            if isinstance(how, float):
                args[arg] = tf.constant(how, dtype)
            elif how.startswith("slot"):
                args[arg] = variable(arg, "pos")
            else:
                g = tf.compat.v1.placeholder(dtype, SHAPE, name=arg)
                feeds[g] = data(f"{name}/{arg}", dtype, SHAPE, how)
                args[arg] = g
        with tf.control_dependencies(inits):
            apply = getattr(tf.raw_ops, op)(**args, name="apply")
        with tf.control_dependencies([apply]):
            out = tf.raw_ops.ReadVariableOp(resource=args["var"], dtype=dtype, name="y")
        return [out], feeds
    return OpCase(name, [op, "VarHandleOp", "AssignVariableOp", "ReadVariableOp"], build)


APPLY = {
    "ApplyGradientDescent": [("alpha", 0.1), ("delta", "any")],
    "ApplyMomentum": [("accum", "slot"), ("lr", 0.1), ("grad", "any"), ("momentum", 0.9)],
    "ApplyAdagrad": [("accum", "slot"), ("lr", 0.1), ("grad", "any")],
    "ApplyRMSProp": [("ms", "slot"), ("mom", "slot"), ("lr", 0.01), ("rho", 0.9),
                     ("momentum", 0.5), ("epsilon", 1e-7), ("grad", "any")],
    "ApplyAdam": [("m", "slot"), ("v", "slot"), ("beta1_power", 0.9), ("beta2_power", 0.999),
                  ("lr", 0.01), ("beta1", 0.9), ("beta2", 0.999), ("epsilon", 1e-7),
                  ("grad", "any")],
}


def _grad(op, dtype, inputs, **attrs):
    """A gradient op on placeholders: inputs [(name, shape, domain)]."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    shapes = "".join(str(list(s)) for _, s, _ in inputs).replace(" ", "")
    name = f"{op}/{np.dtype(dtype).name}{shapes}"

    def build():
        feeds, args = {}, {}
        for arg, shape, domain in inputs:
            p = tf.compat.v1.placeholder(dtype, shape, name=arg)
            feeds[p] = data(f"{name}/{arg}", dtype, shape, domain)
            args[arg] = p
        out = getattr(tf.raw_ops, op)(**args, **attrs, name="y")
        outs = out if isinstance(out, (list, tuple)) else [out]
        return [tf.identity(o, name=f"out{i}") for i, o in enumerate(outs)], feeds
    return OpCase(name, [op], build, rtol=1e-4, atol=1e-4)


def cases():
    for op, extra in APPLY.items():
        for dtype in (np.float32, np.float64):
            yield _ref_apply(op, dtype, extra)
            yield _resource_apply("Resource" + op, dtype, extra)
    for dtype in (np.float32, np.float64):
        s = (2, 3)
        for op, y_domain in [("TanhGrad", "unit"), ("SigmoidGrad", "unit"),
                             ("SqrtGrad", "pos"), ("RsqrtGrad", "pos")]:
            yield _grad(op, dtype, [("y", s, y_domain), ("dy", s, "any")])
        for op in ("ReluGrad", "Relu6Grad"):
            yield _grad(op, dtype, [("gradients", s, "any"), ("features", s, "small")])
        yield _grad("BiasAddGrad", dtype, [("out_backprop", (2, 3, 4), "any")])
        yield _grad("SoftmaxCrossEntropyWithLogits", dtype,
                    [("features", (3, 5), "any"), ("labels", (3, 5), "pos")])
    yield _avg_pool_grad()
    yield _max_pool_grad()
    yield _conv_backprop_filter()
    yield _sparse_xent()


def _avg_pool_grad():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = "AvgPoolGrad/float32[1,2,2,3]"

    def build():
        g = tf.compat.v1.placeholder(tf.float32, (1, 2, 2, 3), name="grad")
        y = tf.raw_ops.AvgPoolGrad(orig_input_shape=[1, 4, 4, 3], grad=g, ksize=[1, 2, 2, 1],
                                   strides=[1, 2, 2, 1], padding="VALID", name="y")
        return [y], {g: data(name, np.float32, (1, 2, 2, 3))}
    return OpCase(name, ["AvgPoolGrad"], build)


def _max_pool_grad():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = "MaxPoolGrad/float32[1,4,4,2]"

    def build():
        x = tf.compat.v1.placeholder(tf.float32, (1, 4, 4, 2), name="x")
        pooled = tf.raw_ops.MaxPool(input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                    padding="SAME")
        g = tf.compat.v1.placeholder(tf.float32, (1, 2, 2, 2), name="g")
        y = tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=pooled, grad=g,
                                   ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME",
                                   name="y")
        return [y], {x: data(name + "/x", np.float32, (1, 4, 4, 2)),
                     g: data(name + "/g", np.float32, (1, 2, 2, 2))}
    return OpCase(name, ["MaxPoolGrad"], build)


def _conv_backprop_filter():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = "Conv2DBackpropFilter/float32[1,5,5,2]"

    def build():
        x = tf.compat.v1.placeholder(tf.float32, (1, 5, 5, 2), name="x")
        g = tf.compat.v1.placeholder(tf.float32, (1, 3, 3, 4), name="g")
        y = tf.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=[3, 3, 2, 4],
                                            out_backprop=g, strides=[1, 1, 1, 1],
                                            padding="VALID", name="y")
        return [y], {x: data(name + "/x", np.float32, (1, 5, 5, 2)),
                     g: data(name + "/g", np.float32, (1, 3, 3, 4))}
    return OpCase(name, ["Conv2DBackpropFilter"], build, rtol=1e-4, atol=1e-4)


def _sparse_xent():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = "SparseSoftmaxCrossEntropyWithLogits/float32[4,5]"

    def build():
        x = tf.compat.v1.placeholder(tf.float32, (4, 5), name="x")
        labels = tf.constant([0, 4, 2, 1], tf.int64)
        loss, back = tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=labels)
        return [tf.identity(loss, name="loss"), tf.identity(back, name="backprop")], {
            x: data(name, np.float32, (4, 5))}
    return OpCase(name, ["SparseSoftmaxCrossEntropyWithLogits"], build)
