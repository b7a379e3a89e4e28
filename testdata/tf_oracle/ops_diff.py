"""The ops section: TensorFlow's CPU ops one by one (op_cases/*.py), each
case's graph built by TensorFlow's Python API, run by TensorFlow and by
`dfg run`, and compared as the run section compares (run_diff.check_case).

A case fails when its graph has no node of an op it names (op_case.py), so
that the op coverage the driver prints (coverage.py) counts only ops that
ran.
"""
import importlib
import os
import pkgutil

import known
import run_diff
from cases import Case
from common import Result

HERE = os.path.dirname(os.path.abspath(__file__))


def _modules():
    import op_cases  # pylint: disable=import-outside-toplevel
    for info in sorted(pkgutil.iter_modules(op_cases.__path__), key=lambda m: m.name):
        yield importlib.import_module(f"op_cases.{info.name}")


def _graph_case(op_case):
    """The OpCase built by TensorFlow: (run section Case, op types in it)."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    from google.protobuf import text_format  # pylint: disable=import-outside-toplevel
    graph = tf.Graph()
    with graph.as_default():
        fetches, feeds = op_case.build()
    graph_def = graph.as_graph_def()
    if op_case.edit is not None:
        op_case.edit(graph_def)
    ops = {n.op for n in graph_def.node}
    for f in graph_def.library.function:
        ops |= {n.op for n in f.node_def}
    case = Case(name=op_case.name, op=op_case.ops[0],
                graph=text_format.MessageToString(graph_def),
                feeds={t.name: v for t, v in feeds.items()},
                fetches=[t.name for t in fetches], expect_error=op_case.expect_error,
                rtol=op_case.rtol, atol=op_case.atol)
    return case, ops


def check(ctx, op_case, directory):
    case, ops = _graph_case(op_case)
    missing = [op for op in op_case.ops if op not in ops]
    tested = frozenset(op_case.ops)
    if missing:
        return Result("fail", f"the case's graph has no {', '.join(missing)} node "
                              f"(it has {', '.join(sorted(ops))})", tested=tested)
    status, msg = run_diff.check_case(ctx, case, directory)
    if status == "skip":  # no kernel or an unknown op: a case promises the op runs
        status = "fail"
    return Result(status, msg, ops=run_diff.graph_ops(case, directory), tested=tested)


def tasks(ctx):
    out = []
    seen = set()
    for module in _modules():
        for op_case in module.cases():
            name = f"ops/{op_case.name}"
            assert name not in seen, f"duplicate case {name} in {module.__name__}"
            seen.add(name)
            directory = os.path.join(ctx.work, "ops", f"{len(out):04d}")

            def fn(op_case=op_case, name=name, directory=directory):
                return known.apply(name, check(ctx, op_case, directory))
            out.append((name, fn))
    return out
