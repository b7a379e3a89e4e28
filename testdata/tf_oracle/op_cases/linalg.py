"""Linear algebra: MatrixInverse, MatrixDeterminant, LogMatrixDeterminant,
Cholesky, MatrixSolve, MatrixTriangularSolve, MatrixSolveLs, Qr, Svd,
SelfAdjointEigV2 (float32 / float64). Matrix structure ops: Diag / DiagPart, the MatrixDiag / MatrixDiagPart /
MatrixSetDiag families (V1, V2, V3 with every align). The deprecated
BatchMatrix* aliases are in deprecated.py (graphs of an older producer)."""
import numpy as np

from op_case import OpCase, data

F32 = np.float32
ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")
POD = (np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8,
       np.uint64, np.bool_, np.complex64)


def _case(name, ops, fn, inputs, dynamic=False, **kw):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    def build():
        phs = [tf.compat.v1.placeholder(v.dtype, None if dynamic else v.shape,
                                        name=f"in{i}") for i, v in enumerate(inputs)]
        out = fn(*phs)
        return (out if isinstance(out, list) else [out]), dict(zip(phs, inputs))
    return OpCase(name, ops, build, **kw)


def _n(op, dtype, shape, variant=""):
    n = f"{op}/{np.dtype(dtype).name}{list(shape)}".replace(" ", "")
    return n + (f"/{variant}" if variant else "")


def _diag_cases(R):
    for dtype in (np.float16, F32, np.float64, np.int32, np.int64, np.complex128):
        for shape in ((4,), (2, 3), (0,)):
            n = _n("Diag", dtype, shape)
            yield _case(n, ["Diag"], lambda x: R.Diag(diagonal=x), [data(n, dtype, shape)])
            sq = shape + shape
            n = _n("DiagPart", dtype, sq)
            yield _case(n, ["DiagPart"], lambda x: R.DiagPart(input=x), [data(n, dtype, sq)])
    yield _case("DiagPart/float32[2,3]", ["DiagPart"], lambda x: R.DiagPart(input=x),
                [np.ones((2, 3), F32)], dynamic=True, expect_error="do not match")
    yield _case("Diag/float32[]", ["Diag"], lambda x: R.Diag(diagonal=x),
                [np.ones((), F32)], dynamic=True, expect_error="at least rank 1")


def _v1_cases(R):
    for dtype in POD:
        n = _n("MatrixDiag", dtype, (2, 3))
        yield _case(n, ["MatrixDiag"], lambda d: R.MatrixDiag(diagonal=d), [data(n, dtype, (2, 3))])
        n = _n("MatrixDiagPart", dtype, (2, 3, 4))
        yield _case(n, ["MatrixDiagPart"], lambda x: R.MatrixDiagPart(input=x),
                    [data(n, dtype, (2, 3, 4))])
        n = _n("MatrixSetDiag", dtype, (2, 4, 3))
        yield _case(n, ["MatrixSetDiag"], lambda x, d: R.MatrixSetDiag(input=x, diagonal=d),
                    [data(n, dtype, (2, 4, 3)), data(n + "d", dtype, (2, 3))])
    yield _case("MatrixDiagPart/float32[0,3,0]", ["MatrixDiagPart"],
                lambda x: R.MatrixDiagPart(input=x), [np.ones((0, 3, 0), F32)])
    yield _case("MatrixSetDiag/float32[3,4]/bad", ["MatrixSetDiag"],
                lambda x, d: R.MatrixSetDiag(input=x, diagonal=d),
                [np.ones((3, 4), F32), np.ones((4,), F32)], dynamic=True,
                expect_error="Expected diagonal shape")


