// Every corpus graph placed from its binary bytes gives the graph model's
// bytes, byte for byte, in binary and in text form: the file itself when it
// is a binary GraphDef, and every graph in protobuf's own serialization.
#include <filesystem>
#include <sstream>

#include "lib/graph/proto_log.h"
#include "lib/io/graph_io.h"
#include "lib/place/place_binary.h"
#include "lib/place/place_test_util.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

using place_testing::Devices;

// "" when both paths agree on `bytes` (or the bytes path declines); counts
// the graphs the bytes path placed.
std::string Compare(std::string_view bytes, const DeviceSet& devices,
                    const PlaceOptions& options, int* taken) {
  std::unique_ptr<PlacedBinaryGraph> placed =
      PlaceBinaryGraphDef(bytes, devices, options);
  if (placed == nullptr) return "";
  ++*taken;
  std::string fast;
  REQUIRE(placed
              ->Write([&](std::string_view chunk) {
                fast.append(chunk);
                return Status::Ok();
              })
              .ok());
  std::string text;
  REQUIRE(WriteGraphTextStreamed(
              [&](const NodeSink& sink) { return placed->ForEachNode(sink); },
              placed->rest(),
              [&](std::string_view chunk) {
                text.append(chunk);
                return Status::Ok();
              })
              .ok());
  GraphDef graph;
  REQUIRE(graph.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  StatusOr<GraphDef> model = PlaceGraphDef(std::move(graph), devices, options);
  if (!model.ok()) return "the model rejects it: " + model.status().ToString();
  StatusOr<std::string> written = SerializeGraph(*model, GraphFormat::kPb);
  REQUIRE(written.ok());
  if (*written != fast) return "the binary outputs differ";
  StatusOr<std::string> model_text =
      SerializeGraph(*model, GraphFormat::kPbtxt);
  REQUIRE(model_text.ok());
  return *model_text == text ? "" : "the text outputs differ";
}

TEST_CASE("corpus graphs place from their bytes as the graph model places them",
          "[place][binary][corpus]") {
  if (!testing::CorpusDir()) {
    WARN("corpus not found beside the repository; skipping");
    return;
  }
  DeviceSet devices = Devices({"cpu:0", "gpu:0"});
  PlaceOptions soft, keep;
  soft.allow_soft_placement = true;
  keep.keep_assigned = keep.allow_soft_placement = true;
  int taken = 0, files = 0, raw = 0;
  for (const std::string& path : testing::CorpusFiles()) {
    std::istringstream no_stdin;
    StatusOr<LoadedGraph> loaded = ReadGraph(path, no_stdin);
    if (!loaded.ok()) continue;
    ++files;
    std::vector<std::string> forms = {
        SerializeGraph(loaded->graph, GraphFormat::kPb).value()};
    std::string file = testing::ReadFileOrDie(path);
    if (IsPlainBinaryGraphDef(file)) {
      forms.push_back(std::move(file));
      ++raw;
    }
    for (const std::string& bytes : forms) {
      for (const PlaceOptions& options : {PlaceOptions(), soft, keep}) {
        INFO(std::filesystem::path(path).filename().string()
             << " soft=" << options.allow_soft_placement
             << " keep=" << options.keep_assigned);
        CHECK(Compare(bytes, devices, options, &taken) == "");
      }
    }
  }
  // Most corpus graphs are plain graphs of known ops: the bytes path must
  // take them, or this test compares nothing.
  INFO(files << " graphs, " << raw << " binary files, " << taken
             << " placements from bytes");
  CHECK(taken >= files);
}

}  // namespace
}  // namespace dfg
