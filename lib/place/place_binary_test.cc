// The place stage over a binary GraphDef's bytes (place_binary.h) against the
// graph model's (PlaceGraphDef): the same bytes out, or a decline; never a
// crash on malformed bytes.
#include "lib/place/place_binary.h"

#include <optional>
#include <random>

#include "lib/graph/proto_log.h"
#include "lib/io/graph_io.h"
#include "lib/place/place_test_util.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

using namespace place_testing;  // NOLINT

// The placed GraphDef as the graph-model path writes it, or its error.
StatusOr<std::string> ModelPath(std::string_view bytes,
                                const DeviceSet& devices,
                                const PlaceOptions& options) {
  GraphDef graph;
  ScopedProtobufLogCapture quiet;
  if (!graph.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return InvalidArgument("parse failed");
  }
  DFG_ASSIGN_OR_RETURN(GraphDef placed,
                       PlaceGraphDef(std::move(graph), devices, options));
  return SerializeGraph(placed, GraphFormat::kPb);
}

// What the bytes path writes, or nullopt when it declines.
std::optional<std::string> BytesPath(std::string_view bytes,
                                     const DeviceSet& devices,
                                     const PlaceOptions& options,
                                     PlacementReport* report = nullptr) {
  std::unique_ptr<PlacedBinaryGraph> placed =
      PlaceBinaryGraphDef(bytes, devices, options, report);
  if (placed == nullptr) return std::nullopt;
  std::string out;
  Status status = placed->Write([&](std::string_view chunk) {
    out.append(chunk);
    return Status::Ok();
  });
  REQUIRE(status.ok());
  return out;
}

// "" when the bytes path agrees with the graph model's (same output, or a
// decline); else what differs. `*took` is set when it placed the graph.
std::string Agree(std::string_view bytes, const DeviceSet& devices,
                  const PlaceOptions& options, bool* took = nullptr) {
  std::optional<std::string> fast = BytesPath(bytes, devices, options);
  if (took != nullptr) *took = fast.has_value();
  if (!fast) return "";
  StatusOr<std::string> model = ModelPath(bytes, devices, options);
  if (!model.ok()) {
    return "the bytes path placed a graph the model rejects: " +
           model.status().ToString();
  }
  if (*model != *fast) return "the outputs differ";
  return "";
}

std::string Binary(const std::string& text) {
  std::string bytes;
  REQUIRE(ParseGraph(text).SerializeToString(&bytes));
  return bytes;
}

// A bit of everything the Placer distinguishes: requested devices, ref and
// resource edges, `_class` groups, a generator, a metadata op, control
// inputs out of name order.
std::string Mixed() {
  return Const("c") + Const("k", "/device:GPU:0") + Variable("v") +
         Assign("assign", "v", "c") + VarHandle("h", "/device:CPU:0") +
         ReadVariable("read", "h") + MatMul("mm", "read", "k") +
         Unary("shape", "Shape", "mm") +
         N("grouped", "Identity", {"mm", "^c", "^assign"}, "",
           {{"T", "type: DT_FLOAT"}, {"_class", ClassAttr({"loc:@read"})}}) +
         N("noop", "NoOp", {"^shape", "^grouped"}) +
         "versions { producer: 27 min_consumer: 12 }";
}

// A node whose fields are out of protobuf's order (op before name): its
// bytes are not what protobuf writes, so the bytes path re-serializes it.
std::string OutOfOrderNode() {
  NodeDef op_only, name_only;
  op_only.set_op("NoOp");
  name_only.set_name("late");
  std::string node =
      op_only.SerializeAsString() + name_only.SerializeAsString();
  std::string out = Binary(Const("c"));
  out.push_back(0x0a);
  out.push_back(static_cast<char>(node.size()));
  return out + node;
}

TEST_CASE("the bytes path writes what the graph model writes",
          "[place][binary]") {
  DeviceSet devices = Devices({"cpu:0", "gpu:0"});
  PlaceOptions soft;
  soft.allow_soft_placement = true;
  for (const std::string& bytes :
       {Binary(Mixed()), OutOfOrderNode(), Binary("")}) {
    for (const PlaceOptions& options : {PlaceOptions(), soft}) {
      bool took = false;
      CHECK(Agree(bytes, devices, options, &took) == "");
      CHECK(took);
    }
  }
}

