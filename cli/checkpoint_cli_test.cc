// `dfg run` over checkpoint graphs: a graph with SaveV2 run as a target,
// then a fresh `dfg run` of a graph with RestoreV2 fetching the values; the
// errors of a bad checkpoint. The checkpoint lives in a temporary directory,
// so the graphs are written with its path (golden cases cannot).
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/run_dfg_test_util.h"
#include "lib/checkpoint/checkpoint_test_util.h"
#include "lib/checkpoint/tensor_bundle.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

using Run = testing::DfgRun;
using testing::RunDfg;

std::string StringConst(const std::string& name,
                        const std::vector<std::string>& values, bool scalar) {
  std::string vals;
  for (const auto& v : values) vals += " string_val: \"" + v + "\"";
  std::string shape =
      scalar ? "tensor_shape {}"
             : "tensor_shape { dim { size: " + std::to_string(values.size()) +
                   " } }";
  return "node { name: \"" + name +
         "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_STRING } } "
         "attr { key: \"value\" value { tensor { dtype: DT_STRING " +
         shape + vals + " } } } }\n";
}

std::string SaveGraph(const std::string& prefix) {
  return StringConst("prefix", {prefix}, true) +
         StringConst("names", {"w", "step", "vocab"}, false) +
         StringConst("slices", {"", "", ""}, false) +
         StringConst("vocab", {"cat", "dog"}, false) + R"(
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {
    dim { size: 2 } dim { size: 2 } } float_val: 1 float_val: 2 float_val: 3
    float_val: 4.5 } } } }
node { name: "step" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
  attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {}
    int64_val: 7 } } } }
node { name: "save" op: "SaveV2" input: "prefix" input: "names"
  input: "slices" input: "w" input: "step" input: "vocab"
  attr { key: "dtypes" value { list { type: DT_FLOAT type: DT_INT64
    type: DT_STRING } } } }
)";
}

std::string RestoreGraph(const std::string& prefix,
                         const std::vector<std::string>& names,
                         const std::vector<std::string>& types) {
  std::string list;
  for (const auto& t : types) list += " type: " + t;
  return StringConst("prefix", {prefix}, true) +
         StringConst("names", names, false) +
         StringConst("slices", std::vector<std::string>(names.size(), ""),
                     false) +
         "node { name: \"restore\" op: \"RestoreV2\" input: \"prefix\" "
         "input: \"names\" input: \"slices\" attr { key: \"dtypes\" value { "
         "list {" +
         list + " } } } }\n";
}

class Scratch {
 public:
  Scratch()
      : dir_((fs::temp_directory_path() /
              ("dfg_ckpt_cli_" + std::to_string(::getpid())))
                 .string()) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Scratch() { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

TEST_CASE("dfg run saves with SaveV2 and a fresh run restores with RestoreV2",
          "[cli][checkpoint]") {
  Scratch s;
  std::string prefix = s.dir() + "/ckpt/model.ckpt";
  Run save = RunDfg(
      {"run", s.Write("save.pbtxt", SaveGraph(prefix)), "--target", "save"});
  INFO(save.err);
  REQUIRE(save.code == 0);
  CHECK(fs::exists(prefix + ".index"));
  CHECK(fs::exists(prefix + ".data-00000-of-00001"));

  std::string restore = s.Write(
      "restore.pbtxt", RestoreGraph(prefix, {"vocab", "w", "step"},
                                    {"DT_STRING", "DT_FLOAT", "DT_INT64"}));
  Run run = RunDfg({"run", restore, "--fetch", "restore:0", "--fetch",
                    "restore:1", "--fetch", "restore:2"});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out ==
        "restore:0 str [2]\n[\"cat\" \"dog\"]\n"
        "restore:1 float32 [2,2]\n[[  1   2]\n [  3 4.5]]\n"
        "restore:2 int64 []\n7\n");

  SECTION("a dtype that differs from the checkpoint's") {
    std::string bad =
        s.Write("bad.pbtxt", RestoreGraph(prefix, {"step"}, {"DT_INT32"}));
    Run r = RunDfg({"run", bad, "--fetch", "restore"});
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains("dfg run: error:"));
    CHECK_THAT(r.err, Contains("tensor_name = step; expected dtype int32 "
                               "does not equal original dtype int64"));
  }
  SECTION("an unknown key") {
    std::string bad =
        s.Write("bad.pbtxt", RestoreGraph(prefix, {"nope"}, {"DT_FLOAT"}));
    Run r = RunDfg({"run", bad, "--fetch", "restore"});
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains("Key nope not found in checkpoint " + prefix));
  }
  SECTION("a corrupted data file") {
    std::string data = prefix + ".data-00000-of-00001";
    std::string bytes = testing::ReadFileOrDie(data);
    bytes[2] ^= 0x5a;  // inside "w"
    std::ofstream(data, std::ios::binary | std::ios::trunc) << bytes;
    Run r = RunDfg({"run", restore, "--fetch", "restore:1"});
    CHECK(r.code == 1);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Contains("Checksum does not match"));
    CHECK_THAT(r.err, Contains("tensor 'w' in " + data));
  }
  SECTION("a missing data file") {
    fs::remove(prefix + ".data-00000-of-00001");
    Run r = RunDfg({"run", restore, "--fetch", "restore:1"});
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains(prefix + ".data-00000-of-00001; No such file"));
    CHECK_THAT(r.err, Contains("(reading tensor 'step')"));
  }
  SECTION("a missing checkpoint") {
    fs::remove(prefix + ".index");
    Run r = RunDfg({"run", restore, "--fetch", "restore:1"});
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains("Unsuccessful TensorSliceReader constructor: "
                               "Failed to find any matching files for " +
                               prefix));
  }
}

