#include "subcommands/run/examples.h"

#include "lib/proto/example.pb.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

tensorflow::Example Parse(const std::string& bytes) {
  tensorflow::Example example;
  REQUIRE(example.ParseFromString(bytes));
  return example;
}

TEST_CASE("examples given as JSON become serialized tf.Example protos",
          "[run]") {
  auto t = ExamplesFromJson(
      R"([{"x": [1.0, 2], "id": [7, true], "name": ["a", "b"]}, {"x": [4.5]}])");
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  CHECK(t->dtype() == tensorflow::DT_STRING);
  CHECK(t->shape() == TensorShape({2}));
  auto first = Parse(t->flat<std::string>()[0]);
  const auto& f = first.features().feature();
  REQUIRE(f.at("x").float_list().value_size() == 2);
  CHECK(f.at("x").float_list().value(1) == 2.0f);
  CHECK(f.at("id").int64_list().value(0) == 7);
  CHECK(f.at("id").int64_list().value(1) == 1);
  CHECK(f.at("name").bytes_list().value(1) == "b");
  auto second = Parse(t->flat<std::string>()[1]);
  CHECK(second.features().feature().at("x").float_list().value(0) == 4.5f);
  // Deterministic bytes: the same dict in another order serializes alike.
  auto again = ExamplesFromJson(
      R"([{"name": ["a", "b"], "id": [7, true], "x": [1.0, 2]}])");
  REQUIRE(again.ok());
  CHECK(again->flat<std::string>()[0] == t->flat<std::string>()[0]);
}

TEST_CASE("bad --examples JSON is an error saying what is wrong", "[run]") {
  struct Case {
    const char* json;
    const char* phrase;
  };
  for (const Case& c : std::vector<Case>{
           {"[{\"x\": [1.0]}", "not valid JSON"},
           {"{\"x\": [1.0]}", "expected a list of feature dicts"},
           {"[[1.0]]", "example 0 is [1.0], not a dict"},
           {"[{\"x\": 1.0}]", "feature 'x' must be a non-empty list"},
           {"[{\"x\": []}]", "feature 'x' must be a non-empty list"},
           {"[{\"x\": [1, 2.5]}]", "2.5 does not fit a list whose first"},
           {"[{\"x\": [\"a\", 1]}]", "1 does not fit"},
           {"[{}, {\"x\": [null]}]", "example 1: Type null"},
       }) {
    INFO(c.json);
    auto t = ExamplesFromJson(c.json);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == Code::kInvalidArgument);
    CHECK_THAT(t.status().message(), Catch::Matchers::Contains(c.phrase));
  }
}

}  // namespace
}  // namespace dfg
