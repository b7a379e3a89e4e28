"""TensorMap ops: a DT_VARIANT map keyed by tensor value (tf.raw_ops
EmptyTensorMap, TensorMapInsert/Lookup/Erase/HasKey/Size/StackKeys; what
tf.function's map-based gradient accumulation emits)."""
import numpy as np

from op_case import OpCase, data

_ALL = ["EmptyTensorMap", "TensorMapInsert", "TensorMapLookup", "TensorMapErase",
        "TensorMapHasKey", "TensorMapSize", "TensorMapStackKeys"]


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _keys(kdt):
    if kdt is np.object_:
        return np.array([b"a", b"bb", b"", b"a "], dtype=object)
    return np.array([3, -1, 0, 7], kdt)


def cases():
    tf = _tf()
    raw = tf.raw_ops
    for kdt in (np.int32, np.int64, np.float32, np.object_):
        for vdt in (np.float32, np.int64, np.object_):
            kname = "string" if kdt is np.object_ else np.dtype(kdt).name
            vname = "string" if vdt is np.object_ else np.dtype(vdt).name
            name = f"TensorMapInsert/{kname}_{vname}"

            def chain(kdt=kdt, vdt=vdt, name=name):
                ktf = tf.string if kdt is np.object_ else tf.as_dtype(kdt)
                vtf = tf.string if vdt is np.object_ else tf.as_dtype(vdt)
                keys = _keys(kdt)
                vals = data(name, vdt, (8,)).reshape(4, 2)
                if vdt is np.object_:
                    vals = vals.astype(np.bytes_).astype(object)
                m = raw.EmptyTensorMap()
                for i in range(4):
                    m = raw.TensorMapInsert(input_handle=m, key=tf.constant(keys[i], ktf),
                                            value=tf.constant(vals[i], vtf))
                # re-insert replaces; erase removes
                m = raw.TensorMapInsert(input_handle=m, key=tf.constant(keys[1], ktf),
                                        value=tf.constant(vals[3], vtf))
                m2 = raw.TensorMapErase(input_handle=m, key=tf.constant(keys[2], ktf),
                                        value_dtype=vtf)
                out = [raw.TensorMapSize(input_handle=m), raw.TensorMapSize(input_handle=m2)]
                for i in range(4):
                    out.append(raw.TensorMapHasKey(input_handle=m2, key=tf.constant(keys[i], ktf)))
                out.append(raw.TensorMapLookup(input_handle=m2, key=tf.constant(keys[1], ktf),
                                               value_dtype=vtf))
                out.append(raw.TensorMapLookup(input_handle=m, key=tf.constant(keys[2], ktf),
                                               value_dtype=vtf))
                # the stacking order is TensorFlow's hash map's: compare how
                # often each key occurs in it
                stacked = raw.TensorMapStackKeys(input_handle=m2, key_dtype=ktf)
                cand = tf.constant(keys, ktf)
                out.append(tf.reduce_sum(tf.cast(tf.equal(stacked[:, None], cand[None, :]),
                                                 tf.int32), axis=0))
                return out, {}
            yield OpCase(name, list(_ALL), chain)

    def vector_keys():
        m = raw.EmptyTensorMap()
        m = raw.TensorMapInsert(input_handle=m, key=tf.constant([1, 2]), value=tf.constant(5.0))
        m = raw.TensorMapInsert(input_handle=m, key=tf.constant([2, 1]), value=tf.constant(6.0))
        return [raw.TensorMapLookup(input_handle=m, key=tf.constant([2, 1]),
                                    value_dtype=tf.float32),
                raw.TensorMapHasKey(input_handle=m, key=tf.constant([[1, 2]])),
                raw.TensorMapHasKey(input_handle=m, key=tf.constant([1, 2], tf.int64)),
                raw.TensorMapSize(input_handle=m)], {}
    yield OpCase("TensorMapLookup/int32_vector_keys", ["TensorMapLookup", "TensorMapHasKey"],
                 vector_keys)

    def single_stack():
        m = raw.TensorMapInsert(input_handle=raw.EmptyTensorMap(), key=tf.constant([4.5, -1.0]),
                                value=tf.constant(1))
        return [raw.TensorMapStackKeys(input_handle=m, key_dtype=tf.float32)], {}
    yield OpCase("TensorMapStackKeys/float32_one", ["TensorMapStackKeys"], single_stack)

    def lookup_missing():
        m = raw.TensorMapInsert(input_handle=raw.EmptyTensorMap(), key=tf.constant(1),
                                value=tf.constant(1.0))
        return [raw.TensorMapLookup(input_handle=m, key=tf.constant(2),
                                    value_dtype=tf.float32)], {}
    yield OpCase("TensorMapLookup/missing", ["TensorMapLookup"], lookup_missing,
                 expect_error='Trying to lookup non-existent key. Could not find key "2".')

    def lookup_missing_strings():
        return [raw.TensorMapLookup(input_handle=raw.EmptyTensorMap(),
                                    key=tf.constant(["a", "b\n"]), value_dtype=tf.float32)], {}
    yield OpCase("TensorMapLookup/missing_strings", ["TensorMapLookup"], lookup_missing_strings,
                 expect_error=r'Could not find key "a b\\n".')

    def erase_missing():
        m = raw.EmptyTensorMap()
        return [raw.TensorMapSize(input_handle=raw.TensorMapErase(
            input_handle=m, key=tf.constant("k"), value_dtype=tf.float32))], {}
    yield OpCase("TensorMapErase/missing", ["TensorMapErase"], erase_missing,
                 expect_error='Trying to erase non-existent item. Could not find key "k".')

    def stack_empty():
        return [raw.TensorMapStackKeys(input_handle=raw.EmptyTensorMap(),
                                       key_dtype=tf.int32)], {}
    yield OpCase("TensorMapStackKeys/empty", ["TensorMapStackKeys"], stack_empty,
                 expect_error="TensorMapStackKeys cannot be called on empty map.")

    def stack_shapes():
        m = raw.TensorMapInsert(input_handle=raw.EmptyTensorMap(), key=tf.constant(1),
                                value=tf.constant(1.0))
        m = raw.TensorMapInsert(input_handle=m, key=tf.constant([1]), value=tf.constant(1.0))
        return [raw.TensorMapStackKeys(input_handle=m, key_dtype=tf.int32)], {}
    yield OpCase("TensorMapStackKeys/mixed_shapes", ["TensorMapStackKeys"], stack_shapes,
                 expect_error="Keys must all have the same shape.")
