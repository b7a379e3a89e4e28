"""_FusedMatMul (Grappler's remapper's MatMul + BiasAdd [+ activation]) in
every form TensorFlow 2.21's Eigen CPU kernel takes (the oracle runs with
TF_ENABLE_ONEDNN_OPTS=0): BiasAdd, then one of Relu, Relu6, Elu, LeakyRelu,
Tanh, Sigmoid; float, bfloat16 and half; and its error for the rest. The
forms only TensorFlow's oneDNN kernel takes (GeluApproximate, GeluExact, Add
after the BiasAdd) are in dfg's kernel tests (nn_ext_ops_test.cc). Python
cannot emit the op, so a case builds IdentityN over the operands and its
edit turns that node into _FusedMatMul. Shapes include ones large enough for
dfg to split the GEMM (and its fused epilogue) over two threads, by rows and
by columns."""
import numpy as np

from op_case import OpCase, data

ACTS = ["Relu", "Relu6", "Elu", "LeakyRelu", "Tanh", "Sigmoid"]


def _edit(dtype, fused_ops, ta, tb, alpha):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    def edit(graph_def):
        for node in graph_def.node:
            if node.name != "y":
                continue
            node.op = "_FusedMatMul"
            del node.attr["T"]
            node.attr["T"].type = tf.as_dtype(dtype).as_datatype_enum
            node.attr["transpose_a"].b = ta
            node.attr["transpose_b"].b = tb
            node.attr["fused_ops"].list.s[:] = [s.encode() for s in fused_ops]
            node.attr["num_args"].i = len(node.input) - 2
            node.attr["epsilon"].f = 1e-4
            if alpha is not None:
                node.attr["leakyrelu_alpha"].f = alpha
    return edit


def _case(dtype, fused_ops, m=5, k=7, n=6, ta=False, tb=False, alpha=None, **kw):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    tname = "bfloat16" if dtype == "bfloat16" else np.dtype(dtype).name
    name = (f"_FusedMatMul/{tname}[{m},{k}]x[{k},{n}]/{','.join(fused_ops)}"
            f"{'/ta' if ta else ''}{'/tb' if tb else ''}"
            f"{f'/alpha={alpha}' if alpha is not None else ''}")
    np_dtype = np.float32 if dtype == "bfloat16" else dtype
    tf_dtype = tf.bfloat16 if dtype == "bfloat16" else dtype
    specs = [("a", (k, m) if ta else (m, k)), ("b", (n, k) if tb else (k, n)),
             ("bias", (n,))]
    if "Add" in fused_ops:
        specs.append(("addend", (m, n)))

    def build():
        # bfloat16: TensorFlow's contraction accumulates in bfloat16 (its
        # rounding differs from dfg's float GEMM by a few bf16 ulps of the
        # partial sums), so values in (-1, 1).
        domain = "unit" if dtype == "bfloat16" else "small"
        vals = [data(name + s, np_dtype, shape, domain) for s, shape in specs]
        if dtype == "bfloat16":  # no bfloat16 in .npy: constants, a float fetch
            ins = [tf.constant(v, tf_dtype, name=s) for v, (s, _) in zip(vals, specs)]
            feeds = {}
        else:
            ins = [tf.compat.v1.placeholder(tf_dtype, shape, name=s) for s, shape in specs]
            feeds = dict(zip(ins, vals))
        outs = tf.raw_ops.IdentityN(input=ins, name="y")
        if dtype == "bfloat16":
            return [tf.cast(outs[0], tf.float32)], feeds
        return [outs[0]], feeds
    return OpCase(name, ["_FusedMatMul"], build,
                  edit=_edit(tf_dtype, fused_ops, ta, tb, alpha), **kw)


def cases():
    for fused in [["BiasAdd"]] + [["BiasAdd", a] for a in ACTS]:
        yield _case(np.float32, fused, rtol=1e-5, atol=1e-5)
        yield _case("bfloat16", fused, rtol=2e-2, atol=3e-2)
        yield _case(np.float16, fused, rtol=2e-3, atol=2e-3)
    yield _case(np.float32, ["BiasAdd", "LeakyRelu"], alpha=0.3)
    for ta, tb in ((True, False), (False, True), (True, True)):
        yield _case(np.float32, ["BiasAdd", "Relu"], ta=ta, tb=tb)
    # Split over two threads by rows (m >= n) and by columns.
    for act in ("Tanh", "Elu"):
        yield _case(np.float32, ["BiasAdd", act], m=96, k=80, n=64, rtol=1e-5, atol=1e-5)
        yield _case(np.float32, ["BiasAdd", act], m=16, k=256, n=256, rtol=1e-5, atol=1e-5)
    yield _case(np.float32, ["BiasAdd", "Sigmoid"], k=0)  # zeros
    # The forms the Eigen kernel refuses, in its words.
    for fused in (["BiasAdd", "GeluExact"], ["BiasAdd", "Add"], ["Relu"],
                  ["BiasAdd", "Relu", "Add"], ["BiasAdd", "Swish"]):
        for dtype in (np.float32, np.float16):
            if dtype == np.float32 and fused[-1] in ("GeluExact", "Add"):
                continue  # dfg runs them as the oneDNN kernel does
            yield _case(dtype, fused, expect_error=(
                r"Fusion is not implemented: \[" + ",".join(fused) + r"\]"))
