// Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Atan2, DivNoNan and
// Abort.
#include <fmt/format.h>

#include <cmath>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::KernelRun;
using testing::MakeTensor;
using testing::RunKernel;

KernelRun Op(const std::string& op, std::initializer_list<Tensor> in,
             const std::string& dtype = "DT_FLOAT") {
  return RunKernel(fmt::format("name: 'n' op: '{}' attr {{ key: 'T' value {{ "
                               "type: {} }} }}",
                               op, dtype),
                   in);
}

TEST_CASE("Trigonometric and hyperbolic ops match the C library", "[kernels]") {
  const std::vector<double> xs = {-0.75, -0.25, 0.0, 0.5};
  struct Case {
    const char* op;
    double (*fn)(double);
    double shift;  // Acosh needs x >= 1
  };
  const Case cases[] = {{"Tan", std::tan, 0},     {"Asin", std::asin, 0},
                        {"Acos", std::acos, 0},   {"Atan", std::atan, 0},
                        {"Sinh", std::sinh, 0},   {"Cosh", std::cosh, 0},
                        {"Asinh", std::asinh, 0}, {"Acosh", std::acosh, 2},
                        {"Atanh", std::atanh, 0}};
  for (const Case& c : cases) {
    std::vector<double> in;
    for (double x : xs) in.push_back(x + c.shift);
    auto r = Op(c.op, {MakeTensor<double>({4}, in)}, "DT_DOUBLE");
    REQUIRE(r.status.ok());
    for (int i = 0; i < 4; ++i) {
      INFO(c.op << "(" << in[i] << ")");
      CHECK(r.out(0).flat<double>()[i] == c.fn(in[i]));
    }
  }
  auto f = Op("Atan", {MakeTensor<float>({1}, {1})});
  REQUIRE(f.status.ok());
  CHECK(f.out(0).flat<float>()[0] == std::atan(1.0f));
}

TEST_CASE("Tan has no integer or half kernel, as in TensorFlow", "[kernels]") {
  auto r = Op("Tan", {MakeTensor<int32_t>({1}, {1})}, "DT_INT32");
  CHECK(r.status.code() == Code::kInvalidArgument);
  CHECK_THAT(r.status.message(),
             Catch::Matchers::Contains("No OpKernel was registered to support "
                                       "Op 'Tan'"));
}

TEST_CASE("Atan2 picks the quadrant and DivNoNan returns 0 for a 0 divisor",
          "[kernels]") {
  auto a = Op("Atan2", {MakeTensor<float>({4}, {1, 1, -1, 0}),
                        MakeTensor<float>({4}, {1, -1, -1, -1})});
  REQUIRE(a.status.ok());
  const auto v = a.out(0).flat<float>();
  CHECK(v[0] == std::atan2(1.0f, 1.0f));
  CHECK(v[1] == std::atan2(1.0f, -1.0f));
  CHECK(v[2] == std::atan2(-1.0f, -1.0f));
  CHECK(v[3] == std::atan2(0.0f, -1.0f));
  const float nan = std::nanf("");
  auto d = Op("DivNoNan", {MakeTensor<float>({2, 2}, {6, nan, 0, 1}),
                           MakeTensor<float>({2}, {0, 2})});
  REQUIRE(d.status.ok());
  const auto w = d.out(0).flat<float>();
  CHECK(w[0] == 0);
  CHECK(std::isnan(w[1]));
  CHECK(w[2] == 0);
  CHECK(w[3] == 0.5f);
}

TEST_CASE("Abort fails the step instead of ending the process", "[kernels]") {
  auto r = RunKernel(
      "name: 'a' op: 'Abort' attr { key: 'error_msg' value { s: 'boom' } }",
      {});
  CHECK(r.status.code() == Code::kAborted);
  CHECK(r.status.message() == "Abort_op intentional failure; boom");
  auto quiet = RunKernel(
      "name: 'a' op: 'Abort' attr { key: 'exit_without_error' value { b: true "
      "} }",
      {});
  CHECK(quiet.status.code() == Code::kAborted);
  CHECK_THAT(quiet.status.message(),
             Catch::Matchers::Contains("Exiting the process: "));
}

}  // namespace
}  // namespace dfg
