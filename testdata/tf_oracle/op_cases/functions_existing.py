"""Function calls, control flow v2 and checkpoint I/O ops dfg has kernels
for: PartitionedCall, StatefulPartitionedCall, Case,
SaveV2/RestoreV2/MergeV2Checkpoints, InitializeTableFromTextFileV2."""
import os
import tempfile

import numpy as np

from op_case import OpCase, data

TMP = tempfile.mkdtemp(prefix="dfg-opcases-")


def _case(name, ops, body, **kw):
    def build():
        import tensorflow as tf  # pylint: disable=import-outside-toplevel
        return body(tf)
    return OpCase(name, ops, build, **kw)


def _calls(tf):
    @tf.function(autograph=False)
    def pure(a):
        return tf.tanh(a) * 2.0

    x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
    y = pure(x)  # a stateless function: PartitionedCall
    v = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2, 3], shared_name="fv")
    init = tf.raw_ops.AssignVariableOp(resource=v, value=x)

    @tf.function(autograph=False)
    def reads(h, a):
        return tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32) + a

    with tf.control_dependencies([init]):
        z = reads(v, y)  # reads a resource: StatefulPartitionedCall
    return [tf.identity(y, name="y"), tf.identity(z, name="z")], {
        x: data("calls", np.float32, (2, 3))}


def _case_op(tf):
    fns = [tf.function(f, autograph=False).get_concrete_function(
        tf.TensorSpec([3], tf.float32)) for f in
        (lambda a: a + 1.0, lambda a: a * a, lambda a: -a)]
    i = tf.compat.v1.placeholder(tf.int32, [], name="i")
    x = tf.compat.v1.placeholder(tf.float32, [3], name="x")
    out = tf.raw_ops.Case(branch_index=i, input=[x], Tout=[tf.float32], branches=fns)
    return [tf.identity(out[0], name="y")], {i: np.array(1, np.int32),
                                              x: data("case", np.float32, (3,))}


def _save_restore(tf):
    x = tf.compat.v1.placeholder(tf.float32, [2, 2], name="x")
    prefix = os.path.join(TMP, "ckpt")
    tmp = tf.constant(prefix + "_temp/part-00000-of-00001")
    save = tf.raw_ops.SaveV2(prefix=tmp, tensor_names=["a", "b"], shape_and_slices=["", ""],
                             tensors=[x, tf.constant([1, 2, 3], tf.int64)])
    with tf.control_dependencies([save]):
        merge = tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=[tmp],
                                              destination_prefix=tf.constant(prefix))
    with tf.control_dependencies([merge]):
        a, b = tf.raw_ops.RestoreV2(prefix=tf.constant(prefix), tensor_names=["a", "b"],
                                    shape_and_slices=["", ""], dtypes=[tf.float32, tf.int64])
    return [tf.identity(a, name="a"), tf.identity(b, name="b")], {
        x: data("save", np.float32, (2, 2))}


def _text_table(tf):
    vocab = os.path.join(TMP, "vocab.txt")
    with open(vocab, "w", encoding="utf-8") as f:
        f.write("apple\nbanana\ncherry\n")
    table = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64,
                                   shared_name="vocab")
    init = tf.raw_ops.InitializeTableFromTextFileV2(table_handle=table, filename=vocab,
                                                    key_index=-2, value_index=-1)
    q = tf.compat.v1.placeholder(tf.string, [3], name="q")
    with tf.control_dependencies([init]):
        found = tf.raw_ops.LookupTableFindV2(table_handle=table, keys=q,
                                             default_value=tf.constant(-1, tf.int64))
    return [tf.identity(found, name="found")], {
        q: np.array([b"cherry", b"kiwi", b"apple"], object)}


def _text_table_ref(tf):
    vocab = os.path.join(TMP, "vocab_ref.txt")
    with open(vocab, "w", encoding="utf-8") as f:
        f.write("7\tseven\n3\tthree\n")
    table = tf.raw_ops.HashTable(key_dtype=tf.int64, value_dtype=tf.string)
    init = tf.raw_ops.InitializeTableFromTextFile(table_handle=table, filename=vocab,
                                                  key_index=0, value_index=1)
    q = tf.compat.v1.placeholder(tf.int64, [3], name="q")
    with tf.control_dependencies([init]):
        found = tf.raw_ops.LookupTableFind(table_handle=table, keys=q,
                                           default_value=tf.constant("?"))
    return [tf.identity(found, name="found")], {q: np.array([3, 4, 7], np.int64)}


def _disable_copy_on_read(tf):
    x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2], shared_name="dcr")
    init = tf.raw_ops.AssignVariableOp(resource=h, value=x)
    with tf.control_dependencies([init]):
        off = tf.raw_ops.DisableCopyOnRead(resource=h)
    with tf.control_dependencies([off]):
        y = tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32)
    return [tf.identity(y, name="y")], {x: np.array([1.5, -2.0], np.float32)}


def cases():
    yield _case("PartitionedCall/float32", ["PartitionedCall", "StatefulPartitionedCall"],
                _calls)
    yield _case("Case/float32", ["Case"], _case_op)
    yield _case("SaveV2/float32-int64", ["SaveV2", "MergeV2Checkpoints", "RestoreV2"],
                _save_restore)
    yield _case("InitializeTableFromTextFileV2/string", ["InitializeTableFromTextFileV2"],
                _text_table)
    yield _case("InitializeTableFromTextFile/int64-string", ["InitializeTableFromTextFile"],
                _text_table_ref)
    yield _case("DisableCopyOnRead/float32", ["DisableCopyOnRead"], _disable_copy_on_read)
