#!/usr/bin/env python3
"""dfg and TensorFlow servers are interchangeable parts (needs TensorFlow;
run with the TF venv's python, e.g. /root/.cache/dfg/tf-venv/bin/python):
  1. a TF1-style client, tf.compat.v1.Session("grpc://..."), runs graphs on
     a two-task dfg cluster: devices on another task, a cond and a while
     loop across tasks, variables;
  2. a dfg master drives a tf.distribute.Server worker: `dfg run --master`
     on a cluster whose task 1 is TensorFlow, tensors pulled both ways with
     RecvTensor; a while loop whose frame spans the dfg and the TensorFlow
     task (the rendezvous keys' frame ids must agree) and a TensorList made
     on the TensorFlow task and stacked on the dfg task (TensorFlow's
     variant encoding).
Exit 77 (skip) when TensorFlow is not importable; 1 under DFG_REQUIRE_TF=1 (CI).

    PY testdata/distributed/tf_interop_test.py --dfg build/dfg
"""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster import Cluster, find_dfg, pick_ports, run, skip  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
try:
    import numpy as np
    import tensorflow as tf
except ImportError:
    skip(f"TensorFlow is not importable by {sys.executable} "
         "(run with the TensorFlow venv's python)", "DFG_REQUIRE_TF")

FAILURES = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond else f": {detail}"))
    if not cond:
        FAILURES.append(what)


def tf_client_on_dfg(dfg):
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()  # v1 Switch/Merge control flow, as TF 1.x
    with Cluster(dfg, 2) as c:
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [3], name="x")
            with tf.device("/job:worker/task:1"):
                y = x * 2.0
            z = y + 1.0
            p = tf1.placeholder(tf.bool, [], name="p")
            with tf.device("/job:worker/task:1"):
                cond = tf1.cond(p, lambda: z * 10.0, lambda: z - 10.0)
            i = tf.constant(0)
            with tf.device("/job:worker/task:1"):
                loop = tf1.while_loop(lambda i: i < 7, lambda i: i + 1, [i])
            v = tf1.Variable(5.0, name="v")
            with tf.device("/job:worker/task:1"):
                plus = v + 1.5  # read on task 0, added on task 1
            inc = tf1.assign(v, plus)
            init = tf1.global_variables_initializer()
        with tf1.Session(c.target(), graph=g) as s:
            out = s.run(z, {x: [1, 2, 3]})
            check(np.allclose(out, [3, 5, 7]), "tf.compat.v1.Session runs a step on dfg", out)
            a = s.run(cond, {x: [1, 2, 3], p: True})
            b = s.run(cond, {x: [1, 2, 3], p: False})
            check(np.allclose(a, [30, 50, 70]) and np.allclose(b, [-7, -5, -3]),
                  "tf.cond across tasks (dead tensors through RecvTensor)", (a, b))
            check(s.run(loop) == 7, "tf.while_loop across tasks")
            s.run(init)
            s.run(inc)
            check(abs(s.run(inc) - 8.0) < 1e-6, "a variable on task 0 updated from task 1")
            devices = [d.name for d in s.list_devices()]
            check(any("task:1" in d for d in devices), "list_devices", devices)


def graph_across_tasks(path):
    """A v1 while loop (loop on task 0, its body's multiply on task 1) and a
    TensorList set on task 1 and stacked on task 0."""
    tf1 = tf.compat.v1
    tf1.disable_control_flow_v2()
    g = tf.Graph()
    with g.as_default():
        def body(i, a):
            with tf.device("/job:worker/task:1"):
                a2 = a * 2.0
            return i + 1, a2
        _, out = tf1.while_loop(lambda i, a: i < 5, body,
                                [tf.constant(0), tf.constant(1.0)])
        tf.identity(out, name="loop_out")
        with tf.device("/job:worker/task:1"):
            lst = tf.raw_ops.TensorListReserve(
                element_shape=tf.constant([2]), num_elements=3,
                element_dtype=tf.float32)
            lst = tf.raw_ops.TensorListSetItem(
                input_handle=lst, index=1, item=tf.constant([5.0, 6.0]))
        st = tf.raw_ops.TensorListStack(
            input_handle=lst, element_shape=tf.constant([2]),
            element_dtype=tf.float32)
        tf.identity(st, name="stacked")
    tf.io.write_graph(g.as_graph_def(), os.path.dirname(path),
                      os.path.basename(path))


def dfg_master_drives_tf_worker(dfg):
    ports = pick_ports(2)
    spec = {"worker": [f"127.0.0.1:{p}" for p in ports]}
    tf.distribute.Server(tf.train.ClusterSpec(spec), job_name="worker",
                         task_index=1, protocol="grpc", start=True)
    with tempfile.TemporaryDirectory() as tmp:
        cluster_json = os.path.join(tmp, "cluster.json")
        with open(cluster_json, "w") as f:
            f.write('{"worker": ["%s", "%s"]}' % tuple(spec["worker"]))
        x = os.path.join(tmp, "x.npy")
        np.save(x, np.float32(3))
        import subprocess
        p = subprocess.Popen([dfg, "server", "--cluster", "@" + cluster_json, "--task", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = p.stdout.readline()
            check("listening on" in line, "dfg server task 0 beside a TF task 1", line)
            r = run([dfg, "run", os.path.join(HERE, "square.pbtxt"), "--master",
                     f"grpc://127.0.0.1:{ports[0]}", "--feed", f"x={x}", "--fetch",
                     "y,sq", "--json", "--timeout-ms", "30000"], timeout=90)
            check(r.returncode == 0 and '"value": 10.0' in r.stdout and '"value": 9.0' in r.stdout,
                  "a dfg master runs a step whose square runs on a TensorFlow worker",
                  r.stdout + r.stderr)
            across = os.path.join(tmp, "across.pbtxt")
            graph_across_tasks(across)
            r = run([dfg, "run", across, "--master", f"grpc://127.0.0.1:{ports[0]}",
                     "--fetch", "loop_out,stacked", "--json", "--timeout-ms", "30000"],
                    timeout=90)
            got = json.loads(r.stdout) if r.returncode == 0 else {}
            check(got.get("loop_out", {}).get("value") == 32.0,
                  "a while loop spans the dfg and the TensorFlow task", r.stdout + r.stderr)
            check(got.get("stacked", {}).get("value") == [[0, 0], [5, 6], [0, 0]],
                  "a TensorList crosses from the TensorFlow task to the dfg task",
                  r.stdout + r.stderr)
        finally:
            p.terminate()
            p.wait(timeout=15)


def main():
    dfg = find_dfg(sys.argv)
    dfg_master_drives_tf_worker(dfg)
    tf_client_on_dfg(dfg)
    print(f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
