"""`dfg prune --convention placeholder` against TensorFlow's own graph
surgery for users: tf.compat.v1.graph_util.extract_sub_graph (fetches only)
and, with feeds, strip_unused_lib.strip_unused (fed nodes become
Placeholders, then extract_sub_graph).

For every corpus GraphDef TensorFlow can parse: the fetch nodes of its
run case where it has one, else the nodes nothing consumes. Compared: the
kept node names, and each node's op, inputs, device and attributes
(TensorFlow copies the nodes as they are; what dfg writes differently on
purpose is listed in compare()).
"""
import os
import subprocess

from google.protobuf import text_format

import known
from common import Result
from run_diff import collect

EXTS = (".pb", ".pbtxt", ".meta")


def sinks(gd):
    used = set()
    for n in gd.node:
        used |= {i.lstrip("^").split(":")[0] for i in n.input}
    return [n.name for n in gd.node if n.name not in used]


def _defaults(op):
    """{attr: default AttrValue text} of a registered op ({} if unknown)."""
    from tensorflow.python.framework import op_def_registry  # pylint: disable=import-outside-toplevel
    op_def = op_def_registry.get(op)
    if op_def is None:
        return {}
    return {a.name: text_format.MessageToString(a.default_value, as_one_line=True)
            for a in op_def.attr if a.HasField("default_value")}


def _input(name):
    return name[:-2] if name.endswith(":0") and not name.startswith("^") else name


def node_key(n, defaults_from=None):
    """(op, data inputs, control inputs as a set, device, attrs); attrs that
    dfg adds with the op's default value are dropped when the reference node
    (defaults_from) lacks them."""
    attrs = {k: text_format.MessageToString(v, as_one_line=True)
             for k, v in sorted(n.attr.items())}
    if defaults_from is not None:
        defaults = _defaults(n.op)
        attrs = {k: v for k, v in attrs.items()
                 if k in defaults_from.attr or defaults.get(k) != v}
    data = [_input(i) for i in n.input if not i.startswith("^")]
    ctrl = sorted(i for i in n.input if i.startswith("^"))
    return (n.op, data, ctrl, n.device, attrs)


def compare(dfg_gd, tf_gd):
    """Same kept nodes with the same op, inputs, device and attributes.
    Written differently by dfg, as TensorFlow's Graph::ToGraphDef writes
    them, and not counted (README.md, known differences): default-valued
    attributes added, `x:0` inputs written `x`, control inputs sorted, node
    order."""
    d = [n.name for n in dfg_gd.node]
    t = [n.name for n in tf_gd.node]
    if set(d) != set(t):
        only_tf = sorted(set(t) - set(d))
        only_dfg = sorted(set(d) - set(t))
        return (f"kept nodes differ: only TensorFlow keeps ({len(only_tf)}) {only_tf[:6]}; "
                f"only dfg keeps ({len(only_dfg)}) {only_dfg[:6]}")
    problems = []
    tf_nodes = {n.name: n for n in tf_gd.node}
    fields = ["op", "inputs", "control inputs", "device", "attrs"]
    for n in dfg_gd.node:
        ref = tf_nodes[n.name]
        a, b = node_key(n, ref), node_key(ref)
        diffs = [f"{f} dfg {x} / tf {y}" for f, x, y in zip(fields, a, b) if x != y]
        if diffs:
            problems.append(f"{n.name}: " + "; ".join(diffs))
    return "; ".join(problems[:4])


def check(ctx, path, feeds, fetches):
    import tf_session  # pylint: disable=import-outside-toplevel
    from tensorflow.python.tools import strip_unused_lib  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    try:
        gd = tf_session.load_graph_def(path=path)
    except Exception as e:  # pylint: disable=broad-except
        return Result("skip", f"TensorFlow cannot parse it: {str(e)[:120]}")
    if not gd.node:
        return Result("skip", "TensorFlow reads no nodes (not a GraphDef)")
    if tf_session.import_graph(gd)[0] is None:
        return Result("skip", "TensorFlow cannot load it as a graph: "
                              f"{tf_session.import_graph(gd)[1].message[:120]}")
    nodes = [f.split(":")[0] for f in fetches] or sinks(gd)
    try:
        if feeds:
            dtypes = [dict((n.name, n) for n in gd.node)[f].attr for f in feeds]
            types = [a["dtype"].type if "dtype" in a else a["T"].type for a in dtypes]
            want = strip_unused_lib.strip_unused(gd, feeds, nodes, types)
        else:
            want = tf.compat.v1.graph_util.extract_sub_graph(gd, nodes)
    except (KeyError, ValueError, AssertionError, TypeError) as e:
        return Result("skip", f"TensorFlow refuses: {str(e)[:160]}")
    cmd = [ctx.dfg, "prune", path, "--convention", "placeholder", "-f", "pbtxt"]
    for f in feeds:
        cmd += ["--feed", f]
    for n in nodes:
        cmd += ["--target" if not fetches else "--fetch", n]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return Result("fail", f"dfg prune failed: {r.stderr.strip()[:400]}")
    got = tf_session.load_graph_def(text=r.stdout)
    msg = compare(got, want)
    return Result("fail", msg) if msg else Result("pass")


def tasks(ctx):
    if not ctx.have_corpus():
        if os.environ.get("DFG_REQUIRE_SHARED") == "1":
            return [("extract/corpus", lambda: Result(
                "fail", f"DFG_REQUIRE_SHARED=1 but there is no corpus at {ctx.corpus}"))]
        ctx.notes.append(f"extract section skipped: no corpus at {ctx.corpus}")
        return []
    cases, _ = collect(ctx)
    fetches_of = {}
    for c in cases:
        if c.op == "model" and c.model and not c.expect_error:
            fetches_of.setdefault(os.path.basename(c.model), (c.feeds, c.fetches))
    out = []
    for file in sorted(os.listdir(ctx.corpus)):
        if not file.endswith(EXTS):
            continue
        path = os.path.join(ctx.corpus, file)
        feeds, fetches = fetches_of.get(file, ({}, []))
        node_feeds = [k for k in feeds if ":" not in k]
        variants = [("extract_sub_graph", [], fetches)]
        if node_feeds and len(node_feeds) == len(feeds):
            variants.append(("strip_unused", node_feeds, fetches))
        for label, fd, ft in variants:
            name = f"extract/{label}/{file}"
            out.append((name, lambda n=name, p=path, fd=fd, ft=ft:
                        known.apply(n, check(ctx, p, fd, ft))))
    return out
