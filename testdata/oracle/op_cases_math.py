"""Per-op cases for math_ops: element-wise, comparisons, reductions, MatMul.

Each case is one op whose inputs are Placeholders fed with seeded random
values (several shapes, broadcasting, dtypes float32/int32/bool and some
int64/float64, attribute values); attribute-like inputs (axes) are Consts.
"""
import numpy as np

from cases import make, numpy_case, rand, rng_for, shape_text, short
from graphs import Graph, Type

F = ["float32"]
FD = ["float32", "float64"]
FI = ["float32", "int32"]
FII = ["float32", "int32", "int64", "float64"]
UNARY_SHAPES = [(), (2, 3, 4)]
BINARY_SHAPES = [((2, 3), (2, 3)), ((2, 1, 4), (3, 1)), ((2, 3), (3,)),
                 ((), (4,)), ((5,), ())]


def shapes_for(dtypes, dt, shapes, n_other):
    """All shapes for an op's first dtype, the first n_other for the others
    (keeps the case count, and the run time, down)."""
    return shapes if dt == dtypes[0] else shapes[:n_other]

# op -> (dtypes, input domain, rtol for float32)
UNARY = {
    "Neg": (FII, "any", None), "Abs": (FII, "any", None),
    "Square": (FII, "any", None), "Sign": (FII, "any", None),
    "Sqrt": (FD, "pos", None), "Rsqrt": (FD, "pos", None),
    "Exp": (FD, "small", None), "Expm1": (F, "small", 1e-4),
    "Log": (FD, "pos", None), "Log1p": (F, "unit", 1e-4),
    "Reciprocal": (FD, "nonzero", None), "Sin": (F, "small", None),
    "Cos": (F, "small", None), "Tan": (F, "unit", None),
    "Asin": (F, "unit", None), "Acos": (F, "unit", None),
    "Atan": (F, "any", None), "Sinh": (F, "small", None),
    "Cosh": (F, "small", None), "Asinh": (F, "any", None),
    "Acosh": (F, "pos", None), "Atanh": (F, "unit", None),
    "Erf": (F, "small", 1e-4), "Sigmoid": (FD, "any", None),
    "Tanh": (FD, "any", None), "Relu": (FII, "any", None),
    "Relu6": (FI, "any", None), "Elu": (F, "any", None),
    "Selu": (F, "any", None), "Softplus": (F, "any", None),
    "Floor": (FD, "any", None), "Ceil": (FD, "any", None),
    "Round": (FD + ["int32"], "half", None), "IsNan": (F, "special", None),
    "IsInf": (F, "special", None), "IsFinite": (F, "special", None),
}
ACOSH_DOMAIN_SHIFT = 1.0  # Acosh needs x >= 1

BINARY = {
    "Add": (FII, "any", "any"), "AddV2": (FII, "any", "any"),
    "Sub": (FII, "any", "any"), "Mul": (FII, "any", "any"),
    "RealDiv": (FD, "any", "nonzero"), "Div": (["float32"], "any", "nonzero"),
    "FloorDiv": (["int32", "int64"], "any", "nonzero"),
    "FloorMod": (FI + ["int64"], "any", "nonzero"),
    "Maximum": (FII, "any", "any"), "Minimum": (FII, "any", "any"),
    "Pow": (["float32"], "pos", "small"),
    "SquaredDifference": (FI, "any", "any"), "Atan2": (F, "any", "any"),
    "DivNoNan": (F, "any", "any"),
}
COMPARE = ["Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"]


def unary_cases():
    for op, (dtypes, domain, rtol) in UNARY.items():
        for dt in dtypes:
            for shape in shapes_for(dtypes, dt, UNARY_SHAPES[::-1], 1):
                variant = f"{short(dt)}{shape_text(shape)}"
                rng = rng_for(f"{op}/{variant}")
                g = Graph()
                x = rand(rng, dt, shape, domain)
                if op == "Acosh":
                    x = (x + ACOSH_DOMAIN_SHIFT).astype(dt)
                g.op("y", op, [g.placeholder("x", x)], T=Type(dt))
                yield make(op, variant, g, ["y"], rtol=rtol)


