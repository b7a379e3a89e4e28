// TensorBundle round trips (every dtype, strings, empty and scalar tensors,
// merged shards) and the real TensorFlow-written checkpoints of
// ../shared/savedmodels.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "lib/checkpoint/checkpoint_test_util.h"
#include "lib/checkpoint/crc32c.h"
#include "lib/checkpoint/tensor_bundle.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using checkpoint_testing::ListDir;
using checkpoint_testing::SavedModelsDir;
using checkpoint_testing::TempDir;

std::vector<char> Bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<char> out(n);
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

float ReadFloatScalar(BundleReader& reader, const std::string& key) {
  float v = 0;
  Status s = reader.ReadInto(key, &v, sizeof(v));
  INFO(s.ToString());
  REQUIRE(s.ok());
  return v;
}

TEST_CASE("crc32c matches the standard check values", "[checkpoint]") {
  CHECK(crc32c::Value("123456789", 9) == 0xe3069283u);
  std::vector<char> zeros(32, 0);
  CHECK(crc32c::Value(zeros.data(), 32) == 0x8a9136aau);
  // Extend over pieces equals the whole, at every split and alignment.
  std::vector<char> data = Bytes(1000, 7);
  uint32_t whole = crc32c::Value(data.data(), data.size());
  for (size_t split : {0, 1, 3, 7, 8, 31, 33, 500, 999, 1000}) {
    uint32_t c = crc32c::Value(data.data(), split);
    c = crc32c::Extend(c, data.data() + split, data.size() - split);
    CHECK(c == whole);
  }
  CHECK(crc32c::Unmask(crc32c::Mask(whole)) == whole);
  // Long enough for the three-stream path (value from a table-driven
  // reference implementation), whole and in unaligned pieces.
  std::vector<uint8_t> big(100003);
  for (size_t i = 0; i < big.size(); ++i) big[i] = uint8_t(i * 7 + 3);
  CHECK(crc32c::Value(big.data(), big.size()) == 0x97614f92u);
  for (size_t split : {1, 767, 768, 24575, 24576, 24577, 50001}) {
    uint32_t c = crc32c::Value(big.data(), split);
    c = crc32c::Extend(c, big.data() + split, big.size() - split);
    CHECK(c == 0x97614f92u);
  }
  CHECK(crc32c::Mask(whole) != whole);
}

TEST_CASE("crc32c Combine joins the checksums of consecutive pieces",
          "[checkpoint]") {
  std::vector<char> data = Bytes(300001, 11);
  const uint32_t whole = crc32c::Value(data.data(), data.size());
  for (size_t split : {0, 1, 8, 4096, 150000, 299999, 300001}) {
    uint32_t a = crc32c::Value(data.data(), split);
    uint32_t b = crc32c::Value(data.data() + split, data.size() - split);
    CHECK(crc32c::Combine(a, b, data.size() - split) == whole);
  }
  // Many equal pieces and a short tail, joined left to right.
  uint32_t c = 0;
  for (size_t begin = 0; begin < data.size(); begin += 65536) {
    const size_t n = std::min<size_t>(65536, data.size() - begin);
    c = crc32c::Combine(c, crc32c::Value(data.data() + begin, n), n);
  }
  CHECK(c == whole);
  // Lengths beyond memory: joining is associative, so doubling a run of
  // zeros by Combine agrees with appending it twice (up to 2^44 bytes).
  std::vector<char> zeros(1 << 20, 0);
  uint32_t z = crc32c::Value(zeros.data(), zeros.size());
  CHECK(crc32c::Combine(crc32c::Value(data.data(), 100), z, zeros.size()) ==
        crc32c::Extend(crc32c::Value(data.data(), 100), zeros.data(),
                       zeros.size()));
  const uint32_t a = crc32c::Value(data.data(), 100);
  size_t len = zeros.size();
  for (int i = 0; i < 24; ++i) {
    CHECK(crc32c::Combine(crc32c::Combine(a, z, len), z, len) ==
          crc32c::Combine(a, crc32c::Combine(z, z, len), 2 * len));
    z = crc32c::Combine(z, z, len);
    len *= 2;
  }
}

