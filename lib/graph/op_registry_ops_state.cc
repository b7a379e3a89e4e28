// Op table: TF1 stateful containers (TensorFlow's core/ops/data_flow_ops.cc):
// the staging areas (Stage/Unstage and the keyed MapStage/OrderedMapStage
// families), the conditional accumulators of synchronous training (in their
// Ref(string) handle form and the resource form), and the string-handle
// TensorArrays and stacks of TF1 graphs.
//
// Kernels: CPU only (lib/kernels/stage_ops.cc, accumulator_ops.cc,
// tensor_array_ops.cc, stack_ops.cc).
#include <string_view>

#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

// The attrs every staging-area op carries; `dtypes_min` for the ops whose
// values list must not be empty; `map_stage` adds MapStage's fake_dtypes
// after dtypes, where TensorFlow has it.
OpBuilder StagingOp(const std::string& name, bool dtypes_min,
                    bool map_stage = false) {
  OpBuilder op = Op(name);
  op.Attr("capacity: int >= 0 = 0")
      .Attr("memory_limit: int >= 0 = 0")
      .Attr(dtypes_min ? "dtypes: list(type) >= 1" : "dtypes: list(type)");
  if (map_stage) op.Attr("fake_dtypes: list(type) >= 1");
  op.Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Stateful()
      .Kernels("CPU");
  return op;
}

void RegisterStagingAreas(OpTable& t) {
  t.Add(StagingOp("Stage", true).Input("values: dtypes"));
  t.Add(StagingOp("Unstage", true).Output("values: dtypes"));
  t.Add(StagingOp("StagePeek", true)
            .Input("index: int32")
            .Output("values: dtypes"));
  t.Add(StagingOp("StageSize", false).Output("size: int32"));
  t.Add(StagingOp("StageClear", false));
  for (const std::string prefix : {"Map", "OrderedMap"}) {
    t.Add(StagingOp(prefix + "Stage", false, /*map_stage=*/true)
              .Input("key: int64")
              .Input("indices: int32")
              .Input("values: fake_dtypes"));
    for (const std::string op : {"Unstage", "Peek"}) {
      t.Add(StagingOp(prefix + op, true)
                .Input("key: int64")
                .Input("indices: int32")
                .Output("values: dtypes"));
    }
    t.Add(StagingOp(prefix + "UnstageNoKey", true)
              .Input("indices: int32")
              .Output("key: int64")
              .Output("values: dtypes"));
    t.Add(StagingOp(prefix + "Size", false).Output("size: int32"));
    t.Add(StagingOp(prefix + "IncompleteSize", false).Output("size: int32"));
    t.Add(StagingOp(prefix + "Clear", false));
  }
}

constexpr char kAccumulatorTypes[] =
    "dtype: {float, double, int32, uint8, int16, int8, complex64, int64, "
    "qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, "
    "half, uint32, uint64}";

void RegisterAccumulators(OpTable& t) {
  for (const std::string kind : {"", "Sparse", "Resource"}) {
    t.Add(Op(kind + "ConditionalAccumulator")
              .Output(kind == "Resource" ? "handle: resource"
                                         : "handle: Ref(string)")
              .Attr(kAccumulatorTypes)
              .Attr("shape: shape")
              .Attr("container: string = ''")
              .Attr("shared_name: string = ''")
              .Attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'")
              .Stateful()
              .Kernels("CPU"));
  }
  // The Ref(string) ops are not stateful in TensorFlow's OpDefs; the
  // resource ones are.
  for (const std::string prefix : {"", "Resource"}) {
    const bool resource = !prefix.empty();
    auto op = [&](const std::string& name) {
      OpBuilder b = Op(prefix + name);
      b.Input(resource ? "handle: resource" : "handle: Ref(string)")
          .Kernels("CPU");
      if (resource) b.Stateful();
      return b;
    };
    t.Add(op("AccumulatorApplyGradient")
              .Input("local_step: int64")
              .Input("gradient: dtype")
              .Attr(kAccumulatorTypes));
    t.Add(op("AccumulatorNumAccumulated").Output("num_accumulated: int32"));
    t.Add(op("AccumulatorSetGlobalStep").Input("new_global_step: int64"));
    t.Add(op("AccumulatorTakeGradient")
              .Input("num_required: int32")
              .Output("average: dtype")
              .Attr(kAccumulatorTypes));
  }
  t.Add(Op("SparseAccumulatorApplyGradient")
            .Input("handle: Ref(string)")
            .Input("local_step: int64")
            .Input("gradient_indices: int64")
            .Input("gradient_values: dtype")
            .Input("gradient_shape: int64")
            .Attr(kAccumulatorTypes)
            .Attr("has_known_shape: bool")
            .Kernels("CPU"));
  t.Add(Op("SparseAccumulatorTakeGradient")
            .Input("handle: Ref(string)")
            .Input("num_required: int32")
            .Output("indices: int64")
            .Output("values: dtype")
            .Output("shape: int64")
            .Attr(kAccumulatorTypes)
            .Kernels("CPU"));
}

