#include "subcommands/run/step.h"

#include <istream>
#include <sstream>

#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

LoadedGraph ReadAffine() {
  std::istringstream no_stdin;
  auto loaded = ReadGraph(testing::SourceDir() + "/testdata/savedmodels/affine",
                          no_stdin);
  REQUIRE(loaded.ok());
  return std::move(loaded).value();
}

TEST_CASE("a SavedModel directory reads as its saved_model.pbtxt", "[run]") {
  LoadedGraph model = ReadAffine();
  CHECK(model.container == GraphContainer::kSavedModel);
  CHECK(model.export_dir ==
        testing::SourceDir() + "/testdata/savedmodels/affine");
  CHECK(model.meta_graph.asset_file_def_size() == 1);
  CHECK(model.meta_graph.collection_def().count("saved_model_main_op"));
  CHECK(model.meta_graph.graph_def().node_size() == 0);
  CHECK(model.graph.node_size() > 0);
  std::istringstream no_stdin;
  auto bad =
      ReadGraph(testing::SourceDir() + "/testdata/savedmodels", no_stdin);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(),
             Catch::Matchers::Contains("without saved_model.pb or "
                                       "saved_model.pbtxt"));
}

TEST_CASE("without --signature or --fetch, serving_default runs", "[run]") {
  LoadedGraph model = ReadAffine();
  StepRequest request;
  request.feeds = {"x=[1, 2.5]"};
  auto step = PrepareStep(model, request);
  REQUIRE(step.ok());
  CHECK(step->signature == "serving_default");
  CHECK(step->fetches == std::vector<std::string>{"y:0"});
  CHECK(step->fetch_names == std::vector<std::string>{"y"});
  REQUIRE(step->feeds.size() == 1);
  CHECK(step->feeds[0].first == "x:0");
  CHECK(step->feeds[0].second.dtype() == tensorflow::DT_FLOAT);
  CHECK(step->feeds[0].second.flat<float>()[1] == 2.5f);
}

TEST_CASE("a signature's outputs are fetched in key order, named by key",
          "[run]") {
  LoadedGraph model = ReadAffine();
  StepRequest request;
  request.signature = "square";
  request.feeds = {"input=[3]"};
  auto step = PrepareStep(model, request);
  REQUIRE(step.ok());
  CHECK(step->fetch_names == std::vector<std::string>{"affine", "squared"});
  CHECK(step->fetches == std::vector<std::string>{"y:0", "square:0"});
  request.fetches = {"squared"};
  step = PrepareStep(model, request);
  REQUIRE(step.ok());
  CHECK(step->fetches == std::vector<std::string>{"square:0"});
  CHECK(step->fetch_names == std::vector<std::string>{"squared"});
}

TEST_CASE("tensor names still work beside a signature's keys", "[run]") {
  LoadedGraph model = ReadAffine();
  StepRequest request;
  request.signature = "increment";
  request.feeds = {"n:0=41"};
  request.fetches = {"n_plus_one:0"};
  auto step = PrepareStep(model, request);
  REQUIRE(step.ok());
  CHECK(step->feeds[0].first == "n:0");
  CHECK(step->feeds[0].second.dtype() == tensorflow::DT_INT32);
  CHECK(step->fetch_names == std::vector<std::string>{"n_plus_one:0"});
}

TEST_CASE("with --fetch and no --signature, graph tensors come first",
          "[run]") {
  LoadedGraph model = ReadAffine();
  StepRequest request;
  request.feeds = {"x=[1]"};
  request.fetches = {"square"};
  auto step = PrepareStep(model, request);
  REQUIRE(step.ok());
  CHECK(step->fetches == std::vector<std::string>{"square"});
  CHECK(step->feeds[0].second.dtype() == tensorflow::DT_FLOAT);  // from x
}

TEST_CASE("with --fetch and no --signature, serving_default's keys resolve",
          "[run]") {
  // As a Keras export: keys that are not node names (output_0), and a key
  // that is also a node's name but means another tensor.
  LoadedGraph model = ReadAffine();
  auto& outputs = *model.signatures.at("serving_default").mutable_outputs();
  outputs["output_0"].set_name("square:0");
  outputs["square"].set_name("y:0");
  StepRequest request;
  request.feeds = {"x=[1]"};
  request.fetches = {"output_0", "square", "y:0"};
  auto step = PrepareStep(model, request);
  REQUIRE(step.ok());
  CHECK(step->signature == "serving_default");
  CHECK(step->fetches == std::vector<std::string>{"square:0", "square", "y:0"});
  CHECK(step->fetch_names ==
        std::vector<std::string>{"output_0", "square", "y:0"});
  CHECK(step->feeds[0].first == "x");  // the node, as before
  request.fetches = {"output_1"};
  step = PrepareStep(model, request);
  REQUIRE_FALSE(step.ok());
  CHECK(step.status().code() == Code::kNotFound);
  CHECK_THAT(step.status().message(),
             Catch::Matchers::Contains("--fetch output_1: signature "
                                       "'serving_default' has no output "
                                       "'output_1'"));
}

