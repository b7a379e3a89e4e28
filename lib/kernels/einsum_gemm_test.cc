// Einsum and BatchMatMul as strided batched GEMMs (einsum_gemm.h,
// BatchedGemm): the plans for attention's equations, and the results of
// the kernels against a plain sum over every label, on 1 and on 2 threads.
#include "lib/kernels/einsum_gemm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "lib/kernels/bench_pool.h"
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::MakeTensor;
using testing::RunKernel;

std::vector<int> Labels(const std::string& s) {
  std::vector<int> v;
  for (char c : s) v.push_back(c - 'A');
  return v;
}

std::optional<BatchedGemm> Plan(const std::string& a,
                                std::vector<int64_t> a_dims,
                                const std::string& b,
                                std::vector<int64_t> b_dims,
                                const std::string& out,
                                std::vector<int64_t> out_dims) {
  return PlanEinsumGemm({Labels(a), a_dims}, {Labels(b), b_dims},
                        {Labels(out), out_dims});
}

TEST_CASE("attention's einsums are GEMMs over strided heads, no copies",
          "[kernels]") {
  // Scores: [B,T,N,H] x [B,S,N,H] -> [B,N,T,S].
  auto scores = Plan("BTNH", {8, 32, 4, 16}, "BSNH", {8, 32, 4, 16}, "BNTS",
                     {8, 4, 32, 32});
  REQUIRE(scores);
  CHECK((scores->m == 32 && scores->n == 32 && scores->k == 16));
  CHECK((!scores->trans_a && scores->trans_b));
  CHECK((scores->lda == 64 && scores->ldb == 64 && scores->ldc == 32));
  CHECK(scores->batch == std::vector<int64_t>{8, 4});
  CHECK(scores->a_strides == std::vector<int64_t>{2048, 16});
  CHECK(scores->c_strides == std::vector<int64_t>{4096, 1024});
  // Context: [B,N,T,S] x [B,S,N,H] -> [B,T,N,H].
  auto context = Plan("BNTS", {8, 4, 32, 32}, "BSNH", {8, 32, 4, 16}, "BTNH",
                      {8, 32, 4, 16});
  REQUIRE(context);
  CHECK((context->m == 32 && context->n == 16 && context->k == 32));
  CHECK((!context->trans_a && !context->trans_b));
  CHECK((context->lda == 32 && context->ldb == 64 && context->ldc == 64));
  // EinsumDense: the batch of rows against shared weights is one GEMM.
  auto dense =
      Plan("ABC", {4, 64, 128}, "CDE", {128, 2, 64}, "ABDE", {4, 64, 2, 64});
  REQUIRE(dense);
  CHECK((dense->m == 256 && dense->n == 128 && dense->k == 128));
  CHECK(dense->batch.empty());
  auto out_dense =
      Plan("ABCD", {4, 64, 2, 64}, "CDE", {2, 64, 128}, "ABE", {4, 64, 128});
  REQUIRE(out_dense);
  CHECK(
      (out_dense->m == 256 && out_dense->k == 128 && out_dense->batch.empty()));
}

TEST_CASE("einsums that are not a plain product get no GEMM plan",
          "[kernels]") {
  CHECK_FALSE(Plan("IJ", {2, 3}, "JK", {3, 4}, "KI", {4, 2}));  // C^T
  CHECK_FALSE(Plan("IJ", {2, 3}, "JK", {3, 4}, "I", {2}));      // K summed
  CHECK_FALSE(Plan("II", {2, 2}, "IJ", {2, 3}, "IJ", {2, 3}));  // diagonal
  CHECK_FALSE(Plan("IJ", {2, 3}, "JK", {3, 4}, "IIK", {2, 2, 4}));
  CHECK_FALSE(Plan("IJ", {2, 3}, "JK", {2, 4}, "IK", {2, 4}));  // sizes
  CHECK_FALSE(Plan("IJ", {0, 3}, "JK", {3, 4}, "IK", {0, 4}));  // empty
  // M labels out of order in the output: not one strided dim.
  CHECK_FALSE(Plan("IJK", {2, 3, 4}, "KL", {4, 5}, "JIL", {3, 2, 5}));
}

