"""TensorList ops beyond create/get/set/stack, stateless and seeded random
ops, sparse and ragged ops: real models reach them through
tf.TensorArray.concat, Keras initializers and random layers,
embedding_lookup_sparse and feature columns."""
import numpy as np

from op_case import OpCase, data

_LIST_DTYPES = (np.float32, np.float64, np.int32, np.int64, np.bool_, np.object_)


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _dname(dtype):
    return "string" if dtype is np.object_ else np.dtype(dtype).name


def _ph(name, dtype, shape, domain="any", key=None):
    tf = _tf()
    tfd = tf.string if dtype is np.object_ else tf.as_dtype(dtype)
    x = tf.compat.v1.placeholder(tfd, shape, name=name)
    n = int(np.prod(shape))
    v = data(key or name, dtype, (n,), domain).reshape(shape)
    return x, v.astype(np.bytes_) if dtype is np.object_ else v


def _list_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt in _LIST_DTYPES:
        tfd = tf.string if dt is np.object_ else tf.as_dtype(dt)
        name = f"TensorListConcatV2/{_dname(dt)}[5,3]"

        def concat_v2(dt=dt, tfd=tfd, name=name):
            x, v = _ph("x", dt, (5, 3), key=name)
            l = raw.TensorListSplit(tensor=x, element_shape=[-1, 3],
                                    lengths=np.array([2, 0, 3], np.int64))
            t, lengths = raw.TensorListConcatV2(
                input_handle=l, element_shape=[-1, 3],
                leading_dims=np.zeros([0], np.int64), element_dtype=tfd)
            return [t, lengths], {x: v}
        yield OpCase(name, ["TensorListConcatV2", "TensorListSplit"], concat_v2)

        name = f"TensorListGather/{_dname(dt)}[4,2]"

        def gather(dt=dt, tfd=tfd, name=name):
            x, v = _ph("x", dt, (4, 2), key=name)
            l = raw.TensorListFromTensor(tensor=x, element_shape=[2])
            g = raw.TensorListGather(input_handle=l, indices=[3, 0, 0, 2],
                                     element_shape=[-1], element_dtype=tfd)
            return [g], {x: v}
        yield OpCase(name, ["TensorListGather"], gather)

        name = f"TensorListScatterV2/{_dname(dt)}[3,2]"

        def scatter(dt=dt, tfd=tfd, name=name):
            x, v = _ph("x", dt, (3, 2), key=name)
            l = raw.TensorListScatterV2(tensor=x, indices=[4, 0, 2], element_shape=[2],
                                        num_elements=6)
            l2 = raw.TensorListScatterIntoExistingList(input_handle=l, tensor=x[:2],
                                                       indices=[1, 6])
            return [raw.TensorListStack(input_handle=l2, element_shape=[2], element_dtype=tfd),
                    raw.TensorListLength(input_handle=l2)], {x: v}
        yield OpCase(name, ["TensorListScatterV2", "TensorListScatterIntoExistingList"], scatter)

    def concat_v1():
        x, v = _ph("x", np.float32, (2, 3, 2))
        l = raw.TensorListFromTensor(tensor=x, element_shape=[3, 2])
        t, lengths = raw.TensorListConcat(input_handle=l, element_dtype=tf.float32,
                                          element_shape=[3, 2])
        return [t, lengths], {x: v}
    yield OpCase("TensorListConcat/float32[2,3,2]", ["TensorListConcat"], concat_v1)

    def concat_unset():
        l = raw.TensorListReserve(element_shape=[-1, 2], num_elements=3,
                                  element_dtype=tf.float32)
        x, v = _ph("x", np.float32, (4, 2))
        l = raw.TensorListSetItem(input_handle=l, index=1, item=x)
        t, lengths = raw.TensorListConcatV2(
            input_handle=l, element_shape=[-1, 2],
            leading_dims=np.array([1, 9, 2], np.int64), element_dtype=tf.float32)
        return [t, lengths], {x: v}
    yield OpCase("TensorListConcatV2/float32/unset", ["TensorListConcatV2"], concat_unset)

    def concat_empty():
        l = raw.EmptyTensorList(element_shape=[-1, 2], max_num_elements=-1,
                                element_dtype=tf.int32)
        t, lengths = raw.TensorListConcatV2(
            input_handle=l, element_shape=[-1, 2],
            leading_dims=np.zeros([0], np.int64), element_dtype=tf.int32)
        return [t, lengths], {}
    yield OpCase("TensorListConcatV2/int32/empty", ["TensorListConcatV2"], concat_empty)

    def concat_scalar():
        l = raw.TensorListFromTensor(tensor=[1.0, 2.0], element_shape=-1)
        t, _ = raw.TensorListConcatV2(input_handle=l, element_shape=-1,
                                      leading_dims=np.zeros([0], np.int64),
                                      element_dtype=tf.float32)
        return [t], {}
    yield OpCase("TensorListConcatV2/float32/scalars", ["TensorListConcatV2"], concat_scalar,
                 expect_error="Concat saw a scalar shape at index 0")

    def concat_unset_short():
        l = raw.TensorListReserve(element_shape=[-1], num_elements=2,
                                  element_dtype=tf.float32)
        t, _ = raw.TensorListConcatV2(input_handle=l, element_shape=[-1],
                                      leading_dims=np.array([1], np.int64),
                                      element_dtype=tf.float32)
        return [t], {}
    yield OpCase("TensorListConcatV2/float32/short_leading_dims", ["TensorListConcatV2"],
                 concat_unset_short,
                 expect_error="List contains uninitialized tensor at index 1 but leading_dims")

    def gather_bad():
        l = raw.TensorListFromTensor(tensor=[[1.0], [2.0]], element_shape=-1)
        g = raw.TensorListGather(input_handle=l, indices=[2], element_shape=-1,
                                 element_dtype=tf.float32)
        return [g], {}
    yield OpCase("TensorListGather/float32/out_of_range", ["TensorListGather"], gather_bad,
                 expect_error="Trying to gather element 2 in a list with 2 elements")

    def gather_unset():
        l = raw.TensorListReserve(element_shape=[2], num_elements=3, element_dtype=tf.float64)
        l = raw.TensorListSetItem(input_handle=l, index=2, item=np.array([5.0, 6.0]))
        g = raw.TensorListGather(input_handle=l, indices=[2, 1], element_shape=[2],
                                 element_dtype=tf.float64)
        return [g], {}
    yield OpCase("TensorListGather/float64/unset", ["TensorListGather"], gather_unset)

    def scatter_v1():
        x, v = _ph("x", np.float32, (2, 3))
        l = raw.TensorListScatter(tensor=x, indices=[3, 1], element_shape=[-1])
        return [raw.TensorListStack(input_handle=l, element_shape=[3],
                                    element_dtype=tf.float32)], {x: v}
    yield OpCase("TensorListScatter/float32[2,3]", ["TensorListScatter"], scatter_v1)

    for idx, msg in (([-1], "must all be non-negative"), ([5], "Trying to scatter at index 5")):
        def scatter_bad(idx=idx):
            l = raw.TensorListScatterV2(tensor=[[1.0]], indices=idx, element_shape=[1],
                                        num_elements=3)
            return [raw.TensorListLength(input_handle=l)], {}
        yield OpCase(f"TensorListScatterV2/float32/bad_index{idx[0]}", ["TensorListScatterV2"],
                     scatter_bad, expect_error=msg)

    def split_bad():
        l = raw.TensorListSplit(tensor=[1.0, 2.0, 3.0], element_shape=[-1],
                                lengths=np.array([1, 1], np.int64))
        return [raw.TensorListLength(input_handle=l)], {}
    yield OpCase("TensorListSplit/float32/unused", ["TensorListSplit"], split_bad,
                 expect_error="Unused values in tensor. Length of tensor: 3 Values used: 2")

    def split_over():
        l = raw.TensorListSplit(tensor=[1.0, 2.0, 3.0], element_shape=[-1],
                                lengths=np.array([2, 2], np.int64))
        return [raw.TensorListLength(input_handle=l)], {}
    yield OpCase("TensorListSplit/float32/overrun", ["TensorListSplit"], split_over,
                 expect_error=r"Attempting to slice \[2, 4\] from tensor with length 3")

    for size in (1, 4, 0):
        def resize(size=size):
            x, v = _ph("x", np.int32, (3, 2), key="resize")
            l = raw.TensorListFromTensor(tensor=x, element_shape=[2])
            l = raw.TensorListResize(input_handle=l, size=size)
            return [raw.TensorListStack(input_handle=l, element_shape=[2],
                                        element_dtype=tf.int32)], {x: v}
        yield OpCase(f"TensorListResize/int32/size{size}", ["TensorListResize"], resize)

    def resize_bad():
        l = raw.TensorListFromTensor(tensor=[1.0], element_shape=-1)
        l = raw.TensorListResize(input_handle=l, size=-2)
        return [raw.TensorListLength(input_handle=l)], {}
    yield OpCase("TensorListResize/float32/negative", ["TensorListResize"], resize_bad,
                 expect_error="TensorListSlice expects size to be non-negative. Got: -2")

    def concat_lists():
        a = raw.TensorListFromTensor(tensor=[[1.0, 2.0]], element_shape=[2])
        b = raw.TensorListFromTensor(tensor=[[3.0, 4.0], [5.0, 6.0]], element_shape=[2])
        c = raw.TensorListConcatLists(input_a=a, input_b=b, element_dtype=tf.float32)
        return [raw.TensorListStack(input_handle=c, element_shape=[2],
                                    element_dtype=tf.float32)], {}
    yield OpCase("TensorListConcatLists/float32", ["TensorListConcatLists"], concat_lists)

    def concat_lists_bad():
        a = raw.TensorListFromTensor(tensor=[[1.0, 2.0]], element_shape=[2])
        b = raw.TensorListFromTensor(tensor=[[3.0, 4.0]], element_shape=[-1])
        c = raw.TensorListConcatLists(input_a=a, input_b=b, element_dtype=tf.float32)
        return [raw.TensorListLength(input_handle=c)], {}
    yield OpCase("TensorListConcatLists/float32/shapes", ["TensorListConcatLists"],
                 concat_lists_bad, expect_error="element shapes are not identical at index 0")

    def push_batch():
        x, v = _ph("x", np.float32, (2, 3))
        e = raw.EmptyTensorList(element_shape=[3], max_num_elements=-1,
                                element_dtype=tf.float32)
        f = raw.TensorListFromTensor(tensor=[[7.0, 8.0, 9.0]], element_shape=[3])
        ls = raw.TensorListPushBackBatch(input_handles=tf.stack([e, f]), tensor=x)
        # tf.unstack: dfg's StridedSlice does not copy variant elements.
        outs = [raw.TensorListStack(input_handle=h, element_shape=[3],
                                    element_dtype=tf.float32) for h in tf.unstack(ls)]
        return outs, {x: v}
    yield OpCase("TensorListPushBackBatch/float32[2,3]", ["TensorListPushBackBatch"], push_batch)

    def push_batch_bad():
        e = raw.EmptyTensorList(element_shape=[3], max_num_elements=-1,
                                element_dtype=tf.float32)
        ls = raw.TensorListPushBackBatch(input_handles=tf.stack([e]), tensor=[[1.0, 2.0]])
        return [raw.TensorListLength(input_handle=tf.unstack(ls)[0])], {}
    yield OpCase("TensorListPushBackBatch/float32/shape", ["TensorListPushBackBatch"],
                 push_batch_bad, expect_error="Tried to append a tensor with incompatible shape")


