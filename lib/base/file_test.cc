#include "lib/base/file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

namespace fs = std::filesystem;

TEST_CASE("ReadFileToString reads a whole file, larger than one read",
          "[base]") {
  fs::path dir = fs::temp_directory_path() /
                 ("dfg_base_file_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "big.bin").string();
  std::string bytes(200000, 'x');
  bytes[0] = '\0';
  bytes.back() = 'y';
  std::ofstream(path, std::ios::binary) << bytes;
  auto read = ReadFileToString(path);
  REQUIRE(read.ok());
  CHECK(*read == bytes);

  std::ofstream(path, std::ios::binary | std::ios::trunc);
  auto empty = ReadFileToString(path);
  REQUIRE(empty.ok());
  CHECK(empty->empty());
  fs::remove_all(dir);
}

TEST_CASE("ReadFileToString names the path and the reason", "[base]") {
  auto missing = ReadFileToString("/no/such/file.json");
  CHECK(missing.status().code() == Code::kNotFound);
  CHECK(missing.status().message() ==
        "/no/such/file.json: No such file or directory");
  auto dir = ReadFileToString("/tmp");
  CHECK(dir.status().code() == Code::kInvalidArgument);
  CHECK(dir.status().message() == "/tmp: is a directory, not a file");
  // "-" is a file name, not standard input.
  CHECK(ReadFileToString("-").status().code() == Code::kNotFound);
}

TEST_CASE("ReadFileToString reads devices that report no size", "[base]") {
  auto null = ReadFileToString("/dev/null");
  REQUIRE(null.ok());
  CHECK(null->empty());
}

}  // namespace
}  // namespace dfg
