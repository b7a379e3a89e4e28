"""Start and stop local dfg clusters (and TensorFlow servers) for tests:
every server listens on a loopback port the OS picked, runs with bounded
waits, is stopped (SIGTERM, then SIGKILL) when the test ends, and is killed
by the kernel if the process that started it dies first.
"""
import ctypes
import json
import os
import select
import signal
import socket
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def pick_ports(n):
    """n distinct free loopback ports (bound together, then released)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


try:  # resolved here: the child between fork and exec must not dlopen
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _PRCTL = None


def _die_with_parent():
    """In the child before exec: SIGKILL when the parent (thread) ends, so that
    no server outlives a test that crashed or was killed (Linux prctl)."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _wait_line(p, want, what, timeout):
    """The first line of p's stdout that contains `want`, within timeout s."""
    deadline = time.monotonic() + timeout
    line = ""
    while want not in line:
        left = deadline - time.monotonic()
        if left <= 0 or p.poll() is not None or line.startswith("error:"):
            err = p.stderr.read() if p.poll() is not None and p.stderr else ""
            why = (f"exited with status {p.returncode}" if p.poll() is not None else
                   "failed" if line.startswith("error:") else f"not up within {timeout} s")
            raise RuntimeError(f"{what} did not start ({why}): {line.strip()!r} "
                               f"{err.strip()[-500:]}")
        ready, _, _ = select.select([p.stdout], [], [], left)
        if ready:
            line = p.stdout.readline()
    return line


def _bound_port(line):
    """The port of a "... listening on HOST:PORT" line."""
    return int(line.strip().rsplit(":", 1)[1])


class Cluster:
    """n dfg servers of job 'worker' on 127.0.0.1; task 0 is the master.

    listen_any: the last task binds `--listen 127.0.0.1:0` (the port the OS
    picks, printed by the server) and starts first; the others, whose
    addresses every task must know when it starts (a dfg worker reaches its
    peers through its own --cluster), get ports from pick_ports.
    ports/start_tasks: a cluster some of whose tasks are someone else's (a
    TensorFlow server): their ports are given, and only start_tasks are
    started here."""

    def __init__(self, dfg, n, extra=(), start_timeout=30, listen_any=False,
                 ports=None, start_tasks=None):
        self.dfg = dfg
        self.extra = list(extra)
        self.procs = [None] * n
        self.ports = list(ports) if ports else pick_ports(n)
        tasks = list(range(n)) if start_tasks is None else list(start_tasks)
        try:
            if listen_any and n > 1 and n - 1 in tasks and not ports:
                self.ports[n - 1] = 0
                self.spec = self._spec()
                line = _wait_line(self._popen(n - 1, ["--listen", "127.0.0.1:0"]),
                                  "listening on", f"task {n - 1}", start_timeout)
                self.ports[n - 1] = _bound_port(line)
                tasks.remove(n - 1)
            self.spec = self._spec()
            for i in tasks:
                self.start(i, start_timeout)
        except Exception:
            self.stop()
            raise

    def _spec(self):
        return "worker=" + ",".join(f"127.0.0.1:{p}" for p in self.ports)

    def _popen(self, task, more=()):
        args = [self.dfg, "server", "--cluster", self.spec, "--job", "worker",
                "--task", str(task), "--threads", "2", "--intra-threads", "1"]
        p = subprocess.Popen(args + list(more) + self.extra, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=_die_with_parent)
        self.procs[task] = p
        return p

    def start(self, task, timeout=30):
        p = self._popen(task)
        _wait_line(p, "listening on", f"task {task}", timeout)
        return p

    def target(self, task=0):
        return f"grpc://127.0.0.1:{self.ports[task]}"

    def address(self, task):
        return f"127.0.0.1:{self.ports[task]}"

    def kill(self, task, sig=signal.SIGKILL):
        p = self.procs[task]
        if p is not None and p.poll() is None:
            p.send_signal(sig)
            p.wait(timeout=10)

    def stop(self):
        for p in self.procs:
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            if p is None:
                continue
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
            for f in (p.stdout, p.stderr):
                if f:
                    f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class TfServers:
    """tf.distribute.Servers, all in one child process (tf_servers.py) of a
    Python that imports TensorFlow: TensorFlow cannot stop a Server, so the
    process is what ends (stop(), or the kernel when the parent dies)."""

    def __init__(self, python, timeout=120, log=None):
        self.log = open(log, "w") if log else subprocess.DEVNULL  # TF's chatter
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", TF_ENABLE_ONEDNN_OPTS="0")
        self.proc = subprocess.Popen([python, os.path.join(HERE, "tf_servers.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True, env=env,
                                     preexec_fn=_die_with_parent)
        try:
            _wait_line(self.proc, "ready", "the TensorFlow server process", timeout)
        except Exception:
            self.stop()
            raise

    def start(self, cluster, task, job="worker", config="", timeout=60):
        """Starts task `task` of `cluster` ({job: [address]}, a port 0 picks
        a free one); returns the port it bound."""
        req = {"cluster": cluster, "job": job, "task": task, "config": config}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = _wait_line(self.proc, "listening on", f"TensorFlow /job:{job}/task:{task}",
                          timeout)
        return _bound_port(line)

    def stop(self):
        p = self.proc
        if p.poll() is None:
            try:
                p.stdin.close()  # tf_servers.py exits at EOF
                p.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                p.kill()
                p.wait(timeout=10)
        for f in (p.stdin, p.stdout):
            if f and not f.closed:
                try:
                    f.close()
                except OSError:
                    pass
        if self.log is not subprocess.DEVNULL:
            self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def run(args, timeout=120, **kw):
    """subprocess.run with a bound, text output."""
    return subprocess.run(args, capture_output=True, text=True,
                          timeout=timeout, **kw)


def find_dfg(argv):
    if "--dfg" in argv[:-1]:
        return os.path.abspath(argv[argv.index("--dfg") + 1])
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "..", "build", "dfg")


def skip(reason, require):
    """Exits 77 (CTest's skip) saying why, or 1 when the environment variable
    `require` is 1: CI (.ci/run) sets DFG_REQUIRE_SHARED, DFG_REQUIRE_TF and
    DFG_REQUIRE_DEPS, where what a test needs must be there."""
    if os.environ.get(require) == "1":
        print(f"FAIL: {reason}, and {require}=1")
        raise SystemExit(1)
    print(f"skipped: {reason}")
    raise SystemExit(77)
