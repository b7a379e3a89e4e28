// IgammaGradA and RandomGammaGrad against central differences of P(a, x)
// (special_math's IgammaP), on both sides of the series / continued
// fraction switch, and their edges.
#include <cmath>

#include "lib/kernels/kernel_test_util.h"
#include "lib/kernels/special_math.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::MakeTensor;
using testing::RunKernel;

std::vector<double> Run(const char* op, std::vector<double> a,
                        std::vector<double> x) {
  const int64_t n = static_cast<int64_t>(a.size());
  auto r = RunKernel(std::string("name: 'g' op: '") + op +
                         "' attr { key: 'T' value { type: DT_DOUBLE } }",
                     {MakeTensor<double>({n}, a), MakeTensor<double>({n}, x)});
  REQUIRE(r.status.ok());
  auto f = r.out(0).flat<double>();
  return std::vector<double>(f.begin(), f.end());
}

TEST_CASE("IgammaGradA and RandomGammaGrad match finite differences",
          "[kernels]") {
  const std::vector<double> a = {0.7, 2.5, 3.0, 6.0};
  const std::vector<double> x = {0.4, 1.5, 9.0, 4.0};
  const auto da = Run("IgammaGradA", a, x);
  const auto ds = Run("RandomGammaGrad", a, x);
  for (size_t i = 0; i < a.size(); ++i) {
    const double h = 1e-6;
    const double fd =
        (IgammaP(a[i] + h, x[i]) - IgammaP(a[i] - h, x[i])) / (2 * h);
    CHECK(da[i] == Approx(fd).epsilon(1e-6));
    const double dpdx =
        std::exp((a[i] - 1) * std::log(x[i]) - x[i] - std::lgamma(a[i]));
    CHECK(ds[i] == Approx(-fd / dpdx).epsilon(1e-6));
  }
  const auto edges = Run("IgammaGradA", {1.0, -1.0, 2.0}, {0.0, 1.0, -1.0});
  CHECK(edges[0] == 0.0);
  CHECK(std::isnan(edges[1]));
  CHECK(std::isnan(edges[2]));
}

}  // namespace
}  // namespace dfg
