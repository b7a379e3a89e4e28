"""GenerateVocabRemapping over vocabulary files, LoadAndRemapMatrix over a
V2 checkpoint, both written at build time."""
import os
import tempfile

import numpy as np

from op_case import OpCase

NEW = ["the", "cat", "sat", "on", "mat", "dog"]
OLD = ["mat", "dog", "bird", "the", "on"]


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _files():
    directory = tempfile.mkdtemp(prefix="dfg-vocab-")
    paths = {}
    for name, words in [("new", NEW), ("old", OLD), ("dup", ["a", "b", "a"])]:
        paths[name] = os.path.join(directory, f"{name}.txt")
        with open(paths[name], "w") as f:
            f.write("\n".join(words) + "\n")
    return paths


def cases():
    yield from vocab_cases()
    yield from remap_cases()


def vocab_cases():
    tf = _tf()
    paths = _files()

    def case(name, new="new", old="old", error=None, **attrs):
        def build():
            r, n = tf.raw_ops.GenerateVocabRemapping(
                new_vocab_file=paths[new], old_vocab_file=paths[old], **attrs)
            return [r, n], {}
        return OpCase(f"GenerateVocabRemapping/{name}", ["GenerateVocabRemapping"], build,
                      expect_error=error)
    yield case("all", new_vocab_offset=0, num_new_vocab=6)
    yield case("partition", new_vocab_offset=2, num_new_vocab=3)
    yield case("old_size", new_vocab_offset=0, num_new_vocab=6, old_vocab_size=4)
    yield case("empty_partition", new_vocab_offset=6, num_new_vocab=0)
    yield case("too_many", new_vocab_offset=4, num_new_vocab=3,
               error="lookup table size must be larger than last new vocab entry's line")
    yield case("old_size_mismatch", new_vocab_offset=0, num_new_vocab=1, old_vocab_size=9,
               error="Invalid vocab_size in .*old.txt: expected 9 but got 5")
    yield case("duplicate_old", old="dup", new_vocab_offset=0, num_new_vocab=1,
               error="HashTable has different value for same key")


def _checkpoint():
    tf = _tf()
    prefix = os.path.join(tempfile.mkdtemp(prefix="dfg-remap-"), "ckpt")
    g = tf.Graph()
    with g.as_default():
        m = np.arange(20, dtype=np.float32).reshape(5, 4)
        save = tf.raw_ops.SaveV2(prefix=prefix, tensor_names=["m", "i"],
                                 shape_and_slices=["", ""],
                                 tensors=[tf.constant(m), tf.constant([[1, 2]])])
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(save)
    return prefix


def remap_cases():
    tf = _tf()
    prefix = _checkpoint()

    def case(name, rows, cols, init, num_rows, num_cols, error=None, tensor="m", **attrs):
        def build():
            y = tf.raw_ops.LoadAndRemapMatrix(
                ckpt_path=prefix, old_tensor_name=tensor,
                row_remapping=tf.constant(rows, tf.int64, shape=[len(rows)]),
                col_remapping=tf.constant(cols, tf.int64, shape=[len(cols)]),
                initializing_values=tf.constant(init, tf.float32, shape=[len(init)]),
                num_rows=num_rows, num_cols=num_cols, **attrs)
            return [y], {}
        return OpCase(f"LoadAndRemapMatrix/{name}", ["LoadAndRemapMatrix"], build,
                      expect_error=error)
    yield case("rows", [4, -1, 0, 2], [], [-1, -2, -3, -4], 4, 4)
    yield case("rows_cols", [1, 3, -1], [3, -1, 0], [9] * 5, 3, 3, max_rows_in_memory=1)
    yield case("none_present", [-1, -1], [], [7] * 8, 2, 4)
    yield case("too_few_values", [-1], [], [1.0], 1, 4,
               error="initializing_values contained 1 elements, but more missing values remain.")
    yield case("too_many_values", [0], [], [1.0], 1, 4,
               error="initializing_values contained 1 elements, but only 0 elements were used")
    yield case("duplicate", [1, 1], [], [], 2, 4,
               error="Old ID 1 is mapped to both new ID 0 and 1, which is not supported.")
    yield case("cols_mismatch", [0], [], [], 1, 3,
               error=r"Tensor m has shape \[5,4\], where the size of its 2nd dimension is 4 "
                     "instead of being equal to num_cols=3")
    yield case("wrong_type", [0], [], [], 1, 2, tensor="i",
               error="Tensor i has invalid type int32 instead of expected type float")