_RANDOM_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _exact(t):
    """bfloat16 as float32 (exact): .npy has no bfloat16."""
    tf = _tf()
    return tf.cast(t, tf.float32) if t.dtype == tf.bfloat16 else t


def _stateless_cases():
    tf = _tf()
    raw = tf.raw_ops
    for op in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"):
        for dt in _RANDOM_FLOATS:
            for shape, seed in (([3, 5], [7, -3]), ([257], [2**40, 5]), ([0, 4], [1, 2])):
                name = f"{op}/{dt}{shape}/seed{seed[0]}".replace(" ", "")

                def v1(op=op, dt=dt, shape=shape, seed=seed):
                    sd = tf.constant(seed, tf.int64 if abs(seed[0]) > 2**31 else tf.int32)
                    return [_exact(getattr(raw, op)(shape=shape, seed=sd,
                                                    dtype=tf.as_dtype(dt)))], {}
                yield OpCase(name, [op], v1)
                v2op = op + "V2"

                def v2(v2op=v2op, dt=dt, shape=shape, seed=seed):
                    key, counter, alg = raw.StatelessRandomGetKeyCounterAlg(
                        seed=tf.constant(seed, tf.int64))
                    out = getattr(raw, v2op)(shape=shape, key=key, counter=counter, alg=alg,
                                             dtype=tf.as_dtype(dt))
                    return [_exact(out), key, counter, alg], {}
                yield OpCase(f"{v2op}/{dt}{shape}/seed{seed[0]}".replace(" ", ""),
                             [v2op, "StatelessRandomGetKeyCounterAlg"], v2)

    def v2_explicit():
        key = tf.constant([0x123456789ABCDEF0], tf.uint64)
        counter = tf.constant([2**64 - 3, 17, 99], tf.uint64)
        outs = [raw.StatelessRandomUniformV2(shape=[9], key=key, counter=counter, alg=alg)
                for alg in (1, 3)]
        return outs, {}
    yield OpCase("StatelessRandomUniformV2/float32/explicit_key", ["StatelessRandomUniformV2"],
                 v2_explicit)

    def get_key_counter():
        k, c = raw.StatelessRandomGetKeyCounter(seed=tf.constant([-1, 2**33], tf.int64))
        k2, c2 = raw.StatelessRandomGetKeyCounter(seed=tf.constant([5, -6], tf.int32))
        return [k, c, k2, c2, raw.StatelessRandomGetAlg()], {}
    yield OpCase("StatelessRandomGetKeyCounter/int64", ["StatelessRandomGetKeyCounter",
                                                        "StatelessRandomGetAlg"], get_key_counter)

    for dt, lo, hi in (("int32", -5, 1000), ("int64", -2**40, 2**41), ("int32", -2**31, 2**31 - 1)):
        def uint(dt=dt, lo=lo, hi=hi):
            d = tf.as_dtype(dt)
            a = raw.StatelessRandomUniformInt(shape=[11], seed=[3, 4], minval=tf.constant(lo, d),
                                              maxval=tf.constant(hi, d))
            key, counter, alg = raw.StatelessRandomGetKeyCounterAlg(seed=[3, 4])
            b = raw.StatelessRandomUniformIntV2(shape=[11], key=key, counter=counter, alg=alg,
                                                minval=tf.constant(lo, d),
                                                maxval=tf.constant(hi, d))
            return [a, b], {}
        yield OpCase(f"StatelessRandomUniformInt/{dt}/{lo}", ["StatelessRandomUniformInt",
                                                              "StatelessRandomUniformIntV2"], uint)

    def uint_bad():
        return [raw.StatelessRandomUniformInt(shape=[2], seed=[3, 4], minval=5, maxval=5)], {}
    yield OpCase("StatelessRandomUniformInt/int32/empty_range", ["StatelessRandomUniformInt"],
                 uint_bad, expect_error="Need minval < maxval, got 5 >= 5")

    def uint_empty():
        return [raw.StatelessRandomUniformInt(shape=[0], seed=[3, 4], minval=5, maxval=5)], {}
    yield OpCase("StatelessRandomUniformInt/int32/empty", ["StatelessRandomUniformInt"],
                 uint_empty)

    for dt in ("int32", "int64", "uint32", "uint64"):
        def full(dt=dt):
            d = tf.as_dtype(dt)
            key, counter, alg = raw.StatelessRandomGetKeyCounterAlg(seed=[9, 8])
            return [raw.StatelessRandomUniformFullInt(shape=[7], seed=[9, 8], dtype=d),
                    raw.StatelessRandomUniformFullIntV2(shape=[7], key=key, counter=counter,
                                                        alg=alg, dtype=d)], {}
        yield OpCase(f"StatelessRandomUniformFullInt/{dt}", ["StatelessRandomUniformFullInt",
                                                            "StatelessRandomUniformFullIntV2"],
                     full)

    for dt in ("float32", "float64", "float16"):
        name = f"StatelessMultinomial/{dt}[3,5]"

        def multi(dt=dt, name=name):
            x, v = _ph("x", np.dtype(dt).type, (3, 5), key=name)
            return [raw.StatelessMultinomial(logits=x, num_samples=6, seed=[1, 2],
                                             output_dtype=tf.int32)], {x: v}
        yield OpCase(name, ["StatelessMultinomial"], multi)

    def seed_bad():
        sd = tf.compat.v1.placeholder(tf.int32, [None], name="seed")
        return [raw.StatelessRandomUniform(shape=[2], seed=sd)], {sd: np.array([1, 2, 3], np.int32)}
    yield OpCase("StatelessRandomUniform/float32/bad_seed", ["StatelessRandomUniform"], seed_bad,
                 expect_error=r"seed must have shape \[2\], not \[3\]")

    for key, counter, alg, msg in (([1, 2], [0, 0], 1, r"key must have shape \[1\]"),
                                   ([1], [0, 0], 2, "Unsupported algorithm id: 2")):
        def v2_bad(key=key, counter=counter, alg=alg):
            k = tf.compat.v1.placeholder(tf.uint64, [None], name="key")
            c = tf.compat.v1.placeholder(tf.uint64, [None], name="counter")
            out = raw.StatelessRandomNormalV2(shape=[2], key=k, counter=c, alg=alg)
            return [out], {k: np.array(key, np.uint64), c: np.array(counter, np.uint64)}
        yield OpCase(f"StatelessRandomNormalV2/float32/bad{len(key)}{len(counter)}{alg}",
                     ["StatelessRandomNormalV2"], v2_bad, expect_error=msg)


