"""Math ops beyond cwise_math: special functions, truncating division, the
bitwise ops, segment reductions, CumulativeLogsumexp, MatrixBandPart."""
import numpy as np

from op_case import OpCase, data

F32, F64, F16 = np.float32, np.float64, np.float16
INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
        np.uint32, np.uint64)


def _name(op, dtype, shape, variant=""):
    n = f"{op}/{np.dtype(dtype).name}{list(shape)}".replace(" ", "")
    return n + (f"/{variant}" if variant else "")


def _unary(op, dtype, domain="any", shape=(3, 4), rtol=None, atol=None,
           values=None, variant=""):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = _name(op, dtype, shape, variant)

    def build():
        x = tf.compat.v1.placeholder(dtype, shape, name="x")
        y = getattr(tf.raw_ops, op)(x=x, name="y")
        v = data(name, dtype, shape, domain) if values is None else np.array(values, dtype)
        return [y], {x: v}
    return OpCase(name, [op], build, rtol=rtol, atol=atol)


def _binary(op, dtype, xs=(3, 4), ys=(3, 4), dx="any", dy="any", rtol=None,
            atol=None, values=None, variant="", expect_error=None, names=("x", "y")):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = _name(op, dtype, xs, variant) + ("" if xs == ys else f"+{list(ys)}".replace(" ", ""))

    def build():
        x = tf.compat.v1.placeholder(dtype, xs, name="x")
        y = tf.compat.v1.placeholder(dtype, ys, name="y")
        z = getattr(tf.raw_ops, op)(**{names[0]: x, names[1]: y}, name="z")
        if values is None:
            vx, vy = data(name + "x", dtype, xs, dx), data(name + "y", dtype, ys, dy)
        else:
            vx, vy = (np.array(v, dtype) for v in values)
        return [z], {x: vx, y: vy}
    return OpCase(name, [op], build, rtol=rtol, atol=atol, expect_error=expect_error)


def _special_cases():
    for dtype in (F16, F32, F64):
        tol = 2e-3 if dtype == F16 else None
        yield _unary("Lgamma", dtype, "pos", rtol=tol, atol=tol)
        yield _unary("Lgamma", dtype, "any", rtol=tol, atol=tol, variant="neg")
        yield _unary("Digamma", dtype, "pos", rtol=tol or 1e-5, atol=tol or 1e-5)
        yield _unary("Digamma", dtype, "small", rtol=tol or 1e-4, atol=tol or 1e-5,
                     variant="neg")
        yield _unary("Erfc", dtype, "small", rtol=tol, atol=tol)
    for dtype in (F32, F64):
        yield _unary("Erfinv", dtype, "unit")
        yield _unary("Erfinv", dtype, values=[-1, 1, 1.5, 0, 1e-10, 0.999, -0.5],
                     shape=(7,), variant="edges")
        yield _unary("Ndtri", dtype, "unit", rtol=1e-5 if dtype == F32 else 1e-12)
        yield _unary("Ndtri", dtype, values=[0, 1, 1.5, 0.5, 1e-30, 0.999999, 0.025],
                     shape=(7,), variant="edges")
        yield _unary("Rint", dtype, values=[0.5, 1.5, -2.5, 2.6, -0.4, 3.5],
                     shape=(6,))
    yield _unary("Erfc", F32, shape=(0, 3))


def _division_cases():
    for op in ("Mod", "TruncateMod"):
        for dtype in (np.int32, np.int64, F32, F64):
            yield _binary(op, dtype, dy="nonzero")
            yield _binary(op, dtype, (2, 3), (3,), dy="nonzero")
        yield _binary(op, np.int32, values=([4, 5], [1, 0]), xs=(2,), ys=(2,),
                      variant="zero", expect_error="(Integer division by zero|"
                      "only integer div and mod should have errors)")
    for dtype in (np.int8, np.int32, np.int64, np.uint8, np.uint64, F16, F32, F64):
        yield _binary("TruncateDiv", dtype, dy="nonzero")
    yield _binary("TruncateDiv", np.int32, (2, 3), (), dy="nonzero")
    for op in ("InvGrad", "ReciprocalGrad"):
        for dtype in (F16, F32, F64, np.complex64, np.complex128):
            yield _binary(op, dtype, names=("y", "dy"),
                          rtol=2e-3 if dtype == F16 else None)


