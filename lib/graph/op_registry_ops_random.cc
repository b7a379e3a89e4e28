// Op table (part of RegisterSparseOps): the TensorList ops beyond
// create/get/set/push/pop/stack, and the stateless and seeded random ops.
// Signatures as TensorFlow's OpDefs.
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

// tf.random.Generator: the state is an int64 resource variable.
void RegisterStatefulRandom(OpTable& t) {
  t.Add(Op("RngReadAndSkip")
            .Input("resource: resource")
            .Input("alg: int32")
            .Input("delta: uint64")
            .Output("value: int64")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("RngSkip")
            .Input("resource: resource")
            .Input("algorithm: int64")
            .Input("delta: int64")
            .Stateful()
            .Kernels("CPU"));
  const struct {
    const char* name;
    const char* dtype;
  } kOps[] = {{"StatefulUniform", "dtype: type = DT_FLOAT"},
              {"StatefulStandardNormalV2", "dtype: type = DT_FLOAT"},
              {"StatefulTruncatedNormal", "dtype: type = DT_FLOAT"},
              {"StatefulUniformFullInt", "dtype: type = DT_UINT64"}};
  for (const auto& op : kOps) {
    t.Add(Op(op.name)
              .Input("resource: resource")
              .Input("algorithm: int64")
              .Input("shape: shape_dtype")
              .Output("output: dtype")
              .Attr(op.dtype)
              .Attr("shape_dtype: type = DT_INT64")
              .Stateful()
              .Kernels("CPU"));
  }
  t.Add(Op("StatefulUniformInt")
            .Input("resource: resource")
            .Input("algorithm: int64")
            .Input("shape: shape_dtype")
            .Input("minval: dtype")
            .Input("maxval: dtype")
            .Output("output: dtype")
            .Attr("dtype: type = DT_INT64")
            .Attr("shape_dtype: type = DT_INT64")
            .Stateful()
            .Kernels("CPU"));
}

}  // namespace

void RegisterListAndRandomOps(OpTable& t) {
  RegisterMoreTensorLists(t);
  RegisterStatelessRandom(t);
  RegisterStatefulRandom(t);
}

}  // namespace dfg
