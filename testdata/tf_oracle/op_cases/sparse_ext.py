"""Feature crosses (tf.sparse.cross, tf.ragged.cross, Keras HashedCrossing),
counts with sparse output (tf.sparse.bincount), and the gradients of the
sparse add/slice/segment/fill ops."""
import numpy as np

from op_case import OpCase, data


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _i64(x):
    return np.array(x, np.int64)


def _sparse_inputs():
    """Two sparse columns (int64 and string) with an empty row, batch 3."""
    ind_a = _i64([[0, 0], [0, 1], [2, 0]])
    val_a = _i64([3, -7, 123456789012])
    ind_b = _i64([[0, 0], [1, 0], [2, 0], [2, 1]])
    val_b = np.array([b"x", b"yy", b"", b"zz z"], dtype=object)
    shape = _i64([3, 2])
    return [ind_a, ind_b], [val_a, val_b], [shape, shape]


def _dense_inputs():
    return [np.array([[b"p"], [b"q"], [b"r"]], dtype=object),
            _i64([[11, 12], [-1, 0], [5, 5]])]


def _cross_cases():
    tf = _tf()
    raw = tf.raw_ops
    for out, internal in ((tf.string, tf.string), (tf.string, tf.int64),
                          (tf.int64, tf.int64), (tf.int64, tf.string)):
        for buckets, key in ((0, 0), (100, 956888297470)):
            if out == tf.string and buckets:
                continue
            name = f"SparseCross/{out.name}_{internal.name}/b{buckets}"

            def cross(out=out, internal=internal, buckets=buckets, key=key):
                ind, val, shp = _sparse_inputs()
                dense = _dense_inputs()
                if internal == tf.string:
                    val, dense = val[1:], dense[:1]
                    ind, shp = ind[1:], shp[1:]
                r = raw.SparseCross(indices=ind, values=val, shapes=shp, dense_inputs=dense,
                                    hashed_output=out == tf.int64, num_buckets=buckets,
                                    hash_key=key, out_type=out, internal_type=internal)
                return list(r), {}
            yield OpCase(name, ["SparseCross"], cross)

    def cross_bad_type():
        ind, val, shp = _sparse_inputs()
        r = raw.SparseCross(indices=ind, values=val, shapes=shp, dense_inputs=[],
                            hashed_output=False, num_buckets=0, hash_key=0,
                            out_type=tf.string, internal_type=tf.string)
        return list(r), {}
    yield OpCase("SparseCross/string/int64_values", ["SparseCross"], cross_bad_type,
                 expect_error="Input values should be of internal type 7 but received 9")

    def cross_batch():
        ind, val, shp = _sparse_inputs()
        r = raw.SparseCross(indices=ind, values=val, shapes=[shp[0], _i64([4, 2])],
                            dense_inputs=[], hashed_output=True, num_buckets=0,
                            hash_key=0, out_type=tf.int64, internal_type=tf.int64)
        return list(r), {}
    yield OpCase("SparseCross/int64/batch_mismatch", ["SparseCross"], cross_batch,
                 expect_error="Expected batch size 3 got 4 at position 1")

    def cross_v2():
        ind, val, shp = _sparse_inputs()
        r = raw.SparseCrossV2(indices=ind, values=val, shapes=shp,
                              dense_inputs=_dense_inputs(), sep="--")
        return list(r), {}
    yield OpCase("SparseCrossV2/mixed", ["SparseCrossV2"], cross_v2)

    def cross_v2_dense_only():
        x = tf.compat.v1.placeholder(tf.string, [None, 2])
        r = raw.SparseCrossV2(indices=[], values=[], shapes=[], dense_inputs=[x, x], sep="_")
        return list(r), {x: np.array([[b"a", b"b"], [b"c", b""]], dtype=object)}
    yield OpCase("SparseCrossV2/dense_only", ["SparseCrossV2"], cross_v2_dense_only)

    for strong in (False, True):
        for buckets in (0, 10):
            name = f"SparseCrossHashed/strong{int(strong)}/b{buckets}"

            def hashed(strong=strong, buckets=buckets):
                ind, val, shp = _sparse_inputs()
                # TensorFlow 2.21 crashes (SIGSEGV) hashing a dense int64
                # input strongly: strong cases cross the dense string only.
                dense = _dense_inputs()[:1] if strong else _dense_inputs()
                r = raw.SparseCrossHashed(indices=ind, values=val, shapes=shp,
                                          dense_inputs=dense,
                                          num_buckets=_i64(buckets), strong_hash=strong,
                                          salt=_i64([17, -3]))
                return list(r), {}
            yield OpCase(name, ["SparseCrossHashed"], hashed)

    def hashed_salt():
        ind, val, shp = _sparse_inputs()
        r = raw.SparseCrossHashed(indices=ind, values=val, shapes=shp, dense_inputs=[],
                                  num_buckets=_i64(3), strong_hash=True,
                                  salt=tf.constant(_i64([1, 2, 3])))
        return list(r), {}
    yield OpCase("SparseCrossHashed/bad_salt", ["SparseCrossHashed"], hashed_salt,
                 expect_error='Input "salt" must have length 2 but has length 3')

    def keras_style():
        x = tf.compat.v1.placeholder(tf.string, [4])
        y = tf.compat.v1.placeholder(tf.int64, [4])
        out = tf.sparse.cross_hashed([tf.reshape(x, [4, 1]), tf.reshape(y, [4, 1])],
                                     num_buckets=7)
        return [out.indices, out.values, out.dense_shape], {
            x: np.array([b"a", b"b", b"a", b"c"], dtype=object), y: _i64([1, 2, 1, 3])}
    yield OpCase("SparseCross/hashed_crossing", ["SparseCross"], keras_style)