// out[...] = sum over the labels not in out of a[...] * b[...], in double.
std::vector<double> Naive(const std::string& eq, const std::vector<int64_t>& ad,
                          const std::vector<double>& a,
                          const std::vector<int64_t>& bd,
                          const std::vector<double>& b,
                          std::vector<int64_t>* out_dims) {
  const size_t comma = eq.find(','), arrow = eq.find("->");
  const std::string as = eq.substr(0, comma),
                    bs = eq.substr(comma + 1, arrow - comma - 1),
                    os = eq.substr(arrow + 2);
  std::map<char, int64_t> size;
  for (size_t i = 0; i < as.size(); ++i) size[as[i]] = ad[i];
  for (size_t i = 0; i < bs.size(); ++i) {
    size[bs[i]] = std::max(size[bs[i]], bd[i]);
  }
  out_dims->clear();
  for (char c : os) out_dims->push_back(size[c]);
  std::vector<char> all;
  for (auto& [c, n] : size) all.push_back(c);
  auto offset = [&](const std::string& s, const std::vector<int64_t>& dims,
                    std::map<char, int64_t>& idx) {
    int64_t off = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      off = off * dims[i] + (dims[i] == 1 ? 0 : idx[s[i]]);
    }
    return off;
  };
  int64_t total = 1, out_total = 1;
  for (char c : all) total *= size[c];
  for (int64_t d : *out_dims) out_total *= d;
  std::vector<double> out(out_total, 0.0);
  std::map<char, int64_t> idx;
  for (int64_t e = 0; e < total; ++e) {
    int64_t rest = e;
    for (int i = static_cast<int>(all.size()) - 1; i >= 0; --i) {
      idx[all[i]] = rest % size[all[i]];
      rest /= size[all[i]];
    }
    out[offset(os, *out_dims, idx)] +=
        a[offset(as, ad, idx)] * b[offset(bs, bd, idx)];
  }
  return out;
}

std::vector<double> Random(int64_t n, int seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

int64_t Product(const std::vector<int64_t>& d) {
  int64_t p = 1;
  for (int64_t x : d) p *= x;
  return p;
}

template <typename T>
Tensor Make(const std::vector<int64_t>& dims, const std::vector<double>& v) {
  return MakeTensor<T>(dims, std::vector<T>(v.begin(), v.end()));
}

// `naive_eq`: the equation with "..." spelled out, when it has one.
template <typename T>
void CheckEinsum(const std::string& eq, const std::vector<int64_t>& ad,
                 const std::vector<int64_t>& bd, std::string naive_eq = "") {
  const std::vector<double> a = Random(Product(ad), 1),
                            b = Random(Product(bd), 2);
  std::vector<int64_t> out_dims;
  const std::vector<double> want =
      Naive(naive_eq.empty() ? eq : naive_eq, ad, a, bd, b, &out_dims);
  const char* dtype = std::is_same_v<T, float> ? "DT_FLOAT" : "DT_DOUBLE";
  auto r = RunKernel(
      fmt::format("name: 'e' op: 'Einsum' attr {{ key: 'T' value {{ type: {} "
                  "}} }} attr {{ key: 'N' value {{ i: 2 }} }} attr {{ key: "
                  "'equation' value {{ s: '{}' }} }}",
                  dtype, eq),
      {Make<T>(ad, a), Make<T>(bd, b)});
  INFO(eq);
  REQUIRE(r.status.ok());
  const Tensor& out = r.out(0);
  CHECK(std::vector<int64_t>(out.shape().dim_sizes().begin(),
                             out.shape().dim_sizes().end()) == out_dims);
  auto got = out.flat<T>();
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(std::abs(double(got[i]) - want[i]) <= 1e-5);
  }
}

TEST_CASE("Einsum products agree with a plain sum over the labels",
          "[kernels]") {
  const std::vector<
      std::tuple<std::string, std::vector<int64_t>, std::vector<int64_t>>>
      cases = {
          {"btnh,bsnh->bnts", {2, 5, 3, 4}, {2, 6, 3, 4}},
          {"bnts,bsnh->btnh", {2, 3, 5, 6}, {2, 6, 3, 4}},
          {"abc,cde->abde", {2, 3, 4}, {4, 2, 5}},
          {"abcd,cde->abe", {2, 3, 4, 5}, {4, 5, 3}},
          {"ij,jk->ik", {3, 4}, {4, 5}},
          {"ji,jk->ik", {4, 3}, {4, 5}},
          {"ij,kj->ik", {3, 4}, {5, 4}},
          {"ji,kj->ik", {4, 3}, {5, 4}},
          {"bij,jk->bik", {3, 2, 4}, {4, 5}},
          {"bij,bjk->bik", {3, 1, 4}, {3, 4, 1}},
          {"ij,j->i", {3, 4}, {4}},
          {"i,j->ij", {3}, {4}},
          {"bi,bi->b", {3, 4}, {3, 4}},
          {"ij,jk->ki", {3, 4}, {4, 5}},       // general path
          {"ijk,kl->jil", {2, 3, 4}, {4, 5}},  // general path
          {"bij,xjk->bxik", {2, 3, 4}, {3, 4, 2}},
      };
  for (const auto& [eq, ad, bd] : cases) {
    CheckEinsum<float>(eq, ad, bd);
    CheckEinsum<double>(eq, ad, bd);
  }
  // Broadcast batch labels ("..." of equal rank, one side of size 1).
  CheckEinsum<float>("...ij,...jk->...ik", {2, 1, 3, 4}, {1, 3, 4, 2},
                     "xyij,xyjk->xyik");
}