def _bitwise_cases():
    for dtype in INTS:
        for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
            yield _binary(op, dtype)
        yield _binary("LeftShift", dtype, dy="small")
        yield _binary("RightShift", dtype, dy="small")
        yield _unary("Invert", dtype)
        yield _unary("PopulationCount", dtype)
    bits = np.array([1, 7, 8, 9, 64, -1, 0, 3], np.int64)
    for dtype in (np.int8, np.int64, np.uint8):
        vals = (np.full(8, -5 if dtype != np.uint8 else 200).astype(dtype),
                bits.astype(dtype))
        yield _binary("LeftShift", dtype, xs=(8,), ys=(8,), values=vals, variant="clamp")
        yield _binary("RightShift", dtype, xs=(8,), ys=(8,), values=vals, variant="clamp")
    yield _binary("BitwiseAnd", np.int32, (2, 3), (3,))
    yield _binary("BitwiseXor", np.int64, (0, 3), (3,))


def _segment(op, dtype, dshape, ids, num=None, rtol=None, expect_error=None,
             variant=""):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = _name(op, dtype, dshape, variant or f"ids{len(ids)}")

    def build():
        d = tf.compat.v1.placeholder(dtype, dshape, name="data")
        i = tf.compat.v1.placeholder(np.int32, np.array(ids).shape, name="ids")
        kw = {"data": d, "segment_ids": i}
        if num is not None:
            kw["num_segments"] = tf.constant(num, np.int32)
        y = getattr(tf.raw_ops, op)(**kw, name="y")
        return [y], {d: data(name, dtype, dshape, "small"), i: np.array(ids, np.int32)}
    return OpCase(name, [op], build, rtol=rtol, expect_error=expect_error)


def _segment_cases():
    sorted_ids = [0, 0, 2, 2, 2, 5]
    for op in ("SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"):
        for dtype in (F16, F32, F64, np.int32, np.int64, np.uint8):
            yield _segment(op, dtype, (6, 3), sorted_ids,
                           rtol=2e-3 if dtype == F16 else None)
        yield _segment(op, F32, (0, 3), [], variant="empty")
        yield _segment(op, F32, (3, 2), [1, 0, 0], variant="unsorted",
                       expect_error="segment ids are not increasing")
        yield _segment(op, F32, (3, 2), [-1, 0, 0], variant="negative",
                       expect_error="out of range")
        yield _segment(op, F32, (3, 2), [0, 0], variant="short",
                       expect_error="segment_ids should be the same size")
    for op in ("SegmentMean", "SegmentProd"):
        yield _segment(op, np.complex64, (6, 2), sorted_ids)
    for op in ("UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"):
        for dtype in (F16, F32, F64, np.int32, np.int64, np.uint8):
            yield _segment(op, dtype, (6, 3), [3, 0, -1, 3, 1, 0], num=5,
                           rtol=2e-3 if dtype == F16 else None)
        yield _segment(op, F32, (2, 3, 2), [[0, 1, 0], [2, 2, -1]], num=4,
                       variant="ids2d")
        yield _segment(op, F32, (0,), [], num=3, variant="empty")
        yield _segment(op, F32, (3, 2), [0, 7, 1], num=3, variant="range",
                       expect_error=r"segment_ids\[1\] = 7 is out of range")
    yield _segment("UnsortedSegmentProd", np.complex128, (4, 2), [1, 1, 0, 3], num=4)