TEST_CASE("ReadRangeInto reads ranges whose checksums join to the entry's",
          "[checkpoint]") {
  TempDir tmp;
  std::string prefix = tmp.path() + "/ckpt";
  // Bigger than a read piece (256 KiB), not a multiple of it.
  std::vector<char> data = Bytes(700001 * 4, 5);
  {
    BundleWriter writer(prefix);
    REQUIRE(
        writer
            .Add("w", tensorflow::DT_FLOAT, {700001}, data.data(), data.size())
            .ok());
    REQUIRE(writer.Finish().ok());
  }
  auto reader = BundleReader::Open(prefix);
  REQUIRE(reader.ok());
  std::vector<char> got(data.size(), 0);
  REQUIRE((*reader)->ReadInto("w", got.data(), got.size()).ok());
  CHECK(got == data);

  std::fill(got.begin(), got.end(), 0);
  const std::vector<size_t> cuts = {0, 3, 262144, 1000000, 2800004};
  uint32_t crc = 0;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    auto piece = (*reader)->ReadRangeInto("w", got.data(), got.size(), cuts[i],
                                          cuts[i + 1]);
    REQUIRE(piece.ok());
    crc = crc32c::Combine(crc, *piece, cuts[i + 1] - cuts[i]);
  }
  CHECK(got == data);
  CHECK((*reader)->VerifyChecksum("w", crc).ok());
  Status bad = (*reader)->VerifyChecksum("w", crc ^ 1);
  CHECK(bad.code() == Code::kDataLoss);
  CHECK_THAT(bad.message(), Contains("Checksum does not match"));
  CHECK((*reader)
            ->ReadRangeInto("w", got.data(), got.size(), 8, 4)
            .status()
            .code() == Code::kInvalidArgument);
  CHECK((*reader)
            ->ReadRangeInto("w", got.data(), got.size(), 0, got.size() + 1)
            .status()
            .code() == Code::kInvalidArgument);
  CHECK((*reader)
            ->ReadRangeInto("w", got.data(), got.size() - 4, 0, 4)
            .status()
            .code() == Code::kInvalidArgument);
}