TEST_CASE("BatchMatMulV2 broadcasts and folds batches into rows", "[kernels]") {
  struct Case {
    std::vector<int64_t> x, y;
    bool adj_x, adj_y;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4}, {4, 5}, false, false},
      {{2, 3, 4}, {5, 4}, false, true},
      {{2, 4, 3}, {4, 5}, true, false},
      {{2, 1, 3, 4}, {3, 4, 5}, false, false},
      {{3, 4}, {2, 4, 5}, false, false},
      {{2, 1, 4}, {1, 4, 5}, false, false},
      {{2, 2, 3, 4}, {2, 1, 4, 5}, false, false},
  };
  for (const Case& c : cases) {
    const std::vector<double> x = Random(Product(c.x), 3),
                              y = Random(Product(c.y), 4);
    // As an einsum: batch dims right-aligned, x's matrix "ij", y's "jk".
    const int xr = static_cast<int>(c.x.size()) - 2,
              yr = static_cast<int>(c.y.size()) - 2, br = std::max(xr, yr);
    std::string xs, ys, os;
    std::vector<int64_t> xd, yd;
    for (int i = 0; i < br; ++i) os += char('p' + i);
    for (int i = 0; i < xr; ++i) xs += char('p' + br - xr + i);
    for (int i = 0; i < yr; ++i) ys += char('p' + br - yr + i);
    xd.assign(c.x.begin(), c.x.begin() + xr);
    yd.assign(c.y.begin(), c.y.begin() + yr);
    xs += c.adj_x ? "ji" : "ij";
    ys += c.adj_y ? "kj" : "jk";
    os += "ik";
    for (int i = xr; i < xr + 2; ++i) xd.push_back(c.x[i]);
    for (int i = yr; i < yr + 2; ++i) yd.push_back(c.y[i]);
    std::vector<int64_t> out_dims;
    const std::vector<double> want =
        Naive(xs + "," + ys + "->" + os, xd, x, yd, y, &out_dims);
    auto r = RunKernel(
        fmt::format("name: 'm' op: 'BatchMatMulV2' attr {{ key: 'T' value {{ "
                    "type: DT_FLOAT }} }} attr {{ key: 'adj_x' value {{ b: {} "
                    "}} }} attr {{ key: 'adj_y' value {{ b: {} }} }}",
                    c.adj_x, c.adj_y),
        {Make<float>(c.x, x), Make<float>(c.y, y)});
    INFO(xs + "," + ys + "->" + os);
    REQUIRE(r.status.ok());
    auto got = r.out(0).flat<float>();
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      CHECK(std::abs(double(got[i]) - want[i]) <= 1e-5);
    }
  }
}

TEST_CASE("batched GEMMs split over the pool give the inline result",
          "[kernels]") {
  BenchPool pool(2);
  auto g =
      Plan("BTNH", {3, 5, 2, 4}, "BSNH", {3, 6, 2, 4}, "BNTS", {3, 2, 5, 6});
  REQUIRE(g);
  std::vector<float> a(3 * 5 * 2 * 4), b(3 * 6 * 2 * 4);
  std::iota(a.begin(), a.end(), 0.0f);
  std::iota(b.begin(), b.end(), 1.0f);
  std::vector<float> inline_c(3 * 2 * 5 * 6), pool_c(inline_c.size());
  RunBatchedGemm(nullptr, *g, a.data(), b.data(), inline_c.data());
  RunBatchedGemm(&pool, *g, a.data(), b.data(), pool_c.data());
  CHECK(inline_c == pool_c);
  // One big GEMM (the folded batch) split by rows.
  auto dense = Plan("ABC", {8, 64, 64}, "CD", {64, 128}, "ABD", {8, 64, 128});
  REQUIRE((dense && dense->batch.empty()));
  std::vector<float> x(8 * 64 * 64, 0.5f), w(64 * 128, 0.25f), c1(8 * 64 * 128),
      c2(c1.size());
  RunBatchedGemm(nullptr, *dense, x.data(), w.data(), c1.data());
  RunBatchedGemm(&pool, *dense, x.data(), w.data(), c2.data());
  CHECK(c1 == c2);
  CHECK(c1[0] == 64 * 0.125f);
}

}  // namespace
}  // namespace dfg
