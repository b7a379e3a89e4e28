#!/usr/bin/env python3
"""The speed zoo side by side (`bench/vs_tf.py --zoo DIR`): for every row of
bench/speed_zoo.py, the median step time of TensorFlow (the loaded
SavedModel's serving_default), ONNX Runtime (tf2onnx, opset 17), OpenVINO
(`openvino.convert_model(saved_model_dir)`) and `dfg run`, at each thread
count, and how far each side's outputs are from TensorFlow's.

Every measurement runs in a process of its own, so that thread settings take
effect before anything runs (TensorFlow fixes its pools at the first op) and
one side's pools never compete with another's:

    python bench/vs_zoo.py SIDE ROW_DIR THREADS SECONDS OUT.npz

is that process (SIDE: tf, ort or ov; ORT and OpenVINO read the conversions
`convert` made beforehand); it prints one JSON line {"median": seconds} or
{"error": why} and writes the outputs it fetched to OUT.npz. dfg is its own
process already (`dfg run --repeat N --warmup 10`). Conversions are cached in
${XDG_CACHE_HOME:-~/.cache}/dfg/vs-zoo/, keyed by the SavedModel's bytes.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SIDES = ("tf", "ort", "ov", "dfg")
NAMES = {"tf": "TensorFlow", "ort": "ONNX Runtime", "ov": "OpenVINO", "dfg": "dfg"}
WARMUP = 10
REL_FLAG = 1e-4  # outputs further than this from TensorFlow's are flagged
LABELS = {
    "mlp": "Keras MLP, batch 16",
    "mobilenetv2": "MobileNetV2 (α 0.35, 96×96), batch 2",
    "lstm": "Keras LSTM, batch 4 × 20 steps",
    "gru": "Keras GRU, batch 4 × 20 steps",
    "encoder": "2-block transformer encoder, batch 8",
    "while_loop": "tf.while_loop module, 50 iterations",
    "resnet50": "ResNet50 (keras.applications, 64×64), batch 2",
    "bert_tiny": "BERT-tiny (keras_hub BertBackbone), batch 4 × 64",
}


def time_steps(step, seconds):
    """Median wall time of step() after WARMUP calls, over as many calls as
    fit in `seconds` (at least 20, at most 5000)."""
    for _ in range(WARMUP):
        step()
    t0 = time.perf_counter()
    step()
    one = max(time.perf_counter() - t0, 1e-7)
    times = []
    for _ in range(int(min(5000, max(20, seconds / one)))):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def load_inputs(row_dir):
    with np.load(os.path.join(row_dir, "inputs.npz")) as z:
        return {k: z[k] for k in z.files}


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
    return os.path.join(base, "dfg", "vs-zoo")


def model_key(row_dir):
    """A name for the SavedModel's conversions: row and a hash of its bytes."""
    h = hashlib.sha1()
    model = os.path.join(row_dir, "model")
    for root, _, files in sorted(os.walk(model)):
        for f in sorted(files):
            with open(os.path.join(root, f), "rb") as fh:
                h.update(fh.read())
    return f"{os.path.basename(os.path.normpath(row_dir))}-{h.hexdigest()[:12]}"


def converted(row_dir, side):
    ext = {"ort": ".onnx", "ov": ".xml"}[side]
    return os.path.join(cache_dir(), model_key(row_dir) + ext)


def convert(python, row_dir, side):
    """Converts the row's SavedModel for ORT or OpenVINO (cached); returns
    the converted file, or raises RuntimeError with the converter's reason."""
    out = converted(row_dir, side)
    if os.path.exists(out):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = out + ".tmp" + os.path.splitext(out)[1]
    model = os.path.join(row_dir, "model")
    if side == "ort":
        cmd = [python, "-m", "tf2onnx.convert", "--saved-model", model,
               "--signature_def", "serving_default", "--opset", "17", "--output", tmp]
    else:  # OpenVINO IR, float32 kept (save_model would halve it to fp16)
        cmd = [python, "-c", "import openvino as ov, sys; ov.save_model("
               "ov.convert_model(sys.argv[1]), sys.argv[2], compress_to_fp16=False)",
               model, tmp]
    r = run_quiet(cmd, 1800)
    if r.returncode != 0 or not os.path.exists(tmp):
        raise RuntimeError(last_error(r.stderr + r.stdout))
    if side == "ov":
        os.replace(tmp[:-4] + ".bin", out[:-4] + ".bin")
    os.replace(tmp, out)
    return out


