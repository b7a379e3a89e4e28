"""The prune/place/partition differential.

For each graph (the corpus models and the control-flow/variable/two-device
cases of the run section), TensorFlow runs one step in a DirectSession with
two CPU devices and soft placement, RunOptions(output_partition_graphs=True);
its RunMetadata.partition_graphs are compared with
`dfg prune | dfg place --devices cpu:0,cpu:1 --soft-placement | dfg partition`
on the same feeds and fetches: the same node names, ops, inputs (data inputs
in order, control inputs as a set), devices, and the attributes of the
_Send/_Recv/_Arg/_Retval nodes dfg adds.

What had to be turned off in TensorFlow to compare the same pipeline
(tf_session.session_config(plain=True)): Grappler (rewrite_options.
disable_meta_optimizer), the graph optimizer's constant folding, CSE and
function inlining (optimizer_options opt_level L0), the lowering of If/While
to Switch/Merge (experimental.disable_functional_ops_lowering), and placing
the whole graph before pruning (graph_options.place_pruned_graph = true, as
dfg prunes first); oneDNN's graph rewrite via TF_ENABLE_ONEDNN_OPTS=0.

DirectSession sorts the feeds and the fetches by name before it numbers the
_Arg/_Retval nodes (GetOrCreateExecutors builds its CallableOptions from the
sorted lists), so dfg is given them sorted too.

The corpus graphs without a run case that have an `init` node (training
graphs) are compared on that target: their variable initialization.

replicate_graphs.py's graphs (small Consts TensorFlow's ReplicateConstantsPass
copies to several devices, up to three CPUs) are compared as written only.

Each graph runs twice: as written ("as-is") and with every node's device
rewritten to one of /device:CPU:0, /device:CPU:1, /device:GPU:0 (by a hash of
its name; "spread"), which cuts many edges between devices and asks for a GPU
that is not there.
"""
import os
import re
import subprocess
import types
import zlib

from google.protobuf import text_format

import known
import replicate_graphs
from common import Result, model_missing
from run_diff import FIXUPS, collect

SPREAD = ["/device:CPU:0", "/device:CPU:1", "/device:GPU:0"]
# Cases of the run section whose graphs are partitioned too.
PREFIXES = ("model/", "init/", "_Send/", "Enter/", "Merge/", "Switch/", "VariableV2/",
            "Variable/", "VarHandleOp/", "RefSwitch/", "RefEnter/")
# Attributes compared on the nodes the pipeline adds.
ADDED_ATTRS = {
    "_Send": ["T", "tensor_name", "send_device", "send_device_incarnation",
              "recv_device", "client_terminated"],
    "_Recv": ["tensor_type", "tensor_name", "send_device", "send_device_incarnation",
              "recv_device", "client_terminated"],
    "_HostSend": ["T", "tensor_name", "send_device", "send_device_incarnation",
                  "recv_device", "client_terminated"],
    "_HostRecv": ["tensor_type", "tensor_name", "send_device", "send_device_incarnation",
                  "recv_device", "client_terminated"],
    "_Arg": ["T", "index"],
    "_Retval": ["T", "index"],
}


def tensor(name):
    return name if ":" in name else name + ":0"


def spread(graph_def):
    out = type(graph_def)()
    out.CopyFrom(graph_def)
    for node in out.node:
        node.device = SPREAD[zlib.crc32(node.name.encode()) % len(SPREAD)]
    return out


EDGE_ID = re.compile(r'(tensor_name.*?"edge_)\d+_')


def canonical(graph_defs, edge_ids=True):
    """{node name: (op, device, data inputs, control inputs, attrs)};
    without edge_ids, tensor_name's `edge_<id>_` loses the id."""
    nodes = {}
    for gd in graph_defs:
        for n in gd.node:
            data = [i for i in n.input if not i.startswith("^")]
            ctrl = sorted(i for i in n.input if i.startswith("^"))
            attrs = {}
            for key in ADDED_ATTRS.get(n.op, []):
                if key in n.attr:
                    attrs[key] = text_format.MessageToString(
                        n.attr[key], as_one_line=True)
            if not edge_ids and "tensor_name" in attrs:
                attrs["tensor_name"] = EDGE_ID.sub(r"\1N_", "tensor_name" + attrs[
                    "tensor_name"])[len("tensor_name"):]
            nodes[n.name] = (n.op, n.device, data, ctrl, attrs)
    return nodes


def diff(dfg_nodes, tf_nodes):
    problems = []
    only_tf = sorted(set(tf_nodes) - set(dfg_nodes))
    only_dfg = sorted(set(dfg_nodes) - set(tf_nodes))
    if only_tf:
        problems.append(f"only in TensorFlow ({len(only_tf)}): {only_tf[:6]}")
    if only_dfg:
        problems.append(f"only in dfg ({len(only_dfg)}): {only_dfg[:6]}")
    fields = ["op", "device", "inputs", "control inputs", "attrs"]
    differing = []
    for name in sorted(set(tf_nodes) & set(dfg_nodes)):
        a, b = dfg_nodes[name], tf_nodes[name]
        for field, x, y in zip(fields, a, b):
            if x != y:
                differing.append(f"{name} {field}: dfg {x} / tf {y}")
    if differing:
        problems.append(f"{len(differing)} differences: " + "; ".join(differing[:4]))
    return "; ".join(problems)


