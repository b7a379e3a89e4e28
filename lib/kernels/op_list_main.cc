// dfg_op_list: the ops dfg knows, one per line, as "<op>\t<kernel|no-kernel>"
// (kernel: at least one CPU kernel is registered). With --constraints, one
// line per CPU kernel registration instead: "<op>\t<attr>=<type>,<type>;..."
// (an empty second column: any type). Used by the op list's tests
// (docs/OPS.md); a developer tool, not installed.
#include <cstdio>
#include <cstring>
#include <set>
#include <string>

#include "lib/graph/op_registry.h"
#include "lib/graph/types.h"
#include "lib/kernels/kernel_registry.h"

namespace {

void PrintConstraints(const dfg::KernelRegistry& kernels) {
  for (const std::string& op : kernels.OpNames(dfg::kDeviceCpu)) {
    for (const dfg::KernelRegistration* reg : kernels.Registrations(op)) {
      if (reg->device_type != dfg::kDeviceCpu) continue;
      std::string line;
      for (const dfg::KernelTypeConstraint& c : reg->constraints) {
        if (!line.empty()) line += ';';
        line += c.attr + '=';
        for (size_t i = 0; i < c.allowed.size(); ++i) {
          if (i > 0) line += ',';
          line += dfg::DataTypeString(c.allowed[i]);
        }
      }
      std::printf("%s\t%s\n", op.c_str(), line.c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const dfg::KernelRegistry& kernels = dfg::KernelRegistry::Global();
  if (argc > 1 && std::strcmp(argv[1], "--constraints") == 0) {
    PrintConstraints(kernels);
    return 0;
  }
  const auto names = kernels.OpNames(dfg::kDeviceCpu);
  const std::set<std::string> with_kernel(names.begin(), names.end());
  for (const std::string& op : dfg::OpRegistry::Global().OpNames()) {
    std::printf("%s\t%s\n", op.c_str(),
                with_kernel.count(op) ? "kernel" : "no-kernel");
  }
  return 0;
}
