"""The partition section's own graphs for ReplicateConstantsPass: small CPU
Consts read on several devices, which TensorFlow copies to each consumer
device (`<name>/replicate/_N`) before it partitions. Each copy gets a control
edge from every in-node of the original, _SOURCE included (a Const without
inputs has one from _SOURCE): those edges never reach a partition, but they
take edge ids, which the `edge_<id>_<src>` tensor_names of the _Send/_Recv
pairs show: every case but `fed` has a cut edge numbered after the copies of
a Const without inputs.

Written as text GraphDefs with explicit /device:CPU:N requests, run on
`cpus` CPU devices (TensorFlow's device_count, dfg's --devices).
"""
import types

import numpy as np

F32 = 'attr { key: "T" value { type: DT_FLOAT } }'


def const(name, values, device, inputs=()):
    """A float Const of shape [len(values)] (a scalar for a float)."""
    if isinstance(values, (int, float)):
        shape, vals = "", [values]
    else:
        shape, vals = f"dim {{ size: {len(values)} }}", values
    floats = " ".join(f"float_val: {v}" for v in vals)
    return node(name, "Const", inputs, device,
                'attr { key: "dtype" value { type: DT_FLOAT } } '
                f'attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT '
                f'tensor_shape {{ {shape} }} {floats} }} }} }}')


def node(name, op, inputs, device, attrs=""):
    ins = " ".join(f'input: "{i}"' for i in inputs)
    dev = f'device: "/device:CPU:{device}"' if device is not None else ""
    return f'node {{ name: "{name}" op: "{op}" {ins} {dev} {attrs} }}\n'


def binary(name, op, a, b, device):
    return node(name, op, [a, b], device, F32)


def placeholder(name, device):
    return node(name, "Placeholder", [], device,
                'attr { key: "dtype" value { type: DT_FLOAT } } '
                'attr { key: "shape" value { shape { dim { size: 2 } } } }')


# A scalar Const z (no inputs: its copies read _SOURCE) and a Const a whose
# only input is ^x from CPU:2 (its copies read x), both read on CPU:0 and
# CPU:1: x's control edge is sent to both, numbered after z's copies.
TWO_REPLICATED = (
    node("x", "NoOp", [], 2) + const("z", 2.0, 0) + const("a", [1.0, 3.0], 0, ["^x"]) +
    binary("m0", "Mul", "a", "z", 0) + binary("m1", "Mul", "a", "z", 1))

# A Const with three control inputs, one per device, read on three devices:
# three copies, each with three control inputs (six of them cut).
SEVERAL_CONTROL_INPUTS = (
    node("x0", "NoOp", [], 0) + node("x1", "NoOp", [], 1) + node("x2", "NoOp", [], 2) +
    const("s", 1.0, 0) + const("c", [4.0, 5.0], 1, ["^x2", "^x0", "^x1"]) +
    binary("m0", "Mul", "c", "s", 0) + binary("m1", "Mul", "c", "s", 1) +
    binary("m2", "Mul", "c", "s", 2) + binary("m3", "AddV2", "m2", "s", 2))

# Feeds: a Const k whose control input is a fed Placeholder (the
# Placeholder's control out edge moves to the feed's _Arg, which k's copies
# then read, on two devices), and a Const z read on three devices by
# consumers of which one, n2, is fed (pruned with its input q: two copies).
FED = (
    placeholder("p", 1) + placeholder("q", 2) +
    const("k", [1.0, 2.0], 0, ["^p"]) + const("z", 3.0, 2) +
    binary("n0", "Mul", "k", "z", 0) + binary("n1", "Mul", "k", "z", 1) +
    binary("n2", "Mul", "q", "z", 2) + binary("u", "AddV2", "n2", "n0", 1) +
    binary("v", "Sub", "n1", "n2", 0))

# A Const inside a v1 while frame (its control input is the body's Identity)
# read on two devices in the body, and the loop's limit, a Const read on
# two devices outside it.
WHILE_FRAME = """
node { name: "limit" op: "Const" device: "/device:CPU:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 5 } } } }
node { name: "start" op: "Const" device: "/device:CPU:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "while/Enter" op: "Enter" input: "start" device: "/device:CPU:0"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "frame_name" value { s: "while/" } } }
node { name: "while/Merge" op: "Merge" input: "while/Enter" input: "while/NextIteration"
  device: "/device:CPU:0"
  attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }
node { name: "while/Less/Enter" op: "Enter" input: "limit" device: "/device:CPU:0"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "frame_name" value { s: "while/" } }
  attr { key: "is_constant" value { b: true } } }
node { name: "while/Less" op: "Less" input: "while/Merge" input: "while/Less/Enter"
  device: "/device:CPU:0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "while/LoopCond" op: "LoopCond" input: "while/Less" device: "/device:CPU:0" }
node { name: "while/Switch" op: "Switch" input: "while/Merge" input: "while/LoopCond"
  device: "/device:CPU:0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "while/Identity" op: "Identity" input: "while/Switch:1" device: "/device:CPU:0"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "while/one" op: "Const" input: "^while/Identity" device: "/device:CPU:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "while/half" op: "Mul" input: "while/one" input: "while/one"
  device: "/device:CPU:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "while/add" op: "AddV2" input: "while/Identity" input: "while/one"
  device: "/device:CPU:0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "while/next" op: "AddV2" input: "while/add" input: "while/half"
  device: "/device:CPU:0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "while/NextIteration" op: "NextIteration" input: "while/next"
  device: "/device:CPU:0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "while/Exit" op: "Exit" input: "while/Switch" device: "/device:CPU:0"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Mul" input: "while/Exit" input: "limit" device: "/device:CPU:1"
  attr { key: "T" value { type: DT_FLOAT } } }
"""

_P = np.float32([0.5, -1.5])

# name -> (graph text, feeds, fetches, number of CPU devices)
CASES = {
    "two_replicated": (TWO_REPLICATED, {}, ["m0", "m1"], 3),
    "several_control_inputs": (SEVERAL_CONTROL_INPUTS, {}, ["m0", "m1", "m3"], 3),
    "fed": (FED, {"p": _P, "n2": np.float32([7.0, 8.0])}, ["u", "v"], 3),
    "while_frame": (WHILE_FRAME, {}, ["out"], 2),
}


def cases():
    """The cases as partition_diff.check takes them."""
    return [types.SimpleNamespace(name=f"replicate/{name}", model=None, graph=graph,
                                  feeds=feeds, fetches=fetches, targets=[], cpus=cpus,
                                  expect_error=None)
            for name, (graph, feeds, fetches, cpus) in CASES.items()]
