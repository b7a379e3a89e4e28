#!/usr/bin/python3
"""op_list: docs/ops/tf-cpu-ops.tsv is well formed (sorted, one row per op,
a reason for every excluded family), and every op dfg has a CPU kernel for is
one of its core ops, so that the oracle's op coverage counts what dfg runs;
and that each kernel runs for the dtypes TensorFlow's CPU kernel runs for
(docs/ops/tf-cpu-kernels.tsv against `dfg_op_list --constraints`), except
the ops listed with their reason in testdata/ops/kernel-dtype-differences.tsv
(an op listed there that no longer differs is a failure too: strike it).

    check_op_list.py DFG_OP_LIST SOURCE_DIR

Prints `dfg has a CPU kernel for N of M core ops` and how many of those
kernels differ from TensorFlow's in their dtypes.
"""
import collections
import itertools
import subprocess
import sys


def registrations(lines):
    """op -> list of registrations, each {attr: set of types}."""
    regs = collections.defaultdict(list)
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        op, _, constraints = line.rstrip("\n").partition("\t")
        regs[op].append({a: set(t.split(",")) for a, t in
                         (c.split("=") for c in constraints.split(";") if c)})
    return regs


def tuples(regs, attrs):
    """The dtype tuples over attrs; '*' where a registration takes any type."""
    out = set()
    for reg in regs:
        out |= set(itertools.product(*[sorted(reg.get(a, {"*"})) for a in attrs]))
    return out


def covered(t, others, any_matches_any):
    """t is in others, where '*' in others matches anything and, if
    any_matches_any, '*' in t matches what others have."""
    return any(all(x == y or y == "*" or (x == "*" and any_matches_any) for x, y in zip(t, o))
               for o in others)


def show(attrs, ts):
    items = [",".join(f"{a}={v}" for a, v in zip(attrs, t) if v != "*") for t in sorted(ts)]
    return " ".join(f"({i})" for i in items[:4]) + (" ..." if len(items) > 4 else "")


def dtype_differences(op_list, source, kernels):
    """{op: "what differs"} for dfg's kernels against TensorFlow's. An attr a
    registration leaves free (any type) matches every type: dfg's kernel for
    any type covers TensorFlow's per-type ones, and TensorFlow's, which check
    the type inside the kernel, are matched by whatever dfg lists."""
    with open(f"{source}/docs/ops/tf-cpu-kernels.tsv", encoding="utf-8") as f:
        tf = registrations(f)
    dfg = registrations(subprocess.run([op_list, "--constraints"], check=True,
                                       capture_output=True, text=True).stdout.splitlines())
    out = {}
    for op in kernels:
        if op not in tf:
            continue
        attrs = sorted({a for reg in tf[op] + dfg[op] for a in reg})
        t_tf, t_dfg = tuples(tf[op], attrs), tuples(dfg[op], attrs)
        missing = {t for t in t_tf if not covered(t, t_dfg, True)}
        extra = {t for t in t_dfg if "*" not in t and not covered(t, t_tf, False)}
        what = []
        if missing:
            what.append(f"TensorFlow's kernel also runs {show(attrs, missing)}")
        if extra:
            what.append(f"dfg's also runs {show(attrs, extra)}")
        if what:
            out[op] = "; ".join(what)
    return out


def check_dtypes(op_list, source, kernels, problems):
    path = f"{source}/testdata/ops/kernel-dtype-differences.tsv"
    known = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            op, _, reason = line.rstrip("\n").partition("\t")
            if not reason:
                problems.append(f"{path}:{n}: want 'op<TAB>reason'")
            known[op] = reason
    differ = dtype_differences(op_list, source, kernels)
    for op, what in sorted(differ.items()):
        if op not in known:
            problems.append(f"{op}: the kernel's dtypes differ from TensorFlow's: {what}")
    for op in sorted(set(known) - set(differ)):
        problems.append(f"{path}: {op} no longer differs from TensorFlow: strike it")
    print(f"{len(kernels) - len(differ)} of dfg's {len(kernels)} CPU kernels run for the "
          f"dtypes TensorFlow's do; {len(differ)} differ (listed in {path.split('/', 1)[-1]})")


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
    check_dtypes(op_list, source, [op for op in kernels if rows.get(op) == "core"], problems)
    for p in problems:
        print("op_list: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
