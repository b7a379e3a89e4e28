// Op table: the sparse and ragged ops beyond op_registry_ops_sparse.cc —
// feature crosses (tf.sparse.cross, tf.ragged.cross, Keras HashedCrossing),
// counts with sparse output (tf.sparse.bincount), the gradients of sparse
// add/slice/segment/fill ops, and TensorMap (a DT_VARIANT map keyed by
// tensor value) and CSR sparse matrices (DT_VARIANT). Signatures as
// TensorFlow's OpDefs.
#include <string>

#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

constexpr const char* kCrossTypes = "{int64, string}";

void RegisterCrosses(OpTable& t) {
  const std::string sparse_types =
      std::string("sparse_types: list(") + kCrossTypes + ") >= 0";
  const std::string dense_types =
      std::string("dense_types: list(") + kCrossTypes + ") >= 0";
  t.Add(Op("SparseCross")
            .Input("indices: N * int64")
            .Input("values: sparse_types")
            .Input("shapes: N * int64")
            .Input("dense_inputs: dense_types")
            .Output("output_indices: int64")
            .Output("output_values: out_type")
            .Output("output_shape: int64")
            .Attr("N: int >= 0")
            .Attr("hashed_output: bool")
            .Attr("num_buckets: int >= 0")
            .Attr("hash_key: int")
            .Attr(sparse_types)
            .Attr(dense_types)
            .Attr("out_type: {int64, string}")
            .Attr("internal_type: {int64, string}")
            .Kernels("CPU"));
  t.Add(Op("SparseCrossHashed")
            .Input("indices: N * int64")
            .Input("values: sparse_types")
            .Input("shapes: N * int64")
            .Input("dense_inputs: dense_types")
            .Input("num_buckets: int64")
            .Input("strong_hash: bool")
            .Input("salt: int64")
            .Output("output_indices: int64")
            .Output("output_values: int64")
            .Output("output_shape: int64")
            .Attr("N: int >= 0")
            .Attr(sparse_types)
            .Attr(dense_types)
            .Kernels("CPU"));
  t.Add(Op("SparseCrossV2")
            .Input("indices: N * int64")
            .Input("values: sparse_types")
            .Input("shapes: N * int64")
            .Input("dense_inputs: dense_types")
            .Input("sep: string")
            .Output("output_indices: int64")
            .Output("output_values: string")
            .Output("output_shape: int64")
            .Attr("N: int >= 0")
            .Attr(sparse_types)
            .Attr(dense_types)
            .Kernels("CPU"));
  t.Add(Op("RaggedCross")
            .Input("ragged_values: ragged_values_types")
            .Input("ragged_row_splits: ragged_splits_types")
            .Input("sparse_indices: Nsparse * int64")
            .Input("sparse_values: sparse_values_types")
            .Input("sparse_shape: Nsparse * int64")
            .Input("dense_inputs: dense_types")
            .Output("output_values: out_values_type")
            .Output("output_row_splits: out_row_splits_type")
            .Attr("Nsparse: int >= 0")
            .Attr("input_order: string")
            .Attr("hashed_output: bool")
            .Attr("num_buckets: int >= 0")
            .Attr("hash_key: int")
            .Attr("ragged_values_types: list({int64, string}) >= 0")
            .Attr("ragged_splits_types: list({int32, int64}) >= 0")
            .Attr("sparse_values_types: list({int64, string}) >= 0")
            .Attr(dense_types)
            .Attr("out_values_type: {int64, string}")
            .Attr("out_row_splits_type: {int32, int64}")
            .Kernels("CPU"));
}

void RegisterCounts(OpTable& t) {
  const char* kAttrs[] = {"T: {int32, int64}", "minlength: int >= -1 = -1",
                          "maxlength: int >= -1 = -1", "binary_output: bool",
                          "output_type: {int32, int64, float, double}"};
  auto add = [&](OpBuilder op) {
    op.Output("output_indices: int64")
        .Output("output_values: output_type")
        .Output("output_dense_shape: int64");
    for (const char* a : kAttrs) op.Attr(a);
    t.Add(op.Kernels("CPU"));
  };
  add(Op("DenseCountSparseOutput")
          .Input("values: T")
          .Input("weights: output_type"));
  add(Op("SparseCountSparseOutput")
          .Input("indices: int64")
          .Input("values: T")
          .Input("dense_shape: int64")
          .Input("weights: output_type"));
  add(Op("RaggedCountSparseOutput")
          .Input("splits: int64")
          .Input("values: T")
          .Input("weights: output_type"));
}

