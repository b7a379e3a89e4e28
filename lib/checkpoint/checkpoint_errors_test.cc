// Bad checkpoints: every error names the file and, for a value, the key.
#include <filesystem>

#include "lib/checkpoint/checkpoint_test_util.h"
#include "lib/checkpoint/crc32c.h"
#include "lib/checkpoint/tensor_bundle.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using checkpoint_testing::TempDir;
using checkpoint_testing::WriteBytes;

// A bundle at DIR/ckpt with a float vector "w" (8 elements) and strings "s".
std::string MakeBundle(const TempDir& tmp) {
  std::string prefix = tmp.path() + "/ckpt";
  BundleWriter writer(prefix);
  std::vector<float> w = {1, 2, 3, 4, 5, 6, 7, 8};
  DFG_CHECK(writer.Add("w", tensorflow::DT_FLOAT, {8}, w.data(), 32).ok());
  DFG_CHECK(writer.AddStrings("s", {2}, {"ab", "cde"}).ok());
  DFG_CHECK(writer.Finish().ok());
  return prefix;
}

TEST_CASE("a missing index or shard is kNotFound naming the file",
          "[checkpoint]") {
  TempDir tmp;
  auto none = BundleReader::Open(tmp.path() + "/nothing");
  CHECK(none.status().code() == Code::kNotFound);
  CHECK_THAT(none.status().message(),
             Contains(tmp.path() + "/nothing.index; No such file"));

  std::string prefix = MakeBundle(tmp);
  fs::remove(prefix + ".data-00000-of-00001");
  auto reader = BundleReader::Open(prefix);
  REQUIRE(reader.ok());  // shards open lazily
  float w[8];
  Status s = (*reader)->ReadInto("w", w, sizeof(w));
  CHECK(s.code() == Code::kNotFound);
  CHECK_THAT(s.message(), Contains(prefix + ".data-00000-of-00001"));
  CHECK((*reader)->CheckReadable("w").code() == Code::kNotFound);
}

TEST_CASE("an unknown key is TensorFlow's not-found message", "[checkpoint]") {
  TempDir tmp;
  std::string prefix = MakeBundle(tmp);
  auto reader = BundleReader::Open(prefix);
  REQUIRE(reader.ok());
  auto info = (*reader)->Lookup("nope");
  CHECK(info.status().code() == Code::kNotFound);
  CHECK_THAT(info.status().message(),
             Contains("Key nope not found in checkpoint " + prefix));
  float x;
  CHECK((*reader)->ReadInto("nope", &x, 4).code() == Code::kNotFound);
}

TEST_CASE("a flipped data byte is a checksum error naming file and key",
          "[checkpoint]") {
  TempDir tmp;
  std::string prefix = MakeBundle(tmp);
  std::string data_file = prefix + ".data-00000-of-00001";
  std::string data = testing::ReadFileOrDie(data_file);
  SECTION("numeric") {
    data[5] ^= 0x10;  // inside "w" (bytes 0..31)
    WriteBytes(data_file, data);
    auto reader = BundleReader::Open(prefix);
    REQUIRE(reader.ok());
    float w[8];
    Status s = (*reader)->ReadInto("w", w, sizeof(w));
    CHECK(s.code() == Code::kDataLoss);
    CHECK_THAT(s.message(), Contains("Checksum does not match"));
    CHECK_THAT(s.message(), Contains("'w'"));
    CHECK_THAT(s.message(), Contains(data_file));
  }
  SECTION("string bytes") {
    data[data.size() - 1] ^= 0x01;  // last byte of "cde"
    WriteBytes(data_file, data);
    auto reader = BundleReader::Open(prefix);
    REQUIRE(reader.ok());
    auto s = (*reader)->ReadStrings("s");
    CHECK(s.status().code() == Code::kDataLoss);
    CHECK_THAT(s.status().message(), Contains("Checksum does not match"));
    CHECK_THAT(s.status().message(), Contains("'s'"));
  }
  SECTION("string lengths") {
    data[32] = 3;  // first length: 2 -> 3
    WriteBytes(data_file, data);
    auto reader = BundleReader::Open(prefix);
    REQUIRE(reader.ok());
    auto s = (*reader)->ReadStrings("s");
    CHECK(s.status().code() == Code::kDataLoss);
    CHECK_THAT(s.status().message(),
               Contains("The length checksum does not match"));
  }
}

