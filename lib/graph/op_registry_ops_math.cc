// Op table: element-wise math, matrix products, reductions, scans and the
// quantized math of uTensor-style graphs (TensorFlow's core/ops/math_ops.cc,
// linalg_ops.cc for Einsum).
//
// GPU kernels: TensorFlow's GPU cwise kernels cover the float types, int64
// and complex, plus an int32 variant that runs on the host ("Int32OnHost").
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

// TensorFlow's UNARY(), UNARY_COMPLEX(), UNARY_REAL() type lists.
constexpr const char* kUnary =
    "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
    "complex128}";
constexpr const char* kUnaryComplex =
    "{bfloat16, half, float, double, complex64, complex128}";
constexpr const char* kUnaryReal = "{bfloat16, half, float, double}";
// BINARY_MORE().
constexpr const char* kBinaryMore =
    "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
    "uint32, uint64, "
    "int64, complex64, complex128}";
constexpr const char* kGpuFloatComplex =
    "{half, bfloat16, float, double, complex64, complex128}";

OpBuilder Unary(const char* name, const char* types) {
  OpBuilder op = Op(name);
  op.Input("x: T")
      .Output("y: T")
      .Attr(std::string("T: ") + types)
      .Kernels("CPU", "GPU");
  return op;
}

OpBuilder Binary(const char* name, const char* types,
                 const char* out = "z: T") {
  OpBuilder op = Op(name);
  op.Input("x: T")
      .Input("y: T")
      .Output(out)
      .Attr(std::string("T: ") + types)
      .Kernels("CPU", "GPU");
  return op;
}

void RegisterUnary(OpTable& t) {
  for (const char* name : {"Neg", "Inv", "Reciprocal", "Round"})
    t.Add(Unary(name, kUnary).Int32OnHost("GPU"));
  for (const char* name : {"Tan", "Asin", "Acos", "Atan"})
    t.Add(Unary(name, kGpuFloatComplex).Int32OnHost("GPU"));
  t.Add(Unary("Square",
              "{bfloat16, half, float, double, int8, int16, int32, int64, "
              "uint8, uint16, "
              "uint32, uint64, complex64, complex128}")
            .Int32OnHost("GPU"));
  t.Add(
      Unary("Abs", "{bfloat16, half, float, double, int8, int16, int32, int64}")
          .Int32OnHost("GPU"));
  t.Add(Unary("Sign",
              "{bfloat16, half, float, double, int8, int16, int32, int64, "
              "complex64, "
              "complex128}")
            .Int32OnHost("GPU"));
  for (const char* name :
       {"Sqrt", "Rsqrt", "Exp", "Expm1", "Log", "Log1p", "Sinh", "Cosh", "Tanh",
        "Asinh", "Acosh", "Atanh", "Sigmoid", "Sin", "Cos"})
    t.Add(Unary(name, kUnaryComplex));
  for (const char* name : {"Lgamma", "Digamma", "Erf", "Erfc", "Erfinv",
                           "Ndtri", "Floor", "Ceil", "Rint"})
    t.Add(Unary(name, kUnaryReal));
  for (const char* name : {"IsNan", "IsInf", "IsFinite"}) {
    t.Add(Op(name)
              .Input("x: T")
              .Output("y: bool")
              .Attr(std::string("T: ") + kUnaryReal)
              .Kernels("CPU", "GPU"));
  }
  for (const char* name : {"TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad",
                           "ReciprocalGrad", "InvGrad"}) {
    t.Add(Op(name)
              .Input("y: T")
              .Input("dy: T")
              .Output("z: T")
              .Attr(std::string("T: ") + kUnaryComplex)
              .Kernels("CPU", "GPU"));
  }
  t.Add(Op("LogicalNot")
            .Input("x: bool")
            .Output("y: bool")
            .Kernels("CPU", "GPU"));
}

