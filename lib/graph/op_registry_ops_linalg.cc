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
  t.Add(Op("BatchMatrixBandPart")
            .Input("input: T")
            .Input("num_lower: int64")
            .Input("num_upper: int64")
            .Output("band: T")
            .Attr("T: type")
            .Kernels("CPU", "GPU"));
  constexpr const char* kDiagTypes =
      "T: {bfloat16, half, float, double, int32, int64, complex64, "
      "complex128}";
  t.Add(Op("Diag")
            .Input("diagonal: T")
            .Output("output: T")
            .Attr(kDiagTypes)
            .Kernels("CPU", "GPU"));
  t.Add(Op("DiagPart")
            .Input("input: T")
            .Output("diagonal: T")
            .Attr(kDiagTypes)
            .Kernels("CPU", "GPU"));
  for (const char* name : {"MatrixDiag", "BatchMatrixDiag"}) {
    t.Add(Op(name)
              .Input("diagonal: T")
              .Output("output: T")
              .Attr("T: type")
              .Kernels("CPU", "GPU"));
  }
  for (const char* name : {"MatrixDiagPart", "BatchMatrixDiagPart"}) {
    t.Add(Op(name)
              .Input("input: T")
              .Output("diagonal: T")
              .Attr("T: type")
              .Kernels("CPU", "GPU"));
  }
  for (const char* name : {"MatrixSetDiag", "BatchMatrixSetDiag"}) {
    t.Add(Op(name)
              .Input("input: T")
              .Input("diagonal: T")
              .Output("output: T")
              .Attr("T: type")
              .Kernels("CPU", "GPU"));
  }
  constexpr const char* kAlign =
      "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = "
      "'RIGHT_LEFT'";
  for (const bool v3 : {false, true}) {
    OpBuilder diag = Op(v3 ? "MatrixDiagV3" : "MatrixDiagV2");
    diag.Input("diagonal: T")
        .Input("k: int32")
        .Input("num_rows: int32")
        .Input("num_cols: int32")
        .Input("padding_value: T")
        .Output("output: T")
        .Attr("T: type")
        .Kernels("CPU", "GPU")
        .HostMemory("GPU", "k", "num_rows", "num_cols", "padding_value");
    OpBuilder part = Op(v3 ? "MatrixDiagPartV3" : "MatrixDiagPartV2");
    part.Input("input: T")
        .Input("k: int32")
        .Input("padding_value: T")
        .Output("diagonal: T")
        .Attr("T: type")
        .Kernels("CPU", "GPU")
        .HostMemory("GPU", "k", "padding_value");
    OpBuilder set = Op(v3 ? "MatrixSetDiagV3" : "MatrixSetDiagV2");
    set.Input("input: T")
        .Input("diagonal: T")
        .Input("k: int32")
        .Output("output: T")
        .Attr("T: type")
        .Kernels("CPU", "GPU")
        .HostMemory("GPU", "k");
    if (v3) {
      diag.Attr(kAlign);
      part.Attr(kAlign);
      set.Attr(kAlign);
    }
    t.Add(diag);
    t.Add(part);
    t.Add(set);
  }
}

}  // namespace

void RegisterLinalgOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterBandAndDiag(t);
}

}  // namespace dfg
