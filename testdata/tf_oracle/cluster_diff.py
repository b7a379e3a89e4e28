"""The cluster differential: TensorFlow's distributed runtime against dfg's,
on three clusters the section starts once and every case shares (all on
127.0.0.1, the ports the OS picks):
  dfg       two `dfg server`s (task 1 binds `--listen 127.0.0.1:0`);
  tf        two tf.distribute.Servers (tf_servers.py, one child process);
  mixed     a `dfg server` as task 0 (the master) and a TensorFlow worker as
            task 1;
and five ways to drive them, the case name's second part:
  dfg, tf, mixed   `dfg run --master grpc://task 0` on that cluster;
  tfclient         TensorFlow's Python client, tf.compat.v1.Session(
                   "grpc://..."), on the dfg cluster;
  tfmixed          TensorFlow's Python client on the mixed cluster.
Cases:
  cluster/MODE/model/...    every corpus model of the run section, same
      feeds and fetches, its nodes spread round-robin over the two tasks
      (`/job:worker/task:{i % 2}/device:CPU:0`, as
      ../distributed/corpus_test.py does), against TensorFlow's own local
      Session on the graph as written (run_diff.run_tf, the run section's
      reference and tolerances);
  cluster/MODE/graph/...    cluster_graphs.CASES (a while loop and a cond
      across tasks, explicit devices, strings and int64 on the wire, fetches
      made on task 1), against TensorFlow's local Session on the same graph
      with its devices cleared;
  cluster/MODE/errors/...   cluster_graphs.ERRORS: TensorFlow's own error
      (its Python client on the tf cluster) cut into phrases as
      errors_diff.py does, each in dfg's stderr; the tfclient and tfmixed
      modes also compare the status code (the Python exception's class).
The servers run without Grappler and the graph optimizer
(tf_session.session_config(plain=True) as TensorFlow's default session
config), as the run section's reference does.
"""
import concurrent.futures
import contextlib
import os
import re
import subprocess
import sys
import threading

import known
import run_diff
from common import Result, out_file, write_npy_feeds
from errors_diff import phrases

# The cluster helpers the distributed tests use (../distributed/cluster.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "distributed"))
from cluster import (  # noqa: E402 pylint: disable=wrong-import-position
    Cluster, TfServers, pick_ports)

MODES = ["dfg", "tf", "mixed", "tfclient", "tfmixed"]
TF_CLIENT = {"tfclient", "tfmixed"}  # modes driven by TensorFlow's Python client
TIMEOUT_MS = 60000  # one step; the subprocess gets 30 s more
# Model cases the clusters cannot be compared on, and why (printed as skips).
CLUSTER_CANNOT = {
    # The inner loop's Exit is fetched: locally its _Retval is set twice
    # (the run section's expected error). On a cluster the fetch is a
    # client-terminated _Send in the outer loop's frame, whose key never
    # matches the master's (frame 0:0): TensorFlow's master waits until the
    # step's timeout; dfg's reports "no value was sent" at once.
    "model/grappler__nested_loop.pbtxt#2":
        "a fetch inside a loop frame: TensorFlow's cluster waits for it until the "
        "step times out (there is no error text to compare)",
}


