"""Stateful and structural ops dfg has kernels for: lookup tables, stacks,
TensorArrays, TensorLists, variables' bookkeeping, segment and stitch ops,
string regex ops, function calls."""
import numpy as np

from op_case import OpCase, data


def _case(name, ops, body, **kw):
    """body(tf) -> (fetches, feeds), imported lazily (the TF venv only)."""
    def build():
        import tensorflow as tf  # pylint: disable=import-outside-toplevel
        return body(tf)
    return OpCase(name, ops, build, **kw)


def _hash_table_v2(tf):
    keys = tf.constant(["a", "b", "c"])
    table = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64, shared_name="t")
    init = tf.raw_ops.InitializeTableV2(table_handle=table, keys=keys,
                                        values=tf.constant([1, 2, 3], tf.int64))
    q = tf.compat.v1.placeholder(tf.string, [5], name="q")
    with tf.control_dependencies([init]):
        found = tf.raw_ops.LookupTableFindV2(table_handle=table, keys=q,
                                             default_value=tf.constant(-1, tf.int64))
        size = tf.raw_ops.LookupTableSizeV2(table_handle=table)
        k, v = tf.raw_ops.LookupTableExportV2(table_handle=table, Tkeys=tf.string,
                                              Tvalues=tf.int64)
    del k  # the hash map's order: compare the values sorted
    return [tf.identity(found, name="found"), tf.identity(size, name="size"),
            tf.sort(v, name="values")], {q: np.array([b"a", b"x", b"c", b"b", b""], object)}


def _hash_table_ref(tf):
    table = tf.raw_ops.HashTable(key_dtype=tf.int64, value_dtype=tf.float32)
    init = tf.raw_ops.InitializeTable(table_handle=table, keys=tf.constant([3, 1], tf.int64),
                                      values=tf.constant([0.5, 1.5]))
    q = tf.compat.v1.placeholder(tf.int64, [4], name="q")
    with tf.control_dependencies([init]):
        found = tf.raw_ops.LookupTableFind(table_handle=table, keys=q,
                                           default_value=tf.constant(-2.0))
        size = tf.raw_ops.LookupTableSize(table_handle=table)
        _, v = tf.raw_ops.LookupTableExport(table_handle=table, Tkeys=tf.int64,
                                            Tvalues=tf.float32)
    return [tf.identity(found, name="found"), tf.identity(size, name="size"),
            tf.sort(v, name="values")], {q: np.array([1, 2, 3, 0], np.int64)}


def _table_import(tf):
    table = tf.raw_ops.HashTable(key_dtype=tf.string, value_dtype=tf.int64)
    imp = tf.raw_ops.LookupTableImport(table_handle=table, keys=tf.constant(["x", "y"]),
                                       values=tf.constant([7, 8], tf.int64))
    q = tf.compat.v1.placeholder(tf.string, [3], name="q")
    with tf.control_dependencies([imp]):
        found = tf.raw_ops.LookupTableFind(table_handle=table, keys=q,
                                           default_value=tf.constant(0, tf.int64))
    return [tf.identity(found, name="found")], {q: np.array([b"y", b"z", b"x"], object)}


def _stack(tf):
    x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
    h = tf.raw_ops.StackV2(max_size=tf.constant(-1), elem_type=tf.float32, stack_name="s")
    p1 = tf.raw_ops.StackPushV2(handle=h, elem=x)
    with tf.control_dependencies([p1]):
        p2 = tf.raw_ops.StackPushV2(handle=h, elem=x * 2.0)
    with tf.control_dependencies([p2]):
        a = tf.raw_ops.StackPopV2(handle=h, elem_type=tf.float32)
    with tf.control_dependencies([a]):
        b = tf.raw_ops.StackPopV2(handle=h, elem_type=tf.float32)
    with tf.control_dependencies([b]):
        close = tf.raw_ops.StackCloseV2(handle=h)
    with tf.control_dependencies([close]):
        out = tf.identity(a - b, name="diff")
    return [out, tf.identity(b, name="b")], {x: data("stack", np.float32, (2, 3))}