// The TF1 TensorArrays (deprecated: graphs of older producers carry them)
// with string handles: v1 a Ref(string), V2 a string; both without the flow
// output of TensorArrayV3 on creation.
void RegisterTensorArraysV1(OpTable& t) {
  for (const std::string v : {"", "V2"}) {
    const bool v1 = v.empty();
    const std::string handle = v1 ? "handle: Ref(string)" : "handle: string";
    // TensorFlow's attr order: v1 has element_shape last.
    constexpr char kShape[] = "element_shape: shape = { unknown_rank: true }";
    OpBuilder array = Op("TensorArray" + v);
    array.Input("size: int32").Output(handle).Attr("dtype: type");
    if (!v1) array.Attr(kShape);
    array.Attr("dynamic_size: bool = false")
        .Attr("clear_after_read: bool = true")
        .Attr("tensor_array_name: string = ''");
    if (v1) array.Attr(kShape);
    t.Add(array.Stateful().Kernels("CPU"));
    t.Add(Op("TensorArrayGrad" + v)
              .Input("handle: string")
              .Input("flow_in: float")
              .Output(v1 ? "grad_handle: Ref(string)" : "grad_handle: string")
              .Attr("source: string")
              .Stateful()
              .Kernels("CPU"));
    t.Add(Op("TensorArrayWrite" + v)
              .Input(handle)
              .Input("index: int32")
              .Input("value: T")
              .Input("flow_in: float")
              .Output("flow_out: float")
              .Attr("T: type")
              .Kernels("CPU"));
    t.Add(Op("TensorArrayRead" + v)
              .Input(handle)
              .Input("index: int32")
              .Input("flow_in: float")
              .Output("value: dtype")
              .Attr("dtype: type")
              .Kernels("CPU"));
    t.Add(Op("TensorArrayGather" + v)
              .Input(handle)
              .Input("indices: int32")
              .Input("flow_in: float")
              .Output("value: dtype")
              .Attr("dtype: type")
              .Attr("element_shape: shape = { unknown_rank: true }")
              .Kernels("CPU"));
    t.Add(Op("TensorArrayScatter" + v)
              .Input(handle)
              .Input("indices: int32")
              .Input("value: T")
              .Input("flow_in: float")
              .Output("flow_out: float")
              .Attr("T: type")
              .Kernels("CPU"));
    t.Add(Op("TensorArrayConcat" + v)
              .Input(handle)
              .Input("flow_in: float")
              .Output("value: dtype")
              .Output("lengths: int64")
              .Attr("dtype: type")
              .Attr("element_shape_except0: shape = { unknown_rank: true }")
              .Kernels("CPU"));
    t.Add(Op("TensorArraySplit" + v)
              .Input(handle)
              .Input("value: T")
              .Input("lengths: int64")
              .Input("flow_in: float")
              .Output("flow_out: float")
              .Attr("T: type")
              .Kernels("CPU"));
    t.Add(Op("TensorArraySize" + v)
              .Input(handle)
              .Input("flow_in: float")
              .Output("size: int32")
              .Kernels("CPU"));
    t.Add(Op("TensorArrayClose" + v).Input(handle).Kernels("CPU"));
  }
  t.Add(Op("TensorArrayGradWithShape")
            .Input("handle: resource")
            .Input("flow_in: float")
            .Input("shape_to_prepend: int32")
            .Output("grad_handle: resource")
            .Output("flow_out: float")
            .Attr("source: string")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("TensorArrayPack")
            .Input("handle: Ref(string)")
            .Input("flow_in: float")
            .Output("value: dtype")
            .Attr("dtype: type")
            .Attr("element_shape: shape = { unknown_rank: true }")
            .Kernels("CPU"));
  t.Add(Op("TensorArrayUnpack")
            .Input("handle: Ref(string)")
            .Input("value: T")
            .Input("flow_in: float")
            .Output("flow_out: float")
            .Attr("T: type")
            .Kernels("CPU"));
}

