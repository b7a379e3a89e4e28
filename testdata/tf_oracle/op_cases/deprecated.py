"""Deprecated ops that are another op under an old name: the BatchMatrix* /
BatchCholesky* / BatchSelfAdjointEig* / BatchSvd linalg aliases,
SelfAdjointEig (V1's packed [..., n + 1, n] layout) and AdjustContrast (v1).

TensorFlow's Python refuses to build them in a graph of today's version, so
each case builds the successor (or a stand-in node) and its edit rewrites the
GraphDef: the op renamed, attrs the old OpDef lacks dropped, versions.producer
set just below the deprecation. A case per op at the deprecation version
checks that both refuse it.

TopK and TileGrad have no cases: TensorFlow 2.21 cannot run them (its CPU
kernels constrain attrs their OpDefs lack: index_type, Tmultiples).
"""
import numpy as np

from op_case import OpCase, data

F32, F64 = np.float32, np.float64


def _rewrite(ops, producer, drop=(), node=None):
    """An edit: node types renamed ({built: wanted}), `drop` attrs removed;
    `node` = (name, op, inputs, attrs) replaces that node's op, inputs and
    attrs outright (for an old op with no successor of its signature)."""
    def edit(graph_def):
        for n in graph_def.node:
            if n.op in ops:
                n.op = ops[n.op]
                for a in drop:
                    if a in n.attr:
                        del n.attr[a]
            if node is not None and n.name == node[0]:
                n.op = node[1]
                del n.input[:]
                n.input.extend(node[2])
                n.attr.clear()
                for key, value in node[3].items():
                    n.attr[key].CopyFrom(value)
        graph_def.versions.producer = producer
    return edit


def _case(name, ops, fn, inputs, edit, dynamic=False, **kw):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    def build():
        phs = [tf.compat.v1.placeholder(v.dtype, None if dynamic else v.shape, name=f"in{i}")
               for i, v in enumerate(inputs)]
        out = fn(*phs)
        return (out if isinstance(out, list) else [out]), dict(zip(phs, inputs))
    return OpCase(name, ops, build, edit=edit, **kw)


def _n(op, dtype, shape, variant=""):
    n = f"{op}/{np.dtype(dtype).name}{list(shape)}".replace(" ", "")
    return n + (f"/{variant}" if variant else "")


def _well(name, dtype, shape, spd=False):
    a = data(name, F64, shape)
    n = shape[-1]
    a = a @ np.swapaxes(a, -1, -2) + n * np.eye(n) if spd else a + 2 * n * np.eye(n)
    return a.astype(dtype)


def _tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-5} if dtype == F32 else {"rtol": 1e-10, "atol": 1e-10}


# (old op, successor, deprecation version)
_LINALG = [("BatchCholesky", "Cholesky", 13), ("BatchMatrixDeterminant", "MatrixDeterminant", 13),
           ("BatchMatrixInverse", "MatrixInverse", 13), ("BatchMatrixSolve", "MatrixSolve", 13),
           ("BatchMatrixSolveLs", "MatrixSolveLs", 13),
           ("BatchMatrixTriangularSolve", "MatrixTriangularSolve", 13),
           ("BatchSelfAdjointEigV2", "SelfAdjointEigV2", 13), ("BatchSvd", "Svd", 13),
           ("BatchCholeskyGrad", "CholeskyGrad", 13)]