void RegisterGrads(OpTable& t) {
  t.Add(Op("SparseAddGrad")
            .Input("backprop_val_grad: T")
            .Input("a_indices: int64")
            .Input("b_indices: int64")
            .Input("sum_indices: int64")
            .Output("a_val_grad: T")
            .Output("b_val_grad: T")
            .Attr("T: numbertype")
            .Kernels("CPU"));
  t.Add(Op("SparseSliceGrad")
            .Input("backprop_val_grad: T")
            .Input("input_indices: int64")
            .Input("input_start: int64")
            .Input("output_indices: int64")
            .Output("val_grad: T")
            .Attr("T: numbertype")
            .Kernels("CPU"));
  for (const char* name : {"SparseSegmentSumGradV2", "SparseSegmentMeanGradV2",
                           "SparseSegmentSqrtNGradV2"}) {
    t.Add(Op(name)
              .Input("grad: T")
              .Input("indices: Tidx")
              .Input("segment_ids: Tsegmentids")
              .Input("dense_output_dim0: int32")
              .Output("output: T")
              .Output("sorted_unique_indices: Tidx")
              .Attr("T: {bfloat16, half, float, double}")
              .Attr("Tidx: {int32, int64} = DT_INT32")
              .Attr("Tsegmentids: {int32, int64} = DT_INT32")
              .Kernels("CPU"));
  }
  t.Add(Op("RaggedFillEmptyRowsGrad")
            .Input("reverse_index_map: int64")
            .Input("grad_values: T")
            .Output("d_values: T")
            .Output("d_default_value: T")
            .Attr("T: type")
            .Kernels("CPU"));
}

void RegisterTensorMaps(OpTable& t) {
  t.Add(Op("EmptyTensorMap").Output("handle: variant").Kernels("CPU"));
  t.Add(Op("TensorMapSize")
            .Input("input_handle: variant")
            .Output("size: int32")
            .Kernels("CPU"));
  t.Add(Op("TensorMapInsert")
            .Input("input_handle: variant")
            .Input("key: key_dtype")
            .Input("value: value_dtype")
            .Output("output_handle: variant")
            .Attr("key_dtype: type")
            .Attr("value_dtype: type")
            .Kernels("CPU"));
  t.Add(Op("TensorMapLookup")
            .Input("input_handle: variant")
            .Input("key: key_dtype")
            .Output("value: value_dtype")
            .Attr("key_dtype: type")
            .Attr("value_dtype: type")
            .Kernels("CPU"));
  t.Add(Op("TensorMapErase")
            .Input("input_handle: variant")
            .Input("key: key_dtype")
            .Output("output_handle: variant")
            .Attr("key_dtype: type")
            .Attr("value_dtype: type")
            .Kernels("CPU"));
  t.Add(Op("TensorMapHasKey")
            .Input("input_handle: variant")
            .Input("key: key_dtype")
            .Output("has_key: bool")
            .Attr("key_dtype: type")
            .Kernels("CPU"));
  t.Add(Op("TensorMapStackKeys")
            .Input("input_handle: variant")
            .Output("keys: key_dtype")
            .Attr("key_dtype: type")
            .Kernels("CPU"));
}

void RegisterSparseTensorsMaps(OpTable& t) {
  for (const char* name :
       {"AddSparseToTensorsMap", "AddManySparseToTensorsMap"}) {
    const bool many = std::string(name).starts_with("AddMany");
    t.Add(Op(name)
              .Input("sparse_indices: int64")
              .Input("sparse_values: T")
              .Input("sparse_shape: int64")
              .Output(many ? "sparse_handles: int64" : "sparse_handle: int64")
              .Attr("T: type")
              .Attr("container: string = ''")
              .Attr("shared_name: string = ''")
              .Stateful()
              .Kernels("CPU"));
  }
  t.Add(Op("TakeManySparseFromTensorsMap")
            .Input("sparse_handles: int64")
            .Output("sparse_indices: int64")
            .Output("sparse_values: dtype")
            .Output("sparse_shape: int64")
            .Attr("dtype: type")
            .Attr("container: string = ''")
            .Attr("shared_name: string = ''")
            .Stateful()
            .Kernels("CPU"));
}

