// Op table: TensorFlow's matrix ops (core/ops/array_ops.cc: MatrixBandPart,
// the Diag / MatrixDiag / MatrixSetDiag families; core/ops/linalg_ops.cc:
// the decompositions and solvers).
#include <string>

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

// TensorFlow's linalg ops: T lists as its OpDefs order them.
void RegisterDecompositions(OpTable& t) {
  constexpr const char* kT = "T: {double, float, half, complex64, complex128}";
  t.Add(Op("MatrixInverse")
            .Input("input: T")
            .Output("output: T")
            .Attr("adjoint: bool = false")
            .Attr(kT)
            .Kernels("CPU", "GPU"));
  for (const char* name : {"MatrixDeterminant", "LogMatrixDeterminant"}) {
    OpBuilder op = Op(name);
    op.Input("input: T")
        .Attr("T: {half, float, double, complex64, complex128}")
        .Kernels("CPU", "GPU");
    if (name == std::string("MatrixDeterminant")) {
      op.Output("output: T");
    } else {
      op.Output("sign: T").Output("log_abs_determinant: T");
    }
    t.Add(op);
  }
  t.Add(Op("Cholesky")
            .Input("input: T")
            .Output("output: T")
            .Attr(kT)
            .Kernels("CPU", "GPU"));
  t.Add(Op("MatrixSolve")
            .Input("matrix: T")
            .Input("rhs: T")
            .Output("output: T")
            .Attr("adjoint: bool = false")
            .Attr(kT)
            .Kernels("CPU", "GPU"));
  t.Add(Op("MatrixTriangularSolve")
            .Input("matrix: T")
            .Input("rhs: T")
            .Output("output: T")
            .Attr("lower: bool = true")
            .Attr("adjoint: bool = false")
            .Attr("T: {bfloat16, double, float, half, complex64, complex128}")
            .Kernels("CPU", "GPU"));
  t.Add(Op("MatrixSolveLs")
            .Input("matrix: T")
            .Input("rhs: T")
            .Input("l2_regularizer: double")
            .Output("output: T")
            .Attr(kT)
            .Attr("fast: bool = true")
            .Kernels("CPU"));
  t.Add(Op("Qr")
            .Input("input: T")
            .Output("q: T")
            .Output("r: T")
            .Attr("full_matrices: bool = false")
            .Attr(kT)
            .Kernels("CPU", "GPU"));
  t.Add(Op("SelfAdjointEigV2")
            .Input("input: T")
            .Output("e: T")
            .Output("v: T")
            .Attr("compute_v: bool = true")
            .Attr(kT)
            .Kernels("CPU", "GPU"));
  t.Add(Op("Svd")
            .Input("input: T")
            .Output("s: T")
            .Output("u: T")
            .Output("v: T")
            .Attr("compute_uv: bool = true")
            .Attr("full_matrices: bool = false")
            .Attr(kT)
            .Kernels("CPU", "GPU"));
}

}  // namespace

void RegisterLinalgOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterBandAndDiag(t);
  RegisterDecompositions(t);
}

}  // namespace dfg
