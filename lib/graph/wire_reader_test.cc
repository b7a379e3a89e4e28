#include "lib/graph/wire_reader.h"

#include <string>
#include <vector>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

// All fields of `bytes` until the end or an error.
std::vector<WireField> Fields(std::string_view bytes, std::string* error) {
  WireReader reader(bytes);
  std::vector<WireField> fields;
  WireField field;
  while (reader.Next(&field)) fields.push_back(field);
  *error = reader.error();
  return fields;
}

TEST_CASE("the wire reader gives each field with where it starts and ends",
          "[graph][wire]") {
  // 1: "ab" (length-delimited), 2: varint 300, 3: fixed64, 4: fixed32.
  const std::string bytes(
      "\x0a\x02"
      "ab"
      "\x10\xac\x02"
      "\x19"
      "12345678"
      "\x25"
      "1234",
      4 + 3 + 9 + 5);
  std::string error;
  std::vector<WireField> fields = Fields(bytes, &error);
  CHECK(error.empty());
  REQUIRE(fields.size() == 4);
  CHECK(fields[0].number == 1);
  CHECK(fields[0].type == WireType::kLen);
  CHECK(fields[0].payload == "ab");
  CHECK(fields[0].offset == 0);
  CHECK(fields[0].end == 4);
  CHECK(fields[1].type == WireType::kVarint);
  CHECK(fields[1].varint == 300);
  CHECK(fields[1].offset == 4);
  CHECK(fields[1].end == 7);
  CHECK(fields[2].type == WireType::kFixed64);
  CHECK(fields[2].end == 16);
  CHECK(fields[3].type == WireType::kFixed32);
  CHECK(fields[3].end == bytes.size());
  // A nested reader reports positions in the outer buffer.
  WireReader nested(std::string_view(bytes).substr(4), 4);
  WireField field;
  REQUIRE(nested.Next(&field));
  CHECK(field.offset == 4);
  CHECK(field.end == 7);
}

TEST_CASE("malformed wire bytes stop the reader with a clear error",
          "[graph][wire]") {
  const std::vector<std::pair<std::string, const char*>> cases = {
      {std::string("\x0a\x05"
                   "ab",
                   4),
       "claims 5 bytes but only 2 remain"},
      {std::string("\x10\xff", 2), "truncated varint"},
      {std::string("\x0a", 1), "truncated length"},
      {std::string("\x19"
                   "123",
                   4),
       "truncated fixed-size field"},
      {std::string("\x0b", 1), "group or invalid wire type"},
      {std::string("\x00\x01", 2), "field number 0"},
      {std::string("\xff\xff\xff\xff\xff\xff", 6), "malformed field tag"},
  };
  for (const auto& [bytes, phrase] : cases) {
    INFO(phrase);
    std::string error;
    Fields(bytes, &error);
    CHECK_THAT(error, Contains(phrase));
    CHECK_THAT(error, Contains("byte 0"));
  }
}

}  // namespace
}  // namespace dfg
