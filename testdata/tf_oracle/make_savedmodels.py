#!/usr/bin/env python3
"""Writes the SavedModels the TF oracle checks `dfg run DIR --signature` and
`dfg freeze` against, with TensorFlow 2.21 (run it with the venv's python):

    make_savedmodels.py OUTDIR

One directory per model under OUTDIR, plus OUTDIR/cases.json: for every
(model, signature) the input values (as .npy files beside it) and the
outputs TensorFlow computes for them (.npy), so the checks need not load the
models into TensorFlow again. Models:

  keras_mlp      Keras 3 Sequential MLP (model.export), serving_default
  keras_cnn      Keras 3 Conv2D/pool/dense CNN (model.export)
  tf1_variablev2 a TF1 graph with VariableV2 (ref) variables, SavedModelBuilder
  vocab_table    a StaticHashTable from a vocabulary asset file (assets/)
  keys_table     a StaticHashTable from constant keys and values
                 (KeyValueTensorInitializer)
  tf1_table      a TF1 graph: a table from an asset file (ASSET_FILEPATHS),
                 filled by legacy_init_op (tables_initializer); the original
                 vocabulary file is deleted after saving
  tf_example     serialized tf.Example input parsed by ParseExampleV2
  multi_sig      several signatures: serving_default, double, concat_strings
  str_int64_vars string and int64 variables, read back by the signature
  sharded        a TF1 checkpoint in two shards (Saver(sharded=True), 2 devices)
  sliced         a TF2 checkpoint whose tensors are cut into slices across
                 shards (MaxShardSizePolicy)
  k_*, app_*, tfm_*, tf1_*
                 the model zoo of zoo_models.py (Keras layers by family,
                 keras.applications, tf.Module ops, a TF1 graph)
"""
import json
import os
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zoo_models import ZOO, ZOO_SIGNATURES  # noqa: E402

tf1 = tf.compat.v1
RNG = np.random.default_rng(20261125)


def keras_mlp(path):
    import keras  # pylint: disable=import-outside-toplevel
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((8,), name="x"),
                              keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(4, activation="softmax")])
    model.export(path, format="tf_saved_model", verbose=False)
    return {"serving_default": {"x": RNG.normal(size=(3, 8)).astype(np.float32)}}


def keras_cnn(path):
    import keras  # pylint: disable=import-outside-toplevel
    keras.utils.set_random_seed(2)
    model = keras.Sequential([
        keras.Input((16, 16, 3), name="image"),
        keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.DepthwiseConv2D(3, padding="same"),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(5)])
    model.export(path, format="tf_saved_model", verbose=False)
    return {"serving_default": {
        "image": RNG.uniform(-1, 1, (2, 16, 16, 3)).astype(np.float32)}}


def tf1_variablev2(path):
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        w = tf1.Variable(RNG.normal(size=(3, 2)).astype(np.float32), name="w",
                         use_resource=False)
        b = tf1.Variable(np.float32([0.5, -0.5]), name="b", use_resource=False)
        y = tf.add(tf.matmul(x, w), b, name="y")
        with tf1.Session(graph=graph) as sess:
            sess.run(tf1.global_variables_initializer())
            builder = tf1.saved_model.Builder(path)
            sig = tf1.saved_model.predict_signature_def({"x": x}, {"y": y})
            builder.add_meta_graph_and_variables(
                sess, [tf1.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": sig})
            builder.save()
    return {"serving_default": {"x": RNG.normal(size=(4, 3)).astype(np.float32)}}


class VocabTable(tf.Module):
    def __init__(self, vocab_file):
        super().__init__()
        self.vocab = tf.saved_model.Asset(vocab_file)
        init = tf.lookup.TextFileInitializer(
            self.vocab, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
            tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)
        self.table = tf.lookup.StaticHashTable(init, default_value=-1)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="words")])
    def lookup(self, words):
        return {"ids": self.table.lookup(words)}


def vocab_table(path):
    vocab = os.path.join(os.path.dirname(path), "vocab.txt")
    with open(vocab, "w") as f:
        f.write("\n".join(["the", "cat", "sat", "on", "mat"]) + "\n")
    module = VocabTable(vocab)
    tf.saved_model.save(module, path, signatures={"serving_default": module.lookup})
    return {"serving_default": {"words": np.array([b"cat", b"dog", b"mat", b"the"])}}


class KeysTable(tf.Module):
    def __init__(self):
        super().__init__()
        init = tf.lookup.KeyValueTensorInitializer(
            tf.constant(["red", "green", "blue"]),
            tf.constant([7, 8, 9], tf.int64))
        self.table = tf.lookup.StaticHashTable(init, default_value=-1)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="colors")])
    def lookup(self, colors):
        return {"codes": self.table.lookup(colors)}