def run_quiet(cmd, timeout):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=env, check=False)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 1, "", f"timed out after {timeout} s")
    except OSError as e:  # no such program
        return subprocess.CompletedProcess(cmd, 1, "", f"error: {cmd[0]}: {e.strerror}")


def last_error(text):
    """The line of a failure's output that says why (an exception's message)."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in reversed(lines):
        if re.search(r"(Error|Exception|error:)", l) and "Traceback" not in l:
            return l[:200]
    return lines[-1][:200] if lines else "failed without a message"


# --- the measuring process (one side, one row, one thread count) ---

def step_tf(row_dir, threads, feeds):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(threads)
    fn = tf.saved_model.load(os.path.join(row_dir, "model")).signatures["serving_default"]
    args = {k: tf.constant(v) for k, v in feeds.items()}
    return lambda: fn(**args), lambda out: {k: v.numpy() for k, v in out.items()}


def step_ort(row_dir, threads, feeds):
    import onnxruntime as ort  # pylint: disable=import-outside-toplevel
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = threads
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    sess = ort.InferenceSession(converted(row_dir, "ort"), opts,
                                providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return lambda: sess.run(None, feeds), lambda out: dict(zip(names, out))


def step_ov(row_dir, threads, feeds):
    import openvino as ov  # pylint: disable=import-outside-toplevel
    compiled = ov.Core().compile_model(
        converted(row_dir, "ov"), "CPU",
        {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY",
         # float32 as the others: on CPUs with AVX512-BF16 OpenVINO's default
         # is bfloat16, 1e-3 away from TensorFlow's answers
         "INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    names = [o.get_any_name() for o in compiled.outputs]
    return (lambda: request.infer(feeds),
            lambda out: {n: np.array(out[o]) for n, o in zip(names, compiled.outputs)})


def worker(argv):
    side, row_dir, threads, seconds, out = argv
    feeds = load_inputs(row_dir)
    try:
        step, fetched = {"tf": step_tf, "ort": step_ort, "ov": step_ov}[side](
            row_dir, int(threads), feeds)
        np.savez(out, **fetched(step()))
        print(json.dumps({"median": time_steps(step, float(seconds))}))
    except Exception as e:  # pylint: disable=broad-except
        msg = str(e).strip().splitlines()
        print(json.dumps({"error": f"{type(e).__name__}: {msg[-1] if msg else ''}"[:200]}))


# --- the driver ---

UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}


def parse_median(text):
    m = re.search(r"median ([0-9.]+) ?(ns|us|µs|ms|s)\b", text)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def measure_dfg(dfg, row_dir, threads, seconds, out_dir):
    feeds = load_inputs(row_dir)
    # dfg's default scheduling (a step inline, unless it holds an op that
    # waits for another of the step), as ONNX Runtime's sequential
    # execution; kernels split over `threads`.
    cmd = [dfg, "run", os.path.join(row_dir, "model"), "--warmup", str(WARMUP),
           "--intra-threads", str(threads)]
    for k in sorted(feeds):
        cmd += ["--feed", f"{k}={os.path.join(row_dir, 'inputs.npz')}:{k}"]
    probe = run_quiet(cmd + ["--repeat", "10"], 900)
    med = parse_median(probe.stderr + probe.stdout)
    if med is None:
        return {"error": last_error(probe.stderr + probe.stdout)}
    n = int(min(5000, max(20, seconds / max(med, 1e-7))))
    r = run_quiet(cmd + ["--repeat", str(n), "--output-dir", out_dir], 1800)
    med = parse_median(r.stderr + r.stdout)
    if med is None:
        return {"error": last_error(r.stderr + r.stdout)}
    outs = {f[:-4]: np.load(os.path.join(out_dir, f)) for f in os.listdir(out_dir)
            if f.endswith(".npy")}
    return {"median": med, "outputs": outs}


def measure(args, side, row_dir, threads, work):
    """{"median": s, "outputs": {name: array}} or {"error": why}; the best
    (smallest) median of args.rounds runs."""
    best = None
    for i in range(args.rounds):
        out = os.path.join(work, f"{side}-{threads}-{i}")
        if side == "dfg":
            os.makedirs(out, exist_ok=True)
            res = measure_dfg(args.dfg, row_dir, threads, args.seconds, out)
        else:
            res = measure_py(side, row_dir, threads, args.seconds, out + ".npz")
        if "error" in res:
            return res
        if best is None or res["median"] < best["median"]:
            best = res
    return best


def measure_py(side, row_dir, threads, seconds, out):
    r = run_quiet([sys.executable, os.path.abspath(__file__), side, row_dir,
                   str(threads), str(seconds), out], 1800)
    lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
    if not lines:
        return {"error": last_error(r.stderr + r.stdout)}
    res = json.loads(lines[-1])
    if "median" in res:
        with np.load(out) as z:
            res["outputs"] = {k: z[k] for k in z.files}
    return res


def compare(got, want):
    """(max abs diff, max rel diff) over the outputs both sides fetched, rel
    being the abs diff over the largest magnitude of TensorFlow's output;
    outputs matched by name, else (one each) by position."""
    pairs = [(got[k], want[k]) for k in want if k in got]
    if not pairs and len(got) == len(want) == 1:
        pairs = [(next(iter(got.values())), next(iter(want.values())))]
    if len(pairs) != len(want):
        return None, f"outputs {sorted(got)} vs TensorFlow's {sorted(want)}"
    worst_abs = worst_rel = 0.0
    for g, w in pairs:
        if g.shape != w.shape:
            return None, f"shape {g.shape} vs TensorFlow's {w.shape}"
        if not np.issubdtype(w.dtype, np.number):
            if not np.array_equal(g, w):
                return None, "non-numeric outputs differ"
            continue
        g, w = g.astype(np.float64), w.astype(np.float64)
        err = float(np.max(np.abs(g - w))) if w.size else 0.0
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        worst_abs = max(worst_abs, err)
        worst_rel = max(worst_rel, err / scale if scale else (0.0 if err == 0 else np.inf))
    return (worst_abs, worst_rel), ""


def ensure_rows(zoo, pattern):
    """The rows of speed_zoo.py matching pattern, built into zoo if missing."""
    sys.path.insert(0, HERE)
    import speed_zoo  # pylint: disable=import-outside-toplevel
    rows = {}
    for row in speed_zoo.ROWS:
        if pattern and not re.search(pattern, row.__name__):
            continue
        try:
            if speed_zoo.build(row, zoo):
                print(f"vs_tf: built {row.__name__} into {zoo}", file=sys.stderr, flush=True)
            rows[row.__name__] = ""
        except (Exception, SystemExit) as e:  # pylint: disable=broad-except
            rows[row.__name__] = f"speed_zoo could not build it: {e}"[:200]
    return rows


def measure_row(args, row_dir, work):
    """{threads: {side: result}} for one row; each side's outputs compared
    with TensorFlow's at the same thread count ("diff": (abs, rel) or
    "diff_error"), then dropped."""
    cells = {}
    conversions = {}
    for side in ("ort", "ov"):
        try:
            convert(sys.executable, row_dir, side)
        except RuntimeError as e:
            conversions[side] = f"conversion failed: {e}"
    for threads in args.thread_counts:
        cell = {}
        for side in SIDES:
            if side in conversions:
                cell[side] = {"error": conversions[side]}
                continue
            cell[side] = measure(args, side, row_dir, threads, work)
        want = cell["tf"].get("outputs")
        for side in SIDES:
            res = cell[side]
            outs = res.pop("outputs", None)
            if side == "tf" or outs is None or want is None:
                continue
            diff, why = compare(outs, want)
            if diff is None:
                res["diff_error"] = why
            else:
                res["diff"] = diff
        cells[threads] = cell
    return cells


def ms(seconds):
    v = seconds * 1e3
    return f"{v:#.2g}" if v < 0.1 else f"{v:.3g}" if v < 100 else f"{v:.0f}"


class Notes:
    """Numbered footnotes: a side's failure or its outputs' distance from TF."""

    def __init__(self):
        self.lines = []

    def add(self, text):
        if text not in self.lines:
            self.lines.append(text)
        return f"[{self.lines.index(text) + 1}]"


def cell_text(res, row, side, notes):
    if "error" in res:
        return "—" + notes.add(f"{row}, {NAMES[side]}: {res['error']}")
    text = ms(res["median"])
    if "diff_error" in res:
        text += " !" + notes.add(f"{row}, {NAMES[side]}: outputs not "
                                 f"comparable with TensorFlow's: {res['diff_error']}")
    elif "diff" in res and res["diff"][1] > REL_FLAG:
        text += " !" + notes.add(
            f"{row}, {NAMES[side]}: outputs differ from TensorFlow's: "
            f"max abs {res['diff'][0]:.3g}, max rel {res['diff'][1]:.3g} (flag above "
            f"{REL_FLAG:g})")
    return text


def ratio(cell):
    """dfg's time over the fastest of the other sides (None when not known)."""
    others = [cell[s]["median"] for s in ("tf", "ort", "ov") if "median" in cell[s]]
    if "median" not in cell["dfg"] or not others:
        return None
    return cell["dfg"]["median"] / min(others)


