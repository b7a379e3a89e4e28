#!/usr/bin/env python3
"""Writes docs/ops/tf-cpu-ops.tsv: every op TensorFlow 2.21 registers a CPU
(or device-agnostic DEFAULT) kernel for, and whether it is a core op dfg
must run or belongs to a family dfg leaves out, with the reason. Run it with
the TF venv's python when the TensorFlow version changes:

    ~/.cache/dfg/tf-venv/bin/python testdata/tf_oracle/op_list.py \
        docs/ops/tf-cpu-ops.tsv docs/ops/tf-cpu-kernels.tsv

Columns: op, scope (core or the excluded family), reason (for exclusions).
The TF oracle's op coverage (coverage.py) counts the core ops that pass.

The second file has one line per CPU/DEFAULT kernel registration of a core
op (unlabelled; labelled kernels are picked by a `_kernel` attr, which graphs
do not carry): "op<TAB>attr=type,type;attr=..." over the op's type attrs, the
registration's type constraint (within the OpDef's allowed types: TensorFlow
registers some kernels for types no node can have) or else the OpDef's allowed
types, an attr
that takes any type left out; sorted. `dfg_op_list --constraints` prints
dfg's in the same form and testdata/ops/check_op_list.py compares the two.
"""
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# TensorFlow-internal ops (a leading '_') that graphs do carry: the runtime's
# own (_Arg, _Send...), the fused ops Grappler writes into dumped graphs, and
# the lowered forms of functional ops.
INTERNAL_IN_GRAPHS = {
    "_Arg", "_Retval", "_Send", "_Recv", "_HostSend", "_HostRecv", "_DeviceArg",
    "_DeviceRetval", "_FusedBatchNormEx", "_FusedConv2D", "_FusedConv3D",
    "_FusedDepthwiseConv2dNative", "_FusedMatMul", "_FusedQuantizedConv2D",
    "_FusedQuantizedDepthwiseConv2D", "_SwitchN", "_If", "_While", "_ListToArray",
    "_ArrayToList", "_HostCast", "_ParallelConcatStart", "_ParallelConcatUpdate",
    "_UnaryOpsComposition", "_TensorToHashBucketFast", "_QuantizedMatMul",
    "_QuantizedMaxPool3D", "_ReadVariablesOp", "_VarHandlesOp"}
# tf.data ops whose names say neither Dataset nor Iterator.
DATA = {
    "OptionalFromValue", "OptionalGetValue", "OptionalHasValue", "OptionalNone",
    "DeleteMemoryCache", "DummyMemoryCache", "AnonymousMemoryCache",
    "DeleteSeedGenerator", "AnonymousSeedGenerator", "DummySeedGenerator",
    "AnonymousRandomSeedGenerator", "DeleteRandomSeedGenerator", "RegisterDataset",
    "RegisterDatasetV2", "CompressElement", "UncompressElement",
    "StatsAggregatorHandle", "StatsAggregatorHandleV2",
    "StatsAggregatorSetSummaryWriter", "StatsAggregatorSummary",
    "ExperimentalStatsAggregatorHandle", "ExperimentalStatsAggregatorSummary",
    "GetOptions", "GetElementAtIndex", "DistributedSave", "DummyIterationCounter",
    "GetMinibatchesInCsrWithPhysicalReplica", "InitializeTableFromDataset",
    "ExperimentalThreadPoolHandle", "ThreadPoolHandle", "FileSystemSetConfiguration",
    "RecordInput", "MapDefun"}
# Ops TensorFlow registers for its own tests.
TEST_OPS = {
    "Old", "TestAttr", "KernelLabel", "KernelLabelRequired", "ConstructionFails",
    "ResourceCreateOp", "ResourceInitializedOp", "ResourceUsingOp",
    "StubResourceHandleOp", "SleepOp", "SleepIdentityOp", "DtypeWithDefaultOp",
    "DevicePlacementOp", "GraphDefVersion", "IsResourceHandleRefCounting",
    "CheckPinned", "MakeWeakResourceHandle", "Copy", "CopyHost", "DumpTensor",
    "WindowOp", "SyncDevice", "NonDeterministicInts"}
# Python callbacks and the quantization toolkit's calibration ops.
PYTHON = {"PyFunc", "PyFuncStateless", "EagerPyFunc"}
CALIBRATION = {"CustomAggregator", "CalibrationStatisticsSaver"}

# oneDNN ops with a plain-layout CPU kernel that graph rewrites (TensorFlow's
# remapper, dfg optimize) write into the graphs they run.
ONEDNN_IN_GRAPHS = {"_MklLayerNorm"}

