#!/usr/bin/env python3
"""op_defs: every OpDef dfg registers equals TensorFlow 2.21's for the same
op (`dfg_op_list --op-defs` against tensorflow's op_def_registry), except the
ops listed with their reason in testdata/ops/op-def-differences.tsv (a listed
op that no longer differs is a failure too: strike it). Compared: the args
(names, types, type/number/list attrs, refs), the attrs (types, defaults,
allowed values as a set, minimums) and the flags (stateful, commutative,
aggregate, uninitialized input, distributed communication, deprecation);
not the documentation strings nor the full-type annotations.

    check_op_defs.py DFG_OP_LIST SOURCE_DIR

Run with a python that imports tensorflow (the venv of .ci/install-tf.sh);
without one it exits 77 (a skip), or fails when DFG_REQUIRE_TF=1.
"""
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def comparable(op_def, op_def_pb2):
    d = op_def_pb2.OpDef.FromString(op_def.SerializeToString())
    d.ClearField("summary")
    d.ClearField("description")
    for arg in list(d.input_arg) + list(d.output_arg):
        for field in ("description", "experimental_full_type", "handle_data"):
            arg.ClearField(field)
    for attr in d.attr:
        attr.ClearField("description")
        values = attr.allowed_values.list
        types, strings = sorted(set(values.type)), sorted(set(values.s))
        values.ClearField("type")
        values.ClearField("s")
        values.type.extend(types)
        values.s.extend(strings)
    return d


def differences(ours, theirs):
    """The names of the OpDef fields that differ ('attr T', 'input_arg')."""
    out = []
    for field in ours.DESCRIPTOR.fields:
        if field.name == "attr":
            mine = {a.name: a for a in ours.attr}
            tf = {a.name: a for a in theirs.attr}
            out += [f"attr {n}" for n in sorted(set(mine) | set(tf)) if mine.get(n) != tf.get(n)]
            if not out and [a.name for a in ours.attr] != [a.name for a in theirs.attr]:
                out.append("attr order")
        elif getattr(ours, field.name) != getattr(theirs, field.name):
            out.append(field.name)
    return out


def main():
    op_list, source = sys.argv[1], sys.argv[2]
    try:
        from tensorflow.core.framework import op_def_pb2  # pylint: disable=import-outside-toplevel
        from tensorflow.python.framework import op_def_registry  # pylint: disable=import-outside-toplevel
    except ImportError:
        print("op_defs: SKIP: no tensorflow in this python (.ci/install-tf.sh makes the venv)")
        return 1 if os.environ.get("DFG_REQUIRE_TF") == "1" else 77
    path = f"{source}/testdata/ops/op-def-differences.tsv"
    known = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                op, _, reason = line.rstrip("\n").partition("\t")
                known[op] = reason
    ops = op_def_pb2.OpList.FromString(subprocess.run(
        [op_list, "--op-defs"], check=True, capture_output=True).stdout).op
    problems, differ, compared = [], {}, 0
    for op_def in ops:
        theirs = op_def_registry.get(op_def.name)
        if theirs is None:
            if not op_def.name.startswith("_"):
                problems.append(f"{op_def.name}: TensorFlow 2.21 has no such op")
            continue
        compared += 1
        diff = differences(comparable(op_def, op_def_pb2), comparable(theirs, op_def_pb2))
        if diff:
            differ[op_def.name] = diff
    for op, diff in sorted(differ.items()):
        if op not in known:
            problems.append(f"{op}: dfg's OpDef differs from TensorFlow's in {', '.join(diff)}")
    problems += [f"{path}: {op} no longer differs from TensorFlow: strike it"
                 for op in sorted(set(known) - set(differ))]
    print(f"{compared - len(differ)} of dfg's {compared} OpDefs equal TensorFlow's; "
          f"{len(differ)} differ (listed in testdata/ops/op-def-differences.tsv)")
    for p in problems:
        print("op_defs: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
