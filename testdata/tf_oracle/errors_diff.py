"""The error differential: for each golden bad-input case that TensorFlow can
produce (missing feed, bad fetch, cycle, unknown op, shape and dtype
mismatches, placement), TensorFlow's error text is cut into phrases and each
phrase must appear in dfg's stderr (whitespace normalized).

TensorFlow is driven through Session._make_callable_from_options (feeds and
fetches reach DirectSession as strings, as from a C++ client) or, where the
check lives in the Python client (a fed value's shape), through session.run.
TensorFlow's `[[{{node x}}]]` context lines are not compared (dfg names the
node in its own way).
"""
import os
import re
import shlex
import subprocess
import threading

import numpy as np

import known
from common import Result

MLP = "testdata/models/mlp.pbtxt"
MLP_X = "testdata/models/mlp_input.npy"
PRUNE_MODEL = "testdata/golden/prune/model.pbtxt"
UNKNOWN_OP = 'node { name: "x" op: "NoSuchOp" }\n'
DEPRECATED_OP = ('node { name: "x" op: "PlaceholderV2" attr { key: "dtype" value { type: '
                 'DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }\n'
                 'node { name: "y" op: "Neg" input: "x" attr { key: "T" value { type: '
                 'DT_FLOAT } } }\nversions { producer: 1395 }\n')


def _mlp(ts, src):
    return ts.load_graph_def(os.path.join(src, MLP))


def _x(src, dtype=np.float32):
    return np.load(os.path.join(src, MLP_X)).astype(dtype)


# name -> (dfg arguments or golden case, TensorFlow action(ts, src) -> Run)
CASES = {
    "run/missing_feed": (
        "golden", lambda ts, s: ts.run_callable(_mlp(ts, s), {}, ["probs:0"])),
    "run/unknown_fetch": (
        "golden", lambda ts, s: ts.run_callable(_mlp(ts, s), {"x:0": _x(s)}, ["prob:0"])),
    "run/fed_and_fetched": (
        "golden", lambda ts, s: ts.run_callable(_mlp(ts, s), {"x": _x(s)}, ["x"])),
    # An int32 feed of a float input: dfg run converts it, as TensorFlow's
    # Python Session does (golden run/feed_int_as_float), where a callable
    # refuses it; nothing to compare.
    # The shape check is the Python client's (session.py); DirectSession
    # itself would run and fail in MatMul.
    "run/wrong_shape": (
        "golden", lambda ts, s: ts.run_session(_mlp(ts, s), {"x:0": np.ones(3, np.float32)},
                                             ["probs:0"])),
    "run/no_gpu_without_soft": (
        "golden", lambda ts, s: ts.run_callable(_mlp(ts, s), {"x:0": _x(s)}, ["probs:0"],
                                                soft=False)),
    # A Session checks feeds and fetches (GraphExecutionState) before it
    # prunes: its texts are dfg run's. dfg prune's own golden cases
    # (prune/err_not_found, prune/err_fetch_noop) keep the texts of
    # RewriteGraphForExecution, which dfg prune is, and a Session no longer
    # reaches.
    "run/fetch_not_found": (
        "golden", lambda ts, s: ts.run_callable(
            ts.load_graph_def(os.path.join(s, PRUNE_MODEL)), {}, ["prob:0"])),
    "prune/err_fed_and_fetched": (
        "golden", lambda ts, s: ts.run_callable(
            ts.load_graph_def(os.path.join(s, PRUNE_MODEL)),
            {"probs:0": np.zeros((1, 3), np.float32)}, ["probs:0"])),
    "run/fetch_noop": (
        "golden", lambda ts, s: ts.run_callable(
            ts.load_graph_def(os.path.join(s, PRUNE_MODEL)), {}, ["init"])),
    "prune/err_no_fetch": (
        "golden", lambda ts, s: ts.run_callable(
            ts.load_graph_def(os.path.join(s, PRUNE_MODEL)), {"x": _x(s)}, [])),
    "place/err_gpu_missing": (
        "golden", lambda ts, s: ts.run_callable(
            ts.load_graph_def(os.path.join(s, "testdata/golden/place/model.pbtxt")), {},
            ["output"], soft=False)),
    "convert/err_cycle": (
        "golden", lambda ts, s: ts.run_callable(ts.load_graph_def(
            os.path.join(s, "testdata/golden/convert/err_cycle/cycle.pbtxt")), {}, ["out"])),
    "convert/err_dangling_input": (
        "golden", lambda ts, s: ts.run_callable(ts.load_graph_def(os.path.join(
            s, "testdata/golden/convert/err_dangling_input/dangling.pbtxt")), {}, ["y"])),
    "convert/err_duplicate_names": (
        "golden", lambda ts, s: ts.run_callable(ts.load_graph_def(os.path.join(
            s, "testdata/golden/convert/err_duplicate_names/dup.pbtxt")), {}, ["x"])),
    "convert/err_control_before_data": (
        "golden", lambda ts, s: ts.run_callable(ts.load_graph_def(os.path.join(
            s, "testdata/golden/convert/err_control_before_data/order.pbtxt")), {}, ["y"])),
    # No golden case: an op no one registers, run by `dfg run`.
    "run/unknown_op": (
        ["run", "{work}/unknown_op.pbtxt", "--fetch", "x"],
        lambda ts, s: ts.run_callable(ts.load_graph_def(text=UNKNOWN_OP), {}, ["x"])),
    # No golden case: an op removed from GraphDef version 23 on.
    "run/deprecated_op": (
        ["run", "{work}/deprecated_op.pbtxt", "--feed", "x={work}/x2.npy", "--fetch", "y"],
        lambda ts, s: ts.run_callable(ts.load_graph_def(text=DEPRECATED_OP),
                                      {"x": np.ones(2, np.float32)}, ["y"])),
}
# Golden error cases TensorFlow cannot produce, and why (printed as skips).
CANNOT = {
    "place/err_unsatisfiable": "asks for /device:GPU:11 among two GPUs: "
                               "TensorFlow makes no GPU devices without CUDA",
    "info/err_cycle_pb": "its Placeholder has no dtype: TensorFlow stops there "
                         "(NodeDef missing attr 'dtype'), before the cycle",
}


