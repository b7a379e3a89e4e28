// The optimizer kernels of training_ext_ops.cc and the Sparse* forms on
// hand-computed updates.
#include <cmath>
#include <mutex>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::KernelTester;
using testing::MakeTensor;

// Runs the ref-form `op` (T = double) with `slots` as ref inputs and
// `rest` as values; returns the run's status.
Status RunRef(const std::string& op, std::vector<Tensor>& slots,
              std::vector<Tensor> rest, const std::string& extra = "") {
  auto k = KernelTester::Create("name: 'opt' op: '" + op +
                                "' attr { key: 'T' value { type: DT_DOUBLE } "
                                "} " +
                                extra);
  if (!k.ok()) return k.status();
  std::vector<std::mutex> mus(slots.size());
  std::vector<TensorValue> in;
  for (size_t i = 0; i < slots.size(); ++i) {
    in.push_back(TensorValue{&slots[i], &mus[i]});
  }
  for (Tensor& t : rest) in.push_back(TensorValue{&t});
  return (*k)->RunValues(in).status;
}

Tensor S(double v) { return MakeTensor<double>({}, {v}); }
Tensor V(std::vector<double> v) {
  return MakeTensor<double>({static_cast<int64_t>(v.size())}, v);
}

TEST_CASE("ApplyProximalGradientDescent shrinks toward zero", "[train_ext]") {
  std::vector<Tensor> slots = {V({1, -2})};
  REQUIRE(RunRef("ApplyProximalGradientDescent", slots,
                 {S(0.5), S(0.1), S(0.2), V({0.4, 0.4})})
              .ok());
  auto v = slots[0].flat<double>();
  CHECK(v[0] == Approx(0.75 / 1.1));
  CHECK(v[1] == Approx(-2.15 / 1.1));
}

TEST_CASE("ApplyAddSign scales the step by the sign agreement", "[train_ext]") {
  std::vector<Tensor> slots = {V({1}), V({0})};
  REQUIRE(
      RunRef("ApplyAddSign", slots, {S(0.1), S(1.0), S(0.5), S(0.9), V({2})})
          .ok());
  CHECK(slots[1].flat<double>()[0] == Approx(0.2));  // m
  CHECK(slots[0].flat<double>()[0] == Approx(1 - 0.1 * 1.5 * 2));
}

TEST_CASE("SparseApplyAdagrad updates a repeated row twice", "[train_ext]") {
  std::vector<Tensor> slots = {V({1, 1, 1}), V({1, 1, 1})};
  REQUIRE(RunRef("SparseApplyAdagrad", slots,
                 {S(1.0), V({1, 1}), MakeTensor<int32_t>({2}, {0, 0})},
                 "attr { key: 'Tindices' value { type: DT_INT32 } }")
              .ok());
  auto var = slots[0].flat<double>();
  CHECK(var[0] == Approx(1 - 1 / std::sqrt(2.0) - 1 / std::sqrt(3.0)));
  CHECK(var[1] == 1);
  CHECK(slots[1].flat<double>()[0] == 3);
}

TEST_CASE("SparseApplyAdagrad rejects an index past var's rows",
          "[train_ext]") {
  std::vector<Tensor> slots = {V({1, 1}), V({1, 1})};
  Status s = RunRef("SparseApplyAdagrad", slots,
                    {S(1.0), V({1}), MakeTensor<int32_t>({1}, {2})},
                    "attr { key: 'Tindices' value { type: DT_INT32 } }");
  CHECK_THAT(s.message(),
             Catch::Matchers::Contains(
                 "Index 2 at offset 0 in indices is out of range"));
}

}  // namespace
}  // namespace dfg
