#!/usr/bin/env python3
"""The speed zoo: SavedModels as TensorFlow 2.21 / Keras 3 users write them,
one per row of the side-by-side benchmark (bench/vs_tf.py --zoo), each with
the inputs it is timed on.

    ${DFG_TF_PYTHON:-~/.cache/dfg/tf-venv/bin/python} bench/speed_zoo.py OUT_DIR [-k REGEX]

writes OUT_DIR/<row>/{model/ (the SavedModel), inputs.npz (one array per
input key of serving_default), README (the dfg command that times it)}. A row
whose directory is complete is skipped (delete it to rebuild). Needs keras and
keras_hub (bert_tiny) in the venv. Weights are random (seeded), as in the
speed tables of ONNX Runtime and OpenVINO: timing does not depend on them.

Rows (shapes as the speed issue measured them):
  mlp          Keras Sequential 64-256-256-10, batch 16
  mobilenetv2  keras.applications.MobileNetV2(alpha 0.35, 96x96), batch 2
  lstm         Keras LSTM(32) over 20 steps of 16 features, batch 4, Dense head
  gru          Keras GRU(32), same shapes
  encoder      two transformer encoder blocks (MultiHeadAttention 4x16,
               LayerNormalization, Dense 128 gelu(approximate)), batch 8 x 32 x 64
  while_loop   a tf.Module: 50 iterations of x = tanh(x @ w) in tf.while_loop, x [16, 64]
  resnet50     keras.applications.ResNet50 (64x64), batch 2
  bert_tiny    keras_hub BertBackbone (2 layers, 128 hidden, 2 heads), batch 4 x 64
"""
import argparse
import os
import re
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

RNG = np.random.default_rng(20261128)


def _keras():
    import keras  # pylint: disable=import-outside-toplevel
    return keras


def _f32(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def _export(model, path):
    model.export(path, format="tf_saved_model", verbose=False)


def mlp(path):
    keras = _keras()
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((64,), name="x"),
                              keras.layers.Dense(256, activation="relu"),
                              keras.layers.Dense(256, activation="relu"),
                              keras.layers.Dense(10, activation="softmax")])
    _export(model, path)
    return {"x": _f32(16, 64)}


def mobilenetv2(path):
    keras = _keras()
    keras.utils.set_random_seed(2)
    model = keras.applications.MobileNetV2(input_shape=(96, 96, 3), alpha=0.35,
                                           weights=None)
    _export(model, path)
    return {model.inputs[0].name: _f32(2, 96, 96, 3)}


def _rnn(layer, path, seed):
    keras = _keras()
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.Input((20, 16), name="x"), layer,
                              keras.layers.Dense(4)])
    _export(model, path)
    return {"x": _f32(4, 20, 16)}


def lstm(path):
    return _rnn(_keras().layers.LSTM(32), path, 3)


def gru(path):
    return _rnn(_keras().layers.GRU(32), path, 4)


def encoder(path):
    keras = _keras()
    keras.utils.set_random_seed(5)
    x = inputs = keras.Input((32, 64), name="x")
    for _ in range(2):
        attn = keras.layers.MultiHeadAttention(num_heads=4, key_dim=16)(x, x)
        x = keras.layers.LayerNormalization()(x + attn)
        ff = keras.layers.Dense(128, activation=lambda t: keras.activations.gelu(
            t, approximate=True))(x)
        ff = keras.layers.Dense(64)(ff)
        x = keras.layers.LayerNormalization()(x + ff)
    _export(keras.Model(inputs, x), path)
    return {"x": _f32(8, 32, 64)}


def while_loop(path):
    class Loop(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(_f32(64, 64, lo=-0.2, hi=0.2))

        @tf.function(input_signature=[tf.TensorSpec([16, 64], tf.float32)])
        def __call__(self, x):
            def body(i, x):
                return i + 1, tf.tanh(tf.matmul(x, self.w))
            _, y = tf.while_loop(lambda i, x: i < 50, body, [tf.constant(0), x])
            return {"y": y}

    module = Loop()
    tf.saved_model.save(module, path,
                        signatures={"serving_default": module.__call__})
    return {"x": _f32(16, 64)}


def resnet50(path):
    keras = _keras()
    keras.utils.set_random_seed(6)
    model = keras.applications.ResNet50(input_shape=(64, 64, 3), weights=None)
    _export(model, path)
    return {model.inputs[0].name: _f32(2, 64, 64, 3)}


def bert_tiny(path):
    keras = _keras()
    import keras_hub  # pylint: disable=import-outside-toplevel
    keras.utils.set_random_seed(7)
    model = keras_hub.models.BertBackbone(
        vocabulary_size=30522, num_layers=2, num_heads=2, hidden_dim=128,
        intermediate_dim=512, max_sequence_length=512)
    _export(model, path)
    return {"token_ids": RNG.integers(0, 30522, (4, 64)).astype(np.int32),
            "segment_ids": np.zeros((4, 64), np.int32),
            "padding_mask": np.ones((4, 64), np.int32)}


ROWS = [mlp, mobilenetv2, lstm, gru, encoder, while_loop, resnet50, bert_tiny]


def signature_inputs(path):
    """serving_default's input keys and dtypes, as the SavedModel says."""
    loaded = tf.saved_model.load(path)
    fn = loaded.signatures["serving_default"]
    return {k: v.dtype.as_numpy_dtype for k, v in
            fn.structured_input_signature[1].items()}


def build(row, out):
    d = os.path.join(out, row.__name__)
    if os.path.exists(os.path.join(d, "README")):
        return False
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    inputs = row(os.path.join(d, "model"))
    want = signature_inputs(os.path.join(d, "model"))
    if set(want) != set(inputs):  # Keras names inputs after the layer
        if len(want) == 1 and len(inputs) == 1:
            inputs = {next(iter(want)): next(iter(inputs.values()))}
        else:
            sys.exit(f"speed_zoo: {row.__name__}: inputs {sorted(inputs)} vs "
                     f"signature {sorted(want)}")
    inputs = {k: v.astype(want[k]) for k, v in inputs.items()}
    np.savez(os.path.join(d, "inputs.npz"), **inputs)
    feeds = " ".join(f"--feed {k}={d}/inputs.npz:{k}" for k in sorted(inputs))
    with open(os.path.join(d, "README"), "w") as f:
        f.write(f"dfg run {d}/model {feeds} --repeat 100 --warmup 10\n")
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("-k", default="", help="only rows matching this regex")
    args = ap.parse_args()
    for row in ROWS:
        if re.search(args.k, row.__name__):
            print(f"speed_zoo: {row.__name__}: "
                  f"{'built' if build(row, args.out) else 'ready'}", flush=True)


if __name__ == "__main__":
    main()