def _ragged_cross_cases():
    tf = _tf()
    for hashed in (False, True):
        for splits in (tf.int32, tf.int64):
            name = f"RaggedCross/{'hashed' if hashed else 'string'}/{splits.name}"

            def rc(hashed=hashed, splits=splits):
                r1 = tf.RaggedTensor.from_row_splits(
                    np.array([b"a", b"b", b"c"], dtype=object),
                    np.array([0, 2, 2, 3], splits.as_numpy_dtype))
                r2 = tf.RaggedTensor.from_row_splits(
                    _i64([4, 5, 6, 7]), np.array([0, 1, 3, 4], splits.as_numpy_dtype))
                sp = tf.sparse.SparseTensor(_i64([[0, 0], [1, 0], [1, 1], [2, 0]]),
                                            np.array([b"s", b"t", b"u", b"v"], dtype=object),
                                            _i64([3, 2]))
                d = tf.constant(_i64([[1], [2], [3]]))
                if hashed:
                    out = tf.ragged.cross_hashed([r1, sp, d, r2], num_buckets=1000,
                                                 hash_key=123)
                else:
                    out = tf.ragged.cross([d, r2, sp])
                return [out.values, out.row_splits], {}
            yield OpCase(name, ["RaggedCross"], rc)

    def rc_bad():
        v = tf.compat.v1.placeholder(tf.int64, [None])
        s = tf.compat.v1.placeholder(tf.int64, [None])
        out = tf.raw_ops.RaggedCross(
            ragged_values=[v], ragged_row_splits=[s], sparse_indices=[], sparse_values=[],
            sparse_shape=[], dense_inputs=[], input_order="R", hashed_output=False,
            num_buckets=0, hash_key=0, out_values_type=tf.string, out_row_splits_type=tf.int64)
        return list(out), {v: _i64([1, 2]), s: _i64([0, 3])}
    yield OpCase("RaggedCross/bad_splits", ["RaggedCross"], rc_bad,
                 expect_error=r"last element of ragged splits must be the number of ragged "
                              r"values\(2\) but is 3")


