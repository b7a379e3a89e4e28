#include "lib/savedmodel/loader.h"

#include <filesystem>
#include <sstream>

#include "lib/io/graph_io.h"
#include "lib/kernels/kernel_registry.h"
#include "lib/savedmodel/savedmodel_test_util.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "lib/testing/text_proto.h"
#include "subcommands/run/step.h"

namespace dfg {
namespace {

namespace fs = std::filesystem;
using testing::ReadModel;

// Loads `model` and runs signature `sig` with `feeds` (NAME=VALUE) `runs`
// times, returning the last outputs.
std::vector<Tensor> RunSignature(LoadedGraph model, const std::string& sig,
                                 const std::vector<std::string>& feeds,
                                 int runs = 1) {
  StepRequest request;
  request.signature = sig;
  request.feeds = feeds;
  return testing::RunModel(std::move(model), request, runs);
}

std::string AffineDir() {
  return testing::SourceDir() + "/testdata/savedmodels/affine";
}

TEST_CASE("a SavedModel without variables runs as it is", "[savedmodel]") {
  auto out = RunSignature(ReadModel(AffineDir()), "", {"x=[1, 2.5]"});
  REQUIRE(out.size() == 1);
  CHECK(out[0].flat<float>()[0] == 3.0f);
  CHECK(out[0].flat<float>()[1] == 6.0f);
}

TEST_CASE("the init op runs with each asset tensor fed the asset's path",
          "[savedmodel]") {
  auto out = RunSignature(ReadModel(AffineDir()), "asset", {});
  REQUIRE(out.size() == 1);
  CHECK(out[0].scalar<std::string>() == AffineDir() + "/assets/vocab.txt");
}

TEST_CASE("variables keep their values across the steps of one session",
          "[savedmodel]") {
  auto out = RunSignature(ReadModel(AffineDir()), "count", {}, 3);
  REQUIRE(out.size() == 1);
  CHECK(out[0].scalar<int32_t>() == 3);
}

tensorflow::MetaGraphDef ParseMeta(const std::string& text) {
  return testing::ParseTextProto<tensorflow::MetaGraphDef>(text);
}

TEST_CASE("TF1 assets come from the saved_model_assets collection",
          "[savedmodel]") {
  tensorflow::AssetFileDef asset;
  asset.mutable_tensor_info()->set_name("Const:0");
  asset.set_filename("foo.txt");
  tensorflow::MetaGraphDef meta;
  (*meta.mutable_collection_def())[kSavedModelAssetsKey]
      .mutable_any_list()
      ->add_value()
      ->PackFrom(asset);
  auto feeds = AssetFeeds(meta, "/m");
  REQUIRE(feeds.ok());
  REQUIRE(feeds->size() == 1);
  CHECK((*feeds)[0].first == "Const:0");
  CHECK((*feeds)[0].second == "/m/assets/foo.txt");
  // The same asset listed twice is fed once (TensorFlow's loader: a dict).
  (*meta.mutable_collection_def())[kSavedModelAssetsKey]
      .mutable_any_list()
      ->add_value()
      ->PackFrom(asset);
  feeds = AssetFeeds(meta, "/m");
  REQUIRE(feeds.ok());
  CHECK(feeds->size() == 1);
  (*meta.mutable_collection_def())[kSavedModelAssetsKey]
      .mutable_any_list()
      ->add_value()
      ->PackFrom(asset.tensor_info());
  CHECK_FALSE(AssetFeeds(meta, "/m").ok());
}

TEST_CASE("the init op: the TF2 signature, else main_op, else legacy",
          "[savedmodel]") {
  auto meta = ParseMeta(R"pb(
    collection_def {
      key: "legacy_init_op"
      value { node_list { value: "legacy" } }
    })pb");
  CHECK(InitOpName(meta, "d").value() == "legacy");
  (*meta.mutable_collection_def())[kSavedModelMainOpKey]
      .mutable_node_list()
      ->add_value("main");
  CHECK(InitOpName(meta, "d").value() == "main");
  (*(*meta.mutable_signature_def())[kSavedModelInitOpSignatureKey]
        .mutable_outputs())[kSavedModelInitOpSignatureKey]
      .set_name("NoOp");
  CHECK(InitOpName(meta, "d").value() == "NoOp");
  meta.clear_signature_def();
  (*meta.mutable_collection_def())[kSavedModelMainOpKey]
      .mutable_node_list()
      ->add_value("second");
  auto two = InitOpName(meta, "d");
  REQUIRE_FALSE(two.ok());
  CHECK(two.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(two.status().message(),
             Catch::Matchers::Contains("Expected exactly one main op in : d"));
  CHECK(InitOpName(tensorflow::MetaGraphDef(), "d").value().empty());
}

TEST_CASE("a SavedModel whose variables are missing names the missing file",
          "[savedmodel]") {
  fs::path dir = fs::temp_directory_path() / "dfg_savedmodel_novars";
  fs::create_directories(dir);
  LoadedGraph model = ReadModel(AffineDir());
  model.meta_graph.mutable_saver_def()->set_restore_op_name("main_op");
  model.meta_graph.mutable_saver_def()->set_filename_tensor_name("x:0");
  LoadOptions options;
  options.export_dir = dir.string();
  auto session =
      LoadSavedModel(std::move(model.graph), model.meta_graph, options);
  REQUIRE_FALSE(session.ok());
  CHECK(session.status().code() == Code::kNotFound);
  CHECK_THAT(
      session.status().message(),
      Catch::Matchers::Contains((dir / "variables/variables.index").string()));
  CHECK_THAT(session.status().message(),
             Catch::Matchers::Contains("'asset_path'"));
  fs::remove_all(dir);
}

TEST_CASE("saved Consts must have a fully defined value", "[savedmodel]") {
  LoadedGraph model = ReadModel(AffineDir());
  auto* value =
      (*model.graph.mutable_node(1)->mutable_attr())["value"].mutable_tensor();
  value->mutable_tensor_shape()->set_unknown_rank(true);
  LoadOptions options;
  options.export_dir = model.export_dir;
  auto session =
      LoadSavedModel(std::move(model.graph), model.meta_graph, options);
  REQUIRE_FALSE(session.ok());
  CHECK(session.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(session.status().message(),
             Catch::Matchers::Contains("Saved model contains node \"two\""));
}

}  // namespace
}  // namespace dfg
