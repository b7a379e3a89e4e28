// Op table: the TensorList ops beyond create/get/set/push/pop/stack, the
// stateless and seeded random ops, sparse (indices, values, dense_shape)
// and ragged (values, row_splits) ops. Signatures as TensorFlow's OpDefs.
#include <string>

#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

void RegisterMoreTensorLists(OpTable& t) {
  t.Add(Op("TensorListConcatV2")
            .Input("input_handle: variant")
            .Input("element_shape: shape_type")
            .Input("leading_dims: int64")
            .Output("tensor: element_dtype")
            .Output("lengths: int64")
            .Attr("element_dtype: type")
            .Attr("shape_type: {int32, int64}")
            .Kernels("CPU"));
  t.Add(Op("TensorListConcat")
            .Input("input_handle: variant")
            .Output("tensor: element_dtype")
            .Output("lengths: int64")
            .Attr("element_dtype: type")
            .Attr("element_shape: shape = { unknown_rank: true }")
            .Kernels("CPU"));
  t.Add(Op("TensorListGather")
            .Input("input_handle: variant")
            .Input("indices: int32")
            .Input("element_shape: int32")
            .Output("values: element_dtype")
            .Attr("element_dtype: type")
            .Kernels("CPU"));
  t.Add(Op("TensorListScatter")
            .Input("tensor: element_dtype")
            .Input("indices: int32")
            .Input("element_shape: shape_type")
            .Output("output_handle: variant")
            .Attr("element_dtype: type")
            .Attr("shape_type: {int32, int64}")
            .Kernels("CPU"));
  t.Add(Op("TensorListScatterV2")
            .Input("tensor: element_dtype")
            .Input("indices: int32")
            .Input("element_shape: shape_type")
            .Input("num_elements: int32")
            .Output("output_handle: variant")
            .Attr("element_dtype: type")
            .Attr("shape_type: {int32, int64}")
            .Kernels("CPU"));
  t.Add(Op("TensorListScatterIntoExistingList")
            .Input("input_handle: variant")
            .Input("tensor: element_dtype")
            .Input("indices: int32")
            .Output("output_handle: variant")
            .Attr("element_dtype: type")
            .Kernels("CPU"));
  t.Add(Op("TensorListSplit")
            .Input("tensor: element_dtype")
            .Input("element_shape: shape_type")
            .Input("lengths: int64")
            .Output("output_handle: variant")
            .Attr("element_dtype: type")
            .Attr("shape_type: {int32, int64}")
            .Kernels("CPU"));
  t.Add(Op("TensorListResize")
            .Input("input_handle: variant")
            .Input("size: int32")
            .Output("output_handle: variant")
            .Kernels("CPU"));
  t.Add(Op("TensorListConcatLists")
            .Input("input_a: variant")
            .Input("input_b: variant")
            .Output("output: variant")
            .Attr("element_dtype: type")
            .Kernels("CPU"));
  t.Add(Op("TensorListPushBackBatch")
            .Input("input_handles: variant")
            .Input("tensor: element_dtype")
            .Output("output_handles: variant")
            .Attr("element_dtype: type")
            .Kernels("CPU"));
}

void RegisterStatelessRandom(OpTable& t) {
  constexpr const char* kFloats = "{half, bfloat16, float, double} = DT_FLOAT";
  for (const char* name : {"StatelessRandomUniform", "StatelessRandomNormal",
                           "StatelessTruncatedNormal"}) {
    t.Add(Op(name)
              .Input("shape: T")
              .Input("seed: Tseed")
              .Output("output: dtype")
              .Attr(std::string("dtype: ") + kFloats)
              .Attr("T: {int32, int64} = DT_INT32")
              .Attr("Tseed: {int32, int64} = DT_INT64")
              .Kernels("CPU"));
  }
  t.Add(Op("StatelessRandomUniformInt")
            .Input("shape: T")
            .Input("seed: Tseed")
            .Input("minval: dtype")
            .Input("maxval: dtype")
            .Output("output: dtype")
            .Attr("dtype: {int32, int64}")
            .Attr("T: {int32, int64}")
            .Attr("Tseed: {int32, int64} = DT_INT64")
            .Kernels("CPU"));
  t.Add(Op("StatelessRandomUniformFullInt")
            .Input("shape: T")
            .Input("seed: Tseed")
            .Output("output: dtype")
            .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
            .Attr("T: {int32, int64} = DT_INT32")
            .Attr("Tseed: {int32, int64, uint32, uint64} = DT_INT64")
            .Kernels("CPU"));
  for (const char* name :
       {"StatelessRandomUniformV2", "StatelessRandomNormalV2",
        "StatelessTruncatedNormalV2"}) {
    t.Add(Op(name)
              .Input("shape: Tshape")
              .Input("key: uint64")
              .Input("counter: uint64")
              .Input("alg: int32")
              .Output("output: dtype")
              .Attr(std::string("dtype: ") + kFloats)
              .Attr("Tshape: {int32, int64} = DT_INT32")
              .Kernels("CPU"));
  }
  t.Add(Op("StatelessRandomUniformIntV2")
            .Input("shape: Tshape")
            .Input("key: uint64")
            .Input("counter: uint64")
            .Input("alg: int32")
            .Input("minval: dtype")
            .Input("maxval: dtype")
            .Output("output: dtype")
            .Attr("dtype: {int32, int64, uint32, uint64}")
            .Attr("Tshape: {int32, int64} = DT_INT32")
            .Kernels("CPU"));
  t.Add(Op("StatelessRandomUniformFullIntV2")
            .Input("shape: Tshape")
            .Input("key: uint64")
            .Input("counter: uint64")
            .Input("alg: int32")
            .Output("output: dtype")
            .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
            .Attr("Tshape: {int32, int64} = DT_INT32")
            .Kernels("CPU"));
  t.Add(Op("StatelessRandomGetKeyCounter")
            .Input("seed: Tseed")
            .Output("key: uint64")
            .Output("counter: uint64")
            .Attr("Tseed: {int32, int64} = DT_INT64")
            .Kernels("CPU"));
  t.Add(Op("StatelessRandomGetKeyCounterAlg")
            .Input("seed: Tseed")
            .Output("key: uint64")
            .Output("counter: uint64")
            .Output("alg: int32")
            .Attr("Tseed: {int32, int64} = DT_INT64")
            .Kernels("CPU"));
  t.Add(Op("StatelessRandomGetAlg")
            .Output("alg: int32")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("StatelessShuffle")
            .Input("value: T")
            .Input("key: uint64")
            .Input("counter: uint64")
            .Input("alg: int32")
            .Output("output: T")
            .Attr("T: type")
            .Kernels("CPU"));
  t.Add(Op("RandomShuffle")
            .Input("value: T")
            .Output("output: T")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Attr("T: type")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("StatelessMultinomial")
            .Input("logits: T")
            .Input("num_samples: int32")
            .Input("seed: Tseed")
            .Output("output: output_dtype")
            .Attr("T: realnumbertype")
            .Attr("Tseed: {int32, int64} = DT_INT64")
            .Attr("output_dtype: {int32, int64} = DT_INT64")
            .Kernels("CPU"));
}

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

}  // namespace

void RegisterSparseOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterMoreTensorLists(t);
  RegisterStatelessRandom(t);
  RegisterSparseTensorOps(t);
  RegisterSparseSegments(t);
  RegisterSparseMath(t);
  RegisterRagged(t);
}

}  // namespace dfg
