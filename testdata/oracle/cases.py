"""What a differential-test case is, and the helpers that build them.

A case is one graph run by `dfg run`. Its fetches are compared with the
oracle (TensorFlow.js running the same GraphDef) when `oracle` is set, except
those in `oracle_skip` (outputs tfjs does not have, e.g. Merge:1), and with
the numpy values in `expected` where given; `expect_error` (a regex) instead
asks dfg to fail with that message.
"""
import dataclasses
import zlib

import numpy as np

BASE_SEED = 20261122


@dataclasses.dataclass
class Case:
    name: str
    op: str                       # the op under test (or "model")
    graph: str = None             # text GraphDef, or
    model: str = None             # a model file path
    feeds: dict = dataclasses.field(default_factory=dict)
    fetches: list = dataclasses.field(default_factory=list)
    expected: dict = dataclasses.field(default_factory=dict)
    expect_error: str = None
    oracle: bool = True           # compare with tfjs
    oracle_skip: list = dataclasses.field(default_factory=list)
    rtol: float = None
    atol: float = None
    why_numpy: str = ""           # why the oracle cannot check this case
    dfg_args: list = dataclasses.field(default_factory=list)  # e.g. --devices
    # (a, b): dfg's fetch a must equal its fetch b (a fused op against its
    # unfused form in the same graph), within the tolerance.
    equal_fetches: list = dataclasses.field(default_factory=list)

    def oracle_fetches(self):
        if not self.oracle or self.expect_error:
            return []
        return [f for f in self.fetches if f not in self.oracle_skip]


def rng_for(name):
    return np.random.default_rng(BASE_SEED ^ zlib.crc32(name.encode()))


def rand(rng, dtype, shape, domain="any"):
    """Random values of `dtype` for an op's domain.

    any: normal / [-9, 9]; pos: > 0; nonzero: |x| >= 0.5 / != 0; unit: (-1,
    1); half: multiples of 0.5 (rounding ties); small: [-3, 3]; special:
    normal values mixed with nan, inf, -inf and 0.
    """
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        lo, hi = {"pos": (1, 10), "small": (-3, 4), "nonzero": (1, 10)}.get(
            domain, (-9, 10))
        if dtype.kind == "u":
            lo = max(lo, 0)
        v = rng.integers(lo, hi, shape)
        if domain == "nonzero":
            v = v * rng.choice([-1, 1], shape)
        return v.astype(dtype)
    if domain == "pos":
        v = rng.uniform(0.2, 4.0, shape)
    elif domain == "nonzero":
        v = rng.uniform(0.5, 4.0, shape) * rng.choice([-1, 1], shape)
    elif domain == "unit":
        v = rng.uniform(-0.95, 0.95, shape)
    elif domain == "half":
        v = rng.integers(-8, 9, shape) / 2.0
    elif domain == "small":
        v = rng.uniform(-3, 3, shape)
    else:
        v = rng.normal(0, 2, shape)
    if domain == "special" and v.size:
        specials = np.array([np.nan, np.inf, -np.inf, 0.0])
        mask = rng.random(shape) < 0.4
        v = np.where(mask, rng.choice(specials, shape), v)
    return np.asarray(v).astype(dtype)


def shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def short(dtype):
    return {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64",
            "bool": "bool", "float16": "f16", "uint8": "u8", "int8": "i8",
            "int16": "i16"}[np.dtype(dtype).name]


def make(op, variant, g, fetches, **kw):
    return Case(name=f"{op}/{variant}", op=op, graph=g.text(),
                feeds=dict(g.feeds), fetches=list(fetches), **kw)


def numpy_case(op, variant, g, expected, why, **kw):
    """A case checked against numpy values instead of the oracle."""
    return make(op, variant, g, list(expected), expected=expected,
                oracle=False, why_numpy=why, **kw)
