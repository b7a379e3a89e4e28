// dfg_op_list: the ops dfg knows, one per line, as "<op>\t<kernel|no-kernel>"
// (kernel: at least one CPU kernel is registered). Used by the op-coverage
// list (docs/ops/) and its oracle section; not installed.
#include <cstdio>
#include <set>
#include <string>

#include "lib/graph/op_registry.h"
#include "lib/kernels/kernel_registry.h"

int main() {
  const auto kernels = dfg::KernelRegistry::Global().OpNames(dfg::kDeviceCpu);
  const std::set<std::string> with_kernel(kernels.begin(), kernels.end());
  for (const std::string& op : dfg::OpRegistry::Global().OpNames()) {
    std::printf("%s\t%s\n", op.c_str(),
                with_kernel.count(op) ? "kernel" : "no-kernel");
  }
  return 0;
}
