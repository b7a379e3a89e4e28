"""SavedModel checks: the SavedModels of make_savedmodels.py (Keras MLP and
CNN, a TF1 graph with VariableV2, a vocabulary-asset table, tf.Example input,
several signatures, string and int64 variables, a sharded checkpoint), each
signature run by TensorFlow and
  run/...:    `dfg run DIR --signature KEY --feed k=in.npy --output-dir D`
              (outputs named by the signature's output keys);
  freeze/...: `dfg freeze DIR --signature KEY -o frozen.pb`, then TensorFlow
              runs frozen.pb (inputs are Placeholders named by the input keys,
              outputs nodes named by the output keys; its init_all_tables
              first, when it has lookup tables) and so does `dfg run`.
Both need dfg's features: when `dfg run --help` no longer lists --signature
or `dfg --help` no longer lists freeze, every case of that kind fails and
says what changed in the help text (a renamed flag must not turn the section
into skips).

The models (with the zoo of zoo_models.py) are written once into
--savedmodel-dir (default: the work directory; ctest's is in the build
directory) and rewritten only when make_savedmodels.py or zoo_models.py
changes.
"""
import hashlib
import json
import os
import subprocess
import sys
import threading

import numpy as np

import known
from common import Result
from run_diff import compare_values

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "make_savedmodels.py")
# What the models are made from: a change to either rewrites them.
SOURCES = [SCRIPT, os.path.join(HERE, "zoo_models.py")]
TOL = {"float64": (1e-12, 1e-12)}
# np.load parses a .npy header with ast.literal_eval, which the venv's
# CPython 3.11.7 can break when two threads run it at once ("SystemError: AST
# constructor recursion depth mismatch", seen here): the cases load one at a
# time.
_LOAD_LOCK = threading.Lock()


def load_npy(path):
    with _LOAD_LOCK:
        return np.load(path)


def missing_features(ctx):
    """(why run --signature cannot be checked, why freeze cannot), each None
    when dfg's help text still shows the feature."""
    def help_text(*sub):
        cmd = " ".join(["dfg", *sub, "--help"])
        try:
            r = subprocess.run([ctx.dfg, *sub, "--help"], capture_output=True, text=True,
                               timeout=30)
        except (OSError, subprocess.TimeoutExpired) as e:
            return None, f"`{cmd}` did not run: {e}"
        if r.returncode != 0:
            return None, f"`{cmd}` exited with {r.returncode}: {r.stderr.strip()[:200]}"
        return r.stdout + r.stderr, None
    run_help, run_err = help_text("run")
    if run_help is not None and "--signature" not in run_help:
        run_err = "`dfg run --help` no longer lists --signature (the help text changed)"
    # An unknown subcommand's --help prints dfg's own help: look for freeze in
    # the list of subcommands instead.
    subcommands, freeze_err = help_text()
    if subcommands is not None and not any(
            line.split()[:1] == ["freeze"] for line in subcommands.splitlines()):
        freeze_err = ("`dfg --help` no longer lists the freeze subcommand "
                      "(the help text changed)")
    return run_err, freeze_err


def ensure_models(ctx):
    """Writes the SavedModels unless an up-to-date set is there; the cases."""
    out = ctx.savedmodel_dir
    sha = hashlib.sha256()
    for source in SOURCES:
        with open(source, "rb") as f:
            sha.update(f.read())
    digest = sha.hexdigest()
    stamp = os.path.join(out, "stamp")
    if not (os.path.exists(stamp) and open(stamp).read() == digest):
        r = subprocess.run([sys.executable, SCRIPT, out], capture_output=True, text=True,
                           timeout=900)
        if r.returncode != 0:
            raise RuntimeError(f"make_savedmodels.py failed: {r.stderr.strip()[-600:]}")
        with open(stamp, "w") as f:
            f.write(digest)
    with open(os.path.join(out, "cases.json")) as f:
        return {(c["model"], c["signature"]): c for c in json.load(f)}


