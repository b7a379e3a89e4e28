// Registration of the quantized-op kernels, one function per sub-family
// file (quant_ops_*.cc).
#include "lib/kernels/kernel_registry.h"

namespace dfg {

void RegisterQuantFakeKernels(KernelRegistry* r);
void RegisterQuantQdqKernels(KernelRegistry* r);
void RegisterQuantRequantKernels(KernelRegistry* r);
void RegisterQuantNnKernels(KernelRegistry* r);
void RegisterQuantConvKernels(KernelRegistry* r);
void RegisterQuantBinaryKernels(KernelRegistry* r);
void RegisterQuantArrayKernels(KernelRegistry* r);
void RegisterQuantUniformKernels(KernelRegistry* r);
void RegisterQuantUniformDotKernels(KernelRegistry* r);
void RegisterQuantImageKernels(KernelRegistry* r);

void RegisterQuantKernels(KernelRegistry* r) {
  RegisterQuantFakeKernels(r);
  RegisterQuantQdqKernels(r);
  RegisterQuantRequantKernels(r);
  RegisterQuantNnKernels(r);
  RegisterQuantConvKernels(r);
  RegisterQuantBinaryKernels(r);
  RegisterQuantArrayKernels(r);
  RegisterQuantUniformKernels(r);
  RegisterQuantUniformDotKernels(r);
  RegisterQuantImageKernels(r);
}

}  // namespace dfg