def _tensor_array(tf):
    x = tf.compat.v1.placeholder(tf.float32, [4, 3], name="x")
    h, flow = tf.raw_ops.TensorArrayV3(size=5, dtype=tf.float32, element_shape=[3],
                                       clear_after_read=False)
    flow = tf.raw_ops.TensorArrayScatterV3(handle=h, indices=tf.range(4), value=x, flow_in=flow)
    flow = tf.raw_ops.TensorArrayWriteV3(handle=h, index=4, value=tf.ones([3]), flow_in=flow)
    r = tf.raw_ops.TensorArrayReadV3(handle=h, index=2, flow_in=flow, dtype=tf.float32)
    g = tf.raw_ops.TensorArrayGatherV3(handle=h, indices=[3, 0], flow_in=flow,
                                       dtype=tf.float32, element_shape=[3])
    c, lengths = tf.raw_ops.TensorArrayConcatV3(handle=h, flow_in=flow, dtype=tf.float32)
    n = tf.raw_ops.TensorArraySizeV3(handle=h, flow_in=flow)
    gh, gflow = tf.raw_ops.TensorArrayGradV3(handle=h, flow_in=flow, source="gradients")
    gflow = tf.raw_ops.TensorArraySplitV3(handle=gh, value=tf.reshape(tf.concat(
                                              [x, x[:1]], 0), [15]),
                                          lengths=tf.constant([3, 3, 3, 3, 3], tf.int64),
                                          flow_in=gflow)
    gr = tf.raw_ops.TensorArrayReadV3(handle=gh, index=3, flow_in=gflow, dtype=tf.float32)
    with tf.control_dependencies([r, g, c, n, gr]):
        close = tf.raw_ops.TensorArrayCloseV3(handle=h)
    with tf.control_dependencies([close]):
        outs = [tf.identity(t, name=f"out{i}") for i, t in enumerate([r, g, c, lengths, n, gr])]
    return outs, {x: data("ta", np.float32, (4, 3))}


def _tensor_list(tf):
    x = tf.compat.v1.placeholder(tf.float32, [3, 2], name="x")
    lst = tf.raw_ops.TensorListFromTensor(tensor=x, element_shape=tf.constant([2]))
    lst = tf.raw_ops.TensorListPushBack(input_handle=lst, tensor=tf.constant([9.0, 8.0]))
    item = tf.raw_ops.TensorListGetItem(input_handle=lst, index=1, element_shape=[2],
                                        element_dtype=tf.float32)
    n = tf.raw_ops.TensorListLength(input_handle=lst)
    shape = tf.raw_ops.TensorListElementShape(input_handle=lst, shape_type=tf.int32)
    rest, last = tf.raw_ops.TensorListPopBack(input_handle=lst, element_shape=[2],
                                              element_dtype=tf.float32)
    empty = tf.raw_ops.EmptyTensorList(element_shape=[2], max_num_elements=-1,
                                       element_dtype=tf.float32)
    n_empty = tf.raw_ops.TensorListLength(input_handle=empty)
    stacked = tf.raw_ops.TensorListStack(input_handle=rest, element_dtype=tf.float32,
                                         element_shape=[2])
    outs = [item, n, shape, last, n_empty, stacked]
    return [tf.identity(t, name=f"out{i}") for i, t in enumerate(outs)], {
        x: data("tl", np.float32, (3, 2))}


def _variables(tf):
    x = tf.compat.v1.placeholder(tf.float32, [2, 2], name="x")
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2, 2], shared_name="v")
    before = tf.raw_ops.VarIsInitializedOp(resource=h)
    with tf.control_dependencies([before]):
        a = tf.raw_ops.AssignVariableOp(resource=h, value=x)
    with tf.control_dependencies([a]):
        add = tf.raw_ops.AssignAddVariableOp(resource=h, value=tf.ones([2, 2]))
    with tf.control_dependencies([add]):
        sub = tf.raw_ops.AssignSubVariableOp(resource=h, value=x * 0.5)
    with tf.control_dependencies([sub]):
        read = tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32)
        after = tf.raw_ops.VarIsInitializedOp(resource=h)
    with tf.control_dependencies([read, after]):
        destroy = tf.raw_ops.DestroyResourceOp(resource=h, ignore_lookup_error=True)
    with tf.control_dependencies([destroy]):
        outs = [tf.identity(t, name=f"out{i}") for i, t in enumerate([before, read, after])]
    return outs, {x: data("vars", np.float32, (2, 2))}


