#include "lib/kernels/blas_threads.h"

#include <cblas.h>
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <mutex>

#include "lib/kernels/omp_api.h"

namespace dfg {
namespace {

// Below this many multiply-adds a GEMM is not split.
constexpr int64_t kMinSplitWork = int64_t{1} << 18;
// Blocks narrower than this lose OpenBLAS's register blocking.
constexpr int64_t kMinBlock = 16;

// From this many multiply-adds on, float GEMMs go to oneDNN's sgemm: on
// AVX-512 machines it runs 1.2-2.4x OpenBLAS's speed on transformer shapes
// ([256,128]x[128,512]: 0.30 against 0.70 ms; [16,256]x[256,256]: 19
// against 28 us), while OpenBLAS's lower call overhead wins below (an
// attention head's [32,16]x[16,32]: 0.6 against 0.8 us). Chosen once per
// GEMM, before it is split, so every block of one product takes the same
// path.
constexpr int64_t kMinOneDnnWork = int64_t{1} << 19;

bool UseOneDnn(int64_t m, int64_t n, int64_t k) {
  return m * n * k >= kMinOneDnnWork;
}

void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a,
          int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
          bool onednn) {
  if (onednn) {
    // The OpenMP build of libdnnl sizes its team by the calling thread's
    // omp_get_max_threads(): one, so the split stays dfg's (as in
    // onednn_conv.cc).
    thread_local const bool one_thread = (omp_set_num_threads(1), true);
    (void)one_thread;
    dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb,
               0.0f, c, ldc);
    return;
  }
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb,
              0.0f, c, ldc);
}
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a,
          int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc,
          bool /*onednn*/) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb, 0.0,
              c, ldc);
}

template <typename T>
void Split(ThreadPoolInterface* pool, bool ta, bool tb, int64_t m, int64_t n,
           int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
           int64_t ldc, const GemmEpilogue* epilogue = nullptr) {
  UseSingleThreadedBlas();
  const int threads = pool != nullptr ? pool->NumThreads() : 1;
  if (m == 0 || n == 0) return;
  const bool onednn = UseOneDnn(m, n, k);
  if (threads <= 1 || m * n * k < kMinSplitWork) {
    Gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, onednn);
    if (epilogue != nullptr) (*epilogue)(0, m, 0, n);
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
        Gemm(ta, tb, len, n, k, a_blk, lda, b, ldb, c + begin * ldc, ldc,
             onednn);
        if (epilogue != nullptr) (*epilogue)(begin, len, 0, n);
      } else {  // columns [begin, begin+len) of op(B) and C
        const T* b_blk = tb ? b + begin * ldb : b + begin;
        Gemm(ta, tb, m, len, k, a, lda, b_blk, ldb, c + begin, ldc, onednn);
        if (epilogue != nullptr) (*epilogue)(0, m, begin, len);
      }
    }
  });
}

template <typename T>
void RunBatched(ThreadPoolInterface* pool, const BatchedGemm& g, const T* a,
                const T* b, T* c) {
  int64_t batches = 1;
  for (int64_t d : g.batch) batches *= d;
  if (batches == 0 || g.m == 0 || g.n == 0) return;
  const int rank = static_cast<int>(g.batch.size());
  auto one = [&](ThreadPoolInterface* inner, int64_t i) {
    int64_t ao = 0, bo = 0, co = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t idx = i % g.batch[d];
      i /= g.batch[d];
      ao += idx * g.a_strides[d];
      bo += idx * g.b_strides[d];
      co += idx * g.c_strides[d];
    }
    Split(inner, g.trans_a, g.trans_b, g.m, g.n, g.k, a + ao, g.lda, b + bo,
          g.ldb, c + co, g.ldc);
  };
  const int threads = pool != nullptr ? pool->NumThreads() : 1;
  if (batches < threads) {
    for (int64_t i = 0; i < batches; ++i) one(pool, i);
    return;
  }
  UseSingleThreadedBlas();
  ParallelFor(pool, batches, 2 * g.m * g.n * g.k + 1000,
              [&](int64_t b0, int64_t b1) {
                for (int64_t i = b0; i < b1; ++i) one(nullptr, i);
              });
}

}  // namespace

void BatchedGemm::Simplify() {
  // Innermost first: B broadcast, A's rows and C's rows continue into the
  // next batch entry.
  while (!batch.empty() && !trans_a) {
    const size_t d = batch.size() - 1;
    if (batch[d] != 1) {
      if (b_strides[d] != 0) break;
      // One row per entry: the entries' rows are a stride apart.
      const int64_t row_a = m == 1 ? a_strides[d] : lda;
      const int64_t row_c = m == 1 ? c_strides[d] : ldc;
      if (a_strides[d] != m * row_a || c_strides[d] != m * row_c ||
          row_a < std::max<int64_t>(k, 1) || row_c < std::max<int64_t>(n, 1)) {
        break;
      }
      lda = row_a;
      ldc = row_c;
    }
    m *= batch[d];
    batch.pop_back();
    a_strides.pop_back();
    b_strides.pop_back();
    c_strides.pop_back();
  }
  // Drop size-1 dims, merge a dim into the one before when all three
  // operands step over it contiguously.
  std::vector<int64_t> nb, na, nbs, nc;
  for (size_t d = 0; d < batch.size(); ++d) {
    if (batch[d] == 1) continue;
    if (!nb.empty() && na.back() == a_strides[d] * batch[d] &&
        nbs.back() == b_strides[d] * batch[d] &&
        nc.back() == c_strides[d] * batch[d]) {
      nb.back() *= batch[d];
      na.back() = a_strides[d];
      nbs.back() = b_strides[d];
      nc.back() = c_strides[d];
      continue;
    }
    nb.push_back(batch[d]);
    na.push_back(a_strides[d]);
    nbs.push_back(b_strides[d]);
    nc.push_back(c_strides[d]);
  }
  batch = std::move(nb);
  a_strides = std::move(na);
  b_strides = std::move(nbs);
  c_strides = std::move(nc);
}

void RunBatchedGemm(ThreadPoolInterface* pool, const BatchedGemm& g,
                    const float* a, const float* b, float* c) {
  RunBatched(pool, g, a, b, c);
}

void RunBatchedGemm(ThreadPoolInterface* pool, const BatchedGemm& g,
                    const double* a, const double* b, double* c) {
  RunBatched(pool, g, a, b, c);
}

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
                  int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float* c, int64_t ldc,
                  const GemmEpilogue& epilogue) {
  Split(pool, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, &epilogue);
}

void ParallelGemm(ThreadPoolInterface* pool, bool trans_a, bool trans_b,
                  int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                  const double* b, int64_t ldb, double* c, int64_t ldc) {
  Split(pool, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace dfg