def _band_cases(R, op_v, align):
    """Part, Diag, SetDiag at V2 (align None) or V3 over several k bands."""
    kw = {} if align is None else {"align": align}
    tag = "V2" if align is None else "V3"
    for k in (0, 1, -2, (-1, 2), (-2, 0), (1, 3), (-3, -1)):
        ks = f"k{k}".replace(" ", "").replace("(", "").replace(")", "")
        variant = ks + ("" if align is None else f"/{align}")
        n = _n(f"MatrixDiagPart{tag}", F32, (2, 4, 5), variant)
        yield _case(n, [f"MatrixDiagPart{tag}"],
                    lambda x, k=k: getattr(R, f"MatrixDiagPart{tag}")(
                        input=x, k=k, padding_value=-7.0, **kw),
                    [data(n, F32, (2, 4, 5))])
        lo, hi = (k, k) if isinstance(k, int) else k
        nd = hi - lo + 1
        max_len = min(4 + min(hi, 0), 5 - max(lo, 0))
        dshape = (2, max_len) if nd == 1 else (2, nd, max_len)
        n = _n(f"MatrixSetDiag{tag}", F32, (2, 4, 5), variant)
        yield _case(n, [f"MatrixSetDiag{tag}"],
                    lambda x, d, k=k: getattr(R, f"MatrixSetDiag{tag}")(
                        input=x, diagonal=d, k=k, **kw),
                    [data(n, F32, (2, 4, 5)), data(n + "d", F32, dshape)])
        min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
        for rows, cols in ((-1, -1), (4, -1), (-1, 5), (4, 5)):
            if rows != -1 and cols == -1 and rows < min_rows:
                continue
            # Explicit rows and cols must leave one of them at its minimum.
            consistent = (rows, cols) != (4, 5) or 4 == min_rows or 5 == min_cols
            v2 = f"{variant}/r{rows}c{cols}"
            n = _n(f"MatrixDiag{tag}", F32, dshape, v2)
            yield _case(n, [f"MatrixDiag{tag}"],
                        lambda d, k=k, rows=rows, cols=cols: getattr(R, f"MatrixDiag{tag}")(
                            diagonal=d, k=k, num_rows=rows, num_cols=cols,
                            padding_value=3.0, **kw),
                        [data(n, F32, dshape)], dynamic=(rows, cols) == (4, 5),
                        expect_error=None if consistent else "not consistent")


def _v3_dtype_cases(R):
    for dtype in POD:
        n = _n("MatrixDiagPartV3", dtype, (3, 4), "k-1,1")
        yield _case(n, ["MatrixDiagPartV3"],
                    lambda x, p: R.MatrixDiagPartV3(input=x, k=(-1, 1), padding_value=p),
                    [data(n, dtype, (3, 4)), np.zeros((), dtype)])
        n = _n("MatrixDiagV3", dtype, (3, 3), "k-1,1")
        yield _case(n, ["MatrixDiagV3"],
                    lambda d, p: R.MatrixDiagV3(diagonal=d, k=(-1, 1), num_rows=-1,
                                                num_cols=-1, padding_value=p),
                    [data(n, dtype, (3, 3)), np.ones((), dtype)])
        n = _n("MatrixSetDiagV3", dtype, (3, 4), "k0")
        yield _case(n, ["MatrixSetDiagV3"],
                    lambda x, d: R.MatrixSetDiagV3(input=x, diagonal=d, k=0),
                    [data(n, dtype, (3, 4)), data(n + "d", dtype, (3,))])


def _error_cases(R):
    x = np.ones((3, 4), F32)
    for k, msg in (((-3, 2), "lower_diag_index is out of bound"),
                   ((-2, 4), "upper_diag_index is out of bound"),
                   ((2, 1), "must not be larger than upper_diag_index"),
                   ((1, 2, 3), "only one or two elements")):
        n = f"MatrixDiagPartV3/float32[3,4]/bad{k}".replace(" ", "")
        yield _case(n, ["MatrixDiagPartV3"],
                    lambda x, k: R.MatrixDiagPartV3(input=x, k=k, padding_value=0.0),
                    [x, np.array(k, np.int32)], dynamic=True, expect_error=msg)
        n = f"MatrixSetDiagV3/float32[3,4]/bad{k}".replace(" ", "")
        yield _case(n, ["MatrixSetDiagV3"],
                    lambda x, d, k: R.MatrixSetDiagV3(input=x, diagonal=d, k=k),
                    [x, np.ones((2, 3), F32), np.array(k, np.int32)], dynamic=True,
                    expect_error=msg)
    yield _case("MatrixDiagV3/float32[2,3]/rows", ["MatrixDiagV3"],
                lambda d, r: R.MatrixDiagV3(diagonal=d, k=(-1, 0), num_rows=r, num_cols=-1,
                                            padding_value=0.0),
                [np.ones((2, 3), F32), np.array(2, np.int32)], dynamic=True,
                expect_error="The number of rows is too small")
    yield _case("MatrixDiagV3/float32[2,3]/ndiags", ["MatrixDiagV3"],
                lambda d, k: R.MatrixDiagV3(diagonal=d, k=k, num_rows=-1, num_cols=-1,
                                            padding_value=0.0),
                [np.ones((2, 3), F32), np.array([-2, 0], np.int32)], dynamic=True,
                expect_error="number of diagonals provided in the input does not match")


