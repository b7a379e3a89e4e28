// Einsum. Expected values are hand-computed.
#include <fmt/format.h>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::KernelRun;
using testing::MakeTensor;
using testing::RunKernel;

KernelRun Einsum(const std::string& equation, std::initializer_list<Tensor> in,
                 const std::string& dtype = "DT_FLOAT") {
  return RunKernel(
      fmt::format("name: 'e' op: 'Einsum' attr {{ key: 'T' value {{ type: {} "
                  "}} }} attr {{ key: 'N' value {{ i: {} }} }} attr {{ key: "
                  "'equation' value {{ s: '{}' }} }}",
                  dtype, in.size(), equation),
      in);
}

std::string Result(const std::string& equation,
                   std::initializer_list<Tensor> in) {
  KernelRun r = Einsum(equation, in);
  if (!r.status.ok()) return r.status.ToString();
  return Flat<float>(r.out(0));
}

TEST_CASE("Einsum contracts like matmul and batch matmul", "[kernels]") {
  const Tensor a = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  CHECK(Result("ij,jk->ik", {a, b}) == "[2,2] 22 28 49 64");
  CHECK(Result("ij,jk->ki", {a, b}) == "[2,2] 22 49 28 64");
  // The second operand transposed; the first transposed.
  CHECK(
      Result("ij,kj->ik", {a, MakeTensor<float>({2, 3}, {1, 0, 1, 0, 1, 0})}) ==
      "[2,2] 4 2 10 5");
  CHECK(Result("ji,jk->ik", {b, MakeTensor<float>({3, 1}, {1, 1, 1})}) ==
        "[2,1] 9 12");
  const Tensor x = MakeTensor<float>({2, 1, 2}, {1, 2, 3, 4});
  CHECK(
      Result("bij,bjk->bik", {x, MakeTensor<float>({2, 2, 1}, {1, 1, 2, 1})}) ==
      "[2,1,1] 3 10");
  // Broadcasting: the second operand has no batch dims.
  CHECK(Result("...ij,...jk->...ik", {x, MakeTensor<float>({2, 1}, {1, 1})}) ==
        "[2,1,1] 3 7");
  CHECK(Result("i,i->", {MakeTensor<float>({3}, {1, 2, 3}),
                         MakeTensor<float>({3}, {4, 5, 6})}) == "[] 32");
  CHECK(Result("i,j->ij", {MakeTensor<float>({2}, {1, 2}),
                           MakeTensor<float>({2}, {3, 4})}) == "[2,2] 3 4 6 8");
  // A label of one operand only, absent from the output, is summed first.
  CHECK(Result("ij,j->", {MakeTensor<float>({2, 2}, {1, 2, 3, 4}),
                          MakeTensor<float>({2}, {1, 1})}) == "[] 10");
  auto ints = Einsum("ij,jk->ik",
                     {MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
                      MakeTensor<int32_t>({3, 2}, {1, 2, 3, 4, 5, 6})},
                     "DT_INT32");
  REQUIRE(ints.status.ok());
  CHECK(Flat<int32_t>(ints.out(0)) == "[2,2] 22 28 49 64");
}

TEST_CASE("Einsum of one operand transposes, reduces and takes diagonals",
          "[kernels]") {
  const Tensor a = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(Result("ij->ji", {a}) == "[3,2] 1 4 2 5 3 6");
  CHECK(Result("ij->i", {a}) == "[2] 6 15");
  CHECK(Result("ij->j", {a}) == "[3] 5 7 9");
  CHECK(Result("ij->", {a}) == "[] 21");
  CHECK(Result("ij->ij", {a}) == "[2,3] 1 2 3 4 5 6");
  const Tensor sq = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  CHECK(Result("ii->i", {sq}) == "[2] 1 4");
  CHECK(Result("ii->", {sq}) == "[] 5");
  CHECK(Result("i->ii", {MakeTensor<float>({2}, {1, 2})}) == "[2,2] 1 0 0 2");
  CHECK(Result("...ij->...ji", {MakeTensor<float>({2, 1, 2}, {1, 2, 3, 4})}) ==
        "[2,2,1] 1 2 3 4");
}

TEST_CASE("Einsum rejects bad equations and shapes with TensorFlow's errors",
          "[kernels]") {
  const Tensor a = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto arrow = Einsum("ij,jk", {a, a});
  CHECK(arrow.status.code() == Code::kInvalidArgument);
  CHECK_THAT(arrow.status.message(),
             Catch::Matchers::Contains(
                 "Expecting exactly one '->' in einsum equation: ij,jk"));
  CHECK_THAT(Result("ij,jk,kl->il", {a, a}),
             Catch::Matchers::Contains("Expecting 1 or 2 input subscripts in "
                                       "equation 'ij,jk,kl->il' but got: 3"));
  CHECK_THAT(Result("ij,jk->ik", {a, MakeTensor<float>({2, 2}, {1, 2, 3, 4})}),
             Catch::Matchers::Contains(
                 "Expected dimension 3 at axis 0 of the input shaped [2,2] but "
                 "got dimension 2"));
  CHECK_THAT(
      Result("ij->i", {MakeTensor<float>({3}, {1, 2, 3})}),
      Catch::Matchers::Contains("Expected input 0 to have rank 2 but got: 1"));
  CHECK_THAT(Result("...ij->ij", {MakeTensor<float>({2, 1, 2}, {1, 2, 3, 4})}),
             Catch::Matchers::Contains(
                 "Output contains 1 broadcasting dimension(s) but no ellipsis "
                 "(...) was found in the output subscripts."));
  CHECK_THAT(Result("ij->ik", {a}),
             Catch::Matchers::Contains("Output subscripts contain the label k "
                                       "not present in the input subscripts."));
}

}  // namespace
}  // namespace dfg
