#include "lib/graph/op_registry.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <set>

#include "lib/base/strings.h"
#include "lib/graph/attr_summary.h"
#include "lib/graph/op_registry_builder.h"
#include "lib/graph/types.h"
#include "lib/proto/graph.pb.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

NodeDef ParseNode(const std::string& text) {
  return testing::ParseTextProto<NodeDef>(text);
}

const OpDef& Def(const std::string& op) {
  const OpInfo* info = OpRegistry::Global().Find(op);
  REQUIRE(info != nullptr);
  return info->def;
}

// "in1,in2 -> out1" with TensorFlow's type names.
std::string Signature(const std::string& node_text) {
  NodeDef node = ParseNode(node_text);
  std::vector<DataType> in, out;
  Status s = InOutTypesForNode(node, Def(node.op()), &in, &out);
  if (!s.ok()) return s.ToString();
  std::string text;
  for (size_t i = 0; i < in.size(); ++i)
    text += (i ? "," : "") + DataTypeString(in[i]);
  text += " ->";
  for (size_t i = 0; i < out.size(); ++i)
    text += (i ? "," : " ") + DataTypeString(out[i]);
  return text;
}

TEST_CASE("the whole registry builds and holds the TF-OPS checklist",
          "[registry]") {
  const OpRegistry& registry = OpRegistry::Global();
  // TF-OPS.md §9, then the runtime and extra ops every stage relies on.
  const std::vector<std::string> checklist = {
      "Const", "Placeholder", "PlaceholderWithDefault", "Identity", "IdentityN",
      "NoOp", "Cast", "Reshape", "Squeeze", "ExpandDims", "Transpose",
      "ConcatV2", "Concat", "Pack", "Unpack", "Split", "SplitV", "Slice",
      "StridedSlice", "Shape", "Size", "Rank", "Fill", "ZerosLike", "OnesLike",
      "Tile", "Pad", "PadV2", "MirrorPad", "GatherV2", "GatherNd", "Range",
      "BroadcastTo", "OneHot", "Where", "Select", "SelectV2", "ReverseV2",
      "DepthToSpace", "SpaceToDepth", "SpaceToBatchND", "BatchToSpaceND", "Add",
      "AddV2", "Sub", "Mul", "RealDiv", "FloorDiv", "FloorMod", "Maximum",
      "Minimum", "Pow", "SquaredDifference", "AddN", "Neg", "Abs", "Square",
      "Sqrt", "Rsqrt", "Exp", "Log", "Reciprocal", "Floor", "Round", "Tanh",
      "Sigmoid", "MatMul", "BatchMatMulV2", "Einsum", "Mean", "Sum", "Max",
      "Min", "Prod", "ArgMax", "ArgMin", "Equal", "NotEqual", "Less", "Greater",
      "GreaterEqual", "LogicalAnd", "LogicalNot", "Conv2D",
      "DepthwiseConv2dNative", "Conv2DBackpropInput", "BiasAdd", "MaxPool",
      "AvgPool", "Relu", "Relu6", "LeakyRelu", "Elu", "Softmax", "LogSoftmax",
      "FusedBatchNorm", "FusedBatchNormV3", "LRN", "ResizeBilinear",
      "ResizeNearestNeighbor", "TopKV2", "NonMaxSuppressionV3", "StopGradient",
      "Snapshot", "Switch", "Merge", "Enter", "Exit", "NextIteration",
      "LoopCond",
      // Runtime, control flow, state.
      "_Arg", "_Retval", "_Send", "_Recv", "_HostSend", "_HostRecv",
      "_DeviceArg", "_DeviceRetval", "RefIdentity", "RefSwitch", "RefMerge",
      "RefEnter", "RefExit", "RefNextIteration", "_SwitchN", "ControlTrigger",
      "Abort", "VariableV2", "Variable", "Assign", "AssignAdd", "AssignSub",
      "VarHandleOp", "ReadVariableOp", "AssignVariableOp", "VarIsInitializedOp",
      "IsVariableInitialized", "If", "StatelessIf", "While", "StatelessWhile",
      "PartitionedCall", "StatefulPartitionedCall", "Case", "StatelessCase",
      "HostConst",
      // Extra math/nn/io of the brief.
      "ShapeN", "Cumsum", "Cumprod", "All", "Any", "Inv", "Log1p", "Sin", "Cos",
      "Erf", "Softsign", "_FusedMatMul", "_FusedConv2D", "FusedBatchNormV2",
      "Conv3D", "MaxPoolV2", "MaxPool3D", "AvgPool3D", "BatchMatMul",
      "BatchMatMulV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5",
      "FakeQuantWithMinMaxVars", "QuantizeV2", "Dequantize", "RandomUniform",
      "RandomStandardNormal", "TruncatedNormal", "Print", "PrintV2", "Assert",
      "StringJoin", "StringSplit", "StringSplitV2", "Substr", "StringToNumber",
      "AsString", "RegexReplace", "StaticRegexReplace", "StringLength",
      "StringFormat", "StringStrip", "ReduceJoin", "DecodeBase64",
      "EncodeBase64", "DecodeJpeg", "DecodePng", "EncodePng", "DecodeImage",
      "SaveV2", "RestoreV2", "MergeV2Checkpoints",
      // Seen in the corpus.
      "QuantizedMatMul", "QuantizedConv2D", "QuantizedRelu", "QuantizedAdd",
      "Requantize", "RequantizationRange", "TensorArrayV3", "FIFOQueueV2",
      "IteratorV2", "LSTMBlockCell", "ParseExample", "SymbolicGradient",
      "DynamicStitch", "ApplyAdam", "TPUExecute"};
  std::vector<std::string> missing;
  for (const std::string& op : checklist)
    if (registry.Find(op) == nullptr) missing.push_back(op);
  CHECK(missing == std::vector<std::string>{});
  CHECK(registry.OpNames().size() >= checklist.size());
  CHECK(registry.Find("NoSuchOp") == nullptr);
}

