// The OpenMP runtime calls dfg makes (libdnnl's OpenMP team size is set
// per thread, see onednn_conv.cc and blas_threads.cc), declared here
// rather than taken from <omp.h>: Debian's omp.h sits in GCC's private
// include directory, which Clang does not search, and LLVM's comes with
// libomp, a second runtime beside the libgomp libdnnl uses (linked by name
// in CMakeLists.txt). These are the OpenMP API's C signatures.
#ifndef DFG_LIB_KERNELS_OMP_API_H_
#define DFG_LIB_KERNELS_OMP_API_H_

extern "C" {
void omp_set_num_threads(int num_threads);
int omp_get_max_threads(void);
}

#endif  // DFG_LIB_KERNELS_OMP_API_H_