class _Servers:
    """The section's three clusters, started once (prepare) and stopped at
    the end (finish), whatever happened in between."""

    def __init__(self):
        self.error = None
        self.targets = {}
        self._stops = []
        # One session at a time on each dfg master: it serves concurrent
        # CreateSessions badly (the concurrent_sessions case, known.py).
        dfg_lock = threading.Lock()
        mixed_lock = threading.Lock()
        self.locks = {"dfg": dfg_lock, "tfclient": dfg_lock, "mixed": mixed_lock,
                      "tfmixed": mixed_lock}

    def lock(self, mode):
        return self.locks.get(mode) or contextlib.nullcontext()

    def start(self, ctx, attempts=2):
        """Starts the clusters; once more if a start fails (a port picked
        and released can be taken by the time it is bound)."""
        for _ in range(attempts):
            self.error = None
            self._start(ctx)
            if not self.error:
                return
            self.stop()

    def _start(self, ctx):
        import tf_session  # pylint: disable=import-outside-toplevel
        from google.protobuf import text_format  # pylint: disable=import-outside-toplevel
        try:
            tfs = TfServers(sys.executable, log=os.path.join(ctx.work, "tf_servers.log"))
            self._stops.append(tfs.stop)
            dfg = Cluster(ctx.dfg, 2, listen_any=True)
            self._stops.append(dfg.stop)
            self.targets["dfg"] = self.targets["tfclient"] = dfg.target()
            config = text_format.MessageToString(
                tf_session.session_config(threads=2, plain=True))
            # A TensorFlow task 1 binds port 0 (the OS picks it) and starts
            # first; task 0, which it must reach, gets a picked port.
            p0 = pick_ports(1)[0]
            p1 = tfs.start({"worker": [f"127.0.0.1:{p0}", "127.0.0.1:0"]}, 1, config=config)
            tfs.start({"worker": [f"127.0.0.1:{p0}", f"127.0.0.1:{p1}"]}, 0, config=config)
            self.targets["tf"] = f"grpc://127.0.0.1:{p0}"
            m0 = pick_ports(1)[0]
            m1 = tfs.start({"worker": [f"127.0.0.1:{m0}", "127.0.0.1:0"]}, 1, config=config)
            mixed = Cluster(ctx.dfg, 2, ports=[m0, m1], start_tasks=[0])
            self._stops.append(mixed.stop)
            self.targets["mixed"] = self.targets["tfmixed"] = mixed.target()
        except Exception as e:  # pylint: disable=broad-except
            self.error = f"the clusters did not start: {e}"

    def stop(self):
        for stop in reversed(self._stops):
            try:
                stop()
            except Exception:  # pylint: disable=broad-except
                pass
        self._stops = []


class _Once:
    """Values computed once and shared by the cases of all modes."""

    def __init__(self):
        self._lock = threading.Lock()
        self._locks = {}
        self._values = {}

    def get(self, key, make):
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._values:
                self._values[key] = make()
            return self._values[key]


def prepare(ctx, names):  # pylint: disable=unused-argument
    ctx.cluster = _Servers()
    ctx.cluster.start(ctx)
    ctx.cluster_once = _Once()


def finish(ctx):
    if hasattr(ctx, "cluster"):
        ctx.cluster.stop()


def spread(graph_def):
    """A copy with node i on /job:worker/task:{i % 2}/device:CPU:0."""
    out = type(graph_def)()
    out.CopyFrom(graph_def)
    for i, node in enumerate(out.node):
        node.device = f"/job:worker/task:{i % 2}/device:CPU:0"
    return out


def run_dfg_client(ctx, graph_path, feeds, fetches, target, directory, targets=()):
    """`dfg run GRAPH --master TARGET`: (CompletedProcess, output dir)."""
    paths = write_npy_feeds(directory, feeds)
    out = os.path.join(directory, "dfg")
    cmd = [ctx.dfg, "run", graph_path, "--master", target, "--output-dir", out,
           "--timeout-ms", str(TIMEOUT_MS)]
    for name, path in paths.items():
        cmd += ["--feed", f"{name}={path}"]
    for fetch in fetches:
        cmd += ["--fetch", fetch]
    for node in targets:
        cmd += ["--target", node]
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=TIMEOUT_MS / 1000 + 30), out
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, -1, "", "dfg run timed out"), out


def compare_runs(got, want, tol):
    """got, want: {fetch: ndarray}; "" when equal, else the differences."""
    problems = []
    for fetch, w in want.items():
        if fetch not in got:
            problems.append(f"{fetch}: not fetched")
            continue
        msg = run_diff.compare_values(got[fetch], w, *tol(w.dtype))
        if msg:
            problems.append(f"{fetch}: {msg}")
    return "; ".join(problems)


def _load_outputs(directory, fetches):
    import numpy as np  # pylint: disable=import-outside-toplevel
    got = {}
    for fetch in fetches:
        path = out_file(directory, fetch)
        if os.path.exists(path):
            got[fetch] = np.load(path, allow_pickle=False)
    return got