TEST_CASE("every numeric dtype round-trips through a bundle", "[checkpoint]") {
  TempDir tmp;
  std::string prefix = tmp.path() + "/model/ckpt";
  struct Case {
    std::string key;
    DataType dtype;
    std::vector<int64_t> shape;
  };
  std::vector<Case> cases;
  for (DataType t : {tensorflow::DT_FLOAT,      tensorflow::DT_DOUBLE,
                     tensorflow::DT_INT32,      tensorflow::DT_UINT8,
                     tensorflow::DT_INT16,      tensorflow::DT_INT8,
                     tensorflow::DT_COMPLEX64,  tensorflow::DT_INT64,
                     tensorflow::DT_BOOL,       tensorflow::DT_QINT8,
                     tensorflow::DT_QUINT8,     tensorflow::DT_QINT32,
                     tensorflow::DT_BFLOAT16,   tensorflow::DT_QINT16,
                     tensorflow::DT_QUINT16,    tensorflow::DT_UINT16,
                     tensorflow::DT_COMPLEX128, tensorflow::DT_HALF,
                     tensorflow::DT_UINT32,     tensorflow::DT_UINT64}) {
    cases.push_back({DataTypeString(t) + "/matrix", t, {3, 5}});
    cases.push_back({DataTypeString(t) + "/scalar", t, {}});
    cases.push_back({DataTypeString(t) + "/empty", t, {0, 4}});
  }
  {
    BundleWriter writer(prefix);
    REQUIRE(writer.status().ok());
    uint32_t seed = 1;
    for (const Case& c : cases) {
      size_t n = 1;
      for (int64_t d : c.shape) n *= static_cast<size_t>(d);
      std::vector<char> data = Bytes(n * DataTypeSize(c.dtype), seed++);
      REQUIRE(
          writer.Add(c.key, c.dtype, c.shape, data.data(), data.size()).ok());
    }
    REQUIRE(writer.Finish().ok());
  }
  CHECK(fs::exists(prefix + ".index"));
  CHECK(fs::exists(prefix + ".data-00000-of-00001"));
  CHECK(ListDir(tmp.path() + "/model").size() == 2);  // no temps

  auto reader = BundleReader::Open(prefix);
  REQUIRE(reader.ok());
  CHECK((*reader)->num_shards() == 1);
  REQUIRE((*reader)->Entries().size() == cases.size());
  for (size_t i = 1; i < (*reader)->Entries().size(); ++i) {
    CHECK((*reader)->Entries()[i - 1].key < (*reader)->Entries()[i].key);
  }
  uint32_t seed = 1;
  for (const Case& c : cases) {
    INFO(c.key);
    size_t n = 1;
    for (int64_t d : c.shape) n *= static_cast<size_t>(d);
    std::vector<char> want = Bytes(n * DataTypeSize(c.dtype), seed++);
    auto info = (*reader)->Lookup(c.key);
    REQUIRE(info.ok());
    CHECK(info->dtype == c.dtype);
    CHECK(info->shape == c.shape);
    CHECK(info->size_bytes == static_cast<int64_t>(want.size()));
    CHECK_FALSE(info->sliced);
    std::vector<char> got(want.size() + 1, 'x');
    Status s = (*reader)->ReadInto(c.key, got.data(), want.size());
    INFO(s.ToString());
    REQUIRE(s.ok());
    got.pop_back();
    CHECK(got == want);
  }
}

TEST_CASE("string tensors round-trip in TensorFlow's layout", "[checkpoint]") {
  TempDir tmp;
  std::string prefix = tmp.path() + "/ckpt";
  std::vector<std::string> values = {"", "a", std::string(300, 'z'),
                                     std::string("\0nul\xff", 5), "last"};
  {
    BundleWriter writer(prefix);
    REQUIRE(writer.AddStrings("s", {5}, values).ok());
    REQUIRE(writer.AddStrings("scalar", {}, {"hello"}).ok());
    REQUIRE(writer.AddStrings("empty", {2, 0}, {}).ok());
    REQUIRE(writer.Finish().ok());
  }
  // The data file holds exactly TensorFlow's layout for "scalar":
  // varint 5, masked crc32c of uint32 5, "hello".
  std::string data = testing::ReadFileOrDie(prefix + ".data-00000-of-00001");
  uint32_t five = 5;
  uint32_t masked = crc32c::Mask(crc32c::Value(&five, 4));
  std::string expected_scalar =
      std::string("\x05", 1) +
      std::string(reinterpret_cast<char*>(&masked), 4) + "hello";
  CHECK(data.find(expected_scalar) != std::string::npos);

  auto reader = BundleReader::Open(prefix);
  REQUIRE(reader.ok());
  auto s = (*reader)->ReadStrings("s");
  REQUIRE(s.ok());
  CHECK(*s == values);
  auto scalar = (*reader)->ReadStrings("scalar");
  REQUIRE(scalar.ok());
  CHECK(*scalar == std::vector<std::string>{"hello"});
  auto empty = (*reader)->ReadStrings("empty");
  REQUIRE(empty.ok());
  CHECK(empty->empty());
  CHECK((*reader)->Lookup("empty")->shape == std::vector<int64_t>{2, 0});
}