def _count_cases():
    tf = _tf()
    raw = tf.raw_ops
    for t in (np.int32, np.int64):
        for w in (None, np.float32, np.float64, np.int32, np.int64):
            for shape in ((7,), (3, 4)):
                name = f"DenseCountSparseOutput/{np.dtype(t).name}/{'none' if w is None else np.dtype(w).name}{list(shape)}"

                def dense(t=t, w=w, shape=shape, name=name):
                    v = data(name, t, shape, "small") + 3
                    wt = data(name + "/w", w, shape, "small") if w else np.zeros([0], np.float32)
                    r = raw.DenseCountSparseOutput(values=v, weights=wt, binary_output=False,
                                                   minlength=-1, maxlength=-1)
                    return list(r), {}
                yield OpCase(name, ["DenseCountSparseOutput"], dense, atol=1e-5)
    for binary, minl, maxl in ((True, -1, -1), (False, 9, -1), (False, -1, 3)):
        name = f"DenseCountSparseOutput/int64/b{int(binary)}_min{minl}_max{maxl}"

        def dense_attrs(binary=binary, minl=minl, maxl=maxl, name=name):
            v = data(name, np.int64, (2, 6), "small") + 3
            r = raw.DenseCountSparseOutput(values=v, weights=np.zeros([0], np.int64),
                                           binary_output=binary, minlength=minl, maxlength=maxl)
            return list(r), {}
        yield OpCase(name, ["DenseCountSparseOutput"], dense_attrs)

    def dense_negative():
        x = tf.compat.v1.placeholder(tf.int64, [None])
        r = raw.DenseCountSparseOutput(values=x, weights=np.zeros([0], np.float32),
                                       binary_output=False)
        return list(r), {x: _i64([1, -1, 2])}
    yield OpCase("DenseCountSparseOutput/int64/negative", ["DenseCountSparseOutput"],
                 dense_negative, expect_error="Input values must all be non-negative")

    def dense_bad():
        x = tf.compat.v1.placeholder(tf.int32, None)
        r = raw.DenseCountSparseOutput(values=x, weights=np.zeros([0], np.float32),
                                       binary_output=False)
        return list(r), {x: np.zeros([2, 2, 2], np.int32)}
    yield OpCase("DenseCountSparseOutput/int32/rank3", ["DenseCountSparseOutput"], dense_bad,
                 expect_error="Input must be a 1 or 2-dimensional tensor. Got: \\[2,2,2\\]")

    for t in (np.int32, np.int64):
        for w in (None, np.float32, np.int64):
            name = f"SparseCountSparseOutput/{np.dtype(t).name}/{'none' if w is None else np.dtype(w).name}"

            def sparse(t=t, w=w, name=name):
                ind = _i64([[0, 1], [0, 3], [2, 0], [2, 2], [2, 3]])
                v = np.array([4, 1, 4, 4, 0], t)
                wt = data(name + "/w", w, (5,), "small") if w else np.zeros([0], np.float64)
                r = raw.SparseCountSparseOutput(indices=ind, values=v, dense_shape=_i64([3, 5]),
                                                weights=wt, binary_output=False, maxlength=-1,
                                                minlength=-1)
                return list(r), {}
            yield OpCase(name, ["SparseCountSparseOutput"], sparse)

    def sparse_1d():
        r = raw.SparseCountSparseOutput(indices=_i64([[0], [2], [5]]), values=_i64([3, 3, 1]),
                                        dense_shape=_i64([6]), weights=np.zeros([0], np.float32),
                                        binary_output=True, minlength=6, maxlength=-1)
        return list(r), {}
    yield OpCase("SparseCountSparseOutput/int64/1d_binary", ["SparseCountSparseOutput"], sparse_1d)

    def sparse_bad():
        ind = tf.compat.v1.placeholder(tf.int64, [None, 2])
        r = raw.SparseCountSparseOutput(indices=ind, values=_i64([1]), dense_shape=_i64([2, 3]),
                                        weights=np.zeros([0], np.float32), binary_output=False)
        return list(r), {ind: _i64([[0, 4]])}
    yield OpCase("SparseCountSparseOutput/int64/bad_index", ["SparseCountSparseOutput"],
                 sparse_bad, expect_error="Invalid index value at 0: dimension 1 has value 4")

    for t in (np.int32, np.int64):
        for w in (None, np.float64, np.int32):
            name = f"RaggedCountSparseOutput/{np.dtype(t).name}/{'none' if w is None else np.dtype(w).name}"

            def ragged(t=t, w=w, name=name):
                v = np.array([1, 1, 5, 2, 0, 2, 2], t)
                wt = data(name + "/w", w, (7,), "small") if w else np.zeros([0], np.int64)
                r = raw.RaggedCountSparseOutput(splits=_i64([0, 3, 3, 7]), values=v, weights=wt,
                                                binary_output=False, maxlength=-1, minlength=-1)
                return list(r), {}
            yield OpCase(name, ["RaggedCountSparseOutput"], ragged)

    def ragged_bad():
        s = tf.compat.v1.placeholder(tf.int64, [None])
        r = raw.RaggedCountSparseOutput(splits=s, values=_i64([1, 2]),
                                        weights=np.zeros([0], np.float32), binary_output=False)
        return list(r), {s: _i64([0, 1])}
    yield OpCase("RaggedCountSparseOutput/int64/bad_splits", ["RaggedCountSparseOutput"],
                 ragged_bad, expect_error="Splits must end with the number of values, got 1 "
                                          "instead of 2")

    def bincount_api():
        x = tf.compat.v1.placeholder(tf.int32, [3, 4])
        out = tf.sparse.bincount(x, axis=-1)
        return [out.indices, out.values, out.dense_shape], {x: data("bc", np.int32, (3, 4), "small") + 3}
    yield OpCase("DenseCountSparseOutput/int32/tf.sparse.bincount", ["DenseCountSparseOutput"],
                 bincount_api)


