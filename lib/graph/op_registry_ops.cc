// Op table: graph plumbing (constants, placeholders, identities), the runtime
// ops (_Arg, _Retval, _Send, _Recv...), v1 control flow, functional control
// flow and calls, variables and resources.
//
// Signatures are TensorFlow's (core/ops/{array,control_flow,function,
// functional,sendrecv,state,resource_variable}_ops.cc); kernels and
// HostMemory args as TensorFlow registers them in core/kernels.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

void RegisterConstants(OpTable& t) {
  t.Add(Op("Const")
            .Output("output: dtype")
            .Attr("value: tensor")
            .Attr("dtype: type")
            .Kernels("CPU", "GPU")
            .Int32OnHost("GPU", "dtype"));
  t.Add(Op("HostConst")
            .Output("output: dtype")
            .Attr("value: tensor")
            .Attr("dtype: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "output"));
  t.Add(Op("Placeholder")
            .Output("output: dtype")
            .Attr("dtype: type")
            .Attr("shape: shape = { unknown_rank: true }")
            .Kernels("CPU", "GPU"));
  t.Add(Op("PlaceholderV2")
            .Output("output: dtype")
            .Attr("dtype: type")
            .Attr("shape: shape")
            .Kernels("CPU", "GPU"));
  t.Add(Op("PlaceholderWithDefault")
            .Input("input: dtype")
            .Output("output: dtype")
            .Attr("dtype: type")
            .Attr("shape: shape")
            .Kernels("CPU", "GPU")
            .Int32OnHost("GPU", "dtype"));
}

void RegisterIdentities(OpTable& t) {
  for (const char* name : {"Identity", "Snapshot", "StopGradient"}) {
    t.Add(Op(name)
              .Input("input: T")
              .Output("output: T")
              .Attr("T: type")
              .Kernels("CPU", "GPU")
              .Int32OnHost("GPU"));
  }
  t.Add(Op("PreventGradient")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr("message: string = ''")
            .Kernels("CPU", "GPU")
            .Int32OnHost("GPU"));
  t.Add(Op("RefIdentity")
            .Input("input: Ref(T)")
            .Output("output: Ref(T)")
            .Attr("T: type")
            .AllowsUninitializedInput()
            .Kernels("CPU", "GPU")
            .Int32OnHost("GPU"));
  t.Add(Op("IdentityN")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: list(type)")
            .Kernels("CPU", "GPU"));
  t.Add(Op("NoOp").Kernels("CPU", "GPU"));
  t.Add(Op("CheckNumerics")
            .Input("tensor: T")
            .Output("output: T")
            .Attr("T: {bfloat16, half, float, double}")
            .Attr("message: string")
            .Stateful()
            .Kernels("CPU", "GPU"));
  t.Add(Op("CheckNumericsV2")
            .Input("tensor: T")
            .Output("output: T")
            .Attr("T: {bfloat16, half, float, double}")
            .Attr("message: string")
            .Stateful()
            .Kernels("CPU", "GPU"));
  t.Add(Op("Cast")
            .Input("x: SrcT")
            .Output("y: DstT")
            .Attr("SrcT: type")
            .Attr("DstT: type")
            .Attr("Truncate: bool = false")
            .Kernels("CPU", "GPU"));
}

void RegisterRuntimeOps(OpTable& t) {
  for (const char* name : {"_Arg", "_DeviceArg"}) {
    t.Add(Op(name)
              .Output("output: T")
              .Attr("T: type")
              .Attr("index: int >= 0")
              .Stateful()
              .Kernels("CPU", "GPU")
              .Int32OnHost("GPU"));
  }
  for (const char* name : {"_Retval", "_DeviceRetval"}) {
    t.Add(Op(name)
              .Input("input: T")
              .Attr("T: type")
              .Attr("index: int >= 0")
              .Stateful()
              .Kernels("CPU", "GPU")
              .Int32OnHost("GPU"));
  }
  for (const char* name : {"_Send", "_HostSend"}) {
    OpBuilder op = Op(name);
    op.Input("tensor: T")
        .Attr("T: type")
        .Attr("tensor_name: string")
        .Attr("send_device: string")
        .Attr("send_device_incarnation: int")
        .Attr("recv_device: string")
        .Attr("client_terminated: bool = false")
        .Stateful()  // TensorFlow marks only the receiving side distributed
        .Kernels("CPU", "GPU");
    if (std::string_view(name) == "_HostSend") op.HostMemory("GPU", "tensor");
    t.Add(op);
  }
  for (const char* name : {"_Recv", "_HostRecv"}) {
    OpBuilder op = Op(name);
    op.Output("tensor: tensor_type")
        .Attr("tensor_type: type")
        .Attr("tensor_name: string")
        .Attr("send_device: string")
        .Attr("send_device_incarnation: int")
        .Attr("recv_device: string")
        .Attr("client_terminated: bool = false")
        .Stateful()
        .DistributedCommunication()
        .Kernels("CPU", "GPU");
    if (std::string_view(name) == "_HostRecv") op.HostMemory("GPU", "tensor");
    t.Add(op);
  }
}

void RegisterControlFlow(OpTable& t) {
  t.Add(Op("Switch")
            .Input("data: T")
            .Input("pred: bool")
            .Output("output_false: T")
            .Output("output_true: T")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "pred")
            .Int32OnHost("GPU"));
  t.Add(Op("RefSwitch")
            .Input("data: Ref(T)")
            .Input("pred: bool")
            .Output("output_false: Ref(T)")
            .Output("output_true: Ref(T)")
            .Attr("T: type")
            .AllowsUninitializedInput()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "pred")
            .Int32OnHost("GPU"));
  t.Add(Op("_SwitchN")
            .Input("data: T")
            .Input("output_index: int32")
            .Output("outputs: num_outs * T")
            .Attr("num_outs: int >= 1")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "output_index")
            .Int32OnHost("GPU"));
  t.Add(Op("RefSelect")
            .Input("index: int32")
            .Input("inputs: Ref(N * T)")
            .Output("output: Ref(T)")
            .Attr("T: type")
            .Attr("N: int >= 1")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "index"));
  t.Add(Op("Merge")
            .Input("inputs: N * T")
            .Output("output: T")
            .Output("value_index: int32")
            .Attr("T: type")
            .Attr("N: int >= 1")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "value_index")
            .Int32OnHost("GPU"));
  t.Add(Op("RefMerge")
            .Input("inputs: Ref(N * T)")
            .Output("output: Ref(T)")
            .Output("value_index: int32")
            .Attr("T: type")
            .Attr("N: int >= 1")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "value_index")
            .Int32OnHost("GPU"));
  for (const char* name : {"Enter", "RefEnter"}) {
    bool ref = std::string_view(name) == "RefEnter";
    t.Add(Op(name)
              .Input(ref ? "data: Ref(T)" : "data: T")
              .Output(ref ? "output: Ref(T)" : "output: T")
              .Attr("T: type")
              .Attr("frame_name: string")
              .Attr("is_constant: bool = false")
              .Attr("parallel_iterations: int = 10")
              .Kernels("CPU", "GPU")
              .Int32OnHost("GPU"));
  }
  for (const char* name : {"Exit", "NextIteration"}) {
    for (bool ref : {false, true}) {
      t.Add(Op(std::string(ref ? "Ref" : "") + name)
                .Input(ref ? "data: Ref(T)" : "data: T")
                .Output(ref ? "output: Ref(T)" : "output: T")
                .Attr("T: type")
                .Kernels("CPU", "GPU")
                .Int32OnHost("GPU"));
    }
  }
  t.Add(Op("LoopCond")
            .Input("input: bool")
            .Output("output: bool")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "input", "output"));
  t.Add(Op("ControlTrigger").Kernels("CPU", "GPU"));
  t.Add(Op("Abort")
            .Attr("error_msg: string = ''")
            .Attr("exit_without_error: bool = false")
            .Kernels("CPU"));
}

