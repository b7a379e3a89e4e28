#include "lib/kernels/blas_threads.h"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <mutex>

namespace dfg {
namespace {

// Below this many multiply-adds a GEMM is not split.
constexpr int64_t kMinSplitWork = int64_t{1} << 18;
// Blocks narrower than this lose OpenBLAS's register blocking.
constexpr int64_t kMinBlock = 16;

void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a,
          int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb,
              0.0f, c, ldc);
}
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a,
          int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb, 0.0,
              c, ldc);
}

template <typename T>
void Split(ThreadPoolInterface* pool, bool ta, bool tb, int64_t m, int64_t n,
           int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
           int64_t ldc) {
  UseSingleThreadedBlas();
  const int threads = pool != nullptr ? pool->NumThreads() : 1;
  if (m == 0 || n == 0) return;
  if (threads <= 1 || m * n * k < kMinSplitWork) {
    Gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
    return;
  }
  const bool by_rows = m >= n || m >= kMinBlock * threads;
  const int64_t extent = by_rows ? m : n;
  const int64_t blocks =
      std::clamp<int64_t>(extent / kMinBlock, 1, int64_t{threads});
  const int64_t size = (extent + blocks - 1) / blocks;
  // One shard per block: the cost makes ParallelFor split to the block.
  ParallelFor(pool, blocks, int64_t{1} << 40, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t begin = blk * size;
      const int64_t len = std::min(extent, begin + size) - begin;
      if (len <= 0) continue;
      if (by_rows) {  // rows [begin, begin+len) of op(A) and C
        const T* a_blk = ta ? a + begin : a + begin * lda;
        Gemm(ta, tb, len, n, k, a_blk, lda, b, ldb, c + begin * ldc, ldc);
      } else {  // columns [begin, begin+len) of op(B) and C
        const T* b_blk = tb ? b + begin * ldb : b + begin;
        Gemm(ta, tb, m, len, k, a, lda, b_blk, ldb, c + begin, ldc);
      }
    }
  });
}

}  // namespace

void UseSingleThreadedBlas() {
  static std::once_flag once;
  std::call_once(once, [] {
    openblas_set_num_threads(1);
    // OpenBLAS's pthread build starts its worker threads when the library
    // loads, and idle they spin (sched_yield) for a third of a second before
    // they sleep: a busy core in every dfg process. On one thread they never
    // get work, so they are stopped (OpenBLAS starts them again if a caller
    // asks for more threads). The pthread build exports the function without
    // declaring it; other builds may not have it.
    using Shutdown = int (*)();
    if (auto shutdown = reinterpret_cast<Shutdown>(
            dlsym(RTLD_DEFAULT, "blas_thread_shutdown_"))) {
      shutdown();
    }
  });
}

void ParallelGemm(ThreadPoolInterface* pool, bool trans_a, bool trans_b,
                  int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float* c, int64_t ldc) {
  Split(pool, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
}

void ParallelGemm(ThreadPoolInterface* pool, bool trans_a, bool trans_b,
                  int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                  const double* b, int64_t ldb, double* c, int64_t ldc) {
  Split(pool, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace dfg