TEST_CASE("the DSL parses arg and attr specs into TensorFlow's OpDef",
          "[registry]") {
  OpInfo info = Op("Demo")
                    .Input("values: N * T")
                    .Input("ref: Ref(T)")
                    .Input("list: Tlist")
                    .Input("flag: bool")
                    .Output("out: T")
                    .Attr("N: int >= 2")
                    .Attr("T: {float, double} = DT_DOUBLE")
                    .Attr("Tlist: list(type) >= 0")
                    .Attr("mode: {'A', 'B'} = 'B'")
                    .Attr("dims: list(int) = []")
                    .Attr("shape: shape = { unknown_rank: true }")
                    .Attr("alpha: float = 0.2")
                    .Attr("kind: numbertype")
                    .Kernels("CPU", "GPU")
                    .HostMemory("GPU", "flag")
                    .KernelTypes("GPU", "T", "{float}")
                    .Build();
  std::string text;
  google::protobuf::TextFormat::PrintToString(info.def, &text);
  CHECK_THAT(text, Catch::Matchers::Contains("number_attr: \"N\""));
  CHECK_THAT(text, Catch::Matchers::Contains("is_ref: true"));
  CHECK_THAT(text, Catch::Matchers::Contains("type_list_attr: \"Tlist\""));
  CHECK_THAT(text, Catch::Matchers::Contains("type: DT_BOOL"));
  CHECK(SummarizeOpDef(info.def) ==
        "Op<name=Demo; signature=values:N*T, ref:Ref(T), list:, flag:bool -> "
        "out:T; "
        "attr=N:int,min=2; attr=T:type,default=DT_DOUBLE,allowed=[DT_FLOAT, "
        "DT_DOUBLE]; "
        "attr=Tlist:list(type),min=0; "
        "attr=mode:string,default=\"B\",allowed=[\"A\", \"B\"]; "
        "attr=dims:list(int),default=[]; attr=shape:shape,default=<unknown>; "
        "attr=alpha:float,default=0.2; attr=kind:type,allowed=[DT_FLOAT, "
        "DT_DOUBLE, "
        "DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_COMPLEX64, DT_INT64, "
        "DT_QINT8, DT_QUINT8, "
        "DT_QINT32, DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16, "
        "DT_COMPLEX128, DT_HALF, "
        "DT_UINT32, DT_UINT64]>");
  CHECK(info.HasKernelFor("GPU"));
  CHECK_FALSE(info.HasKernelFor("TPU"));
  CHECK(info.host_memory_args.at("GPU") == std::vector<std::string>{"flag"});
}