def _linalg_build(R, tf, succ, name, dtype, shape):
    """(fn, inputs) building `succ` on well-posed [2, ...] batches."""
    a = _well(name, dtype, shape, spd=succ in ("Cholesky", "CholeskyGrad"))
    b = data(name + "b", dtype, shape[:-1] + (2,))
    if succ in ("Cholesky", "MatrixDeterminant"):
        return (lambda x: getattr(R, succ)(input=x)), [a]
    if succ == "MatrixInverse":
        return (lambda x: R.MatrixInverse(input=x, adjoint=True)), [a]
    if succ == "MatrixSolve":
        return (lambda x, y: R.MatrixSolve(matrix=x, rhs=y, adjoint=True)), [a, b]
    if succ == "MatrixSolveLs":
        return (lambda x, y: R.MatrixSolveLs(matrix=x, rhs=y, fast=True,
                                             l2_regularizer=tf.constant(0.1, tf.float64))), [a, b]
    if succ == "MatrixTriangularSolve":
        return (lambda x, y: R.MatrixTriangularSolve(matrix=x, rhs=y, lower=False)), [a, b]
    if succ == "SelfAdjointEigV2":
        def eig(x):
            e, v = R.SelfAdjointEigV2(input=x)
            return [e, tf.abs(v)]
        return eig, [a]
    if succ == "Svd":
        def svd(x):
            s, u, v = R.Svd(input=x)
            return [s, tf.abs(u), tf.abs(v)]
        return svd, [data(name, dtype, shape)]
    g = data(name + "g", dtype, shape)
    return (lambda x, y: R.CholeskyGrad(l=tf.linalg.cholesky(x), grad=y)), [a, g]


def _linalg_cases(R, tf):
    for old, succ, version in _LINALG:
        for dtype in (F32, F64):
            for shape in ((2, 3, 3), (0, 2, 2)):
                n = _n(old, dtype, shape)
                fn, inputs = _linalg_build(R, tf, succ, n, dtype, shape)
                yield _case(n, [old], fn, inputs, _rewrite({succ: old}, version - 1),
                            **_tol(dtype))
        n = _n(old, F32, (2, 3, 3), f"producer{version}")
        fn, inputs = _linalg_build(R, tf, succ, n, F32, (2, 3, 3))
        yield _case(n, [old], fn, inputs, _rewrite({succ: old}, version),
                    expect_error=f"Op {old} is not available in GraphDef version {version}")


def _eig_v1_cases(R, tf):
    """SelfAdjointEig(V1) has no successor of its signature: a Cholesky node
    (input:T -> output:T) is built and renamed. Row 0 holds the eigenvalues;
    the eigenvector columns below are compared up to sign."""
    for old in ("SelfAdjointEig", "BatchSelfAdjointEig"):
        for dtype in (F32, F64):
            for shape in ((4, 4), (2, 3, 3), (0, 2, 2), (1, 1), (2, 0, 0)):
                n = _n(old, dtype, shape)
                x = data(n, dtype, shape)
                x = (x + np.swapaxes(x, -1, -2)).astype(dtype)

                def fn(a):
                    out = R.Cholesky(input=a)
                    return [out[..., :1, :], tf.abs(out[..., 1:, :])]
                yield _case(n, [old], fn, [x], _rewrite({"Cholesky": old}, 10), **_tol(dtype))
        n = _n(old, F32, (3, 3), "producer11")
        yield _case(n, [old], lambda a: R.Cholesky(input=a), [np.eye(3, dtype=F32)],
                    _rewrite({"Cholesky": old}, 11),
                    expect_error=f"Op {old} is not available in GraphDef version 11")


