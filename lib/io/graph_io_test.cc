#include "lib/io/graph_io.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using google::protobuf::util::MessageDifferencer;
using tensorflow::GraphDef;

constexpr const char* kGraph = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: -1 }
          dim { size: 2 }
        }
      }
    }
  }
  node {
    name: "w"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 2 } }
          tensor_content: "\000\000\200?\000\000\000@"
        }
      }
    }
  }
  node {
    name: "y"
    op: "Mul"
    input: "x"
    input: "w"
    input: "^w"
    device: "/device:CPU:0"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  versions { producer: 1087 }
)pb";

GraphDef TextGraph(const std::string& text = kGraph) {
  return testing::ParseTextProto<GraphDef>(text);
}

LoadedGraph MustParse(std::string_view bytes, const ReadOptions& options = {}) {
  auto loaded = ParseGraph(bytes, "g", options);
  INFO(loaded.status().ToString());
  REQUIRE(loaded.ok());
  return std::move(loaded).value();
}

std::string ParseError(std::string_view bytes, std::string_view name = "g",
                       const ReadOptions& options = {}) {
  auto loaded = ParseGraph(bytes, name, options);
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.status().code() == Code::kInvalidArgument);
  return loaded.status().message();
}

tensorflow::MetaGraphDef MetaGraph(const std::vector<std::string>& tags) {
  tensorflow::MetaGraphDef meta;
  for (const auto& tag : tags) meta.mutable_meta_info_def()->add_tags(tag);
  meta.mutable_meta_info_def()->set_tensorflow_version("2.11.0");
  *meta.mutable_graph_def() = TextGraph();
  meta.mutable_graph_def()->mutable_node(2)->set_name(tags.at(0) + "_y");
  auto& sig = (*meta.mutable_signature_def())["serving_default"];
  sig.set_method_name("tensorflow/serving/predict");
  (*sig.mutable_inputs())["x"].set_name("x:0");
  (*sig.mutable_outputs())["y"].set_name("y:0");
  return meta;
}

TEST_CASE("text, binary and JSON GraphDefs are detected by content", "[io]") {
  GraphDef graph = TextGraph();
  LoadedGraph text = MustParse(kGraph);
  CHECK(text.format == GraphFormat::kPbtxt);
  CHECK(text.container == GraphContainer::kGraphDef);
  CHECK(MessageDifferencer::Equals(text.graph, graph));

  LoadedGraph binary = MustParse(graph.SerializeAsString());
  CHECK(binary.format == GraphFormat::kPb);
  CHECK(MessageDifferencer::Equals(binary.graph, graph));

  auto json = SerializeGraph(graph, GraphFormat::kJson);
  REQUIRE(json.ok());
  LoadedGraph from_json = MustParse(*json);
  CHECK(from_json.format == GraphFormat::kJson);
  CHECK(MessageDifferencer::Equals(from_json.graph, graph));
}

TEST_CASE("JSON input accepts camelCase and proto field names", "[io]") {
  LoadedGraph a = MustParse(R"({"node": [{"name": "c", "op": "Const",
      "attr": {"value": {"tensor": {"dtype": "DT_INT32",
      "tensorShape": {}, "intVal": [3]}}}}]})");
  LoadedGraph b = MustParse(R"({"node": [{"name": "c", "op": "Const",
      "attr": {"value": {"tensor": {"dtype": "DT_INT32",
      "tensor_shape": {}, "int_val": [3]}}}}]})");
  CHECK(MessageDifferencer::Equals(a.graph, b.graph));
  CHECK(a.graph.node(0).attr().at("value").tensor().int_val(0) == 3);
}

TEST_CASE("a TensorFlow.js model.json gives its modelTopology", "[io]") {
  LoadedGraph m = MustParse(R"({"format": "graph-model",
      "signature": {"inputs": {"x": {"name": "x:0", "dtype": "DT_FLOAT"}},
                    "outputs": {"y": {"name": "y:0", "dtype": "DT_FLOAT"}}},
      "modelTopology": {"node": [{"name": "x", "op": "Placeholder"}],
                        "versions": {"producer": 7}},
      "weightsManifest": [{"paths": ["w.bin"], "weights": []}]})");
  CHECK(m.format == GraphFormat::kJson);
  CHECK(m.container == GraphContainer::kTfjsModel);
  REQUIRE(m.graph.node_size() == 1);
  CHECK(m.graph.versions().producer() == 7);
  REQUIRE(m.signatures.count("serving_default") == 1);
  CHECK(m.signatures.at("serving_default").inputs().at("x").name() == "x:0");
}

