"""The op coverage the TF oracle prints: how many of TensorFlow's core CPU
ops (docs/ops/tf-cpu-ops.tsv, scope `core`) pass the oracle.

An op passes when some passing case ran a graph with a node of it (any
section that reports the graph's ops: run, ops) and no failing case tests it
(the ops section's `ops`, the run section's op under test).
"""
import os


def core_ops(source_dir):
    path = os.path.join(source_dir, "docs", "ops", "tf-cpu-ops.tsv")
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if not line.startswith("#")]
    return path, sorted(r[0] for r in rows if r[1] == "core")


def report(source_dir, results, out_path=None):
    """A one-line summary; with out_path, every core op and its state
    (pass, fail, untested) written there."""
    path, core = core_ops(source_dir)
    ran = set().union(*(r.ops for r in results if r.status == "pass"))
    failed = set().union(*(r.tested for r in results if r.status == "fail"))
    states = {op: ("fail" if op in failed else "pass" if op in ran else "untested")
              for op in core}
    passing = sum(1 for s in states.values() if s == "pass")
    if out_path:
        with open(out_path, "w", encoding="utf-8") as f:
            f.writelines(f"{op}\t{states[op]}\n" for op in core)
    return (f"op coverage: {passing} of {len(core)} core ops pass the oracle "
            f"({os.path.relpath(path, source_dir)})")
