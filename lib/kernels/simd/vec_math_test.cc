// The vector math at every ISA level this CPU has: values against a double
// precision libm reference, NaN and infinities where TensorFlow puts them,
// and tails (lengths that do not fill a packet) computed like the body.
#include "lib/kernels/simd/vec_math.h"

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "lib/testing/catch.h"

namespace dfg::simd {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::nanf("");

// The levels this CPU runs; the test leaves the widest selected.
std::vector<Level> Levels() {
  std::vector<Level> out;
  for (Level l : {Level::kBaseline, Level::kAvx2, Level::kAvx512}) {
    SetLevelForTesting(l);
    if (ActiveLevel() == l) out.push_back(l);
  }
  SetLevelForTesting(Level::kAvx512);
  return out;
}

// A ramp over [-lo, hi] plus the special values; 37 + 11 long, so the last
// packet of every width is partial.
std::vector<float> Inputs(float lo, float hi) {
  std::vector<float> x;
  for (int i = 0; i < 37; ++i) x.push_back(-lo + (hi + lo) * i / 36.0f);
  for (float v : {0.0f, -0.0f, kInf, -kInf, kNaN, 1e-30f, -1e-30f, 1e-4f,
                  -1e-4f, 0.5f, -0.5f}) {
    x.push_back(v);
  }
  return x;
}

// got within rtol/atol of want; NaN and infinities exactly where want has
// them.
bool Close(float got, double want, double rtol = 4e-6, double atol = 1e-6) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (!std::isfinite(got)) return false;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

void CheckUnary(UnaryOp op, const std::function<double(double)>& ref, float lo,
                float hi) {
  const std::vector<float> x = Inputs(lo, hi);
  for (Level level : Levels()) {
    SetLevelForTesting(level);
    std::vector<float> y(x.size());
    Unary(op, x.data(), y.data(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      INFO(LevelName(level) << " op " << static_cast<int>(op) << " x " << x[i]
                            << " got " << y[i] << " want " << ref(x[i]));
      CHECK(Close(y[i], ref(x[i])));
      // The same element alone (all tail) gives the same bits.
      float one = 0;
      Unary(op, &x[i], &one, 1);
      CHECK((std::isnan(one)
                 ? std::isnan(y[i])
                 : std::signbit(one) == std::signbit(y[i]) && one == y[i]));
    }
  }
  SetLevelForTesting(Level::kAvx512);
}

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double Relu(double x) { return x < 0 ? 0 : x; }
double Selu(double x) {
  return x < 0 ? 1.0507009873554805 * 1.6732632423543772 * std::expm1(x)
               : 1.0507009873554805 * x;
}
double Softplus(double x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

TEST_CASE("simd unary math agrees with libm at every level", "[simd]") {
  CheckUnary(
      UnaryOp::kTanh, [](double x) { return std::tanh(x); }, 12, 12);
  CheckUnary(UnaryOp::kSigmoid, Sigmoid, 30, 30);
  CheckUnary(
      UnaryOp::kExp, [](double x) { return std::exp(x); }, 80, 80);
  CheckUnary(
      UnaryOp::kExpm1, [](double x) { return std::expm1(x); }, 20, 20);
  CheckUnary(
      UnaryOp::kLog, [](double x) { return std::log(x); }, 1, 1e6);
  CheckUnary(
      UnaryOp::kLog1p, [](double x) { return std::log1p(x); }, 1, 1e6);
  CheckUnary(
      UnaryOp::kErf, [](double x) { return std::erf(x); }, 5, 5);
  CheckUnary(
      UnaryOp::kSqrt, [](double x) { return std::sqrt(x); }, 1, 1e6);
  CheckUnary(
      UnaryOp::kRsqrt, [](double x) { return 1 / std::sqrt(x); }, 1, 1e6);
  CheckUnary(
      UnaryOp::kReciprocal, [](double x) { return 1 / x; }, 9, 9);
  CheckUnary(
      UnaryOp::kSquare, [](double x) { return x * x; }, 1e3, 1e3);
  CheckUnary(
      UnaryOp::kNeg, [](double x) { return -x; }, 9, 9);
  CheckUnary(
      UnaryOp::kAbs, [](double x) { return std::fabs(x); }, 9, 9);
  CheckUnary(UnaryOp::kRelu, Relu, 9, 9);
  CheckUnary(
      UnaryOp::kRelu6, [](double x) { return std::min(Relu(x), 6.0); }, 9, 9);
  CheckUnary(
      UnaryOp::kElu, [](double x) { return x < 0 ? std::expm1(x) : x; }, 20,
      20);
  CheckUnary(UnaryOp::kSelu, Selu, 20, 20);
  CheckUnary(UnaryOp::kSoftplus, Softplus, 30, 30);
  CheckUnary(
      UnaryOp::kSoftsign, [](double x) { return x / (1 + std::fabs(x)); }, 9,
      9);
}

TEST_CASE("simd Neg keeps the sign of zero and Relu passes NaN", "[simd]") {
  for (Level level : Levels()) {
    SetLevelForTesting(level);
    const float x[3] = {0.0f, -0.0f, kNaN};
    float y[3];
    Unary(UnaryOp::kNeg, x, y, 3);
    CHECK(std::signbit(y[0]));
    CHECK(!std::signbit(y[1]));
    Unary(UnaryOp::kRelu, x, y, 3);
    CHECK(std::isnan(y[2]));
    LeakyRelu(x, 0.2f, y, 3);
    CHECK(std::isnan(y[2]));
  }
  SetLevelForTesting(Level::kAvx512);
}

TEST_CASE("simd LeakyRelu scales the negatives", "[simd]") {
  const std::vector<float> x = Inputs(9, 9);
  for (Level level : Levels()) {
    SetLevelForTesting(level);
    std::vector<float> y(x.size());
    LeakyRelu(x.data(), 0.1f, y.data(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      INFO(LevelName(level) << " x " << x[i]);
      CHECK(Close(y[i], x[i] < 0 ? 0.1f * x[i] : x[i]));
    }
  }
  SetLevelForTesting(Level::kAvx512);
}

// z[i] = op(x[i], y[j]) for every pair of Inputs, in all three forms.
void CheckBinary(BinaryOp op, const std::function<double(double, double)>& ref,
                 float lo, float hi) {
  const std::vector<float> v = Inputs(lo, hi);
  for (Level level : Levels()) {
    SetLevelForTesting(level);
    for (float s : v) {
      std::vector<float> xs(v.size(), s), z(v.size()), z2(v.size());
      Binary(op, Operands::kScalarX, &s, v.data(), z.data(), v.size());
      Binary(op, Operands::kBoth, xs.data(), v.data(), z2.data(), v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        INFO(LevelName(level) << " op " << static_cast<int>(op) << " " << s
                              << ", " << v[i] << " got " << z[i]);
        CHECK(Close(z[i], ref(s, v[i])));
        CHECK(Close(z2[i], ref(s, v[i])));
      }
      Binary(op, Operands::kScalarY, v.data(), &s, z.data(), v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        INFO(LevelName(level) << " op " << static_cast<int>(op) << " " << v[i]
                              << ", " << s << " got " << z[i]);
        CHECK(Close(z[i], ref(v[i], s)));
      }
    }
  }
  SetLevelForTesting(Level::kAvx512);
}

double NanMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
}
double NanMin(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
}

TEST_CASE("simd binary arithmetic agrees with double at every level",
          "[simd]") {
  CheckBinary(BinaryOp::kAdd, std::plus<double>(), 9, 9);
  CheckBinary(BinaryOp::kSub, std::minus<double>(), 9, 9);
  CheckBinary(BinaryOp::kMul, std::multiplies<double>(), 9, 9);
  CheckBinary(BinaryOp::kDiv, std::divides<double>(), 9, 9);
  CheckBinary(BinaryOp::kMax, NanMax, 9, 9);
  CheckBinary(BinaryOp::kMin, NanMin, 9, 9);
  CheckBinary(
      BinaryOp::kSqDiff, [](double a, double b) { return (a - b) * (a - b); },
      9, 9);
}

TEST_CASE("simd Pow agrees with libm, shortcut exponents included", "[simd]") {
  // float pow's reference: powf's special cases, double's precision.
  auto ref = [](double a, double b) {
    const float f = std::pow(static_cast<float>(a), static_cast<float>(b));
    return std::isfinite(f) ? std::pow(a, b) : f;
  };
  CheckBinary(BinaryOp::kPow, ref, 3, 3);
  for (float e : {1.0f, 2.0f, 3.0f, 0.5f, -1.0f, 0.0f, -0.5f, 2.5f}) {
    CheckBinary(BinaryOp::kPow, ref, -e, e + 6);  // e is in the inputs
  }
}

// TensorFlow's softmax in double.
std::vector<double> RefSoftmax(const std::vector<float>& row, bool log) {
  double max = -INFINITY, sum = 0;
  for (float v : row) max = std::max<double>(max, v);
  for (float v : row) sum += std::exp(v - max);
  std::vector<double> out;
  for (float v : row) {
    out.push_back(log ? (v - max) - std::log(sum) : std::exp(v - max) / sum);
  }
  return out;
}

TEST_CASE("simd softmax rows agree with double at every level", "[simd]") {
  for (size_t depth : {1, 3, 7, 8, 17, 64, 100}) {
    std::vector<float> x;
    for (int r = 0; r < 3; ++r) {
      for (size_t i = 0; i < depth; ++i) {
        x.push_back(std::sin(static_cast<float>(r * 100 + i)) * 20);
      }
    }
    if (depth > 1) x[depth + 1] = -kInf;  // a zero probability in row 1
    x[2 * depth] = kNaN;                  // row 2 all NaN
    for (bool log : {false, true}) {
      for (Level level : Levels()) {
        SetLevelForTesting(level);
        std::vector<float> y(x.size());
        SoftmaxRows(x.data(), y.data(), 3, depth, log);
        for (size_t r = 0; r < 3; ++r) {
          const std::vector<float> row(x.begin() + r * depth,
                                       x.begin() + (r + 1) * depth);
          const std::vector<double> want = RefSoftmax(row, log);
          for (size_t i = 0; i < depth; ++i) {
            INFO(LevelName(level) << " log " << log << " depth " << depth
                                  << " row " << r << " i " << i);
            CHECK(Close(y[r * depth + i], want[i], 1e-5, 1e-6));
          }
        }
      }
    }
  }
  SetLevelForTesting(Level::kAvx512);
}

TEST_CASE("simd runs in place", "[simd]") {
  std::vector<float> x = Inputs(5, 5);
  const std::vector<float> orig = x;
  Unary(UnaryOp::kTanh, x.data(), x.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) CHECK(Close(x[i], std::tanh(orig[i])));
}

}  // namespace
}  // namespace dfg::simd