_GRAD_TYPES = (np.float32, np.float64, np.int32, np.int64, np.int8, np.int16, np.complex64,
               np.complex128)


def _grad_cases():
    tf = _tf()
    raw = tf.raw_ops
    for t in _GRAD_TYPES:
        name = f"SparseAddGrad/{np.dtype(t).name}"

        def add_grad(t=t, name=name):
            a = _i64([[0, 0], [1, 1], [2, 3]])
            b = _i64([[0, 0], [0, 2], [2, 3], [3, 0]])
            s = _i64([[0, 0], [0, 2], [1, 1], [2, 3], [3, 0]])
            g = data(name, t, (5,))
            r = raw.SparseAddGrad(backprop_val_grad=g, a_indices=a, b_indices=b, sum_indices=s)
            return list(r), {}
        yield OpCase(name, ["SparseAddGrad"], add_grad)

    def add_grad_bad():
        g = tf.compat.v1.placeholder(tf.float32, [None])
        r = raw.SparseAddGrad(backprop_val_grad=g, a_indices=_i64([[0]]), b_indices=_i64([[0]]),
                              sum_indices=_i64([[0]]))
        return list(r), {g: np.ones([2], np.float32)}
    yield OpCase("SparseAddGrad/float32/bad_count", ["SparseAddGrad"], add_grad_bad,
                 expect_error="# elements of backprop_val_grad and # rows of sum_indices should "
                              "match \\(#nnz of sum\\): got 2 and 1")

    for t in _GRAD_TYPES + (np.float16, np.uint8, np.uint16, np.uint32, np.uint64):
        name = f"SparseSliceGrad/{np.dtype(t).name}"

        def slice_grad(t=t, name=name):
            inp = _i64([[0, 0], [1, 1], [1, 3], [2, 2], [3, 1]])
            out = _i64([[0, 0], [0, 2], [1, 1]])
            g = data(name, t, (3,), "pos")
            return [raw.SparseSliceGrad(backprop_val_grad=g, input_indices=inp,
                                        input_start=_i64([1, 1]), output_indices=out)], {}
        yield OpCase(name, ["SparseSliceGrad"], slice_grad)

    def slice_grad_bad():
        st = tf.compat.v1.placeholder(tf.int64, [None])
        return [raw.SparseSliceGrad(backprop_val_grad=[1.0], input_indices=_i64([[0, 0]]),
                                    input_start=st, output_indices=_i64([[0, 0]]))], \
            {st: _i64([0, 0, 0])}
    yield OpCase("SparseSliceGrad/float32/bad_start", ["SparseSliceGrad"], slice_grad_bad,
                 expect_error="Expected input_start to be a vector of length 2 but got length 3")

    for op in ("Sum", "Mean", "SqrtN"):
        for t in (np.float32, np.float64, np.float16, "bfloat16"):
            for tidx in (np.int32, np.int64):
                tname = t if isinstance(t, str) else np.dtype(t).name
                name = f"SparseSegment{op}GradV2/{tname}/{np.dtype(tidx).name}"

                def seg(op=op, t=t, tidx=tidx, name=name):
                    g = tf.cast(data(name, np.float64, (3, 2)), tf.as_dtype(t))
                    fn = getattr(raw, f"SparseSegment{op}GradV2")
                    r = fn(grad=g, indices=np.array([4, 1, 4, 0, 1, 4], tidx),
                           segment_ids=np.array([0, 0, 1, 2, 2, 2], np.int64),
                           dense_output_dim0=6)
                    # bfloat16 has no .npy form: fetch it as float32.
                    return [tf.cast(r[0], tf.float32), r[1]], {}
                yield OpCase(name, [f"SparseSegment{op}GradV2"], seg,
                             atol=1e-2 if tname in ("float16", "bfloat16") else None,
                             rtol=1e-2 if tname in ("float16", "bfloat16") else None)

    def seg_bad():
        i = tf.compat.v1.placeholder(tf.int32, [None])
        r = raw.SparseSegmentMeanGradV2(grad=np.ones([2, 2], np.float32), indices=i,
                                        segment_ids=[0, 1], dense_output_dim0=3)
        return list(r), {i: np.array([0, 5], np.int32)}
    yield OpCase("SparseSegmentMeanGradV2/float32/bad_index", ["SparseSegmentMeanGradV2"],
                 seg_bad, expect_error=r"Index 5 out of range \[0, 3\)")

    for t in (np.float32, np.float64, np.int32, np.int64, np.complex64, np.uint8):
        name = f"RaggedFillEmptyRowsGrad/{np.dtype(t).name}"

        def fill_grad(t=t, name=name):
            g = data(name, t, (6,), "small")
            r = raw.RaggedFillEmptyRowsGrad(reverse_index_map=_i64([0, 2, 5]), grad_values=g)
            return list(r), {}
        yield OpCase(name, ["RaggedFillEmptyRowsGrad"], fill_grad)