FAMILIES = [
    ("onednn", lambda o: o.startswith(("_Mkl", "__Mkl")) and o not in ONEDNN_IN_GRAPHS,
     "oneDNN-internal layout ops: only TensorFlow's own oneDNN graph rewrite "
     "emits them; the graphs it starts from carry the plain op"),
    ("xla", lambda o: o.startswith(("Xla", "_Xla")),
     "XLA compilation ops: they run XLA clusters, which dfg does not compile"),
    ("internal", lambda o: o.startswith("_") and o not in INTERNAL_IN_GRAPHS,
     "TensorFlow-internal op no GraphDef carries (eager constants, scoped allocators)"),
    ("tf.data", lambda o: "Dataset" in o or "Iterator" in o or o in DATA,
     "tf.data input pipelines (datasets, iterators and their resources): "
     "a runtime of its own, outside the graph's computation"),
    ("collectives", lambda o: o.startswith(("Collective", "Nccl")),
     "collective communication of tf.distribute strategies"),
    ("rpc", lambda o: o.startswith("Rpc") or o == "DeleteRpcFutureResource",
     "tf.distribute.experimental.rpc: a gRPC service inside the graph"),
    ("debugger", lambda o: o.startswith("Debug"),
     "tfdbg instrumentation, inserted by the debugger at run time"),
    ("queues", lambda o: "Reader" in o or "Queue" in o or o.startswith("Barrier"),
     "TF1 queue-and-reader input pipelines (tf.data's predecessor)"),
    ("summary-writers",
     lambda o: bool(re.match(r"(Create\w*Writer|\w*SummaryWriter|Write\w*Summary|"
                             r"ImportEvent)$", o)),
     "summary file writers (event files on disk); the ops that return a "
     "serialized Summary are core"),
    ("test", lambda o: o in TEST_OPS,
     "registered by TensorFlow for its own tests and debugging"),
    ("python", lambda o: o in PYTHON,
     "calls back into the Python interpreter that built the graph"),
    ("calibration", lambda o: o in CALIBRATION,
     "TensorFlow's quantization toolkit's calibration statistics"),
]


def classify(op):
    for family, test, reason in FAMILIES:
        if test(op):
            return family, reason
    return "core", ""


def _type_list(types):
    from tensorflow.core.framework import types_pb2  # pylint: disable=import-outside-toplevel
    return ",".join(sorted({types_pb2.DataType.Name(t)[3:].lower() for t in types}))


def kernel_lines(registered, core):
    """The core ops' CPU kernel registrations, in dfg_op_list's form."""
    from tensorflow.python.framework import op_def_registry  # pylint: disable=import-outside-toplevel
    lines = set()
    for k in registered:
        if k.device_type not in ("CPU", "DEFAULT") or k.op not in core or k.label:
            continue
        op_def = op_def_registry.get(k.op)
        allowed = {a.name: set(a.allowed_values.list.type)
                   for a in op_def.attr if a.type in ("type", "list(type)")}
        lists = {name: _type_list(types) for name, types in allowed.items()}
        for c in k.constraint:
            if c.name in lists:  # only what the OpDef lets a node have
                types = set(c.allowed_values.list.type)
                lists[c.name] = _type_list(types & allowed[c.name] if allowed[c.name] else types)
        if any(c.name in lists and not lists[c.name] for c in k.constraint):
            continue  # a kernel for types the OpDef does not allow
        lines.add(k.op + "\t" + ";".join(f"{a}={t}" for a, t in sorted(lists.items()) if t))
    return sorted(lines)


def main():
    from tensorflow.python.framework import kernels  # pylint: disable=import-outside-toplevel
    registered = kernels.get_all_registered_kernels().kernel
    ops = sorted({k.op for k in registered if k.device_type in ("CPU", "DEFAULT")})
    lines = ["# op\tscope\treason (TensorFlow 2.21, ops with a CPU or DEFAULT kernel; "
             "written by testdata/tf_oracle/op_list.py)"]
    for op in ops:
        scope, reason = classify(op)
        lines.append(f"{op}\t{scope}\t{reason}".rstrip("\t"))
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    core = {line.split("\t")[0] for line in lines[1:] if line.split("\t")[1] == "core"}
    print(f"{len(ops)} ops, {len(core)} core")
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w", encoding="utf-8") as f:
            f.write("# op\tattr=types;... per CPU kernel registration (TensorFlow 2.21; "
                    "written by testdata/tf_oracle/op_list.py)\n")
            f.write("\n".join(kernel_lines(registered, core)) + "\n")


if __name__ == "__main__":
    main()