def _seeded_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt, lo, hi in (("int32", -7, 100), ("int64", -2**35, 2**36)):
        def uniform_int(dt=dt, lo=lo, hi=hi):
            d = tf.as_dtype(dt)
            return [raw.RandomUniformInt(shape=[3, 5], minval=tf.constant(lo, d),
                                         maxval=tf.constant(hi, d), seed=5, seed2=11)], {}
        yield OpCase(f"RandomUniformInt/{dt}[3,5]", ["RandomUniformInt"], uniform_int)

    for dt, shape in ((np.float32, (10,)), (np.int64, (7, 3)), (np.object_, (5, 2)),
                      (np.float64, (1, 4)), (np.int32, (0, 2)), (np.float32, (300,))):
        name = f"RandomShuffle/{_dname(dt)}{list(shape)}".replace(" ", "")

        def shuffle(dt=dt, shape=shape, name=name):
            x, xv = _ph("x", dt, shape, key=name)
            a = raw.RandomShuffle(value=x, seed=3, seed2=8)
            key, counter, alg = raw.StatelessRandomGetKeyCounterAlg(seed=[4, 5])
            b = raw.StatelessShuffle(value=x, key=key, counter=counter, alg=alg)
            return [a, b], {x: xv}
        yield OpCase(name, ["RandomShuffle", "StatelessShuffle"], shuffle)

    def uniform_int_bad():
        return [raw.RandomUniformInt(shape=[3], minval=4, maxval=2, seed=5, seed2=11)], {}
    yield OpCase("RandomUniformInt/int32/bad_range", ["RandomUniformInt"], uniform_int_bad,
                 expect_error="Need minval < maxval, got 4 >= 2")


