// Op table: array ops the array table lacks (TensorFlow's core/ops/array_ops.cc
// and nn_ops.cc): reversals and rolls, partitions and set differences,
// in-place row updates, bitcasts and data-format maps.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

// Ops that move elements.
void RegisterReorderings(OpTable& t) {
  t.Add(Op("Reverse")
            .Input("tensor: T")
            .Input("dims: bool")
            .Output("output: T")
            .Attr("T: {uint8, int8, uint16, int16, uint32, int32, uint64, "
                  "int64, bool, bfloat16, half, float, double, complex64, "
                  "complex128, string}")
            .Kernels("CPU", "GPU"));
  t.Add(Op("ReverseSequence")
            .Input("input: T")
            .Input("seq_lengths: Tlen")
            .Output("output: T")
            .Attr("seq_dim: int")
            .Attr("batch_dim: int = 0")
            .Attr("T: type")
            .Attr("Tlen: {int32, int64} = DT_INT64")
            .Kernels("CPU", "GPU"));
  t.Add(Op("Roll")
            .Input("input: T")
            .Input("shift: Tshift")
            .Input("axis: Taxis")
            .Output("output: T")
            .Attr("T: type")
            .Attr("Tshift: {int32, int64}")
            .Attr("Taxis: {int32, int64}")
            .Kernels("CPU", "GPU"));
  t.Add(Op("ConjugateTranspose")
            .Input("x: T")
            .Input("perm: Tperm")
            .Output("y: T")
            .Attr("T: type")
            .Attr("Tperm: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU"));
  t.Add(Op("MirrorPadGrad")
            .Input("input: T")
            .Input("paddings: Tpaddings")
            .Output("output: T")
            .Attr("T: type")
            .Attr("Tpaddings: {int32, int64} = DT_INT32")
            .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
            .Kernels("CPU", "GPU"));
  t.Add(Op("NthElement")
            .Input("input: T")
            .Input("n: int32")
            .Output("values: T")
            .Attr("reverse: bool = false")
            .Attr("T: realnumbertype")
            .Kernels("CPU"));
}

// Ops that pick or update rows.
void RegisterSelections(OpTable& t) {
  t.Add(Op("DynamicPartition")
            .Input("data: T")
            .Input("partitions: int32")
            .Output("outputs: num_partitions * T")
            .Attr("num_partitions: int >= 1")
            .Attr("T: type")
            .Kernels("CPU", "GPU"));
  t.Add(Op("ListDiff")
            .Input("x: T")
            .Input("y: T")
            .Output("out: T")
            .Output("idx: out_idx")
            .Attr("T: type")
            .Attr("out_idx: {int32, int64} = DT_INT32")
            .Kernels("CPU"));
  t.Add(Op("UnravelIndex")
            .Input("indices: Tidx")
            .Input("dims: Tidx")
            .Output("output: Tidx")
            .Attr("Tidx: {int32, int64} = DT_INT32")
            .Kernels("CPU"));
  t.Add(Op("UniqueWithCounts")
            .Input("x: T")
            .Output("y: T")
            .Output("idx: out_idx")
            .Output("count: out_idx")
            .Attr("T: type")
            .Attr("out_idx: {int32, int64} = DT_INT32")
            .Kernels("CPU"));
  t.Add(Op("UniqueWithCountsV2")
            .Input("x: T")
            .Input("axis: Taxis")
            .Output("y: T")
            .Output("idx: out_idx")
            .Output("count: out_idx")
            .Attr("T: type")
            .Attr("Taxis: {int32, int64} = DT_INT64")
            .Attr("out_idx: {int32, int64} = DT_INT32")
            .Kernels("CPU"));
  for (const char* name : {"InplaceAdd", "InplaceSub", "InplaceUpdate"}) {
    t.Add(Op(name)
              .Input("x: T")
              .Input("i: int32")
              .Input("v: T")
              .Output("y: T")
              .Attr("T: type")
              .Kernels("CPU", "GPU"));
  }
}

