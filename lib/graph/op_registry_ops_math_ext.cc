// Op table: the rest of TensorFlow's element-wise math (TruncateMod, the
// bitwise ops, Xlogy and friends), the segment reductions beyond SegmentSum,
// CumulativeLogsumexp, and the small math ops tf.math emits (L2Loss,
// EuclideanNorm, LinSpace, Cross, Bucketize, HistogramFixedWidth,
// Lower/UpperBound, InTopK, TopK). TensorFlow's core/ops/math_ops.cc,
// bitwise_ops.cc, nn_ops.cc, array_ops.cc.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

constexpr const char* kIntTypes =
    "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}";
constexpr const char* kFloatComplex =
    "{half, bfloat16, float, double, complex64, complex128}";

OpBuilder Binary(const char* name, const char* types) {
  OpBuilder op = Op(name);
  op.Input("x: T").Input("y: T").Output("z: T").Attr(std::string("T: ") +
                                                     types);
  return op;
}

void RegisterCwise(OpTable& t) {
  t.Add(Binary("TruncateMod", "{int32, int64, bfloat16, half, float, double}")
            .Kernels("CPU", "GPU"));
  for (const char* name : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
    t.Add(Binary(name, kIntTypes).Commutative().Kernels("CPU", "GPU"));
  for (const char* name : {"LeftShift", "RightShift"})
    t.Add(Binary(name, kIntTypes).Kernels("CPU", "GPU"));
  t.Add(Op("Invert")
            .Input("x: T")
            .Output("y: T")
            .Attr(std::string("T: ") + kIntTypes)
            .Kernels("CPU", "GPU"));
  t.Add(Op("PopulationCount")
            .Input("x: T")
            .Output("y: uint8")
            .Attr(std::string("T: ") + kIntTypes)
            .Kernels("CPU", "GPU"));
  for (const char* name : {"Xdivy", "Xlogy", "Xlog1py"})
    t.Add(Binary(name, kFloatComplex).Kernels("CPU", "GPU"));
  t.Add(Binary("MulNoNan",
               "{bfloat16, half, float, double, complex64, complex128}")
            .Kernels("CPU", "GPU"));
  t.Add(Op("ApproximateEqual")
            .Input("x: T")
            .Input("y: T")
            .Output("z: bool")
            .Attr("T: numbertype")
            .Attr("tolerance: float = 1e-05")
            .Commutative()
            .Kernels("CPU", "GPU"));
  t.Add(Op("NextAfter")
            .Input("x1: T")
            .Input("x2: T")
            .Output("output: T")
            .Attr("T: {double, float} = DT_FLOAT")
            .Kernels("CPU", "GPU"));
}

void RegisterSegments(OpTable& t) {
  for (const char* name :
       {"SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"}) {
    const bool real =
        name == std::string("SegmentMax") || name == std::string("SegmentMin");
    t.Add(Op(name)
              .Input("data: T")
              .Input("segment_ids: Tindices")
              .Output("output: T")
              .Attr(real ? "T: realnumbertype" : "T: numbertype")
              .Attr("Tindices: {int32, int64}")
              .Kernels("CPU", "GPU"));
  }
  for (const char* name :
       {"UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"}) {
    const bool real = name != std::string("UnsortedSegmentProd");
    t.Add(Op(name)
              .Input("data: T")
              .Input("segment_ids: Tindices")
              .Input("num_segments: Tnumsegments")
              .Output("output: T")
              .Attr(real ? "T: realnumbertype" : "T: numbertype")
              .Attr("Tindices: {int32, int64}")
              .Attr("Tnumsegments: {int32, int64} = DT_INT32")
              .Kernels("CPU", "GPU")
              .HostMemory("GPU", "num_segments"));
  }
  t.Add(Op("CumulativeLogsumexp")
            .Input("x: T")
            .Input("axis: Tidx")
            .Output("out: T")
            .Attr("exclusive: bool = false")
            .Attr("reverse: bool = false")
            .Attr("T: {bfloat16, half, float, double}")
            .Attr("Tidx: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "axis"));
}

void RegisterMisc(OpTable& t) {
  t.Add(Op("L2Loss")
            .Input("t: T")
            .Output("output: T")
            .Attr("T: {half, bfloat16, float, double}")
            .Kernels("CPU", "GPU"));
  t.Add(Op("EuclideanNorm")
            .Input("input: T")
            .Input("reduction_indices: Tidx")
            .Output("output: T")
            .Attr("keep_dims: bool = false")
            .Attr("T: numbertype")
            .Attr("Tidx: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "reduction_indices"));
  t.Add(Op("LinSpace")
            .Input("start: T")
            .Input("stop: T")
            .Input("num: Tidx")
            .Output("output: T")
            .Attr("T: {bfloat16, half, float, double}")
            .Attr("Tidx: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "start", "stop", "num"));
  t.Add(Op("Cross")
            .Input("a: T")
            .Input("b: T")
            .Output("product: T")
            .Attr("T: realnumbertype")
            .Kernels("CPU", "GPU"));
  t.Add(Op("Bucketize")
            .Input("input: T")
            .Output("output: int32")
            .Attr("T: {int32, int64, float, double}")
            .Attr("boundaries: list(float)")
            .Kernels("CPU", "GPU"));
  t.Add(Op("HistogramFixedWidth")
            .Input("values: T")
            .Input("value_range: T")
            .Input("nbins: int32")
            .Output("out: dtype")
            .Attr("T: {int32, int64, float, double}")
            .Attr("dtype: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "nbins"));
  for (const char* name : {"LowerBound", "UpperBound"}) {
    t.Add(Op(name)
              .Input("sorted_inputs: T")
              .Input("values: T")
              .Output("output: out_type")
              .Attr("T: type")
              .Attr("out_type: {int32, int64} = DT_INT32")
              .Kernels("CPU", "GPU"));
  }
  t.Add(Op("InTopK")
            .Input("predictions: float")
            .Input("targets: T")
            .Output("precision: bool")
            .Attr("k: int")
            .Attr("T: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU"));
  t.Add(Op("InTopKV2")
            .Input("predictions: float")
            .Input("targets: T")
            .Input("k: T")
            .Output("precision: bool")
            .Attr("T: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "k"));
}

// tf.math.special: unary functions of one float type.
void RegisterSpecial(OpTable& t) {
  for (const char* name :
       {"BesselI0", "BesselI1", "BesselI0e", "BesselI1e", "BesselK0",
        "BesselK1", "BesselK0e", "BesselK1e", "BesselJ0", "BesselJ1",
        "BesselY0", "BesselY1", "Expint"}) {
    t.Add(Op(name)
              .Input("x: T")
              .Output("y: T")
              .Attr("T: {bfloat16, half, float, double}")
              .Kernels("CPU", "GPU"));
  }
}

}  // namespace

void RegisterMathExtOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterCwise(t);
  RegisterSegments(t);
  RegisterMisc(t);
  RegisterSpecial(t);
}

}  // namespace dfg
