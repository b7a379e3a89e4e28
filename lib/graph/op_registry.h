// The op registry: for every op dfg knows, TensorFlow's OpDef (arguments with
// type attrs, N-lists and type lists; attrs with defaults and allowed values),
// the device types TensorFlow has kernels for, and which arguments those
// kernels keep in host memory. Prune, place and partition read it; the
// executor's kernels are registered separately (lib/kernels).
//
// Library functions are ops too: OpLookup resolves a name against the registry
// first and then against a graph's FunctionDefLibrary (a FunctionDef's
// signature is an OpDef), so calls to library functions have signatures.
#ifndef DFG_LIB_GRAPH_OP_REGISTRY_H_
#define DFG_LIB_GRAPH_OP_REGISTRY_H_

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/types.h"
#include "lib/proto/function.pb.h"
#include "lib/proto/node_def.pb.h"
#include "lib/proto/op_def.pb.h"

namespace dfg {

using tensorflow::NodeDef;
using tensorflow::OpDef;

enum class MemoryType { kDevice = 0, kHost = 1 };

struct OpInfo {
  OpDef def;
  // Device types with a registered kernel ("CPU", "GPU"), as TensorFlow has.
  std::vector<std::string> kernel_device_types;
  // Per device type, the names of input/output args whose kernel keeps them in
  // host memory (TensorFlow's HostMemory("name") on the kernel registration).
  std::map<std::string, std::vector<std::string>> host_memory_args;
  // Per device type, an optional restriction of a type attr to a list of
  // dtypes the kernel is registered for: {attr name, allowed types}.
  std::map<std::string, std::pair<std::string, std::vector<DataType>>>
      kernel_type_constraints;
  // Per device type, a type attr whose int32 kernel keeps every argument in
  // host memory (TensorFlow registers most GPU int32 kernels that way, e.g.
  // Add, Identity, Switch): when the node's attr is DT_INT32, all its args
  // are HOST_MEMORY on that device type.
  std::map<std::string, std::string> int32_host_memory_attr;

  bool HasKernelFor(std::string_view device_type) const;
  // True when a kernel for `device_type` accepts the node's attrs.
  bool KernelSupports(std::string_view device_type,
                      const tensorflow::NodeDef& node) const;
};

class OpRegistry {
 public:
  // Every op of TF-OPS.md plus the runtime ops (_Arg, _Retval, _Send, _Recv,
  // _HostSend, _HostRecv...). Built once, on first use; thread-safe.
  static const OpRegistry& Global();

  const OpInfo* Find(std::string_view op) const;
  std::vector<std::string> OpNames() const;  // sorted

  // For tests and extensions.
  void Register(OpInfo info);

 private:
  std::unordered_map<std::string, OpInfo> ops_;
};

// Resolves op names against the global registry, then a function library.
class OpLookup {
 public:
  explicit OpLookup(const tensorflow::FunctionDefLibrary* library = nullptr);
  // The OpDef for `op`, or nullptr if neither knows it.
  const OpDef* LookUpOpDef(std::string_view op) const;
  // The registry entry, or nullptr (also for library functions).
  const OpInfo* LookUpOpInfo(std::string_view op) const;
  bool IsFunction(std::string_view op) const;

 private:
  const tensorflow::FunctionDefLibrary* library_;  // Not owned; may be null.
  std::unordered_map<std::string, const OpDef*> functions_;
};

// Input and output dtypes of `node` (N-lists and type lists expanded), from
// its attrs. Errors (kInvalidArgument), TF's wording:
//   "NodeDef missing attr 'T' from Op<name=...>; NodeDef: {{node n}} = ..."
Status InOutTypesForNode(const tensorflow::NodeDef& node, const OpDef& op_def,
                         std::vector<DataType>* inputs,
                         std::vector<DataType>* outputs);

// Appends to `key` what a node's signature and memory types can depend on:
// its op, then its attrs by name with their kind, and the values of the
// type, int and bool ones (the others, strings, floats, shapes, tensors,
// decide neither). False, with `key` unusable, when an attr is a list, a func
// or a placeholder: such a node is computed alone. Nodes with one key have
// one InOutTypesForNode result, and on one device type one
// MemoryTypesForNode result given their signature.
bool AppendScalarAttrsKey(const tensorflow::NodeDef& node, std::string* key);

// Adds each attr of `op_def` that has a default and is absent from `node`.
void AddDefaultsToNodeDef(const OpDef& op_def, tensorflow::NodeDef* node);

// Full ValidateNodeDef: missing attrs, attrs not in the op (names starting
// with '_' are allowed), attr value types, allowed values, input counts.
// `allow_unknown_attrs`: skip attrs the OpDef does not know instead of
// failing, as TensorFlow since 2021 does (it only logs them); graphs written
// by newer TensorFlow versions or by passes (e.g. TPU graphs) carry such attrs.
Status ValidateNodeDef(const tensorflow::NodeDef& node, const OpDef& op_def,
                       bool allow_unknown_attrs = false);

// TensorFlow's SummarizeOpDef: "Op<name=MatMul; signature=a:T, b:T ->
// product:T; attr=transpose_a:bool,default=false; ...>".
std::string SummarizeOpDef(const OpDef& op_def);

// The attrs of `node` as SummarizeNodeDef prints them between the brackets:
// sorted by name, then _device="..." if the node has a device.
std::string SummarizeAttrs(const tensorflow::NodeDef& node);

// TensorFlow's SummarizeNodeDef:
// "{{node n}} = Op[a=1, b=DT_FLOAT, _device=...](in1, in2)".
std::string SummarizeNodeDef(const tensorflow::NodeDef& node);

// The names of the args of `op_def` for each expanded input/output slot.
void SlotArgNames(const tensorflow::NodeDef& node, const OpDef& op_def,
                  std::vector<std::string>* input_args,
                  std::vector<std::string>* output_args);

// MemoryTypesForNode (TF-SEMANTICS §3.5) for `node` on `device_type`.
Status MemoryTypesForNode(const OpLookup& ops, std::string_view device_type,
                          const tensorflow::NodeDef& node,
                          const std::vector<DataType>& input_types,
                          const std::vector<DataType>& output_types,
                          std::vector<MemoryType>* input_memory,
                          std::vector<MemoryType>* output_memory);

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_OP_REGISTRY_H_
