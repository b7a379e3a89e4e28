// Op table: the optimizers and gradient ops of training graphs that the other
// tables lack (TensorFlow's core/ops/{training,nn,math}_ops.cc).
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

// Apply<name> (ref slots, ref output) and ResourceApply<name> (resource
// slots, no output). `slots` are the variable-like inputs, `rest` the inputs
// after them ("lr: T"...), `attrs` the extra attrs.
void AddOptimizer(OpTable& t, const std::string& name,
                  const std::vector<std::string>& slots,
                  const std::vector<std::string>& rest,
                  const std::vector<std::string>& attrs) {
  for (bool resource : {false, true}) {
    OpBuilder op = Op((resource ? "ResourceApply" : "Apply") + name);
    for (const std::string& s : slots) {
      op.Input(s + (resource ? ": resource" : ": Ref(T)"));
    }
    for (const std::string& r : rest) op.Input(r);
    if (!resource) op.Output("out: Ref(T)");
    op.Attr("T: numbertype").Attr("use_locking: bool = false");
    for (const std::string& a : attrs) op.Attr(a);
    op.Kernels("CPU", "GPU");
    if (resource) {
      for (const std::string& s : slots) op.HostMemory("GPU", s);
      op.Stateful();  // TensorFlow marks these resource updates stateful
    }
    t.Add(op);
  }
}

void RegisterOptimizers(OpTable& t) {
  AddOptimizer(t, "Momentum", {"var", "accum"},
               {"lr: T", "grad: T", "momentum: T"},
               {"use_nesterov: bool = false"});
  AddOptimizer(t, "Adagrad", {"var", "accum"}, {"lr: T", "grad: T"},
               {"update_slots: bool = true"});
  // ApplyAdam, ApplyRMSProp and ResourceApplyGradientDescent are in the misc
  // table; their resource twins here.
  t.Add(Op("ResourceApplyAdam")
            .Input("var: resource")
            .Input("m: resource")
            .Input("v: resource")
            .Input("beta1_power: T")
            .Input("beta2_power: T")
            .Input("lr: T")
            .Input("beta1: T")
            .Input("beta2: T")
            .Input("epsilon: T")
            .Input("grad: T")
            .Attr("T: numbertype")
            .Attr("use_locking: bool = false")
            .Attr("use_nesterov: bool = false")
            .Kernels("CPU", "GPU")
            .Stateful());
  t.Add(Op("ResourceApplyRMSProp")
            .Input("var: resource")
            .Input("ms: resource")
            .Input("mom: resource")
            .Input("lr: T")
            .Input("rho: T")
            .Input("momentum: T")
            .Input("epsilon: T")
            .Input("grad: T")
            .Attr("T: numbertype")
            .Attr("use_locking: bool = false")
            .Kernels("CPU", "GPU")
            .Stateful());
}

// Gradient ops the other tables lack.
void RegisterGradients(OpTable& t) {
  t.Add(Op("Relu6Grad")
            .Input("gradients: T")
            .Input("features: T")
            .Output("backprops: T")
            .Attr("T: realnumbertype")
            .Kernels("CPU", "GPU"));
  t.Add(Op("AvgPoolGrad")
            .Input("orig_input_shape: int32")
            .Input("grad: T")
            .Output("output: T")
            .Attr("ksize: list(int) >= 4")
            .Attr("strides: list(int) >= 4")
            .Attr("padding: {'SAME', 'VALID'}")
            .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .Attr("T: {half, bfloat16, float, double}")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "orig_input_shape"));
  t.Add(Op("UnsortedSegmentSum")
            .Input("data: T")
            .Input("segment_ids: Tindices")
            .Input("num_segments: Tnumsegments")
            .Output("output: T")
            .Attr("T: numbertype")
            .Attr("Tindices: {int16, int32, int64}")
            .Attr("Tnumsegments: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "num_segments"));
  t.Add(Op("ParallelDynamicStitch")
            .Input("indices: N * int32")
            .Input("data: N * T")
            .Output("merged: T")
            .Attr("N: int >= 1")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "indices"));
}

// The TensorList and TensorArray ops the data table lacks.
void RegisterListsAndArrays(OpTable& t) {
  t.Add(Op("EmptyTensorList")
            .Input("element_shape: shape_type")
            .Input("max_num_elements: int32")
            .Output("handle: variant")
            .Attr("element_dtype: type")
            .Attr("shape_type: {int32, int64}")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "element_shape", "max_num_elements"));
  t.Add(Op("TensorListPushBack")
            .Input("input_handle: variant")
            .Input("tensor: element_dtype")
            .Output("output_handle: variant")
            .Attr("element_dtype: type")
            .Kernels("CPU", "GPU"));
  t.Add(Op("TensorListPopBack")
            .Input("input_handle: variant")
            .Input("element_shape: int32")
            .Output("output_handle: variant")
            .Output("tensor: element_dtype")
            .Attr("element_dtype: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "element_shape"));
  t.Add(Op("TensorListLength")
            .Input("input_handle: variant")
            .Output("length: int32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "length"));
  t.Add(Op("TensorListElementShape")
            .Input("input_handle: variant")
            .Output("element_shape: shape_type")
            .Attr("shape_type: {int32, int64}")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "element_shape"));
  t.Add(Op("TensorArrayGradV3")
            .Input("handle: resource")
            .Input("flow_in: float")
            .Output("grad_handle: resource")
            .Output("flow_out: float")
            .Attr("source: string")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle"));
  t.Add(Op("TensorArrayConcatV3")
            .Input("handle: resource")
            .Input("flow_in: float")
            .Output("value: dtype")
            .Output("lengths: int64")
            .Attr("dtype: type")
            .Attr("element_shape_except0: shape = { unknown_rank: true }")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle", "lengths")
            .Stateful());
  t.Add(Op("TensorArraySplitV3")
            .Input("handle: resource")
            .Input("value: T")
            .Input("lengths: int64")
            .Input("flow_in: float")
            .Output("flow_out: float")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle", "lengths")
            .Stateful());
  // The stacks of v1 while loops' gradients (forward values saved per
  // iteration, popped in reverse).
  t.Add(Op("StackV2")
            .Input("max_size: int32")
            .Output("handle: resource")
            .Attr("elem_type: type")
            .Attr("stack_name: string = ''")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "max_size", "handle"));
  t.Add(Op("StackPushV2")
            .Input("handle: resource")
            .Input("elem: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr("swap_memory: bool = false")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle"));
  t.Add(Op("StackPopV2")
            .Input("handle: resource")
            .Output("elem: elem_type")
            .Attr("elem_type: type")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle"));
  t.Add(Op("StackCloseV2")
            .Input("handle: resource")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle"));
}

}  // namespace

void RegisterTrainOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterOptimizers(t);
  RegisterGradients(t);
  RegisterListsAndArrays(t);
}

}  // namespace dfg
