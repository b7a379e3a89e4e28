#include "lib/base/strings.h"

#include "lib/testing/catch.h"

namespace dfg {
namespace {

TEST_CASE("split keeps or skips empty pieces", "[base]") {
  CHECK(StrSplit("a,,b", ',') == std::vector<std::string>{"a", "", "b"});
  CHECK(StrSplit("a,,b", ',', true) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("nearest name suggests a plausible typo only", "[base]") {
  std::vector<std::string> names = {"dense/MatMul", "dense/BiasAdd", "input"};
  CHECK(NearestName("dense/Matmul", names) ==
        std::optional<std::string>("dense/MatMul"));
  CHECK(NearestName("inptu", names) == std::optional<std::string>("input"));
  CHECK_FALSE(NearestName("completely_else", names).has_value());
  CHECK(DidYouMean("inputt", names) == " (did you mean 'input'?)");
}

TEST_CASE("parse int rejects trailing garbage and overflow", "[base]") {
  CHECK(ParseInt64("42") == std::optional<int64_t>(42));
  CHECK(ParseInt64("-7") == std::optional<int64_t>(-7));
  CHECK_FALSE(ParseInt64("4x").has_value());
  CHECK_FALSE(ParseInt64("99999999999999999999").has_value());
  CHECK_FALSE(ParseInt64("").has_value());
}

TEST_CASE("file names keep only safe characters", "[base]") {
  CHECK(SanitizeFileName("/job:localhost/replica:0/task:0/device:CPU:0") ==
        "_job_localhost_replica_0_task_0_device_CPU_0");
  CHECK(SanitizeFileName("while/Exit:0") == "while_Exit_0");
}

TEST_CASE("QuoteHexEscaped quotes and escapes bytes in hex", "[base]") {
  CHECK(QuoteHexEscaped("it's\n\"a\"\\") == "\"it's\\n\\\"a\\\"\\\\\"");
  CHECK(QuoteHexEscaped(std::string("\x01\xff", 2)) == "\"\\x01\\xff\"");
  CHECK(CEscape(std::string("'\x01\xff", 3)) == "\\'\\001\\377");
  CHECK(Utf8SafeCEscape(std::string("'\x01\x7f\xc3\xa9\n", 6)) ==
        std::string("\\'\\001\\177\xc3\xa9\\n", 14));
}

}  // namespace
}  // namespace dfg
