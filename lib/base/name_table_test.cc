#include "lib/base/name_table.h"

#include <string>
#include <vector>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

TEST_CASE("a name table finds each name's first index", "[base]") {
  const std::vector<std::string> names = {"a", "b/c", "", "a", "n12345678901"};
  NameTable table(static_cast<int>(names.size()),
                  [&](int i) -> const std::string& { return names[i]; });
  CHECK(table.size() == 5);
  CHECK(table.Find("a") == 0);  // the first of two
  CHECK(table.Find("b/c") == 1);
  CHECK(table.Find("") == 2);
  CHECK(table.Find("n12345678901") == 4);
  CHECK(table.Find("b") == -1);
  CHECK(table.Find("b/c/") == -1);
  CHECK(table.NameAt(3) == "a");
  CHECK_FALSE(table.unique());
  CHECK(NameTable().Find("a") == -1);
  CHECK(NameTable().unique());
  CHECK(NameTable().size() == 0);
}

TEST_CASE("a name table holds a million names", "[base]") {
  constexpr int kNames = 1000000;
  NameTable table(kNames, [](int i) { return "n" + std::to_string(i); });
  for (int i = 0; i < kNames; i += 9973) {
    CHECK(table.Find("n" + std::to_string(i)) == i);
    CHECK(table.NameAt(i) == "n" + std::to_string(i));
  }
  CHECK(table.Find("n" + std::to_string(kNames)) == -1);
  CHECK(table.unique());
}

}  // namespace
}  // namespace dfg
