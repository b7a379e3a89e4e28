// Op table: scatter ops (TensorFlow's core/ops/{array,state,resource_variable}
// _ops.cc): ScatterNd and TensorScatter* on values, Scatter*/ScatterNd* on ref
// variables, ResourceScatter*/ResourceScatterNd* on resource variables, and
// ResourceGatherNd.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

// Ops on values.
void RegisterValueScatters(OpTable& t) {
  t.Add(Op("ScatterNd")
            .Input("indices: Tindices")
            .Input("updates: T")
            .Input("shape: Tindices")
            .Output("output: T")
            .Attr("T: type")
            .Attr("Tindices: {int16, int32, int64}")
            .Attr("bad_indices_policy: string = ''")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "shape"));
  t.Add(Op("TensorScatterUpdate")
            .Input("tensor: T")
            .Input("indices: Tindices")
            .Input("updates: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr("Tindices: {int16, int32, int64, uint16}")
            .Attr("bad_indices_policy: string = ''")
            .Kernels("CPU", "GPU"));
  for (const char* name : {"TensorScatterAdd", "TensorScatterSub",
                           "TensorScatterMax", "TensorScatterMin"}) {
    t.Add(Op(name)
              .Input("tensor: T")
              .Input("indices: Tindices")
              .Input("updates: T")
              .Output("output: T")
              .Attr("T: type")
              .Attr("Tindices: {int32, int64}")
              .Attr("bad_indices_policy: string = ''")
              .Kernels("CPU", "GPU"));
  }
  t.Add(Op("ScatterNdNonAliasingAdd")
            .Input("input: T")
            .Input("indices: Tindices")
            .Input("updates: T")
            .Output("output: T")
            .Attr("T: {float, double, int32, uint8, int16, int8, complex64, "
                  "int64, qint8, quint8, qint32, bfloat16, qint16, quint16, "
                  "uint16, complex128, half, uint32, uint64, bool}")
            .Attr("Tindices: {int32, int64}")
            .Attr("bad_indices_policy: string = ''")
            .Kernels("CPU", "GPU"));
}

// Ops on resource variables.
void RegisterResourceScatters(OpTable& t) {
  for (const char* name : {"ResourceScatterNdUpdate", "ResourceScatterNdAdd",
                           "ResourceScatterNdSub", "ResourceScatterNdMax",
                           "ResourceScatterNdMin"}) {
    t.Add(Op(name)
              .Input("ref: resource")
              .Input("indices: Tindices")
              .Input("updates: T")
              .Attr("T: type")
              .Attr("Tindices: {int32, int64}")
              .Attr("use_locking: bool = true")
              .Attr("bad_indices_policy: string = ''")
              .Stateful()
              .Kernels("CPU", "GPU")
              .HostMemory("GPU", "ref"));
  }
  t.Add(Op("ResourceScatterUpdate")
            .Input("resource: resource")
            .Input("indices: Tindices")
            .Input("updates: dtype")
            .Attr("dtype: type")
            .Attr("Tindices: {int32, int64}")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "resource"));
  for (const char* name :
       {"ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterMul",
        "ResourceScatterDiv", "ResourceScatterMin", "ResourceScatterMax"}) {
    t.Add(Op(name)
              .Input("resource: resource")
              .Input("indices: Tindices")
              .Input("updates: dtype")
              .Attr("dtype: numbertype")
              .Attr("Tindices: {int32, int64}")
              .Stateful()
              .Kernels("CPU", "GPU")
              .HostMemory("GPU", "resource"));
  }
  t.Add(Op("ResourceGatherNd")
            .Input("resource: resource")
            .Input("indices: Tindices")
            .Output("output: dtype")
            .Attr("dtype: type")
            .Attr("Tindices: {int32, int64}")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "resource"));
}

// Ops on ref variables.
void RegisterRefScatters(OpTable& t) {
  t.Add(Op("ScatterNdUpdate")
            .Input("ref: Ref(T)")
            .Input("indices: Tindices")
            .Input("updates: T")
            .Output("output_ref: Ref(T)")
            .Attr("T: type")
            .Attr("Tindices: {int32, int64}")
            .Attr("use_locking: bool = true")
            .Attr("bad_indices_policy: string = ''")
            .Kernels("CPU", "GPU"));
  for (const char* name :
       {"ScatterNdAdd", "ScatterNdSub", "ScatterNdMax", "ScatterNdMin"}) {
    t.Add(Op(name)
              .Input("ref: Ref(T)")
              .Input("indices: Tindices")
              .Input("updates: T")
              .Output("output_ref: Ref(T)")
              .Attr("T: numbertype")
              .Attr("Tindices: {int32, int64}")
              .Attr("use_locking: bool = false")
              .Attr("bad_indices_policy: string = ''")
              .Kernels("CPU", "GPU"));
  }
  t.Add(Op("ScatterUpdate")
            .Input("ref: Ref(T)")
            .Input("indices: Tindices")
            .Input("updates: T")
            .Output("output_ref: Ref(T)")
            .Attr("T: type")
            .Attr("Tindices: {int32, int64}")
            .Attr("use_locking: bool = true")
            .Kernels("CPU", "GPU"));
  for (const char* name :
       {"ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv"}) {
    t.Add(Op(name)
              .Input("ref: Ref(T)")
              .Input("indices: Tindices")
              .Input("updates: T")
              .Output("output_ref: Ref(T)")
              .Attr("T: numbertype")
              .Attr("Tindices: {int32, int64}")
              .Attr("use_locking: bool = false")
              .Kernels("CPU", "GPU"));
  }
  for (const char* name : {"ScatterMin", "ScatterMax"}) {
    t.Add(Op(name)
              .Input("ref: Ref(T)")
              .Input("indices: Tindices")
              .Input("updates: T")
              .Output("output_ref: Ref(T)")
              .Attr("T: {half, bfloat16, float, double, int32, int64}")
              .Attr("Tindices: {int32, int64}")
              .Attr("use_locking: bool = false")
              .Kernels("CPU", "GPU"));
  }
}

}  // namespace

void RegisterScatterOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterValueScatters(t);
  RegisterResourceScatters(t);
  RegisterRefScatters(t);
}

}  // namespace dfg
