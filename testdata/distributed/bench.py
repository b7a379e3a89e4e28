#!/usr/bin/python3
"""Network cost of a dfg cluster on loopback, side by side with one process:
  1. a 64 MB float32 tensor made on task 1 and summed on task 0
     (big_transfer.pbtxt): step median through --master, the same graph
     with every node on task 1 (no transfer), and in one process with
     --devices over the two tasks' CPUs; the transfer rate is
     64 MiB / (cross-task median - one-task median);
  2. a scalar step that crosses two tasks (square.pbtxt: feed -> task 1 ->
     task 0 -> fetch), --repeat 1000, through --master and in one process.
Each figure is printed beside its target (what the distributed runtime is
held to) and the one-process figure, with the CPU time per step of the client and of each server
(user+sys; on a shared machine wall time mostly measures the load) and the
load average before and after.

With --tf, the scalar step side by side with TensorFlow (the Python of
DFG_TF_PYTHON, default the venv of .ci/install-tf.sh): TensorFlow's client
on two tf.distribute.Servers, TensorFlow's client on the dfg cluster, and
dfg's client on the TensorFlow servers.

    /usr/bin/python3 testdata/distributed/bench.py --dfg build/dfg [--repeat N] [--tf]
"""
import os
import re
import resource
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster import Cluster, TfServers, find_dfg, pick_ports, run  # noqa: E402
import numpy as np  # noqa: E402

DEVICES = "/job:worker/task:0/cpu:0,/job:worker/task:1/cpu:0"


def median_us(args):
    r = run(args, timeout=600)
    m = re.search(r"median ([0-9.]+) us", r.stderr)
    if r.returncode != 0 or not m:
        raise RuntimeError(r.stderr)
    return float(m.group(1))


def tf_python():
    return os.environ.get("DFG_TF_PYTHON",
                          os.path.expanduser("~/.cache/dfg/tf-venv/bin/python"))


def tf_median_us(python, target, repeat):
    """The median step of TensorFlow's client on `target` (square.pbtxt)."""
    r = run([python, os.path.join(HERE, "tf_step_bench.py"), target,
             os.path.join(HERE, "square.pbtxt"), "x=3", "y", repeat, "50"], timeout=600)
    m = re.search(r"median ([0-9.]+) us", r.stdout)
    if r.returncode != 0 or not m:
        raise RuntimeError(r.stderr[-2000:])
    return float(m.group(1))


def side_by_side(dfg, dfg_target, x, repeat):
    """--tf: the scalar step with TensorFlow on either side."""
    python = tf_python()
    if run([python, "-c", "import tensorflow"], timeout=120).returncode != 0:
        print(f"TensorFlow side by side skipped: {python} does not import tensorflow")
        return
    tf_client_dfg = tf_median_us(python, dfg_target, repeat)
    with TfServers(python) as servers:
        ports = pick_ports(2)
        spec = {"worker": [f"127.0.0.1:{p}" for p in ports]}
        for task in range(2):
            servers.start(spec, task)
        tf_target = f"grpc://127.0.0.1:{ports[0]}"
        tf_tf = tf_median_us(python, tf_target, repeat)
        dfg_tf = median_us([dfg, "run", os.path.join(HERE, "square.pbtxt"), "--master",
                            tf_target, "--feed", f"x={x}", "--fetch", "y",
                            "--repeat", repeat, "--warmup", "50"])
    print(f"scalar step side by side, median of {repeat}: TensorFlow client and servers "
          f"{tf_tf:.1f} us; TensorFlow client on dfg servers {tf_client_dfg:.1f} us; "
          f"dfg client on TensorFlow servers {dfg_tf:.1f} us")


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def cpu_seconds(pid):
    """user+sys of a running process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """CPU seconds used by the client (children of this script) and by each
    server between start() and per_step(n)."""

    def __init__(self, cluster):
        self.pids = [p.pid for p in cluster.procs]

    def start(self):
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.client = ru.ru_utime + ru.ru_stime
        self.servers = [cpu_seconds(p) for p in self.pids]

    def per_step(self, steps):
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        client = (ru.ru_utime + ru.ru_stime - self.client) / steps
        servers = [(cpu_seconds(p) - c) / steps
                   for p, c in zip(self.pids, self.servers)]
        return client, servers


def fmt_cpu(client, servers, unit, scale):
    tasks = ", ".join(f"task {i} {s * scale:.0f} {unit}"
                      for i, s in enumerate(servers))
    return f"CPU per step: client {client * scale:.0f} {unit}, {tasks}"


def main():
    dfg = find_dfg(sys.argv)
    repeat = sys.argv[sys.argv.index("--repeat") + 1] if "--repeat" in sys.argv[:-1] else "1000"
    big = os.path.join(HERE, "big_transfer.pbtxt")
    square = os.path.join(HERE, "square.pbtxt")
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory() as tmp, Cluster(dfg, 2) as c:
        meter = CpuMeter(c)
        one_task = os.path.join(tmp, "one_task.pbtxt")
        with open(big) as f, open(one_task, "w") as g:
            g.write(f.read().replace("/job:worker/task:0", "/job:worker/task:1"))
        x = os.path.join(tmp, "x.npy")
        np.save(x, np.float32(3))
        common = ["--fetch", "sum", "--repeat", "20", "--warmup", "3"]
        meter.start()
        cross = median_us([dfg, "run", big, "--master", c.target()] + common)
        big_cpu = meter.per_step(23)
        same = median_us([dfg, "run", one_task, "--master", c.target()] + common)
        local = median_us([dfg, "run", big, "--devices", DEVICES] + common)
        mb = 64 * 1024 * 1024
        rate = mb / ((cross - same) * 1e-6) / 1e9 if cross > same else float("inf")
        print(f"64 MB float32 task 1 -> task 0: transfer {rate:.2f} GB/s "
              f"(target >= 1 GB/s); step median {cross / 1000:.1f} ms through "
              f"--master, {same / 1000:.1f} ms with no transfer, "
              f"{local / 1000:.1f} ms in one process (--devices); "
              f"{fmt_cpu(*big_cpu, 'ms', 1e3)}")
        scalar = ["--feed", f"x={x}", "--fetch", "y", "--repeat", repeat, "--warmup", "50"]
        meter.start()
        remote = median_us([dfg, "run", square, "--master", c.target()] + scalar)
        scalar_cpu = meter.per_step(int(repeat) + 50)
        local = median_us([dfg, "run", square, "--devices", DEVICES] + scalar)
        print(f"scalar step feed -> task 1 -> task 0 -> fetch, median of {repeat}: "
              f"{remote:.1f} us through --master (target <= 300 us), "
              f"{local:.1f} us in one process (--devices); "
              f"{fmt_cpu(*scalar_cpu, 'us', 1e6)}")
        if "--tf" in sys.argv:
            side_by_side(dfg, c.target(), x, repeat)
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
