// Inputs built to crash the CLI by depth: each is generated here (megabytes
// that have no place in testdata) and must end in exit 1 with a message, or
// in a normal run, never in a stack overflow.
#include <string>

#include "cli/run_dfg_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

constexpr int kDeep = 100000;

// A Const whose attr nests `depth` AttrValue.func levels, in text form: three
// messages each (AttrValue, NameAttrList, its attr map entry).
std::string DeepText(int depth) {
  std::string text =
      "node { name: \"a\" op: \"Const\" attr { key: \"x\" value { ";
  for (int i = 0; i < depth; ++i) {
    text += "func { name: \"f\" attr { key: \"k\" value { ";
  }
  for (int i = 0; i < depth; ++i) text += "} } } ";
  return text + "} } }\n";
}

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    *out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *out += static_cast<char>(v);
}

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}

// The same nesting in binary. The lengths are computed from the inside out
// first, so that the bytes (all headers) come out in one forward pass.
std::string DeepBinary(int depth) {
  // value[k]: length of the AttrValue k levels above the empty innermost.
  std::vector<uint64_t> value(depth + 1, 0), entry(depth + 1), list(depth + 1);
  for (int k = 1; k <= depth; ++k) {
    entry[k] = 1 + VarintSize(value[k - 1]) + value[k - 1];  // map entry
    list[k] = 1 + VarintSize(entry[k]) + entry[k];           // NameAttrList
    value[k] = 1 + VarintSize(list[k]) + list[k];            // AttrValue.func
  }
  std::string attr_entry = "\x0a\x01x\x12";  // key "x", value:
  AppendVarint(value[depth], &attr_entry);
  std::string node = "\x0a\x01\x61\x12\x05\x43onst\x2a";  // name, op, attr
  AppendVarint(attr_entry.size() + value[depth], &node);
  std::string out = "\x0a";  // GraphDef.node
  AppendVarint(node.size() + attr_entry.size() + value[depth], &out);
  out += node + attr_entry;
  for (int k = depth; k >= 1; --k) {
    out += '\x52';
    AppendVarint(list[k], &out);
    out += '\x12';
    AppendVarint(entry[k], &out);
    out += '\x12';
    AppendVarint(value[k - 1], &out);
  }
  return out;
}

TEST_CASE("a GraphDef nested 100,000 deep is refused by every subcommand",
          "[cli]") {
  const std::string text = DeepText(kDeep);
  const std::string binary = DeepBinary(kDeep);
  for (const char* sub :
       {"info", "convert", "prune", "place", "partition", "dot", "run"}) {
    INFO(sub);
    testing::DfgRun run = testing::RunDfg({sub, "-"}, text);
    CHECK(run.code == 1);
    CHECK_THAT(run.err, Contains("<stdin>:1:"));
    CHECK_THAT(run.err, Contains("too deep"));
    run = testing::RunDfg({sub, "-"}, binary);
    CHECK(run.code == 1);
    CHECK_THAT(run.err, Contains("nested more than 100 messages deep"));
  }
}

TEST_CASE("text nesting within the binary parser's limit still reads",
          "[cli]") {
  CHECK(testing::RunDfg({"info", "-"}, DeepText(30)).code == 0);
  testing::DfgRun run = testing::RunDfg({"convert", "-"}, DeepText(40));
  CHECK(run.code == 1);
  CHECK_THAT(run.err, Contains("recursion limit of 100"));
}

const char kIdentity[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "y"
    op: "Identity"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

TEST_CASE("run refuses JSON literals nested 60,000 deep", "[cli]") {
  const std::string deep = std::string(60000, '[') + std::string(60000, ']');
  testing::DfgRun run =
      testing::RunDfg({"run", "-", "--feed", "x=" + deep}, kIdentity);
  CHECK(run.code == 1);
  CHECK_THAT(run.err, Contains("--feed x: JSON literal: JSON nested deeper "
                               "than 254 levels (at byte 254)"));
  // 254 levels is TensorFlow's largest rank, and is fed.
  run = testing::RunDfg(
      {"run", "-", "--feed",
       "x=" + std::string(254, '[') + "1" + std::string(254, ']')},
      kIdentity);
  CHECK(run.code == 0);

  run = testing::RunDfg({"run", "-", "--examples", "x=" + deep}, kIdentity);
  CHECK(run.code == 1);
  CHECK_THAT(run.err, Contains("--examples x: JSON nested deeper than 8"));
  run = testing::RunDfg({"run", "-", "--examples", "x=[{\"a\": " + deep + "}]"},
                        kIdentity);
  CHECK(run.code == 1);
  CHECK_THAT(run.err, Contains("(at byte 13)"));
}

// A float Const of shape [1] * kDeep holding 2.5, in text form.
std::string RankConst() {
  std::string text =
      "node { name: \"c\" op: \"Const\" attr { key: \"dtype\" value { type: "
      "DT_FLOAT } } attr { key: \"value\" value { tensor { dtype: DT_FLOAT "
      "tensor_shape { ";
  for (int i = 0; i < kDeep; ++i) text += "dim { size: 1 } ";
  return text + "} float_val: 2.5 } } } }\n";
}

TEST_CASE("run prints a Const of rank 100,000", "[cli]") {
  testing::DfgRun run =
      testing::RunDfg({"run", "-", "--fetch", "c"}, RankConst());
  REQUIRE(run.code == 0);
  CHECK_THAT(run.out, Contains(std::string(kDeep, '[') + "2.5" +
                               std::string(kDeep, ']')));
}

TEST_CASE("StringFormat formats a tensor of rank 100,000", "[cli]") {
  std::string graph = RankConst() +
                      R"pb(node {
                             name: "f"
                             op: "StringFormat"
                             input: "c"
                             attr {
                               key: "T"
                               value { list { type: DT_FLOAT } }
                             }
                             attr {
                               key: "template"
                               value { s: "{}" }
                             }
                             attr {
                               key: "placeholder"
                               value { s: "{}" }
                             }
                             attr {
                               key: "summarize"
                               value { i: 3 }
                             }
                           })pb";
  testing::DfgRun run = testing::RunDfg({"run", "-", "--fetch", "f"}, graph);
  REQUIRE(run.code == 0);
  CHECK_THAT(run.out, Contains(std::string(kDeep, '[') + "2.5" +
                               std::string(kDeep, ']')));
}

}  // namespace
}  // namespace dfg