def _c(v, dt=np.int64):
    return _tf().constant(np.array(v, dtype=dt))


_SPARSE_IDX = [[0, 1], [0, 3], [2, 0], [3, 2], [3, 3]]


def _sparse_basic_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt in _LIST_DTYPES:
        name = f"SparseToDense/{_dname(dt)}[4,5]"

        def to_dense(dt=dt, name=name):
            v, vals = _ph("v", dt, (5,), key=name)
            d, dv = _ph("d", dt, (), key=name + "/d")
            out = raw.SparseToDense(sparse_indices=_c(_SPARSE_IDX), output_shape=_c([4, 5]),
                                    sparse_values=v, default_value=d)
            return [out], {v: vals, d: dv}
        yield OpCase(name, ["SparseToDense"], to_dense)

        name = f"SparseFillEmptyRows/{_dname(dt)}[5,4]"

        def fill(dt=dt, name=name):
            v, vals = _ph("v", dt, (5,), key=name)
            d, dv = _ph("d", dt, (), key=name + "/d")
            idx = _c([[1, 0], [1, 3], [4, 1], [0, 2], [1, 1]])
            outs = raw.SparseFillEmptyRows(indices=idx, values=v, dense_shape=_c([6, 4]),
                                           default_value=d)
            return list(outs), {v: vals, d: dv}
        yield OpCase(name, ["SparseFillEmptyRows"], fill)

        name = f"SparseReorder/{_dname(dt)}[3,4,2]"

        def reorder(dt=dt, name=name):
            v, vals = _ph("v", dt, (4,), key=name)
            idx = _c([[2, 0, 1], [0, 3, 0], [2, 0, 0], [0, 1, 1]])
            outs = raw.SparseReorder(input_indices=idx, input_values=v, input_shape=_c([3, 4, 2]))
            return list(outs), {v: vals}
        yield OpCase(name, ["SparseReorder"], reorder)

    def to_dense_scalar():
        return [raw.SparseToDense(sparse_indices=_c([1, 3], np.int32), output_shape=_c([5], np.int32),
                                  sparse_values=_c(7.5, np.float32),
                                  default_value=_c(-1.0, np.float32))], {}
    yield OpCase("SparseToDense/float32/vector_scalar_value", ["SparseToDense"], to_dense_scalar)

    for kind, idx, msg in (("repeated", [[0, 1], [0, 1]], r"indices\[1\] = \[0,1\] is repeated"),
                           ("order", [[2, 1], [0, 1]], r"indices\[1\] = \[0,1\] is out of order"),
                           ("bounds", [[0, 1], [0, 9]],
                            r"indices\[1\] = \[0,9\] is out of bounds: need 0 <= index < \[4,5\]")):
        def to_dense_bad(idx=idx):
            return [raw.SparseToDense(sparse_indices=_c(idx), output_shape=_c([4, 5]),
                                      sparse_values=_c([1.0, 2.0], np.float32),
                                      default_value=_c(0.0, np.float32))], {}
        yield OpCase(f"SparseToDense/float32/{kind}", ["SparseToDense"],
                     to_dense_bad, expect_error=msg)

    def to_dense_unvalidated():
        return [raw.SparseToDense(sparse_indices=_c([[2, 1], [0, 1]]), output_shape=_c([4, 5]),
                                  sparse_values=_c([1.0, 2.0], np.float32),
                                  default_value=_c(0.0, np.float32), validate_indices=False)], {}
    yield OpCase("SparseToDense/float32/unvalidated", ["SparseToDense"], to_dense_unvalidated)

    def fill_empty():
        outs = raw.SparseFillEmptyRows(indices=tf.zeros([0, 2], tf.int64), values=_c([], np.float32),
                                       dense_shape=_c([3, 4]), default_value=_c(5.0, np.float32))
        return list(outs), {}
    yield OpCase("SparseFillEmptyRows/float32/no_values", ["SparseFillEmptyRows"], fill_empty)

    def fill_bad():
        outs = raw.SparseFillEmptyRows(indices=_c([[7, 0]]), values=_c([1.0], np.float32),
                                       dense_shape=_c([3, 4]), default_value=_c(5.0, np.float32))
        return list(outs), {}
    yield OpCase("SparseFillEmptyRows/float32/bad_row", ["SparseFillEmptyRows"], fill_bad,
                 expect_error=r"indices\(0, 0\) is invalid: 7 >= 3")

    for dt in (np.float32, np.float64):
        name = f"SparseFillEmptyRowsGrad/{_dname(dt)}"

        def fill_grad(dt=dt, name=name):
            g, gv = _ph("g", dt, (7,), key=name)
            return list(raw.SparseFillEmptyRowsGrad(reverse_index_map=_c([3, 0, 5, 1]),
                                                    grad_values=g)), {g: gv}
        yield OpCase(name, ["SparseFillEmptyRowsGrad"], fill_grad)

    for in_shape, target in (([4, 6], [3, -1]), ([4, 6], [2, 3, 4]), ([2, 3, 4], [24]),
                             ([4, 6], [5, -1]), ([4, 6], [-1, -1]), ([4, 6], [5, 5])):
        def reshape(in_shape=in_shape, target=target):
            idx = [[0, 1], [1, 5], [3, 0], [3, 5]] if len(in_shape) == 2 else [[0, 1, 3], [1, 2, 0]]
            return list(raw.SparseReshape(input_indices=_c(idx), input_shape=_c(in_shape),
                                          new_shape=_c(target))), {}
        err = None
        if target == [5, -1]:
            err = "requested shape requires a multiple of 5"
        elif target == [-1, -1]:
            err = "only one output dimension may be -1, not both 0 and 1"
        elif target == [5, 5]:
            err = "Input to reshape is a tensor with 24 dense values, but the requested shape has 25"
        yield OpCase(f"SparseReshape/{in_shape}->{target}".replace(" ", ""), ["SparseReshape"],
                     reshape, expect_error=err)

    for dt in (np.float32, np.float64, np.int32, np.int64, np.complex64):
        name = f"SparseTensorDenseAdd/{_dname(dt)}[4,5]"

        def dense_add(dt=dt, name=name):
            v, vals = _ph("v", dt, (5,), key=name)
            b, bv = _ph("b", dt, (4, 5), key=name + "/b")
            return [raw.SparseTensorDenseAdd(a_indices=_c(_SPARSE_IDX), a_values=v,
                                             a_shape=_c([4, 5]), b=b)], {v: vals, b: bv}
        yield OpCase(name, ["SparseTensorDenseAdd"], dense_add)