def _tensors_map_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt in (np.float32, np.int64, np.object_, np.bool_):
        dname = "string" if dt is np.object_ else np.dtype(dt).name
        name = f"TakeManySparseFromTensorsMap/{dname}"

        def take(dt=dt, name=name):
            ind = _i64([[0, 1, 0], [0, 2, 1], [2, 0, 3], [2, 2, 2], [3, 1, 1]])
            vals = data(name, dt, (5,))
            if dt is np.object_:
                vals = vals.astype(np.bytes_).astype(object)
            many = raw.AddManySparseToTensorsMap(sparse_indices=ind, sparse_values=vals,
                                                 sparse_shape=_i64([4, 3, 4]),
                                                 shared_name="stm")
            one = raw.AddSparseToTensorsMap(sparse_indices=_i64([[1, 1], [4, 0]]),
                                            sparse_values=vals[:2],
                                            sparse_shape=_i64([5, 2]), shared_name="stm")
            handles = tf.concat([tf.reverse(many, [0]), [one]], 0)
            r = raw.TakeManySparseFromTensorsMap(sparse_handles=handles,
                                                 dtype=tf.as_dtype(dt) if dt is not np.object_
                                                 else tf.string, shared_name="stm")
            # the two writers run in either order: the handles differ, the
            # taken SparseTensor does not
            return list(r), {}
        yield OpCase(name, ["AddManySparseToTensorsMap", "AddSparseToTensorsMap",
                            "TakeManySparseFromTensorsMap"], take)

    def node_named():
        many = raw.AddManySparseToTensorsMap(sparse_indices=_i64([[1, 0]]),
                                             sparse_values=[2.5], sparse_shape=_i64([2, 3]),
                                             name="writer")
        r = raw.TakeManySparseFromTensorsMap(sparse_handles=many, dtype=tf.float32,
                                             shared_name="writer")
        return [many] + list(r), {}
    yield OpCase("TakeManySparseFromTensorsMap/float32/node_name", [
        "AddManySparseToTensorsMap", "TakeManySparseFromTensorsMap"], node_named)

    def missing():
        many = raw.AddManySparseToTensorsMap(sparse_indices=_i64([[1, 0]]),
                                             sparse_values=[2.5], sparse_shape=_i64([2, 3]),
                                             shared_name="m1")
        r = raw.TakeManySparseFromTensorsMap(sparse_handles=many + 5, dtype=tf.float32,
                                             shared_name="m1")
        return list(r), {}
    yield OpCase("TakeManySparseFromTensorsMap/float32/missing", [
        "AddManySparseToTensorsMap", "TakeManySparseFromTensorsMap"], missing,
        expect_error="Unable to find SparseTensor: 6 in map: m1")

    def unsorted():
        ind = tf.compat.v1.placeholder(tf.int64, [None, 2])
        many = raw.AddManySparseToTensorsMap(sparse_indices=ind, sparse_values=[1.0, 2.0],
                                             sparse_shape=_i64([2, 3]), shared_name="m2")
        return [many], {ind: _i64([[1, 0], [0, 1]])}
    yield OpCase("AddManySparseToTensorsMap/float32/unsorted", ["AddManySparseToTensorsMap"],
                 unsorted, expect_error=r"indices\[1\] = \[0,1\] is out of order")


