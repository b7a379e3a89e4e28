// String hashing, split, n-grams, bincounts and ragged-to-dense kernels:
// values checked against TensorFlow 2.21 by hand.
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::Flat;
using testing::MakeTensor;
using testing::Render;

std::string HashNode(const std::string& op, const std::string& extra = "") {
  return "name: 'h' op: '" + op +
         "' attr { key: 'num_buckets' value { i: 4611686018427387904 } }" +
         extra;
}

const Tensor kWords = MakeTensor<std::string>({3}, {"a", "hello world!!", ""});

TEST_CASE("the three string hashes bucket as TensorFlow's", "[kernels]") {
  auto fast = testing::RunKernel(HashNode("StringToHashBucketFast"), {kWords});
  REQUIRE(fast.status.ok());
  CHECK(Flat<int64_t>(fast.out(0)) ==
        "[3] 3694432073954588131 2069612503150846932 1936946117179621455");
  auto legacy = testing::RunKernel(HashNode("StringToHashBucket"), {kWords});
  REQUIRE(legacy.status.ok());
  CHECK(Flat<int64_t>(legacy.out(0)) ==
        "[3] 2996632905371535868 1188214556408278225 105434511174508091");
  auto strong = testing::RunKernel(
      HashNode("StringToHashBucketStrong",
               " attr { key: 'key' value { list { i: 1 i: 2 } } }"),
      {kWords});
  REQUIRE(strong.status.ok());
  CHECK(Flat<int64_t>(strong.out(0)) ==
        "[3] 546566331822570742 1449931241982534344 443797209252341627");
  auto bad_key = testing::RunKernel(
      HashNode("StringToHashBucketStrong",
               " attr { key: 'key' value { list { i: 1 } } }"),
      {kWords});
  CHECK_THAT(bad_key.status.message(), Contains("Key must have 2 elements"));
}

TEST_CASE("Fingerprint of a row of strings hashes their fingerprints",
          "[kernels]") {
  auto run = testing::RunKernel(
      "name: 'f' op: 'Fingerprint' attr { key: 'T' value { type: DT_STRING } }",
      {MakeTensor<std::string>({1, 2}, {"a", "b"}),
       MakeTensor<std::string>({}, {"farmhash64"})});
  REQUIRE(run.status.ok());
  CHECK(Render(run.out(0)) ==
        "uint8 [1,8] [[122  64  59 169 136  60  55  83]]");
}

TEST_CASE("StringSplitV2 without a separator splits on whitespace runs",
          "[kernels]") {
  auto run = testing::RunKernel("name: 's' op: 'StringSplitV2'",
                                {MakeTensor<std::string>({2}, {" a b  c", "d"}),
                                 MakeTensor<std::string>({}, {""})});
  REQUIRE(run.status.ok());
  CHECK(Flat<int64_t>(run.out(0)) == "[4,2] 0 0 0 1 0 2 1 0");
  CHECK(Render(run.out(1)) == "string [4] [\"a\" \"b\" \"c\" \"d\"]");
  CHECK(Flat<int64_t>(run.out(2)) == "[2] 2 3");
}

TEST_CASE("StringNGrams pads each row", "[kernels]") {
  auto run = testing::RunKernel(
      "name: 'n' op: 'StringNGrams' attr { key: 'separator' value { s: ' ' } }"
      " attr { key: 'ngram_widths' value { list { i: 2 } } }"
      " attr { key: 'left_pad' value { s: '<' } }"
      " attr { key: 'right_pad' value { s: '>' } }"
      " attr { key: 'pad_width' value { i: 1 } }"
      " attr { key: 'preserve_short_sequences' value { b: false } }",
      {MakeTensor<std::string>({3}, {"a", "b", "c"}),
       MakeTensor<int64_t>({3}, {0, 2, 3})});
  REQUIRE(run.status.ok());
  CHECK(Render(run.out(0)) ==
        "string [5] [\"< a\" \"a b\" \"b >\" \"< c\" \"c >\"]");
  CHECK(Flat<int64_t>(run.out(1)) == "[3] 0 3 5");
}

TEST_CASE("DenseBincount counts, weighs and marks per row", "[kernels]") {
  const std::string node =
      "name: 'b' op: 'DenseBincount' attr { key: 'Tidx' value { type: "
      "DT_INT32 } } attr { key: 'T' value { type: DT_FLOAT } }";
  auto binary = testing::RunKernel(
      node + " attr { key: 'binary_output' value { b: true } }",
      {MakeTensor<int32_t>({4}, {1, 2, 2, 5}), MakeTensor<int32_t>({}, {3}),
       MakeTensor<float>({4}, {1, 2, 3, 4})});
  REQUIRE(binary.status.ok());
  CHECK(Flat<float>(binary.out(0)) == "[3] 0 1 1");
  auto weighted =
      testing::RunKernel(node, {MakeTensor<int32_t>({2, 2}, {1, 1, 0, 3}),
                                MakeTensor<int32_t>({}, {3}),
                                MakeTensor<float>({2, 2}, {1, 2, 3, 4})});
  REQUIRE(weighted.status.ok());
  CHECK(Flat<float>(weighted.out(0)) == "[2,3] 0 3 0 3 0 0");
  auto negative = testing::RunKernel(
      node, {MakeTensor<int32_t>({1}, {-1}), MakeTensor<int32_t>({}, {3}),
             MakeTensor<float>({0}, {})});
  CHECK_THAT(negative.status.message(),
             Contains("Input arr must be non-negative!"));
}

