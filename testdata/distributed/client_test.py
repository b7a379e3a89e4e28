#!/usr/bin/python3
"""`dfg run --master` against a cluster that is not up (every wait bounded):
  - no server: exits 1 after about --timeout-ms, saying "connection refused"
    and naming the address;
  - the client started before the servers: it runs the step once they are up;
  - a SavedModel runs through the master (its variables restored by the
    tasks); flags that do not work with --master are one line, exit 2;
  - a server on a port in use says so in dfg's words only (no gRPC log line),
    unless GRPC_VERBOSITY asks for gRPC's.

    /usr/bin/python3 testdata/distributed/client_test.py --dfg build/dfg
"""
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster import Cluster, find_dfg, pick_ports, run  # noqa: E402

FAILURES = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond else f": {detail}"))
    if not cond:
        FAILURES.append(what)


def no_server(dfg, square):
    port = pick_ports(1)[0]
    start = time.monotonic()
    r = run([dfg, "run", square, "--master", f"grpc://127.0.0.1:{port}", "--timeout-ms",
             "2000", "--feed", "x=[3]", "--fetch", "y"], timeout=60)
    took = time.monotonic() - start
    check(r.returncode == 1 and "connection refused" in r.stderr
          and f"127.0.0.1:{port}" in r.stderr, "no server: connection refused", r.stderr)
    check(1.8 <= took < 6, "no server: fails after about --timeout-ms", f"{took:.1f} s")


def client_first(dfg, square):
    ports = pick_ports(2)
    client = subprocess.Popen(
        [dfg, "run", square, "--master", f"grpc://127.0.0.1:{ports[0]}", "--timeout-ms",
         "30000", "--feed", "x=[3]", "--fetch", "y"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)  # refused meanwhile
    check(client.poll() is None, "the client waits for a master that is not up")
    # The tasks restore the SavedModel's variables (saved_model below): a
    # server lets clients' graphs read only under --allow-path.
    models = os.path.join(os.path.dirname(os.path.dirname(HERE)), "testdata", "savedmodels")
    with Cluster(dfg, 2, ports=ports, extra=["--allow-path", models]) as c:
        up = time.monotonic()
        out, err = client.communicate(timeout=60)
        check(client.returncode == 0 and "10" in out,
              "the client started first runs the step once the servers are up", err)
        check(time.monotonic() - up < 10, "... soon after they are up")

        saved_model(dfg, c)

        r = run([dfg, "server", "--cluster", c.spec, "--task", "0"], timeout=30)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 1 and len(lines) == 1 and "could not bind" in lines[0],
              "a port in use: dfg's one line, no gRPC log", r.stderr)
        env = dict(os.environ, GRPC_VERBOSITY="ERROR")
        r = run([dfg, "server", "--cluster", c.spec, "--task", "0"], timeout=30, env=env)
        check(r.returncode == 1 and "chttp2_server" in r.stderr,
              "GRPC_VERBOSITY brings gRPC's own log back", r.stderr)


def saved_model(dfg, c):
    """A SavedModel runs on the cluster as locally (restored by the tasks from
    its variables, a path relative to the client's directory)."""
    repo = os.path.dirname(os.path.dirname(HERE))
    model = ["run", "testdata/savedmodels/saved_by_dfg", "--feed", "x=[[1,1],[2,0.5]]"]
    here = run([dfg] + model, cwd=repo, timeout=60)
    there = run([dfg] + model + ["--master", c.target()], cwd=repo, timeout=60)
    check(here.returncode == 0 and there.returncode == 0 and there.stdout == here.stdout,
          "a SavedModel runs through the master as locally", there.stderr + here.stderr)
    r = run([dfg] + model + ["--master", c.target(), "--devices", "cpu:0"], cwd=repo,
            timeout=60)
    check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1,
          "--master with --devices: one line, exit 2", r.stderr)


def main():
    dfg = find_dfg(sys.argv)
    square = os.path.join(HERE, "square.pbtxt")
    no_server(dfg, square)
    client_first(dfg, square)
    print(f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