def run_mode(ctx, mode, graph_def, graph_path, feeds, fetches, directory, by_name=False):
    """One step in `mode`: ({fetch: ndarray}, None) or (None, error text)."""
    import tf_session  # pylint: disable=import-outside-toplevel
    target = ctx.cluster.targets[mode]
    if mode in TF_CLIENT:
        run = tf_session.run_callable if by_name else tf_session.run_graph
        with ctx.cluster.lock(mode):
            res = run(graph_def, feeds, fetches, target=target, timeout_ms=TIMEOUT_MS)
        return (None, res.message) if res.error else (res.values, None)
    with ctx.cluster.lock(mode):
        r, out = run_dfg_client(ctx, graph_path, feeds, fetches, target, directory)
    if r.returncode != 0:
        return None, (r.stderr.strip() or f"exit status {r.returncode}")
    return _load_outputs(out, fetches), None


STATUS_CODE = re.compile(
    r"\b(?:CANCELLED|UNKNOWN|INVALID_ARGUMENT|DEADLINE_EXCEEDED|NOT_FOUND|"
    r"ALREADY_EXISTS|PERMISSION_DENIED|RESOURCE_EXHAUSTED|FAILED_PRECONDITION|ABORTED|"
    r"OUT_OF_RANGE|UNIMPLEMENTED|INTERNAL|UNAVAILABLE|DATA_LOSS|UNAUTHENTICATED):\s*")
FROM_TASK = re.compile(r"From (/job:[^:\s]+/replica:\d+/task:\d+):\s*")


def tf_error_phrases(message):
    """TensorFlow's error text from a cluster as errors_diff.phrases cuts it,
    without what its distributed runtime adds around the step's error: the
    "From /job:...:" prefixes (checked on their own: from_tasks), the gRPC
    debug text of an error that crossed tasks ("Additional GRPC error
    information ..."), the recent log lines TensorFlow 2.21 appends ("Recent
    warning and error logs: ...") and StatusGroup's "=====" banners around
    the errors of several tasks (each task's copy is the same text)."""
    text = re.sub(r"\s*Recent warning and error logs:.*?(?=\n={5,}|$)", "", message,
                  flags=re.S)
    text = re.sub(r"\s*Additional GRPC error information from remote target"
                  r".*?(?=\n={5,}|$)", "", text, flags=re.S)
    # Cut where one task's error ends and the next begins, then each part
    # as errors_diff cuts a message.
    for marker in (r"={5,}", STATUS_CODE.pattern, FROM_TASK.pattern,
                   r"\d+ root error\(s\) found\.", r"\d+ successful operations\.",
                   r"\d+ derived errors ignored\.", r"(?m)^\s*\(\d+\)\s"):
        text = re.sub(marker, "\0", text)
    out = []
    for part in text.split("\0"):
        out += phrases(part)
    return list(dict.fromkeys(out))


def missing_phrases(tf_message, text):
    """TensorFlow's phrases not in dfg's text; where TensorFlow names the task
    an error came from ("From /job:worker/replica:0/task:N:", MasterSession's
    RunManyGraphs::WhenDone, for every task's error), dfg's must name one
    too (which task reports first is a race in both)."""
    got = " ".join(text.split())
    missing = [p for p in tf_error_phrases(tf_message) if p not in got]
    if FROM_TASK.search(tf_message) and not FROM_TASK.search(got):
        missing.insert(0, "From /job:worker/replica:0/task:N:")
    return missing


