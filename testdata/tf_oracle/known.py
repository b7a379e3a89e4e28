"""Known, documented disagreements between dfg and TensorFlow 2.21.

Each entry names a case (its full name as printed) and why dfg and TensorFlow
differ there; README.md lists them too. A listed case that fails is reported
as SKIP with the reason (never silently); a listed case that now agrees is a
failure, so that the list stays true.
"""
from common import Result

# case name -> reason
KNOWN = {
    # TensorFlow 2.21's CPU Round kernel for int32 returns 0 for every
    # element (tf.raw_ops.Round(x=tf.constant([3], tf.int32)) -> [0]; eager
    # tf.round skips the op for integers). dfg returns x, as TF-OPS.md says.
    "run/Round/i32[2,3,4]": "TensorFlow 2.21's int32 Round kernel returns 0 (a "
                            "TensorFlow bug); dfg returns x",
    # PartitionedCall of a function with experimental_ints_on_device: TF 2.21
    # refuses it for multi-device functions (Unimplemented); dfg runs it.
    "run/model/tfmlir__graph-device-retval.pbtxt":
        "TensorFlow 2.21 refuses experimental_ints_on_device in a multi-device "
        "function (Unimplemented); dfg runs it",
}
# strip_unused gives a fed node's Placeholder a `shape` only when the node
# has a `shape` attr (a Placeholder); `dfg prune --convention placeholder`
# also takes it from `_output_shapes` or a Const's value, as CLI.md asks
# ("dtype, and shape where known"): here a fed _Arg with `_output_shapes`.
KNOWN["extract/strip_unused/tfmlir__device-arg-attr.pbtxt"] = (
    "dfg's Placeholder for a fed _Arg takes its shape from _output_shapes (CLI.md: "
    "'shape where known'); strip_unused's copies only a `shape` attr")


def apply(name, result):
    reason = KNOWN.get(name)
    if reason is None:
        return result
    if result.status == "fail":
        return Result("skip", f"known disagreement: {reason} [{result.message[:200]}]",
                      tested=result.tested)
    if result.status == "pass":
        return Result("fail", "listed in known.py as a disagreement but agrees now: "
                              "remove it there and in README.md")
    return result

# Partition differences (README.md, "Known disagreements"): TensorFlow's
# order is unspecified there. A node with more than 8 in edges keeps them in a
# hash set of pointers (EdgeSet), and Partition makes the transfers into it,
# and so takes their /_N counters, in that set's order, which changes from run
# to run. The nodes, devices and edges agree; only the counters differ.
UNORDERED = ("TensorFlow's /_N counters change from run to run here: 'init' has more "
             "than 8 control inputs, and above 8 a node's in-edge EdgeSet is a hash "
             "set of pointers, which Partition iterates (TF-SEMANTICS §0.3)")
for _name in ["spread/init/scalable_agent__graph.pbtxt",
              "spread/init/scalable_agent__model.ckpt-90912640.extracted_graphdef.pb",
              "spread/init/tbgraphtest__graph.pbtxt",
              "spread/init/tfserving__half_plus_two_mkl_saved_model.pb"]:
    KNOWN["partition/" + _name] = UNORDERED


# The cluster section (cluster_diff.py).
for _mode in ["dfg", "mixed", "tfclient", "tfmixed"]:
    # As run/model/tfmlir__graph-device-retval.pbtxt: TensorFlow refuses the
    # function (its tf-cluster case agrees: the cluster refuses it too).
    KNOWN[f"cluster/{_mode}/model/tfmlir__graph-device-retval.pbtxt"] = (
        "TensorFlow 2.21 refuses experimental_ints_on_device in a multi-device "
        "function (Unimplemented); dfg runs it")
    # dfg bug in lib/distributed/master_step.cc (PartStatus): a task's error
    # that comes back in RunGraphResponse's status_code/status_error_message
    # (the master always sets store_errors_in_response_body) is passed on as
    # it is; TensorFlow's RunManyGraphs::WhenDone prefixes every task's error
    # with "From <task>:\n", whether the RPC failed or the step did. dfg
    # prefixes only a failed RPC (and a RecvTensor's error), so an error on
    # the master's own task (the client-terminated _Recv of a feed, a
    # Placeholder) has no "From /job:worker/replica:0/task:0:".
    for _case in ["missing_feed", "remote_kernel_error"]:
        KNOWN[f"cluster/{_mode}/errors/{_case}"] = (
            "dfg's master does not prefix a task's error returned in RunGraphResponse's "
            "status fields with 'From /job:worker/replica:0/task:N:' as TensorFlow's "
            "RunManyGraphs::WhenDone does (lib/distributed/master_step.cc Part::RemoteStatus)")
