// Op table: sparse (indices, values, dense_shape) and ragged (row_splits,
// values) ops; with op_registry_ops_random.cc, the TensorList ops beyond
// create/get/set/push/pop/stack and the stateless and seeded random ops.
// Signatures as TensorFlow's OpDefs.
#include <string>

#include "lib/graph/op_registry_builder.h"

namespace dfg {

// op_registry_ops_random.cc.
void RegisterListAndRandomOps(OpTable& t);

namespace {

void RegisterSparseTensorOps(OpTable& t) {
  t.Add(Op("SparseToDense")
            .Input("sparse_indices: Tindices")
            .Input("output_shape: Tindices")
            .Input("sparse_values: T")
            .Input("default_value: T")
            .Output("dense: T")
            .Attr("validate_indices: bool = true")
            .Attr("T: type")
            .Attr("Tindices: {int32, int64}")
            .Kernels("CPU"));
  t.Add(Op("SparseReshape")
            .Input("input_indices: int64")
            .Input("input_shape: int64")
            .Input("new_shape: int64")
            .Output("output_indices: int64")
            .Output("output_shape: int64")
            .Kernels("CPU"));
  t.Add(Op("SparseReorder")
            .Input("input_indices: int64")
            .Input("input_values: T")
            .Input("input_shape: int64")
            .Output("output_indices: int64")
            .Output("output_values: T")
            .Attr("T: type")
            .Kernels("CPU"));
  t.Add(Op("SparseFillEmptyRows")
            .Input("indices: int64")
            .Input("values: T")
            .Input("dense_shape: int64")
            .Input("default_value: T")
            .Output("output_indices: int64")
            .Output("output_values: T")
            .Output("empty_row_indicator: bool")
            .Output("reverse_index_map: int64")
            .Attr("T: type")
            .Kernels("CPU"));
  t.Add(Op("SparseFillEmptyRowsGrad")
            .Input("reverse_index_map: int64")
            .Input("grad_values: T")
            .Output("d_values: T")
            .Output("d_default_value: T")
            .Attr("T: type")
            .Kernels("CPU"));
  t.Add(Op("SparseTensorDenseAdd")
            .Input("a_indices: Tindices")
            .Input("a_values: T")
            .Input("a_shape: Tindices")
            .Input("b: T")
            .Output("output: T")
            .Attr("T: numbertype")
            .Attr("Tindices: {int32, int64}")
            .Kernels("CPU"));
}

void RegisterSparseSegments(OpTable& t) {
  const struct {
    const char* name;
    const char* types;
  } kOps[] = {{"SparseSegmentSum", "realnumbertype"},
              {"SparseSegmentMean", "{bfloat16, half, float, double}"},
              {"SparseSegmentSqrtN", "{bfloat16, half, float, double}"}};
  for (const auto& op : kOps) {
    const std::string t_attr = std::string("T: ") + op.types;
    t.Add(Op(op.name)
              .Input("data: T")
              .Input("indices: Tidx")
              .Input("segment_ids: Tsegmentids")
              .Output("output: T")
              .Attr(t_attr)
              .Attr("Tidx: {int32, int64} = DT_INT32")
              .Attr("Tsegmentids: {int32, int64} = DT_INT32")
              .Attr("sparse_gradient: bool = false")
              .Kernels("CPU"));
    t.Add(Op(std::string(op.name) + "WithNumSegments")
              .Input("data: T")
              .Input("indices: Tidx")
              .Input("segment_ids: Tsegmentids")
              .Input("num_segments: Tnumsegments")
              .Output("output: T")
              .Attr(t_attr)
              .Attr("Tidx: {int32, int64} = DT_INT32")
              .Attr("Tnumsegments: {int32, int64} = DT_INT32")
              .Attr("Tsegmentids: {int32, int64} = DT_INT32")
              .Attr("sparse_gradient: bool = false")
              .Kernels("CPU"));
  }
  for (const char* name : {"SparseSegmentSumGrad", "SparseSegmentMeanGrad",
                           "SparseSegmentSqrtNGrad"}) {
    t.Add(Op(name)
              .Input("grad: T")
              .Input("indices: Tidx")
              .Input("segment_ids: Tsegmentids")
              .Input("output_dim0: int32")
              .Output("output: T")
              .Attr("T: {bfloat16, half, float, double}")
              .Attr("Tidx: {int32, int64} = DT_INT32")
              .Attr("Tsegmentids: {int32, int64} = DT_INT32")
              .Kernels("CPU"));
  }
}

void RegisterSparseMath(OpTable& t) {
  t.Add(Op("SparseTensorDenseMatMul")
            .Input("a_indices: Tindices")
            .Input("a_values: T")
            .Input("a_shape: int64")
            .Input("b: T")
            .Output("product: T")
            .Attr("T: type")
            .Attr("Tindices: {int32, int64} = DT_INT64")
            .Attr("adjoint_a: bool = false")
            .Attr("adjoint_b: bool = false")
            .Kernels("CPU"));
  for (const char* name :
       {"SparseDenseCwiseAdd", "SparseDenseCwiseMul", "SparseDenseCwiseDiv"}) {
    t.Add(Op(name)
              .Input("sp_indices: int64")
              .Input("sp_values: T")
              .Input("sp_shape: int64")
              .Input("dense: T")
              .Output("output: T")
              .Attr("T: numbertype")
              .Kernels("CPU"));
  }
  for (const char* name : {"SparseReduceSum", "SparseReduceMax"}) {
    const char* types = name == std::string("SparseReduceSum")
                            ? "T: numbertype"
                            : "T: realnumbertype";
    t.Add(Op(name)
              .Input("input_indices: int64")
              .Input("input_values: T")
              .Input("input_shape: int64")
              .Input("reduction_axes: int32")
              .Output("output: T")
              .Attr("keep_dims: bool = false")
              .Attr(types)
              .Kernels("CPU"));
    t.Add(Op(std::string(name) + "Sparse")
              .Input("input_indices: int64")
              .Input("input_values: T")
              .Input("input_shape: int64")
              .Input("reduction_axes: int32")
              .Output("output_indices: int64")
              .Output("output_values: T")
              .Output("output_shape: int64")
              .Attr("keep_dims: bool = false")
              .Attr(types)
              .Kernels("CPU"));
  }
  t.Add(Op("SparseSoftmax")
            .Input("sp_indices: int64")
            .Input("sp_values: T")
            .Input("sp_shape: int64")
            .Output("output: T")
            .Attr("T: {half, float, double}")
            .Kernels("CPU"));
  t.Add(Op("SparseAdd")
            .Input("a_indices: int64")
            .Input("a_values: T")
            .Input("a_shape: int64")
            .Input("b_indices: int64")
            .Input("b_values: T")
            .Input("b_shape: int64")
            .Input("thresh: Treal")
            .Output("sum_indices: int64")
            .Output("sum_values: T")
            .Output("sum_shape: int64")
            .Attr("T: numbertype")
            .Attr("Treal: realnumbertype")
            .Kernels("CPU"));
  for (const char* name : {"SparseSparseMaximum", "SparseSparseMinimum"}) {
    t.Add(Op(name)
              .Input("a_indices: int64")
              .Input("a_values: T")
              .Input("a_shape: int64")
              .Input("b_indices: int64")
              .Input("b_values: T")
              .Input("b_shape: int64")
              .Output("output_indices: int64")
              .Output("output_values: T")
              .Attr(name == std::string("SparseSparseMaximum")
                        ? "T: realnumbertype"
                        : "T: numbertype")
              .Kernels("CPU"));
  }
  t.Add(Op("SparseSlice")
            .Input("indices: int64")
            .Input("values: T")
            .Input("shape: int64")
            .Input("start: int64")
            .Input("size: int64")
            .Output("output_indices: int64")
            .Output("output_values: T")
            .Output("output_shape: int64")
            .Attr("T: type")
            .Kernels("CPU"));
  t.Add(Op("SparseConcat")
            .Input("indices: N * int64")
            .Input("values: N * T")
            .Input("shapes: N * int64")
            .Output("output_indices: int64")
            .Output("output_values: T")
            .Output("output_shape: int64")
            .Attr("concat_dim: int")
            .Attr("N: int >= 2")
            .Attr("T: type")
            .Kernels("CPU"));
}

void RegisterRagged(OpTable& t) {
  t.Add(Op("RaggedRange")
            .Input("starts: T")
            .Input("limits: T")
            .Input("deltas: T")
            .Output("rt_nested_splits: Tsplits")
            .Output("rt_dense_values: T")
            .Attr("T: {bfloat16, float, double, int32, int64} = DT_INT32")
            .Attr("Tsplits: {int32, int64} = DT_INT64")
            .Kernels("CPU"));
  t.Add(Op("RaggedGather")
            .Input("params_nested_splits: PARAMS_RAGGED_RANK * Tsplits")
            .Input("params_dense_values: Tvalues")
            .Input("indices: Tindices")
            .Output("output_nested_splits: OUTPUT_RAGGED_RANK * Tsplits")
            .Output("output_dense_values: Tvalues")
            .Attr("Tvalues: type")
            .Attr("Tindices: {int32, int64}")
            .Attr("Tsplits: {int32, int64} = DT_INT64")
            .Attr("PARAMS_RAGGED_RANK: int >= 1")
            .Attr("OUTPUT_RAGGED_RANK: int >= 0")
            .Kernels("CPU"));
  t.Add(Op("RaggedFillEmptyRows")
            .Input("value_rowids: int64")
            .Input("values: T")
            .Input("nrows: int64")
            .Input("default_value: T")
            .Output("output_value_rowids: int64")
            .Output("output_values: T")
            .Output("empty_row_indicator: bool")
            .Output("reverse_index_map: int64")
            .Attr("T: type")
            .Kernels("CPU"));
  t.Add(Op("RaggedTensorToVariant")
            .Input("rt_nested_splits: RAGGED_RANK * Tsplits")
            .Input("rt_dense_values: Tvalues")
            .Output("encoded_ragged: variant")
            .Attr("RAGGED_RANK: int >= 0")
            .Attr("Tvalues: type")
            .Attr("Tsplits: {int32, int64} = DT_INT64")
            .Attr("batched_input: bool")
            .Kernels("CPU"));
  t.Add(Op("RaggedTensorFromVariant")
            .Input("encoded_ragged: variant")
            .Output("output_nested_splits: output_ragged_rank * Tsplits")
            .Output("output_dense_values: Tvalues")
            .Attr("input_ragged_rank: int >= -1")
            .Attr("output_ragged_rank: int >= 0")
            .Attr("Tvalues: type")
            .Attr("Tsplits: {int32, int64} = DT_INT64")
            .Kernels("CPU"));
}

void RegisterSparseExtra(OpTable& t) {
  t.Add(Op("SparseSplit")
            .Input("split_dim: int64")
            .Input("indices: int64")
            .Input("values: T")
            .Input("shape: int64")
            .Output("output_indices: num_split * int64")
            .Output("output_values: num_split * T")
            .Output("output_shape: num_split * int64")
            .Attr("num_split: int >= 1")
            .Attr("T: type")
            .Kernels("CPU"));
  t.Add(Op("SparseMatMul")
            .Input("a: Ta")
            .Input("b: Tb")
            .Output("product: float")
            .Attr("transpose_a: bool = false")
            .Attr("transpose_b: bool = false")
            .Attr("a_is_sparse: bool = false")
            .Attr("b_is_sparse: bool = false")
            .Attr("Ta: {float, bfloat16} = DT_FLOAT")
            .Attr("Tb: {float, bfloat16} = DT_FLOAT")
            .Kernels("CPU"));
  t.Add(Op("EditDistance")
            .Input("hypothesis_indices: int64")
            .Input("hypothesis_values: T")
            .Input("hypothesis_shape: int64")
            .Input("truth_indices: int64")
            .Input("truth_values: T")
            .Input("truth_shape: int64")
            .Output("output: float")
            .Attr("normalize: bool = true")
            .Attr("T: type")
            .Kernels("CPU"));
  t.Add(Op("SetSize")
            .Input("set_indices: int64")
            .Input("set_values: T")
            .Input("set_shape: int64")
            .Output("size: int32")
            .Attr("validate_indices: bool = true")
            .Attr("T: {int8, int16, int32, int64, uint8, uint16, string}")
            .Kernels("CPU"));
}

void RegisterSparseSerialize(OpTable& t) {
  for (const char* name : {"SerializeSparse", "SerializeManySparse"}) {
    t.Add(Op(name)
              .Input("sparse_indices: int64")
              .Input("sparse_values: T")
              .Input("sparse_shape: int64")
              .Output("serialized_sparse: out_type")
              .Attr("T: type")
              .Attr("out_type: {string, variant} = DT_STRING")
              .Kernels("CPU"));
  }
  t.Add(Op("DeserializeSparse")
            .Input("serialized_sparse: Tserialized")
            .Output("sparse_indices: int64")
            .Output("sparse_values: dtype")
            .Output("sparse_shape: int64")
            .Attr("dtype: type")
            .Attr("Tserialized: {string, variant} = DT_STRING")
            .Kernels("CPU"));
  t.Add(Op("DeserializeManySparse")
            .Input("serialized_sparse: string")
            .Output("sparse_indices: int64")
            .Output("sparse_values: dtype")
            .Output("sparse_shape: int64")
            .Attr("dtype: type")
            .Kernels("CPU"));
}

void RegisterSetOps(OpTable& t) {
  constexpr const char* kT =
      "T: {int8, int16, int32, int64, uint8, uint16, string}";
  t.Add(Op("DenseToDenseSetOperation")
            .Input("set1: T")
            .Input("set2: T")
            .Output("result_indices: int64")
            .Output("result_values: T")
            .Output("result_shape: int64")
            .Attr("set_operation: string")
            .Attr("validate_indices: bool = true")
            .Attr(kT)
            .Kernels("CPU"));
  t.Add(Op("DenseToSparseSetOperation")
            .Input("set1: T")
            .Input("set2_indices: int64")
            .Input("set2_values: T")
            .Input("set2_shape: int64")
            .Output("result_indices: int64")
            .Output("result_values: T")
            .Output("result_shape: int64")
            .Attr("set_operation: string")
            .Attr("validate_indices: bool = true")
            .Attr(kT)
            .Kernels("CPU"));
  t.Add(Op("SparseToSparseSetOperation")
            .Input("set1_indices: int64")
            .Input("set1_values: T")
            .Input("set1_shape: int64")
            .Input("set2_indices: int64")
            .Input("set2_values: T")
            .Input("set2_shape: int64")
            .Output("result_indices: int64")
            .Output("result_values: T")
            .Output("result_shape: int64")
            .Attr("set_operation: string")
            .Attr("validate_indices: bool = true")
            .Attr(kT)
            .Kernels("CPU"));
}

}  // namespace

void RegisterSparseOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterListAndRandomOps(t);
  RegisterSparseTensorOps(t);
  RegisterSparseSegments(t);
  RegisterSparseMath(t);
  RegisterRagged(t);
  RegisterSparseExtra(t);
  RegisterSparseSerialize(t);
  RegisterSetOps(t);
}

}  // namespace dfg
