"""The rest of the linear algebra: CholeskyGrad, Lu (packed L\\U and the
row permutation, int32 / int64), TridiagonalMatMul, TridiagonalSolve,
BandedTriangularSolve, MatrixExponential (deprecated: at producer 26),
MatrixSquareRoot, Eig, MatrixLogarithm; Fact, SdcaFprint,
IsotonicRegression; NearestNeighbors, KMC2ChainInitialization,
KmeansPlusPlusInitialization (seeded: the same samples); ApproxTopK; SdcaShrinkL1. Complex outputs are compared through their real and
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


def _tridiagonal_cases(R, tf):
    for dtype in (F32, F64, C64, C128):
        tol = _tol(dtype)
        for batch, m, k in (((), 5, 2), ((2,), 4, 3), ((), 1, 2), ((), 0, 2), ((2,), 3, 0)):
            n = _n("TridiagonalMatMul", dtype, batch + (m, k))
            ins = [data(n + s, dtype, batch + (1, m)) for s in ("u", "d", "l")]
            yield _case(n, ["TridiagonalMatMul"],
                        lambda u, d, l, x: _parts(tf, [R.TridiagonalMatMul(
                            superdiag=u, maindiag=d, subdiag=l, rhs=x)]),
                        ins + [data(n + "x", dtype, batch + (m, k))], **tol)
            for piv, perturb in ((True, False), (False, False), (True, True)):
                if perturb and k == 0 and m > 0:
                    continue  # TensorFlow 2.21 crashes (max of an empty rhs row)
                v = f"piv{int(piv)}pert{int(perturb)}"
                n = _n("TridiagonalSolve", dtype, batch + (3, m), v + f"k{k}")
                diags = data(n, dtype, batch + (3, m))
                if not piv:  # the Thomas algorithm needs diagonal dominance
                    diags[..., 1, :] += 4
                yield _case(n, ["TridiagonalSolve"],
                            lambda d, x, piv=piv, perturb=perturb: _parts(tf, [R.TridiagonalSolve(
                                diagonals=d, rhs=x, partial_pivoting=piv,
                                perturb_singular=perturb)]),
                            [diags, data(n + "x", dtype, batch + (m, k))], **tol)
    # Pivoting: a zero leading diagonal; singular systems (NaN, or perturbed).
    d = np.array([[1, 2, 3, 0], [0, 1, 2, 1], [0, 4, 1, 2]], F64)
    x = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], F64)
    for piv, perturb in ((True, False), (False, False), (True, True)):
        v = f"piv{int(piv)}pert{int(perturb)}"
        yield _case(_n("TridiagonalSolve", F64, (3, 4), "zerodiag/" + v), ["TridiagonalSolve"],
                    lambda d, x, piv=piv, perturb=perturb: R.TridiagonalSolve(
                        diagonals=d, rhs=x, partial_pivoting=piv, perturb_singular=perturb),
                    [d, x])
        sing = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], F64)
        yield _case(_n("TridiagonalSolve", F64, (3, 3), "singular/" + v), ["TridiagonalSolve"],
                    lambda d, x, piv=piv, perturb=perturb: R.TridiagonalSolve(
                        diagonals=d, rhs=x, partial_pivoting=piv, perturb_singular=perturb),
                    [sing, x[:3]])
        one = np.zeros((3, 1), F32)
        yield _case(_n("TridiagonalSolve", F32, (3, 1), "zero/" + v), ["TridiagonalSolve"],
                    lambda d, x, piv=piv, perturb=perturb: R.TridiagonalSolve(
                        diagonals=d, rhs=x, partial_pivoting=piv, perturb_singular=perturb),
                    [one, np.ones((1, 2), F32)])
    for dshape, xshape, msg, kw in (
            ((2, 3), (3, 2), "matrix with 3 rows, got 2 rows", {}),
            ((3, 3), (2, 2), "got 3 and 2", {}),
            ((3, 3), (3, 2), "requires also setting partial_pivoting",
             {"partial_pivoting": False, "perturb_singular": True}),
            ((2, 3, 3), (3, 3, 2), "same outer dimensions", {}),
            ((2, 3, 3), (3, 2), "same rank", {})):
        n = _n("TridiagonalSolve", F32, dshape, f"bad{list(xshape)}".replace(" ", ""))
        yield _case(n, ["TridiagonalSolve"],
                    lambda d, x, kw=kw: R.TridiagonalSolve(diagonals=d, rhs=x, **kw),
                    [np.ones(dshape, F32), np.ones(xshape, F32)], dynamic=True,
                    expect_error=msg)
    for i, msg in ((0, "Invalid superdiagonal shape"), (1, "Invalid main diagonal shape"),
                   (2, "Invalid subdiagonal shape")):
        ins = [np.ones((1, 3), F32) for _ in range(3)] + [np.ones((3, 2), F32)]
        ins[i] = np.ones((1, 2), F32)
        yield _case(f"TridiagonalMatMul/float32[3,2]/bad{i}", ["TridiagonalMatMul"],
                    lambda u, d, l, x: R.TridiagonalMatMul(superdiag=u, maindiag=d, subdiag=l,
                                                           rhs=x),
                    ins, dynamic=True, expect_error=msg)


def _banded_cases(R, tf):
    for dtype in (F32, F64, C64, C128):
        tol = _tol(dtype)
        for ashape, xshape in (((3, 5), (5, 2)), ((2, 2, 4), (2, 4, 3)), ((1, 4), (4, 1)),
                               ((6, 4), (4, 2)), ((2, 1, 2, 3), (3, 3, 2)), ((2, 3), (4, 3, 0))):
            for lower in (True, False):
                for adj in (False, True):
                    n = _n("BandedTriangularSolve", dtype, ashape,
                           f"{list(xshape)}l{int(lower)}a{int(adj)}".replace(" ", ""))
                    a = data(n, dtype, ashape)
                    a[..., 0 if lower else -1, :] += 3  # a well-conditioned diagonal
                    # More bands than rows: TensorFlow's shape function
                    # refuses, its kernel runs (placeholders of unknown shape).
                    # An empty rhs: its kernel refuses.
                    yield _case(n, ["BandedTriangularSolve"],
                                lambda a, x, lower=lower, adj=adj: _parts(tf, [
                                    R.BandedTriangularSolve(matrix=a, rhs=x, lower=lower,
                                                            adjoint=adj)]),
                                [a, data(n + "x", dtype, xshape)],
                                dynamic=ashape[-2] > ashape[-1],
                                expect_error="must not be an empty tensor" if 0 in xshape else None,
                                **tol)
    for ashape, xshape, msg in (((2, 3), (2, 2), "In\\[0\\] mismatch In\\[1\\] shape: 3 vs. 2"),
                                ((2, 2, 3), (3, 3, 2), "compatible batch dimensions"),
                                ((3,), (3, 2), "In\\[0\\] ndims must be >= 2: 1"),
                                ((0, 3), (3, 2), "must not be an empty tensor: Tensor<type: float "
                                                 "shape: \\[0,3\\] values: >")):
        n = _n("BandedTriangularSolve", F32, ashape, "bad")
        yield _case(n, ["BandedTriangularSolve"],
                    lambda a, x: R.BandedTriangularSolve(matrix=a, rhs=x),
                    [np.ones(ashape, F32), np.ones(xshape, F32)], dynamic=True, expect_error=msg)
    a = np.ones((2, 3), F32)
    a[0, 1] = 0
    yield _case("BandedTriangularSolve/float32[2,3]/singular", ["BandedTriangularSolve"],
                lambda a, x: R.BandedTriangularSolve(matrix=a, rhs=x),
                [a, np.ones((3, 1), F32)], expect_error="Input matrix is not invertible")


def _producer(old, new, producer):
    def edit(graph_def):
        for node in graph_def.node:
            if node.op == old:
                node.op = new
        graph_def.versions.producer = producer
    return edit


def _matfunc_cases(R, tf):
    """MatrixExponential is deprecated at GraphDef version 27: a
    MatrixSquareRoot node (the same signature) is built and renamed in a
    GraphDef of producer 26."""
    for dtype in (F32, F64, C64, C128):
        tol = _tol(dtype)
        for shape, scale in (((3, 3), 1.0), ((2, 4, 4), 0.5), ((0, 2, 2), 1.0), ((1, 1), 1.0),
                             ((3, 3), 6.0), ((2, 0, 0), 1.0)):
            n = _n("MatrixExponential", dtype, shape, f"x{scale}")
            yield OpCase(n, ["MatrixExponential"], _builder(
                tf, lambda x: _parts(tf, [R.MatrixSquareRoot(input=x)]),
                [(data(n, dtype, shape) * scale).astype(dtype)]),
                edit=_producer("MatrixSquareRoot", "MatrixExponential", 26), **tol)
            if scale != 1.0:
                continue
            n = _n("MatrixSquareRoot", dtype, shape)
            yield _case(n, ["MatrixSquareRoot"],
                        lambda x: _parts(tf, [R.MatrixSquareRoot(input=x)]),
                        [_spd(n, dtype, shape) if dtype in (F32, F64)
                         else (data(n, dtype, shape) + 2 * np.eye(shape[-1])).astype(dtype)],
                        **tol)
            n = _n("Eig", dtype, shape)
            real = dtype in (F32, F64)
            tout = tf.complex64 if dtype in (F32, C64) else tf.complex128

            def eig(x, tout=tout, compute_v=True, real=real):
                # Complex input: TensorFlow sorts by modulus, compared as is.
                # Real input: the order is its real Schur form's, which
                # LAPACK's need not match: both are put in one order (by real
                # part, a conjugate pair by imaginary part). Eigenvectors are
                # compared up to their unit factor (moduli).
                e, v = R.Eig(input=x, Tout=tout, compute_v=compute_v)
                key = tf.math.real(e) + 1e-3 * tf.math.imag(e)
                order = (tf.argsort(key, axis=-1) if real else
                         tf.broadcast_to(tf.range(tf.shape(e)[-1]), tf.shape(e)))
                out = _parts(tf, [tf.gather(e, order, batch_dims=len(x.shape) - 2)])
                if compute_v:
                    out.append(tf.abs(tf.gather(v, order, axis=-1, batch_dims=len(x.shape) - 2)))
                return out
            yield _case(n, ["Eig"], eig, [data(n, dtype, shape)], **tol)
            yield _case(n + "/nov", ["Eig"], lambda x, eig=eig: eig(x, compute_v=False),
                        [data(n, dtype, shape)], **tol)
    for dtype in (C64, C128):
        for shape in ((3, 3), (2, 4, 4), (0, 2, 2), (1, 1)):
            n = _n("MatrixLogarithm", dtype, shape)
            yield _case(n, ["MatrixLogarithm"],
                        lambda x: _parts(tf, [R.MatrixLogarithm(input=x)]),
                        [(data(n, dtype, shape) + 2 * np.eye(shape[-1])).astype(dtype)],
                        **_tol(dtype))
        for name, x in (("eye", np.eye(3)), ("jordan", np.array([[2, 1], [0, 2]])),
                        ("negative", np.array([[-1, 0], [0, 2]]))):
            yield _case(_n("MatrixLogarithm", dtype, x.shape, name), ["MatrixLogarithm"],
                        lambda x: _parts(tf, [R.MatrixLogarithm(input=x)]),
                        [x.astype(dtype)], **_tol(dtype))
    for dtype in (F32, F64):
        yield _case(_n("MatrixSquareRoot", dtype, (2, 2), "negative"), ["MatrixSquareRoot"],
                    lambda x: R.MatrixSquareRoot(input=x),
                    [np.array([[-1, 0], [0, 4]], dtype)])
        yield _case(_n("MatrixSquareRoot", dtype, (2, 2), "complexpair"), ["MatrixSquareRoot"],
                    lambda x: R.MatrixSquareRoot(input=x),
                    [np.array([[1, -2], [2, 1]], dtype)], **_tol(dtype))
    for op in ("MatrixSquareRoot", "Eig", "MatrixLogarithm"):
        kw = {"Tout": tf.complex128} if op == "Eig" else {}
        dt = C128 if op == "MatrixLogarithm" else F64
        for shape, msg in (((2, 3), "Input matrix must be square"),
                           ((3,), "must have rank >= 2, got 1")):
            yield _case(_n(op, dt, shape, "bad"), [op],
                        lambda x, op=op, kw=kw: getattr(R, op)(input=x, **kw)[0]
                        if op == "Eig" else getattr(R, op)(input=x),
                        [np.ones(shape, dt)], dynamic=True, expect_error=msg)
    yield _case("Eig/float32[2,2]/tout", ["Eig"],
                lambda x: R.Eig(input=x, Tout=tf.complex128)[0], [np.eye(2, dtype=F32)],
                expect_error="Invalid output dtype 18 vs 8")
    yield OpCase("MatrixExponential/float32[2,2]/producer27", ["MatrixExponential"], _builder(
        tf, lambda x: R.MatrixSquareRoot(input=x), [np.eye(2, dtype=F32)]),
        edit=_producer("MatrixSquareRoot", "MatrixExponential", 27),
        expect_error="Op MatrixExponential is not available in GraphDef version 27")


def _builder(tf, fn, inputs):
    def build():
        phs = [tf.compat.v1.placeholder(v.dtype, v.shape, name=f"in{i}")
               for i, v in enumerate(inputs)]
        out = fn(*phs)
        return (out if isinstance(out, list) else [out]), dict(zip(phs, inputs))
    return build


def _misc_cases(R, tf):
    def fact(label):
        def build():
            if label is None:
                return [R.Fact()], {}
            with tf.compat.v1.get_default_graph()._kernel_label_map(  # pylint: disable=protected-access
                    {"Fact": label}):
                return [R.Fact()], {}
        return build
    yield OpCase("Fact/string[]", ["Fact"], fact(None))
    yield OpCase("Fact/string[]/sergey", ["Fact"], fact("sergey"))
    words = np.array([b"", b"a", b"example-17", b"\x00\xff", "\u00e9t\u00e9".encode(),
                      b"x" * 100], dtype=object)
    for shape in ((6,), (0,)):
        yield _case(_n("SdcaFprint", object, shape), ["SdcaFprint"],
                    lambda x: R.SdcaFprint(input=x), [words[:shape[0]]])
    yield _case("SdcaFprint/object[2,1]", ["SdcaFprint"], lambda x: R.SdcaFprint(input=x),
                [words[:2].reshape(2, 1)], dynamic=True, expect_error="Input must be a vector")
    for dtype, out in ((F32, tf.float32), (F64, tf.float64), (np.float16, tf.float16),
                       (np.int8, tf.float32), (np.int16, tf.float32), (np.int32, tf.float64),
                       (np.int64, tf.float64)):
        for shape in ((7,), (3, 9), (2, 0), (2, 2, 5), ()):
            n = _n("IsotonicRegression", dtype, shape)
            yield _case(n, ["IsotonicRegression"],
                        lambda x, out=out: list(R.IsotonicRegression(input=x, output_dtype=out)),
                        [data(n, dtype, shape)], rtol=1e-3 if dtype == np.float16 else None)
    yield _case("IsotonicRegression/float32[6]/ties", ["IsotonicRegression"],
                lambda x: list(R.IsotonicRegression(input=x)),
                [np.array([1, 1, 2, 2, 0, 3], F32)])


def _cluster_cases(R, tf):
    """NearestNeighbors with k < 0 has no case: TensorFlow 2.21 aborts
    (a CHECK on the output shape's negative dim)."""
    i64 = np.int64
    for npts, ncen, dims, k in ((10, 4, 3, 1), (10, 4, 3, 2), (7, 5, 2, 9), (5, 3, 4, 0),
                                (1, 1, 1, 1), (6, 0, 2, 2)):
        n = f"NearestNeighbors/float32[{npts},{dims}]/c{ncen}k{k}"
        yield _case(n, ["NearestNeighbors"],
                    lambda p, c, k: list(R.NearestNeighbors(points=p, centers=c, k=k)),
                    [data(n, F32, (npts, dims)), data(n + "c", F32, (ncen, dims)), i64(k)],
                    rtol=1e-4, atol=1e-5)
    for pshape, cshape, k, msg in (((0, 2), (3, 2), 1, "Expected points.rows\\(\\) > 0"),
                                   ((3, 2), (3, 3), 1, "point_dimensions == center_dimensions: 2 vs 3"),
                                   ((3,), (3, 2), 1, "Input points should be a matrix")):
        n = f"NearestNeighbors/float32{list(pshape)}/bad{list(cshape)}k{k}".replace(" ", "")
        yield _case(n, ["NearestNeighbors"],
                    lambda p, c, k: list(R.NearestNeighbors(points=p, centers=c, k=k)),
                    [np.ones(pshape, F32), np.ones(cshape, F32), i64(k)], dynamic=True,
                    expect_error=msg)
    for npts, seed in ((1, 0), (10, 3), (50, 12345), (200, -7)):
        n = f"KMC2ChainInitialization/float32[{npts}]/seed{seed}"
        yield _case(n, ["KMC2ChainInitialization"],
                    lambda d, s: R.KMC2ChainInitialization(distances=d, seed=s),
                    [data(n, F32, (npts,), "pos"), i64(seed)])
    yield _case("KMC2ChainInitialization/float32[0]", ["KMC2ChainInitialization"],
                lambda d, s: R.KMC2ChainInitialization(distances=d, seed=s),
                [np.zeros((0,), F32), i64(1)], expect_error="Expected distances_tensor.size\\(\\) > 0")
    for npts, dims, samples, seed, retries in ((10, 2, 3, 1, 0), (20, 3, 5, 42, -1),
                                               (30, 4, 30, 7, 2), (5, 1, 1, 0, 0),
                                               (40, 2, 6, -3, 1)):
        n = f"KmeansPlusPlusInitialization/float32[{npts},{dims}]/s{samples}seed{seed}r{retries}"
        yield _case(n, ["KmeansPlusPlusInitialization"],
                    lambda p, k, s, r: R.KmeansPlusPlusInitialization(
                        points=p, num_to_sample=k, seed=s, num_retries_per_sample=r),
                    [data(n, F32, (npts, dims)), i64(samples), i64(seed), i64(retries)])
    for samples, msg in ((0, "Expected num_to_sample > 0"),
                         (4, "Expected num_to_sample <= points.rows\\(\\). 4 vs 3")):
        yield _case(f"KmeansPlusPlusInitialization/float32[3,2]/s{samples}",
                    ["KmeansPlusPlusInitialization"],
                    lambda p, k, s, r: R.KmeansPlusPlusInitialization(
                        points=p, num_to_sample=k, seed=s, num_retries_per_sample=r),
                    [np.ones((3, 2), F32), i64(samples), i64(1), i64(0)], expect_error=msg)


def _approx_top_k_cases(R, tf):
    """On CPU TensorFlow runs ApproxTopK as its exact TopK (last dim, max k).
    Other attrs find no kernel in either (the section counts that as a
    failure, so no case); NaN inputs order as TensorFlow's TopK heap leaves
    them (not matched: no case). bfloat16 has no numpy type here."""
    for dtype in (F32, np.float16):
        for shape, k in (((2, 8), 3), ((8,), 8), ((2, 3, 5), 2), ((2, 0), 0), ((3, 4), 0)):
            n = _n("ApproxTopK", dtype, shape, f"k{k}")
            yield _case(n, ["ApproxTopK"], lambda x, k=k: list(R.ApproxTopK(input=x, k=k)),
                        [data(n, dtype, shape)])
    yield _case("ApproxTopK/float32[6]/ties", ["ApproxTopK"],
                lambda x: list(R.ApproxTopK(input=x, k=4, recall_target=0.5,
                                            aggregate_to_topk=False)),
                [np.array([1, 4, -2, 4, 1, 0], F32)])


def _sdca_shrink_cases(R, tf):
    """SdcaShrinkL1 updates ref variables in place: each variable is
    assigned its fed value, shrunk, then read."""
    def build(values, l1, l2):
        def fn():
            phs = [tf.compat.v1.placeholder(F32, v.shape, name=f"in{i}")
                   for i, v in enumerate(values)]
            refs = [R.VariableV2(shape=v.shape, dtype=tf.float32, name=f"w{i}")
                    for i, v in enumerate(values)]
            assigns = [R.Assign(ref=r, value=p) for r, p in zip(refs, phs)]
            with tf.control_dependencies(assigns):
                shrink = R.SdcaShrinkL1(weights=refs, l1=l1, l2=l2)
            with tf.control_dependencies([shrink]):
                reads = [tf.identity(r) for r in refs]
            return reads, dict(zip(phs, values))
        return fn
    for l1, l2 in ((0.5, 1.0), (1.0, 3.0), (0.0, 1.0), (2.0, 0.5)):
        values = [data(f"SdcaShrinkL1/{l1},{l2}/a", F32, (5,)),
                  data(f"SdcaShrinkL1/{l1},{l2}/b", F32, (2, 3)), np.zeros((0,), F32)]
        yield OpCase(f"SdcaShrinkL1/float32[5]+[2,3]+[0]/l1={l1},l2={l2}", ["SdcaShrinkL1"],
                     build(values, l1, l2))


def cases():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    R = tf.raw_ops
    yield from _cholesky_grad_cases(R, tf)
    yield from _lu_cases(R, tf)
    yield from _tridiagonal_cases(R, tf)
    yield from _banded_cases(R, tf)
    yield from _matfunc_cases(R, tf)
    yield from _misc_cases(R, tf)
    yield from _cluster_cases(R, tf)
    yield from _approx_top_k_cases(R, tf)
    yield from _sdca_shrink_cases(R, tf)