def _segment_cases():
    tf = _tf()
    raw = tf.raw_ops
    idx = [0, 2, 2, 5, 1, 0, 3, 4, 4, 4, 1, 2, 3, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2]
    ids = [0, 0, 0, 0, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 5, 5, 6, 6, 6]
    for op, dtypes in (("Sum", (np.float32, np.float64, np.int32, np.int64, np.float16)),
                       ("Mean", (np.float32, np.float64, np.float16)),
                       ("SqrtN", (np.float32, np.float64, np.float16))):
        for dt in dtypes:
            name = f"SparseSegment{op}/{_dname(dt)}[6,3]"

            def seg(op=op, dt=dt, name=name):
                x, xv = _ph("x", dt, (6, 3), key=name)
                a = getattr(raw, f"SparseSegment{op}")(data=x, indices=idx, segment_ids=ids)
                b = getattr(raw, f"SparseSegment{op}WithNumSegments")(
                    data=x, indices=_c(idx), segment_ids=ids, num_segments=9)
                return [a, b], {x: xv}
            yield OpCase(name, [f"SparseSegment{op}", f"SparseSegment{op}WithNumSegments"], seg,
                         rtol=1e-3 if dt == np.float16 else None)
            if dt in (np.float32, np.float64):
                gname = f"SparseSegment{op}Grad/{_dname(dt)}[7,3]"

                def grad(op=op, dt=dt, gname=gname):
                    g, gv = _ph("g", dt, (7, 3), key=gname)
                    return [getattr(raw, f"SparseSegment{op}Grad")(
                        grad=g, indices=idx, segment_ids=ids, output_dim0=8)], {g: gv}
                yield OpCase(gname, [f"SparseSegment{op}Grad"], grad)

    def seg_empty():
        return [raw.SparseSegmentSumWithNumSegments(data=tf.ones([4, 2]), indices=_c([], np.int32),
                                                    segment_ids=_c([], np.int32),
                                                    num_segments=3)], {}
    yield OpCase("SparseSegmentSumWithNumSegments/float32/empty",
                 ["SparseSegmentSumWithNumSegments"], seg_empty)

    for i2, s2, msg in (([0, 9], [0, 1], r"Bad: indices\[1\] == 9 out of range \[0, 4\)"),
                        ([0, 1], [1, 0], "segment ids are not increasing"),
                        ([0, 1], [0, 5], "segment ids must be < num_segments")):
        def seg_bad(i2=i2, s2=s2):
            return [raw.SparseSegmentMeanWithNumSegments(
                data=tf.ones([4, 2]), indices=_c(i2, np.int32), segment_ids=_c(s2, np.int32),
                num_segments=3)], {}
        yield OpCase(f"SparseSegmentMeanWithNumSegments/float32/bad{i2[1]}{s2[1]}",
                     ["SparseSegmentMeanWithNumSegments"], seg_bad, expect_error=msg)


