// FractionalMaxPool / FractionalAvgPool with seeds: the pooling sequences
// TensorFlow 2.21 draws for seed 7, seed2 3 over 7 rows at ratio 1.6, and
// the pooled values of the column [1 5 2 4 3 0 6].
#include <fmt/format.h>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

std::string Node(const char* op, bool pseudo, bool overlapping) {
  return fmt::format(
      "name: 'f' op: '{}' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} "
      "attr {{ key: 'pooling_ratio' value {{ list {{ f: 1 f: 1.6 f: 1 f: 1 "
      "}} }} }} attr {{ key: 'pseudo_random' value {{ b: {} }} }} "
      "attr {{ key: 'overlapping' value {{ b: {} }} }} "
      "attr {{ key: 'deterministic' value {{ b: true }} }} "
      "attr {{ key: 'seed' value {{ i: 7 }} }} "
      "attr {{ key: 'seed2' value {{ i: 3 }} }}",
      op, pseudo, overlapping);
}

const std::vector<float> kColumn = {1, 5, 2, 4, 3, 0, 6};

TEST_CASE("FractionalMaxPool draws TensorFlow's seeded sequences",
          "[kernels]") {
  const Tensor x = MakeTensor<float>({1, 7, 1, 1}, kColumn);
  auto random = RunKernel(Node("FractionalMaxPool", false, false), {x});
  REQUIRE(random.status.ok());
  CHECK(Flat<float>(random.out(0)) == "[1,4,1,1] 5 4 3 6");
  CHECK(Flat<int64_t>(random.out(1)) == "[5] 0 2 4 6 7");
  CHECK(Flat<int64_t>(random.out(2)) == "[2] 0 1");
  auto pseudo = RunKernel(Node("FractionalMaxPool", true, false), {x});
  REQUIRE(pseudo.status.ok());
  CHECK(Flat<float>(pseudo.out(0)) == "[1,4,1,1] 5 2 4 6");
  CHECK(Flat<int64_t>(pseudo.out(1)) == "[5] 0 2 3 5 7");
}

TEST_CASE("overlapping FractionalAvgPool shares the region boundaries",
          "[kernels]") {
  auto r = RunKernel(Node("FractionalAvgPool", true, true),
                     {MakeTensor<float>({1, 7, 1, 1}, kColumn)});
  REQUIRE(r.status.ok());
  // Regions rows [0,2], [2,3], [3,5], [5,6].
  CHECK(Flat<float>(r.out(0)) == "[1,4,1,1] 2.6666667 3 2.3333333 3");
}

}  // namespace
}  // namespace dfg