TEST_CASE("InOutTypesForNode expands N-lists, type lists and refs",
          "[registry]") {
  CHECK(Signature("name: 'm' op: 'MatMul' attr { key: 'T' value { type: "
                  "DT_FLOAT } }") == "float,float -> float");
  CHECK(Signature("name: 'c' op: 'ConcatV2' attr { key: 'N' value { i: 3 } } "
                  "attr { key: 'T' value { type: DT_HALF } } "
                  "attr { key: 'Tidx' value { type: DT_INT64 } }") ==
        "half,half,half,int64 -> half");
  CHECK(
      Signature(
          "name: 'i' op: 'IdentityN' "
          "attr { key: 'T' value { list { type: [DT_FLOAT, DT_INT32] } } }") ==
      "float,int32 -> float,int32");
  CHECK(Signature("name: 's' op: 'Switch' attr { key: 'T' value { type: "
                  "DT_STRING } }") == "string,bool -> string,string");
  CHECK(Signature("name: 'm' op: 'Merge' attr { key: 'N' value { i: 2 } } "
                  "attr { key: 'T' value { type: DT_FLOAT } }") ==
        "float,float -> float,int32");
  CHECK(Signature("name: 'v' op: 'VariableV2' attr { key: 'dtype' value { "
                  "type: DT_FLOAT } } "
                  "attr { key: 'shape' value { shape {} } }") ==
        " -> float_ref");
  CHECK(
      Signature(
          "name: 'r' op: '_Retval' attr { key: 'T' value { type: DT_INT64 } } "
          "attr { key: 'index' value { i: 0 } }") == "int64 ->");
  CHECK(Signature("name: 'p' op: 'Placeholder' "
                  "attr { key: 'dtype' value { type: DT_BOOL } }") ==
        " -> bool");
}

TEST_CASE("InOutTypesForNode names the missing attr as TensorFlow does",
          "[registry]") {
  NodeDef node = ParseNode("name: 'm' op: 'MatMul' input: 'a' input: 'b'");
  std::vector<DataType> in, out;
  Status s = InOutTypesForNode(node, Def("MatMul"), &in, &out);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(),
             Catch::Matchers::StartsWith(
                 "NodeDef missing attr 'T' from Op<name=MatMul; signature=a:T, "
                 "b:T -> product:T; attr=transpose_a:bool,default=false;"));
  CHECK_THAT(s.message(), Catch::Matchers::EndsWith(
                              "; NodeDef: {{node m}} = MatMul[](a, b)"));
}

TEST_CASE("AddDefaultsToNodeDef fills absent attrs and keeps present ones",
          "[registry]") {
  NodeDef node = ParseNode(
      "name: 'm' op: 'MatMul' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'transpose_a' value { b: true } }");
  AddDefaultsToNodeDef(Def("MatMul"), &node);
  CHECK(node.attr().at("transpose_a").b());
  CHECK(node.attr().count("transpose_b") == 1);
  CHECK_FALSE(node.attr().at("transpose_b").b());
  CHECK(node.attr().size() == 5);  // T, transpose_a/b, grad_a/b

  NodeDef placeholder = ParseNode("name: 'p' op: 'Placeholder'");
  AddDefaultsToNodeDef(Def("Placeholder"), &placeholder);
  CHECK(placeholder.attr().at("shape").shape().unknown_rank());
  CHECK(placeholder.attr().count("dtype") == 0);
}

