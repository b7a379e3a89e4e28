#include "lib/place/kernel_support.h"

#include <fmt/format.h>

#include <algorithm>

#include "lib/base/status.h"

namespace dfg::place_internal {
namespace {

bool IsXlaDeviceType(std::string_view type) {
  return type == "XLA_CPU_JIT" || type == "XLA_GPU_JIT" ||
         type == "XLA_TPU_JIT" || type == "XLA_CPU" || type == "XLA_GPU" ||
         type == "TPU";
}

}  // namespace

KernelSupport::KernelSupport(const DeviceSet& devices, const OpLookup& ops)
    : ops_(ops), types_(devices.PrioritizedDeviceTypeList()) {
  DFG_CHECK(static_cast<int>(types_.size()) <= kMaxDeviceTypes);
  for (size_t i = 0; i < types_.size(); ++i) {
    all_types_ |= TypeMask{1} << i;
    if (IsXlaDeviceType(types_[i])) xla_types_ |= TypeMask{1} << i;
  }
  for (const Device& d : devices.devices()) {
    device_bits_.push_back(TypeBit(d.type()));
  }
}

TypeMask KernelSupport::TypeBit(std::string_view type) const {
  for (size_t i = 0; i < types_.size(); ++i) {
    if (types_[i] == type) return TypeMask{1} << i;
  }
  return 0;
}

TypeMask KernelSupport::ComputeMask(const OpInfo& info, const NodeDef& node,
                                    bool* mismatch) const {
  TypeMask mask = 0;
  *mismatch = false;
  for (size_t i = 0; i < types_.size(); ++i) {
    if (!info.HasKernelFor(types_[i])) continue;
    if (info.KernelSupports(types_[i], node)) {
      mask |= TypeMask{1} << i;
    } else {
      *mismatch = true;
    }
  }
  return mask;
}

KernelSupport::OpEntry& KernelSupport::Entry(std::string_view op,
                                             const NodeDef& node) {
  if (last_entry_ != nullptr && *last_op_ == op) return *last_entry_;
  auto it = entries_.find(std::string(op));
  if (it != entries_.end()) {
    last_op_ = &it->first;
    last_entry_ = &it->second;
    return it->second;
  }
  OpEntry entry;
  entry.info = ops_.LookUpOpInfo(op);
  if (entry.info != nullptr) {
    for (const auto& [type, constraint] : entry.info->kernel_type_constraints) {
      const std::string& attr = constraint.first;
      auto& names = entry.constraint_attrs;
      if (std::find(names.begin(), names.end(), attr) == names.end()) {
        names.push_back(attr);
      }
    }
    std::sort(entry.constraint_attrs.begin(), entry.constraint_attrs.end());
    entry.constrained = !entry.constraint_attrs.empty();
    if (!entry.constrained) {
      entry.mask = ComputeMask(*entry.info, node, &entry.mismatch);
    }
  } else if (ops_.IsFunction(op)) {
    // Function calls are not in the kernel registry: TensorFlow assumes every
    // device type supports them.
    entry.function = true;
    entry.mask = all_types_;
  } else {
    // dfg's choice for ops it does not know: only CPU runs them.
    entry.unknown = true;
    entry.mask = TypeBit("CPU");
  }
  it = entries_.emplace(std::string(op), std::move(entry)).first;
  last_op_ = &it->first;
  last_entry_ = &it->second;
  return it->second;
}

TypeMask KernelSupport::SupportedTypes(std::string_view op, const NodeDef& node,
                                       bool* attr_mismatch, bool* unknown) {
  OpEntry& entry = Entry(op, node);
  if (unknown != nullptr) *unknown = entry.unknown;
  if (!entry.constrained) {
    *attr_mismatch = entry.mismatch;
    return entry.mask;
  }
  std::string key(op);
  for (const std::string& attr : entry.constraint_attrs) {
    key.push_back('\0');
    auto it = node.attr().find(attr);
    if (it == node.attr().end()) {
      key.push_back('\1');
    } else if (it->second.value_case() == AttrValue::kType) {
      DataType type = it->second.type();
      key.push_back('\2');
      key.append(reinterpret_cast<const char*>(&type), sizeof(type));
    } else {
      key.push_back('\3');
      key += it->second.SerializeAsString();
    }
  }
  auto cached = by_attrs_.find(key);
  if (cached == by_attrs_.end()) {
    bool mismatch = false;
    TypeMask mask = ComputeMask(*entry.info, node, &mismatch);
    cached = by_attrs_.emplace(std::move(key), std::pair(mask, mismatch)).first;
  }
  *attr_mismatch = cached->second.second;
  return cached->second.first;
}

std::string KernelSupport::TypeNames(TypeMask mask,
                                     std::string_view sep) const {
  std::string out;
  for (size_t i = 0; i < types_.size(); ++i) {
    if (mask & (TypeMask{1} << i)) {
      out += types_[i];
      out += sep;
    }
  }
  return out;
}

std::string KernelSupport::KernelsRegisteredForOp(std::string_view op) const {
  const OpInfo* info = ops_.LookUpOpInfo(op);
  if (info == nullptr || info->kernel_device_types.empty()) {
    return "  <no registered kernels>\n";
  }
  std::string out;
  for (const std::string& type : info->kernel_device_types) {
    out += fmt::format("  device='{}'", type);
    auto it = info->kernel_type_constraints.find(type);
    if (it != info->kernel_type_constraints.end()) {
      std::vector<std::string> names;
      for (DataType t : it->second.second) {
        names.push_back(tensorflow::DataType_Name(t));
      }
      out +=
          fmt::format("; {} in [{}]", it->second.first, fmt::join(names, ", "));
    }
    out += "\n";
  }
  return out;
}

}  // namespace dfg::place_internal
