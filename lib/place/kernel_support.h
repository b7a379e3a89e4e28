// Internal to lib/place: which device types of a device set have a kernel for
// a node (TensorFlow's SupportedDeviceTypesForNode), as bit masks over the
// set's prioritized type list, cached per op and per value of the attrs that
// kernel registrations constrain.
#ifndef DFG_LIB_PLACE_KERNEL_SUPPORT_H_
#define DFG_LIB_PLACE_KERNEL_SUPPORT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/graph/graph.h"
#include "lib/graph/op_registry.h"
#include "lib/place/device_set.h"

namespace dfg::place_internal {

using TypeMask = uint64_t;
inline constexpr int kMaxDeviceTypes = 64;

class KernelSupport {
 public:
  // `devices` must have at most kMaxDeviceTypes distinct types.
  KernelSupport(const DeviceSet& devices, const OpLookup& ops);

  // The set's device types, best first; bit i of a mask is types()[i].
  const std::vector<std::string>& types() const { return types_; }
  TypeMask all_types() const { return all_types_; }
  // The bit of `type`, or 0 when no device has that type.
  TypeMask TypeBit(std::string_view type) const;
  // Bit of each device of the set, by device index.
  TypeMask DeviceBit(int device) const { return device_bits_[device]; }
  // Bits of the XLA device types (XLA_CPU, XLA_GPU, TPU, *_JIT).
  TypeMask xla_types() const { return xla_types_; }

  // The types that support `node`. `*attr_mismatch` is set when some kernel
  // exists for the op but rejects the node's attrs; `*unknown` (may be null)
  // when neither the registry nor the library knows the op.
  TypeMask SupportedTypes(std::string_view op, const NodeDef& node,
                          bool* attr_mismatch, bool* unknown = nullptr);

  // Calls of library functions are not in the registry.
  bool IsFunctionCall(std::string_view op, const NodeDef& node) {
    return Entry(op, node).function;
  }

  // "GPU CPU " (each type followed by `sep`) for the types in `mask`.
  std::string TypeNames(TypeMask mask, std::string_view sep) const;
  // TensorFlow's KernelsRegisteredForOp: "  device='CPU'\n  device='GPU';
  // T in [DT_FLOAT]\n", or "  <no registered kernels>\n".
  std::string KernelsRegisteredForOp(std::string_view op) const;

 private:
  struct OpEntry {
    const OpInfo* info = nullptr;
    bool function = false;
    bool unknown = false;
    bool constrained = false;  // the mask depends on attrs
    TypeMask mask = 0;         // when not constrained
    bool mismatch = false;
    std::vector<std::string> constraint_attrs;
  };
  OpEntry& Entry(std::string_view op, const NodeDef& node);
  TypeMask ComputeMask(const OpInfo& info, const NodeDef& node,
                       bool* mismatch) const;

  const OpLookup& ops_;
  std::vector<std::string> types_;
  TypeMask all_types_ = 0;
  TypeMask xla_types_ = 0;
  std::vector<TypeMask> device_bits_;
  std::unordered_map<std::string, OpEntry> entries_;  // stable addresses
  // Graphs repeat ops in runs; the last entry answers without hashing.
  const std::string* last_op_ = nullptr;
  OpEntry* last_entry_ = nullptr;
  std::unordered_map<std::string, std::pair<TypeMask, bool>> by_attrs_;
};

}  // namespace dfg::place_internal

#endif  // DFG_LIB_PLACE_KERNEL_SUPPORT_H_