TEST_CASE("a SavedModel gives the graph of the first or the tagged meta graph",
          "[io]") {
  tensorflow::SavedModel model;
  model.set_saved_model_schema_version(1);
  *model.add_meta_graphs() = MetaGraph({"serve"});
  *model.add_meta_graphs() = MetaGraph({"train", "gpu"});
  std::string bytes = model.SerializeAsString();

  LoadedGraph first = MustParse(bytes);
  CHECK(first.container == GraphContainer::kSavedModel);
  CHECK(first.format == GraphFormat::kPb);
  CHECK(first.graph.node(2).name() == "serve_y");
  CHECK(first.tags == std::vector<std::string>{"serve"});
  CHECK(first.available_tag_sets.size() == 2);
  CHECK(first.signatures.at("serving_default").method_name() ==
        "tensorflow/serving/predict");

  LoadedGraph gpu = MustParse(bytes, ReadOptions{"gpu"});
  CHECK(gpu.graph.node(2).name() == "train_y");

  CHECK_THAT(ParseError(bytes, "sm.pb", ReadOptions{"tpu"}),
             Contains("sm.pb: no meta graph with tag 'tpu'; available: "
                      "[serve], [train, gpu]"));

  // Without saved_model_schema_version (field 1) it is still a SavedModel.
  model.clear_saved_model_schema_version();
  LoadedGraph bare = MustParse(model.SerializeAsString());
  CHECK(bare.container == GraphContainer::kSavedModel);
  CHECK(bare.graph.node(2).name() == "serve_y");
}

TEST_CASE("a MetaGraphDef gives its graph_def, binary or text", "[io]") {
  tensorflow::MetaGraphDef meta = MetaGraph({"serve"});
  LoadedGraph binary = MustParse(meta.SerializeAsString());
  CHECK(binary.container == GraphContainer::kMetaGraphDef);
  CHECK(binary.graph.node(2).name() == "serve_y");
  CHECK(binary.tags == std::vector<std::string>{"serve"});

  std::string text;
  google::protobuf::TextFormat::PrintToString(meta, &text);
  // Fields dfg's protos leave out are skipped around the graph.
  text = "saver_def { filename_tensor_name: \"save/Const:0\" }\n" + text;
  LoadedGraph from_text = MustParse(text);
  CHECK(from_text.container == GraphContainer::kMetaGraphDef);
  CHECK(from_text.format == GraphFormat::kPbtxt);
  CHECK(from_text.graph.node_size() == 3);

  // ...but not inside the graph itself.
  std::string bad = text;
  bad.replace(bad.find("op: \"Mul\""), 9, "opp: \"Mul\"");
  CHECK_THAT(ParseError(bad, "m.pbtxt"), Contains("no field named \"opp\""));
  CHECK_THAT(ParseError(bad, "m.pbtxt", ReadOptions{"gpu"}),
             Contains("m.pbtxt:"));

  CHECK_THAT(ParseError(meta.SerializeAsString(), "m.meta", ReadOptions{"gpu"}),
             Contains("no meta graph with tag 'gpu'; available: [serve]"));
}

TEST_CASE("a text SavedModel is accepted", "[io]") {
  tensorflow::SavedModel model;
  model.set_saved_model_schema_version(1);
  *model.add_meta_graphs() = MetaGraph({"serve"});
  std::string text;
  google::protobuf::TextFormat::PrintToString(model, &text);
  LoadedGraph loaded = MustParse(text);
  CHECK(loaded.container == GraphContainer::kSavedModel);
  CHECK(loaded.graph.node_size() == 3);
}