def _sparse_math_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt in (np.float32, np.float64, np.int32, np.float16, np.complex64):
        for adj_a, adj_b in ((False, False), (True, False), (False, True), (True, True)):
            name = f"SparseTensorDenseMatMul/{_dname(dt)}/adj{int(adj_a)}{int(adj_b)}"

            def matmul(dt=dt, adj_a=adj_a, adj_b=adj_b, name=name):
                v, vals = _ph("v", dt, (5,), key=name)
                inner = 4 if adj_a else 5
                bshape = (3, inner) if adj_b else (inner, 3)
                b, bv = _ph("b", dt, bshape, key=name + "/b")
                idx = _c(_SPARSE_IDX, np.int32 if dt == np.int32 else np.int64)
                return [raw.SparseTensorDenseMatMul(a_indices=idx, a_values=v, a_shape=_c([4, 5]),
                                                    b=b, adjoint_a=adj_a, adjoint_b=adj_b)], \
                    {v: vals, b: bv}
            if adj_a or adj_b:
                if dt not in (np.float32, np.complex64):
                    continue
            yield OpCase(name, ["SparseTensorDenseMatMul"], matmul,
                         rtol=1e-2 if dt == np.float16 else None)

    def matmul_bad():
        return [raw.SparseTensorDenseMatMul(a_indices=_c([[0, 7]]), a_values=_c([1.0], np.float32),
                                            a_shape=_c([2, 3]), b=tf.ones([3, 2]))], {}
    yield OpCase("SparseTensorDenseMatMul/float32/bad_k", ["SparseTensorDenseMatMul"], matmul_bad,
                 expect_error=r"k \(7\) from index\[0,1\] out of bounds \(>=3\)")

    for op in ("Add", "Mul", "Div"):
        for dt in (np.float32, np.float64, np.int64):
            for dshape in ((4, 5), (5,), (1, 5), (4, 1), ()):
                name = f"SparseDenseCwise{op}/{_dname(dt)}/dense{list(dshape)}".replace(" ", "")
                if op == "Div" and dt == np.int64:
                    continue

                def cwise(op=op, dt=dt, dshape=dshape, name=name):
                    v, vals = _ph("v", dt, (5,), key=name)
                    d, dv = _ph("d", dt, dshape, "nonzero", key=name + "/d")
                    return [getattr(raw, f"SparseDenseCwise{op}")(
                        sp_indices=_c(_SPARSE_IDX), sp_values=v, sp_shape=_c([4, 5]),
                        dense=d)], {v: vals, d: dv}
                yield OpCase(name, [f"SparseDenseCwise{op}"], cwise)

    idx3 = [[0, 0, 1], [0, 2, 0], [1, 0, 0], [1, 0, 3], [1, 2, 2], [2, 1, 1]]
    for op in ("Sum", "Max"):
        for dt in (np.float32, np.float64, np.int32, np.int64):
            for axes, keep in (([1], False), ([0, 2], True), ([-1], False), ([0, 1, 2], False),
                               ([2], True)):
                name = f"SparseReduce{op}/{_dname(dt)}/axes{axes}/keep{int(keep)}".replace(" ", "")

                def red(op=op, dt=dt, axes=axes, keep=keep, name=name):
                    v, vals = _ph("v", dt, (6,), key=name)
                    dense = getattr(raw, f"SparseReduce{op}")(
                        input_indices=_c(idx3), input_values=v, input_shape=_c([3, 3, 4]),
                        reduction_axes=axes, keep_dims=keep)
                    sp = getattr(raw, f"SparseReduce{op}Sparse")(
                        input_indices=_c(idx3), input_values=v, input_shape=_c([3, 3, 4]),
                        reduction_axes=axes, keep_dims=keep)
                    return [dense] + list(sp), {v: vals}
                yield OpCase(name, [f"SparseReduce{op}", f"SparseReduce{op}Sparse"], red)

    def red_bad():
        return [raw.SparseReduceSum(input_indices=_c(idx3), input_values=tf.ones([6]),
                                    input_shape=_c([3, 3, 4]), reduction_axes=[3])], {}
    yield OpCase("SparseReduceSum/float32/bad_axis", ["SparseReduceSum"], red_bad,
                 expect_error="Invalid reduction dimension 3, for input with 3 dimensions")

    for dt in (np.float32, np.float64, np.float16):
        name = f"SparseSoftmax/{_dname(dt)}[3,3,4]"

        def softmax(dt=dt, name=name):
            v, vals = _ph("v", dt, (6,), key=name)
            return [raw.SparseSoftmax(sp_indices=_c(idx3), sp_values=v,
                                      sp_shape=_c([3, 3, 4]))], {v: vals}
        yield OpCase(name, ["SparseSoftmax"], softmax, rtol=1e-3 if dt == np.float16 else None)

    b_idx = [[0, 1], [1, 1], [2, 0], [3, 3], [3, 4]]
    for dt in (np.float32, np.float64, np.int32, np.int64, np.complex64):
        for thresh in (0, 0.5):
            name = f"SparseAdd/{_dname(dt)}/thresh{thresh}"

            def add(dt=dt, thresh=thresh, name=name):
                a, av = _ph("a", dt, (5,), key=name)
                b, bv = _ph("b", dt, (5,), key=name + "/b")
                bv = bv.copy()
                bv[0] = -av[0]  # a cancelled entry
                tr = _c(thresh, np.float32 if dt in (np.float32, np.complex64) else
                        (np.float64 if dt == np.float64 else dt))
                return list(raw.SparseAdd(a_indices=_c(_SPARSE_IDX), a_values=a, a_shape=_c([4, 5]),
                                          b_indices=_c(b_idx), b_values=b, b_shape=_c([4, 5]),
                                          thresh=tr)), {a: av, b: bv}
            yield OpCase(name, ["SparseAdd"], add)
    for op in ("Maximum", "Minimum"):
        for dt in (np.float32, np.int32, np.int64, np.float64):
            name = f"SparseSparse{op}/{_dname(dt)}"

            def mm(op=op, dt=dt, name=name):
                a, av = _ph("a", dt, (5,), key=name)
                b, bv = _ph("b", dt, (5,), key=name + "/b")
                return list(getattr(raw, f"SparseSparse{op}")(
                    a_indices=_c(_SPARSE_IDX), a_values=a, a_shape=_c([4, 5]),
                    b_indices=_c(b_idx), b_values=b, b_shape=_c([4, 5]))), {a: av, b: bv}
            yield OpCase(name, [f"SparseSparse{op}"], mm)

    def mm_bad():
        return list(raw.SparseSparseMaximum(
            a_indices=_c(_SPARSE_IDX), a_values=tf.ones([5]), a_shape=_c([4, 5]),
            b_indices=_c(b_idx), b_values=tf.ones([5]), b_shape=_c([4, 6]))), {}
    yield OpCase("SparseSparseMaximum/float32/shapes", ["SparseSparseMaximum"], mm_bad,
                 expect_error="Operands' shapes do not match")

    for dt in _LIST_DTYPES:
        for start, size in (([0, 1], [3, 3]), ([2, 0], [9, 9]), ([1, 4], [1, 1])):
            name = f"SparseSlice/{_dname(dt)}/{start}{size}".replace(" ", "")

            def sl(dt=dt, start=start, size=size, name=name):
                v, vals = _ph("v", dt, (5,), key=name)
                return list(raw.SparseSlice(indices=_c(_SPARSE_IDX), values=v, shape=_c([4, 5]),
                                            start=_c(start), size=_c(size))), {v: vals}
            yield OpCase(name, ["SparseSlice"], sl)
            if dt not in (np.float32,):
                break
        for cd in (0, 1, -1):
            name = f"SparseConcat/{_dname(dt)}/dim{cd}"

            def cc(dt=dt, cd=cd, name=name):
                v, vals = _ph("v", dt, (5,), key=name)
                w, wv = _ph("w", dt, (3,), key=name + "/w")
                shapes = [_c([4, 5]), _c([4, 5])]
                return list(raw.SparseConcat(indices=[_c(_SPARSE_IDX), _c([[0, 0], [1, 4], [3, 1]])],
                                             values=[v, w], shapes=shapes, concat_dim=cd)), \
                    {v: vals, w: wv}
            yield OpCase(name, ["SparseConcat"], cc)
            if dt not in (np.float32,):
                break


