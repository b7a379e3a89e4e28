// Op table: shape and layout manipulation (TensorFlow's core/ops/array_ops.cc).
//
// GPU kernels: TensorFlow has them for nearly every array op, with the
// shape-like operands (axes, sizes, paddings...) in host memory, and an
// int32 variant whose every argument is in host memory.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

constexpr const char* kIndexTypes = "{int32, int64} = DT_INT32";

void RegisterReshapes(OpTable& t) {
  t.Add(Op("Reshape")
            .Input("tensor: T")
            .Input("shape: Tshape")
            .Output("output: T")
            .Attr("T: type")
            .Attr(std::string("Tshape: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "shape")
            .Int32OnHost("GPU"));
  t.Add(Op("Squeeze")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr("squeeze_dims: list(int) >= 0 = []")
            .Kernels("CPU", "GPU")
            .Int32OnHost("GPU"));
  t.Add(Op("ExpandDims")
            .Input("input: T")
            .Input("dim: Tdim")
            .Output("output: T")
            .Attr("T: type")
            .Attr(std::string("Tdim: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "dim")
            .Int32OnHost("GPU"));
  t.Add(Op("Transpose")
            .Input("x: T")
            .Input("perm: Tperm")
            .Output("y: T")
            .Attr("T: type")
            .Attr(std::string("Tperm: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "perm"));
  t.Add(Op("InvertPermutation")
            .Input("x: T")
            .Output("y: T")
            .Attr(std::string("T: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "x", "y"));
  t.Add(Op("DepthToSpace")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr("block_size: int >= 2")
            .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
            .Kernels("CPU", "GPU"));
  t.Add(Op("SpaceToDepth")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr("block_size: int >= 2")
            .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
            .Kernels("CPU", "GPU"));
  t.Add(Op("SpaceToBatchND")
            .Input("input: T")
            .Input("block_shape: Tblock_shape")
            .Input("paddings: Tpaddings")
            .Output("output: T")
            .Attr("T: type")
            .Attr(std::string("Tblock_shape: ") + kIndexTypes)
            .Attr(std::string("Tpaddings: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "block_shape", "paddings"));
  t.Add(Op("BatchToSpaceND")
            .Input("input: T")
            .Input("block_shape: Tblock_shape")
            .Input("crops: Tcrops")
            .Output("output: T")
            .Attr("T: type")
            .Attr(std::string("Tblock_shape: ") + kIndexTypes)
            .Attr(std::string("Tcrops: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "block_shape", "crops"));
  // The 4-D forms with one block_size for both spatial dims (TF1 graphs).
  t.Add(Op("SpaceToBatch")
            .Input("input: T")
            .Input("paddings: Tpaddings")
            .Output("output: T")
            .Attr("T: type")
            .Attr(std::string("Tpaddings: ") + kIndexTypes)
            .Attr("block_size: int >= 2")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "paddings"));
  t.Add(Op("BatchToSpace")
            .Input("input: T")
            .Input("crops: Tidx")
            .Output("output: T")
            .Attr("T: type")
            .Attr("block_size: int >= 2")
            .Attr(std::string("Tidx: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "crops"));
}

void RegisterJoinsAndSplits(OpTable& t) {
  t.Add(Op("ConcatV2")
            .Input("values: N * T")
            .Input("axis: Tidx")
            .Output("output: T")
            .Attr("N: int >= 2")
            .Attr("T: type")
            .Attr(std::string("Tidx: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "axis")
            .Int32OnHost("GPU"));
  t.Add(Op("Concat")
            .Input("concat_dim: int32")
            .Input("values: N * T")
            .Output("output: T")
            .Attr("N: int >= 2")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "concat_dim")
            .Int32OnHost("GPU"));
  t.Add(Op("ConcatOffset")
            .Input("concat_dim: int32")
            .Input("shape: N * shape_type")
            .Output("offset: N * shape_type")
            .Attr("N: int >= 2")
            .Attr(std::string("shape_type: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "concat_dim", "shape", "offset"));
  t.Add(Op("Pack")
            .Input("values: N * T")
            .Output("output: T")
            .Attr("N: int >= 1")
            .Attr("T: type")
            .Attr("axis: int = 0")
            .Kernels("CPU", "GPU")
            .Int32OnHost("GPU"));
  t.Add(Op("Unpack")
            .Input("value: T")
            .Output("output: num * T")
            .Attr("num: int >= 0")
            .Attr("T: type")
            .Attr("axis: int = 0")
            .Kernels("CPU", "GPU")
            .Int32OnHost("GPU"));
  t.Add(Op("Split")
            .Input("split_dim: int32")
            .Input("value: T")
            .Output("output: num_split * T")
            .Attr("num_split: int >= 1")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "split_dim"));
  t.Add(Op("SplitV")
            .Input("value: T")
            .Input("size_splits: Tlen")
            .Input("split_dim: int32")
            .Output("output: num_split * T")
            .Attr("num_split: int >= 1")
            .Attr("T: type")
            .Attr("Tlen: {int8, int32, int64} = DT_INT64")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "size_splits", "split_dim"));
  t.Add(Op("Tile")
            .Input("input: T")
            .Input("multiples: Tmultiples")
            .Output("output: T")
            .Attr("T: type")
            .Attr(std::string("Tmultiples: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "multiples"));
}

void RegisterSlicing(OpTable& t) {
  t.Add(Op("Slice")
            .Input("input: T")
            .Input("begin: Index")
            .Input("size: Index")
            .Output("output: T")
            .Attr("T: type")
            .Attr("Index: {int32, int64}")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "begin", "size")
            .Int32OnHost("GPU"));
  const char* kMasks[] = {"begin_mask", "end_mask", "ellipsis_mask",
                          "new_axis_mask", "shrink_axis_mask"};
  OpBuilder strided = Op("StridedSlice");
  strided.Input("input: T")
      .Input("begin: Index")
      .Input("end: Index")
      .Input("strides: Index")
      .Output("output: T")
      .Attr("T: type")
      .Attr("Index: {int16, int32, int64}");
  OpBuilder grad = Op("StridedSliceGrad");
  grad.Input("shape: Index")
      .Input("begin: Index")
      .Input("end: Index")
      .Input("strides: Index")
      .Input("dy: T")
      .Output("output: T")
      .Attr("T: type")
      .Attr("Index: {int32, int64}");
  for (const char* mask : kMasks) {
    strided.Attr(std::string(mask) + ": int = 0");
    grad.Attr(std::string(mask) + ": int = 0");
  }
  t.Add(strided.Kernels("CPU", "GPU")
            .HostMemory("GPU", "begin", "end", "strides")
            .Int32OnHost("GPU"));
  t.Add(grad.Kernels("CPU", "GPU")
            .HostMemory("GPU", "shape", "begin", "end", "strides")
            .Int32OnHost("GPU"));
  t.Add(
      Op("ReverseV2")
          .Input("tensor: T")
          .Input("axis: Tidx")
          .Output("output: T")
          .Attr(std::string("Tidx: ") + kIndexTypes)
          .Attr("T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, "
                "bool, "
                "bfloat16, half, float, double, complex64, complex128, string}")
          .Kernels("CPU", "GPU")
          .HostMemory("GPU", "axis")
          .Int32OnHost("GPU"));
}

void RegisterShapes(OpTable& t) {
  t.Add(Op("Shape")
            .Input("input: T")
            .Output("output: out_type")
            .Attr("T: type")
            .Attr(std::string("out_type: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "output")
            .Int32OnHost("GPU"));
  t.Add(Op("ShapeN")
            .Input("input: N * T")
            .Output("output: N * out_type")
            .Attr("N: int >= 1")
            .Attr("T: type")
            .Attr(std::string("out_type: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "output")
            .Int32OnHost("GPU"));
  t.Add(Op("Size")
            .Input("input: T")
            .Output("output: out_type")
            .Attr("T: type")
            .Attr(std::string("out_type: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "output")
            .Int32OnHost("GPU"));
  t.Add(Op("Rank")
            .Input("input: T")
            .Output("output: int32")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "output")
            .Int32OnHost("GPU"));
  t.Add(Op("BroadcastGradientArgs")
            .Input("s0: T")
            .Input("s1: T")
            .Output("r0: T")
            .Output("r1: T")
            .Attr(std::string("T: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "s0", "s1", "r0", "r1"));
  t.Add(Op("BroadcastTo")
            .Input("input: T")
            .Input("shape: Tidx")
            .Output("output: T")
            .Attr("T: type")
            .Attr(std::string("Tidx: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "shape")
            .Int32OnHost("GPU"));
}

void RegisterFills(OpTable& t) {
  t.Add(Op("Fill")
            .Input("dims: index_type")
            .Input("value: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr(std::string("index_type: ") + kIndexTypes)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "dims")
            .Int32OnHost("GPU"));
  t.Add(Op("ZerosLike")
            .Input("x: T")
            .Output("y: T")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .Int32OnHost("GPU"));
  t.Add(Op("OnesLike")
            .Input("x: T")
            .Output("y: T")
            .Attr("T: {bfloat16, half, float, double, int8, uint8, int16, "
                  "uint16, int32, "
                  "uint32, int64, uint64, complex64, complex128, bool}")
            .Kernels("CPU", "GPU")
            .Int32OnHost("GPU"));
  t.Add(Op("Empty")
            .Input("shape: int32")
            .Output("output: dtype")
            .Attr("dtype: type")
            .Attr("init: bool = false")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "shape")
            .Stateful());
  t.Add(Op("Range")
            .Input("start: Tidx")
            .Input("limit: Tidx")
            .Input("delta: Tidx")
            .Output("output: Tidx")
            .Attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, "
                  "int64, uint16, uint32, uint64} = DT_INT32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "start", "limit", "delta", "output"));
  for (const char* name : {"Pad", "PadV2", "MirrorPad"}) {
    std::string_view op(name);
    OpBuilder pad = Op(name);
    pad.Input("input: T").Input("paddings: Tpaddings");
    if (op == "PadV2") pad.Input("constant_values: T");
    pad.Output("output: T")
        .Attr("T: type")
        .Attr(std::string("Tpaddings: ") + kIndexTypes)
        .Kernels("CPU", "GPU")
        .HostMemory("GPU", "paddings");
    if (op == "PadV2") pad.HostMemory("GPU", "constant_values");
    if (op == "MirrorPad") pad.Attr("mode: {'REFLECT', 'SYMMETRIC'}");
    t.Add(pad);
  }
}

void RegisterGathers(OpTable& t) {
  t.Add(Op("GatherV2")
            .Input("params: Tparams")
            .Input("indices: Tindices")
            .Input("axis: Taxis")
            .Output("output: Tparams")
            .Attr("batch_dims: int = 0")
            .Attr("Tparams: type")
            .Attr("Tindices: {int16, int32, int64}")
            .Attr("Taxis: {int32, int64}")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "axis"));
  t.Add(Op("Gather")
            .Input("params: Tparams")
            .Input("indices: Tindices")
            .Output("output: Tparams")
            .Attr("validate_indices: bool = true")
            .Attr("Tparams: type")
            .Attr("Tindices: {int32, int64}")
            .Kernels("CPU", "GPU"));
  t.Add(Op("GatherNd")
            .Input("params: Tparams")
            .Input("indices: Tindices")
            .Output("output: Tparams")
            .Attr("Tparams: type")
            .Attr("Tindices: {int16, int32, int64}")
            .Attr("bad_indices_policy: string = ''")
            .Kernels("CPU", "GPU"));
  t.Add(Op("OneHot")
            .Input("indices: TI")
            .Input("depth: int32")
            .Input("on_value: T")
            .Input("off_value: T")
            .Output("output: T")
            .Attr("axis: int = -1")
            .Attr("T: type")
            .Attr("TI: {uint8, int8, int32, int64} = DT_INT64")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "depth"));
  t.Add(Op("Unique")
            .Input("x: T")
            .Output("y: T")
            .Output("idx: out_idx")
            .Attr("T: type")
            .Attr("out_idx: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU"));
  t.Add(Op("UniqueV2")
            .Input("x: T")
            .Input("axis: Taxis")
            .Output("y: T")
            .Output("idx: out_idx")
            .Attr("T: type")
            .Attr("Taxis: {int32, int64} = DT_INT64")
            .Attr("out_idx: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU"));
  t.Add(Op("Where")
            .Input("input: T")
            .Output("index: int64")
            .Attr("T: {numbertype, bool} = DT_BOOL")
            .Kernels("CPU", "GPU"));
  for (const char* name : {"Select", "SelectV2"}) {
    t.Add(Op(name)
              .Input("condition: bool")
              .Input("t: T")
              .Input("e: T")
              .Output("output: T")
              .Attr("T: type")
              .Kernels("CPU", "GPU"));
  }
}

void RegisterQuantization(OpTable& t) {
  t.Add(
      Op("QuantizeV2")
          .Input("input: float")
          .Input("min_range: float")
          .Input("max_range: float")
          .Output("output: T")
          .Output("output_min: float")
          .Output("output_max: float")
          .Attr("T: quantizedtype")
          .Attr(
              "mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'")
          .Attr("round_mode: {'HALF_AWAY_FROM_ZERO', 'HALF_TO_EVEN'} = "
                "'HALF_AWAY_FROM_ZERO'")
          .Attr("narrow_range: bool = false")
          .Attr("axis: int = -1")
          .Attr("ensure_minimum_range: float = 0.01")
          .Kernels("CPU"));
  t.Add(
      Op("Dequantize")
          .Input("input: T")
          .Input("min_range: float")
          .Input("max_range: float")
          .Output("output: dtype")
          .Attr("T: quantizedtype")
          .Attr(
              "mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'")
          .Attr("narrow_range: bool = false")
          .Attr("axis: int = -1")
          .Attr("dtype: {bfloat16, float} = DT_FLOAT")
          .Kernels("CPU"));
  t.Add(Op("FakeQuantWithMinMaxVars")
            .Input("inputs: float")
            .Input("min: float")
            .Input("max: float")
            .Output("outputs: float")
            .Attr("num_bits: int = 8")
            .Attr("narrow_range: bool = false")
            .Kernels("CPU", "GPU"));
  t.Add(Op("FakeQuantWithMinMaxArgs")
            .Input("inputs: float")
            .Output("outputs: float")
            .Attr("min: float = -6.0")
            .Attr("max: float = 6.0")
            .Attr("num_bits: int = 8")
            .Attr("narrow_range: bool = false")
            .Kernels("CPU", "GPU"));
}

}  // namespace

void RegisterArrayOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterReshapes(t);
  RegisterJoinsAndSplits(t);
  RegisterSlicing(t);
  RegisterShapes(t);
  RegisterFills(t);
  RegisterGathers(t);
  RegisterQuantization(t);
}

}  // namespace dfg
