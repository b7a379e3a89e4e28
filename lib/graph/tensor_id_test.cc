#include "lib/graph/tensor_id.h"

#include <climits>

#include "lib/graph/types.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

TensorId T(std::string node, int index) { return TensorId{node, index}; }

TEST_CASE("ParseTensorName reads node, node:k and ^node", "[graph]") {
  CHECK(ParseTensorName("a") == T("a", 0));
  CHECK(ParseTensorName("a:0") == T("a", 0));
  CHECK(ParseTensorName("a:3") == T("a", 3));
  CHECK(ParseTensorName("a/b/c:12") == T("a/b/c", 12));
  CHECK(ParseTensorName("^a") == T("a", kControlSlot));
  CHECK(ParseTensorName("^a/b") == T("a/b", kControlSlot));
}

TEST_CASE("ParseTensorName follows TensorFlow in the corner cases", "[graph]") {
  // No digits after the colon: the whole string is the name.
  CHECK(ParseTensorName("a:") == T("a:", 0));
  // A colon in first position is not a separator.
  CHECK(ParseTensorName(":0") == T(":0", 0));
  // name:digits is tried before ^name.
  CHECK(ParseTensorName("^a:1") == T("^a", 1));
  // Leading zeros are allowed.
  CHECK(ParseTensorName("a:01") == T("a", 1));
  CHECK(ParseTensorName("a:0000000000007") == T("a", 7));
  // Digits without a colon belong to the name; the first character is never
  // consumed as a digit.
  CHECK(ParseTensorName("a12") == T("a12", 0));
  CHECK(ParseTensorName("1") == T("1", 0));
  CHECK(ParseTensorName("1:2") == T("1", 2));
  CHECK(ParseTensorName("a:b:2") == T("a:b", 2));
  CHECK(ParseTensorName("") == T("", 0));
  CHECK(ParseTensorName("^") == T("", kControlSlot));
}

TEST_CASE("ParseTensorName never turns a huge index into a control slot",
          "[graph]") {
  TensorId id = ParseTensorName("a:99999999999999999999999");
  CHECK(id.node == "a");
  CHECK(id.index > 0);
}

TEST_CASE("ParseTensorNameView agrees with ParseTensorName", "[graph]") {
  for (const char* s : {"a", "a:1", "^a", "a:", ":0", "^a:1", "", "x:007"}) {
    TensorIdView v = ParseTensorNameView(s);
    TensorId id = ParseTensorName(s);
    CHECK(v.node == id.node);
    CHECK(v.index == id.index);
  }
}

TEST_CASE("TensorIndexOverflows tells a saturated index from INT_MAX",
          "[graph]") {
  CHECK(ParseTensorName("c:99999999999999999999").index == INT_MAX);
  CHECK(TensorIndexOverflows("c:99999999999999999999"));
  CHECK(TensorIndexOverflows("c:2147483648"));
  CHECK(TensorIndexOverflows("a:b:10000000000"));
  CHECK_FALSE(TensorIndexOverflows("c:2147483647"));
  CHECK_FALSE(TensorIndexOverflows("c:0002147483647"));
  CHECK_FALSE(TensorIndexOverflows("c:1"));
  CHECK_FALSE(TensorIndexOverflows("^c"));
  CHECK_FALSE(TensorIndexOverflows("c99999999999999999999"));
}

TEST_CASE("TensorId::ToString always shows the index", "[graph]") {
  CHECK(T("x", 0).ToString() == "x:0");
  CHECK(T("x", 2).ToString() == "x:2");
  CHECK(T("x", kControlSlot).ToString() == "^x");
  CHECK(ParseTensorName("x").ToString() == "x:0");
}

TEST_CASE("InputString writes inputs as TensorFlow's NodeDefs do", "[graph]") {
  CHECK(InputString("x", 0) == "x");
  CHECK(InputString("x", 3) == "x:3");
  CHECK(InputString("x", kControlSlot) == "^x");
}

TEST_CASE("TensorIds order by node then index", "[graph]") {
  CHECK(T("a", 1) < T("b", 0));
  CHECK(T("a", 0) < T("a", 1));
  CHECK(T("a", kControlSlot) < T("a", 0));
}

}  // namespace
}  // namespace dfg