def phrases(message):
    """TensorFlow's message without [[...]] context lines, cut after . ; and
    the ': ' that ends a leading clause; the host name and the tf.contrib note
    of "Op type not registered" are left out."""
    text = re.sub(r"\s*\[\[.*?\]\]", "", message)
    # Not dfg's business: the host name, and the advice about tf.contrib.
    text = re.sub(r" in binary running on \S+?\.", ".", text)
    text = re.sub(r"\s*Note that if you are loading a saved graph which used ops from "
                  r"tf\.contrib.*", "", text, flags=re.S)
    text = " ".join(text.split())
    parts = re.split(r"(?<=[.;])\s+|:\s+(?=[A-Z{])", text)
    return [p.strip().rstrip(".") for p in parts if p.strip().rstrip(".")]


def dfg_args(ctx, name, spec):
    if spec != "golden":
        return [a.format(work=ctx.work) for a in spec]
    with open(os.path.join(ctx.source_dir, "testdata", "golden", name, "args")) as f:
        return shlex.split(f.read())


_WRITTEN = threading.Lock()


def write_inputs(ctx):
    """The files the non-golden cases read, written once: cases run in
    parallel, and a file rewritten while another case's dfg reads it is
    empty for that dfg."""
    with _WRITTEN:
        if getattr(ctx, "errors_inputs_written", False):
            return
        for file, text in [("unknown_op.pbtxt", UNKNOWN_OP),
                           ("deprecated_op.pbtxt", DEPRECATED_OP)]:
            with open(os.path.join(ctx.work, file), "w") as f:
                f.write(text)
        np.save(os.path.join(ctx.work, "x2.npy"), np.ones(2, np.float32))
        ctx.errors_inputs_written = True


def check(ctx, name, spec, action):
    import tf_session  # pylint: disable=import-outside-toplevel
    write_inputs(ctx)
    args = dfg_args(ctx, name, spec)
    r = subprocess.run([ctx.dfg] + args, cwd=ctx.source_dir, capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL)
    tf = action(tf_session, ctx.source_dir)
    if tf.error is None:
        return Result("fail", "TensorFlow succeeds")
    if r.returncode != 1:
        return Result("fail", f"dfg exit status {r.returncode}, expected 1; TensorFlow: "
                              f"{tf.message}")
    got = " ".join(r.stderr.split())
    missing = [p for p in phrases(tf.error[1]) if p not in got]
    if missing:
        return Result("fail", f"TensorFlow's phrases missing from dfg's error: {missing}; "
                              f"dfg: {got[:300]}")
    return Result("pass")


def tasks(ctx):
    out = []
    for name, (spec, action) in CASES.items():
        full = f"errors/{name}"
        out.append((full, lambda n=name, s=spec, a=action, f=full:
                    known.apply(f, check(ctx, n, s, a))))
    for name, why in CANNOT.items():
        out.append((f"errors/{name}", lambda why=why: Result("skip", why)))
    return out