def _ref_variables(tf):
    x = tf.compat.v1.placeholder(tf.int32, [3], name="x")
    v = tf.raw_ops.VariableV2(shape=[3], dtype=tf.int32)
    before = tf.raw_ops.IsVariableInitialized(ref=v)
    with tf.control_dependencies([before]):
        a = tf.raw_ops.Assign(ref=v, value=x)
    s = tf.raw_ops.AssignSub(ref=a, value=tf.constant([1, 2, 3]))
    return [tf.identity(before, name="before"), tf.identity(s, name="after")], {
        x: np.array([5, 6, 7], np.int32)}


def _segments(tf):
    x = tf.compat.v1.placeholder(tf.float32, [5, 2], name="x")
    seg = tf.constant([0, 0, 1, 3, 3])
    s = tf.raw_ops.SegmentSum(data=x, segment_ids=seg)
    u = tf.raw_ops.UnsortedSegmentSum(data=x, segment_ids=tf.constant([2, 0, 2, -1, 1]),
                                      num_segments=4)
    st = tf.raw_ops.DynamicStitch(indices=[tf.constant([0, 2]), tf.constant([1, 3])],
                                  data=[x[:2], x[2:4]])
    pst = tf.raw_ops.ParallelDynamicStitch(indices=[tf.constant([1]), tf.constant([0])],
                                           data=[x[:1], x[1:2]])
    perm = tf.raw_ops.InvertPermutation(x=tf.constant([2, 0, 3, 1]))
    outs = [s, u, st, pst, perm]
    return [tf.identity(t, name=f"out{i}") for i, t in enumerate(outs)], {
        x: data("seg", np.float32, (5, 2))}


def _shape_grads(tf):
    a = tf.compat.v1.placeholder(tf.int32, [3], name="a")
    r0, r1 = tf.raw_ops.BroadcastGradientArgs(s0=a, s1=tf.constant([1, 4, 1]))
    off = tf.raw_ops.ConcatOffset(concat_dim=1, shape=[tf.constant([2, 3, 5]),
                                                       tf.constant([2, 4, 5])])
    g = tf.raw_ops.StridedSliceGrad(shape=tf.constant([4, 3]), begin=[1, 0], end=[3, 3],
                                    strides=[1, 2], dy=tf.ones([2, 2]))
    outs = [r0, r1, off[0], off[1], g]
    return [tf.identity(t, name=f"out{i}") for i, t in enumerate(outs)], {
        a: np.array([2, 4, 3], np.int32)}


def _regex(tf):
    s = tf.compat.v1.placeholder(tf.string, [4], name="s")
    outs = [tf.raw_ops.RegexFullMatch(input=s, pattern=tf.constant("[a-z]+")),
            tf.raw_ops.StaticRegexFullMatch(input=s, pattern="[A-Za-z ]*"),
            tf.raw_ops.RegexReplace(input=s, pattern=tf.constant("[aeiou]"),
                                    rewrite=tf.constant("_")),
            tf.raw_ops.StaticRegexReplace(input=s, pattern="^ +| +$", rewrite="",
                                          replace_global=True),
            tf.raw_ops.StringJoin(inputs=[s, tf.constant("!")], separator="-")]
    return [tf.identity(t, name=f"out{i}") for i, t in enumerate(outs)], {
        s: np.array([b"abc", b" Hello World ", b"x1", b""], object)}


def _sharded(tf):
    outs = [tf.raw_ops.ShardedFilename(basename="/tmp/ckpt", shard=1, num_shards=3),
            tf.raw_ops.ShardedFilespec(basename="/tmp/ckpt", num_shards=3)]
    return [tf.identity(t, name=f"out{i}") for i, t in enumerate(outs)], {}


def _assert(tf):
    x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
    check = tf.raw_ops.Assert(condition=tf.reduce_all(x > 0), data=[x], summarize=3)
    with tf.control_dependencies([check]):
        y = tf.identity(x, name="y")
    return [y], {x: np.array([1.0, 2.0], np.float32)}


def _assert_fails(tf):
    x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
    check = tf.raw_ops.Assert(condition=tf.reduce_all(x > 0), data=[tf.constant("x:"), x],
                              summarize=3, name="positive")
    with tf.control_dependencies([check]):
        y = tf.identity(x, name="y")
    return [y], {x: np.array([1.0, -2.0], np.float32)}