TEST_CASE("a truncated shard or index is kDataLoss naming the file",
          "[checkpoint]") {
  TempDir tmp;
  std::string prefix = MakeBundle(tmp);
  SECTION("shard") {
    std::string data_file = prefix + ".data-00000-of-00001";
    fs::resize_file(data_file, 10);
    auto reader = BundleReader::Open(prefix);
    REQUIRE(reader.ok());
    float w[8];
    Status s = (*reader)->ReadInto("w", w, sizeof(w));
    CHECK(s.code() == Code::kDataLoss);
    CHECK_THAT(s.message(), Contains(data_file));
    CHECK_THAT(s.message(), Contains("'w'"));
    CHECK_THAT(s.message(), Contains("truncated"));
  }
  SECTION("index") {
    std::string index = testing::ReadFileOrDie(prefix + ".index");
    for (size_t keep :
         {size_t{0}, size_t{10}, index.size() / 2, index.size() - 1}) {
      INFO("kept " << keep << " bytes");
      WriteBytes(prefix + ".index", index.substr(0, keep));
      auto reader = BundleReader::Open(prefix);
      CHECK(reader.status().code() == Code::kDataLoss);
      CHECK_THAT(reader.status().message(),
                 Contains("Unable to read file (" + prefix + ".index)"));
    }
  }
  SECTION("index footer with a huge block handle") {
    std::string index = testing::ReadFileOrDie(prefix + ".index");
    // metaindex handle: offset 0, size 2^40 (varints), then zeros.
    const char handle[] = "\x00\x80\x80\x80\x80\x80\x20";
    std::string footer(handle, 7);
    footer.resize(40, '\0');
    index.replace(index.size() - 48, 40, footer);
    WriteBytes(prefix + ".index", index);
    auto reader = BundleReader::Open(prefix);
    CHECK(reader.status().code() == Code::kDataLoss);
    CHECK_THAT(reader.status().message(), Contains("points past the end"));
  }
  SECTION("index byte flipped") {
    std::string index = testing::ReadFileOrDie(prefix + ".index");
    index[3] ^= 0x40;  // inside the first block: its checksum fails
    WriteBytes(prefix + ".index", index);
    auto reader = BundleReader::Open(prefix);
    CHECK(reader.status().code() == Code::kDataLoss);
    CHECK_THAT(reader.status().message(), Contains(prefix + ".index"));
  }
}

TEST_CASE("reads check the destination size and the dtype", "[checkpoint]") {
  TempDir tmp;
  std::string prefix = MakeBundle(tmp);
  auto reader = BundleReader::Open(prefix);
  REQUIRE(reader.ok());
  float w[9];
  Status small = (*reader)->ReadInto("w", w, 28);
  CHECK(small.code() == Code::kInvalidArgument);
  CHECK_THAT(small.message(), Contains("'w' has 32 bytes"));
  Status strings = (*reader)->ReadInto("s", w, 8);
  CHECK(strings.code() == Code::kInvalidArgument);
  CHECK_THAT(strings.message(), Contains("'s' holds strings"));
  auto numeric = (*reader)->ReadStrings("w");
  CHECK(numeric.status().code() == Code::kInvalidArgument);
  CHECK_THAT(numeric.status().message(), Contains("dtype float, not string"));
}

TEST_CASE("the writer refuses duplicate keys and leaves no partial files",
          "[checkpoint]") {
  TempDir tmp;
  std::string prefix = tmp.path() + "/ckpt";
  {
    BundleWriter writer(prefix);
    int32_t v = 1;
    REQUIRE(writer.Add("k", tensorflow::DT_INT32, {}, &v, 4).ok());
    Status dup = writer.Add("k", tensorflow::DT_INT32, {}, &v, 4);
    CHECK(dup.code() == Code::kInvalidArgument);
    CHECK_THAT(dup.message(), Contains("Adding duplicate key: k"));
    Status size = writer.Add("k2", tensorflow::DT_INT32, {2}, &v, 4);
    CHECK(size.code() == Code::kInvalidArgument);
    CHECK(writer.Add("", tensorflow::DT_INT32, {}, &v, 4).code() ==
          Code::kInvalidArgument);
    // Destroyed without Finish: the temporary data file goes away.
  }
  CHECK(checkpoint_testing::ListDir(tmp.path()).empty());
}

}  // namespace
}  // namespace dfg