def binary_cases():
    for op, (dtypes, dom_x, dom_y) in BINARY.items():
        for dt in dtypes:
            for sx, sy in shapes_for(dtypes, dt, BINARY_SHAPES, 2):
                variant = f"{short(dt)}{shape_text(sx)}x{shape_text(sy)}"
                rng = rng_for(f"{op}/{variant}")
                g = Graph()
                x = g.placeholder("x", rand(rng, dt, sx, dom_x))
                y = g.placeholder("y", rand(rng, dt, sy, dom_y))
                if op == "DivNoNan" and np.size(g.feeds["y"]):
                    g.feeds["y"].flat[0] = 0
                g.op("z", op, [x, y], T=Type(dt))
                yield make(op, variant, g, ["z"])
    yield from numpy_arith_cases()


def numpy_arith_cases():
    """Div on integers truncates toward zero in TensorFlow, but tfjs's div
    floors; tfjs's FloorDiv of floats returns int32; tfjs's Sign(NaN) is 0
    (TensorFlow 1.x), TensorFlow 2.x gives NaN: checked against numpy."""
    for sx, sy in BINARY_SHAPES[:3]:
        variant = f"f32{shape_text(sx)}x{shape_text(sy)}"
        rng = rng_for(f"FloorDiv/{variant}")
        g = Graph()
        x = g.placeholder("x", rand(rng, "float32", sx, "any"))
        y = g.placeholder("y", rand(rng, "float32", sy, "nonzero"))
        g.op("z", "FloorDiv", [x, y], T=Type("float32"))
        want = np.floor_divide(g.feeds["x"], g.feeds["y"])
        yield numpy_case("FloorDiv", variant, g, {"z": want},
                         "float FloorDiv (tfjs returns int32)")
    for dt in ["float32", "float64"]:
        g = Graph()
        x = g.placeholder("x", rand(rng_for(f"Sign/{dt}"), dt, (4, 5), "special"))
        g.op("y", "Sign", [x], T=Type(dt))
        yield numpy_case("Sign", f"{short(dt)}/nan_inf", g,
                         {"y": np.sign(g.feeds["x"])},
                         "Sign(NaN) is NaN in TensorFlow 2 (tfjs: 0)")
    for dt in ["int32", "int64"]:
        for sx, sy in BINARY_SHAPES[:3]:
            variant = f"{short(dt)}{shape_text(sx)}x{shape_text(sy)}"
            rng = rng_for(f"Div/{variant}")
            g = Graph()
            x = g.placeholder("x", rand(rng, dt, sx, "any"))
            y = g.placeholder("y", rand(rng, dt, sy, "nonzero"))
            g.op("z", "Div", [x, y], T=Type(dt))
            a, b = g.feeds["x"], g.feeds["y"]
            want = (np.trunc(a / b)).astype(dt)
            yield numpy_case("Div", variant, g, {"z": want},
                             "integer Div truncates (tfjs floors)")


def compare_cases():
    for op in COMPARE:
        dtypes = FII + (["bool"] if op in ("Equal", "NotEqual") else [])
        for dt in dtypes:
            for sx, sy in shapes_for(dtypes, dt, BINARY_SHAPES, 2):
                variant = f"{short(dt)}{shape_text(sx)}x{shape_text(sy)}"
                rng = rng_for(f"{op}/{variant}")
                g = Graph()
                dom = "small" if dt != "float32" else "half"
                x = g.placeholder("x", rand(rng, dt, sx, dom))
                y = g.placeholder("y", rand(rng, dt, sy, dom))
                g.op("z", op, [x, y], T=Type(dt))
                yield make(op, variant, g, ["z"])
    for op, fill in (("Equal", False), ("NotEqual", True)):
        g = Graph()
        x = g.placeholder("x", np.ones((2, 3), np.float32))
        y = g.placeholder("y", np.ones((4,), np.float32))
        g.op("z", op, [x, y], T=Type("float32"), incompatible_shape_error=False)
        yield numpy_case(op, "incompatible_shapes_no_error", g,
                         {"z": np.array(fill)},
                         "incompatible_shape_error=false (tfjs has no such attr)")


