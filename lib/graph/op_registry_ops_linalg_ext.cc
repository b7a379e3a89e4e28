// Op table: the rest of TensorFlow's linear algebra (core/ops/linalg_ops.cc:
// CholeskyGrad, Eig, Lu, the matrix functions, the banded and tridiagonal
// solvers), the deprecated Batch* names of the linalg ops (each the OpDef of
// its successor under the old name, with its own T list), SelfAdjointEig,
// TopK, TileGrad and AdjustContrast. The deprecation versions come from
// op_registry_deprecation.cc.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

void RegisterBatchLinalg(OpTable& t) {
  constexpr const char* kDF = "T: {double, float}";
  t.Add(Op("BatchCholesky")
            .Input("input: T")
            .Output("output: T")
            .Attr(kDF)
            .Kernels("CPU"));
  t.Add(Op("BatchCholeskyGrad")
            .Input("l: T")
            .Input("grad: T")
            .Output("output: T")
            .Attr("T: {float, double}")
            .Kernels("CPU"));
  t.Add(Op("BatchMatrixDeterminant")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: {float, double, complex64, complex128}")
            .Kernels("CPU"));
  t.Add(Op("BatchMatrixInverse")
            .Input("input: T")
            .Output("output: T")
            .Attr("adjoint: bool = false")
            .Attr(kDF)
            .Kernels("CPU"));
  t.Add(Op("BatchMatrixSolve")
            .Input("matrix: T")
            .Input("rhs: T")
            .Output("output: T")
            .Attr("adjoint: bool = false")
            .Attr(kDF)
            .Kernels("CPU"));
  t.Add(Op("BatchMatrixSolveLs")
            .Input("matrix: T")
            .Input("rhs: T")
            .Input("l2_regularizer: double")
            .Output("output: T")
            .Attr(kDF)
            .Attr("fast: bool = true")
            .Kernels("CPU"));
  t.Add(Op("BatchMatrixTriangularSolve")
            .Input("matrix: T")
            .Input("rhs: T")
            .Output("output: T")
            .Attr("lower: bool = true")
            .Attr("adjoint: bool = false")
            .Attr(kDF)
            .Kernels("CPU"));
  t.Add(Op("BatchSelfAdjointEig")
            .Input("input: T")
            .Output("output: T")
            .Attr(kDF)
            .Kernels("CPU"));
  t.Add(Op("SelfAdjointEig")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: {double, float, half}")
            .Kernels("CPU"));
  t.Add(Op("BatchSelfAdjointEigV2")
            .Input("input: T")
            .Output("e: T")
            .Output("v: T")
            .Attr("compute_v: bool = true")
            .Attr(kDF)
            .Kernels("CPU"));
  t.Add(Op("BatchSvd")
            .Input("input: T")
            .Output("s: T")
            .Output("u: T")
            .Output("v: T")
            .Attr("compute_uv: bool = true")
            .Attr("full_matrices: bool = false")
            .Attr("T: {double, float, complex64, complex128}")
            .Kernels("CPU"));
}

// TopK and TileGrad: TensorFlow 2.21's CPU kernels for them carry a type
// constraint on an attr the OpDef does not have (index_type, Tmultiples), so
// no NodeDef of these ops finds a kernel: dfg registers the OpDefs only.
void RegisterOtherDeprecated(OpTable& t) {
  t.Add(Op("TopK")
            .Input("input: T")
            .Output("values: T")
            .Output("indices: int32")
            .Attr("k: int >= 0")
            .Attr("sorted: bool = true")
            .Attr("T: realnumbertype")
            .Kernels("CPU"));
  t.Add(Op("TileGrad")
            .Input("input: T")
            .Input("multiples: int32")
            .Output("output: T")
            .Attr("T: type")
            .Kernels("CPU"));
  t.Add(Op("AdjustContrast")
            .Input("images: T")
            .Input("contrast_factor: float")
            .Input("min_value: float")
            .Input("max_value: float")
            .Output("output: float")
            .Attr("T: {uint8, int8, int16, int32, int64, float, double}")
            .Kernels("CPU", "GPU"));
}

