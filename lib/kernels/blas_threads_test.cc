// GEMMs split over the intra-op pool give the single GEMM's result, with
// OpenBLAS on one thread.
#include "lib/kernels/blas_threads.h"

#include <random>
#include <vector>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

extern "C" int openblas_get_num_threads(void);

namespace dfg {
namespace {

// Runs each task at once, but counts them.
class CountingPool : public ThreadPoolInterface {
 public:
  explicit CountingPool(int n) : n_(n) {}
  void Schedule(std::function<void()> fn) override {
    ++scheduled;
    fn();
  }
  int NumThreads() const override { return n_; }
  int scheduled = 0;

 private:
  int n_;
};

// Reference: C = op(A) op(B), plain loops in double.
std::vector<float> Reference(bool ta, bool tb, int m, int n, int k,
                             const std::vector<float>& a,
                             const std::vector<float>& b) {
  std::vector<float> c(m * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < k; ++p) {
        sum += double(ta ? a[p * m + i] : a[i * k + p]) *
               double(tb ? b[j * k + p] : b[p * n + j]);
      }
      c[i * n + j] = static_cast<float>(sum);
    }
  }
  return c;
}

TEST_CASE("a GEMM split over the pool equals the whole GEMM", "[kernels]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  struct Shape {
    int m, n, k;
  };
  // Many rows (split by rows), few rows (split by columns), tiny (no split);
  // the first and last through oneDNN's sgemm, the others OpenBLAS's.
  for (Shape s : {Shape{130, 70, 90}, Shape{3, 300, 200}, Shape{4, 4, 4},
                  Shape{16, 256, 256}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        std::vector<float> a(s.m * s.k), b(s.k * s.n);
        for (float& v : a) v = dist(rng);
        for (float& v : b) v = dist(rng);
        std::vector<float> want = Reference(ta, tb, s.m, s.n, s.k, a, b);
        for (int threads : {1, 2, 3}) {
          CountingPool pool(threads);
          std::vector<float> c(s.m * s.n, -99);
          ParallelGemm(&pool, ta, tb, s.m, s.n, s.k, a.data(), ta ? s.m : s.k,
                       b.data(), tb ? s.k : s.n, c.data(), s.n);
          INFO("m=" << s.m << " n=" << s.n << " k=" << s.k << " ta=" << ta
                    << " tb=" << tb << " threads=" << threads);
          for (size_t i = 0; i < c.size(); ++i) {
            REQUIRE(c[i] == Approx(want[i]).margin(1e-4));
          }
          if (threads > 1 && s.m * s.n * s.k >= (1 << 18)) {
            CHECK(pool.scheduled == threads - 1);
          } else {
            CHECK(pool.scheduled == 0);
          }
        }
      }
    }
  }
  CHECK(openblas_get_num_threads() == 1);
}

TEST_CASE("MatMul runs its GEMM over the step's pool", "[kernels]") {
  auto tester = testing::KernelTester::Create(
      "name: 'm' op: 'MatMul' attr { key: 'T' value { type: DT_FLOAT } }");
  REQUIRE(tester.ok());
  CountingPool two(2);
  (*tester)->services().intra_op_pool = &two;
  std::vector<float> a(128 * 64, 1.0f), b(64 * 64, 2.0f);
  auto run = (*tester)->Run({testing::MakeTensor<float>({128, 64}, a),
                             testing::MakeTensor<float>({64, 64}, b)});
  REQUIRE(run.status.ok());
  CHECK(run.out(0).flat<float>()[0] == 128.0f);
  CHECK(run.out(0).flat<float>()[128 * 64 - 1] == 128.0f);
  CHECK(two.scheduled == 1);
}

}  // namespace
}  // namespace dfg
