// Op table: TF1 stateful containers (TensorFlow's core/ops/data_flow_ops.cc):
// the staging areas (Stage/Unstage and the keyed MapStage/OrderedMapStage
// families) and the conditional accumulators of synchronous training, in
// their Ref(string) handle form and the resource form.
//
// Kernels: CPU only (lib/kernels/stage_ops.cc, accumulator_ops.cc).
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

// The attrs every staging-area op carries; `dtypes_min` for the ops whose
// values list must not be empty.
OpBuilder StagingOp(const std::string& name, bool dtypes_min) {
  OpBuilder op = Op(name);
  op.Attr("capacity: int >= 0 = 0")
      .Attr("memory_limit: int >= 0 = 0")
      .Attr(dtypes_min ? "dtypes: list(type) >= 1" : "dtypes: list(type)")
      .Attr("container: string = ''")
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
    t.Add(StagingOp(prefix + "Stage", false)
              .Input("key: int64")
              .Input("indices: int32")
              .Input("values: fake_dtypes")
              .Attr("fake_dtypes: list(type) >= 1"));
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

}  // namespace

void RegisterStateOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterStagingAreas(t);
  RegisterAccumulators(t);
}

}  // namespace dfg
