#!/usr/bin/python3
"""op_list: docs/ops/tf-cpu-ops.tsv is well formed (sorted, one row per op,
a reason for every excluded family), and every op dfg has a CPU kernel for is
one of its core ops, so that the oracle's op coverage counts what dfg runs.

    check_op_list.py DFG_OP_LIST SOURCE_DIR

Prints `dfg has a CPU kernel for N of M core ops`.
"""
import subprocess
import sys


def main():
    op_list, source = sys.argv[1], sys.argv[2]
    path = f"{source}/docs/ops/tf-cpu-ops.tsv"
    problems, rows, reasons = [], {}, {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) not in (2, 3) or (cols[1] == "core") != (len(cols) == 2):
                problems.append(f"{path}:{n}: want 'op<TAB>core' or 'op<TAB>family<TAB>reason'")
                continue
            if cols[0] in rows:
                problems.append(f"{path}:{n}: {cols[0]} listed twice")
            rows[cols[0]] = cols[1]
            if len(cols) == 3:
                reasons.setdefault(cols[1], set()).add(cols[2])
    if list(rows) != sorted(rows):
        problems.append(f"{path}: ops are not sorted")
    problems += [f"{path}: family {fam} gives different reasons" for fam, r in reasons.items()
                 if len(r) != 1]
    dfg = dict(line.split("\t") for line in subprocess.run(
        [op_list], check=True, capture_output=True, text=True).stdout.splitlines())
    kernels = sorted(op for op, k in dfg.items() if k == "kernel")
    for op in kernels:
        if rows.get(op) != "core":
            problems.append(f"dfg has a CPU kernel for {op}, which {path} lists as "
                            f"{rows.get(op, 'absent')}: make it a core op there")
    core = [op for op, scope in rows.items() if scope == "core"]
    print(f"dfg has a CPU kernel for {sum(1 for op in kernels if rows.get(op) == 'core')} "
          f"of {len(core)} core ops")
    for p in problems:
        print("op_list: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