TEST_CASE("ValidateNodeDef reports TensorFlow's errors", "[registry]") {
  const char* good =
      "name: 'c' op: 'ConcatV2' input: 'a' input: 'b' input: 'axis' input: "
      "'^d' "
      "attr { key: 'N' value { i: 2 } } attr { key: 'T' value { type: DT_FLOAT "
      "} } "
      "attr { key: 'Tidx' value { type: DT_INT32 } } attr { key: '_class' "
      "value { s: 'x' } }";
  const OpDef& concat = Def("ConcatV2");
  CHECK(ValidateNodeDef(ParseNode(good), concat).ok());
  auto error = [&](const std::string& extra, bool allow_unknown = false) {
    NodeDef node = ParseNode(good);
    NodeDef patch = ParseNode(extra);
    for (const auto& [k, v] : patch.attr()) (*node.mutable_attr())[k] = v;
    if (patch.input_size() > 0) *node.mutable_input() = patch.input();
    if (!patch.op().empty()) node.set_op(patch.op());
    Status s = ValidateNodeDef(node, concat, allow_unknown);
    return s.ok() ? std::string("OK") : s.message();
  };
  CHECK_THAT(error("attr { key: 'EXTRA' value { i: 17 } }"),
             Catch::Matchers::StartsWith(
                 "NodeDef mentions attr 'EXTRA' not in Op<name=ConcatV2;"));
  CHECK(error("attr { key: 'EXTRA' value { i: 17 } }", true) == "OK");
  CHECK_THAT(error("attr { key: 'T' value { i: 17 } }"),
             Catch::Matchers::StartsWith(
                 "AttrValue had value with type 'int' when 'type' "
                 "expected\n\t for attr 'T'\n\t; NodeDef: {{node c}}"));
  CHECK_THAT(error("attr { key: 'Tidx' value { type: DT_INT16 } }"),
             Catch::Matchers::StartsWith(
                 "Value for attr 'Tidx' of int16 is not in the list of "
                 "allowed values: int32, int64\n\t; NodeDef:"));
  CHECK_THAT(error("attr { key: 'N' value { i: 1 } } input: ['a', 'axis']"),
             Catch::Matchers::StartsWith(
                 "Value for attr 'N' of 1 must be at least minimum 2"));
  CHECK_THAT(error("input: ['a', 'b']"),
             Catch::Matchers::StartsWith(
                 "NodeDef expected inputs 'float, float, int32' do not "
                 "match 2 inputs specified; Op<name=ConcatV2;"));
  CHECK_THAT(
      error("input: ['a', '^d', 'b', 'axis']"),
      Catch::Matchers::StartsWith("Non-control input 'b' after control input"));
  CHECK_THAT(error("op: 'Concat'"),
             Catch::Matchers::StartsWith(
                 "NodeDef op 'Concat' does not match Op<name=ConcatV2;"));

  NodeDef bare =
      ParseNode("name: 'c' op: 'ConcatV2' attr { key: 'N' value { i: 2 } }");
  Status s = ValidateNodeDef(bare, concat);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Matchers::StartsWith(
                              "NodeDef missing attrs 'T', 'Tidx' from"));
}

