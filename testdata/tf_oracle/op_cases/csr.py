"""CSR sparse matrices (a DT_VARIANT CSRSparseMatrix; tf.raw_ops and
tf.linalg.experimental.sparse): conversions, components, nnz, transpose and
the product with a dense matrix. A variant cannot be fetched: every case
fetches dense results, components or a SparseTensor."""
import numpy as np

from op_case import OpCase, data

_TYPES = (np.float32, np.float64, np.complex64, np.complex128)


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _dense(name, dt, shape):
    """Values with about half the entries zero."""
    v = data(name, dt, shape)
    mask = data(name + "/mask", np.float64, shape) > 0
    return (v * mask).astype(dt)


def _csr(tf, x):
    return tf.raw_ops.DenseToCSRSparseMatrix(dense_input=x, indices=tf.where(tf.not_equal(
        x, tf.zeros_like(x))))


def _basic_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt in _TYPES:
        tfd = tf.as_dtype(dt)
        for shape in ((4, 5), (3, 2, 4), (0, 3), (2, 0, 0)):
            name = f"CSRSparseMatrixToDense/{np.dtype(dt).name}{list(shape)}"

            def roundtrip(dt=dt, tfd=tfd, shape=shape, name=name):
                x = tf.constant(_dense(name, dt, shape))
                m = _csr(tf, x)
                st = raw.CSRSparseMatrixToSparseTensor(sparse_matrix=m, type=tfd)
                m2 = raw.SparseTensorToCSRSparseMatrix(indices=st.indices, values=st.values,
                                                       dense_shape=st.dense_shape)
                t = raw.SparseMatrixTranspose(input=m2, type=tfd, conjugate=True)
                return [raw.CSRSparseMatrixToDense(sparse_input=m, type=tfd),
                        st.indices, st.values, st.dense_shape,
                        raw.SparseMatrixNNZ(sparse_matrix=m2),
                        raw.CSRSparseMatrixToDense(sparse_input=t, type=tfd)], {}
            yield OpCase(name, ["DenseToCSRSparseMatrix", "CSRSparseMatrixToDense",
                                "CSRSparseMatrixToSparseTensor", "SparseTensorToCSRSparseMatrix",
                                "SparseMatrixNNZ", "SparseMatrixTranspose"], roundtrip)

        name = f"CSRSparseMatrixComponents/{np.dtype(dt).name}"

        def components(dt=dt, tfd=tfd, name=name):
            m = _csr(tf, tf.constant(_dense(name, dt, (3, 4, 5))))
            out = []
            for i in range(3):
                out.extend(raw.CSRSparseMatrixComponents(csr_sparse_matrix=m, index=i, type=tfd))
            return out, {}
        yield OpCase(name, ["CSRSparseMatrixComponents"], components)

        for ta, tb, aa, ab, to, co in ((0, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0),
                                       (0, 1, 0, 0, 1, 0), (0, 0, 1, 1, 0, 1),
                                       (1, 0, 0, 1, 1, 1)):
            flags = f"t{ta}{tb}a{aa}{ab}o{to}{co}"
            name = f"SparseMatrixMatMul/{np.dtype(dt).name}/{flags}"

            def matmul(dt=dt, ta=ta, tb=tb, aa=aa, ab=ab, to=to, co=co, name=name):
                a = _dense(name, dt, (2, 3, 4))
                ashape = (2, 4, 3) if (ta or aa) else (2, 3, 4)
                a = _dense(name, dt, ashape)
                bshape = (2, 5, 4) if (tb or ab) else (2, 4, 5)
                b = tf.compat.v1.placeholder(tf.as_dtype(dt), bshape)
                out = raw.SparseMatrixMatMul(a=_csr(tf, tf.constant(a)), b=b,
                                             transpose_a=bool(ta), transpose_b=bool(tb),
                                             adjoint_a=bool(aa), adjoint_b=bool(ab),
                                             transpose_output=bool(to),
                                             conjugate_output=bool(co))
                return [out], {b: data(name + "/b", dt, bshape)}
            yield OpCase(name, ["SparseMatrixMatMul"], matmul,
                         rtol=1e-4 if dt in (np.float32, np.complex64) else None)

    def matmul_2d():
        a = _csr(tf, tf.constant(_dense("mm2", np.float32, (3, 6))))
        return [raw.SparseMatrixMatMul(a=a, b=data("mm2/b", np.float32, (6, 2)))], {}
    yield OpCase("SparseMatrixMatMul/float32/2d", ["SparseMatrixMatMul"], matmul_2d, rtol=1e-4)

    def matmul_bad():
        a = _csr(tf, tf.constant(_dense("mmb", np.float32, (2, 3))))
        b = tf.compat.v1.placeholder(tf.float32, [None, 2])
        return [raw.SparseMatrixMatMul(a=a, b=b)], {b: np.ones([4, 2], np.float32)}
    yield OpCase("SparseMatrixMatMul/float32/inner_mismatch", ["SparseMatrixMatMul"], matmul_bad,
                 expect_error=r"Inner product dimensions of A and B do not agree. Shapes are: "
                              r"\[2,3\] vs. \[4,2\]")

    def components_bad():
        m = _csr(tf, tf.constant(np.eye(2, dtype=np.float32)))
        i = tf.compat.v1.placeholder(tf.int32, [])
        return list(raw.CSRSparseMatrixComponents(csr_sparse_matrix=m, index=i,
                                                  type=tf.float32)), {i: np.int32(1)}
    yield OpCase("CSRSparseMatrixComponents/float32/bad_index", ["CSRSparseMatrixComponents"],
                 components_bad, expect_error=r"index \(1\) not in \[0, 1\)")

    def to_dense_bad_type():
        m = _csr(tf, tf.constant(np.eye(2, dtype=np.float32)))
        return [raw.CSRSparseMatrixToDense(sparse_input=m, type=tf.float64)], {}
    yield OpCase("CSRSparseMatrixToDense/float32/wrong_type", ["CSRSparseMatrixToDense"],
                 to_dense_bad_type,
                 expect_error="Asked for a CSRSparseMatrix of type double but saw dtype: float")

    def st_bad():
        ind = tf.compat.v1.placeholder(tf.int64, [None, 2])
        return [raw.SparseMatrixNNZ(sparse_matrix=raw.SparseTensorToCSRSparseMatrix(
            indices=ind, values=[1.0], dense_shape=[2, 3]))], {ind: np.array([[0, 5]], np.int64)}
    yield OpCase("SparseTensorToCSRSparseMatrix/float32/out_of_bounds",
                 ["SparseTensorToCSRSparseMatrix"], st_bad,
                 expect_error=r"Sparse index tuple indices\[0, :\] = \[0, 5\] is out of bounds")