// Shapes, types, data formats and pass-through ops.
void RegisterShapesAndPlumbing(OpTable& t) {
  t.Add(Op("BroadcastArgs")
            .Input("s0: T")
            .Input("s1: T")
            .Output("r0: T")
            .Attr("T: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU"));
  t.Add(Op("Bitcast")
            .Input("input: T")
            .Output("output: type")
            .Attr("T: {bfloat16, half, float, double, int64, int32, uint8, "
                  "uint16, uint32, uint64, int8, int16, complex64, complex128, "
                  "qint8, quint8, qint16, quint16, qint32}")
            .Attr("type: {bfloat16, half, float, double, int64, int32, uint8, "
                  "uint16, uint32, uint64, int8, int16, complex64, complex128, "
                  "qint8, quint8, qint16, quint16, qint32}")
            .Kernels("CPU", "GPU"));
  t.Add(Op("EnsureShape")
            .Input("input: T")
            .Output("output: T")
            .Attr("shape: shape")
            .Attr("T: type")
            .Kernels("CPU", "GPU"));
  for (const char* name : {"DataFormatDimMap", "DataFormatVecPermute"}) {
    t.Add(Op(name)
              .Input("x: T")
              .Output("y: T")
              .Attr("T: {int32, int64} = DT_INT32")
              .Attr("src_format: string = 'NHWC'")
              .Attr("dst_format: string = 'NCHW'")
              .Kernels("CPU", "GPU"));
  }
  t.Add(Op("GuaranteeConst")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: type")
            .Stateful()
            .Kernels("CPU", "GPU"));
  t.Add(Op("DeepCopy")
            .Input("x: T")
            .Output("y: T")
            .Attr("T: type")
            .Stateful()
            .Kernels("CPU", "GPU"));
  t.Add(Op("ToBool")
            .Input("input: T")
            .Output("output: bool")
            .Attr("T: type")
            .Kernels("CPU", "GPU"));
}

// Ops that write into slices or rows of a tensor.
void RegisterSliceWrites(OpTable& t) {
  t.Add(Op("TensorStridedSliceUpdate")
            .Input("input: T")
            .Input("begin: Index")
            .Input("end: Index")
            .Input("strides: Index")
            .Input("value: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr("Index: {int32, int64}")
            .Attr("begin_mask: int = 0")
            .Attr("end_mask: int = 0")
            .Attr("ellipsis_mask: int = 0")
            .Attr("new_axis_mask: int = 0")
            .Attr("shrink_axis_mask: int = 0")
            .Kernels("CPU", "GPU"));
  t.Add(Op("StridedSliceAssign")
            .Input("ref: Ref(T)")
            .Input("begin: Index")
            .Input("end: Index")
            .Input("strides: Index")
            .Input("value: T")
            .Output("output_ref: Ref(T)")
            .Attr("T: type")
            .Attr("Index: {int32, int64}")
            .Attr("begin_mask: int = 0")
            .Attr("end_mask: int = 0")
            .Attr("ellipsis_mask: int = 0")
            .Attr("new_axis_mask: int = 0")
            .Attr("shrink_axis_mask: int = 0")
            .Kernels("CPU", "GPU"));
  t.Add(Op("ResourceStridedSliceAssign")
            .Input("ref: resource")
            .Input("begin: Index")
            .Input("end: Index")
            .Input("strides: Index")
            .Input("value: T")
            .Attr("T: type")
            .Attr("Index: {int32, int64}")
            .Attr("begin_mask: int = 0")
            .Attr("end_mask: int = 0")
            .Attr("ellipsis_mask: int = 0")
            .Attr("new_axis_mask: int = 0")
            .Attr("shrink_axis_mask: int = 0")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "ref"));
  t.Add(Op("ParallelConcat")
            .Input("values: N * T")
            .Output("output: T")
            .Attr("N: int >= 1")
            .Attr("T: type")
            .Attr("shape: shape")
            .Kernels("CPU", "GPU"));
  t.Add(Op("_ParallelConcatStart")
            .Output("output: dtype")
            .Attr("shape: shape")
            .Attr("dtype: type")
            .Stateful()
            .Kernels("CPU", "GPU"));
  t.Add(Op("_ParallelConcatUpdate")
            .Input("value: T")
            .Input("update: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr("loc: int")
            .Kernels("CPU", "GPU"));
}

}  // namespace

void RegisterArrayExtOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterReorderings(t);
  RegisterSelections(t);
  RegisterShapesAndPlumbing(t);
  RegisterSliceWrites(t);
}

}  // namespace dfg