void RegisterFunctional(OpTable& t) {
  for (const char* name : {"If", "StatelessIf"}) {
    OpBuilder op = Op(name);
    op.Input("cond: Tcond")
        .Input("input: Tin")
        .Output("output: Tout")
        .Attr("Tcond: type")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .Attr("then_branch: func")
        .Attr("else_branch: func")
        .Attr("output_shapes: list(shape) = []")
        .Kernels("CPU", "GPU")
        .HostMemory("GPU", "cond");
    if (std::string_view(name) == "If") op.Stateful();
    t.Add(op);
  }
  for (const char* name : {"Case", "StatelessCase"}) {
    OpBuilder op = Op(name);
    op.Input("branch_index: int32")
        .Input("input: Tin")
        .Output("output: Tout")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .Attr("branches: list(func) >= 1")
        .Attr("output_shapes: list(shape) = []")
        .Kernels("CPU", "GPU")
        .HostMemory("GPU", "branch_index");
    if (std::string_view(name) == "Case") op.Stateful();
    t.Add(op);
  }
  for (const char* name : {"While", "StatelessWhile"}) {
    OpBuilder op = Op(name);
    op.Input("input: T")
        .Output("output: T")
        .Attr("T: list(type) >= 0")
        .Attr("cond: func")
        .Attr("body: func")
        .Attr("output_shapes: list(shape) = []")
        .Attr("parallel_iterations: int = 10")
        .Kernels("CPU", "GPU");
    if (std::string_view(name) == "While") op.Stateful();
    t.Add(op);
  }
  for (const char* name : {"PartitionedCall", "StatefulPartitionedCall"}) {
    OpBuilder op = Op(name);
    op.Input("args: Tin")
        .Output("output: Tout")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .Attr("f: func")
        .Attr("config: string = ''")
        .Attr("config_proto: string = ''")
        .Attr("executor_type: string = ''")
        .Kernels("CPU", "GPU");
    // TensorFlow marks StatefulPartitionedCall distributed communication too.
    if (std::string_view(name) == "StatefulPartitionedCall") {
      op.Stateful().DistributedCommunication();
    }
    t.Add(op);
  }
  t.Add(Op("SymbolicGradient")
            .Input("input: Tin")
            .Output("output: Tout")
            .Attr("Tin: list(type) >= 1")
            .Attr("Tout: list(type) >= 1")
            .Attr("f: func")
            .Kernels("CPU", "GPU"));
  t.Add(Op("RemoteCall")
            .Input("target: string")
            .Input("args: Tin")
            .Output("output: Tout")
            .Attr("Tin: list(type) >= 1")
            .Attr("Tout: list(type) >= 1")
            .Attr("f: func")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "target"));
}

