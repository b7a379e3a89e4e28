"""ParseSequenceExampleV2, as tf.io.parse_sequence_example and
tf.io.parse_single_sequence_example emit it (context and feature-list
features, sparse, dense and ragged), and the TF1 ops ParseSequenceExample
and ParseSingleSequenceExample."""
import numpy as np

from op_case import OpCase


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _feature(values):
    tf = _tf()
    if values and isinstance(values[0], bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    if values and isinstance(values[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def _seq(context, lists):
    tf = _tf()
    ex = tf.train.SequenceExample()
    for k, v in context.items():
        ex.context.feature[k].CopyFrom(_feature(v))
    for k, rows in lists.items():
        fl = ex.feature_lists.feature_list[k]
        for r in rows:
            fl.feature.add().CopyFrom(_feature(r))
    return ex.SerializeToString()


EXAMPLES = [
    _seq({"id": [7], "w": [0.5, 1.5], "tags": [b"a", b"bb"], "rg": [1, 2, 3]},
         {"tok": [[1, 2], [3, 4], [5, 6]], "emb": [[0.1], [0.2]],
          "words": [[b"x"], [b"y", b"z"]], "nums": [[1], [2, 3], []]}),
    _seq({"id": [8], "tags": [b"c"]},
         {"tok": [[9, 8]], "emb": [], "words": [], "nums": [[4, 5, 6]]}),
    _seq({"id": [9], "w": [2.5, 3.5], "rg": []},
         {"tok": [], "emb": [[0.3], [0.4], [0.5]], "nums": []}),
]


def _outputs(context, lists):
    tf = _tf()
    out = []
    for part in (context, lists):
        for key in sorted(part):
            v = part[key]
            if isinstance(v, tf.SparseTensor):
                out += [v.indices, v.values, v.dense_shape]
            elif isinstance(v, tf.RaggedTensor):
                out += [v.flat_values] + list(v.nested_row_splits)
            else:
                out.append(v)
    return out


def _features(tf, split=None):
    context = {
        "id": tf.io.FixedLenFeature([], tf.int64),
        "w": tf.io.FixedLenFeature([2], tf.float32, default_value=[-1.0, -2.0]),
        "tags": tf.io.VarLenFeature(tf.string),
        "rg": tf.io.RaggedFeature(tf.int64, row_splits_dtype=split or tf.int64),
    }
    lists = {
        "tok": tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True),
        "emb": tf.io.FixedLenSequenceFeature([1], tf.float32, allow_missing=True),
        "words": tf.io.VarLenFeature(tf.string),
        "nums": tf.io.RaggedFeature(tf.int64, row_splits_dtype=split or tf.int64),
    }
    return context, lists


def _batch(indices, split="int64", names=False, error=None):
    tf = _tf()

    def build():
        context, lists = _features(tf, getattr(tf, split))
        s = tf.constant([EXAMPLES[i] for i in indices], tf.string, shape=[len(indices)])
        c, l, lengths = tf.io.parse_sequence_example(
            s, context_features=context, sequence_features=lists,
            example_names=[f"ex{i}" for i in indices] if names else None)
        return _outputs(c, l) + [lengths[k] for k in sorted(lengths)], {}
    return OpCase(f"ParseSequenceExampleV2/batch{indices}/splits={split}".replace(" ", ""),
                  ["ParseSequenceExampleV2"], build, expect_error=error)


def _single(index):
    tf = _tf()

    def build():
        context, lists = _features(tf)
        del context["rg"], lists["nums"]  # scalar ragged splits are unset in TF
        c, l = tf.io.parse_single_sequence_example(
            tf.constant(EXAMPLES[index]), context_features=context,
            sequence_features=lists)
        return _outputs(c, l), {}
    return OpCase(f"ParseSequenceExampleV2/single{index}", ["ParseSequenceExampleV2"], build)


def _error(name, context, lists, serialized, error):
    tf = _tf()

    def build():
        c, l, _ = tf.io.parse_sequence_example(
            tf.constant(serialized), context_features=context(tf),
            sequence_features=lists(tf))
        return _outputs(c, l), {}
    return OpCase(f"ParseSequenceExampleV2/{name}", ["ParseSequenceExampleV2"], build,
                  expect_error=error)


V1_ATTRS = dict(
    context_sparse_types=["string"], Tcontext_dense=None,
    context_dense_shapes=[[], [2]], feature_list_sparse_types=["string"],
    feature_list_dense_types=["int64", "float32"],
    feature_list_dense_shapes=[[2], [1]])


def _v1_args(tf):
    return dict(
        context_dense_defaults=[tf.constant([], tf.int64), tf.constant([-1.0, -2.0])],
        context_sparse_types=[tf.string], context_dense_shapes=[[], [2]],
        feature_list_sparse_types=[tf.string], feature_list_dense_types=[tf.int64, tf.float32],
        feature_list_dense_shapes=[[2], [1]])


def _v1_batch(indices, missing=("tok", "emb")):
    tf = _tf()

    def build():
        out = tf.raw_ops.ParseSequenceExample(
            serialized=tf.constant([EXAMPLES[i] for i in indices], tf.string,
                                   shape=[len(indices)]),
            debug_name=tf.constant([f"n{i}" for i in indices], tf.string,
                                   shape=[len(indices)]),
            feature_list_dense_missing_assumed_empty=list(missing),
            context_sparse_keys=["tags"], context_dense_keys=["id", "w"],
            feature_list_sparse_keys=["words"], feature_list_dense_keys=["tok", "emb"],
            Ncontext_sparse=1, Ncontext_dense=2, Nfeature_list_sparse=1,
            Nfeature_list_dense=2, **_v1_args(tf))
        return [t for group in out for t in group], {}
    name = f"ParseSequenceExample/batch{indices}/missing={','.join(missing)}"
    return OpCase(name.replace(" ", ""), ["ParseSequenceExample"], build)


def _v1_single(index, debug_name="", error=None, tag=""):
    tf = _tf()

    def build():
        out = tf.raw_ops.ParseSingleSequenceExample(
            serialized=tf.constant(EXAMPLES[index] if isinstance(index, int) else index),
            feature_list_dense_missing_assumed_empty=tf.constant(["tok", "emb"]),
            context_sparse_keys=[tf.constant("tags")],
            context_dense_keys=[tf.constant("id"), tf.constant("w")],
            feature_list_sparse_keys=[tf.constant("words")],
            feature_list_dense_keys=[tf.constant("tok"), tf.constant("emb")],
            debug_name=tf.constant(debug_name), **_v1_args(tf))
        return [t for group in out for t in group], {}
    return OpCase(f"ParseSingleSequenceExample/{tag or index}", ["ParseSingleSequenceExample"],
                  build, expect_error=error)


def cases():
    yield _batch([0, 1, 2])
    yield _batch([0, 1, 2], split="int32", names=True)
    yield _batch([1])
    # No examples: a required context feature has no values to size it by.
    yield _batch([], error="Inconsistent max number of elements for feature id: "
                           "expected 1, but found 0")
    yield _single(0)
    yield _v1_batch([0, 1, 2])
    yield _v1_batch([0, 2], missing=("emb",))
    yield _v1_single(0, "first")
    yield _v1_single(2)
    yield _v1_single(1)
    yield _v1_single(b"", error="Name: , Context feature 'id' is required but "
                                "could not be found.", tag="required")
    yield _v1_single(_seq({"id": [1], "w": [1.0]}, {}), "ex",
                     error="Name: ex, Key: w, Index: 0.  Number of float values != expected.  "
                           r"values size: 1 but output shape: \[2\]", tag="count")
    yield _v1_single(b"zzz", error="Could not parse example input, value: 'zzz'", tag="garbage")
    yield _single(2)
    yield _error("required_context", lambda tf: {"w": tf.io.FixedLenFeature([2], tf.float32)},
                 lambda tf: {}, [EXAMPLES[1]],
                 "Inconsistent max number of elements for feature w: expected 2, but found 0")
    yield _error("missing_context", lambda tf: {"w": tf.io.FixedLenFeature([2], tf.float32)},
                 lambda tf: {}, EXAMPLES[:2],
                 r"Feature: w \(data type: float\) is required but could not be found.")
    yield _error("context_type", lambda tf: {"id": tf.io.FixedLenFeature([], tf.float32)},
                 lambda tf: {}, EXAMPLES[:1],
                 "Name: <unknown>, Context feature: id.  Data types don't match. "
                 "Expected type: float")
    yield _error("list_type", lambda tf: {},
                 lambda tf: {"tok": tf.io.FixedLenSequenceFeature([2], tf.string)},
                 EXAMPLES[:1],
                 "Name: <unknown>, Feature list: tok, Index: 0.  Data types don't match. "
                 "Expected type: string")
    yield _error("list_required", lambda tf: {},
                 lambda tf: {"words": tf.io.FixedLenSequenceFeature([1], tf.string)},
                 EXAMPLES[2:],
                 "Name: <unknown>, Feature list 'words' is required but could not be found.")
    yield _error("list_row_size", lambda tf: {},
                 lambda tf: {"words": tf.io.FixedLenSequenceFeature([1], tf.string)},
                 EXAMPLES[:1],
                 r"Name: <unknown>, Key: words, Index: 1.  Number of values != expected.  "
                 r"values size: 2 but output shape: \[1\]")
    yield _error("garbage", lambda tf: {}, lambda tf: {"tok": tf.io.VarLenFeature(tf.int64)},
                 [b"\x0a\xff"], "Invalid protocol message input, example id: <unknown>")
