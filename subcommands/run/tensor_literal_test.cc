#include "subcommands/run/tensor_literal.h"

#include <cmath>
#include <limits>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

TEST_CASE("literal feeds are told from file names by their first character",
          "[run]") {
  for (const char* v : {"[1,2]", "3", "-1.5", "\"abc\"", "true", "false"}) {
    CHECK(LooksLikeTensorLiteral(v));
  }
  for (const char* v : {"./3", "x.npy", "", "data.npz:k", "nan"}) {
    CHECK_FALSE(LooksLikeTensorLiteral(v));
  }
}

TEST_CASE("a nested list literal gives its shape and the fed dtype", "[run]") {
  auto t = ParseTensorLiteral("[[1, 2.5], [3, 4]]", tensorflow::DT_FLOAT, "x");
  REQUIRE(t.ok());
  CHECK(t->shape() == TensorShape({2, 2}));
  CHECK(t->flat<float>()[1] == 2.5f);
  auto scalar = ParseTensorLiteral("7", tensorflow::DT_INT64, "x");
  REQUIRE(scalar.ok());
  CHECK(scalar->dims() == 0);
  CHECK(scalar->scalar<int64_t>() == 7);
  auto empty = ParseTensorLiteral("[]", tensorflow::DT_INT32, "x");
  REQUIRE(empty.ok());
  CHECK(empty->shape() == TensorShape({0}));
  auto strings =
      ParseTensorLiteral("[\"a\", \"\"]", tensorflow::DT_STRING, "x");
  REQUIRE(strings.ok());
  CHECK(strings->flat<std::string>()[0] == "a");
  auto bools = ParseTensorLiteral("[true, false]", tensorflow::DT_BOOL, "x");
  REQUIRE(bools.ok());
  CHECK(bools->flat<bool>()[0]);
  auto specials = ParseTensorLiteral("[\"nan\", \"-inf\", 2.0]",
                                     tensorflow::DT_DOUBLE, "x");
  REQUIRE(specials.ok());
  CHECK(std::isnan(specials->flat<double>()[0]));
  auto half = ParseTensorLiteral("[0.5]", tensorflow::DT_HALF, "x");
  REQUIRE(half.ok());
  CHECK(HalfToFloat(half->flat<Half>()[0]) == 0.5f);
  auto integral = ParseTensorLiteral("[2.0]", tensorflow::DT_UINT8, "x");
  REQUIRE(integral.ok());
  CHECK(integral->flat<uint8_t>()[0] == 2);
}

TEST_CASE("a literal that does not fit the dtype is an error naming it",
          "[run]") {
  struct Case {
    const char* json;
    DataType dtype;
    const char* phrase;
  };
  for (const Case& c : std::vector<Case>{
           {"[1.5]", tensorflow::DT_INT32, "1.5 does not fit dtype int32"},
           {"300", tensorflow::DT_INT8, "300 does not fit dtype int8"},
           {"-1", tensorflow::DT_UINT32, "-1 does not fit dtype uint32"},
           {"1", tensorflow::DT_BOOL, "does not fit dtype bool"},
           {"\"a\"", tensorflow::DT_FLOAT, "does not fit dtype float"},
           {"[1, \"a\"]", tensorflow::DT_STRING, "does not fit dtype string"},
           {"[[1], [2, 3]]", tensorflow::DT_FLOAT, "not rectangular"},
           {"[[1], 2]", tensorflow::DT_FLOAT, "not rectangular"},
           {"[1, [2]]", tensorflow::DT_FLOAT, "not rectangular"},
           {"[1, 2", tensorflow::DT_FLOAT, "not valid JSON"},
           {"1 2", tensorflow::DT_FLOAT, "not valid JSON"},
           {"[1]", tensorflow::DT_COMPLEX64, "use a .npy file"},
           // Max as a double is 2^63 (2^64): one past the range, not a wrap.
           {"9223372036854775807.0", tensorflow::DT_INT64,
            "does not fit dtype int64"},
           {"18446744073709551615.0", tensorflow::DT_UINT64,
            "does not fit dtype uint64"},
           {"2147483648.0", tensorflow::DT_INT32, "does not fit dtype int32"},
           {"[1, 1e39]", tensorflow::DT_FLOAT,
            "1e+39 does not fit dtype float"},
           {"-1e39", tensorflow::DT_FLOAT, "does not fit dtype float"},
           {"70000", tensorflow::DT_HALF, "does not fit dtype half"},
           {"1e300", tensorflow::DT_BFLOAT16, "does not fit dtype bfloat16"},
       }) {
    INFO(c.json);
    auto t = ParseTensorLiteral(c.json, c.dtype, "--feed x");
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == Code::kInvalidArgument);
    CHECK_THAT(t.status().message(), Catch::Matchers::Contains(c.phrase));
    CHECK_THAT(t.status().message(), Catch::Matchers::Contains("--feed x"));
  }
}

TEST_CASE("literals at the edge of a dtype's range fit", "[run]") {
  // The largest double below 2^63, and float32's max written out.
  auto big =
      ParseTensorLiteral("9223372036854774784.0", tensorflow::DT_INT64, "x");
  REQUIRE(big.ok());
  CHECK(big->scalar<int64_t>() == 9223372036854774784LL);
  auto max = ParseTensorLiteral("[3.4028234663852886e38, \"inf\"]",
                                tensorflow::DT_FLOAT, "x");
  REQUIRE(max.ok());
  CHECK(max->flat<float>()[0] == std::numeric_limits<float>::max());
  CHECK(std::isinf(max->flat<float>()[1]));
  auto min =
      ParseTensorLiteral("-9223372036854775808.0", tensorflow::DT_INT64, "x");
  REQUIRE(min.ok());
  CHECK(min->scalar<int64_t>() == std::numeric_limits<int64_t>::min());
}

}  // namespace
}  // namespace dfg
