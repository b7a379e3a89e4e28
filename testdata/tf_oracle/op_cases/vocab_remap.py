"""GenerateVocabRemapping over vocabulary files written at build time."""
import os
import tempfile

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