TEST_CASE("the bytes path gives the placement's warnings", "[place][binary]") {
  std::string text = N("g", "Identity", {"c"}, "",
                       {{"T", "type: DT_FLOAT"}, {"_class", "s: 'loc:@c'"}}) +
                     Const("c");
  PlacementReport report;
  REQUIRE(BytesPath(Binary(text), Devices({"cpu:0"}), {}, &report));
  REQUIRE(report.warnings.size() == 1);
  CHECK_THAT(report.warnings[0],
             Catch::Matchers::Contains("not a single string"));
}

TEST_CASE("the bytes path declines what the graph model must say",
          "[place][binary]") {
  DeviceSet devices = Devices({"cpu:0", "gpu:0"});
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"duplicate name", Const("a") + Const("a")},
      {"unknown input", Unary("b", "Identity", "nowhere")},
      {"cycle", Unary("a", "Identity", "b") + Unary("b", "Identity", "a")},
      {"unknown op", N("x", "NoSuchOp")},
      {"too few inputs",
       N("m", "MatMul", {"a"}, "", {{"T", "type: DT_FLOAT"}}) + Const("a")},
      {"too many inputs",
       Unary("i", "Identity", "a") + Const("a") +
           N("j", "Identity", {"a", "a"}, "", {{"T", "type: DT_FLOAT"}})},
      {"wrong dtype", Const("a", "", "DT_INT32") + Unary("i", "Identity", "a")},
      {"missing attr", N("i", "Identity", {"a"}) + Const("a")},
      {"control input first",
       N("n", "NoOp", {"^a"}) + Const("a") +
           N("m", "Identity", {"^a", "a"}, "", {{"T", "type: DT_FLOAT"}})},
      {"bad name", Const("a b")},
      {"output out of range", Const("a") + Unary("i", "Identity", "a:1")},
      {"no device", Const("a", "/device:TPU:0")},
      {"library", Const("a") + "library { function { signature { name: 'f' } "
                               "} }"},
  };
  for (const auto& [what, text] : cases) {
    INFO(what);
    CHECK_FALSE(BytesPath(Binary(text), devices, {}));
  }
  PlaceOptions explain;
  explain.explain = true;
  CHECK_FALSE(BytesPath(Binary(Mixed()), devices, explain));
  CHECK_FALSE(BytesPath(Binary(Mixed()), DeviceSet(), {}));
}

TEST_CASE("malformed bytes: a decline or the model's output, never a crash",
          "[place][binary]") {
  DeviceSet devices = Devices({"cpu:0", "gpu:0"});
  const std::string good = Binary(Mixed());
  for (size_t size = 0; size < good.size(); ++size) {
    INFO("truncated to " << size);
    CHECK(Agree(std::string_view(good).substr(0, size), devices, {}) == "");
  }
  std::mt19937 random(13);
  for (int round = 0; round < 300; ++round) {
    std::string bytes = good;
    for (int flips = 1 + round % 3; flips > 0; --flips) {
      bytes[random() % bytes.size()] = static_cast<char>(random());
    }
    INFO("round " << round);
    CHECK(Agree(bytes, devices, {}) == "");
  }
  for (std::string bytes :
       {std::string("\x0a\xff\xff\xff\xff\x0f", 6), std::string("\x08\x01", 2),
        std::string("\x0b"), std::string("\x0a\x02\x08\x01", 4)}) {
    CHECK(Agree(bytes, devices, {}) == "");
  }
}

// The golden CLI cases on binary input (testdata/golden/place/pb_*) run
// through `dfg place`; they test the bytes path only if it takes them.
TEST_CASE("the golden binary graphs take the bytes path", "[place][binary]") {
  const std::string dir = testing::SourceDir() + "/testdata/golden/place/";
  DeviceSet devices = Devices({"cpu:0", "gpu:0"});
  for (const char* file : {"model.pb", "pb_class_warning/stdin"}) {
    INFO(file);
    std::string bytes = testing::ReadFileOrDie(dir + file);
    CHECK(IsPlainBinaryGraphDef(bytes));
    bool took = false;
    CHECK(Agree(bytes, devices, {}, &took) == "");
    CHECK(took);
  }
}

}  // namespace
}  // namespace dfg