TEST_CASE("containers whose graph has fields dfg does not know still load",
          "[io]") {
  // A NodeDef field 8 (from a newer TensorFlow) inside a SavedModel.
  tensorflow::SavedModel model;
  model.set_saved_model_schema_version(1);
  *model.add_meta_graphs() = MetaGraph({"serve"});
  auto* node =
      model.mutable_meta_graphs(0)->mutable_graph_def()->mutable_node(0);
  REQUIRE(node->ParseFromString(node->SerializeAsString() +
                                std::string("\x42\x01z", 3)));
  LoadedGraph saved = MustParse(model.SerializeAsString());
  CHECK(saved.container == GraphContainer::kSavedModel);
  CHECK(HasUnknownFields(saved.graph));

  // A GraphDef field 77 inside a MetaGraphDef.
  tensorflow::MetaGraphDef meta = MetaGraph({"serve"});
  auto* graph = meta.mutable_graph_def();
  REQUIRE(graph->ParseFromString(graph->SerializeAsString() +
                                 std::string("\xea\x04\x02hi", 5)));
  LoadedGraph loaded = MustParse(meta.SerializeAsString());
  CHECK(loaded.container == GraphContainer::kMetaGraphDef);
  CHECK(loaded.graph.node_size() == 3);
  CHECK(HasUnknownFields(loaded.graph));
}

TEST_CASE("empty input is an error naming the file", "[io]") {
  CHECK(ParseError("", "e.pb") == "e.pb: empty input");
  CHECK(ParseError(" \n\t ", "e.pb") == "e.pb: empty input");
  CHECK(ParseError("\xEF\xBB\xBF\n", "bom.pbtxt") == "bom.pbtxt: empty input");
}

TEST_CASE("random bytes are not a GraphDef in any form", "[io]") {
  std::string bytes;
  uint32_t state = 12345;
  for (int i = 0; i < 4096; ++i) {
    state = state * 1103515245 + 12345;
    bytes.push_back(static_cast<char>(state >> 16));
  }
  CHECK_THAT(ParseError(bytes, "r.bin"),
             Contains("r.bin: not a GraphDef in binary, text or JSON form"));
  // A lone varint field parses as protobuf but is no graph.
  CHECK_THAT(ParseError(std::string("\x08\x01", 2)),
             Contains("not a GraphDef in binary, text or JSON form"));
}

TEST_CASE("a truncated binary GraphDef says where it ends", "[io]") {
  std::string bytes = TextGraph().SerializeAsString();
  std::string message = ParseError(bytes.substr(0, bytes.size() - 20), "t.pb");
  CHECK_THAT(message,
             Contains("t.pb: not a GraphDef in binary, text or JSON form"));
  CHECK_THAT(message, Contains("truncated"));
}

TEST_CASE("a failed read on the heap or an arena hands out no graph", "[io]") {
  // Without an arena the GraphDef is the caller's only on success: a failed
  // parse frees it (LeakSanitizer watches this in the sanitizer builds).
  google::protobuf::Arena arena;
  for (google::protobuf::Arena* a :
       {static_cast<google::protobuf::Arena*>(nullptr), &arena}) {
    std::istringstream in("node { name: ");
    LoadedGraph info;
    StatusOr<GraphDef*> graph =
        ReadGraphOnArena("-", in, ReadOptions(), a, &info);
    REQUIRE_FALSE(graph.ok());
    CHECK_THAT(std::string(graph.status().message()), Contains("<stdin>"));
  }
}

TEST_CASE("text syntax errors carry line and column", "[io]") {
  CHECK_THAT(ParseError("node {\n  name: \"a\"\n  op: Const\"\n}\n", "s.pbtxt"),
             Contains("s.pbtxt:3:"));
  CHECK_THAT(ParseError("node {\n  name: \"a\"\n  bogus: 1\n}\n", "s.pbtxt"),
             Contains("s.pbtxt:3:8: Message type \"tensorflow.NodeDef\" has no "
                      "field named \"bogus\""));
  CHECK_THAT(ParseError("node { name: \"a\"\n", "s.pbtxt"),
             Contains("s.pbtxt:2:1:"));
  // Cut short in the middle of a node: the end of the input is named.
  CHECK_THAT(ParseError("node {\n  name: \"a\"\n  op: ", "s.pbtxt"),
             Contains("s.pbtxt:3:7: Expected string, got: the end of the "
                      "input (is the file cut short?)"));
  CHECK_THAT(
      ParseError("this is not a valid graph def\n", "m.pbtxt"),
      Contains("m.pbtxt:1:6: Message type \"tensorflow.GraphDef\" has no "
               "field named \"this\""));
}