void RegisterBinary(OpTable& t) {
  t.Add(Binary(
            "Add",
            "{bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
            "complex64, complex128, string}")
            .KernelTypes("GPU", "T",
                         "{bfloat16, half, float, double, uint8, int8, int16, "
                         "int32, int64, "
                         "complex64, complex128}")
            .Int32OnHost("GPU"));
  t.Add(Binary("AddV2",
               "{bfloat16, half, float, double, uint8, uint16, uint32, uint64, "
               "int8, int16, "
               "int32, int64, complex64, complex128}")
            .Aggregate()
            .Commutative()
            .Int32OnHost("GPU"));
  t.Add(Binary("Sub",
               "{bfloat16, half, float, double, uint8, int8, uint16, int16, "
               "int32, int64, "
               "complex64, complex128, uint32, uint64}")
            .Int32OnHost("GPU"));
  t.Add(Binary("Mul", kBinaryMore).Commutative().Int32OnHost("GPU"));
  for (const char* name : {"Div", "RealDiv", "FloorDiv", "TruncateDiv"})
    t.Add(Binary(name, kBinaryMore).Int32OnHost("GPU"));
  t.Add(Binary("DivNoNan",
               "{half, float, bfloat16, double, complex64, complex128}"));
  t.Add(Binary("FloorMod",
               "{int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
               "bfloat16, half, "
               "float, double}")
            .Int32OnHost("GPU"));
  t.Add(Binary("Mod", "{int32, int64, half, bfloat16, float, double}")
            .Int32OnHost("GPU"));
  for (const char* name : {"Maximum", "Minimum"}) {
    t.Add(Binary(name,
                 "{bfloat16, half, float, double, int8, uint8, int16, uint16, "
                 "int32, uint32, "
                 "int64, uint64}")
              .Int32OnHost("GPU"));
  }
  t.Add(Binary("SquaredDifference",
               "{bfloat16, half, float, double, int32, int64, complex64, "
               "complex128}")
            .Commutative()
            .Int32OnHost("GPU"));
  t.Add(Binary("Pow",
               "{bfloat16, float, half, double, int8, int16, int32, int64, "
               "complex64, complex128}")
            .Int32OnHost("GPU"));
  t.Add(Op("Atan2")
            .Input("y: T")
            .Input("x: T")
            .Output("z: T")
            .Attr("T: {bfloat16, half, float, double}")
            .Kernels("CPU", "GPU"));
  for (const char* name : {"Less", "LessEqual", "Greater", "GreaterEqual"})
    t.Add(Binary(name, "realnumbertype", "z: bool").Int32OnHost("GPU"));
  for (const char* name : {"Equal", "NotEqual"}) {
    t.Add(Binary(name, "type", "z: bool")
              .Attr("incompatible_shape_error: bool = true")
              .Commutative()
              .KernelTypes("GPU", "T",
                           "{bfloat16, half, float, double, uint8, int8, "
                           "int16, int32, int64, "
                           "complex64, complex128, bool}")
              .Int32OnHost("GPU"));
  }
  for (const char* name : {"LogicalAnd", "LogicalOr"}) {
    t.Add(Op(name)
              .Input("x: bool")
              .Input("y: bool")
              .Output("z: bool")
              .Commutative()
              .Kernels("CPU", "GPU"));
  }
  t.Add(Op("AddN")
            .Input("inputs: N * T")
            .Output("sum: T")
            .Attr("N: int >= 1")
            .Attr("T: {numbertype, variant}")
            .Commutative()
            .Aggregate()
            .Kernels("CPU", "GPU"));
  t.Add(Op("ClipByValue")
            .Input("t: T")
            .Input("clip_value_min: T")
            .Input("clip_value_max: T")
            .Output("output: T")
            .Attr("T: numbertype")
            .Kernels("CPU", "GPU"));
}

void RegisterMatMuls(OpTable& t) {
  t.Add(Op("MatMul")
            .Input("a: T")
            .Input("b: T")
            .Output("product: T")
            .Attr("transpose_a: bool = false")
            .Attr("transpose_b: bool = false")
            .Attr("T: {bfloat16, half, float, double, int32, int64, uint8, "
                  "uint16, uint32, "
                  "uint64, complex64, complex128}")
            .Attr("grad_a: bool = false")
            .Attr("grad_b: bool = false")
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "T", kGpuFloatComplex));
  t.Add(Op("BatchMatMul")
            .Input("x: T")
            .Input("y: T")
            .Output("output: T")
            .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, "
                  "complex128}")
            .Attr("adj_x: bool = false")
            .Attr("adj_y: bool = false")
            .Attr("grad_x: bool = false")
            .Attr("grad_y: bool = false")
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "T", kGpuFloatComplex));
  t.Add(Op("BatchMatMulV2")
            .Input("x: T")
            .Input("y: T")
            .Output("output: T")
            .Attr("T: {bfloat16, half, float, double, int16, int32, int64, "
                  "uint8, uint16, uint32, uint64, complex64, complex128}")
            .Attr("adj_x: bool = false")
            .Attr("adj_y: bool = false")
            .Attr("grad_x: bool = false")
            .Attr("grad_y: bool = false")
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "T", kGpuFloatComplex));
  constexpr const char* kV3In =
      "{bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
      "complex64, "
      "complex128}";
  t.Add(Op("BatchMatMulV3")
            .Input("x: Ta")
            .Input("y: Tb")
            .Output("output: Tout")
            .Attr(std::string("Ta: ") + kV3In)
            .Attr(std::string("Tb: ") + kV3In)
            .Attr("Tout: {bfloat16, half, float, double, int16, int32, int64, "
                  "complex64, "
                  "complex128}")
            .Attr("adj_x: bool = false")
            .Attr("adj_y: bool = false")
            .Attr("grad_x: bool = false")
            .Attr("grad_y: bool = false")
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "Ta", kGpuFloatComplex));
  t.Add(Op("_FusedMatMul")
            .Input("a: T")
            .Input("b: T")
            .Input("args: num_args * T")
            .Output("product: T")
            .Attr("transpose_a: bool = false")
            .Attr("transpose_b: bool = false")
            .Attr("T: {bfloat16, half, float}")
            .Attr("num_args: int >= 0")
            .Attr("fused_ops: list(string) = []")
            .Attr("epsilon: float = 0.0001")
            .Attr("leakyrelu_alpha: float = 0.2")
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "T", "{half, float}"));
  t.Add(Op("Einsum")
            .Input("inputs: N * T")
            .Output("output: T")
            .Attr("equation: string")
            .Attr("N: int >= 1")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "T", kGpuFloatComplex));
}