void RegisterCompositeVariants(OpTable& t) {
  t.Add(Op("RaggedTensorToVariantGradient")
            .Input("encoded_ragged_grad: variant")
            .Input("row_splits: Tsplits")
            .Input("dense_values_shape: int32")
            .Output("dense_values_grad: Tvalues")
            .Attr("Tvalues: type")
            .Attr("Tsplits: {int32, int64} = DT_INT64")
            .Kernels("CPU"));
  t.Add(Op("CompositeTensorVariantFromComponents")
            .Input("components: Tcomponents")
            .Output("encoded: variant")
            .Attr("metadata: string")
            .Attr("Tcomponents: list(type) >= 0")
            .Kernels("CPU"));
  t.Add(Op("CompositeTensorVariantToComponents")
            .Input("encoded: variant")
            .Output("components: Tcomponents")
            .Attr("metadata: string")
            .Attr("Tcomponents: list(type) >= 0")
            .Kernels("CPU"));
}

void RegisterCsrMatrices(OpTable& t) {
  const char* kType = "type: {float, double, complex64, complex128}";
  t.Add(Op("SparseTensorToCSRSparseMatrix")
            .Input("indices: int64")
            .Input("values: T")
            .Input("dense_shape: int64")
            .Output("sparse_matrix: variant")
            .Attr("T: {float, double, complex64, complex128}")
            .Kernels("CPU"));
  t.Add(Op("DenseToCSRSparseMatrix")
            .Input("dense_input: T")
            .Input("indices: int64")
            .Output("sparse_output: variant")
            .Attr("T: {float, double, complex64, complex128}")
            .Kernels("CPU"));
  t.Add(Op("CSRSparseMatrixToDense")
            .Input("sparse_input: variant")
            .Output("dense_output: type")
            .Attr(kType)
            .Kernels("CPU"));
  t.Add(Op("CSRSparseMatrixToSparseTensor")
            .Input("sparse_matrix: variant")
            .Output("indices: int64")
            .Output("values: type")
            .Output("dense_shape: int64")
            .Attr(kType)
            .Kernels("CPU"));
  t.Add(Op("CSRSparseMatrixComponents")
            .Input("csr_sparse_matrix: variant")
            .Input("index: int32")
            .Output("row_ptrs: int32")
            .Output("col_inds: int32")
            .Output("values: type")
            .Attr(kType)
            .Kernels("CPU"));
  t.Add(Op("SparseMatrixNNZ")
            .Input("sparse_matrix: variant")
            .Output("nnz: int32")
            .Kernels("CPU"));
  t.Add(Op("SparseMatrixTranspose")
            .Input("input: variant")
            .Output("output: variant")
            .Attr("conjugate: bool = false")
            .Attr(kType)
            .Kernels("CPU"));
  t.Add(Op("SparseMatrixMatMul")
            .Input("a: variant")
            .Input("b: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr("transpose_a: bool = false")
            .Attr("transpose_b: bool = false")
            .Attr("adjoint_a: bool = false")
            .Attr("adjoint_b: bool = false")
            .Attr("transpose_output: bool = false")
            .Attr("conjugate_output: bool = false")
            .Kernels("CPU"));
  t.Add(Op("SparseMatrixSparseMatMul")
            .Input("a: variant")
            .Input("b: variant")
            .Output("c: variant")
            .Attr(kType)
            .Attr("transpose_a: bool = false")
            .Attr("transpose_b: bool = false")
            .Attr("adjoint_a: bool = false")
            .Attr("adjoint_b: bool = false")
            .Kernels("CPU"));
  t.Add(Op("SparseMatrixOrderingAMD")
            .Input("input: variant")
            .Output("output: int32")
            .Kernels("CPU"));
  t.Add(Op("SparseMatrixSparseCholesky")
            .Input("input: variant")
            .Input("permutation: int32")
            .Output("output: variant")
            .Attr(kType)
            .Kernels("CPU"));
}

}  // namespace

void RegisterSparseExtOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterCrosses(t);
  RegisterCounts(t);
  RegisterGrads(t);
  RegisterTensorMaps(t);
  RegisterCsrMatrices(t);
  RegisterSparseTensorsMaps(t);
  RegisterCompositeVariants(t);
}

}  // namespace dfg