void RegisterLinalgExt(OpTable& t) {
  t.Add(Op("CholeskyGrad")
            .Input("l: T")
            .Input("grad: T")
            .Output("output: T")
            .Attr("T: {half, float, double}")
            .Kernels("CPU"));
  t.Add(Op("Eig")
            .Input("input: T")
            .Output("e: Tout")
            .Output("v: Tout")
            .Attr("compute_v: bool = true")
            .Attr("T: {float, double, complex64, complex128}")
            .Attr("Tout: {complex64, complex128}")
            .Kernels("CPU"));
  t.Add(Op("Lu")
            .Input("input: T")
            .Output("lu: T")
            .Output("p: output_idx_type")
            .Attr("T: {double, float, half, complex64, complex128}")
            .Attr("output_idx_type: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU"));
  t.Add(Op("MatrixLogarithm")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: {complex64, complex128}")
            .Kernels("CPU"));
  for (const char* name : {"MatrixSquareRoot", "MatrixExponential"}) {
    t.Add(Op(name)
              .Input("input: T")
              .Output("output: T")
              .Attr("T: {double, float, half, complex64, complex128}")
              .Kernels("CPU"));
  }
  t.Add(Op("BandedTriangularSolve")
            .Input("matrix: T")
            .Input("rhs: T")
            .Output("output: T")
            .Attr("lower: bool = true")
            .Attr("adjoint: bool = false")
            .Attr("T: {double, float, half, complex64, complex128}")
            .Kernels("CPU"));
  t.Add(Op("TridiagonalMatMul")
            .Input("superdiag: T")
            .Input("maindiag: T")
            .Input("subdiag: T")
            .Input("rhs: T")
            .Output("output: T")
            .Attr("T: {double, float, complex64, complex128}")
            .Kernels("CPU", "GPU"));
  t.Add(Op("TridiagonalSolve")
            .Input("diagonals: T")
            .Input("rhs: T")
            .Output("output: T")
            .Attr("partial_pivoting: bool = true")
            .Attr("perturb_singular: bool = false")
            .Attr("T: {double, float, complex64, complex128}")
            .Kernels("CPU", "GPU"));
}

// Ops of core/ops/math_ops.cc, nn_ops.cc, clustering_ops.cc, sdca_ops.cc the
// linalg_ext kernels cover.
void RegisterMiscExt(OpTable& t) {
  t.Add(Op("Fact").Output("fact: string").Kernels("CPU", "GPU"));
  t.Add(Op("IsotonicRegression")
            .Input("input: T")
            .Output("output: output_dtype")
            .Output("segments: int32")
            .Attr("T: realnumbertype")
            .Attr("output_dtype: {half, bfloat16, float, double} = DT_FLOAT")
            .Kernels("CPU"));
  t.Add(Op("NearestNeighbors")
            .Input("points: float")
            .Input("centers: float")
            .Input("k: int64")
            .Output("nearest_center_indices: int64")
            .Output("nearest_center_distances: float")
            .Kernels("CPU"));
  t.Add(Op("KMC2ChainInitialization")
            .Input("distances: float")
            .Input("seed: int64")
            .Output("index: int64")
            .Kernels("CPU"));
  t.Add(Op("KmeansPlusPlusInitialization")
            .Input("points: float")
            .Input("num_to_sample: int64")
            .Input("seed: int64")
            .Input("num_retries_per_sample: int64")
            .Output("samples: float")
            .Kernels("CPU"));
  t.Add(Op("ApproxTopK")
            .Input("input: T")
            .Output("values: T")
            .Output("indices: int32")
            .Attr("k: int >= 0")
            .Attr("reduction_dimension: int = -1")
            .Attr("recall_target: float = 0.95")
            .Attr("is_max_k: bool = true")
            .Attr("reduction_input_size_override: int = -1")
            .Attr("aggregate_to_topk: bool = true")
            .Attr("T: {half, bfloat16, float}")
            .Kernels("CPU", "GPU"));
  t.Add(Op("SdcaShrinkL1")
            .Input("weights: Ref(num_features * float)")
            .Attr("num_features: int >= 0")
            .Attr("l1: float")
            .Attr("l2: float")
            .Kernels("CPU"));
  t.Add(Op("SdcaFprint")
            .Input("input: string")
            .Output("output: int64")
            .Kernels("CPU"));
}

}  // namespace

void RegisterLinalgExtOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterBatchLinalg(t);
  RegisterOtherDeprecated(t);
  RegisterLinalgExt(t);
  RegisterMiscExt(t);
}

}  // namespace dfg
