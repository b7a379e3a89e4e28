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
# strip_unused builds a bare Placeholder for a fed node (dtype, and `shape`
# only when the node had one); `dfg prune --convention placeholder` keeps the
# node's requested device and takes the shape from `_output_shapes`.
for _file in ["ngraph__fusedmatmul_0.pbtxt", "ngraph__sample_graph.pb",
              "ngraph__sample_graph.pbtxt", "tfmlir__device-arg-attr.pbtxt"]:
    KNOWN[f"extract/strip_unused/{_file}"] = (
        "dfg's Placeholder for a fed node keeps its device (and a shape from "
        "_output_shapes); strip_unused's has neither")


def apply(name, result):
    reason = KNOWN.get(name)
    if reason is None:
        return result
    if result.status == "fail":
        return Result("skip", f"known disagreement: {reason} [{result.message[:200]}]")
    if result.status == "pass":
        return Result("fail", "listed in known.py as a disagreement but agrees now: "
                              "remove it there and in README.md")
    return result

# Partition differences (README.md, "Known disagreements").
# The /_N counters of the added nodes follow another edge order.
COUNTERS = "same nodes, but the /_N counters of _Send/_Recv follow another edge order"
# Soft placement of nodes whose requested device does not exist (GPU:0)
# lands some colocated reads on another CPU than TensorFlow's placer picks.
PLACEMENT = ("soft placement of GPU-requested nodes: some nodes land on another "
             "CPU than TensorFlow's placer picks")
for _name, _why in [
        ("as-is/_Send/_Recv/two_devices/cond/pred=False", COUNTERS),
        ("as-is/_Send/_Recv/two_devices/cond/pred=True", COUNTERS),
        ("spread/model/cppflow__load_frozen_graph_model.pb", COUNTERS),
        ("spread/model/testdata/loop.pbtxt", COUNTERS),
        ("spread/model/hellotfc__graph.pb", PLACEMENT + " (sru_11/bias: TensorFlow "
                                              "CPU:1, dfg CPU:0)"),
        ("spread/model/tf2onnx__lstm_frozen.pb", PLACEMENT + " (model/b1/read: "
                                                  "TensorFlow CPU:1, dfg CPU:0)"),
        ("spread/model/grappler__merge_without_loops.pbtxt", PLACEMENT),
        ("spread/model/utensor__test_cnn_float.pb", COUNTERS),
        ("spread/model/hellotfc__graph_im2vec.pb", PLACEMENT),
        ("spread/model/hellotfc__graph_im2im.pb", PLACEMENT),
        ("spread/init/scalable_agent__graph.pbtxt", PLACEMENT),
        ("spread/init/scalable_agent__model.ckpt-90912640.extracted_graphdef.pb", PLACEMENT),
        ("spread/init/tbgraphtest__graph.pbtxt", PLACEMENT + " (beta2_power: TensorFlow "
                                                 "CPU:1, dfg CPU:0)"),
        ("spread/init/tfserving__half_plus_two_mkl_saved_model.pb", COUNTERS)]:
    KNOWN["partition/" + _name] = _why

# Error texts (errors section): TensorFlow 2.21's wording differs from dfg's.
KNOWN.update({
    "errors/run/no_gpu_without_soft": "TensorFlow (CPU build) adds 'The requested device "
                                      "appears to be a GPU, but CUDA is not enabled.'",
    "errors/place/err_gpu_missing": "TensorFlow (CPU build) adds 'The requested device "
                                    "appears to be a GPU, but CUDA is not enabled.'",
    "errors/prune/err_not_found": "a Session reports a missing fetch from "
                                  "GraphExecutionState ('specified in either feed_devices "
                                  "or fetch_devices was not found'); dfg prune keeps "
                                  "RewriteGraphForExecution's 'FetchOutputs node prob: not "
                                  "found', which a Session no longer reaches",
    "errors/prune/err_fetch_noop": "a Session says \"Node 'init' (type: 'NoOp', num of "
                                   "outputs: 0) does not have output 0\"; dfg prune keeps "
                                   "RewriteGraphForExecution's 'Tried to fetch data for "
                                   "'init', which produces no output'",
})