// The TF1 stacks of while-loop gradients, with a Ref(string) handle.
void RegisterStacksV1(OpTable& t) {
  t.Add(Op("Stack")
            .Output("handle: Ref(string)")
            .Attr("elem_type: type")
            .Attr("stack_name: string = ''")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("StackPush")
            .Input("handle: Ref(string)")
            .Input("elem: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr("swap_memory: bool = false")
            .Kernels("CPU"));
  t.Add(Op("StackPop")
            .Input("handle: Ref(string)")
            .Output("elem: elem_type")
            .Attr("elem_type: type")
            .Kernels("CPU"));
  t.Add(Op("StackClose").Input("handle: Ref(string)").Kernels("CPU"));
}

void RegisterMiscState(OpTable& t) {
  t.Add(Op("CountUpTo")
            .Input("ref: Ref(T)")
            .Output("output: T")
            .Attr("limit: int")
            .Attr("T: {int32, int64}")
            .Kernels("CPU"));
  t.Add(Op("ResourceCountUpTo")
            .Input("resource: resource")
            .Output("output: T")
            .Attr("limit: int")
            .Attr("T: {int32, int64}")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("VariableShape")
            .Input("input: resource")
            .Output("output: out_type")
            .Attr("out_type: {int32, int64} = DT_INT32")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("TemporaryVariable")
            .Output("ref: Ref(dtype)")
            .Attr("shape: shape")
            .Attr("dtype: type")
            .Attr("var_name: string = ''")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("DestroyTemporaryVariable")
            .Input("ref: Ref(T)")
            .Output("value: T")
            .Attr("T: type")
            .Attr("var_name: string")
            .Kernels("CPU"));
  t.Add(Op("MutexV2")
            .Output("resource: resource")
            .Attr("container: string = ''")
            .Attr("shared_name: string = ''")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("MutexLock")
            .Input("mutex: resource")
            .Output("mutex_lock: variant")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("ConsumeMutexLock")
            .Input("mutex_lock: variant")
            .Stateful()
            .Kernels("CPU"));
}

// Internal ops of TensorFlow's rewrites that its CPU kernels run in a graph.
void RegisterInternal(OpTable& t) {
  t.Add(Op("_HostCast")
            .Input("x: SrcT")
            .Output("y: DstT")
            .Attr("SrcT: type")
            .Attr("DstT: type")
            .Attr("Truncate: bool = false")
            .Kernels("CPU"));
  t.Add(Op("_If")
            .Input("cond: Tcond")
            .Input("input: Tin")
            .Output("output: Tout")
            .Attr("Tcond: type")
            .Attr("Tin: list(type) >= 1")
            .Attr("Tout: list(type) >= 1")
            .Attr("then_branch: func")
            .Attr("else_branch: func")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("_While")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: list(type) >= 0")
            .Attr("cond: func")
            .Attr("body: func")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("For")
            .Input("start: int32")
            .Input("limit: int32")
            .Input("delta: int32")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: list(type) >= 0")
            .Attr("body: func")
            .Kernels("CPU"));
  for (const char* name : {"Send", "Recv"}) {
    OpBuilder op = Op(name);
    if (std::string_view(name) == "Send") {
      op.Input("tensor: T").Attr("T: type");
    } else {
      op.Output("tensor: tensor_type").Attr("tensor_type: type");
    }
    op.Attr("tensor_name: string")
        .Attr("send_device: string")
        .Attr("send_device_incarnation: int")
        .Attr("recv_device: string")
        .Attr("client_terminated: bool = false")
        .Stateful()
        .Kernels("CPU");
    // As TensorFlow: only the receiving side is distributed communication.
    if (std::string_view(name) == "Recv") op.DistributedCommunication();
    t.Add(op);
  }
  t.Add(Op("_ArrayToList")
            .Input("input: N * T")
            .Output("output: out_types")
            .Attr("T: type")
            .Attr("N: int >= 1")
            .Attr("out_types: list(type) >= 1")
            .Kernels("CPU"));
  t.Add(Op("_ListToArray")
            .Input("input: Tin")
            .Output("output: N * T")
            .Attr("Tin: list(type) >= 1")
            .Attr("T: type")
            .Attr("N: int >= 1")
            .Kernels("CPU"));
  t.Add(Op("IsTensorFloat32Enabled")
            .Output("enabled: bool")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("DeviceIndex")
            .Output("index: int32")
            .Attr("device_names: list(string)")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("FakeParam")
            .Output("output: dtype")
            .Attr("dtype: type")
            .Attr("shape: shape")
            .Kernels("CPU"));
  t.Add(Op("_VarHandlesOp")
            .Output("resources: N * resource")
            .Attr("containers: list(string)")
            .Attr("shared_names: list(string)")
            .Attr("N: int >= 0")
            .Attr("dtypes: list(type)")
            .Attr("shapes: list(shape)")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("_ReadVariablesOp")
            .Input("resources: N * resource")
            .Output("values: dtypes")
            .Attr("N: int >= 0")
            .Attr("dtypes: list(type) >= 1")
            .Stateful()
            .Kernels("CPU"));
}

}  // namespace

void RegisterStateOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterStagingAreas(t);
  RegisterAccumulators(t);
  RegisterTensorArraysV1(t);
  RegisterStacksV1(t);
  RegisterMiscState(t);
  RegisterInternal(t);
}

}  // namespace dfg