def _ragged_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt, starts, limits, deltas in (
            (np.int32, [0, 5, 2, -3], [4, 5, 9, 3], [1, 2, 3, 2]),
            (np.int64, 2, [10, -4, 7], [3, -2, -1]),
            (np.float32, [0.5, 1.0], 3.7, [0.3, 0.7]),
            (np.float64, [0.1], [2.0], 0.25)):
        for splits in (np.int32, np.int64):
            def rr(dt=dt, starts=starts, limits=limits, deltas=deltas, splits=splits):
                return list(raw.RaggedRange(starts=_c(starts, dt), limits=_c(limits, dt),
                                            deltas=_c(deltas, dt),
                                            Tsplits=tf.as_dtype(splits))), {}
            yield OpCase(f"RaggedRange/{_dname(dt)}/splits_{_dname(splits)}", ["RaggedRange"], rr)

    def rr_bad():
        return list(raw.RaggedRange(starts=_c([1, 2], np.int32), limits=_c([3, 4], np.int32),
                                    deltas=_c([1, 0], np.int32))), {}
    yield OpCase("RaggedRange/int32/zero_delta", ["RaggedRange"], rr_bad,
                 expect_error="Requires delta != 0")

    splits2 = [[0, 2, 2, 5], [0, 1, 3, 3, 4, 7]]
    for dt in _LIST_DTYPES:
        name = f"RaggedGather/{_dname(dt)}/rank2"

        def rg(dt=dt, name=name):
            v, vals = _ph("v", dt, (7, 2), key=name)
            outs = raw.RaggedGather(params_nested_splits=[_c(s) for s in splits2],
                                    params_dense_values=v, indices=_c([[2, 0], [1, 2], [0, 0]],
                                                                      np.int32),
                                    OUTPUT_RAGGED_RANK=3)
            return list(outs[0]) + [outs[1]], {v: vals}
        yield OpCase(name, ["RaggedGather"], rg)

    def rg1():
        outs = raw.RaggedGather(params_nested_splits=[_c([0, 3, 3, 5], np.int32)],
                                params_dense_values=_c([1.0, 2.0, 3.0, 4.0, 5.0], np.float32),
                                indices=_c([2, 1, 0, 2]), OUTPUT_RAGGED_RANK=1)
        return list(outs[0]) + [outs[1]], {}
    yield OpCase("RaggedGather/float32/rank1", ["RaggedGather"], rg1)

    def rg_bad():
        outs = raw.RaggedGather(params_nested_splits=[_c([0, 3, 5])],
                                params_dense_values=_c([1.0, 2.0, 3.0, 4.0, 5.0], np.float32),
                                indices=_c([2]), OUTPUT_RAGGED_RANK=1)
        return list(outs[0]) + [outs[1]], {}
    yield OpCase("RaggedGather/float32/bad_index", ["RaggedGather"], rg_bad,
                 expect_error=r"indices\[0\] = 2 is not in \[0, 2\)")

    for dt in (np.float32, np.int64, np.object_):
        name = f"RaggedFillEmptyRows/{_dname(dt)}"

        def rf(dt=dt, name=name):
            v, vals = _ph("v", dt, (5,), key=name)
            d, dv = _ph("d", dt, (), key=name + "/d")
            return list(raw.RaggedFillEmptyRows(value_rowids=_c([1, 1, 4, 4, 4]), values=v,
                                                nrows=_c(6), default_value=d)), {v: vals, d: dv}
        yield OpCase(name, ["RaggedFillEmptyRows"], rf)

    for batched in (False, True):
        for rank in (1, 2):
            name = f"RaggedTensorToVariant/rank{rank}/batched{int(batched)}"

            def rv(batched=batched, rank=rank, name=name):
                v, vals = _ph("v", np.float32, (7, 2), key=name)
                splits = [_c(s) for s in splits2[2 - rank:]] if rank == 2 else [_c([0, 3, 3, 7])]
                enc = raw.RaggedTensorToVariant(rt_nested_splits=splits, rt_dense_values=v,
                                                batched_input=batched)
                out_rank = rank if batched else rank
                dec = raw.RaggedTensorFromVariant(
                    encoded_ragged=enc, input_ragged_rank=rank - 1 if batched else rank,
                    output_ragged_rank=out_rank, Tvalues=tf.float32)
                return list(dec[0]) + [dec[1]], {v: vals}
            yield OpCase(name, ["RaggedTensorToVariant", "RaggedTensorFromVariant"], rv)

    def rv0():
        enc = raw.RaggedTensorToVariant(rt_nested_splits=[], rt_dense_values=_c([[1, 2], [3, 4], [5, 6]], np.int32),
                                        batched_input=True)
        dec = raw.RaggedTensorFromVariant(encoded_ragged=enc, input_ragged_rank=0,
                                          output_ragged_rank=1, Tvalues=tf.int32)
        return list(dec[0]) + [dec[1]], {}
    yield OpCase("RaggedTensorToVariant/rank0/batched", ["RaggedTensorToVariant",
                                                          "RaggedTensorFromVariant"], rv0)


def cases():
    yield from _list_cases()
    yield from _stateless_cases()
    yield from _seeded_cases()
    yield from _sparse_basic_cases()
    yield from _segment_cases()
    yield from _sparse_math_cases()
    yield from _ragged_cases()
