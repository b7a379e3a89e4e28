// Internal to lib/graph: the small language the op tables are written in.
//
// One chained expression per op, in the spirit of TensorFlow's REGISTER_OP,
// with the kernel facts dfg needs beside the signature:
//
//   t.Add(Op("Reshape")
//             .Input("tensor: T")
//             .Input("shape: Tshape")
//             .Output("output: T")
//             .Attr("T: type")
//             .Attr("Tshape: {int32, int64} = DT_INT32")
//             .Kernels("CPU", "GPU")
//             .HostMemory("GPU", "shape"));
//
// Arg specs:  "name: T" (type attr), "name: float" (fixed type),
//             "name: N * T" (N-list), "name: Tlist" (list(type) attr),
//             "name: Ref(T)" (reference).
// Attr specs: "name: <type>" with <type> one of string, int, float, bool,
//             type, shape, tensor, func, list(<type>), a set of allowed types
//             "{float, double}" (type groups numbertype, realnumbertype and
//             quantizedtype may appear alone or inside the braces) or of
//             allowed strings "{'SAME', 'VALID'}"; then an optional minimum
//             ">= 2" (int and list attrs) and an optional default "= <value>"
//             in AttrValue text syntax: false, 3, 0.5, 'NHWC', DT_INT32 (or
//             float), [1, 1], [], { unknown_rank: true }.
// Attrs are parsed before args, whatever the call order, as TensorFlow does.
// A malformed spec is a programming error: Build() stops with DFG_CHECK and a
// message naming the op and the spec.
#ifndef DFG_LIB_GRAPH_OP_REGISTRY_BUILDER_H_
#define DFG_LIB_GRAPH_OP_REGISTRY_BUILDER_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/op_registry.h"
#include "lib/proto/attr_value.pb.h"

namespace dfg {

class OpBuilder {
 public:
  explicit OpBuilder(std::string name);

  OpBuilder& Input(std::string spec);
  OpBuilder& Output(std::string spec);
  OpBuilder& Attr(std::string spec);

  OpBuilder& Stateful();
  OpBuilder& Commutative();
  OpBuilder& Aggregate();
  OpBuilder& AllowsUninitializedInput();
  OpBuilder& DistributedCommunication();

  // Device types with a kernel: Kernels("CPU", "GPU").
  template <typename... Devices>
  OpBuilder& Kernels(Devices... devices) {
    (kernels_.emplace_back(devices), ...);
    return *this;
  }
  // Args the device's kernel keeps in host memory: HostMemory("GPU", "shape").
  template <typename... Args>
  OpBuilder& HostMemory(std::string_view device, Args... args) {
    (host_memory_.emplace_back(std::string(device), std::string(args)), ...);
    return *this;
  }
  // The device's kernel exists only for these values of a type attr:
  // KernelTypes("GPU", "T", "{half, float, double}").
  OpBuilder& KernelTypes(std::string_view device, std::string_view attr,
                         std::string_view types);
  // The device's int32 kernel (attr == DT_INT32) keeps every arg in host
  // memory.
  OpBuilder& Int32OnHost(std::string_view device, std::string_view attr = "T");

  // Parses every spec into an OpInfo; DFG_CHECKs on a malformed one.
  OpInfo Build() const;

 private:
  std::string name_;
  std::vector<std::string> inputs_;
  std::vector<std::string> outputs_;
  std::vector<std::string> attrs_;
  bool stateful_ = false;
  bool commutative_ = false;
  bool aggregate_ = false;
  bool allows_uninitialized_input_ = false;
  bool distributed_communication_ = false;
  std::vector<std::string> kernels_;
  std::vector<std::pair<std::string, std::string>> host_memory_;
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>>
      kernel_types_;
  std::vector<std::pair<std::string, std::string>> int32_on_host_;
};

inline OpBuilder Op(std::string name) { return OpBuilder(std::move(name)); }

// Collects one table's ops into the registry.
class OpTable {
 public:
  explicit OpTable(OpRegistry* registry) : registry_(registry) {}
  void Add(const OpBuilder& op) { registry_->Register(op.Build()); }

 private:
  OpRegistry* registry_;  // Not owned.
};

// Allowed types as TensorFlow's type groups expand them (order matters: it is
// the order of "not in the list of allowed values" messages).
std::vector<DataType> NumberTypes();
std::vector<DataType> RealNumberTypes();
std::vector<DataType> QuantizedTypes();

// Parses "{float, double}", "numbertype", "{numbertype, bool}"...; nullopt on
// a malformed list.
std::optional<std::vector<DataType>> ParseTypeSet(std::string_view text);

// The op tables (op_registry_ops*.cc).
void RegisterPlumbingOps(OpRegistry* registry);
void RegisterArrayOps(OpRegistry* registry);
void RegisterMathOps(OpRegistry* registry);
void RegisterNnOps(OpRegistry* registry);
void RegisterTrainOps(OpRegistry* registry);
void RegisterDataOps(OpRegistry* registry);
void RegisterMiscOps(OpRegistry* registry);
void RegisterLookupOps(OpRegistry* registry);
void RegisterMathExtOps(OpRegistry* registry);
void RegisterLinalgOps(OpRegistry* registry);
void RegisterLinalgExtOps(OpRegistry* registry);
void RegisterScatterOps(OpRegistry* registry);
void RegisterArrayExtOps(OpRegistry* registry);
void RegisterStringOps(OpRegistry* registry);
void RegisterImageNnOps(OpRegistry* registry);
void RegisterSparseOps(OpRegistry* registry);
void RegisterSparseExtOps(OpRegistry* registry);
void RegisterOptimizerOps(OpRegistry* registry);
void RegisterRandomExtOps(OpRegistry* registry);
void RegisterRnnOps(OpRegistry* registry);
void RegisterNnGradExtOps(OpRegistry* registry);
void RegisterIoOps(OpRegistry* registry);
void RegisterQuantOps(OpRegistry* registry);
void RegisterStateOps(OpRegistry* registry);

// The args TensorFlow's CPU kernels of `op` keep in host memory, or nullptr
// (op_registry_cpu_hostmem.cc).
const std::vector<std::string>* CpuHostMemoryArgs(std::string_view op);
// TensorFlow's deprecation of `op`, or nullptr (op_registry_deprecation.cc).
const tensorflow::OpDeprecation* OpDeprecationFor(std::string_view op);

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_OP_REGISTRY_BUILDER_H_