def _matrix_cases(R, tf):
    for dtype in (F32, np.int32, np.complex64, np.float64):
        n = _n("BatchMatrixBandPart", dtype, (2, 4, 5))
        yield _case(n, ["BatchMatrixBandPart"],
                    lambda x: R.MatrixBandPart(input=x, num_lower=tf.constant(1, tf.int64),
                                               num_upper=tf.constant(-1, tf.int64)),
                    [data(n, dtype, (2, 4, 5))],
                    _rewrite({"MatrixBandPart": "BatchMatrixBandPart"}, 13, drop=("Tindex",)))
        n = _n("BatchMatrixDiag", dtype, (2, 3))
        yield _case(n, ["BatchMatrixDiag"], lambda d: R.MatrixDiag(diagonal=d),
                    [data(n, dtype, (2, 3))], _rewrite({"MatrixDiag": "BatchMatrixDiag"}, 13))
        n = _n("BatchMatrixDiagPart", dtype, (2, 3, 4))
        yield _case(n, ["BatchMatrixDiagPart"], lambda x: R.MatrixDiagPart(input=x),
                    [data(n, dtype, (2, 3, 4))],
                    _rewrite({"MatrixDiagPart": "BatchMatrixDiagPart"}, 13))
        n = _n("BatchMatrixSetDiag", dtype, (2, 4, 3))
        yield _case(n, ["BatchMatrixSetDiag"], lambda x, d: R.MatrixSetDiag(input=x, diagonal=d),
                    [data(n, dtype, (2, 4, 3)), data(n + "d", dtype, (2, 3))],
                    _rewrite({"MatrixSetDiag": "BatchMatrixSetDiag"}, 13))
    for old, succ in (("BatchMatrixDiag", "MatrixDiag"), ("BatchMatrixDiagPart", "MatrixDiagPart")):
        n = _n(old, F32, (2, 2), "producer14")
        yield _case(n, [old], lambda x, succ=succ: getattr(R, succ)(**{
            "diagonal" if succ == "MatrixDiag" else "input": x}),
                    [np.ones((2, 2), F32)], _rewrite({succ: old}, 14),
                    expect_error=f"Op {old} is not available in GraphDef version 14")


def _adjust_contrast_cases(R, tf):
    """AdjustContrast(v1) has four inputs: an Identity node named `adjust`
    stands in and the edit makes it the old op on the four placeholders."""
    from tensorflow.core.framework import attr_value_pb2  # pylint: disable=import-outside-toplevel
    for dtype in (np.uint8, np.int8, np.int16, np.int32, F32, F64):
        for shape, lo, hi in (((2, 3, 4, 3), -2.0, 5.0), ((3, 5, 1), -100.0, 100.0),
                              ((0, 2, 2, 1), 0.0, 1.0)):
            n = _n("AdjustContrast", dtype, shape, f"{lo},{hi}")
            x = data(n, dtype, shape)
            tdtype = tf.as_dtype(dtype).as_datatype_enum
            node = ("adjust", "AdjustContrast", ["in0", "in1", "in2", "in3"],
                    {"T": attr_value_pb2.AttrValue(type=tdtype)})
            yield _case(n, ["AdjustContrast"],
                        lambda a, f, l, h: tf.identity(f, name="adjust"),
                        [x, np.float32(1.7), np.float32(lo), np.float32(hi)],
                        _rewrite({}, 1, node=node), rtol=1e-5, atol=1e-5)
    for bad, msg in (((2, 2), "input must be at least 3-D"),):
        n = _n("AdjustContrast", F32, bad)
        node = ("adjust", "AdjustContrast", ["in0", "in1", "in2", "in3"],
                {"T": attr_value_pb2.AttrValue(type=tf.float32.as_datatype_enum)})
        yield _case(n, ["AdjustContrast"], lambda a, f, l, h: tf.identity(f, name="adjust"),
                    [np.ones(bad, F32), np.float32(2), np.float32(0), np.float32(1)],
                    _rewrite({}, 1, node=node), dynamic=True, expect_error=msg)
    n = _n("AdjustContrast", F32, (2, 2, 1), "producer2")
    node = ("adjust", "AdjustContrast", ["in0", "in1", "in2", "in3"],
            {"T": attr_value_pb2.AttrValue(type=tf.float32.as_datatype_enum)})
    yield _case(n, ["AdjustContrast"], lambda a, f, l, h: tf.identity(f, name="adjust"),
                [np.ones((2, 2, 1), F32), np.float32(2), np.float32(0), np.float32(1)],
                _rewrite({}, 2, node=node),
                expect_error="Op AdjustContrast is not available in GraphDef version 2")


def cases():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    R = tf.raw_ops
    yield from _linalg_cases(R, tf)
    yield from _eig_v1_cases(R, tf)
    yield from _matrix_cases(R, tf)
    yield from _adjust_contrast_cases(R, tf)