def logical_cases():
    for op in ["LogicalAnd", "LogicalOr"]:
        for sx, sy in BINARY_SHAPES:
            variant = f"{shape_text(sx)}x{shape_text(sy)}"
            rng = rng_for(f"{op}/{variant}")
            g = Graph()
            x = g.placeholder("x", rand(rng, "bool", sx))
            y = g.placeholder("y", rand(rng, "bool", sy))
            g.op("z", op, [x, y])
            yield make(op, variant, g, ["z"])
    for shape in UNARY_SHAPES:
        g = Graph()
        x = g.placeholder("x", rand(rng_for(f"LogicalNot{shape}"), "bool", shape))
        g.op("y", "LogicalNot", [x])
        yield make("LogicalNot", shape_text(shape), g, ["y"])


REDUCTIONS = {"Sum": FII, "Mean": ["float32", "float64"], "Prod": FI,
              "Max": FII, "Min": FII, "All": ["bool"], "Any": ["bool"]}
# (axes, keep_dims): all for an op's first dtype, the first 3 for the others.
AXES = [([0, 2], False), (-1, False), ([1], True), (0, False), ([-1, 0], False),
        ([], False), ([], True), ([0, 1, 2], False)]


def reduction_cases():
    for op, dtypes in REDUCTIONS.items():
        for dt in dtypes:
            for axes, keep in shapes_for(dtypes, dt, AXES, 3):
                variant = (f"{short(dt)}[2,3,4]/axis={axes}"
                           f"{'/keep_dims' if keep else ''}")
                rng = rng_for(f"{op}/{variant}")
                g = Graph()
                dom = "small" if op == "Prod" else "any"
                x = g.placeholder("x", rand(rng, dt, (2, 3, 4), dom))
                tidx = "int64" if isinstance(axes, list) and len(axes) == 2 \
                    else "int32"
                a = g.const("axes", np.array(axes, dtype=tidx))
                attrs = {"Tidx": Type(tidx), "keep_dims": keep}
                if dt != "bool":
                    attrs["T"] = Type(dt)
                g.op("y", op, [x, a], **attrs)
                yield make(op, variant, g, ["y"])
    yield from integer_mean_cases()


def integer_mean_cases():
    """Mean of integers divides with truncation in TensorFlow; tfjs returns a
    float mean. Checked against numpy."""
    for axes in [0, [1, 2], -1]:
        variant = f"i32[2,3,4]/axis={axes}"
        g = Graph()
        x = g.placeholder("x", rand(rng_for(f"Mean/{variant}"), "int32", (2, 3, 4)))
        a = g.const("axes", np.array(axes, dtype=np.int32))
        g.op("y", "Mean", [x, a], T=Type("int32"), Tidx=Type("int32"))
        v = g.feeds["x"].astype(np.int64)
        ax = tuple(np.atleast_1d(axes))
        count = np.prod([v.shape[i] for i in ax])
        want = np.trunc(v.sum(axis=ax) / count).astype(np.int32)
        yield numpy_case("Mean", variant, g, {"y": want},
                         "integer Mean truncates (tfjs gives a float mean)")


def arg_cases():
    for op in ["ArgMax", "ArgMin"]:
        for dt in ["float32", "int32"]:
            for axis in [0, 1, -1]:
                for out in ["int64", "int32"]:
                    variant = f"{short(dt)}[3,4,5]/axis={axis}/{out}"
                    rng = rng_for(f"{op}/{variant}")
                    g = Graph()
                    x = g.placeholder("x", rand(rng, dt, (3, 4, 5)))
                    a = g.const("axis", np.array(axis, np.int32))
                    g.op("y", op, [x, a], T=Type(dt), Tidx=Type("int32"),
                         output_type=Type(out))
                    yield make(op, variant, g, ["y"])


