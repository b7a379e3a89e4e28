"""The run differential: every generated op case and corpus model of the tfjs
oracle (../oracle), run by TensorFlow (a tf.compat.v1 Session importing the
same GraphDef, same feeds) and by `dfg run`, fetches compared.

TensorFlow runs the step through DirectSession::Run without the Python
client's own checks and casts (tf_session.run_graph), and without Grappler and the graph optimizer: dfg
implements DirectSession's pipeline, not Grappler's rewrites (which are meant
to keep results unchanged; one that does not is in README.md).

Comparison (`compare_values`): dtype and shape exactly; bool, integers and
strings exactly; floats within atol + rtol*|tf| with NaN/Inf at the same
places. Tolerances (`tolerance`): float32 rtol = atol = 1e-5 (about 80 ulp:
dfg and TensorFlow call different libm/Eigen code for exp, tanh, erf..., a
few ulp apart), or the case's own looser rtol/atol where the tfjs oracle set
one (1e-4 for convolutions, softmax, GEMM-heavy models: the summation order
differs and cancellation amplifies rounding); float64 rtol 1e-12, atol 1e-12
(float64 done in float32 would be off by ~1e-8); float16 1e-3.
"""
import dataclasses
import os
import re
import subprocess

import numpy as np

import known
from common import Result, out_file, write_npy_feeds

# Cases TensorFlow cannot be asked to run, with the reason (printed as skips).
TF_CANNOT = {
    "Abort/error_msg": "TensorFlow's Abort kernel ends the process (no error to compare)",
}
# Cases that need the feed/fetch names as strings (tf_session.run_callable):
# only a C++ client can feed `unranked` and fetch `unranked:0` (the C API
# names every tensor node:port).
BY_NAME = {"model/tflite_e2e__graph_with_placeholder_with_default.pbtxt#2"}
# Fetches only the TF oracle compares (values tfjs and numpy cannot know).
EXTRA_FETCHES = {
    "RandomUniform/f32[3,4]/floor": ["u"],  # Philox4x32-10 values, seed 7/3
}


def _producer_22(case):
    """PlaceholderV2 is deprecated from GraphDef version 23 on: TensorFlow
    refuses it in a producer-1395 graph (errors section: ops/deprecated)."""
    return dataclasses.replace(case, graph=case.graph.replace("producer: 1395",
                                                              "producer: 22"))


def _no_leading_underscore(case):
    """Python's import_graph_def (TF_GraphImportGraphDef) rejects node names
    that start with '_' ("Node name contains invalid characters"), which
    DirectSession::Create would take: both sides run the graph with those
    nodes renamed u_<name>."""
    from google.protobuf import text_format  # pylint: disable=import-outside-toplevel
    import tf_session  # pylint: disable=import-outside-toplevel
    gd = tf_session.load_graph_def(path=case.model, text=case.graph)
    bad = {n.name for n in gd.node if n.name.startswith("_")}

    def fix(name):
        ctrl = name.startswith("^")
        base, _, port = name.lstrip("^").partition(":")
        if base in bad:
            base = "u" + base
        return ("^" if ctrl else "") + base + (":" + port if port else "")
    for n in gd.node:
        n.name = fix(n.name)
        n.input[:] = [fix(i) for i in n.input]
    return dataclasses.replace(case, graph=text_format.MessageToString(gd), model=None,
                               fetches=[fix(f) for f in case.fetches],
                               feeds={fix(k): v for k, v in case.feeds.items()})


# Rewrites of a case before both sides run it, and why (see the functions).
FIXUPS = {
    "PlaceholderV2/f32[2,3]": _producer_22,
    "model/tfmlir__switch_n.pbtxt": _no_leading_underscore,
    "model/tfmlir__graph-custom-operation.pbtxt": _no_leading_underscore,
}
NO_KERNEL = re.compile(r"No OpKernel was registered to support Op '([^']+)'"
                       r"[^\n]*with these attrs: \[([^\]]*)\]")
UNKNOWN_OP = re.compile(r"Op type not registered '([^']+)'")


def tolerance(case, dtype):
    name = np.dtype(dtype).name
    if name == "float64":
        return 1e-12, 1e-12
    if name == "float16":  # a case may ask for more (long half reductions)
        return max(case.rtol or 0, 1e-3), max(case.atol or 0, 1e-3)
    return max(case.rtol or 0, 1e-5), max(case.atol or 0, 1e-5)


