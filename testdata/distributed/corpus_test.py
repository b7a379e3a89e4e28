#!/usr/bin/python3
"""Every corpus model `dfg run` runs (testdata/oracle/model_cases.py) gives
the same fetches through `dfg run --master` on a 2-task and a 3-task cluster
as in one process: nodes are spread round-robin over the tasks'
CPUs, and the local run gets the same devices with --devices.

    /usr/bin/python3 testdata/distributed/corpus_test.py --dfg build/dfg [-k REGEX]

Exit 77 (skip) when ../shared/corpus or numpy is absent; 1 instead under
DFG_REQUIRE_SHARED=1 or DFG_REQUIRE_DEPS=1 (CI).
"""
import concurrent.futures
import json
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))
from cluster import Cluster, find_dfg, run, skip  # noqa: E402

try:
    import numpy as np
except ImportError:
    skip("numpy unavailable", "DFG_REQUIRE_DEPS")
import model_cases  # noqa: E402
from cases import rand, rng_for  # noqa: E402


def convert(dfg, model):
    """The model's graph as JSON (a dict)."""
    r = run([dfg, "convert", model, "-f", "json"])
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    return json.loads(r.stdout)


def spread(graph, tasks, out_path):
    """Writes `graph` with node i on task i % tasks."""
    for i, node in enumerate(graph.get("node", [])):
        node["device"] = f"/job:worker/task:{i % tasks}/device:CPU:0"
    with open(out_path, "w") as f:
        json.dump(graph, f)


def outputs(r):
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1:] if r.stderr else ""
    return json.loads(r.stdout), None


def same(a, b):
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if x["dtype"] != y["dtype"] or x["shape"] != y["shape"]:
            return False
        if x["value"] != y["value"]:
            try:
                if not np.allclose(np.array(x["value"], dtype=float),
                                   np.array(y["value"], dtype=float),
                                   rtol=1e-5, atol=1e-6, equal_nan=True):
                    return False
            except (ValueError, TypeError):
                return False
    return True


# Models that run in one process but not yet through --master, and why. A
# listed model that starts agreeing fails the test until it is taken out.
KNOWN = {}


def check_model(dfg, corpus, tmp, case, c2, c3):
    """Runs one model locally and through both clusters: (lines to print,
    cases passed, cases failed)."""
    index, entry = case
    name, feeds, fetches = entry[0], entry[1], entry[2]
    lines, passed, failed = [], 0, 0
    model = os.path.join(corpus, name)
    rng = rng_for(f"{name}#{index}")
    feed_args = []
    for fname, (dtype, shape, domain) in feeds.items():
        value = (np.full(shape, domain, dtype)
                 if not isinstance(domain, str) else
                 rand(rng, dtype, shape, domain))
        path = os.path.join(tmp, f"{index}_{re.sub('[^A-Za-z0-9]', '_', fname)}.npy")
        np.save(path, np.asarray(value, dtype=dtype))
        feed_args += ["--feed", f"{fname}={path}"]
    fetch_args = ["--fetch", ",".join(fetches)] if fetches else []
    graph_json = convert(dfg, model)
    for cluster, n in ((c2, 2), (c3, 3)):
        graph = os.path.join(tmp, f"{index}_{n}.json")
        spread(graph_json, n, graph)
        devices = ",".join(f"/job:worker/task:{t}/cpu:0" for t in range(n))
        local, lerr = outputs(run([dfg, "run", graph, "--json", "--devices", devices]
                                  + feed_args + fetch_args))
        remote, rerr = outputs(run([dfg, "run", graph, "--json", "--master",
                                    cluster.target(), "--timeout-ms", "60000"]
                                   + feed_args + fetch_args))
        label = f"{name} #{index} on {n} tasks"
        if name in KNOWN:
            agree = (local is not None and remote is not None
                     and same(local, remote))
            if agree:
                lines.append(f"FAIL {label}: agrees now; take it out of KNOWN")
                failed += 1
            else:
                lines.append(f"KNOWN {label}: {KNOWN[name]}")
                passed += 1
            continue
        if local is None and remote is None:
            lines.append(f"PASS {label} (both fail: {lerr})")
            passed += 1
        elif local is None or remote is None or not same(local, remote):
            lines.append(f"FAIL {label}: local {lerr or 'ok'}, master {rerr or 'ok'}")
            failed += 1
        else:
            passed += 1
            if "-v" in sys.argv:
                lines.append(f"PASS {label}")
    return lines, passed, failed


def main():
    dfg = find_dfg(sys.argv)
    pattern = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv[:-1] else ""
    corpus = os.environ.get("DFG_CORPUS_DIR",
                            os.path.join(HERE, "..", "..", "..", "..", "shared", "corpus"))
    if not os.path.isdir(corpus):
        corpus = os.path.join(HERE, "..", "..", "..", "shared", "corpus")
    if not os.path.isdir(corpus):
        skip("../shared/corpus is absent", "DFG_REQUIRE_SHARED")
    cases = [(index, entry) for index, entry in enumerate(model_cases.MODELS)
             if not (entry[4] if len(entry) > 4 else {}).get("expect_error")
             and re.search(pattern, entry[0])]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp, \
            Cluster(dfg, 2) as c2, Cluster(dfg, 3) as c3:
        # Two models at a time: each step is a client and a server taking
        # turns, so one model alone leaves a core idle (and the servers
        # serve two masters' sessions at once, as a shared cluster does).
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            results = pool.map(
                lambda case: check_model(dfg, corpus, tmp, case, c2, c3), cases)
            for lines, ok, bad in results:
                for line in lines:
                    print(line, flush=True)
                passed += ok
                failed += bad
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
