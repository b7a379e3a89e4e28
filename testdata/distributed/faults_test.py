#!/usr/bin/python3
"""Faults of a dfg cluster, scripted (every wait bounded):
  - a worker SIGKILLed mid-step: `dfg run --master` exits 1 naming the task,
    well within --timeout-ms; the survivor drops the step, and after the
    worker restarts (new incarnation) the cluster runs steps again;
  - --timeout-ms cancels a step that never ends; Ctrl-C (SIGINT) too;
  - a task that is down when the session starts is named;
  - SIGTERM stops a server cleanly (exit 0); a port in use is an error;
  - `--listen 127.0.0.1:0` picks a port and prints it.

    /usr/bin/python3 testdata/distributed/faults_test.py --dfg build/dfg
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster import Cluster, find_dfg, run, skip  # noqa: E402

try:
    import numpy as np
except ImportError:
    skip("numpy unavailable", "DFG_REQUIRE_DEPS")

FAILURES = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond else f": {detail}"))
    if cond and detail and os.environ.get("DFG_VERBOSE"):
        print("     " + detail.strip().replace("\n", "\n     "))
    if not cond:
        FAILURES.append(what)


def tls(dfg, tmp, square, x):
    """A cluster serving TLS (a self-signed certificate for 127.0.0.1)."""
    key, cert = os.path.join(tmp, "key.pem"), os.path.join(tmp, "cert.pem")
    try:
        r = run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                 "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                 "-addext", "subjectAltName=IP:127.0.0.1"])
        why = (r.stderr or f"exit {r.returncode}") if r.returncode != 0 else ""
    except OSError as e:  # no openssl program
        why = str(e)
    if why:
        # openssl comes with .ci/install-deps.sh: in CI a missing one fails.
        if os.environ.get("DFG_REQUIRE_DEPS") == "1":
            check(False, "openssl makes a certificate (DFG_REQUIRE_DEPS=1)", why)
        else:
            print("skip TLS: openssl could not make a certificate")
        return
    extra = ["--tls-cert", cert, "--tls-key", key, "--tls-ca", cert]
    with Cluster(dfg, 2, extra=extra) as c:
        r = run([dfg, "run", square, "--master", c.target(), "--tls-ca", cert,
                 "--feed", f"x={x}", "--fetch", "y"], timeout=60)
        check(r.returncode == 0 and "10" in r.stdout,
              "a TLS cluster (--tls-cert/--tls-key, run --tls-ca)", r.stderr)


def main():
    dfg = find_dfg(sys.argv)
    forever = os.path.join(HERE, "forever.pbtxt")
    square = os.path.join(HERE, "square.pbtxt")
    with tempfile.TemporaryDirectory() as tmp:
        x = os.path.join(tmp, "x.npy")
        np.save(x, np.float32(3))
        with Cluster(dfg, 2) as c:
            r = run([dfg, "run", square, "--master", c.target(), "--feed", f"x={x}",
                     "--fetch", "y"])
            check(r.returncode == 0 and "10" in r.stdout, "a step across two tasks",
                  r.stderr)

            r = run([dfg, "run", os.path.join(HERE, "task5.pbtxt"), "--master", c.target(),
                     "--fetch", "y"])
            check(r.returncode == 1 and "was explicitly assigned to /job:worker/task:5" in r.stderr,
                  "a node asking for a task the cluster lacks: TensorFlow's placement error",
                  r.stderr)

            # SIGKILL task 1 during a step that never ends.
            start = time.monotonic()
            p = subprocess.Popen([dfg, "run", forever, "--master", c.target(),
                                  "--fetch", "x", "--timeout-ms", "20000"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(1.5)
            c.kill(1)
            out, err = p.communicate(timeout=30)
            took = time.monotonic() - start
            check(p.returncode == 1 and "/job:worker/replica:0/task:1" in err and took < 15,
                  "a worker killed mid-step: exit 1 naming the task, before the timeout",
                  f"code {p.returncode} after {took:.1f}s: {err}")
            r = run([dfg, "run", square, "--master", c.target(), "--feed", f"x={x}",
                     "--fetch", "y"], timeout=60)
            check(r.returncode == 1 and "task:1" in r.stderr,
                  "a task that is down when the session starts is named", r.stderr)
            c.start(1)
            r = run([dfg, "run", square, "--master", c.target(), "--feed", f"x={x}",
                     "--fetch", "y", "--repeat", "3"], timeout=60)
            check(r.returncode == 0 and "10" in r.stdout,
                  "after the restart the cluster runs steps again", r.stderr)

            start = time.monotonic()
            r = run([dfg, "run", forever, "--master", c.target(), "--fetch", "x",
                     "--timeout-ms", "500"], timeout=60)
            took = time.monotonic() - start
            # DEADLINE_EXCEEDED from gRPC ("Deadline Exceeded") or from the
            # master's own wait ("Timed out waiting for the step"), whichever
            # fires first.
            check(r.returncode == 1 and took < 10 and
                  ("Deadline" in r.stderr or "Timed out waiting" in r.stderr),
                  "--timeout-ms cancels the step everywhere", f"{took:.1f}s {r.stderr}")

            p = subprocess.Popen([dfg, "run", forever, "--master", c.target(),
                                  "--fetch", "x"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            time.sleep(1.5)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=30)
            check(p.returncode == 1 and "cancelled" in err, "Ctrl-C cancels the step", err)
            r = run([dfg, "run", square, "--master", c.target(), "--feed", f"x={x}",
                     "--fetch", "y"], timeout=60)
            check(r.returncode == 0, "the cluster serves the next session", r.stderr)

            r = run([dfg, "server", "--cluster", c.spec, "--task", "0"], timeout=30)
            check(r.returncode == 1 and "could not bind" in r.stderr,
                  "a second server on a port in use is an error", r.stderr)
            p0 = c.procs[0]
            p0.send_signal(signal.SIGTERM)
            check(p0.wait(timeout=15) == 0, "SIGTERM stops a server cleanly (exit 0)")

        tls(dfg, tmp, square, x)
        p = subprocess.Popen([dfg, "server", "--cluster", "worker=127.0.0.1:1",
                              "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        line = p.stdout.readline()
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=15)
        check(line.startswith("/job:worker/replica:0/task:0 listening on 127.0.0.1:")
              and not line.strip().endswith(":0"),
              "--listen 127.0.0.1:0 prints the port it picked", line)
        r = run([dfg, "run", square, "--master", "grpc://127.0.0.1:1", "--feed",
                 f"x={x}", "--fetch", "y"], timeout=60)
        check(r.returncode == 1 and "does not answer" in r.stderr,
              "a master that is not there", r.stderr)
        r = run([dfg, "run", square, "--master", "http://127.0.0.1:1"], timeout=60)
        check(r.returncode == 1 and "grpc://" in r.stderr, "a target that is not grpc://",
              r.stderr)
    print(f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