def _kind(a):
    k = a.dtype.kind
    return "str" if k in "OSU" else ("float" if k == "f" else
                                     ("bool" if k == "b" else "int"))


def compare_values(got, want, rtol, atol):
    """None when equal (floats within tolerance), else a one-line reason."""
    if _kind(got) == "str" or _kind(want) == "str":
        g = [v if isinstance(v, bytes) else str(v).encode() for v in got.ravel()]
        w = [v if isinstance(v, bytes) else str(v).encode() for v in want.ravel()]
        if got.shape != want.shape:
            return f"shape {list(got.shape)}, expected {list(want.shape)}"
        return None if g == w else f"strings differ: dfg={g[:4]} tf={w[:4]}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, TensorFlow {want.dtype}"
    if got.shape != want.shape:
        return f"shape {list(got.shape)}, TensorFlow {list(want.shape)}"
    if got.size == 0:
        return None
    if _kind(got) != "float":
        bad = got != want
        if not bad.any():
            return None
        i = np.unravel_index(np.argmax(bad), bad.shape)
        return (f"{int(bad.sum())}/{bad.size} elements differ; first at {list(i)}: "
                f"dfg={got[i]} tf={want[i]}")
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan_bad = np.isnan(g) != np.isnan(w)
    inf_bad = (np.isinf(g) | np.isinf(w)) & (g != w) & ~np.isnan(g) & ~np.isnan(w)
    finite = np.isfinite(g) & np.isfinite(w)
    err = np.where(finite, np.abs(g - w), 0.0)
    bad = nan_bad | inf_bad | (err > atol + rtol * np.abs(np.where(finite, w, 0)))
    if not bad.any():
        return None
    i = np.unravel_index(np.argmax(np.where(bad, err + (nan_bad | inf_bad), -1)),
                         bad.shape)
    return (f"{int(bad.sum())}/{bad.size} elements off; max abs err "
            f"{err[bad].max():.3g} (rtol {rtol:g}, atol {atol:g}); at {list(i)}: "
            f"dfg={g[i]!r} tf={w[i]!r}")


def run_dfg(ctx, case, fetches, directory, extra=(), out="dfg"):
    if case.graph is not None:
        graph = os.path.join(directory, "graph.pbtxt")
        os.makedirs(directory, exist_ok=True)
        with open(graph, "w") as f:
            f.write(case.graph)
    else:
        graph = case.model
    if extra:
        # The second run reads the files the first wrote: TensorFlow, which
        # ran in between, may have updated a fed array in place (InplaceAdd
        # forwards its input).
        feeds = {name: os.path.join(directory, f"feed{i}.npy")
                 for i, name in enumerate(case.feeds)}
    else:
        feeds = write_npy_feeds(directory, case.feeds)
    cmd = [ctx.dfg, "run", graph, "--output-dir", os.path.join(directory, out)]
    if not extra:
        cmd += ["--dump-partitions", os.path.join(directory, "partitions")]
    for name, path in feeds.items():
        cmd += ["--feed", f"{name}={path}"]
    for fetch in fetches:
        cmd += ["--fetch", fetch]
    if case.graph is not None and not case.dfg_args:
        cmd += ["--threads", "1", "--intra-threads", "1"]
    cmd += case.dfg_args + list(extra)
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "error", "dfg run timed out after 120 s"
    if r.returncode == 0:
        return "ok", ""
    m = NO_KERNEL.search(r.stderr)
    if m:
        return "skip", f"no kernel in dfg: {m.group(1)}" + (
            "" if "<no registered kernels>" in r.stderr else f" with [{m.group(2)}]")
    m = UNKNOWN_OP.search(r.stderr)
    if m:
        return "skip", f"op unknown to dfg: {m.group(1)}"
    return "error", r.stderr.strip()


def run_tf(ctx, case, fetches):
    import tf_session  # pylint: disable=import-outside-toplevel
    gd = tf_session.load_graph_def(path=case.model, text=case.graph)
    cpus = 2 if "cpu:1" in " ".join(case.dfg_args) else 1
    run = (tf_session.run_callable if case.name in BY_NAME else tf_session.run_graph)
    return run(gd, case.feeds, fetches, cpus=cpus)


