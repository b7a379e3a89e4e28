"""How a case of the TF oracle's `ops` section is written.

A case builds a small graph with TensorFlow's own Python API (tf.raw_ops.X
where the op has no public wrapper that emits it unchanged) in a fresh
tf.Graph, in graph mode:

    OpCase("MatrixBandPart/f32[3,4,5]", ["MatrixBandPart"], build, rtol=...)

`build()` returns (fetches, feeds): fetches a list of tf.Tensor; feeds a dict
{placeholder tf.Tensor: numpy value}. Inputs come from `data(name, dtype,
shape, domain)` (seeded by the case name: the same values every run) or are
constants. `ops` names the op types under test: the section checks the graph
has a node of each (a case cannot pass for an op it does not run). TensorFlow
(a tf.compat.v1 Session with no Grappler and no graph rewrites) and `dfg run`
execute the same GraphDef with the same feeds; the fetches are compared as
the run section compares (run_diff.compare_values: integers, bools and
strings exactly; floats within rtol/atol, default 1e-5, float64 1e-12).
`expect_error` (a regex) asks both to fail with a matching message.

`edit(graph_def)`, when given, changes the built GraphDef before both run. It
is how a case reaches an op TensorFlow deprecated: TF's Python API refuses to
build one in a graph of today's version, but TensorFlow still runs it in a
GraphDef whose producer predates the deprecation (a TF1-era frozen model), so
the case builds the op's successor and `renamed({...}, producer)` renames it.
"""
import dataclasses
import zlib
from typing import Callable, List, Optional

import numpy as np

SEED = 20261128


@dataclasses.dataclass
class OpCase:
    name: str                       # "<Op>/<dtype and shape>[/<variant>]"
    ops: List[str]                  # op types under test (must be in the graph)
    build: Callable                 # () -> (fetches, {placeholder: value})
    rtol: Optional[float] = None
    atol: Optional[float] = None
    expect_error: Optional[str] = None
    edit: Optional[Callable] = None  # (GraphDef) -> None, before both run


def renamed(op_types, producer):
    """An `edit` that renames node op types ({built: wanted}, in the graph
    and its functions) and sets versions.producer (below the deprecation
    version of the wanted ops)."""
    def edit(graph_def):
        nodes = list(graph_def.node)
        for function in graph_def.library.function:
            nodes.extend(function.node_def)
        for node in nodes:
            node.op = op_types.get(node.op, node.op)
        graph_def.versions.producer = producer
    return edit


def data(name, dtype, shape, domain="any"):
    """Seeded random values: any (normal / [-9, 9]), pos (> 0), unit (-1, 1),
    small ([-3, 3]), nonzero (|x| >= 0.5); strings are short ASCII words."""
    rng = np.random.default_rng(SEED ^ zlib.crc32(name.encode()))
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "OSU":
        words = ["a", "Bb", " cc ", "dDd", "ee e", "", "fff", "ggg g"]
        return np.array([words[i] for i in rng.integers(0, len(words), shape)],
                        dtype=object).reshape(shape)
    if dtype.kind in "iu":
        lo, hi = {"pos": (1, 10), "small": (-3, 4), "nonzero": (1, 10)}.get(domain, (-9, 10))
        if dtype.kind == "u":
            lo = max(lo, 0)
        return rng.integers(lo, hi, shape).astype(dtype)
    if dtype.kind == "c":
        return (data(name + "/re", np.float64, shape, domain)
                + 1j * data(name + "/im", np.float64, shape, domain)).astype(dtype)
    if domain == "pos":
        v = rng.uniform(0.1, 4.0, shape)
    elif domain == "unit":
        v = rng.uniform(-0.95, 0.95, shape)
    elif domain == "small":
        v = rng.uniform(-3, 3, shape)
    elif domain == "nonzero":
        v = rng.uniform(0.5, 4.0, shape) * rng.choice([-1, 1], shape)
    else:
        v = rng.normal(size=shape)
    return v.astype(dtype)