TEST_CASE("text with GraphDef's deprecated version field reads and round trips",
          "[io]") {
  // Found by graph_fuzz: old TensorFlow wrote `version: N`; protobuf warns
  // that the field is deprecated, which is no error.
  auto loaded = ParseGraph("node { name: \"a\" op: \"NoOp\" }\nversion: 7\n",
                           "old.pbtxt");
  INFO(loaded.status().ToString());
  REQUIRE(loaded.ok());
  auto text = SerializeGraph(loaded->graph, GraphFormat::kPbtxt);
  REQUIRE(text.ok());
  CHECK_THAT(*text, Contains("version: 7"));
  auto back = ParseGraph(*text, "again.pbtxt");
  REQUIRE(back.ok());
  CHECK(back->graph.SerializeAsString() == loaded->graph.SerializeAsString());
}

TEST_CASE("text whose strings are not UTF-8 is refused as binary would be",
          "[io]") {
  CHECK_THAT(ParseError("node { name: \"a\\377\" op: \"NoOp\" }", "u.pbtxt"),
             Contains("u.pbtxt: string field 'tensorflow.NodeDef.name' "
                      "contains invalid UTF-8"));
  // Bytes fields (attr strings, tensor contents) may hold anything.
  MustParse(
      "node { name: \"a\" op: \"Const\" attr { key: \"s\" value { s: "
      "\"\\377\" } } }");
}

TEST_CASE("JSON errors name the file", "[io]") {
  CHECK_THAT(ParseError("{\"node\": [{\"name\": 1,}]}", "j.json"),
             Contains("j.json: not a GraphDef in JSON form"));
  CHECK_THAT(ParseError("{\"nodes\": []}", "j.json"), Contains("nodes"));
  CHECK_THAT(ParseError("{\"modelTopology\": {\"node\": 3}}", "model.json"),
             Contains("model.json: modelTopology"));
}

TEST_CASE("a binary GraphDef that starts like JSON stays binary", "[io]") {
  // The first node is 123 bytes long, so the file starts "\n{".
  GraphDef graph;
  auto* node = graph.add_node();
  node->set_op("NoOp");
  node->set_name(std::string(123 - 8, 'n'));
  std::string bytes = graph.SerializeAsString();
  REQUIRE(bytes.substr(0, 2) == "\n{");
  LoadedGraph loaded = MustParse(bytes);
  CHECK(loaded.format == GraphFormat::kPb);
  CHECK(loaded.graph.node(0).name() == node->name());
}

TEST_CASE("binary round trips keep fields dfg does not model", "[io]") {
  GraphDef graph = TextGraph();
  std::string bytes = graph.SerializeAsString();
  // NodeDef field 99 (varint 5) appended to the first node, and a top-level
  // GraphDef field 77 (string).
  tensorflow::NodeDef* node = graph.mutable_node(0);
  std::string node_bytes =
      node->SerializeAsString() + std::string("\x98\x06\x05", 3);
  REQUIRE(node->ParseFromString(node_bytes));
  REQUIRE(graph.ParseFromString(graph.SerializeAsString() +
                                std::string("\xea\x04\x02hi", 5)));
  CHECK(HasUnknownFields(graph));
  auto out = SerializeGraph(graph, GraphFormat::kPb);
  REQUIRE(out.ok());
  LoadedGraph back = MustParse(*out);
  CHECK(MessageDifferencer::Equals(back.graph, graph));
  CHECK(HasUnknownFields(back.graph));
  CHECK_FALSE(HasUnknownFields(TextGraph()));
  // Text output leaves them out and stays parseable.
  auto text = SerializeGraph(graph, GraphFormat::kPbtxt);
  REQUIRE(text.ok());
  CHECK(MessageDifferencer::Equals(MustParse(*text).graph, TextGraph()));
}

