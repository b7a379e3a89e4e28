#!/usr/bin/env python3
"""Side by side: TensorFlow 2.21's Session.run, `dfg run --repeat`, and ONNX
Runtime on the tf2onnx conversion of the same graph, same inputs, same
thread counts, warmed up; prints the median time per step.

    ${DFG_TF_PYTHON:-~/.cache/dfg/tf-venv/bin/python} bench/vs_tf.py --dfg build/dfg \\
        [--threads 1] [--seconds 1] [--corpus ../shared/corpus] [-k REGEX]

(the venv comes from .ci/install-tf.sh). Rows: an Identity chain of 10,000
nodes (per-node overhead), a 3-node graph (per-step overhead), the bundled
MLP, a corpus CNN (hellotfc__graph_im2vec.pb, a MobileNet-like image
network, 1x224x224x3), a v1 while loop of 1,000 iterations, and a chain of
100 ops alternating between two CPU devices (100 _Send/_Recv pairs).

How each side is timed: TensorFlow through Session.make_callable (the
leanest Python path; default ConfigProto apart from the thread counts, so
Grappler is on, as users run it; soft placement, as dfg run); dfg by its own --repeat/--warmup figures
(graph load and process start excluded, like session creation for the
others); ONNX Runtime by InferenceSession.run with intra/inter-op threads
set, sequential execution. TensorFlow is timed twice: as users run it, and
with Grappler off (the graph as written, which is what dfg runs: Grappler
folds the Identity chain away, for one). The TF / dfg column is TensorFlow's
time over dfg's (above 1: dfg is faster). Each side runs warm-up steps, then as many steps
as fit in --seconds (at least 10). tf2onnx folds Identity chains away and
ignores devices: its rows say so.

The speed zoo (bench/speed_zoo.py: Keras 3 / tf.Module SavedModels with
their inputs) side by side with TensorFlow, ONNX Runtime and OpenVINO:

    ${DFG_TF_PYTHON:-~/.cache/dfg/tf-venv/bin/python} bench/vs_tf.py --dfg build/dfg \
        --zoo /tmp/speed-zoo [--zoo-threads 1,2] [--seconds 1] [--rounds 1] \
        [-k REGEX] [--json OUT.json]

builds the rows DIR lacks (keras_hub is needed for bert_tiny), then times
each row at each thread count, every measurement in a process of its own
(bench/vs_zoo.py) so thread settings hold from the first op: TensorFlow
calls the loaded SavedModel's serving_default (tf.config.threading intra and
inter = T); ONNX Runtime runs the tf2onnx conversion (opset 17, intra and
inter = T, sequential); OpenVINO compiles convert_model(saved_model_dir) for
CPU (INFERENCE_NUM_THREADS T, PERFORMANCE_HINT LATENCY, float32 precision);
dfg is `dfg run DIR/model --feed KEY=inputs.npz:KEY --repeat N --warmup 10
--intra-threads T` (its default scheduling: a step runs inline, as ONNX
Runtime's sequential execution, unless it holds an op that waits for another). It prints the medians (ms) with dfg / fastest,
then each side's distance from TensorFlow's outputs (max abs diff over the
largest |TF value|, flagged above 1e-4); a side that fails to convert or run
shows "—" and a footnote saying why. Conversions are cached under
~/.cache/dfg/vs-zoo. The zoo needs two packages .ci/install-tf.sh leaves out
(keras_hub brings the full tensorflow package beside tensorflow-cpu, which
CI does not need):

    ~/.cache/dfg/tf-venv/bin/python -m pip install openvino keras_hub
"""
import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "testdata", "oracle"))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

import numpy as np  # noqa: E402

try:
    import tensorflow as tf  # noqa: E402
except ImportError:
    sys.exit("vs_tf.py: TensorFlow is not importable: run it with the venv's python "
             "(.ci/install-tf.sh; ${DFG_TF_PYTHON:-~/.cache/dfg/tf-venv/bin/python})")
from graphs import Graph, Type  # noqa: E402
import vs_zoo  # noqa: E402

tf1 = tf.compat.v1
F32 = Type("float32")


def identity_chain(n=10000):
    g = Graph()
    prev = g.placeholder("x", np.ones((4,), np.float32))
    for i in range(n):
        prev = g.op(f"id{i}", "Identity", [prev], T=F32)
    return g.text(), dict(g.feeds), [prev + ":0"]


def three_nodes():
    g = Graph()
    x = g.placeholder("x", np.ones((4,), np.float32))
    g.const("c", np.full((4,), 2, np.float32))
    g.op("y", "AddV2", [x, "c"], T=F32)
    return g.text(), dict(g.feeds), ["y:0"]