def matmul_cases():
    for dt in ["float32", "float64", "int32"]:
        for ta in (False, True):
            for tb in (False, True):
                variant = f"{short(dt)}/transpose_a={ta}/transpose_b={tb}"
                rng = rng_for(f"MatMul/{variant}")
                g = Graph()
                sa = (4, 3) if ta else (3, 4)
                sb = (5, 4) if tb else (4, 5)
                a = g.placeholder("a", rand(rng, dt, sa, "small"))
                b = g.placeholder("b", rand(rng, dt, sb, "small"))
                g.op("c", "MatMul", [a, b], T=Type(dt), transpose_a=ta,
                     transpose_b=tb)
                yield make("MatMul", variant, g, ["c"], rtol=1e-5, atol=1e-5)
    # tfjs 4.22 broadcasts batch dims of different ranks wrongly ([2,1] vs
    # [3] gives 45 values for [2,3,3,5]): that case is numpy-only.
    for sa, sb, adj, oracle in [((2, 3, 4), (2, 4, 5), (False, False), True),
                                ((2, 1, 3, 4), (3, 5, 4), (False, True), False),
                                ((4, 3), (2, 4, 5), (True, False), True)]:
        variant = f"f32{shape_text(sa)}x{shape_text(sb)}/adj={adj}"
        rng = rng_for(f"BatchMatMulV2/{variant}")
        g = Graph()
        a = g.placeholder("a", rand(rng, "float32", sa))
        b = g.placeholder("b", rand(rng, "float32", sb))
        g.op("c", "BatchMatMulV2", [a, b], T=Type("float32"), adj_x=adj[0],
             adj_y=adj[1])
        va, vb = g.feeds["a"], g.feeds["b"]
        want = np.matmul(np.swapaxes(va, -1, -2) if adj[0] else va,
                         np.swapaxes(vb, -1, -2) if adj[1] else vb)
        yield make("BatchMatMulV2", variant, g, ["c"], expected={"c": want},
                   oracle=oracle, rtol=1e-5, atol=1e-5)


def addn_cases():
    for dt in FI:
        for n in (1, 2, 4):
            variant = f"{short(dt)}/N={n}"
            rng = rng_for(f"AddN/{variant}")
            g = Graph()
            xs = [g.placeholder(f"x{i}", rand(rng, dt, (2, 3))) for i in range(n)]
            g.op("y", "AddN", xs, N=n, T=Type(dt))
            yield make("AddN", variant, g, ["y"])


def cumulative_cases():
    """tfjs 4.22 returns no values for a negative axis: -1 is numpy-only."""
    for op in ["Cumsum", "Cumprod"]:
        g = Graph()
        x = g.placeholder("x", rand(rng_for(f"{op}/neg"), "float32", (3, 4), "small"))
        a = g.const("axis", np.array(-1, np.int32))
        g.op("y", op, [x, a], T=Type("float32"), Tidx=Type("int32"))
        fn = np.cumsum if op == "Cumsum" else np.cumprod
        yield numpy_case(op, "f32[3,4]/axis=-1", g, {"y": fn(g.feeds["x"], axis=-1)},
                         "negative axis (tfjs returns nothing)", rtol=1e-5, atol=1e-5)
        for axis in [0, 1]:
            for excl in (False, True):
                for rev in (False, True):
                    variant = f"f32[3,4]/axis={axis}/exclusive={excl}/reverse={rev}"
                    rng = rng_for(f"{op}/{variant}")
                    g = Graph()
                    x = g.placeholder("x", rand(rng, "float32", (3, 4), "small"))
                    a = g.const("axis", np.array(axis, np.int32))
                    g.op("y", op, [x, a], T=Type("float32"), Tidx=Type("int32"),
                         exclusive=excl, reverse=rev)
                    yield make(op, variant, g, ["y"])


def all_cases():
    for gen in (unary_cases, binary_cases, compare_cases, logical_cases,
                reduction_cases, arg_cases, matmul_cases, addn_cases,
                cumulative_cases):
        yield from gen()
