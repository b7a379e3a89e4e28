// Op table: TensorFlow's matrix ops (core/ops/array_ops.cc: MatrixBandPart,
// the Diag / MatrixDiag / MatrixSetDiag families; core/ops/linalg_ops.cc:
// the decompositions and solvers).
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

void RegisterBandAndDiag(OpTable& t) {
  t.Add(Op("MatrixBandPart")
            .Input("input: T")
            .Input("num_lower: Tindex")
            .Input("num_upper: Tindex")
            .Output("band: T")
            .Attr("T: type")
            .Attr("Tindex: {int32, int64} = DT_INT64")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "num_lower", "num_upper"));
}

}  // namespace

void RegisterLinalgOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterBandAndDiag(t);
}

}  // namespace dfg