def _metadata(spec_class):
    from tensorflow.core.protobuf import composite_tensor_variant_pb2  # pylint: disable=import-outside-toplevel
    m = composite_tensor_variant_pb2.CompositeTensorVariantMetadata()
    m.type_spec_proto.type_spec_class = spec_class
    m.type_spec_proto.type_spec_class_name = "MaskedTensor.Spec"
    m.type_spec_proto.num_flat_components = 2
    return m.SerializeToString()


def _composite_cases():
    tf = _tf()
    raw = tf.raw_ops

    def roundtrip():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2])
        e = raw.CompositeTensorVariantFromComponents(
            components=[x, tf.constant(["a", "b"])], metadata=_metadata(13))
        out = raw.CompositeTensorVariantToComponents(encoded=e, metadata=_metadata(13),
                                                     Tcomponents=[tf.float32, tf.string])
        return list(out), {x: data("ctv", np.float32, (3, 2))}
    yield OpCase("CompositeTensorVariantToComponents/roundtrip", [
        "CompositeTensorVariantFromComponents", "CompositeTensorVariantToComponents"], roundtrip)

    bad = (("class", 3, [tf.float32, tf.string],
            "Expected a RAGGED_TENSOR_SPEC \\(based on `type_spec`\\), but `encoded` contains "
            "a EXTENSION_TYPE_SPEC"),
           ("count", 13, [tf.float32],
            "Encoded value has 2 tensor components; expected 1 components based on type_spec"),
           ("dtype", 13, [tf.float32, tf.int32],
            "Tensor component 1 had dtype DT_STRING; expected dtype DT_INT32"))
    for what, cls, types, msg in bad:
        def mismatch(cls=cls, types=types):
            e = raw.CompositeTensorVariantFromComponents(
                components=[tf.constant([1.0]), tf.constant("s")], metadata=_metadata(13))
            return list(raw.CompositeTensorVariantToComponents(
                encoded=e, metadata=_metadata(cls), Tcomponents=types)), {}
        yield OpCase(f"CompositeTensorVariantToComponents/bad_{what}",
                     ["CompositeTensorVariantToComponents"], mismatch, expect_error=msg)

    def not_composite():
        return list(raw.CompositeTensorVariantToComponents(
            encoded=raw.EmptyTensorMap(), metadata=_metadata(13), Tcomponents=[tf.int32])), {}
    yield OpCase("CompositeTensorVariantToComponents/not_composite",
                 ["CompositeTensorVariantToComponents"], not_composite,
                 expect_error="The input `encoded` is not a valid CompositeTensorVariant tensor")


def _ragged_variant_grad_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt in (np.float32, np.float64, np.int32, np.object_):
        dname = "string" if dt is np.object_ else np.dtype(dt).name
        for batched in (True, False):
            name = f"RaggedTensorToVariantGradient/{dname}/batched{int(batched)}"

            def grad(dt=dt, batched=batched, name=name):
                vals = data(name, dt, (10,)).reshape(5, 2)
                if dt is np.object_:
                    vals = vals.astype(np.bytes_).astype(object)
                splits = _i64([0, 2, 2, 5])
                enc = raw.RaggedTensorToVariant(rt_nested_splits=[splits], rt_dense_values=vals,
                                                batched_input=batched)
                g = raw.RaggedTensorToVariantGradient(
                    encoded_ragged_grad=enc, row_splits=splits,
                    dense_values_shape=np.array([5, 2], np.int32),
                    Tvalues=tf.string if dt is np.object_ else tf.as_dtype(dt))
                return [g], {}
            yield OpCase(name, ["RaggedTensorToVariantGradient"], grad)


def cases():
    yield from _cross_cases()
    yield from _ragged_cross_cases()
    yield from _count_cases()
    yield from _grad_cases()
    yield from _tensors_map_cases()
    yield from _composite_cases()
    yield from _ragged_variant_grad_cases()