TEST_CASE("dfg run restores the real TensorFlow checkpoint",
          "[cli][checkpoint]") {
  auto shared = checkpoint_testing::SavedModelsDir();
  if (!shared) {
    WARN("no ../shared/savedmodels: real checkpoint CLI test skipped");
    return;
  }
  fs::path dir(*shared);
  Scratch s;
  std::string prefix =
      (dir /
       "tfserving__saved_model_half_plus_two_cpu/00000123/variables/"
       "variables")
          .string();
  std::string graph = s.Write(
      "restore.pbtxt", RestoreGraph(prefix, {"a", "b", "c2"},
                                    {"DT_FLOAT", "DT_FLOAT", "DT_FLOAT"}));
  Run run = RunDfg({"run", graph, "--fetch", "restore:0", "--fetch",
                    "restore:1", "--fetch", "restore:2"});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out ==
        "restore:0 float32 []\n0.5\nrestore:1 float32 []\n2\n"
        "restore:2 float32 []\n3\n");
}

// TensorFlow Rust's regression_checkpoint example from the shell: train with
// --repeat, save once after the last step with --final-target (the graph's
// tf.compat.v1.train.Saver ops), then a fresh run restores through
// --checkpoint the exact values that were saved.
TEST_CASE(
    "a training run saves with --final-target and a fresh run restores "
    "the trained values with --checkpoint",
    "[cli][checkpoint]") {
  auto corpus = testing::CorpusDir();
  if (!corpus) {
    WARN("no ../shared/corpus: skipped");
    return;
  }
  const std::string model = *corpus + "/tfrust__regression_checkpoint_model.pb";
  Scratch s;
  const std::string prefix = s.dir() + "/trained/model";
  std::string xs = "[", ys = "[";
  for (int i = 0; i < 100; ++i) {  // y = 0.1 x + 0.3 on x in [0, 1)
    const double x = i / 100.0;
    xs += (i ? "," : "") + std::to_string(x);
    ys += (i ? "," : "") + std::to_string(0.1 * x + 0.3);
  }
  Run train =
      RunDfg({"run", model, "--init-target", "init", "--target", "train",
              "--repeat", "300", "--final-target", "save/control_dependency",
              "--feed", "save/Const=\"" + prefix + "\"", "--feed",
              "x=" + xs + "]", "--feed", "y=" + ys + "]"});
  INFO(train.err);
  REQUIRE(train.code == 0);
  REQUIRE(fs::exists(prefix + ".index"));

  Run restored = RunDfg({"run", model, "--checkpoint", prefix, "--fetch", "w",
                         "--fetch", "b", "--json"});
  INFO(restored.err);
  REQUIRE(restored.code == 0);
  auto json = nlohmann::json::parse(restored.out);
  auto reader = BundleReader::Open(prefix);
  REQUIRE(reader.ok());
  for (const char* name : {"w", "b"}) {
    INFO(name);
    float saved = 0;
    REQUIRE((*reader)->ReadInto(name, &saved, sizeof(saved)).ok());
    const float got = json[name]["value"][0].get<float>();
    CHECK(got == saved);
  }
  CHECK(std::abs(json["w"]["value"][0].get<double>() - 0.1) < 1e-3);
  CHECK(std::abs(json["b"]["value"][0].get<double>() - 0.3) < 1e-3);
}

}  // namespace
}  // namespace dfg