TEST_CASE("MergeBundles joins sharded bundles into one readable bundle",
          "[checkpoint]") {
  TempDir tmp;
  std::vector<std::string> parts;
  for (int shard = 0; shard < 3; ++shard) {
    std::string prefix =
        fmt::format("{}/tmp_part/part-{:05d}-of-00003", tmp.path(), shard);
    BundleWriter writer(prefix);
    float v = static_cast<float>(shard) + 0.5f;
    REQUIRE(writer
                .Add(fmt::format("var{}", shard), tensorflow::DT_FLOAT, {}, &v,
                     sizeof(v))
                .ok());
    REQUIRE(writer
                .AddStrings(fmt::format("name{}", shard), {1},
                            {fmt::format("shard {}", shard)})
                .ok());
    REQUIRE(writer.Finish().ok());
    parts.push_back(prefix);
  }
  std::string merged = tmp.path() + "/final/model.ckpt";
  Status s = MergeBundles(parts, merged, /*delete_old_dirs=*/false);
  INFO(s.ToString());
  REQUIRE(s.ok());
  for (int i = 0; i < 3; ++i) {
    CHECK(fs::exists(DataFilename(merged, i, 3)));
    CHECK_FALSE(fs::exists(parts[i] + ".index"));  // old indexes deleted
  }
  auto reader = BundleReader::Open(merged);
  REQUIRE(reader.ok());
  CHECK((*reader)->num_shards() == 3);
  CHECK((*reader)->Entries().size() == 6);
  for (int shard = 0; shard < 3; ++shard) {
    CHECK(ReadFloatScalar(**reader, fmt::format("var{}", shard)) ==
          static_cast<float>(shard) + 0.5f);
    auto name = (*reader)->ReadStrings(fmt::format("name{}", shard));
    REQUIRE(name.ok());
    CHECK((*name)[0] == fmt::format("shard {}", shard));
  }
}

TEST_CASE(
    "MergeBundles deletes emptied input directories and refuses "
    "duplicates",
    "[checkpoint]") {
  TempDir tmp;
  std::vector<std::string> parts;
  for (int shard = 0; shard < 2; ++shard) {
    std::string prefix = fmt::format("{}/tmp{}/part", tmp.path(), shard);
    BundleWriter writer(prefix);
    int32_t v = shard;
    REQUIRE(writer.Add("same", tensorflow::DT_INT32, {}, &v, 4).ok());
    REQUIRE(writer.Finish().ok());
    parts.push_back(prefix);
  }
  Status dup = MergeBundles(parts, tmp.path() + "/out/ckpt", true);
  CHECK(dup.code() == Code::kInvalidArgument);
  CHECK_THAT(dup.message(),
             Contains("Duplicate tensor keyed by same encountered, when "
                      "merging prefix: " +
                      parts[1]));

  MergeOptions options;
  options.delete_old_dirs = true;
  Status one = MergeBundles({parts[0]}, tmp.path() + "/out/ckpt", options);
  REQUIRE(one.ok());
  CHECK_FALSE(fs::exists(tmp.path() + "/tmp0"));  // emptied, then removed

  options.allow_missing_files = true;
  Status none = MergeBundles({tmp.path() + "/nowhere/x"},
                             tmp.path() + "/out2/ckpt", options);
  CHECK(none.code() == Code::kInvalidArgument);
  options.allow_missing_files = false;
  Status missing = MergeBundles({tmp.path() + "/nowhere/x"},
                                tmp.path() + "/out2/ckpt", options);
  CHECK(missing.code() == Code::kNotFound);
  CHECK_THAT(missing.message(), Contains("nowhere/x.index"));
}

