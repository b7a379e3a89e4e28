// BLAS calls and the intra-op pool. OpenBLAS keeps one process-wide thread
// count and its own spinning threads; changing the count while another
// kernel is inside sgemm is not safe, and its threads compete with the
// intra-op pool. So dfg runs OpenBLAS on one thread and splits a GEMM over
// the step's intra-op pool itself (as TensorFlow's Eigen contractions run on
// its pool): `--intra-threads N` means N threads inside sgemm as it does in
// every other parallel kernel.
#ifndef DFG_LIB_KERNELS_BLAS_THREADS_H_
#define DFG_LIB_KERNELS_BLAS_THREADS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "lib/kernels/intra_op_pool.h"

namespace dfg {

// Sets OpenBLAS to one thread and stops its idle worker threads, once per
// process; thread-safe. Every BLAS call site calls it first (ParallelGemm
// does), and the dfg binary when it starts.
void UseSingleThreadedBlas();

// Row-major C[m,n] = op(A)[m,k] · op(B)[k,n] with op = transpose when asked;
// lda/ldb/ldc are the row strides of A, B and C as stored. The work is split
// into one block of C's rows per pool thread (columns when there are few
// rows); each block is one single-threaded sgemm/dgemm. `pool` may be null.
void ParallelGemm(ThreadPoolInterface* pool, bool trans_a, bool trans_b,
                  int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float* c, int64_t ldc);
void ParallelGemm(ThreadPoolInterface* pool, bool trans_a, bool trans_b,
                  int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                  const double* b, int64_t ldb, double* c, int64_t ldc);

// Called on each block of C [row, row + rows) x [col, col + cols) right
// after its GEMM, on the thread that computed it (while it is in cache): a
// fused bias and activation.
using GemmEpilogue =
    std::function<void(int64_t row, int64_t rows, int64_t col, int64_t cols)>;
void ParallelGemm(ThreadPoolInterface* pool, bool trans_a, bool trans_b,
                  int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float* c, int64_t ldc,
                  const GemmEpilogue& epilogue);

// A batch of GEMMs over strided views, without copies: for every index i
// of the batch dims (row-major over `batch`), C_i = op(A_i) · op(B_i) with
// A_i at a + sum(i[d] * a_strides[d]) (B and C alike); a stride of 0
// broadcasts an operand. Einsum and BatchMatMul lower onto it.
struct BatchedGemm {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  int64_t lda = 0, ldb = 0, ldc = 0;
  std::vector<int64_t> batch, a_strides, b_strides, c_strides;

  // Folds batch dims over which B is broadcast into A's and C's rows when
  // they are laid out as more rows (one GEMM with m * batch rows instead of
  // batch GEMMs: B is packed once), merges adjacent contiguous batch dims
  // and drops dims of size 1.
  void Simplify();
};

// Runs every GEMM of `g` (Simplify first): batch entries split over the pool
// when there are at least as many as threads, else each GEMM split as
// ParallelGemm splits it. `pool` may be null.
void RunBatchedGemm(ThreadPoolInterface* pool, const BatchedGemm& g,
                    const float* a, const float* b, float* c);
void RunBatchedGemm(ThreadPoolInterface* pool, const BatchedGemm& g,
                    const double* a, const double* b, double* c);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_BLAS_THREADS_H_