def print_tables(results, threads, notes):
    head = " / ".join(str(t) for t in threads)
    print("| model | TensorFlow | ONNX Runtime | OpenVINO | dfg | dfg / fastest |")
    print("|---|---|---|---|---|---|")
    for row, r in results.items():
        if r.get("error"):
            print(f"| {LABELS.get(row, row)} | " + " | ".join(
                ["—" + notes.add(f"{row}: {r['error']}")] * 4) + " | — |")
            continue
        cols = [" / ".join(cell_text(r["cells"][t][s], row, s, notes) for t in threads)
                for s in SIDES]
        ratios = [ratio(r["cells"][t]) for t in threads]
        rtext = " / ".join("—" if x is None else f"{x:.2f}" if x < 10 else f"{x:.1f}"
                           for x in ratios)
        print(f"| {LABELS.get(row, row)} | " + " | ".join(cols) + f" | {rtext} |",
              flush=True)
    print(f"\n(ms per step, median; {head} threads; dfg / fastest above 1: dfg is behind)")
    print("\nDistance from TensorFlow's outputs (max rel diff over outputs and thread counts; "
          f"! above {REL_FLAG:g}):\n")
    print("| model | ONNX Runtime | OpenVINO | dfg |\n|---|---|---|---|")
    for row, r in results.items():
        if r.get("error"):
            continue
        cols = []
        for s in ("ort", "ov", "dfg"):
            rels = [r["cells"][t][s]["diff"][1] for t in threads if "diff" in r["cells"][t][s]]
            worst = max(rels) if rels else None
            cols.append("—" if worst is None else
                        f"{worst:.1e}" + (" !" if worst > REL_FLAG else ""))
        print(f"| {LABELS.get(row, row)} | " + " | ".join(cols) + " |")
    if notes.lines:
        print()
        for i, line in enumerate(notes.lines, 1):
            print(f"[{i}] {line}")