TEST_CASE("the real TensorFlow checkpoints read with their known values",
          "[checkpoint]") {
  auto dir = SavedModelsDir();
  if (!dir) {
    WARN("no ../shared/savedmodels: real checkpoint test skipped");
    return;
  }
  {
    auto reader = BundleReader::Open(
        *dir +
        "/tfserving__saved_model_half_plus_two_cpu/00000123/variables/"
        "variables");
    INFO(reader.status().ToString());
    REQUIRE(reader.ok());
    std::vector<std::string> keys;
    for (const auto& e : (*reader)->Entries()) {
      keys.push_back(e.key);
      CHECK(e.dtype == tensorflow::DT_FLOAT);
      CHECK(e.shape.empty());
      CHECK(e.size_bytes == 4);
    }
    CHECK(keys == std::vector<std::string>{"a", "a2", "b", "c", "c2"});
    CHECK(ReadFloatScalar(**reader, "a") == 0.5f);
    CHECK(ReadFloatScalar(**reader, "a2") == 0.5f);
    CHECK(ReadFloatScalar(**reader, "b") == 2.0f);
    CHECK(ReadFloatScalar(**reader, "c") == 3.0f);
    CHECK(ReadFloatScalar(**reader, "c2") == 3.0f);
  }
  {
    auto reader = BundleReader::Open(
        *dir + "/tfjs__times_three_float/variables/variables");
    INFO(reader.status().ToString());
    REQUIRE(reader.ok());
    std::vector<std::string> keys;
    for (const auto& e : (*reader)->Entries()) keys.push_back(e.key);
    CHECK(keys == std::vector<std::string>{"_CHECKPOINTABLE_OBJECT_GRAPH",
                                           "v/.ATTRIBUTES/VARIABLE_VALUE"});
    CHECK(ReadFloatScalar(**reader, "v/.ATTRIBUTES/VARIABLE_VALUE") == 3.0f);
    // The object graph is a string scalar (a serialized proto).
    auto graph = (*reader)->ReadStrings("_CHECKPOINTABLE_OBJECT_GRAPH");
    INFO(graph.status().ToString());
    REQUIRE(graph.ok());
    REQUIRE(graph->size() == 1);
    CHECK_THAT((*graph)[0], Contains("VARIABLE_VALUE"));
  }
}

TEST_CASE("rewriting a real checkpoint gives TensorFlow's bytes exactly",
          "[checkpoint]") {
  auto dir = SavedModelsDir();
  if (!dir) {
    WARN("no ../shared/savedmodels: byte-identity test skipped");
    return;
  }
  for (const char* model : {"tfserving__saved_model_half_plus_two_cpu/00000123",
                            "tfjs__times_three_float"}) {
    INFO(model);
    std::string original = *dir + "/" + model + "/variables/variables";
    auto reader = BundleReader::Open(original);
    REQUIRE(reader.ok());
    TempDir tmp;
    std::string copy = tmp.path() + "/variables";
    BundleWriter writer(copy);
    // Added in the order TensorFlow wrote them (data offset order).
    std::vector<BundleEntryInfo> entries = (*reader)->Entries();
    std::sort(entries.begin(), entries.end(),
              [&](const auto& a, const auto& b) {
                return (*reader)->LookupProto(a.key)->offset() <
                       (*reader)->LookupProto(b.key)->offset();
              });
    for (const BundleEntryInfo& e : entries) {
      if (e.dtype == tensorflow::DT_STRING) {
        auto values = (*reader)->ReadStrings(e.key);
        REQUIRE(values.ok());
        REQUIRE(writer.AddStrings(e.key, e.shape, *values).ok());
      } else {
        std::vector<char> bytes(static_cast<size_t>(e.size_bytes));
        REQUIRE((*reader)->ReadInto(e.key, bytes.data(), bytes.size()).ok());
        REQUIRE(writer.Add(e.key, e.dtype, e.shape, bytes.data(), bytes.size())
                    .ok());
      }
    }
    REQUIRE(writer.Finish().ok());
    CHECK(testing::ReadFileOrDie(copy + ".data-00000-of-00001") ==
          testing::ReadFileOrDie(original + ".data-00000-of-00001"));
    CHECK(testing::ReadFileOrDie(copy + ".index") ==
          testing::ReadFileOrDie(original + ".index"));
  }
}

TEST_CASE("slice keys are TensorFlow's EncodeTensorNameSlice", "[checkpoint]") {
  CHECK(EncodeTensorNameSlice("w", SliceSpec{{0, 0}, {1, -1}}) ==
        std::string("\x00w\x00\x01\x01\x02\x80\x81\x80\x7f", 10));
  // 1000 takes two bytes (c3 e8); a name byte 0x00 is escaped as 00 ff.
  CHECK(EncodeTensorNameSlice(std::string("a\0", 2), SliceSpec{{1000}, {5}}) ==
        std::string("\x00"
                    "a\x00\xff\x00\x01"
                    "\x01\x01"
                    "\xc3\xe8\x85",
                    11));
}

