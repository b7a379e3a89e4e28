#!/usr/bin/env python3
"""dfg reads TF_CONFIG as TensorFlow does (needs TensorFlow; run with the TF
venv's python, e.g. /root/.cache/dfg/tf-venv/bin/python): for each TF_CONFIG
below, `dfg server --print-config` gives the cluster, task type and index and
master that tf.distribute.cluster_resolver.TFConfigClusterResolver gives;
the TF_CONFIGs TensorFlow's multi-worker strategies reject
(multi_worker_util._validate_cluster_spec, or json) dfg rejects too.
Exit 77 (skip) when TensorFlow is not importable; 1 under DFG_REQUIRE_TF=1 (CI).

    PY testdata/distributed/tf_config_tf_test.py --dfg build/dfg
"""
import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster import find_dfg, run, skip  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
try:
    from tensorflow.python.distribute import multi_worker_util
    from tensorflow.python.distribute.cluster_resolver import TFConfigClusterResolver
except ImportError:
    skip(f"TensorFlow is not importable by {sys.executable} "
         "(run with the TensorFlow venv's python)", "DFG_REQUIRE_TF")

FAILURES = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond else f": {detail}"))
    if not cond:
        FAILURES.append(what)


README = {"cluster": {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"],
                      "ps": ["host3:2222"]}}
LOOPBACK = {"worker": ["127.0.0.1:5000", "localhost:5001"]}
# TF_CONFIGs both read alike: the cluster, the task and the master.
GOOD = [
    dict(README, task={"type": "worker", "index": 1}),
    dict(README, task={"type": "chief", "index": 0}),
    dict(README, task={"type": "ps", "index": 0}, rpc_layer="grpc"),
    dict(README, task={"type": "worker", "index": 0}, environment="cloud",
         job={"args": ["--x"]}),
    dict(README, task={"type": "worker", "index": "1"}),
    {"cluster": LOOPBACK, "task": {"type": "worker", "index": 0}, "rpc_layer": "grpc"},
    {"cluster": LOOPBACK, "task": {"type": "worker", "index": 1}},
    {"cluster": dict(LOOPBACK, evaluator=["127.0.0.1:5002"]),
     "task": {"type": "evaluator", "index": 0}},
    {"cluster": LOOPBACK, "task": {"type": "worker", "index": 1},
     "session_master": "grpc://127.0.0.1:5000"},
    {"cluster": {"worker": {"1": "127.0.0.1:5001", "3": "127.0.0.1:5003"}},
     "task": {"type": "worker", "index": 1}},
]
# TF_CONFIGs TensorFlow's resolver and strategies refuse.
BAD = [
    '{"cluster": {"worker": ["a:1"]',
    {"cluster": {"master": ["a:1"]}, "task": {"type": "master", "index": 0}},
    {"cluster": {"worker": ["a:1"]}, "task": {"type": "boss", "index": 0}},
    {"cluster": {"worker": ["a:1"]}, "task": {"type": "ps", "index": 0}},
    {"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 2}},
    {"cluster": {"chief": ["a:1", "b:1"]}, "task": {"type": "chief", "index": 0}},
    {"cluster": {"worker": ["a:1"], "evaluator": ["e:1", "f:1"]},
     "task": {"type": "worker", "index": 0}},
    {"cluster": {"worker": {"1": "a:1", "3": "b:1"}}, "task": {"type": "worker", "index": 3}},
]


def tf_view(tf_config):
    """What TensorFlow makes of tf_config: (cluster dict, type, index, master)."""
    os.environ["TF_CONFIG"] = tf_config if isinstance(tf_config, str) else json.dumps(tf_config)
    try:
        r = TFConfigClusterResolver()
        spec = r.cluster_spec()
        multi_worker_util._validate_cluster_spec(spec, r.task_type, r.task_id)
        master = r.master()
        # TF's master is "HOST:PORT" without an rpc_layer; dfg always says grpc://.
        if master and "://" not in master:
            master = "grpc://" + master
        return spec.as_dict(), r.task_type, r.task_id, master
    finally:
        del os.environ["TF_CONFIG"]


def dfg_view(dfg, tf_config):
    env = dict(os.environ)
    env["TF_CONFIG"] = tf_config if isinstance(tf_config, str) else json.dumps(tf_config)
    r = run([dfg, "server", "--print-config"], timeout=30, env=env)
    return r


def as_tf_dict(cluster):
    """dfg's JSON cluster as ClusterSpec.as_dict() gives it (sparse jobs keyed
    by int)."""
    return {job: tasks if isinstance(tasks, list) else {int(k): v for k, v in tasks.items()}
            for job, tasks in cluster.items()}


def main():
    dfg = find_dfg(sys.argv)
    for tf_config in GOOD:
        cluster, task_type, task_id, master = tf_view(tf_config)
        r = dfg_view(dfg, tf_config)
        what = json.dumps(tf_config)[:90]
        if r.returncode != 0:
            check(False, f"dfg reads {what}", r.stderr)
            continue
        mine = json.loads(r.stdout)
        check(as_tf_dict(mine["cluster"]) == cluster, f"cluster of {what}",
              f"dfg {mine['cluster']} tf {cluster}")
        check(mine["task"] == {"type": task_type, "index": task_id}, f"task of {what}",
              f"dfg {mine['task']} tf {task_type} {task_id}")
        check(mine.get("master") == master, f"master of {what}",
              f"dfg {mine.get('master')} tf {master}")
    for tf_config in BAD:
        what = (tf_config if isinstance(tf_config, str) else json.dumps(tf_config))[:90]
        try:
            tf_view(tf_config)
            tf_refused = ""
        except (ValueError, KeyError) as e:  # json's JSONDecodeError is a ValueError
            tf_refused = str(e) or type(e).__name__
        r = dfg_view(dfg, tf_config)
        check(tf_refused and r.returncode == 1 and "dfg server: error: TF_CONFIG" in r.stderr,
              f"both refuse {what}", f"tf: {tf_refused!r}; dfg {r.returncode}: {r.stderr}")
    print(f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