def check(ctx, mode, prepared, directory):
    """prepared: (graph_def, graph_path, feeds, fetches, reference Run,
    tolerance, expect_error regex or None, by_name). A case that fails in
    TensorFlow (an expected error) agrees when the cluster fails with
    TensorFlow's phrases: for an expected error, those of TensorFlow's own
    cluster (its Python client on the tf cluster), whose text for a step's
    errors is the distributed runtime's, not DirectSession's."""
    graph_def, path, feeds, fetches, ref, tol, expect_error, by_name = prepared
    got, err = run_mode(ctx, mode, graph_def, path, feeds, fetches, directory, by_name)
    if expect_error:
        import tf_session  # pylint: disable=import-outside-toplevel
        run = tf_session.run_callable if by_name else tf_session.run_graph
        ref = ctx.cluster_once.get(("tf cluster", path), lambda: run(
            graph_def, feeds, fetches, target=ctx.cluster.targets["tf"],
            timeout_ms=TIMEOUT_MS))
        if ref.error is None:
            return Result("fail", "TensorFlow's cluster succeeds")
    if ref.error and err:
        missing = missing_phrases(ref.error[1], err)
        if missing:
            return Result("fail", f"both fail; TensorFlow's phrases missing: {missing}; "
                                  f"cluster: {err[:300]}")
        return Result("pass")
    if expect_error:
        return Result("fail", f"the cluster succeeds; TensorFlow: {ref.message[:300]}")
    if ref.error:
        return Result("fail", f"TensorFlow fails locally, the cluster succeeds: "
                              f"{ref.message[:400]}")
    if err:
        return Result("fail", f"the cluster fails, TensorFlow succeeds locally: {err[:400]}")
    msg = compare_runs(got, ref.values, tol)
    return Result("fail", msg) if msg else Result("pass")


def _write_graph(graph_def, directory):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "graph.pb")
    with open(path, "wb") as f:
        f.write(graph_def.SerializeToString())
    return path


def _prepare_model(ctx, case, directory):
    import tf_session  # pylint: disable=import-outside-toplevel
    if case.name in run_diff.FIXUPS:
        case = run_diff.FIXUPS[case.name](case)
    fetches = list(case.fetches)
    gd = spread(tf_session.load_graph_def(path=case.model, text=case.graph))
    ref = run_diff.run_tf(ctx, case, fetches)
    return (gd, _write_graph(gd, directory), case.feeds, fetches, ref,
            lambda dtype: run_diff.tolerance(case, dtype), case.expect_error,
            case.name in run_diff.BY_NAME)


def _prepare_graph(name, directory):
    import cluster_graphs  # pylint: disable=import-outside-toplevel
    import tf_session  # pylint: disable=import-outside-toplevel
    gd = cluster_graphs.graph(name)
    _, feeds, fetches = cluster_graphs.CASES[name]
    local = type(gd)()
    local.CopyFrom(gd)
    for node in local.node:
        node.device = ""
    ref = tf_session.run_graph(local, feeds, fetches)
    exact = {"float64": (1e-12, 1e-12)}
    return (gd, _write_graph(gd, directory), feeds, fetches, ref,
            lambda dtype: exact.get(dtype.name, (1e-6, 1e-6)), None, False)


def check_error(ctx, mode, name, directory):
    """TensorFlow's error on its own cluster vs the cluster of `mode`."""
    import cluster_graphs  # pylint: disable=import-outside-toplevel
    import tf_session  # pylint: disable=import-outside-toplevel
    gd = cluster_graphs.graph("errors")
    feeds, fetches, how, *targets = cluster_graphs.ERRORS[name]
    targets = targets[0] if targets else []
    path = ctx.cluster_once.get("errors graph", lambda: _write_graph(
        gd, os.path.join(ctx.work, "cluster", "errors")))

    def tf_run(target):
        if how == "session":
            return tf_session.run_session(gd, feeds, fetches, target=target)
        return tf_session.run_callable(gd, feeds, fetches, targets, target=target,
                                       timeout_ms=TIMEOUT_MS)
    want = ctx.cluster_once.get(("error", name), lambda: tf_run(ctx.cluster.targets["tf"]))
    if want.error is None:
        return Result("fail", "TensorFlow's cluster succeeds")
    if mode in TF_CLIENT:
        with ctx.cluster.lock(mode):
            got = tf_run(ctx.cluster.targets[mode])
        if got.error is None:
            return Result("fail", f"dfg's cluster succeeds; TensorFlow: {want.message}")
        if got.error[0] != want.error[0]:
            return Result("fail", f"status {got.error[0]}, TensorFlow {want.error[0]}: "
                                  f"dfg: {got.error[1][:300]} | TensorFlow: {want.message}")
        text = got.error[1]
    else:
        with ctx.cluster.lock(mode):
            r, _ = run_dfg_client(ctx, path, feeds, fetches, ctx.cluster.targets[mode],
                                  directory, targets)
        if r.returncode != 1:
            return Result("fail", f"dfg exit status {r.returncode}, expected 1; "
                                  f"TensorFlow: {want.message}")
        text = r.stderr
    missing = missing_phrases(want.error[1], text)
    if missing:
        return Result("fail", f"TensorFlow's phrases missing: {missing}; "
                              f"dfg: {' '.join(text.split())[:300]}")
    return Result("pass")


