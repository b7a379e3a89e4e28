"""The rest of the linear algebra: CholeskyGrad, Lu (packed L\\U and the
row permutation, int32 / int64), TridiagonalMatMul, TridiagonalSolve,
BandedTriangularSolve, MatrixExponential (deprecated: at producer 26),
MatrixSquareRoot, Eig. Complex outputs are compared through their real and
imaginary parts (the oracle compares complex values exactly)."""
import numpy as np

from op_case import OpCase, data

F32, F64, C64, C128 = np.float32, np.float64, np.complex64, np.complex128


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


def _tol(dtype):
    if dtype in (F32, C64):
        return {"rtol": 1e-4, "atol": 1e-5}
    return {"rtol": 1e-10, "atol": 1e-10}


def _parts(tf, outs):
    """Complex outputs as their real and imaginary parts: the oracle compares
    complex values exactly, their parts within the tolerance."""
    res = []
    for t in outs:
        res += [tf.math.real(t), tf.math.imag(t)] if t.dtype.is_complex else [t]
    return res


def _spd(name, dtype, shape):
    a = data(name, F64, shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _cholesky_grad_cases(R, tf):
    for dtype in (F32, F64):
        for shape in ((3, 3), (2, 4, 4), (0, 2, 2), (2, 0, 0), (1, 1)):
            n = _n("CholeskyGrad", dtype, shape)
            yield _case(n, ["CholeskyGrad"],
                        lambda a, g: R.CholeskyGrad(l=tf.linalg.cholesky(a), grad=g),
                        [_spd(n, dtype, shape), data(n + "g", dtype, shape)], **_tol(dtype))
    for a, g, msg in (((3, 3), (2, 2), "Inputs \\(L and grad\\) must have the same shape"),
                      ((3, 2), (3, 2), "Inputs must be a square matrices"),
                      ((3,), (3,), "must have rank >= 2"),
                      ((2, 2, 2), (3, 2, 2), "same outer dimensions")):
        n = _n("CholeskyGrad", F32, a, "bad")
        yield _case(n, ["CholeskyGrad"], lambda x, y: R.CholeskyGrad(l=x, grad=y),
                    [np.ones(a, F32), np.ones(g, F32)], dynamic=True, expect_error=msg)


def _lu_cases(R, tf):
    for dtype in (F32, F64, C64, C128):
        for shape in ((4, 4), (2, 3, 3), (0, 2, 2), (2, 0, 0), (1, 1), (20, 20)):
            for idx in (tf.int32, tf.int64):
                n = _n("Lu", dtype, shape, idx.name)
                yield _case(n, ["Lu"], lambda x, idx=idx: _parts(tf, R.Lu(input=x, output_idx_type=idx)),
                            [data(n, dtype, shape)], **_tol(dtype))
    yield _case("Lu/float32[3,3]/pivots", ["Lu"], lambda x: list(R.Lu(input=x)),
                [np.array([[0, 1, 2], [3, 0, 1], [-3, 2, 2]], F32)])
    yield _case("Lu/float32[2,2]/singular", ["Lu"], lambda x: list(R.Lu(input=x)),
                [np.array([[1, 2], [2, 4]], F32)], expect_error="Input is not invertible")
    yield _case("Lu/float32[2,3]", ["Lu"], lambda x: list(R.Lu(input=x)),
                [np.ones((2, 3), F32)], dynamic=True, expect_error="Input matrix must be square")
    yield _case("Lu/float32[3]", ["Lu"], lambda x: list(R.Lu(input=x)),
                [np.ones((3,), F32)], dynamic=True, expect_error="must have rank >= 2, got 1")


def cases():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    R = tf.raw_ops
    yield from _cholesky_grad_cases(R, tf)
    yield from _lu_cases(R, tf)