def dfg_pipeline(ctx, graph_path, feeds, fetches, directory, targets=(), cpus=2):
    prune = [ctx.dfg, "prune", graph_path]
    for t in targets:
        prune += ["--target", t]
    for f in feeds:
        prune += ["--feed", f]
    for f in fetches:
        prune += ["--fetch", f]
    devices = ",".join(f"cpu:{i}" for i in range(cpus))
    place = [ctx.dfg, "place", "--devices", devices, "--soft-placement"]
    partition = [ctx.dfg, "partition", "-f", "pbtxt"]
    data = None
    for cmd in (prune, place, partition):
        r = subprocess.run(cmd, input=data, capture_output=True, timeout=120)
        if r.returncode != 0:
            return None, f"`dfg {cmd[1]}` failed: {r.stderr.decode(errors='replace').strip()}"
        data = r.stdout
    with open(os.path.join(directory, "dfg_partitions.pbtxt"), "wb") as f:
        f.write(data)
    import tf_session  # pylint: disable=import-outside-toplevel
    return tf_session.load_graph_def(text=data.decode()), ""


def check(ctx, case, variant, directory):
    import tf_session  # pylint: disable=import-outside-toplevel
    if case.model and not os.path.exists(case.model):
        return model_missing(case.model)
    if case.name in FIXUPS:  # as in the run section
        case = FIXUPS[case.name](case)
    gd = tf_session.load_graph_def(path=case.model, text=case.graph)
    if variant == "spread":
        gd = spread(gd)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "graph.pb")
    with open(path, "wb") as f:
        f.write(gd.SerializeToString())
    feeds = {tensor(k): v for k, v in case.feeds.items()}
    fetches = sorted({tensor(f) for f in case.fetches})
    targets = sorted(getattr(case, "targets", []))
    cpus = getattr(case, "cpus", 2)
    run = tf_session.run_graph(gd, feeds, fetches, targets, cpus=cpus, plain=True,
                               partitions=True)
    if not run.partitions:
        return Result("skip", f"TensorFlow cannot run it: {run.message[:200]}")
    dfg_gd, err = dfg_pipeline(ctx, path, sorted(feeds), fetches, directory, targets,
                               cpus)
    if dfg_gd is None:
        return Result("fail", err[:600])
    with open(os.path.join(directory, "tf_partitions.pbtxt"), "w") as f:
        for p in run.partitions:
            f.write(text_format.MessageToString(p) + "\n")
    msg = diff(canonical([dfg_gd]), canonical(run.partitions))
    if msg and not diff(canonical([dfg_gd], False), canonical(run.partitions, False)):
        msg = "only the edge ids in the _Send/_Recv tensor_name differ: " + msg
    return Result("fail", msg) if msg else Result("pass")


def init_cases(ctx, cases):
    """The corpus graphs no run case covers that have an `init` node (the
    training graphs): their variable initialization, run as a target."""
    import tf_session  # pylint: disable=import-outside-toplevel
    covered = {os.path.basename(c.model) for c in cases if c.model}
    out = []
    if not ctx.have_corpus():
        return out
    for file in sorted(os.listdir(ctx.corpus)):
        if file in covered or not file.endswith((".pb", ".pbtxt")):
            continue
        path = os.path.join(ctx.corpus, file)
        try:
            gd = tf_session.load_graph_def(path=path)
        except Exception:  # pylint: disable=broad-except
            continue
        if any(n.name == "init" for n in gd.node):
            out.append(types.SimpleNamespace(
                name=f"init/{file}", model=path, graph=None, feeds={}, fetches=[],
                targets=["init"], expect_error=None))
    return out


def tasks(ctx):
    cases, _ = collect(ctx)
    cases = cases + init_cases(ctx, cases)
    out = []
    for i, case in enumerate(cases):
        if case.expect_error or not case.name.startswith(PREFIXES):
            continue
        for variant in ("as-is", "spread"):
            name = f"partition/{variant}/{case.name}"

            def fn(case=case, variant=variant, i=i, name=name):
                d = os.path.join(ctx.work, "partition", variant, f"{i:04d}")
                return known.apply(name, check(ctx, case, variant, d))
            out.append((name, fn))
    for i, case in enumerate(replicate_graphs.cases()):
        name = f"partition/as-is/{case.name}"

        def fn(case=case, i=i, name=name):
            d = os.path.join(ctx.work, "partition", "replicate", f"{i:04d}")
            return known.apply(name, check(ctx, case, "as-is", d))
        out.append((name, fn))
    return out
