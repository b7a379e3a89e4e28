// Which kernel runs a node: registrations by (op, device type) with optional
// dtype constraints on type attrs, as TensorFlow's REGISTER_KERNEL_BUILDER.
//
// No static constructors: KernelRegistry::Global() is filled once by
// RegisterAllKernels, which calls one Register*Kernels function per kernel
// file. dfg has CPU kernels only (device type "CPU").
#ifndef DFG_LIB_KERNELS_KERNEL_REGISTRY_H_
#define DFG_LIB_KERNELS_KERNEL_REGISTRY_H_

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/types.h"
#include "lib/kernels/op_kernel.h"
#include "lib/proto/node_def.pb.h"

namespace dfg {

inline constexpr std::string_view kDeviceCpu = "CPU";

using KernelFactory = std::unique_ptr<OpKernel> (*)(OpKernelConstruction*);

// "type attr `attr` must be one of `allowed`".
struct KernelTypeConstraint {
  std::string attr;
  std::vector<DataType> allowed;
};

struct KernelRegistration {
  std::string op;
  std::string device_type;
  std::vector<KernelTypeConstraint> constraints;
  KernelFactory factory = nullptr;
};

template <typename K>
std::unique_ptr<OpKernel> MakeKernel(OpKernelConstruction* ctx) {
  return std::make_unique<K>(ctx);
}

class KernelRegistry {
 public:
  // Every kernel of lib/kernels (RegisterAllKernels), built on first use;
  // thread-safe.
  static const KernelRegistry& Global();

  void Register(KernelRegistration registration);
  // Shorthand: Register<IdentityOp>("Identity") on CPU, any dtype.
  template <typename K>
  void Register(std::string op,
                std::vector<KernelTypeConstraint> constraints = {}) {
    Register(KernelRegistration{std::move(op), std::string(kDeviceCpu),
                                std::move(constraints), &MakeKernel<K>});
  }

  // The registration matching the node's attrs on `device_type` (nullptr if
  // none). Missing constrained attrs fall back to the OpDef defaults.
  const KernelRegistration* Find(const NodeDef& node,
                                 std::string_view device_type) const;
  bool HasKernel(const NodeDef& node, std::string_view device_type) const {
    return Find(node, device_type) != nullptr;
  }
  // Ops with at least one kernel for `device_type`, sorted.
  std::vector<std::string> OpNames(std::string_view device_type) const;
  // Every registration of `op` (any device), in registration order.
  std::vector<const KernelRegistration*> Registrations(
      std::string_view op) const;

  // Builds the kernel for `node`, whose resolved dtypes are given
  // (InOutTypesForNode). Errors:
  //  - no matching registration (kInvalidArgument), TensorFlow's wording:
  //    "No OpKernel was registered to support Op '<op>' used by {{node <n>}}
  //    with these attrs: [T=DT_BOOL]\nRegistered devices: [CPU]\n
  //    Registered kernels:\n  device='CPU'; T in [DT_FLOAT, ...]" (or
  //    "  <no registered kernels>");
  //  - the kernel rejects its attrs (the kernel's code): "<msg>\n\t
  //    [[{{node <n>}}]]" (TensorFlow logs "Executor failed to create kernel."
  //    and returns the error without that prefix).
  // `definition_outlives_kernel`: `node` and the dtype vectors stay alive
  // and unchanged as long as the kernel (an executor's graph): the kernel
  // refers to them instead of copying them.
  StatusOr<std::unique_ptr<OpKernel>> CreateKernel(
      const NodeDef& node, std::string_view device_type,
      const std::vector<DataType>& input_types,
      const std::vector<DataType>& output_types,
      bool definition_outlives_kernel = false) const;

 private:
  std::unordered_map<std::string, std::vector<KernelRegistration>> kernels_;
};

// Fills `registry` with every kernel of lib/kernels.
void RegisterAllKernels(KernelRegistry* registry);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_KERNEL_REGISTRY_H_