TEST_CASE("SummarizeNodeDef sorts attrs, puts _device last and prints values",
          "[registry]") {
  NodeDef node = ParseNode(R"pb(
    name: "n"
    op: "Demo"
    device: "/device:CPU:0"
    input: [ "a", "b:1", "^c" ]
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "b"
      value { b: true }
    }
    attr {
      key: "a"
      value { list { i: [ 1, 2 ] } }
    }
    attr {
      key: "s"
      value { s: "str\n" }
    }
    attr {
      key: "f"
      value { f: 0.1 }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: 2 }
          dim { size: -1 }
        }
      }
    }
    attr {
      key: "fn"
      value { func { name: "body" } }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {
            dim { size: 2 }
            dim { size: 3 }
          }
          float_val: [ 1, 2.5 ]
        }
      }
    }
  )pb");
  CHECK(SummarizeNodeDef(node) ==
        "{{node n}} = Demo[T=DT_FLOAT, a=[1, 2], b=true, f=0.1, fn=body[], "
        "s=\"str\\n\", "
        "shape=[2,?], value=Tensor<type: float shape: [2,3] values: [1 2.5 "
        "2.5]...>, "
        "_device=\"/device:CPU:0\"](a, b:1, ^c)");
  tensorflow::AttrValue scalar = testing::ParseTextProto<tensorflow::AttrValue>(
      "tensor { dtype: DT_INT32 tensor_shape {} int_val: 7 }");
  CHECK(SummarizeAttrValue(scalar) ==
        "Tensor<type: int32 shape: [] values: 7>");
  tensorflow::AttrValue empty_list;
  empty_list.mutable_list();
  CHECK(SummarizeAttrValue(empty_list) == "[]");
  // 16-bit floats decode through lib/base/float16 (1, -2, inf; 1.5 as
  // bfloat16 in tensor_content).
  tensorflow::AttrValue half = testing::ParseTextProto<tensorflow::AttrValue>(
      "tensor { dtype: DT_HALF tensor_shape { dim { size: 3 } } "
      "half_val: 15360 half_val: 49152 half_val: 31744 }");
  CHECK(SummarizeAttrValue(half) ==
        "Tensor<type: half shape: [3] values: 1 -2 inf>");
  tensorflow::AttrValue bf16 = testing::ParseTextProto<tensorflow::AttrValue>(
      "tensor { dtype: DT_BFLOAT16 tensor_shape {} "
      "tensor_content: '\\300\\077' }");
  CHECK(SummarizeAttrValue(bf16) ==
        "Tensor<type: bfloat16 shape: [] values: 1.5>");
  // A string tensor's elements are Utf8SafeCEscape'd (Tensor::SummarizeValue)
  // and a string attr is CEscape'd (SummarizeString).
  tensorflow::AttrValue strings =
      testing::ParseTextProto<tensorflow::AttrValue>(
          "tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } } "
          "string_val: '\\303\\251' string_val: '\\001' }");
  CHECK(SummarizeAttrValue(strings) ==
        "Tensor<type: string shape: [2] values: \xc3\xa9 \\001>");
  tensorflow::AttrValue s;
  s.set_s("\xc3\xa9");
  CHECK(SummarizeAttrValue(s) == "\"\\303\\251\"");
  // A shape whose element count overflows int64 (2^40 x 2^40): printed as
  // the proto, not multiplied out (signed overflow, found by graph_fuzz).
  tensorflow::AttrValue huge = testing::ParseTextProto<tensorflow::AttrValue>(
      "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1099511627776 } "
      "dim { size: 1099511627776 } } float_val: 1 }");
  CHECK(SummarizeAttrValue(huge).rfind("<TensorProto: dtype: DT_FLOAT", 0) ==
        0);
}

std::vector<MemoryType> Memory(std::string_view device,
                               const std::string& node_text,
                               bool outputs = false) {
  NodeDef node = ParseNode(node_text);
  OpLookup ops;
  std::vector<DataType> in, out;
  REQUIRE(InOutTypesForNode(node, *ops.LookUpOpDef(node.op()), &in, &out).ok());
  std::vector<MemoryType> in_mem, out_mem;
  REQUIRE(
      MemoryTypesForNode(ops, device, node, in, out, &in_mem, &out_mem).ok());
  return outputs ? out_mem : in_mem;
}

TEST_CASE("MemoryTypesForNode follows kernels, int32 and host-only types",
          "[registry]") {
  using M = MemoryType;
  const char* reshape =
      "name: 'r' op: 'Reshape' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'Tshape' value { type: DT_INT32 } }";
  CHECK(Memory("GPU", reshape) == std::vector<M>{M::kDevice, M::kHost});
  // TensorFlow 2.21's CPU Reshape kernel keeps `shape` on the host too
  // (op_registry_cpu_hostmem.cc); its tensor and output stay DEVICE.
  CHECK(Memory("CPU", reshape) == std::vector<M>{M::kDevice, M::kHost});
  CHECK(Memory("CPU", reshape, true) == std::vector<M>{M::kDevice});
  const char* shape =
      "name: 's' op: 'Shape' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'out_type' value { type: DT_INT32 } }";
  CHECK(Memory("CPU", shape, true) == std::vector<M>{M::kHost});
  const char* add_int =
      "name: 'a' op: 'AddV2' attr { key: 'T' value { type: DT_INT32 } }";
  CHECK(Memory("CPU", add_int, true) == std::vector<M>{M::kDevice});
  // Strings are on the host even on CPU.
  const char* identity_string =
      "name: 'i' op: 'Identity' attr { key: 'T' value { type: DT_STRING } }";
  CHECK(Memory("CPU", identity_string, true) == std::vector<M>{M::kHost});
  // No GPU kernel for int32 MatMul: int32 goes to the host.
  const char* matmul_int =
      "name: 'm' op: 'MatMul' attr { key: 'T' value { type: DT_INT32 } }";
  CHECK(Memory("GPU", matmul_int, true) == std::vector<M>{M::kHost});
  // The int32 kernel of Add keeps everything on the host; the float one does
  // not.
  CHECK(Memory(
            "GPU",
            "name: 'a' op: 'Add' attr { key: 'T' value { type: DT_INT32 } }") ==
        std::vector<M>{M::kHost, M::kHost});
  CHECK(Memory(
            "GPU",
            "name: 'a' op: 'Add' attr { key: 'T' value { type: DT_FLOAT } }") ==
        std::vector<M>{M::kDevice, M::kDevice});
  // Resources always live on the host; Switch's pred is HostMemory on GPU.
  CHECK(Memory("CPU",
               "name: 'v' op: 'VarHandleOp' attr { key: 'dtype' value { type: "
               "DT_FLOAT } } "
               "attr { key: 'shape' value { shape {} } }",
               true) == std::vector<M>{M::kHost});
  CHECK(Memory("GPU",
               "name: 's' op: 'Switch' attr { key: 'T' value { type: DT_FLOAT "
               "} }") == std::vector<M>{M::kDevice, M::kHost});
  // _input_hostmem forces slots to the host.
  CHECK(Memory("GPU",
               "name: 'a' op: 'Add' attr { key: 'T' value { type: DT_FLOAT } } "
               "attr { key: '_input_hostmem' value { list { i: 1 } } }") ==
        std::vector<M>{M::kDevice, M::kHost});
  // An N-list HostMemory arg covers every slot of the list.
  CHECK(Memory("GPU",
               "name: 'c' op: 'ConcatOffset' attr { key: 'N' value { i: 2 } } "
               "attr { key: 'shape_type' value { type: DT_INT64 } }") ==
        std::vector<M>{M::kHost, M::kHost, M::kHost});
}

