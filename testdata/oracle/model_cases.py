"""Corpus models (INDEX.md: "Ten graphs that should run on CPU" and "Also
runnable") fed with seeded random inputs; fetches compared with the oracle,
plus numpy values where INDEX.md states the expected result.
"""
import os

import numpy as np

from cases import Case, rand, rng_for

MODEL_TOL = {"rtol": 1e-4, "atol": 1e-5}
W = np.array([[0.1, 0.2], [0.3, 0.4]], np.float32)  # control_flow_v1's W


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _if_ref(f):
    value = f["a"] + f["b"] if f["a"] < f["b"] else f["a"] * f["b"]
    return {"StatefulIf:0": value, "StatelessIf:0": value}


# file, {feed: (dtype, shape, domain)}, fetches, numpy reference or None
MODELS = [
    ("tfrust__addition_model.pb",
     {"x": ("int32", (), "any"), "y": ("int32", (), "any")}, ["z:0"],
     lambda f: {"z:0": f["x"] + f["y"]}),
    ("tfserving__matrix_half_plus_two_saved_model.extracted_graphdef.pb",
     {"x": ("float32", (2, 3, 3), "any")}, ["y:0"], None),
    ("ngraph__sample_graph.pb",
     {"x": ("float32", (10,), "any"), "y": ("float32", (10,), "any")},
     ["out_node:0"],
     lambda f: {"out_node:0": _sigmoid(f["x"] + 2 * f["y"]).astype(np.float32)}),
    ("tflite_e2e__conv_2d.pbtxt", {"input": ("float32", (1, 8, 8, 2), "any")},
     ["output_0:0"], None),
    ("tflite_e2e__conv_2d.pbtxt", {"input": ("float32", (1, 8, 8, 2), 0.0)},
     ["output_0:0"], lambda f: {"output_0:0": np.full((1, 8, 8, 2), 0.1, np.float32)}),
    ("tflite_e2e__control_flow_v1.pbtxt",
     {"Placeholder": ("float32", (3, 2), "any"), "Placeholder_1": ("bool", (), True)},
     ["cond/Merge:0", "cond/Merge:1"],
     lambda f: {"cond/Merge:0": f["Placeholder"] @ W, "cond/Merge:1": np.int32(1)}),
    ("tflite_e2e__control_flow_v1.pbtxt",
     {"Placeholder": ("float32", (1, 2), "any"), "Placeholder_1": ("bool", (), False)},
     ["cond/Merge:0", "cond/Merge:1"],
     lambda f: {"cond/Merge:0": f["Placeholder"] + W, "cond/Merge:1": np.int32(0)}),
    ("grappler__while_loop.pbtxt", {}, ["while/Exit:0", "while/Exit_1:0"],
     lambda f: {"while/Exit:0": np.int32(10),
                "while/Exit_1:0": np.ones((2048, 2), np.float32)}),
    ("tf2onnx__fc-layers_frozen.pb", {"X": ("float32", (3, 784), "unit")},
     ["output:0"], None),
    ("utensor__cifar10_cnn.pb", {"Placeholder": ("float32", (2, 32, 32, 3), "unit")},
     ["pred:0", "fully_connect_2/logits:0"], None),
    ("hellotfc__graph.pb", {"input_4": ("float32", (2, 5, 12), "unit")},
     ["output_node0:0"], None),
    ("tfmlir__functional-if-ops.pbtxt",
     {"a": ("float32", (), -1.5), "b": ("float32", (), 2.25)},
     ["StatefulIf:0", "StatelessIf:0"], lambda f: _if_ref(f)),
    ("tfmlir__functional-if-ops.pbtxt",
     {"a": ("float32", (), 3.0), "b": ("float32", (), 1.25)},
     ["StatefulIf:0", "StatelessIf:0"], lambda f: _if_ref(f)),
    ("cppflow__load_frozen_graph_model.pb", {"x": ("float32", (4, 5), "any")},
     ["Identity:0"], None),
    ("tf2onnx__ae0_frozen.pb", {"X": ("float32", (2, 784), "unit")}, ["output:0"], None),
    ("utensor__simple_mnist.pb", {"x": ("float32", (10, 784), "unit")},
     ["y_pred:0"], None),
    ("hellotfc__graph_im2vec.pb", {"input_layer": ("float32", (1, 224, 224, 3), "unit")},
     ["output_layer/Softmax:0"], None),
    ("tfrust__multiplication.pb", {"a": ("float32", (), "any"), "b": ("float32", (), "any")},
     ["c:0"], lambda f: {"c:0": f["a"] * f["b"]}),
    ("ngraph__test_axpy.pbtxt",
     {"x": ("float32", (2, 3), "any"), "y": ("float32", (2, 3), "any")}, ["add:0"], None),
    ("tfmlir__functional-while-ops.pbtxt",
     {"iter": ("int32", (), 3), "val": ("float32", (), "any")}, ["StatefulWhile:1"],
     lambda f: {"StatefulWhile:1": f["val"] * np.float32(8)}),
    ("grappler__merge_without_loops.pbtxt", {}, ["concat:0"], None),
]


def _feed(rng, dtype, shape, domain):
    if not isinstance(domain, str):  # a fixed value
        return np.full(shape, domain, dtype)
    return rand(rng, dtype, shape, domain)


def all_cases(corpus_dir):
    """Yields the model cases; a missing corpus yields nothing (the driver
    reports it)."""
    seen = {}
    for file, feeds, fetches, ref in MODELS:
        seen[file] = seen.get(file, 0) + 1
        name = f"model/{file}" + (f"#{seen[file]}" if seen[file] > 1 else "")
        rng = rng_for(name)
        values = {k: _feed(rng, *spec) for k, spec in feeds.items()}
        expected = ref(values) if ref else {}
        for fetch in list(expected):
            expected[fetch] = np.asarray(expected[fetch])
        skip = [f for f in fetches if f.endswith("Merge:1")]  # value_index
        yield Case(name=name, op="model", model=os.path.join(corpus_dir, file),
                   feeds=values, fetches=fetches, expected=expected,
                   oracle_skip=skip, **MODEL_TOL)