TEST_CASE("an error naming a keyed tensor also names the key given", "[run]") {
  LoadedGraph model = ReadAffine();
  StepRequest request;
  request.signature = "square";
  request.feeds = {"input=[3]"};
  request.fetches = {"squared", "y:0"};
  auto step = PrepareStep(model, request);
  REQUIRE(step.ok());
  Status blamed = BlameKeys(*step, InvalidArgument("bad value for x:0"));
  CHECK(blamed.code() == Code::kInvalidArgument);
  CHECK(blamed.message() == "bad value for x:0 (--feed input)");
  CHECK(BlameKeys(*step, InvalidArgument("square:0 failed")).message() ==
        "square:0 failed (--fetch squared)");
  // y:0 was given as the tensor itself: nothing to add.
  CHECK(BlameKeys(*step, InvalidArgument("y:0 failed")).message() ==
        "y:0 failed");
}

TEST_CASE("a file of another dtype is converted to the input's, with a note",
          "[run]") {
  LoadedGraph model = ReadAffine();
  StepRequest request;
  request.signature = "increment";
  request.feeds = {"n=" + testing::SourceDir() +
                   "/testdata/npy/feeds/n_i64.npy"};
  auto step = PrepareStep(model, request);
  REQUIRE(step.ok());
  CHECK(step->feeds[0].second.dtype() == tensorflow::DT_INT32);
  CHECK(step->feeds[0].second.scalar<int32_t>() == 41);
  REQUIRE(step->notes.size() == 1);
  CHECK_THAT(step->notes[0],
             Catch::Matchers::Contains("--feed n: converted int64 to int32"));
  request.feeds = {"n=" + testing::SourceDir() +
                   "/testdata/npy/feeds/n_i64_big.npy"};
  step = PrepareStep(model, request);
  REQUIRE_FALSE(step.ok());
  CHECK_THAT(step.status().message(),
             Catch::Matchers::Contains("--feed n: the value is int64"));
}

TEST_CASE("zeros/ones/random feeds are shaped from the input and --batch",
          "[run]") {
  LoadedGraph model = ReadAffine();
  StepRequest request;
  request.feeds = {"x=ones"};
  auto step = PrepareStep(model, request);
  REQUIRE_FALSE(step.ok());
  CHECK_THAT(step.status().message(),
             Catch::Matchers::Contains("--feed x: dimension 0"));
  request.batch = 2;
  step = PrepareStep(model, request);
  REQUIRE(step.ok());
  CHECK(step->feeds[0].second.shape() == TensorShape({2}));
  request.signature = "increment";
  request.feeds = {"n:0=random:1"};  // a Placeholder's shape and dtype
  step = PrepareStep(model, request);
  REQUIRE(step.ok());
  CHECK(step->feeds[0].second.dtype() == tensorflow::DT_INT32);
  CHECK(step->feeds[0].second.dims() == 0);
}

TEST_CASE("unknown signatures and keys are errors listing the valid ones",
          "[run]") {
  LoadedGraph model = ReadAffine();
  StepRequest request;
  request.signature = "nope";
  auto step = PrepareStep(model, request);
  REQUIRE_FALSE(step.ok());
  CHECK(step.status().code() == Code::kNotFound);
  CHECK_THAT(step.status().message(),
             Catch::Matchers::Contains("asset, count, increment, "
                                       "serving_default, square"));
  request.signature = "";
  request.feeds = {"z=[1]"};
  step = PrepareStep(model, request);
  REQUIRE_FALSE(step.ok());
  CHECK_THAT(step.status().message(), Catch::Matchers::Contains("--feed z"));
  CHECK_THAT(step.status().message(),
             Catch::Matchers::Contains("its inputs: x"));
  request.feeds = {"x=[1]"};
  request.signature = "square";
  request.fetches = {"cube"};
  step = PrepareStep(model, request);
  REQUIRE_FALSE(step.ok());
  CHECK_THAT(step.status().message(),
             Catch::Matchers::Contains("its outputs: affine, squared"));
}

TEST_CASE("a literal that does not fit the input's dtype names the feed",
          "[run]") {
  LoadedGraph model = ReadAffine();
  StepRequest request;
  request.signature = "increment";
  request.feeds = {"n=1.5"};
  auto step = PrepareStep(model, request);
  REQUIRE_FALSE(step.ok());
  CHECK_THAT(step.status().message(), Catch::Matchers::Contains("--feed n"));
  CHECK_THAT(step.status().message(),
             Catch::Matchers::Contains("does not fit dtype int32"));
  request.feeds = {"n=./41"};
  step = PrepareStep(model, request);
  REQUIRE_FALSE(step.ok());
  CHECK_THAT(step.status().message(), Catch::Matchers::Contains("./41"));
}

TEST_CASE("CheckStepSyntax names the flag whose value has no '='", "[run]") {
  StepRequest request;
  request.feeds = {"x=[1]"};
  CHECK(CheckStepSyntax(request).ok());
  request.examples = {"=[]"};
  Status s = CheckStepSyntax(request);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(),
             Catch::Matchers::Contains("--examples takes KEY=JSON, got '=[]'"));
  request.feeds.push_back("x");
  CHECK_THAT(CheckStepSyntax(request).message(),
             Catch::Matchers::Contains("--feed takes TENSOR=FILE, got 'x'"));
}

}  // namespace
}  // namespace dfg