TEST_CASE("RaggedTensorToTensor pads rows and cuts to the shape", "[kernels]") {
  const std::string node =
      "name: 'r' op: 'RaggedTensorToTensor' attr { key: 'T' value { type: "
      "DT_INT64 } } attr { key: 'Tindex' value { type: DT_INT64 } } attr { "
      "key: 'Tshape' value { type: DT_INT64 } } attr { key: "
      "'num_row_partition_tensors' value { i: 1 } } attr { key: "
      "'row_partition_types' value { list { s: 'ROW_SPLITS' } } }";
  const Tensor values = MakeTensor<int64_t>({5}, {1, 2, 3, 4, 5});
  const Tensor splits = MakeTensor<int64_t>({4}, {0, 2, 2, 5});
  auto natural =
      testing::RunKernel(node, {MakeTensor<int64_t>({}, {-1}), values,
                                MakeTensor<int64_t>({}, {0}), splits});
  REQUIRE(natural.status.ok());
  CHECK(Flat<int64_t>(natural.out(0)) == "[3,3] 1 2 0 0 0 0 3 4 5");
  auto cut =
      testing::RunKernel(node, {MakeTensor<int64_t>({2}, {-1, 2}), values,
                                MakeTensor<int64_t>({}, {-1}), splits});
  REQUIRE(cut.status.ok());
  CHECK(Flat<int64_t>(cut.out(0)) == "[3,2] 1 2 -1 -1 3 4");
}

TEST_CASE("AsString builds one printf format from its attrs", "[kernels]") {
  auto run = testing::RunKernel(
      "name: 'a' op: 'AsString' attr { key: 'T' value { type: DT_FLOAT } }"
      " attr { key: 'precision' value { i: 1 } }"
      " attr { key: 'width' value { i: 8 } }"
      " attr { key: 'fill' value { s: '+' } }",
      {MakeTensor<float>({2}, {3.25f, -1.0f})});
  REQUIRE(run.status.ok());
  CHECK(Render(run.out(0)) == "string [2] [\"    +3.2\" \"    -1.0\"]");
  auto bad = testing::RunKernel(
      "name: 'a' op: 'AsString' attr { key: 'T' value { type: DT_INT32 } }"
      " attr { key: 'precision' value { i: 1 } }",
      {MakeTensor<int32_t>({1}, {3})});
  CHECK_THAT(bad.status.message(),
             Contains("precision not supported for datatype int32"));
}

TEST_CASE("base64 is web-safe and padding is optional", "[kernels]") {
  auto enc = testing::RunKernel(
      "name: 'e' op: 'EncodeBase64' attr { key: 'pad' value { b: true } }",
      {MakeTensor<std::string>({2}, {"\xff\xfe", "abc"})});
  REQUIRE(enc.status.ok());
  CHECK(Render(enc.out(0)) == "string [2] [\"__4=\" \"YWJj\"]");
  auto dec =
      testing::RunKernel("name: 'd' op: 'DecodeBase64'",
                         {MakeTensor<std::string>({2}, {"__4", "YWJj"})});
  REQUIRE(dec.status.ok());
  CHECK(dec.out(0).flat<std::string>()[0] == "\xff\xfe");
  CHECK(dec.out(0).flat<std::string>()[1] == "abc");
}

TEST_CASE("Substr counts UTF-8 characters with unit UTF8_CHAR", "[kernels]") {
  auto run = testing::RunKernel(
      "name: 's' op: 'Substr' attr { key: 'T' value { type: DT_INT32 } }"
      " attr { key: 'unit' value { s: 'UTF8_CHAR' } }",
      {MakeTensor<std::string>({1}, {"h\xc3\xa9llo"}),
       MakeTensor<int32_t>({}, {-4}), MakeTensor<int32_t>({}, {2})});
  REQUIRE(run.status.ok());
  CHECK(run.out(0).flat<std::string>()[0] == "\xc3\xa9l");
}

TEST_CASE("ScalarSummary serializes Summary.Value tag and simple_value",
          "[kernels]") {
  auto run = testing::RunKernel(
      "name: 's' op: 'ScalarSummary' attr { key: 'T' value { type: DT_FLOAT } "
      "}",
      {MakeTensor<std::string>({}, {"a"}), MakeTensor<float>({}, {1.0f})});
  REQUIRE(run.status.ok());
  // value { tag: "a" simple_value: 1 }
  CHECK(run.out(0).flat<std::string>()[0] ==
        std::string("\x0a\x08\x0a\x01\x61\x15\x00\x00\x80\x3f", 10));
}

}  // namespace
}  // namespace dfg