def _well(name, dtype, shape, spd=False):
    """Well-conditioned matrices: diagonally dominant, or SPD for spd."""
    a = data(name, np.float64, shape)
    n = shape[-1]
    if spd:
        a = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    else:
        a = a + 2 * n * np.eye(n)
    return a.astype(dtype)


def _tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-5} if dtype == F32 else {"rtol": 1e-10, "atol": 1e-10}


def _decomp_cases(R, tf):
    for dtype in (F32, np.float64):
        tol = _tol(dtype)
        for shape in ((3, 3), (2, 4, 4), (0, 2, 2), (2, 0, 0), (1, 1)):
            n = _n("MatrixInverse", dtype, shape)
            for adj in (False, True):
                yield _case(n + f"/adj{int(adj)}", ["MatrixInverse"],
                            lambda x, adj=adj: R.MatrixInverse(input=x, adjoint=adj),
                            [_well(n, dtype, shape)], **tol)
            n = _n("MatrixDeterminant", dtype, shape)
            yield _case(n, ["MatrixDeterminant"], lambda x: R.MatrixDeterminant(input=x),
                        [data(n, dtype, shape)], **tol)
            n = _n("LogMatrixDeterminant", dtype, shape)
            yield _case(n, ["LogMatrixDeterminant"],
                        lambda x: list(R.LogMatrixDeterminant(input=x)),
                        [data(n, dtype, shape)], **tol)
            n = _n("Cholesky", dtype, shape)
            yield _case(n, ["Cholesky"], lambda x: R.Cholesky(input=x),
                        [_well(n, dtype, shape, spd=True)], **tol)
        for shape, rshape in (((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)), ((2, 2), (2, 0))):
            n = _n("MatrixSolve", dtype, shape)
            for adj in (False, True):
                yield _case(n + f"/adj{int(adj)}", ["MatrixSolve"],
                            lambda a, b, adj=adj: R.MatrixSolve(matrix=a, rhs=b, adjoint=adj),
                            [_well(n, dtype, shape), data(n + "b", dtype, rshape)], **tol)
        for shape, rshape in (((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 3)), ((2, 1, 3, 3), (4, 3, 1)),
                              ((3, 3), (5, 3, 2))):
            for lower in (True, False):
                for adj in (False, True):
                    n = _n("MatrixTriangularSolve", dtype, shape,
                           f"{list(rshape)}l{int(lower)}a{int(adj)}".replace(" ", ""))
                    yield _case(n, ["MatrixTriangularSolve"],
                                lambda a, b, lower=lower, adj=adj: R.MatrixTriangularSolve(
                                    matrix=a, rhs=b, lower=lower, adjoint=adj),
                                [_well(n, dtype, shape), data(n + "b", dtype, rshape)], **tol)
        for shape, rshape in (((5, 3), (5, 2)), ((3, 5), (3, 1)), ((2, 4, 4), (2, 4, 2))):
            for fast, l2 in ((True, 0.0), (True, 0.5), (False, 0.0)):
                n = _n("MatrixSolveLs", dtype, shape, f"f{int(fast)}l{l2}")
                yield _case(n, ["MatrixSolveLs"],
                            lambda a, b, fast=fast, l2=l2: R.MatrixSolveLs(
                                matrix=a, rhs=b, l2_regularizer=tf.constant(l2, tf.float64),
                                fast=fast),
                            [data(n, dtype, shape), data(n + "b", dtype, rshape)], **tol)
    x = np.array([[1, 2], [2, 4]], F32)
    yield _case("MatrixInverse/float32[2,2]/singular", ["MatrixInverse"],
                lambda x: R.MatrixInverse(input=x), [x], expect_error="Input is not invertible")
    yield _case("MatrixSolve/float32[2,2]/singular", ["MatrixSolve"],
                lambda a, b: R.MatrixSolve(matrix=a, rhs=b), [x, np.ones((2, 1), F32)],
                expect_error="Input matrix is not invertible")
    yield _case("MatrixInverse/float32[2,3]", ["MatrixInverse"],
                lambda x: R.MatrixInverse(input=x), [np.ones((2, 3), F32)], dynamic=True,
                expect_error="Input matrix must be square")
    yield _case("MatrixDeterminant/float32[2,2]/singular", ["MatrixDeterminant"],
                lambda x: R.MatrixDeterminant(input=x), [x])
    yield _case("LogMatrixDeterminant/float32[2,2]/perm", ["LogMatrixDeterminant"],
                lambda x: list(R.LogMatrixDeterminant(input=x)),
                [np.array([[0, 1], [1, 0]], F32)])
    yield _case("MatrixSolveLs/float32[3,2]/deficient", ["MatrixSolveLs"],
                lambda a, b: R.MatrixSolveLs(matrix=a, rhs=b,
                                             l2_regularizer=tf.constant(0.0, tf.float64)),
                [np.ones((3, 2), F32), np.ones((3, 1), F32)],
                expect_error="rank deficient or ill-conditioned")