def _logsumexp_cases():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    for dtype in (F16, F32, F64):
        for exclusive in (False, True):
            for reverse in (False, True):
                for axis in (0, -1):
                    name = _name("CumulativeLogsumexp", dtype, (3, 4),
                                 f"ax{axis}ex{int(exclusive)}rev{int(reverse)}")

                    def build(name=name, dtype=dtype, axis=axis, exclusive=exclusive,
                              reverse=reverse):
                        x = tf.compat.v1.placeholder(dtype, (3, 4), name="x")
                        y = tf.raw_ops.CumulativeLogsumexp(
                            x=x, axis=tf.constant(axis), exclusive=exclusive,
                            reverse=reverse, name="y")
                        return [y], {x: data(name, dtype, (3, 4), "small")}
                    yield OpCase(name, ["CumulativeLogsumexp"], build,
                                 rtol=3e-3 if dtype == F16 else None)

    def bad_axis():
        x = tf.compat.v1.placeholder(F32, (3, 4), name="x")
        y = tf.raw_ops.CumulativeLogsumexp(x=x, axis=tf.constant(2), name="y")
        return [y], {x: np.zeros((3, 4), F32)}
    yield OpCase("CumulativeLogsumexp/float32[3,4]/badaxis", ["CumulativeLogsumexp"],
                 bad_axis, expect_error="Expected scan axis in the range")


def _band(dtype, shape, lower, upper, variant="", expect_error=None, tindex=np.int64):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = _name("MatrixBandPart", dtype, shape, variant or f"l{lower}u{upper}")

    def build():
        x = tf.compat.v1.placeholder(dtype, shape, name="x")
        y = tf.raw_ops.MatrixBandPart(input=x, num_lower=tf.constant(lower, tindex),
                                      num_upper=tf.constant(upper, tindex), name="y")
        return [y], {x: data(name, dtype, shape)}
    return OpCase(name, ["MatrixBandPart"], build, expect_error=expect_error)


def _band_cases():
    for dtype in (F16, F32, F64, np.int8, np.int32, np.int64, np.uint16, np.bool_,
                  np.complex64, np.complex128):
        yield _band(dtype, (2, 3, 4), -1, 0)
    for lower, upper in ((0, 0), (1, 2), (-1, -1), (0, -1), (3, 4)):
        yield _band(F32, (3, 4), lower, upper)
    yield _band(F32, (2, 1, 5, 5), 2, 1, tindex=np.int32, variant="int32")
    yield _band(F32, (0, 3, 3), -1, 0)
    yield _band(F32, (4,), -1, 0, expect_error="input must be at least 2-dim")
    yield _band(F32, (3, 4), 5, 0, variant="toolow",
                expect_error="num_lower must be negative or less or equal to number of rows")
    yield _band(F32, (3, 4), 0, 5, variant="toohigh",
                expect_error="num_upper must be negative or less or equal to number of columns")


def _xfun_cases():
    zeros = np.array([0, 0, 1, 2, -1, 0], np.float64)
    ys = np.array([0, -1, 0, 3, np.inf, np.nan], np.float64)
    for op in ("Xdivy", "Xlogy", "Xlog1py", "MulNoNan"):
        # Complex results are compared bit-exactly by the oracle, and complex
        # log/division round differently from TensorFlow's: MulNoNan only.
        cplx = (np.complex64, np.complex128) if op == "MulNoNan" else ()
        for dtype in (F16, F32, F64) + cplx:
            dy = "pos" if op != "MulNoNan" else "any"
            yield _binary(op, dtype, dy=dy, rtol=2e-3 if dtype == F16 else None)
        for dtype in (F32, F64):
            yield _binary(op, dtype, xs=(6,), ys=(6,), values=(zeros, ys),
                          variant="zeros")
        yield _binary(op, F32, (2, 3), (3,), dy="pos")
    for dtype in (F32, F64):
        yield _binary("NextAfter", dtype, names=("x1", "x2"))
        yield _binary("NextAfter", dtype, xs=(4,), ys=(4,), names=("x1", "x2"),
                      values=([0, 1, np.inf, 1], [1, 1, 0, np.nan]), variant="edges")