// Ref variables (state_ops.cc).
void RegisterRefVariables(OpTable& t) {
  constexpr const char* kGpuVar =
      "{half, bfloat16, float, double, int64, complex64, complex128, bool, "
      "int32}";
  for (const char* name : {"VariableV2", "Variable"}) {
    t.Add(Op(name)
              .Output("ref: Ref(dtype)")
              .Attr("shape: shape")
              .Attr("dtype: type")
              .Attr("container: string = ''")
              .Attr("shared_name: string = ''")
              .Stateful()
              .Kernels("CPU", "GPU")
              .KernelTypes("GPU", "dtype", kGpuVar)
              .Int32OnHost("GPU", "dtype"));
  }
  t.Add(Op("IsVariableInitialized")
            .Input("ref: Ref(dtype)")
            .Output("is_initialized: bool")
            .Attr("dtype: type")
            .AllowsUninitializedInput()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "is_initialized"));
  t.Add(Op("Assign")
            .Input("ref: Ref(T)")
            .Input("value: T")
            .Output("output_ref: Ref(T)")
            .Attr("T: type")
            .Attr("validate_shape: bool = true")
            .Attr("use_locking: bool = true")
            .AllowsUninitializedInput()
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "T", kGpuVar)
            .Int32OnHost("GPU"));
  for (const char* name : {"AssignAdd", "AssignSub"}) {
    t.Add(Op(name)
              .Input("ref: Ref(T)")
              .Input("value: T")
              .Output("output_ref: Ref(T)")
              .Attr("T: numbertype")
              .Attr("use_locking: bool = false")
              .Kernels("CPU", "GPU")
              .KernelTypes("GPU", "T",
                           "{half, bfloat16, float, double, int64, complex64, "
                           "complex128}"));
  }
}

// Resource variables (resource_variable_ops.cc).
void RegisterResourceVariables(OpTable& t) {
  t.Add(Op("VarHandleOp")
            .Output("resource: resource")
            .Attr("container: string = ''")
            .Attr("shared_name: string = ''")
            .Attr("debug_name: string = ''")
            .Attr("dtype: type")
            .Attr("shape: shape")
            .Attr("allowed_devices: list(string) = []")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "resource"));
  t.Add(Op("ReadVariableOp")
            .Input("resource: resource")
            .Output("value: dtype")
            .Attr("dtype: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "resource")
            .Stateful());
  t.Add(Op("AssignVariableOp")
            .Input("resource: resource")
            .Input("value: dtype")
            .Attr("dtype: type")
            .Attr("validate_shape: bool = false")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "resource")
            .Stateful());
  for (const char* name : {"AssignAddVariableOp", "AssignSubVariableOp"}) {
    t.Add(Op(name)
              .Input("resource: resource")
              .Input("value: dtype")
              .Attr("dtype: type")
              .Kernels("CPU", "GPU")
              .HostMemory("GPU", "resource")
              .Stateful());
  }
  t.Add(Op("VarIsInitializedOp")
            .Input("resource: resource")
            .Output("is_initialized: bool")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "resource", "is_initialized")
            .Stateful());
  t.Add(Op("DestroyResourceOp")
            .Input("resource: resource")
            .Attr("ignore_lookup_error: bool = true")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "resource"));
  t.Add(Op("DisableCopyOnRead")
            .Input("resource: resource")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "resource")
            .Stateful());
  t.Add(Op("ResourceGather")
            .Input("resource: resource")
            .Input("indices: Tindices")
            .Output("output: dtype")
            .Attr("batch_dims: int = 0")
            .Attr("validate_indices: bool = true")
            .Attr("dtype: type")
            .Attr("Tindices: {int32, int64}")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "resource")
            .Stateful());
}

}  // namespace

void RegisterPlumbingOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterConstants(t);
  RegisterIdentities(t);
  RegisterRuntimeOps(t);
  RegisterControlFlow(t);
  RegisterFunctional(t);
  RegisterRefVariables(t);
  RegisterResourceVariables(t);
}

}  // namespace dfg