def keys_table(path):
    module = KeysTable()
    tf.saved_model.save(module, path, signatures={"serving_default": module.lookup})
    return {"serving_default": {"colors": np.array([b"blue", b"pink", b"red"])}}


def tf1_table(path):
    vocab = os.path.join(os.path.dirname(path), "tf1_vocab.txt")
    with open(vocab, "w") as f:
        f.write("\n".join(["alpha", "beta", "gamma"]) + "\n")
    graph = tf.Graph()
    with graph.as_default():
        filename = tf.constant(vocab, name="vocab_filename")
        tf1.add_to_collection(tf1.GraphKeys.ASSET_FILEPATHS, filename)
        table = tf1.lookup.StaticHashTable(
            tf1.lookup.TextFileInitializer(
                filename, tf.string, tf1.lookup.TextFileIndex.WHOLE_LINE,
                tf.int64, tf1.lookup.TextFileIndex.LINE_NUMBER), -1)
        words = tf1.placeholder(tf.string, [None], name="words")
        ids = tf.identity(table.lookup(words), name="ids")
        with tf1.Session(graph=graph) as sess:
            builder = tf1.saved_model.Builder(path)
            sig = tf1.saved_model.predict_signature_def({"words": words},
                                                        {"ids": ids})
            builder.add_meta_graph_and_variables(
                sess, [tf1.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": sig},
                assets_collection=tf1.get_collection(tf1.GraphKeys.ASSET_FILEPATHS),
                legacy_init_op=tf1.tables_initializer())
            builder.save()
    os.remove(vocab)  # the frozen graph must read the copy under assets/
    return {"serving_default": {"words": np.array([b"gamma", b"delta", b"alpha"])}}


class ExampleParser(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="examples")])
    def parse(self, examples):
        spec = {"age": tf.io.FixedLenFeature([], tf.int64, default_value=0),
                "score": tf.io.FixedLenFeature([2], tf.float32)}
        parsed = tf.io.parse_example(examples, spec)
        return {"age_plus_one": parsed["age"] + 1, "score_sum": tf.reduce_sum(
            parsed["score"], axis=1)}


def tf_example(path):
    module = ExampleParser()
    tf.saved_model.save(module, path, signatures={"serving_default": module.parse})
    examples = []
    for age, score in [(3, [1.5, 2.0]), (None, [0.25, -1.0])]:
        feature = {"score": tf.train.Feature(float_list=tf.train.FloatList(value=score))}
        if age is not None:
            feature["age"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[age]))
        examples.append(tf.train.Example(features=tf.train.Features(
            feature=feature)).SerializeToString())
    return {"serving_default": {"examples": np.array(examples, dtype=object)}}


class MultiSig(tf.Module):
    def __init__(self):
        super().__init__()
        self.scale = tf.Variable(3.0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="x")])
    def scaled(self, x):
        return {"y": x * self.scale}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="x")])
    def double(self, x):
        return {"doubled": x + x}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="a"),
                                  tf.TensorSpec([None], tf.string, name="b")])
    def concat_strings(self, a, b):
        return {"joined": tf.strings.join([a, b], separator="-")}


def multi_sig(path):
    m = MultiSig()
    tf.saved_model.save(m, path, signatures={"serving_default": m.scaled,
                                             "double": m.double,
                                             "concat_strings": m.concat_strings})
    x = RNG.normal(size=(5,)).astype(np.float32)
    return {"serving_default": {"x": x}, "double": {"x": x},
            "concat_strings": {"a": np.array([b"ab", b"c"]), "b": np.array([b"x", b"yz"])}}


class StrInt64Vars(tf.Module):
    def __init__(self):
        super().__init__()
        self.names = tf.Variable(["alpha", "beta", "gamma"])
        self.counts = tf.Variable(np.int64([2 ** 40, -7, 12]))

    @tf.function(input_signature=[tf.TensorSpec([], tf.int64, name="k")])
    def read(self, k):
        return {"names": self.names, "counts": self.counts * k}


def str_int64_vars(path):
    m = StrInt64Vars()
    tf.saved_model.save(m, path, signatures={"serving_default": m.read})
    return {"serving_default": {"k": np.int64(3)}}


class Sharded(tf.Module):
    def __init__(self):
        super().__init__()
        self.ws = [tf.Variable(RNG.normal(size=(64, 64)).astype(np.float32), name=f"w{i}")
                   for i in range(4)]

    @tf.function(input_signature=[tf.TensorSpec([None, 64], tf.float32, name="x")])
    def apply(self, x):
        for w in self.ws:
            x = tf.tanh(tf.matmul(x, w))
        return {"y": x}