TEST_CASE("SlotArgNames and KernelSupports read the node's attrs",
          "[registry]") {
  NodeDef concat = ParseNode(
      "name: 'c' op: 'ConcatV2' attr { key: 'N' value { i: 3 } } "
      "attr { key: 'T' value { type: DT_FLOAT } }");
  std::vector<std::string> in, out;
  SlotArgNames(concat, Def("ConcatV2"), &in, &out);
  CHECK(in == std::vector<std::string>{"values", "values", "values", "axis"});
  CHECK(out == std::vector<std::string>{"output"});

  const OpInfo& matmul = *OpRegistry::Global().Find("MatMul");
  NodeDef m = ParseNode(
      "name: 'm' op: 'MatMul' attr { key: 'T' value { type: DT_INT32 } }");
  CHECK(matmul.KernelSupports("CPU", m));
  CHECK_FALSE(matmul.KernelSupports("GPU", m));
  (*m.mutable_attr())["T"].set_type(tensorflow::DT_HALF);
  CHECK(matmul.KernelSupports("GPU", m));
  CHECK_FALSE(OpRegistry::Global().Find("StringJoin")->HasKernelFor("GPU"));
  CHECK_FALSE(OpRegistry::Global().Find("DecodeJpeg")->HasKernelFor("GPU"));
  CHECK(OpRegistry::Global().Find("Range")->host_memory_args.at("GPU").size() ==
        4);
}

TEST_CASE("OpLookup falls back to library functions and marks them",
          "[registry]") {
  tensorflow::FunctionDefLibrary library =
      testing::ParseTextProto<tensorflow::FunctionDefLibrary>(
          "function { signature { name: 'MyAdd' input_arg { name: 'x' type: "
          "DT_FLOAT } "
          "output_arg { name: 'y' type: DT_FLOAT } } }");
  OpLookup ops(&library);
  REQUIRE(ops.LookUpOpDef("MyAdd") != nullptr);
  CHECK(ops.LookUpOpInfo("MyAdd") == nullptr);
  CHECK(ops.IsFunction("MyAdd"));
  CHECK_FALSE(ops.IsFunction("Add"));
  CHECK(ops.LookUpOpDef("Add") == &Def("Add"));
  CHECK(ops.LookUpOpDef("Nope") == nullptr);
}

class SilentErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, int, const std::string&) override {}
};