def concurrent_sessions(ctx, clients=8):
    """`clients` concurrent `dfg run --master` sessions on the dfg cluster
    (holding its lock: nothing else runs there meanwhile), twice over; each
    must succeed, as on a TensorFlow master (the tf cluster, the same way)."""
    import cluster_graphs  # pylint: disable=import-outside-toplevel
    import numpy as np  # pylint: disable=import-outside-toplevel
    gd = cluster_graphs.graph("remote_fetch")
    d = os.path.join(ctx.work, "cluster", "concurrent")
    path = _write_graph(gd, d)
    feeds = {"x": np.float32([1, 2, 3, 4])}

    def round_on(mode):
        with concurrent.futures.ThreadPoolExecutor(clients) as pool:
            runs = list(pool.map(lambda k: run_dfg_client(
                ctx, path, feeds, ["sq"], ctx.cluster.targets[mode],
                os.path.join(d, f"{mode}{k}"))[0], range(clients)))
        return [r.stderr.strip() for r in runs if r.returncode != 0]
    if round_on("tf") + round_on("tf"):
        return Result("fail", "TensorFlow's master fails concurrent sessions")
    with ctx.cluster.lock("dfg"):
        errors = round_on("dfg") + round_on("dfg")
    if errors:
        return Result("fail", f"{len(errors)} of {2 * clients} sessions failed: "
                              f"{' '.join(errors[0].split())[:300]}")
    return Result("pass")


def tasks(ctx):
    import cluster_graphs  # pylint: disable=import-outside-toplevel
    cases, notes = run_diff.collect(ctx)
    ctx.notes.extend(n for n in notes if n not in ctx.notes)
    models = [c for c in cases if c.op == "model" and c.name not in run_diff.TF_CANNOT]
    out = []

    def add(name, fn):
        def guarded():
            if ctx.cluster.error:
                return Result("fail", ctx.cluster.error)
            return known.apply(name, fn())
        out.append((name, guarded))
    # Mode by mode within a case, so that the two threads mostly work on
    # different clusters (a dfg master takes one session at a time).
    for i, case in enumerate(models):
        for mode in MODES:
            def fn(mode=mode, case=case, i=i):
                if case.name in CLUSTER_CANNOT:
                    return Result("skip", CLUSTER_CANNOT[case.name])
                if case.model and not os.path.exists(case.model):
                    return model_missing(case.model)
                d = os.path.join(ctx.work, "cluster", f"m{i:03d}")
                prepared = ctx.cluster_once.get(case.name,
                                                lambda: _prepare_model(ctx, case, d))
                return check(ctx, mode, prepared, os.path.join(d, mode))
            add(f"cluster/{mode}/{case.name}", fn)
    for name in cluster_graphs.CASES:
        for mode in MODES:
            def fn(mode=mode, name=name):
                d = os.path.join(ctx.work, "cluster", "graph", name)
                prepared = ctx.cluster_once.get(name, lambda: _prepare_graph(name, d))
                return check(ctx, mode, prepared, os.path.join(d, mode))
            add(f"cluster/{mode}/graph/{name}", fn)
    for name in cluster_graphs.ERRORS:
        for mode in MODES:
            add(f"cluster/{mode}/errors/{name}",
                lambda mode=mode, name=name: check_error(
                    ctx, mode, name, os.path.join(ctx.work, "cluster", "errors", name, mode)))
    add("cluster/dfg/concurrent_sessions", lambda: concurrent_sessions(ctx))
    return out