def load_average():
    try:
        return os.getloadavg()
    except OSError:
        return None


def versions():
    got = {}
    for mod in ("tensorflow", "onnxruntime", "tf2onnx", "openvino"):
        r = run_quiet([sys.executable, "-c", f"import {mod}; print({mod}.__version__)"], 300)
        got[mod] = r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() \
            else "not importable"
    return got


def run_zoo(args, machine):
    """The zoo bench: tables on stdout, the figures as JSON in args.json."""
    zoo = os.path.abspath(args.zoo)
    os.makedirs(zoo, exist_ok=True)
    rows = ensure_rows(zoo, args.filter)
    args.thread_counts = [int(t) for t in str(args.zoo_threads).split(",")]
    vers = versions()
    load0 = load_average()
    print(f"machine: {machine}; " + ", ".join(f"{k} {v}" for k, v in vers.items())
          + f"; load average at start {' '.join(f'{x:.2f}' for x in load0 or ())}",
          flush=True)
    results = {}
    with tempfile.TemporaryDirectory(prefix="dfg-vs-zoo-") as work:
        for row, error in rows.items():
            print(f"vs_tf: measuring {row}", file=sys.stderr, flush=True)
            if error:
                results[row] = {"error": error}
                continue
            row_work = os.path.join(work, row)
            os.makedirs(row_work)
            results[row] = {"cells": measure_row(args, os.path.join(zoo, row), row_work)}
    load1 = load_average()
    print(f"load average at end {' '.join(f'{x:.2f}' for x in load1 or ())}\n", flush=True)
    print_tables(results, args.thread_counts, Notes())
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine, "versions": vers, "load_start": load0,
                       "load_end": load1, "threads": args.thread_counts,
                       "seconds": args.seconds, "rounds": args.rounds,
                       "rows": results}, f, indent=1, default=float)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    worker(sys.argv[1:])