def _spd(name, dt, n, batch=None):
    """A sparse symmetric (Hermitian) diagonally dominant matrix: positive
    definite."""
    shape = (batch, n, n) if batch else (n, n)
    a = _dense(name, dt, shape)
    mask = data(name + "/keep", np.float64, shape) > 0.6
    a = a * mask
    a = a + np.conj(np.swapaxes(a, -1, -2))
    eye = np.eye(n)
    a = a + eye * (np.abs(a).sum(axis=-1, keepdims=True) + 1.0)
    return a.astype(dt)


def _eigen_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt in _TYPES:
        tfd = tf.as_dtype(dt)
        for shape in ((3, 4, 5, 2), (2, 3, 3, 4)):
            for ta, tb, aa, ab in ((0, 0, 0, 0), (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 1)):
                name = f"SparseMatrixSparseMatMul/{np.dtype(dt).name}{list(shape)}/t{ta}{tb}a{aa}{ab}"

                def spmm(dt=dt, tfd=tfd, shape=shape, ta=ta, tb=tb, aa=aa, ab=ab, name=name):
                    batch, m, k, n = shape
                    ash = (batch, k, m) if (ta or aa) else (batch, m, k)
                    bsh = (batch, n, k) if (tb or ab) else (batch, k, n)
                    a = _csr(tf, tf.constant(_dense(name + "/a", dt, ash)))
                    b = _csr(tf, tf.constant(_dense(name + "/b", dt, bsh)))
                    c = raw.SparseMatrixSparseMatMul(a=a, b=b, type=tfd, transpose_a=bool(ta),
                                                     transpose_b=bool(tb), adjoint_a=bool(aa),
                                                     adjoint_b=bool(ab))
                    out = [raw.CSRSparseMatrixToDense(sparse_input=c, type=tfd)]
                    for i in range(batch):
                        comp = raw.CSRSparseMatrixComponents(csr_sparse_matrix=c, index=i,
                                                             type=tfd)
                        out.extend(comp[:2])
                    return out, {}
                yield OpCase(name, ["SparseMatrixSparseMatMul"], spmm,
                             rtol=1e-4 if dt in (np.float32, np.complex64) else None,
                             atol=1e-5 if dt in (np.float32, np.complex64) else None)

        for n, batch in ((9, None), (14, 3), (1, None)):
            name = f"SparseMatrixSparseCholesky/{np.dtype(dt).name}/n{n}b{batch}"

            def chol(dt=dt, tfd=tfd, n=n, batch=batch, name=name):
                m = _csr(tf, tf.constant(_spd(name, dt, n, batch)))
                perm = raw.SparseMatrixOrderingAMD(input=m)
                l = raw.SparseMatrixSparseCholesky(input=m, permutation=perm, type=tfd)
                out = [perm, raw.CSRSparseMatrixToDense(sparse_input=l, type=tfd)]
                for i in range(batch or 1):
                    out.extend(raw.CSRSparseMatrixComponents(csr_sparse_matrix=l, index=i,
                                                             type=tfd)[:2])
                return out, {}
            yield OpCase(name, ["SparseMatrixOrderingAMD", "SparseMatrixSparseCholesky"], chol,
                         rtol=1e-4 if dt in (np.float32, np.complex64) else None,
                         atol=1e-5 if dt in (np.float32, np.complex64) else None)

    for n, density in ((12, 0.8), (30, 1.2), (25, 0.3), (5, 2.0)):
        name = f"SparseMatrixOrderingAMD/pattern_n{n}_d{density}"

        def amd(n=n, density=density, name=name):
            a = (data(name, np.float64, (n, n)) > density).astype(np.float32)
            a = a + np.eye(n, dtype=np.float32)
            return [raw.SparseMatrixOrderingAMD(input=_csr(tf, tf.constant(a)))], {}
        yield OpCase(name, ["SparseMatrixOrderingAMD"], amd)

    def chol_not_pd():
        m = _csr(tf, tf.constant(np.array([[1.0, 2.0], [2.0, 1.0]], np.float64)))
        l = raw.SparseMatrixSparseCholesky(input=m, permutation=[0, 1], type=tf.float64)
        return [raw.CSRSparseMatrixToDense(sparse_input=l, type=tf.float64)], {}
    yield OpCase("SparseMatrixSparseCholesky/float64/not_positive_definite",
                 ["SparseMatrixSparseCholesky"], chol_not_pd,
                 expect_error="Sparse Cholesky factorization failed for batch index 0")

    def amd_not_square():
        x = tf.compat.v1.placeholder(tf.float32, [None, None])
        return [raw.SparseMatrixOrderingAMD(input=_csr(tf, x))], {x: np.ones([2, 3], np.float32)}
    yield OpCase("SparseMatrixOrderingAMD/not_square", ["SparseMatrixOrderingAMD"],
                 amd_not_square, expect_error="sparse matrix must be square; got: 2 != 3")


def cases():
    yield from _basic_cases()
    yield from _eigen_cases()
