// The FFTs and the complex element ops on transforms worked out by hand.
#include <complex>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::MakeTensor;
using testing::RunKernel;
using C = std::complex<float>;

TEST_CASE("FFT and IFFT transform the innermost dim", "[kernels]") {
  auto f = RunKernel("name: 'f' op: 'FFT'",
                     {MakeTensor<C>({2, 4}, {1, 0, 0, 0, 0, 1, 0, 0})});
  REQUIRE(f.status.ok());
  const auto y = f.out(0).flat<C>();
  // A delta at 0 has a flat spectrum; at 1, the powers of -i.
  const C want[8] = {1, 1, 1, 1, 1, {0, -1}, -1, {0, 1}};
  for (int i = 0; i < 8; ++i) CHECK(std::abs(y[i] - want[i]) < 1e-6);
  auto inv = RunKernel("name: 'f' op: 'IFFT'", {f.out(0)});
  REQUIRE(inv.status.ok());
  CHECK(std::abs(inv.out(0).flat<C>()[5] - C(1)) < 1e-6);
  CHECK(std::abs(inv.out(0).flat<C>()[4]) < 1e-6);
}

TEST_CASE("RFFT keeps the Hermitian half; IRFFT inverts it", "[kernels]") {
  auto r = RunKernel(
      "name: 'f' op: 'RFFT'",
      {MakeTensor<float>({4}, {1, 2, 3, 4}), MakeTensor<int32_t>({1}, {4})});
  REQUIRE(r.status.ok());
  REQUIRE(r.out(0).NumElements() == 3);
  const auto y = r.out(0).flat<C>();
  CHECK(std::abs(y[0] - C(10)) < 1e-5);
  CHECK(std::abs(y[1] - C(-2, 2)) < 1e-5);
  CHECK(std::abs(y[2] - C(-2)) < 1e-5);
  auto back = RunKernel("name: 'f' op: 'IRFFT'",
                        {r.out(0), MakeTensor<int32_t>({1}, {4})});
  REQUIRE(back.status.ok());
  CHECK(back.out(0).flat<float>()[3] == Approx(4.0f));
  auto shortin = RunKernel(
      "name: 'f' op: 'RFFT'",
      {MakeTensor<float>({2}, {1, 2}), MakeTensor<int32_t>({1}, {4})});
  CHECK_THAT(shortin.status.message(),
             Catch::Matchers::Contains("must have length of at least 4"));
}

TEST_CASE("Complex builds and Real, Imag, Angle, ComplexAbs, Conj take apart",
          "[kernels]") {
  auto c = RunKernel("name: 'c' op: 'Complex'", {MakeTensor<float>({2}, {3, 0}),
                                                 MakeTensor<float>({1}, {4})});
  REQUIRE(c.status.ok());
  const Tensor z = c.out(0);
  CHECK(z.flat<C>()[0] == C(3, 4));
  CHECK(z.flat<C>()[1] == C(0, 4));
  auto abs = RunKernel("name: 'a' op: 'ComplexAbs'", {z});
  CHECK(abs.out(0).flat<float>()[0] == 5.0f);
  auto angle = RunKernel("name: 'a' op: 'Angle'", {z});
  CHECK(angle.out(0).flat<float>()[1] == Approx(1.5707964f));
  auto im = RunKernel("name: 'a' op: 'Imag'", {z});
  CHECK(im.out(0).flat<float>()[0] == 4.0f);
  auto conj = RunKernel("name: 'a' op: 'Conj'", {z});
  CHECK(conj.out(0).flat<C>()[0] == C(3, -4));
}

}  // namespace
}  // namespace dfg