def _tensor_case(name, ops, fn, inputs, dynamic=False, **kw):
    """A case whose graph is fn(*placeholders) over numpy inputs; dynamic:
    placeholders of unknown shape (errors TF's shape functions would catch at
    graph construction then reach the kernel)."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    def build():
        phs = [tf.compat.v1.placeholder(v.dtype, None if dynamic else v.shape,
                                        name=f"in{i}")
               for i, v in enumerate(inputs)]
        out = fn(*phs)
        return (list(out) if isinstance(out, (list, tuple)) else [out],
                dict(zip(phs, inputs)))
    return OpCase(name, ops, build, **kw)


def _misc_cases():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    R = tf.raw_ops
    for dtype in (F16, F32, F64):
        shape = (4, 5)
        n = _name("L2Loss", dtype, shape)
        yield _tensor_case(n, ["L2Loss"], lambda t: R.L2Loss(t=t),
                           [data(n, dtype, shape)], rtol=2e-3 if dtype == F16 else None)
        yield _tensor_case(n + "/approx", ["ApproximateEqual"],
                           lambda x, y: R.ApproximateEqual(x=x, y=y, tolerance=0.5),
                           [data(n, dtype, shape), data(n + "y", dtype, shape)]) \
            if dtype != F16 else None
    yield _tensor_case("L2Loss/float32[0]", ["L2Loss"], lambda t: R.L2Loss(t=t),
                       [np.zeros((0,), F32)])
    for dtype in (F32, F64, np.int32, np.int64, np.uint8, np.int8):
        for axes, keep in (([1], False), ([0, 2], True), ([], False), (-1, False)):
            n = _name("EuclideanNorm", dtype, (2, 3, 4), f"ax{axes}k{int(keep)}".replace(" ", ""))
            yield _tensor_case(
                n, ["EuclideanNorm"],
                lambda x, axes=axes, keep=keep: R.EuclideanNorm(
                    input=x, axis=tf.constant(axes, tf.int32), keep_dims=keep),
                [data(n, dtype, (2, 3, 4), "pos" if dtype == np.uint8 else "any")])
    yield _tensor_case("EuclideanNorm/float32[2,3]/badaxis", ["EuclideanNorm"],
                       lambda x, a: R.EuclideanNorm(input=x, axis=a),
                       [np.ones((2, 3), F32), np.array([2], np.int32)], dynamic=True,
                       expect_error="Invalid reduction dimension")
    for dtype in (F32, F64):
        for num in (1, 2, 7, 50):
            n = _name("LinSpace", dtype, (num,))
            yield _tensor_case(n, ["LinSpace"],
                               lambda a, b, num=num: R.LinSpace(start=a, stop=b, num=num),
                               [np.array(-1.5, dtype), np.array(3.25, dtype)])
    yield _tensor_case("LinSpace/float32[0]", ["LinSpace"],
                       lambda a, b, n: R.LinSpace(start=a, stop=b, num=n),
                       [np.array(0, F32), np.array(1, F32), np.array(0, np.int32)],
                       dynamic=True, expect_error="Requires num > 0")
    for dtype in (F16, F32, F64, np.int32, np.int64, np.uint8, np.int8):
        n = _name("Cross", dtype, (4, 3))
        dom = "pos" if dtype == np.uint8 else "small"
        yield _tensor_case(n, ["Cross"], lambda a, b: R.Cross(a=a, b=b),
                           [data(n + "a", dtype, (4, 3), dom), data(n + "b", dtype, (4, 3), dom)],
                           rtol=2e-3 if dtype == F16 else None)
    yield _tensor_case("Cross/float32[2,4]", ["Cross"], lambda a, b: R.Cross(a=a, b=b),
                       [np.ones((2, 4), F32), np.ones((2, 4), F32)], dynamic=True,
                       expect_error="only defined for 3-element vectors")
    for dtype in (F32, F64, np.int32, np.int64):
        n = _name("Bucketize", dtype, (3, 5))
        yield _tensor_case(n, ["Bucketize"],
                           lambda x: R.Bucketize(input=x, boundaries=[-2., 0., 0.5, 3.]),
                           [data(n, dtype, (3, 5), "small")])
    yield _tensor_case("Bucketize/float32[2]/edges", ["Bucketize"],
                       lambda x: R.Bucketize(input=x, boundaries=[0., 1.]),
                       [np.array([0., 1.], F32)])
    for dtype in (F32, F64, np.int32, np.int64):
        for out in (tf.int32, tf.int64):
            n = _name("HistogramFixedWidth", dtype, (40,), out.name)
            yield _tensor_case(
                n, ["HistogramFixedWidth"],
                lambda v, r, out=out: R.HistogramFixedWidth(values=v, value_range=r,
                                                            nbins=7, dtype=out),
                [data(n, dtype, (40,), "small"), np.array([-2, 2], dtype)])
    yield _tensor_case("HistogramFixedWidth/float32[3]/range", ["HistogramFixedWidth"],
                       lambda v, r: R.HistogramFixedWidth(values=v, value_range=r, nbins=3),
                       [np.ones(3, F32), np.array([2, 2], F32)],
                       expect_error=r"value_range should satisfy value_range\[0\] < value_range\[1\]")
    for op in ("LowerBound", "UpperBound"):
        for dtype in (F16, F32, F64, np.int32, np.int64, np.uint8):
            for out in (tf.int32, tf.int64):
                n = _name(op, dtype, (3, 6), out.name)
                srt = np.sort(data(n, dtype, (3, 6), "small"), axis=1)
                vals = data(n + "v", dtype, (3, 4), "small")
                vals[:, 0] = srt[:, 2]  # an exact hit: the two ops differ there
                yield _tensor_case(n, [op],
                                   lambda s, v, op=op, out=out: getattr(R, op)(
                                       sorted_inputs=s, values=v, out_type=out),
                                   [srt, vals])
    for k in (1, 2, 5):
        for tdt in (np.int32, np.int64):
            n = _name("InTopKV2", F32, (4, 5), f"k{k}{np.dtype(tdt).name}")
            pred = data(n, F32, (4, 5))
            pred[1, 3] = pred[1, 0]  # a tie
            pred[2, 1] = np.nan
            tgt = np.array([0, 3, 2, 7], tdt)
            yield _tensor_case(n, ["InTopKV2"],
                               lambda p, t, k=k, tdt=tdt: R.InTopKV2(
                                   predictions=p, targets=t, k=tf.constant(k, tdt)),
                               [pred, tgt])
            yield _tensor_case(n.replace("InTopKV2", "InTopK"), ["InTopK"],
                               lambda p, t, k=k: R.InTopK(predictions=p, targets=t, k=k),
                               [pred, tgt])


BESSEL = ("BesselI0", "BesselI1", "BesselI0e", "BesselI1e", "BesselK0", "BesselK1",
          "BesselK0e", "BesselK1e", "BesselJ0", "BesselJ1", "BesselY0", "BesselY1")


def _bessel_cases():
    edges = [0.0, -0.0, 1e-8, -2.5, 3.75, 30.0, 700.0, 800.0, np.inf, -np.inf, np.nan]
    for op in BESSEL + ("Expint",):
        for dtype in ((F16, F32, F64) if op != "Expint" else (F32, F64)):
            tol = 2e-3 if dtype == F16 else (2e-5 if dtype == F32 else 1e-11)
            dom = "pos" if op[-2] in "KY" or op[-3:-1] in ("K0", "K1") else "small"
            yield _unary(op, dtype, dom, shape=(4, 5), rtol=tol, atol=tol)
            if dtype != F16:
                yield _unary(op, dtype, values=edges, shape=(len(edges),), rtol=tol,
                             atol=tol, variant="edges")


def cases():
    yield from (c for c in _xfun_cases() if c is not None)
    yield from (c for c in _misc_cases() if c is not None)
    yield from _bessel_cases()
    yield from _band_cases()
    yield from _special_cases()
    yield from _division_cases()
    yield from _bitwise_cases()
    yield from _segment_cases()
    yield from _logsumexp_cases()