// Every node of a registered op in the corpus validates against our OpDef
// once defaults are added: the signatures match the graphs TF wrote.
TEST_CASE("corpus nodes of registered ops validate against the registry",
          "[registry]") {
  if (!testing::CorpusDir()) {
    WARN("corpus not found; skipping");
    return;
  }
  std::vector<std::string> failures;
  int checked = 0;
  auto check = [&](const NodeDef& original, const std::string& file) {
    const OpInfo* info = OpRegistry::Global().Find(original.op());
    if (info == nullptr) return;
    NodeDef node = original;
    AddDefaultsToNodeDef(info->def, &node);
    Status s = ValidateNodeDef(node, info->def, /*allow_unknown_attrs=*/true);
    ++checked;
    if (!s.ok() && failures.size() < 20)
      failures.push_back(file + ": " + s.message());
  };
  SilentErrors silent;
  for (const std::string& file : testing::CorpusFiles()) {
    // A TensorBoard UI demo whose "answer" node gives Add five inputs.
    if (EndsWith(file, "tensorboard__tf_graph_app_demo_graph.pbtxt")) continue;
    std::string bytes = testing::ReadFileOrDie(file);
    GraphDef graph;
    bool text = EndsWith(file, ".pbtxt");
    if (EndsWith(file, ".json") || EndsWith(file, ".meta") ||
        EndsWith(file, "saved_model.pb"))
      continue;
    google::protobuf::TextFormat::Parser parser;
    parser.RecordErrorsTo(&silent);
    bool parsed = text ? parser.ParseFromString(bytes, &graph)
                       : graph.ParseFromString(bytes);
    if (!parsed) continue;
    for (const NodeDef& node : graph.node()) check(node, file);
    for (const auto& function : graph.library().function())
      for (const NodeDef& node : function.node_def()) check(node, file);
  }
  CHECK(checked > 10000);
  CHECK(failures == std::vector<std::string>{});
}

// The key of a node's text, or "none" when it has none.
std::string ScalarKey(const std::string& text) {
  std::string key;
  return AppendScalarAttrsKey(ParseNode(text), &key) ? key : "none";
}

TEST_CASE("scalar attrs keys tell apart what signatures depend on",
          "[graph][op_registry]") {
  const std::string add =
      "name: 'a' op: 'AddN' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'N' value { i: 3 } }";
  const std::string add_swapped =
      "name: 'b' op: 'AddN' input: 'x' attr { key: 'N' value { i: 3 } } "
      "attr { key: 'T' value { type: DT_FLOAT } } device: '/cpu:0'";
  // Names, inputs, devices and attr order do not count.
  CHECK(ScalarKey(add) == ScalarKey(add_swapped));
  CHECK(ScalarKey(add) !=
        ScalarKey("name: 'a' op: 'AddN' "
                  "attr { key: 'T' value { type: DT_INT32 } } "
                  "attr { key: 'N' value { i: 3 } }"));
  CHECK(ScalarKey(add) !=
        ScalarKey("name: 'a' op: 'AddN' "
                  "attr { key: 'T' value { type: DT_FLOAT } } "
                  "attr { key: 'N' value { i: 2 } }"));
  CHECK(ScalarKey(add) !=
        ScalarKey("name: 'a' op: 'AddV2' "
                  "attr { key: 'T' value { type: DT_FLOAT } } "
                  "attr { key: 'N' value { i: 3 } }"));
  // An attr's presence counts, a string's or a tensor's value does not.
  CHECK(ScalarKey(add) !=
        ScalarKey(add + " attr { key: '_x' value { s: 'a' } }"));
  CHECK(ScalarKey(add + " attr { key: '_x' value { s: 'a' } }") ==
        ScalarKey(add + " attr { key: '_x' value { s: 'b' } }"));
  CHECK(ScalarKey(add + " attr { key: '_x' value { b: true } }") !=
        ScalarKey(add + " attr { key: '_x' value { b: false } }"));
  CHECK(ScalarKey(add + " attr { key: '_x' value { s: '' } }") !=
        ScalarKey(add + " attr { key: '_x' value { i: 0 } }"));
  // Lists and funcs: no key.
  CHECK(ScalarKey(add + " attr { key: '_input_hostmem' value { list { i: 0 } "
                        "} }") == "none");
  CHECK(ScalarKey(add + " attr { key: 'f' value { func { name: 'g' } } }") ==
        "none");
}

}  // namespace
}  // namespace dfg