def compare_outputs(got_dir, case, names=None):
    problems = []
    for key, ref_path in case["outputs"].items():
        path = os.path.join(got_dir, (names or {}).get(key, key) + ".npy")
        if not os.path.exists(path):
            problems.append(f"{key}: no {os.path.basename(path)} written")
            continue
        want = load_npy(ref_path)
        got = load_npy(path)
        rtol, atol = TOL.get(want.dtype.name, (1e-5, 1e-5))
        msg = compare_values(got, want, rtol, atol)
        if msg:
            problems.append(f"{key}: {msg}")
    return "; ".join(problems)


def check_run(ctx, case, d):
    """Optimized (dfg run's default) and as written (--no-optimize)."""
    for extra, out in (([], d), (["--no-optimize"], os.path.join(d, "plain"))):
        cmd = [ctx.dfg, "run", case["dir"], "--signature", case["signature"],
               "--output-dir", out] + extra
        for k, path in case["inputs"].items():
            cmd += ["--feed", f"{k}={path}"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        what = "dfg run" + "".join(" " + e for e in extra)
        if r.returncode != 0:
            return Result("fail", f"{what} failed: {r.stderr.strip()[:400]}")
        msg = compare_outputs(out, case)
        if msg:
            return Result("fail", f"{what}: {msg}")
    return Result("pass")


def check_freeze(ctx, case, d):
    import tf_session  # pylint: disable=import-outside-toplevel
    os.makedirs(d, exist_ok=True)
    frozen = os.path.join(d, "frozen.pb")
    r = subprocess.run([ctx.dfg, "freeze", case["dir"], "--signature", case["signature"],
                        "-o", frozen], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return Result("fail", f"dfg freeze failed: {r.stderr.strip()[:400]}")
    feeds = {k: load_npy(p) for k, p in case["inputs"].items()}
    graph_def = tf_session.load_graph_def(path=frozen)
    # A frozen graph with lookup tables fills them in init_all_tables: a
    # TensorFlow user runs it once before the lookups (dfg run does by itself).
    init = [n.name for n in graph_def.node if n.name == "init_all_tables"]
    tf_run = tf_session.run_graph(graph_def, feeds, list(case["outputs"]),
                                  init_targets=init)
    if tf_run.error:
        return Result("fail", f"TensorFlow cannot run the frozen graph: {tf_run.message[:400]}")
    problems = []
    for key, ref_path in case["outputs"].items():
        msg = compare_values(tf_run.values[key], load_npy(ref_path), 1e-5, 1e-5)
        if msg:
            problems.append(f"TensorFlow on frozen.pb, {key}: {msg}")
    cmd = [ctx.dfg, "run", frozen, "--output-dir", os.path.join(d, "dfg")]
    for k, path in case["inputs"].items():
        cmd += ["--feed", f"{k}={path}"]
    for key in case["outputs"]:
        cmd += ["--fetch", key]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        problems.append(f"dfg run frozen.pb failed: {r.stderr.strip()[:300]}")
    else:
        msg = compare_outputs(os.path.join(d, "dfg"), case)
        if msg:
            problems.append(f"dfg on frozen.pb: {msg}")
    if problems:
        return Result("fail", "; ".join(problems))
    ops = {n.op for n in graph_def.node}  # the frozen graph's: what dfg ran
    for f in graph_def.library.function:
        ops |= {n.op for n in f.node_def}
    return Result("pass", ops=frozenset(ops))


def tasks(ctx):
    sys.path.insert(0, HERE)
    from make_savedmodels import SIGNATURES  # pylint: disable=import-outside-toplevel
    run_err, freeze_err = missing_features(ctx)
    state = {}
    lock = threading.Lock()

    def cases():
        with lock:  # written once, by whichever case comes first
            if "cases" not in state:
                state["cases"] = ensure_models(ctx)
        return state["cases"]

    out = []
    for model, keys in SIGNATURES.items():
        for key in keys:
            for kind, why, fn in [("run", run_err, check_run),
                                  ("freeze", freeze_err, check_freeze)]:
                name = f"savedmodel/{kind}/{model}/{key}"
                if why:
                    out.append((name, lambda why=why: Result("fail", why)))
                    continue

                def task(model=model, key=key, kind=kind, fn=fn, name=name):
                    d = os.path.join(ctx.work, "savedmodel", kind, model, key)
                    return known.apply(name, fn(ctx, cases()[(model, key)], d))
                out.append((name, task))
    return out
