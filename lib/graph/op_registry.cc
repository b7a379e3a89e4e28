// The registry itself: a map from op name to OpInfo, filled once from the op
// tables (op_registry_ops*.cc), plus the lookup that falls back to a graph's
// function library.
#include "lib/graph/op_registry.h"

#include <algorithm>

#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

using tensorflow::NodeDef;

// The node's value of type attr `attr` (one type, or a list), else its OpDef
// default; empty when neither says (then the kernel is assumed to fit).
std::vector<DataType> AttrTypes(const NodeDef& node, const OpDef& def,
                                const std::string& attr) {
  const tensorflow::AttrValue* value = nullptr;
  auto it = node.attr().find(attr);
  if (it != node.attr().end()) {
    value = &it->second;
  } else {
    for (const auto& attr_def : def.attr())
      if (attr_def.name() == attr && attr_def.has_default_value())
        value = &attr_def.default_value();
  }
  std::vector<DataType> types;
  if (value == nullptr) return types;
  if (value->value_case() == tensorflow::AttrValue::kType) {
    types.push_back(value->type());
  } else {
    for (int t : value->list().type())
      types.push_back(static_cast<DataType>(t));
  }
  return types;
}

}  // namespace

bool OpInfo::HasKernelFor(std::string_view device_type) const {
  return std::find(kernel_device_types.begin(), kernel_device_types.end(),
                   device_type) != kernel_device_types.end();
}

bool OpInfo::KernelSupports(std::string_view device_type,
                            const NodeDef& node) const {
  if (!HasKernelFor(device_type)) return false;
  auto it = kernel_type_constraints.find(std::string(device_type));
  if (it == kernel_type_constraints.end()) return true;
  const auto& [attr, allowed] = it->second;
  for (DataType t : AttrTypes(node, def, attr)) {
    if (std::find(allowed.begin(), allowed.end(), t) == allowed.end())
      return false;
  }
  return true;
}

const OpRegistry& OpRegistry::Global() {
  static const OpRegistry* const registry = [] {
    auto* r = new OpRegistry;
    RegisterPlumbingOps(r);
    RegisterArrayOps(r);
    RegisterMathOps(r);
    RegisterNnOps(r);
    RegisterDataOps(r);
    RegisterMiscOps(r);
    RegisterTrainOps(r);
    RegisterLookupOps(r);
    RegisterMathExtOps(r);
    RegisterLinalgOps(r);
    RegisterLinalgExtOps(r);
    RegisterScatterOps(r);
    RegisterArrayExtOps(r);
    RegisterStringOps(r);
    RegisterImageNnOps(r);
    RegisterSparseOps(r);
    RegisterSparseExtOps(r);
    RegisterOptimizerOps(r);
    RegisterRandomExtOps(r);
    RegisterRnnOps(r);
    RegisterNnGradExtOps(r);
    RegisterIoOps(r);
    RegisterQuantOps(r);
    RegisterStateOps(r);
    return r;
  }();
  return *registry;
}

const OpInfo* OpRegistry::Find(std::string_view op) const {
  auto it = ops_.find(std::string(op));
  return it == ops_.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::OpNames() const {
  std::vector<std::string> names;
  names.reserve(ops_.size());
  for (const auto& [name, info] : ops_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

void OpRegistry::Register(OpInfo info) {
  std::string name = info.def.name();
  DFG_CHECK_MSG(!name.empty(), "an op without a name");
  if (const auto* args = CpuHostMemoryArgs(name);
      args != nullptr && info.HasKernelFor("CPU")) {
    auto has_arg = [&](const std::string& arg) {
      for (const auto& a : info.def.input_arg())
        if (a.name() == arg) return true;
      for (const auto& a : info.def.output_arg())
        if (a.name() == arg) return true;
      return false;
    };
    for (const std::string& arg : *args) {
      DFG_CHECK_MSG(has_arg(arg),
                    "CPU HostMemory arg '" + arg + "' not found in Op " + name);
    }
    info.host_memory_args["CPU"] = *args;
  }
  if (const auto* deprecation = OpDeprecationFor(name)) {
    *info.def.mutable_deprecation() = *deprecation;
  }
  bool inserted = ops_.emplace(name, std::move(info)).second;
  DFG_CHECK_MSG(inserted, "op '" + name + "' registered twice");
}

OpLookup::OpLookup(const tensorflow::FunctionDefLibrary* library)
    : library_(library) {
  if (library_ == nullptr) return;
  for (const auto& function : library_->function()) {
    // The first definition of a name wins, as in a FunctionLibraryDefinition
    // (which rejects conflicting duplicates at import).
    functions_.emplace(function.signature().name(), &function.signature());
  }
}

const OpDef* OpLookup::LookUpOpDef(std::string_view op) const {
  if (const OpInfo* info = OpRegistry::Global().Find(op)) return &info->def;
  auto it = functions_.find(std::string(op));
  return it == functions_.end() ? nullptr : it->second;
}

const OpInfo* OpLookup::LookUpOpInfo(std::string_view op) const {
  return OpRegistry::Global().Find(op);
}

bool OpLookup::IsFunction(std::string_view op) const {
  return OpRegistry::Global().Find(op) == nullptr &&
         functions_.count(std::string(op)) > 0;
}

}  // namespace dfg