def sharded(path):
    """TF1 Saver(sharded=True) with the variables on two devices: one shard
    per device, whole tensors in each."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None, 4], name="x")
        with tf.device("/cpu:0"):
            w0 = tf1.Variable(RNG.normal(size=(4, 6)).astype(np.float32), name="w0")
        with tf.device("/cpu:1"):
            w1 = tf1.Variable(RNG.normal(size=(6, 2)).astype(np.float32), name="w1")
        y = tf.matmul(tf.tanh(tf.matmul(x, w0)), w1, name="y")
        config = tf1.ConfigProto(device_count={"CPU": 2})
        with tf1.Session(graph=graph, config=config) as sess:
            sess.run(tf1.global_variables_initializer())
            builder = tf1.saved_model.Builder(path)
            builder.add_meta_graph_and_variables(
                sess, [tf1.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default":
                                   tf1.saved_model.predict_signature_def({"x": x}, {"y": y})},
                saver=tf1.train.Saver(sharded=True))
            builder.save()
    shards = [f for f in os.listdir(os.path.join(path, "variables")) if "-of-" in f]
    assert len(shards) > 1, f"expected a sharded checkpoint, got {shards}"
    return {"serving_default": {"x": RNG.normal(size=(3, 4)).astype(np.float32)}}


def sliced(path):
    """MaxShardSizePolicy: shards of at most 20,000 bytes, so a 16 KB
    variable is cut into slices across shards."""
    m = Sharded()
    policy = tf.train.experimental.MaxShardSizePolicy(max_shard_size=20000)
    tf.saved_model.save(m, path, signatures={"serving_default": m.apply},
                        options=tf.saved_model.SaveOptions(
                            experimental_sharding_callback=policy))
    shards = [f for f in os.listdir(os.path.join(path, "variables")) if "-of-" in f]
    assert len(shards) > 1, f"expected a sharded checkpoint, got {shards}"
    return {"serving_default": {"x": RNG.normal(size=(2, 64)).astype(np.float32)}}


# model -> its signature keys (savedmodel_diff.py names its cases from this).
SIGNATURES = {"keras_mlp": ["serving_default"], "keras_cnn": ["serving_default"],
              "tf1_variablev2": ["serving_default"], "vocab_table": ["serving_default"],
              "tf_example": ["serving_default"],
              "multi_sig": ["serving_default", "double", "concat_strings"],
              "str_int64_vars": ["serving_default"], "sharded": ["serving_default"],
              "sliced": ["serving_default"], "keys_table": ["serving_default"],
              "tf1_table": ["serving_default"]}
MODELS = {"keras_mlp": keras_mlp, "keras_cnn": keras_cnn,
          "tf1_variablev2": tf1_variablev2, "vocab_table": vocab_table,
          "tf_example": tf_example, "multi_sig": multi_sig,
          "str_int64_vars": str_int64_vars, "sharded": sharded, "sliced": sliced,
          "keys_table": keys_table, "tf1_table": tf1_table}
# The model zoo (zoo_models.py): one model per family users meet.
MODELS.update(ZOO)
SIGNATURES.update(ZOO_SIGNATURES)


def run_signature(path, key, inputs):
    loaded = tf.saved_model.load(path)
    fn = loaded.signatures[key]
    out = fn(**{k: tf.constant(v) for k, v in inputs.items()})
    return {k: v.numpy() for k, v in out.items()}


def save_array(path, value):
    value = np.asarray(value)
    if value.dtype == object or value.dtype.kind == "S":
        value = value.astype(bytes)  # fixed-width bytes .npy (|S), no pickles
    np.save(path, value)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cases = []
    for name, make in MODELS.items():
        path = os.path.join(out, name, "model")
        os.makedirs(os.path.dirname(path))
        signatures = make(path)
        assert list(signatures) == SIGNATURES[name], (name, list(signatures))
        for key, inputs in signatures.items():
            outputs = run_signature(path, key, inputs)
            d = os.path.join(out, name, key)
            os.makedirs(d)
            files = {}
            for kind, values in (("in", inputs), ("out", outputs)):
                for k, v in values.items():
                    f = os.path.join(d, f"{kind}_{k}.npy")
                    save_array(f, v)
                    files.setdefault(kind, {})[k] = f
            cases.append({"model": name, "dir": path, "signature": key,
                          "inputs": files["in"], "outputs": files["out"]})
        print(f"make_savedmodels: {name}: {', '.join(signatures)}")
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)


if __name__ == "__main__":
    main()