def while_loop(n=1000):
    """while i < n: i += 1; x = x * 1.0001 (v1 control flow)."""
    g = Graph()
    x = g.placeholder("x", np.ones((16,), np.float32))
    frame = {"frame_name": "loop", "parallel_iterations": 10}
    g.const("n", np.int32(n))
    g.const("i0", np.int32(0))
    g.const("one", np.int32(1))
    g.const("k", np.float32(1.0001))
    g.op("ei", "Enter", ["i0"], T=Type("int32"), **frame)
    g.op("ex", "Enter", [x], T=F32, **frame)
    g.op("en", "Enter", ["n"], T=Type("int32"), is_constant=True, **frame)
    g.op("eone", "Enter", ["one"], T=Type("int32"), is_constant=True, **frame)
    g.op("ek", "Enter", ["k"], T=F32, is_constant=True, **frame)
    g.op("mi", "Merge", ["ei", "ni"], T=Type("int32"), N=2)
    g.op("mx", "Merge", ["ex", "nx"], T=F32, N=2)
    g.op("less", "Less", ["mi", "en"], T=Type("int32"))
    g.op("cond", "LoopCond", ["less"])
    g.op("si", "Switch", ["mi", "cond"], T=Type("int32"))
    g.op("sx", "Switch", ["mx", "cond"], T=F32)
    g.op("inc", "AddV2", ["si:1", "eone"], T=Type("int32"))
    g.op("mul", "Mul", ["sx:1", "ek"], T=F32)
    g.op("ni", "NextIteration", ["inc"], T=Type("int32"))
    g.op("nx", "NextIteration", ["mul"], T=F32)
    g.op("xi", "Exit", ["si"], T=Type("int32"))
    g.op("xx", "Exit", ["sx"], T=F32)
    return g.text(), dict(g.feeds), ["xx:0"]


def two_devices(n=100):
    g = Graph()
    prev = g.placeholder("x", np.ones((16,), np.float32))
    for i in range(n):
        prev = g.op(f"n{i}", "Neg", [prev], device=f"/device:CPU:{i % 2}", T=F32)
    return g.text(), dict(g.feeds), [prev + ":0"]


def file_graph(path, feeds, fetches):
    with open(path, "rb") as f:
        data = f.read()
    return data, feeds, fetches


def rows(args):
    rng = np.random.default_rng(1)
    yield "Identity chain, 10k nodes", identity_chain(), 1, \
        "Grappler and tf2onnx fold the chain away"
    yield "3-node graph (AddV2)", three_nodes(), 1, ""
    mlp_x = np.load(os.path.join(SRC, "testdata", "models", "mlp_input.npy"))
    yield "MLP (testdata/models/mlp.pbtxt)", file_graph(
        os.path.join(SRC, "testdata", "models", "mlp.pbtxt"), {"x": mlp_x},
        ["probs:0"]), 1, ""
    cnn = os.path.join(args.corpus, "hellotfc__graph_im2vec.pb")
    if os.path.exists(cnn):
        img = rng.uniform(-1, 1, (1, 224, 224, 3)).astype(np.float32)
        yield "CNN (hellotfc__graph_im2vec, 224x224)", file_graph(
            cnn, {"input_layer": img}, ["output_layer/Softmax:0"]), 1, ""
    yield "while loop, 1,000 iterations", while_loop(), 1, ""
    yield "100 ops over 2 devices (Send/Recv)", two_devices(), 2, \
        "ONNX Runtime: one device (tf2onnx drops devices)"


def parse_graph_def(data):
    from google.protobuf import text_format  # pylint: disable=import-outside-toplevel
    gd = tf1.GraphDef()
    if isinstance(data, str):
        text_format.Parse(data, gd)
        return gd
    try:
        text_format.Parse(data.decode(), gd)
    except (UnicodeDecodeError, text_format.ParseError):
        gd.ParseFromString(data)
    return gd


def time_steps(step, seconds):
    for _ in range(5):
        step()
    t0 = time.perf_counter()
    step()
    one = max(time.perf_counter() - t0, 1e-7)
    n = int(min(5000, max(10, seconds / one)))
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def bench_tf(gd, feeds, fetches, threads, cpus, seconds, grappler=True):
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(gd, name="")
    config = tf1.ConfigProto(intra_op_parallelism_threads=threads,
                             inter_op_parallelism_threads=threads,
                             device_count={"CPU": cpus}, allow_soft_placement=True)
    if not grappler:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
    with tf1.Session(graph=graph, config=config) as sess:
        feed_t = [graph.get_tensor_by_name(k if ":" in k else k + ":0") for k in feeds]
        fn = sess.make_callable([graph.get_tensor_by_name(f) for f in fetches], feed_t)
        values = list(feeds.values())
        return time_steps(lambda: fn(*values), seconds)