def _parse_single_example(tf):
    from tensorflow.core.example import example_pb2  # pylint: disable=import-outside-toplevel
    ex = example_pb2.Example()
    ex.features.feature["a"].float_list.value.extend([1.5, 2.5])
    ex.features.feature["b"].bytes_list.value.append(b"hi")
    s = tf.compat.v1.placeholder(tf.string, [], name="s")
    out = tf.raw_ops.ParseSingleExample(
        serialized=s, dense_defaults=[tf.constant([0.0, 0.0]), tf.constant("")],
        num_sparse=0, sparse_keys=[], dense_keys=["a", "b"], sparse_types=[],
        dense_shapes=[[2], []])
    dense = out[3]
    return [tf.identity(t, name=f"out{i}") for i, t in enumerate(dense)], {
        s: np.array(ex.SerializeToString(), object)}


def _parse_example(tf):
    from tensorflow.core.example import example_pb2  # pylint: disable=import-outside-toplevel
    exs = []
    for i in range(3):
        ex = example_pb2.Example()
        # No trailing zero byte: .npy keeps strings as NUL-padded bytes.
        ex.features.feature["v"].int64_list.value.extend(range(1, i + 2))
        ex.features.feature["d"].float_list.value.append(i * 0.5 + 0.25)
        exs.append(ex.SerializeToString())
    s = tf.compat.v1.placeholder(tf.string, [3], name="s")
    out = tf.raw_ops.ParseExample(
        serialized=s, names=tf.constant([], tf.string), sparse_keys=[tf.constant("v")],
        dense_keys=[tf.constant("d")], dense_defaults=[tf.constant([0.0])],
        sparse_types=[tf.int64], dense_shapes=[[1]])
    outs = [out[0][0], out[1][0], out[2][0], out[3][0]]
    return [tf.identity(t, name=f"out{i}") for i, t in enumerate(outs)], {
        s: np.array(exs, object)}


def cases():
    yield _case("HashTableV2/string-int64", ["HashTableV2", "InitializeTableV2",
                                             "LookupTableFindV2", "LookupTableSizeV2",
                                             "LookupTableExportV2"], _hash_table_v2)
    yield _case("HashTable/int64-float", ["HashTable", "InitializeTable", "LookupTableFind",
                                          "LookupTableSize", "LookupTableExport"],
                _hash_table_ref)
    yield _case("LookupTableImport/string-int64", ["LookupTableImport"], _table_import)
    yield _case("StackV2/float32", ["StackV2", "StackPushV2", "StackPopV2", "StackCloseV2"],
                _stack)
    yield _case("TensorArrayV3/float32", [
        "TensorArrayV3", "TensorArrayScatterV3", "TensorArrayWriteV3", "TensorArrayReadV3",
        "TensorArrayGatherV3", "TensorArrayConcatV3", "TensorArraySizeV3",
        "TensorArrayGradV3", "TensorArraySplitV3", "TensorArrayCloseV3"], _tensor_array)
    yield _case("TensorListFromTensor/float32", [
        "TensorListFromTensor", "TensorListPushBack", "TensorListGetItem", "TensorListLength",
        "TensorListElementShape", "TensorListPopBack", "EmptyTensorList"], _tensor_list)
    yield _case("VarHandleOp/assign-add-sub", [
        "VarIsInitializedOp", "AssignAddVariableOp", "AssignSubVariableOp",
        "DestroyResourceOp"], _variables)
    yield _case("VariableV2/assign-sub", ["IsVariableInitialized", "AssignSub"],
                _ref_variables)
    yield _case("SegmentSum/float32", ["SegmentSum", "UnsortedSegmentSum", "DynamicStitch",
                                       "ParallelDynamicStitch", "InvertPermutation"],
                _segments)
    yield _case("BroadcastGradientArgs/int32", ["BroadcastGradientArgs", "ConcatOffset",
                                                "StridedSliceGrad"], _shape_grads)
    yield _case("RegexFullMatch/string", ["RegexFullMatch", "StaticRegexFullMatch",
                                          "RegexReplace", "StaticRegexReplace", "StringJoin"],
                _regex)
    yield _case("ShardedFilename/string", ["ShardedFilename", "ShardedFilespec"], _sharded)
    yield _case("Assert/holds", ["Assert"], _assert)
    yield _case("Assert/fails", ["Assert"], _assert_fails,
                expect_error=r"assertion failed: \[x:\] \[1 -2\]")
    yield _case("ParseSingleExample/dense", ["ParseSingleExample"], _parse_single_example)
    yield _case("ParseExample/sparse-dense", ["ParseExample"], _parse_example)