def check_case(ctx, case, directory):
    """One case: (status, message)."""
    if case.name in TF_CANNOT:
        return "skip", TF_CANNOT[case.name]
    if case.model and not os.path.exists(case.model):
        missing = model_missing(case.model)
        return missing.status, missing.message
    if case.name in FIXUPS:
        case = FIXUPS[case.name](case)
    fetches = list(case.fetches) + EXTRA_FETCHES.get(case.name, [])
    status, dfg_msg = run_dfg(ctx, case, fetches, directory)
    if status == "skip":
        return status, dfg_msg
    tf = run_tf(ctx, case, fetches)
    if case.expect_error:
        problems = []
        if status == "ok":
            problems.append("dfg succeeded")
        elif not re.search(case.expect_error, dfg_msg):
            problems.append(f"dfg's error does not match /{case.expect_error}/: {dfg_msg}")
        if tf.error is None:
            problems.append("TensorFlow succeeded")
        elif not re.search(case.expect_error, tf.error[1]):
            problems.append(f"TensorFlow's error does not match "
                            f"/{case.expect_error}/: {tf.message}")
        return ("fail", "; ".join(problems)) if problems else ("pass", "")
    if tf.error and status != "ok":
        return "fail", f"both fail; dfg: {dfg_msg[:300]} | TensorFlow: {tf.message[:300]}"
    if tf.error:
        return "fail", f"TensorFlow fails, dfg succeeds: {tf.message[:400]}"
    if status != "ok":
        return "fail", f"dfg fails, TensorFlow succeeds: {dfg_msg[:400]}"
    problems = compare_outputs(case, fetches, os.path.join(directory, "dfg"), tf)
    if problems:
        return "fail", "; ".join(problems)
    # The graph as written too: dfg run optimizes by default (lib/optimize),
    # and both forms must compute TensorFlow's values.
    status, dfg_msg = run_dfg(ctx, case, fetches, directory,
                              extra=["--no-optimize"], out="dfg_plain")
    if status != "ok":
        return "fail", f"dfg run --no-optimize fails, TensorFlow succeeds: {dfg_msg[:400]}"
    problems = compare_outputs(case, fetches, os.path.join(directory, "dfg_plain"), tf)
    return ("fail", "--no-optimize: " + "; ".join(problems)) if problems else ("pass", "")


def compare_outputs(case, fetches, out_dir, tf):
    """Each fetch dfg wrote to out_dir against TensorFlow's value: problems."""
    problems = []
    for fetch in fetches:
        path = out_file(out_dir, fetch)
        if not os.path.exists(path):
            problems.append(f"{fetch}: dfg wrote no {os.path.basename(path)}")
            continue
        got = np.load(path, allow_pickle=False)
        want = tf.values[fetch]
        msg = compare_values(got, want, *tolerance(case, want.dtype))
        if msg:
            problems.append(f"{fetch}: {msg}")
    return problems


def collect(ctx):
    """The tfjs oracle's cases (op cases, numpy cases, corpus models), built
    once per run (the partition and extract sections use them too)."""
    if not hasattr(ctx, "oracle_cases"):
        import difftest  # pylint: disable=import-outside-toplevel
        ctx.oracle_cases = difftest.collect(ctx.oracle_args())
    cases, notes = ctx.oracle_cases
    return list(cases), list(notes)


def tasks(ctx):
    cases, notes = collect(ctx)
    ctx.notes.extend(notes)
    out = []
    for i, case in enumerate(cases):
        name = f"run/{case.name}"

        def fn(case=case, i=i):
            directory = os.path.join(ctx.work, "run", f"{i:04d}")
            status, msg = check_case(ctx, case, directory)
            return known.apply(name_of(case), Result(status, msg,
                                                     ops=graph_ops(case, directory),
                                                     tested=frozenset([case.op])))
        out.append((name, fn))
    return out


OP_LINE = re.compile(r'^\s*op: "([^"]+)"$', re.M)


def graph_ops(case, directory=None):
    """The op types of a case's graph and of its function library, and of
    the partition graphs dfg ran (`--dump-partitions`: _Send, _Recv...)."""
    if case.model and not os.path.exists(case.model):
        return frozenset()
    import tf_session  # pylint: disable=import-outside-toplevel
    gd = tf_session.load_graph_def(path=case.model, text=case.graph)
    ops = {n.op for n in gd.node}
    for f in gd.library.function:
        ops |= {n.op for n in f.node_def}
    parts = os.path.join(directory or "", "partitions")
    if directory and os.path.isdir(parts):
        for name in os.listdir(parts):
            with open(os.path.join(parts, name), encoding="utf-8", errors="replace") as f:
                ops |= set(OP_LINE.findall(f.read()))
    return frozenset(ops)


def name_of(case):
    return f"run/{case.name}"
