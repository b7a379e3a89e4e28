#!/usr/bin/python3
"""A dfg cluster started only through TF_CONFIG (as Kubeflow's TFJob, Vertex
AI or TFConfigClusterResolver describe a cluster) is the cluster --cluster
starts:
  - two tasks on loopback from TF_CONFIG alone, driven by
    `dfg run --master tf_config`, give the outputs a --cluster cluster gives;
  - `dfg server --print-config` from TF_CONFIG equals the flags' own;
  - explicit flags win over TF_CONFIG; a task with a non-loopback host is
    served on every interface, with the security warning;
  - a malformed TF_CONFIG is exit 1 naming the field; none at all, exit 2.

    /usr/bin/python3 testdata/distributed/tf_config_test.py --dfg build/dfg
"""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from cluster import (Cluster, _die_with_parent, _wait_line, find_dfg,  # noqa: E402
                     pick_ports, run)

FAILURES = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond else f": {detail}"))
    if not cond:
        FAILURES.append(what)


def env_with(tf_config):
    env = dict(os.environ)
    env.pop("TF_CONFIG", None)
    if tf_config is not None:
        env["TF_CONFIG"] = tf_config if isinstance(tf_config, str) else json.dumps(tf_config)
    return env


class TfConfigCluster:
    """Two dfg servers whose only configuration is TF_CONFIG."""

    def __init__(self, dfg, cluster):
        self.procs, self.lines, self.errs = [], [], []
        try:
            for index in range(len(cluster["worker"])):
                tf_config = {"cluster": cluster, "task": {"type": "worker", "index": index}}
                p = subprocess.Popen([dfg, "server", "--threads", "2", "--intra-threads", "1"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=env_with(tf_config), preexec_fn=_die_with_parent)
                self.procs.append(p)
                self.lines.append(_wait_line(p, "listening on", f"TF_CONFIG task {index}", 30))
        except Exception:
            self.stop()
            raise

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
            self.errs.append(p.stderr.read())
            p.stdout.close()
            p.stderr.close()


def steps(dfg, master, env):
    """The outputs of the same steps run through `master`, as JSON text."""
    square = os.path.join(HERE, "square.pbtxt")
    models = os.path.join(SRC, "testdata", "models")
    cases = [
        [square, "--feed", "x=[1.5, -2, 3]", "--fetch", "y"],
        [os.path.join(models, "mlp.pbtxt"), "--feed",
         f"x={os.path.join(models, 'mlp_input.npy')}", "--fetch", "probs,stats/mean"],
        [os.path.join(models, "loop.pbtxt"), "--feed",
         f"x={os.path.join(models, 'loop_input.npy')}", "--fetch", "result"],
    ]
    out = []
    for args in cases:
        r = run([dfg, "run"] + args + ["--master", master, "--json"], timeout=120, env=env)
        out.append((r.returncode, r.stdout, r.stderr if r.returncode else ""))
    return out


def print_config(dfg, args, tf_config):
    r = run([dfg, "server", "--print-config"] + args, timeout=30, env=env_with(tf_config))
    try:
        return r.returncode, json.loads(r.stdout) if r.returncode == 0 else None, r.stderr
    except json.JSONDecodeError:
        return r.returncode, None, r.stdout + r.stderr


def same_cluster(dfg):
    ports = pick_ports(2)
    addresses = [f"127.0.0.1:{p}" for p in ports]
    cluster = {"worker": addresses}
    start = time.monotonic()
    c = TfConfigCluster(dfg, cluster)
    took = time.monotonic() - start
    try:
        check(all(f"listening on {a}" in line for a, line in zip(addresses, c.lines)),
              "TF_CONFIG's loopback tasks listen on 127.0.0.1 and their own ports", c.lines)
        print(f"     two servers up from TF_CONFIG in {took * 1000:.0f} ms")
        from_env = steps(dfg, "tf_config", env_with({"cluster": cluster}))
        check(all(code == 0 for code, _, _ in from_env),
              "`dfg run --master tf_config` runs on the TF_CONFIG cluster", from_env)
        r = run([dfg, "run", os.path.join(HERE, "square.pbtxt"), "--master", "tf_config",
                 "--feed", "x=2", "--fetch", "y"], env=env_with({"cluster": cluster}))
        check(f"master grpc://{addresses[0]} from TF_CONFIG" in r.stderr,
              "dfg run says which master it took from TF_CONFIG", r.stderr)
        session_master = {"cluster": cluster, "session_master": addresses[1]}
        r = run([dfg, "run", os.path.join(HERE, "square.pbtxt"), "--master", "tf_config",
                 "--feed", "x=2", "--fetch", "y"], env=env_with(session_master))
        check(r.returncode == 0 and f"master grpc://{addresses[1]}" in r.stderr,
              "TF_CONFIG's session_master is the master", r.stderr)
    finally:
        c.stop()
    check(all("cluster from TF_CONFIG (worker: 2 tasks); job 'worker' from TF_CONFIG "
              f"task.type, task {i} from TF_CONFIG task.index" in err
              for i, err in enumerate(c.errs)),
          "each server says on stderr what it took from TF_CONFIG", c.errs)
    check(not any("warning" in err for err in c.errs),
          "no security warning on loopback", c.errs)
    with Cluster(dfg, 2) as flags_cluster:
        from_flags = steps(dfg, flags_cluster.target(0), env_with(None))
    check(from_env == from_flags,
          "the TF_CONFIG cluster's outputs equal the --cluster cluster's",
          f"{from_env} != {from_flags}")


def configs(dfg):
    cluster = {"worker": ["127.0.0.1:5000", "127.0.0.1:5001"]}
    for index in range(2):
        env_code, env_cfg, env_err = print_config(
            dfg, [], {"cluster": cluster, "task": {"type": "worker", "index": index}})
        flag_code, flag_cfg, flag_err = print_config(
            dfg, ["--cluster", "worker=" + ",".join(cluster["worker"]), "--task", str(index)],
            None)
        check(env_code == 0 and flag_code == 0 and env_cfg and flag_cfg and
              {k: env_cfg[k] for k in ("cluster", "task", "listen")} == flag_cfg,
              f"--print-config of task {index}: TF_CONFIG's equals --cluster's",
              f"{env_cfg} {env_err} / {flag_cfg} {flag_err}")
    code, cfg, err = print_config(
        dfg, ["--task", "1"], {"cluster": cluster, "task": {"type": "worker", "index": 0}})
    check(code == 0 and cfg["task"] == {"type": "worker", "index": 1} and
          cfg["listen"] == "127.0.0.1:5001" and "task 1 from --task" in err,
          "--task wins over TF_CONFIG's task.index", f"{cfg} {err}")
    code, cfg, err = print_config(
        dfg, ["--cluster", "worker=127.0.0.1:7000"],
        {"cluster": cluster, "task": {"type": "worker", "index": 1}})
    check(code == 0 and cfg["cluster"] == {"worker": ["127.0.0.1:7000"]} and
          cfg["task"]["index"] == 0 and "TF_CONFIG not read" in err,
          "--cluster wins: TF_CONFIG is not read", f"{cfg} {err}")
    remote = {"cluster": {"chief": ["dfg-0.example.invalid:2222"],
                          "worker": ["dfg-1.example.invalid:2223"]},
              "task": {"type": "worker", "index": 0}}
    code, cfg, err = print_config(dfg, [], remote)
    check(code == 0 and cfg["listen"] == "0.0.0.0:2223" and
          "every interface" in err and "warning" in err and "TLS" in err,
          "a non-loopback task host: every interface, and the warning", f"{cfg} {err}")
    code, cfg, err = print_config(dfg, ["--listen", "127.0.0.1:0"], remote)
    check(code == 0 and cfg["listen"] == "127.0.0.1:0" and "warning" not in err,
          "--listen wins over TF_CONFIG's host", f"{cfg} {err}")


def errors(dfg):
    bad = [
        ('{"cluster": ', "TF_CONFIG is not valid JSON"),
        ({"cluster": {"master": ["a:1"]}, "task": {"type": "master", "index": 0}},
         "cluster job 'master' is not one of"),
        ({"cluster": {"worker": ["a:1"]}, "task": {"type": "boss", "index": 0}},
         "task.type 'boss'"),
        ({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 1}},
         "task.index 1 is out of range"),
        ({"cluster": {"worker": ["a:1"]}}, "TF_CONFIG has no task"),
        ({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 0},
          "rpc_layer": "grpc+verbs"}, "rpc_layer 'grpc+verbs'"),
    ]
    for tf_config, phrase in bad:
        r = run([dfg, "server"], timeout=30, env=env_with(tf_config))
        check(r.returncode == 1 and r.stderr.startswith("dfg server: error: ") and
              phrase in r.stderr, f"bad TF_CONFIG: {phrase}", f"{r.returncode} {r.stderr}")
    r = run([dfg, "server"], timeout=30, env=env_with(None))
    check(r.returncode == 2 and "--cluster is required" in r.stderr,
          "no --cluster and no TF_CONFIG is a usage error", r.stderr)
    r = run([dfg, "server"], timeout=30, env=env_with("  "))
    check(r.returncode == 2, "a blank TF_CONFIG is no TF_CONFIG", r.stderr)
    square = os.path.join(HERE, "square.pbtxt")
    r = run([dfg, "run", square, "--master", "tf_config", "--feed", "x=1"], env=env_with(None))
    check(r.returncode == 1 and "TF_CONFIG environment variable is not set" in r.stderr,
          "--master tf_config without TF_CONFIG", r.stderr)
    r = run([dfg, "run", square, "--master", "tf_config", "--feed", "x=1"],
            env=env_with({"cluster": {"ps": ["a:1"]}}))
    check(r.returncode == 1 and "names no master" in r.stderr,
          "--master tf_config with no master in TF_CONFIG", r.stderr)


def main():
    dfg = find_dfg(sys.argv)
    configs(dfg)
    errors(dfg)
    same_cluster(dfg)
    print(f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