def bench_dfg(args, path, feeds, fetches, threads, cpus, work):
    cmd = [args.dfg, "run", path, "--threads", str(threads), "--intra-threads",
           str(threads), "--warmup", "20"]
    for i, (k, v) in enumerate(feeds.items()):
        f = os.path.join(work, f"feed{i}.npy")
        np.save(f, v)
        cmd += ["--feed", f"{k}={f}"]
    for f in fetches:
        cmd += ["--fetch", f]
    if cpus == 2:
        cmd += ["--devices", "cpu:0,cpu:1"]
    probe = subprocess.run(cmd + ["--repeat", "20"], capture_output=True, text=True)
    med = parse_median(probe.stderr + probe.stdout)
    if med is None:
        return None, probe.stderr.strip()[-200:]
    n = int(min(5000, max(10, args.seconds / max(med, 1e-7))))
    r = subprocess.run(cmd + ["--repeat", str(n)], capture_output=True, text=True)
    return parse_median(r.stderr + r.stdout), ""


UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}


def parse_median(text):
    m = re.search(r"median ([0-9.]+) ?(ns|us|µs|ms|s)\b", text)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def bench_ort(gd, feeds, fetches, threads, seconds):
    import onnxruntime as ort  # pylint: disable=import-outside-toplevel
    import tf2onnx  # pylint: disable=import-outside-toplevel
    inputs = [k if ":" in k else k + ":0" for k in feeds]
    model, _ = tf2onnx.convert.from_graph_def(gd, input_names=inputs,
                                              output_names=list(fetches), opset=17)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = threads
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    sess = ort.InferenceSession(model.SerializeToString(), opts,
                                providers=["CPUExecutionProvider"])
    feed = dict(zip(inputs, feeds.values()))
    return time_steps(lambda: sess.run(None, feed), seconds)


def best(args, measure):
    return min(measure() for _ in range(args.rounds))


def fmt(seconds):
    if seconds is None:
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-6:.3g} us"


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        m = re.search(r"Model name:\s*(.+)", out)
        cores = os.cpu_count()
        return f"{m.group(1).strip() if m else platform.processor()}, {cores} cores"
    except OSError:
        return platform.processor()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dfg", default=os.path.join(SRC, "build", "dfg"))
    p.add_argument("--corpus", default=os.environ.get(
        "DFG_CORPUS_DIR", os.path.join(SRC, "..", "shared", "corpus")))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seconds", type=float, default=1.0, help="timed seconds per cell")
    p.add_argument("--rounds", type=int, default=1,
                   help="measure each cell N times, report the smallest median "
                        "(less noise on a shared machine)")
    p.add_argument("-k", "--filter", help="only rows matching this regex")
    p.add_argument("--zoo", metavar="DIR",
                   help="time the speed zoo's SavedModels in DIR (rows missing there are "
                        "built with bench/speed_zoo.py) instead of the graph rows")
    p.add_argument("--zoo-threads", default="1,2",
                   help="--zoo: the thread counts, comma-separated (default 1,2)")
    p.add_argument("--json", metavar="OUT", help="--zoo: also write the figures as JSON")
    args = p.parse_args()
    if args.zoo:
        vs_zoo.run_zoo(args, cpu_model())
        return
    import onnxruntime  # pylint: disable=import-outside-toplevel
    print(f"machine: {cpu_model()}; TensorFlow {tf.__version__}, ONNX Runtime "
          f"{onnxruntime.__version__}; threads: {args.threads} inter + {args.threads} "
          "intra; median per step"
          + (f", best of {args.rounds} rounds" if args.rounds > 1 else ""))
    print()
    print("| graph | TensorFlow | TF, Grappler off | dfg | ONNX Runtime | TF / dfg | note |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="dfg-vs-tf-") as work:
        for name, (data, feeds, fetches), cpus, note in rows(args):
            if args.filter and not re.search(args.filter, name):
                continue
            gd = parse_graph_def(data)
            path = os.path.join(work, "graph.pb")
            with open(path, "wb") as f:
                f.write(gd.SerializeToString())
            t_tf = best(args, lambda: bench_tf(gd, feeds, fetches, args.threads, cpus,
                                               args.seconds))
            t_plain = best(args, lambda: bench_tf(gd, feeds, fetches, args.threads, cpus,
                                                  args.seconds, False))
            err = ""
            t_dfg = None
            for _ in range(args.rounds):
                t, err = bench_dfg(args, path, feeds, fetches, args.threads, cpus, work)
                t_dfg = t if t_dfg is None or (t is not None and t < t_dfg) else t_dfg
            try:
                t_ort = best(args, lambda: bench_ort(gd, feeds, fetches, args.threads,
                                                     args.seconds))
            except Exception as e:  # pylint: disable=broad-except
                t_ort, note = None, (note + "; " if note else "") + \
                    f"tf2onnx/ORT failed: {str(e).splitlines()[0][:80]}"
            if err:
                note = (note + "; " if note else "") + f"dfg failed: {err}"
            ratio = "n/a" if not (t_dfg and t_tf) else (
                f"{t_tf / t_dfg:.0f}" if t_tf / t_dfg >= 10 else f"{t_tf / t_dfg:.2f}")
            print(f"| {name} | {fmt(t_tf)} | {fmt(t_plain)} | {fmt(t_dfg)} | {fmt(t_ort)} | "
                  f"{ratio} | "
                  f"{note} |", flush=True)


if __name__ == "__main__":
    main()
