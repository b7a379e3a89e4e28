"""Matrix structure ops: Diag / DiagPart, the MatrixDiag / MatrixDiagPart /
MatrixSetDiag families (V1, V2, V3 with every align). The deprecated
BatchMatrix* aliases have no cases: TensorFlow's Python refuses to build them
at today's GraphDef version."""
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
        return [fn(*phs)], dict(zip(phs, inputs))
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
