// DecodeCSV, DecodeRaw, DecodePaddedRaw, DecodeCompressed, DecodeJSONExample,
// ParseTensor and SerializeTensor on hand-checked values.
#include <zlib.h>

#include <string>
#include <vector>

#include "lib/kernels/kernel_test_util.h"
#include "lib/proto/example.pb.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::MakeTensor;
using testing::Render;
using testing::RunKernel;

Tensor Strs(const std::vector<std::string>& s) {
  return MakeTensor<std::string>({static_cast<int64_t>(s.size())}, s);
}

TEST_CASE("DecodeCSV splits quoted fields and fills defaults", "[kernels]") {
  auto run = RunKernel(
      "name: 'c' op: 'DecodeCSV' attr { key: 'OUT_TYPE' value { list { "
      "type: DT_INT32 type: DT_STRING type: DT_FLOAT } } }",
      {Strs({"1,\"a,\"\"b\",2.5", " 7 ,,0x1p3"}), MakeTensor<int32_t>({1}, {0}),
       MakeTensor<std::string>({1}, {"d"}), MakeTensor<float>({0}, {})});
  REQUIRE(run.status.ok());
  CHECK(Render(run.out(0)) == "int32 [2] [1 7]");
  CHECK(Render(run.out(1)) == "string [2] [\"a,\\\"b\" \"d\"]");
  CHECK(testing::Flat<float>(run.out(2)) == "[2] 2.5 8");
  auto missing = RunKernel(
      "name: 'c' op: 'DecodeCSV' attr { key: 'OUT_TYPE' value { list { "
      "type: DT_INT64 type: DT_INT64 } } }",
      {Strs({"1,"}), MakeTensor<int64_t>({1}, {0}),
       MakeTensor<int64_t>({0}, {})});
  CHECK_THAT(missing.status.message(),
             Contains("Field 1 is required but missing in record 0!"));
}

TEST_CASE("DecodeRaw reads each string as elements", "[kernels]") {
  const std::string be("\x00\x01\x00\x02", 4);
  auto run = RunKernel(
      "name: 'r' op: 'DecodeRaw' attr { key: 'out_type' value { type: "
      "DT_INT16 } } attr { key: 'little_endian' value { b: false } }",
      {Strs({be, be})});
  REQUIRE(run.status.ok());
  CHECK(Render(run.out(0)) == "int16 [2,2] [[1 2]\n [1 2]]");
  auto padded = RunKernel(
      "name: 'r' op: 'DecodePaddedRaw' attr { key: 'out_type' value { type: "
      "DT_UINT16 } }",
      {Strs({std::string("\x01\x00\x02", 3), "", "\x05"}),
       Tensor::Scalar<int32_t>(4)});
  REQUIRE(padded.status.ok());
  CHECK(Render(padded.out(0)) == "uint16 [3,2] [[1 2]\n [0 0]\n [5 0]]");
}

TEST_CASE("DecodeCompressed inflates zlib data", "[kernels]") {
  const std::string text = "hello hello hello";
  std::string z(compressBound(text.size()), '\0');
  uLongf n = z.size();
  REQUIRE(compress(reinterpret_cast<Bytef*>(z.data()), &n,
                   reinterpret_cast<const Bytef*>(text.data()),
                   text.size()) == Z_OK);
  z.resize(n);
  const char* node =
      "name: 'd' op: 'DecodeCompressed' attr { key: 'compression_type' "
      "value { s: 'ZLIB' } }";
  auto run = RunKernel(node, {Strs({z, ""})});
  REQUIRE(run.status.ok());
  CHECK(run.out(0).flat<std::string>()[0] == text);
  CHECK(run.out(0).flat<std::string>()[1].empty());
  auto bad = RunKernel(node, {Strs({"garbage"})});
  CHECK(bad.status.code() == Code::kDataLoss);
}

TEST_CASE("DecodeJSONExample gives the binary Example", "[kernels]") {
  auto run = RunKernel(
      "name: 'j' op: 'DecodeJSONExample'",
      {Strs(
          {R"({"features":{"feature":{"a":{"int64List":{"value":["3"]}}}}})"})});
  REQUIRE(run.status.ok());
  tensorflow::Example e;
  REQUIRE(e.ParseFromString(run.out(0).flat<std::string>()[0]));
  CHECK(e.features().feature().at("a").int64_list().value(0) == 3);
  auto bad = RunKernel("name: 'j' op: 'DecodeJSONExample'", {Strs({"{x"})});
  CHECK_THAT(bad.status.message(), Contains("Error while parsing JSON"));
}

TEST_CASE("SerializeTensor and ParseTensor round-trip", "[kernels]") {
  auto ser = RunKernel(
      "name: 's' op: 'SerializeTensor' attr { key: 'T' value { type: "
      "DT_FLOAT } }",
      {MakeTensor<float>({2}, {1.5f, -2})});
  REQUIRE(ser.status.ok());
  auto parse = RunKernel(
      "name: 'p' op: 'ParseTensor' attr { key: 'out_type' value { type: "
      "DT_FLOAT } }",
      {ser.out(0)});
  REQUIRE(parse.status.ok());
  CHECK(testing::Flat<float>(parse.out(0)) == "[2] 1.5 -2");
  auto wrong = RunKernel(
      "name: 'p' op: 'ParseTensor' attr { key: 'out_type' value { type: "
      "DT_INT32 } }",
      {ser.out(0)});
  CHECK_THAT(wrong.status.message(), Contains("Type mismatch"));
}

}  // namespace
}  // namespace dfg