TEST_CASE("a partitioned tensor reads whole or in slices across its pieces",
          "[checkpoint]") {
  TempDir tmp;
  std::string prefix = tmp.path() + "/ckpt";
  // A [4,3] int32 tensor 0..11 saved as rows 0-1 and rows 2-3.
  std::vector<int32_t> all(12);
  for (int i = 0; i < 12; ++i) all[i] = i;
  {
    BundleWriter writer(prefix);
    for (int part = 0; part < 2; ++part) {
      auto key = writer.AddSliceEntry("m", tensorflow::DT_INT32, {4, 3},
                                      SliceSpec{{2 * part, 0}, {2, -1}});
      REQUIRE(key.ok());
      CHECK(*key != "m");
      REQUIRE(writer
                  .Add(*key, tensorflow::DT_INT32, {2, 3},
                       all.data() + 6 * part, 24)
                  .ok());
    }
    // A full slice is the tensor itself.
    auto whole = writer.AddSliceEntry("v", tensorflow::DT_INT32, {2},
                                      SliceSpec{{0}, {-1}});
    REQUIRE(whole.ok());
    CHECK(*whole == "v");
    REQUIRE(writer.Add("v", tensorflow::DT_INT32, {2}, all.data(), 8).ok());
    auto clash = writer.AddSliceEntry("v", tensorflow::DT_INT32, {2},
                                      SliceSpec{{0}, {1}});
    CHECK(clash.status().code() == Code::kInvalidArgument);
    REQUIRE(writer.Finish().ok());
  }
  auto reader = BundleReader::Open(prefix);
  REQUIRE(reader.ok());
  auto info = (*reader)->Lookup("m");
  REQUIRE(info.ok());
  CHECK(info->sliced);
  CHECK(info->shape == std::vector<int64_t>{4, 3});
  std::vector<int32_t> got(12, -1);
  Status s =
      (*reader)->ReadSlice("m", SliceSpec{{0, 0}, {-1, -1}}, got.data(), 48);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(got == all);
  // Rows 1-2 (one from each piece), columns 1-2.
  std::vector<int32_t> part(4, -1);
  REQUIRE((*reader)
              ->ReadSlice("m", SliceSpec{{1, 1}, {2, 2}}, part.data(), 16)
              .ok());
  CHECK(part == std::vector<int32_t>{4, 5, 7, 8});
  // A slice of a tensor stored whole.
  int32_t one = -1;
  REQUIRE((*reader)->ReadSlice("v", SliceSpec{{1}, {1}}, &one, 4).ok());
  CHECK(one == 1);
  // Reading a partitioned tensor as a whole value is not ReadInto's job.
  CHECK((*reader)->ReadInto("m", got.data(), 48).code() ==
        Code::kUnimplemented);
}

TEST_CASE("a bundle written by dfg reads back through the in-memory reader",
          "[checkpoint]") {
  TempDir tmp;
  std::string prefix = tmp.path() + "/ckpt";
  {
    BundleWriter writer(prefix);
    double d = 2.25;
    REQUIRE(writer.Add("d", tensorflow::DT_DOUBLE, {}, &d, 8).ok());
    REQUIRE(writer.Finish().ok());
  }
  auto reader = BundleReader::OpenInMemory(
      "mem", testing::ReadFileOrDie(prefix + ".index"),
      {testing::ReadFileOrDie(prefix + ".data-00000-of-00001")});
  REQUIRE(reader.ok());
  double d = 0;
  REQUIRE((*reader)->ReadInto("d", &d, 8).ok());
  CHECK(d == 2.25);
}

}  // namespace
}  // namespace dfg
