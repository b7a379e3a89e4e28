#!/usr/bin/python3
"""Writes the bundled example models (deterministic; Debian's python3-numpy).

mlp.pbtxt: a two-layer perceptron x[?,4] -> dense_1 (8, relu) -> dense_2 (3)
  -> probs (softmax); dense_2 asks for /device:GPU:0, and a `stats` branch
  that `probs` does not need shows what pruning removes.
loop.pbtxt: a lowered TensorFlow while loop (Enter/Merge/Switch/NextIteration/
  Exit) that doubles `x` while the counter is below `n`.
"""
import numpy as np

rng = np.random.default_rng(20261122)


def floats(values):
    return " ".join("float_val: " + str(np.float32(v)) for v in np.ravel(values))


def shape(dims):
    return " ".join(f"dim {{ size: {d} }}" for d in dims)


def const(name, array, device=""):
    dev = f'  device: "{device}"\n' if device else ""
    return f"""node {{
  name: "{name}"
  op: "Const"
{dev}  attr {{ key: "dtype" value {{ type: DT_FLOAT }} }}
  attr {{
    key: "value"
    value {{ tensor {{ dtype: DT_FLOAT tensor_shape {{ {shape(array.shape)} }} {floats(array)} }} }}
  }}
}}
"""


def op(name, op_type, inputs, attrs="", device=""):
    ins = "".join(f'  input: "{i}"\n' for i in inputs)
    dev = f'  device: "{device}"\n' if device else ""
    return f'node {{\n  name: "{name}"\n  op: "{op_type}"\n{ins}{dev}{attrs}}}\n'


T = '  attr { key: "T" value { type: DT_FLOAT } }\n'


def mlp():
    w1 = np.round(rng.normal(0, 0.5, (4, 8)), 3).astype(np.float32)
    b1 = np.round(rng.normal(0, 0.1, (8,)), 3).astype(np.float32)
    w2 = np.round(rng.normal(0, 0.5, (8, 3)), 3).astype(np.float32)
    b2 = np.round(rng.normal(0, 0.1, (3,)), 3).astype(np.float32)
    gpu = "/device:GPU:0"
    out = op("x", "Placeholder", [],
             '  attr { key: "dtype" value { type: DT_FLOAT } }\n'
             '  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } }\n')
    out += const("dense_1/kernel", w1) + const("dense_1/bias", b1)
    out += op("dense_1/MatMul", "MatMul", ["x", "dense_1/kernel"], T)
    out += op("dense_1/BiasAdd", "BiasAdd", ["dense_1/MatMul", "dense_1/bias"], T)
    out += op("dense_1/Relu", "Relu", ["dense_1/BiasAdd"], T)
    out += const("dense_2/kernel", w2, gpu) + const("dense_2/bias", b2, gpu)
    out += op("dense_2/MatMul", "MatMul", ["dense_1/Relu", "dense_2/kernel"], T, gpu)
    out += op("dense_2/BiasAdd", "BiasAdd", ["dense_2/MatMul", "dense_2/bias"], T, gpu)
    out += op("probs", "Softmax", ["dense_2/BiasAdd"], T)
    out += const("stats/axes", np.array([0, 1], dtype=np.float32)).replace(
        "DT_FLOAT", "DT_INT32").replace("float_val: 0.0 float_val: 1.0",
                                        "int_val: 0 int_val: 1")
    out += op("stats/mean", "Mean", ["x", "stats/axes"],
              T + '  attr { key: "Tidx" value { type: DT_INT32 } }\n')
    out += "versions { producer: 1087 }\n"
    return out


def loop():
    i32 = '  attr { key: "T" value { type: DT_INT32 } }\n'
    f32 = T
    enter = lambda t: (t + '  attr { key: "frame_name" value { s: "while/while_context" } }\n'
                       '  attr { key: "parallel_iterations" value { i: 10 } }\n')
    int_const = lambda name, v, ctrl=None: (
        f'node {{\n  name: "{name}"\n  op: "Const"\n'
        + (f'  input: "^{ctrl}"\n' if ctrl else "")
        + '  attr { key: "dtype" value { type: DT_INT32 } }\n'
        f'  attr {{ key: "value" value {{ tensor {{ dtype: DT_INT32 tensor_shape {{ }} int_val: {v} }} }} }}\n}}\n')
    out = op("x", "Placeholder", [],
             '  attr { key: "dtype" value { type: DT_FLOAT } }\n'
             '  attr { key: "shape" value { shape { dim { size: -1 } } } }\n')
    out += int_const("n", 5)
    out += int_const("i0", 0)
    out += op("while/Enter", "Enter", ["i0"], enter(i32))
    out += op("while/Enter_1", "Enter", ["x"], enter(f32))
    out += op("while/Merge", "Merge", ["while/Enter", "while/NextIteration"],
              i32 + '  attr { key: "N" value { i: 2 } }\n')
    out += op("while/Merge_1", "Merge", ["while/Enter_1", "while/NextIteration_1"],
              f32 + '  attr { key: "N" value { i: 2 } }\n')
    out += op("while/Less/Enter", "Enter", ["n"],
              enter(i32) + '  attr { key: "is_constant" value { b: true } }\n')
    out += op("while/Less", "Less", ["while/Merge", "while/Less/Enter"], i32)
    out += op("while/LoopCond", "LoopCond", ["while/Less"])
    out += op("while/Switch", "Switch", ["while/Merge", "while/LoopCond"], i32)
    out += op("while/Switch_1", "Switch", ["while/Merge_1", "while/LoopCond"], f32)
    out += op("while/Identity", "Identity", ["while/Switch:1"], i32)
    out += op("while/Identity_1", "Identity", ["while/Switch_1:1"], f32)
    out += int_const("while/add/y", 1, "while/Identity")
    out += op("while/add", "AddV2", ["while/Identity", "while/add/y"], i32)
    out += op("while/mul", "AddV2", ["while/Identity_1", "while/Identity_1"], f32)
    out += op("while/NextIteration", "NextIteration", ["while/add"], i32)
    out += op("while/NextIteration_1", "NextIteration", ["while/mul"], f32)
    out += op("while/Exit", "Exit", ["while/Switch"], i32)
    out += op("while/Exit_1", "Exit", ["while/Switch_1"], f32)
    out += op("result", "Identity", ["while/Exit_1"], f32)
    out += "versions { producer: 1087 }\n"
    return out


header = "# Generated by testdata/models/make_models.py; do not edit.\n"
with open("mlp.pbtxt", "w") as f:
    f.write(header + mlp())
with open("loop.pbtxt", "w") as f:
    f.write(header + loop())
np.save("mlp_input.npy", np.round(rng.normal(0, 1, (2, 4)), 3).astype(np.float32))
np.save("loop_input.npy", np.array([1.0, -0.5, 3.0], dtype=np.float32))
# Feeds for the golden `dfg run` cases: an intermediate tensor and a wrong dtype.
np.save("relu_feed.npy", np.array([[1, 0, 2, 0, 0, 1, 0, 3]], dtype=np.float32))
np.save("int_input.npy", np.array([[1, 2, 3, 4]], dtype=np.int32))