def _factor_cases(R, tf):
    """Qr's Householder signs match; eigen- and singular vectors are compared
    as TensorFlow's own tests do: up to sign (absolute values, distinct
    values) and through the reconstruction."""
    for dtype in (F32, np.float64):
        tol = _tol(dtype)
        for shape in ((4, 3), (3, 5), (2, 4, 4), (0, 3), (3, 0)):
            for full in (False, True):
                n = _n("Qr", dtype, shape, f"full{int(full)}")
                yield _case(n, ["Qr"], lambda x, full=full: list(R.Qr(input=x, full_matrices=full)),
                            [data(n, dtype, shape)], **tol)
                n = _n("Svd", dtype, shape, f"full{int(full)}")

                def svd(x, full=full):
                    s, u, v = R.Svd(input=x, full_matrices=full)
                    k = min(x.shape[-2], x.shape[-1])
                    rec = tf.matmul(u[..., :k] * s[..., None, :], v[..., :k], adjoint_b=True)
                    # Full U / V columns past k span a null space: any
                    # orthonormal basis of it is right, so check U^T U, V^T V.
                    return [s, tf.abs(u[..., :k]), tf.abs(v[..., :k]), rec,
                            tf.matmul(u, u, adjoint_a=True), tf.matmul(v, v, adjoint_a=True)]
                yield _case(n, ["Svd"], svd, [data(n, dtype, shape)], **tol)
            n = _n("Svd", dtype, shape, "nouv")
            yield _case(n, ["Svd"], lambda x: R.Svd(input=x, compute_uv=False)[0],
                        [data(n, dtype, shape)], **tol)
        for shape in ((4, 4), (2, 3, 3), (0, 2, 2), (1, 1)):
            n = _n("SelfAdjointEigV2", dtype, shape)

            def eig(x):
                e, v = R.SelfAdjointEigV2(input=x)
                return [e, tf.abs(v)]
            yield _case(n, ["SelfAdjointEigV2"], eig, [data(n, dtype, shape)], **tol)
            yield _case(n + "/nov", ["SelfAdjointEigV2"],
                        lambda x: R.SelfAdjointEigV2(input=x, compute_v=False)[0],
                        [data(n, dtype, shape)], **tol)


def cases():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    R = tf.raw_ops
    yield from _diag_cases(R)
    yield from _v1_cases(R)
    yield from _band_cases(R, "V2", None)
    for align in ALIGNS:
        yield from _band_cases(R, "V3", align)
    yield from _v3_dtype_cases(R)
    yield from _error_cases(R)
    yield from _decomp_cases(R, tf)
    yield from _factor_cases(R, tf)