void RegisterReductions(OpTable& t) {
  // Max and Min: the real number types and three quantized ones.
  constexpr const char* kMinMaxTypes =
      "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
      "half, uint32, uint64, qint8, quint8, qint32, qint16, quint16}";
  constexpr const char* kTidx = "Tidx: {int32, int64} = DT_INT32";
  for (const char* name : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    bool minmax =
        std::string_view(name) == "Max" || std::string_view(name) == "Min";
    t.Add(Op(name)
              .Input("input: T")
              .Input("reduction_indices: Tidx")
              .Output("output: T")
              .Attr("keep_dims: bool = false")
              .Attr(minmax ? kMinMaxTypes : "T: numbertype")
              .Attr(kTidx)
              .Kernels("CPU", "GPU")
              .HostMemory("GPU", "reduction_indices")
              .Int32OnHost("GPU"));
  }
  for (const char* name : {"All", "Any"}) {
    t.Add(Op(name)
              .Input("input: bool")
              .Input("reduction_indices: Tidx")
              .Output("output: bool")
              .Attr("keep_dims: bool = false")
              .Attr(kTidx)
              .Kernels("CPU", "GPU")
              .HostMemory("GPU", "reduction_indices"));
  }
  for (const char* name : {"ArgMax", "ArgMin"}) {
    const bool max = std::string_view(name) == "ArgMax";
    t.Add(
        Op(name)
            .Input("input: T")
            .Input("dimension: Tidx")
            .Output("output: output_type")
            .Attr("T: {float, double, int32, uint8, int16, int8, int64, "
                  "bfloat16, uint16, half, uint32, uint64, qint8, quint8, "
                  "qint32, qint16, quint16, bool}")
            .Attr(max ? "Tidx: {int16, int32, int64} = DT_INT32"
                      : "Tidx: {int32, int64} = DT_INT32")
            .Attr(max ? "output_type: {int16, uint16, int32, int64} = DT_INT64"
                      : "output_type: {int32, int64} = DT_INT64")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "dimension"));
  }
  for (const char* name : {"Cumsum", "Cumprod"}) {
    t.Add(Op(name)
              .Input("x: T")
              .Input("axis: Tidx")
              .Output("out: T")
              .Attr("exclusive: bool = false")
              .Attr("reverse: bool = false")
              .Attr("T: numbertype")
              .Attr(kTidx)
              .Kernels("CPU", "GPU")
              .HostMemory("GPU", "axis"));
  }
  t.Add(Op("SegmentSum")
            .Input("data: T")
            .Input("segment_ids: Tindices")
            .Output("output: T")
            .Attr("T: numbertype")
            .Attr("Tindices: {int32, int64}")
            .Kernels("CPU", "GPU"));
}

// Quantized math (uTensor graphs): CPU kernels only.
void RegisterQuantizedMath(OpTable& t) {
  t.Add(Op("QuantizedMatMul")
            .Input("a: T1")
            .Input("b: T2")
            .Input("min_a: float")
            .Input("max_a: float")
            .Input("min_b: float")
            .Input("max_b: float")
            .Output("out: Toutput")
            .Output("min_out: float")
            .Output("max_out: float")
            .Attr("T1: quantizedtype")
            .Attr("T2: quantizedtype")
            .Attr("Toutput: quantizedtype = DT_QINT32")
            .Attr("transpose_a: bool = false")
            .Attr("transpose_b: bool = false")
            .Attr("Tactivation: quantizedtype = DT_QUINT8")
            .Kernels("CPU"));
  t.Add(Op("QuantizedAdd")
            .Input("x: T1")
            .Input("y: T2")
            .Input("min_x: float")
            .Input("max_x: float")
            .Input("min_y: float")
            .Input("max_y: float")
            .Output("z: Toutput")
            .Output("min_z: float")
            .Output("max_z: float")
            .Attr("T1: quantizedtype")
            .Attr("T2: quantizedtype")
            .Attr("Toutput: quantizedtype = DT_QINT32")
            .Kernels("CPU"));
  t.Add(Op("Requantize")
            .Input("input: Tinput")
            .Input("input_min: float")
            .Input("input_max: float")
            .Input("requested_output_min: float")
            .Input("requested_output_max: float")
            .Output("output: out_type")
            .Output("output_min: float")
            .Output("output_max: float")
            .Attr("Tinput: quantizedtype")
            .Attr("out_type: quantizedtype")
            .Kernels("CPU"));
  t.Add(Op("RequantizationRange")
            .Input("input: Tinput")
            .Input("input_min: float")
            .Input("input_max: float")
            .Output("output_min: float")
            .Output("output_max: float")
            .Attr("Tinput: quantizedtype")
            .Kernels("CPU"));
}

}  // namespace

void RegisterMathOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterUnary(t);
  RegisterBinary(t);
  RegisterMatMuls(t);
  RegisterReductions(t);
  RegisterQuantizedMath(t);
}

}  // namespace dfg