TEST_CASE("serialization is deterministic with map entries sorted", "[io]") {
  GraphDef graph = TextGraph();
  auto text = SerializeGraph(graph, GraphFormat::kPbtxt);
  REQUIRE(text.ok());
  CHECK(text->find("key: \"dtype\"") < text->find("key: \"shape\""));
  auto json = SerializeGraph(graph, GraphFormat::kJson);
  REQUIRE(json.ok());
  CHECK_THAT(*json, Contains("\"tensorShape\""));
  CHECK(json->find("\"dtype\": {") < json->find("\"shape\": {"));
  CHECK(json->back() == '\n');
  auto pb1 = SerializeGraph(graph, GraphFormat::kPb);
  auto pb2 = SerializeGraph(MustParse(*json).graph, GraphFormat::kPb);
  REQUIRE(pb1.ok());
  REQUIRE(pb2.ok());
  CHECK(*pb1 == *pb2);
  CHECK_FALSE(SerializeGraph(graph, GraphFormat::kDot).ok());
}

TEST_CASE("format names and file extensions", "[io]") {
  CHECK(ParseGraphFormat("pbtxt") == GraphFormat::kPbtxt);
  CHECK(ParseGraphFormat("json") == GraphFormat::kJson);
  CHECK_FALSE(ParseGraphFormat("yaml").has_value());
  CHECK(GraphFormatFromPath("a/b.pbtxt") == GraphFormat::kPbtxt);
  CHECK(GraphFormatFromPath("b.txt") == GraphFormat::kPbtxt);
  CHECK(GraphFormatFromPath("b.pb") == GraphFormat::kPb);
  CHECK(GraphFormatFromPath("model.json") == GraphFormat::kJson);
  CHECK(GraphFormatFromPath("g.gv") == GraphFormat::kDot);
  CHECK_FALSE(GraphFormatFromPath("dir.d/file").has_value());
  CHECK_FALSE(GraphFormatFromPath("out").has_value());
  CHECK(std::string(GraphContainerName(GraphContainer::kSavedModel)) ==
        "SavedModel");
}

TEST_CASE("files are written whole, through a rename", "[io]") {
  namespace fs = std::filesystem;
  fs::path dir =
      fs::temp_directory_path() / ("dfg_io_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "out.pbtxt").string();
  REQUIRE(WriteFileAtomically(path, "first").ok());
  REQUIRE(WriteFileAtomically(path, "second").ok());
  std::istringstream unused;
  auto read = ReadFileToString(path, unused);
  REQUIRE(read.ok());
  CHECK(*read == "second");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) ==
        1);

  Status missing = WriteFileAtomically((dir / "no/such/dir.pb").string(), "x");
  CHECK_FALSE(missing.ok());
  CHECK_THAT(missing.message(), Contains("no/such/dir.pb"));
  Status is_dir = WriteFileAtomically(dir.string(), "x");
  CHECK_THAT(is_dir.message(), Contains("is a directory"));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) ==
        1);
  REQUIRE(WriteFileAtomically("/dev/null", "discarded").ok());
  fs::remove_all(dir);
}

TEST_CASE("streamed files are whole or absent", "[io]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("dfg_io_stream_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "out.pb").string();
  auto pieces = [](const ChunkWriter& write) -> Status {
    for (const char* piece : {"one ", "two ", "three"}) {
      DFG_RETURN_IF_ERROR(write(piece));
    }
    return Status::Ok();
  };
  REQUIRE(WriteFileStreamed(path, pieces).ok());
  CHECK(testing::ReadFileOrDie(path) == "one two three");
  // A producer's error leaves the old file and no temporary beside it.
  Status failed = WriteFileStreamed(path, [](const ChunkWriter& write) {
    DFG_RETURN_IF_ERROR(write("partial"));
    return Internal("stopped");
  });
  CHECK(failed.message() == "stopped");
  CHECK(testing::ReadFileOrDie(path) == "one two three");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) ==
        1);
  CHECK_THAT(WriteFileStreamed(dir.string(), pieces).message(),
             Contains("is a directory"));
  CHECK_FALSE(WriteFileStreamed((dir / "no/such.pb").string(), pieces).ok());
  CHECK(WriteFileStreamed("/dev/null", pieces).ok());
  fs::remove_all(dir);
}

