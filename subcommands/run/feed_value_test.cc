#include "subcommands/run/feed_value.h"

#include <cmath>
#include <limits>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

TensorShapeProto Shape(std::initializer_list<int64_t> dims) {
  TensorShapeProto shape;
  for (int64_t d : dims) shape.add_dim()->set_size(d);
  return shape;
}

TEST_CASE("numpy's default dtypes convert to the input's when values fit",
          "[run]") {
  auto f64 = Tensor::Vector<double>({1.5, -2.0, std::nan(""), -INFINITY});
  auto f32 = ConvertFeedDtype(f64, tensorflow::DT_FLOAT);
  REQUIRE(f32.ok());
  CHECK(f32->dtype() == tensorflow::DT_FLOAT);
  CHECK(f32->flat<float>()[0] == 1.5f);
  CHECK(std::isnan(f32->flat<float>()[2]));
  CHECK(f32->flat<float>()[3] == -INFINITY);
  auto i64 = Tensor::Vector<int64_t>({-2147483648LL, 2147483647LL});
  auto i32 = ConvertFeedDtype(i64, tensorflow::DT_INT32);
  REQUIRE(i32.ok());
  CHECK(i32->flat<int32_t>()[0] == std::numeric_limits<int32_t>::min());
  auto as_float = ConvertFeedDtype(i64, tensorflow::DT_FLOAT);
  REQUIRE(as_float.ok());
  CHECK(as_float->flat<float>()[1] == 2147483648.0f);
  auto labels =
      ConvertFeedDtype(Tensor::Vector<double>({0, 2}), tensorflow::DT_UINT8);
  REQUIRE(labels.ok());
  CHECK(labels->flat<uint8_t>()[1] == 2);
  auto flags = ConvertFeedDtype(Tensor::Vector<bool>({true, false}),
                                tensorflow::DT_INT64);
  REQUIRE(flags.ok());
  CHECK(flags->flat<int64_t>()[0] == 1);
  auto complex = ConvertFeedDtype(f64, tensorflow::DT_COMPLEX64);
  REQUIRE(complex.ok());
  CHECK(complex->flat<std::complex<float>>()[0].real() == 1.5f);
}

TEST_CASE("a conversion that loses range or kind is refused naming the value",
          "[run]") {
  struct Case {
    Tensor value;
    DataType to;
    const char* phrase;
  };
  for (const Case& c : std::vector<Case>{
           {Tensor::Vector<double>({1, 1e39}), tensorflow::DT_FLOAT,
            "float64 1e+39 (element 1) does not fit float32"},
           {Tensor::Vector<int64_t>({3000000000LL}), tensorflow::DT_INT32,
            "int64 3000000000 (element 0) does not fit int32"},
           {Tensor::Vector<int64_t>({-1}), tensorflow::DT_UINT32,
            "does not fit uint32"},
           {Tensor::Vector<double>({0.5}), tensorflow::DT_INT32,
            "0.5 (element 0) does not fit int32"},
           {Tensor::Vector<double>({9223372036854775808.0}),
            tensorflow::DT_INT64, "does not fit int64"},
           {Tensor::Vector<int32_t>({70000}), tensorflow::DT_HALF,
            "does not fit float16"},
           {Tensor::Vector<int32_t>({1}), tensorflow::DT_BOOL,
            "does not fit bool"},
           {Tensor::Vector<std::complex<double>>({{1, 2}}),
            tensorflow::DT_DOUBLE, "does not fit float64"},
           {Tensor::Vector<std::string>({"a"}), tensorflow::DT_FLOAT,
            "str does not convert to float32"},
           {Tensor::Vector<float>({1}), tensorflow::DT_STRING,
            "float32 does not convert to str"},
       }) {
    auto t = ConvertFeedDtype(c.value, c.to);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == Code::kInvalidArgument);
    CHECK_THAT(t.status().message(), Catch::Matchers::Contains(c.phrase));
  }
}

TEST_CASE("zeros, ones, random and random:SEED name generated inputs",
          "[run]") {
  for (const char* v : {"x.npy", "zero", "randomly", "[1]"}) {
    auto g = ParseGeneratedFeed(v);
    REQUIRE(g.ok());
    CHECK_FALSE(g->has_value());
  }
  auto ones = ParseGeneratedFeed("ones");
  REQUIRE((ones.ok() && ones->has_value()));
  CHECK((*ones)->kind == GeneratedFeed::Kind::kOnes);
  auto seeded = ParseGeneratedFeed("random:42");
  REQUIRE((seeded.ok() && seeded->has_value()));
  CHECK((*seeded)->seed == 42);
  for (const char* v : {"random:", "random:-1", "random:x"}) {
    CHECK_FALSE(ParseGeneratedFeed(v).ok());
  }
}

TEST_CASE("a generated input takes its shape from the input and --batch",
          "[run]") {
  GeneratedFeed ones{GeneratedFeed::Kind::kOnes};
  auto t = MakeGeneratedFeed(ones, tensorflow::DT_FLOAT, Shape({-1, 2}), 3);
  REQUIRE(t.ok());
  CHECK(t->shape() == TensorShape({3, 2}));
  CHECK(t->flat<float>()[5] == 1.0f);
  GeneratedFeed random{GeneratedFeed::Kind::kRandom, 7};
  auto a = MakeGeneratedFeed(random, tensorflow::DT_INT32, Shape({100}), 0);
  auto b = MakeGeneratedFeed(random, tensorflow::DT_INT32, Shape({100}), 0);
  REQUIRE((a.ok() && b.ok()));
  bool same = true, varied = false;
  for (int i = 0; i < 100; ++i) {
    int32_t v = a->flat<int32_t>()[i];
    same &= v == b->flat<int32_t>()[i];
    varied |= v != a->flat<int32_t>()[0];
    CHECK((v >= 0 && v < 10));
  }
  CHECK(same);
  CHECK(varied);
  auto zeros = MakeGeneratedFeed({}, tensorflow::DT_STRING, Shape({2}), 0);
  REQUIRE(zeros.ok());
  CHECK(zeros->flat<std::string>()[1].empty());
}

TEST_CASE("a generated input with unknown dimensions is an error naming them",
          "[run]") {
  GeneratedFeed zeros;
  auto batch = MakeGeneratedFeed(zeros, tensorflow::DT_FLOAT, Shape({-1}), 0);
  REQUIRE_FALSE(batch.ok());
  CHECK_THAT(batch.status().message(),
             Catch::Matchers::Contains("dimension 0 of its shape [?] is "
                                       "unknown; give it with --batch N"));
  auto image =
      MakeGeneratedFeed(zeros, tensorflow::DT_FLOAT, Shape({-1, -1, 3}), 4);
  REQUIRE_FALSE(image.ok());
  CHECK_THAT(image.status().message(),
             Catch::Matchers::Contains("dimension 1 of its shape [4,?,3]"));
  TensorShapeProto unknown;
  unknown.set_unknown_rank(true);
  CHECK_FALSE(MakeGeneratedFeed(zeros, tensorflow::DT_FLOAT, unknown, 1).ok());
  GeneratedFeed ones{GeneratedFeed::Kind::kOnes};
  auto text = MakeGeneratedFeed(ones, tensorflow::DT_STRING, Shape({}), 0);
  REQUIRE_FALSE(text.ok());
  CHECK_THAT(text.status().message(), Catch::Matchers::Contains("string"));
}

}  // namespace
}  // namespace dfg