TEST_CASE("ReadGraphInput then ParseGraphOnArena is ReadGraphOnArena", "[io]") {
  std::istringstream in(kGraph);
  auto input = ReadGraphInput("-", in);
  REQUIRE(input.ok());
  CHECK(input->file == "-");
  CHECK(input->bytes == kGraph);
  CHECK_FALSE(IsPlainBinaryGraphDef(input->bytes));  // text
  google::protobuf::Arena arena;
  LoadedGraph info;
  auto graph = ParseGraphOnArena(std::move(input).value(), {}, &arena, &info);
  REQUIRE(graph.ok());
  CHECK((*graph)->node_size() == 3);
  std::string binary = (*graph)->SerializeAsString();
  CHECK(IsPlainBinaryGraphDef(binary));
  CHECK_FALSE(IsPlainBinaryGraphDef(""));
  tensorflow::MetaGraphDef meta;
  *meta.mutable_graph_def() = **graph;
  meta.mutable_meta_info_def()->add_tags("serve");
  CHECK_FALSE(IsPlainBinaryGraphDef(meta.SerializeAsString()));
}

TEST_CASE("ReadGraph names files and stdin in its errors", "[io]") {
  std::istringstream in(kGraph);
  auto loaded = ReadGraph("-", in);
  REQUIRE(loaded.ok());
  CHECK(loaded->graph.node_size() == 3);
  std::istringstream empty("");
  auto e = ReadGraph("-", empty);
  REQUIRE_FALSE(e.ok());
  CHECK(e.status().message() == "<stdin>: empty input");
  auto missing = ReadGraph("/no/such/model.pb", empty);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == Code::kNotFound);
  CHECK_THAT(missing.status().message(),
             Contains("/no/such/model.pb: No such file"));
  auto dir = ReadGraph("/tmp", empty);
  CHECK_THAT(dir.status().message(), Contains("/tmp: is a directory"));
}

TEST_CASE("graph files are streamed with SerializeGraph's bytes", "[io]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("dfg_io_stream_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  GraphDef graph;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(kGraph, &graph));
  std::istringstream unused;
  for (GraphFormat format :
       {GraphFormat::kPb, GraphFormat::kPbtxt, GraphFormat::kJson}) {
    std::string path = (dir / "out").string();
    REQUIRE(WriteGraphFile(path, graph, format).ok());
    auto written = ReadFileToString(path, unused);
    auto expected = SerializeGraph(graph, format);
    REQUIRE(written.ok());
    REQUIRE(expected.ok());
    CHECK(*written == *expected);
  }
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) ==
        1);
  Status is_dir = WriteGraphFile(dir.string(), graph, GraphFormat::kPb);
  CHECK_THAT(is_dir.message(), Contains("is a directory"));
  Status missing =
      WriteGraphFile((dir / "no/such.pb").string(), graph, GraphFormat::kPb);
  CHECK_THAT(missing.message(), Contains("no/such.pb"));
  REQUIRE(WriteGraphFile("/dev/null", graph, GraphFormat::kPb).ok());
  fs::remove_all(dir);
}

TEST_CASE("ReadGraphOnArena reads what ReadGraph reads into the arena",
          "[io]") {
  google::protobuf::Arena arena(BigGraphArenaOptions());
  std::istringstream in(kGraph);
  LoadedGraph info;
  auto graph = ReadGraphOnArena("-", in, {}, &arena, &info);
  REQUIRE(graph.ok());
  CHECK((*graph)->GetArena() == &arena);
  CHECK((*graph)->node_size() == 3);
  CHECK(info.format == GraphFormat::kPbtxt);
  CHECK(info.graph.node_size() == 0);
  std::istringstream empty("");
  auto e = ReadGraphOnArena("-", empty, {}, &arena, &info);
  REQUIRE_FALSE(e.ok());
  CHECK(e.status().message() == "<stdin>: empty input");
}

}  // namespace
}  // namespace dfg
