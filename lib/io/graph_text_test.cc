// PrintGraphText must print what protobuf's TextFormat::Printer prints (with
// unknown fields hidden), byte for byte: checked on hand-made corner cases
// and on every graph of the corpus (../shared/corpus).
#include "lib/io/graph_text.h"

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <filesystem>

#include "lib/io/graph_io.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using tensorflow::GraphDef;

std::string Printer(const GraphDef& graph) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetHideUnknownFields(true);
  std::string out;
  REQUIRE(printer.PrintToString(graph, &out));
  return out;
}

std::string Fast(const GraphDef& graph) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    REQUIRE(PrintGraphText(graph, &stream));
  }
  return out;
}

TEST_CASE("the fast text writer prints what TextFormat prints", "[io]") {
  GraphDef graph = testing::ParseTextProto<GraphDef>(R"pb(
    node {
      name: "a\"b'c\\d\n\x01\xc3\xa9"
      op: "Const"
      input: "x:1"
      input: "^y"
      device: "/device:CPU:0"
      attr {
        key: "s"
        value { s: "tab\there" }
      }
      attr {
        key: "i"
        value { i: -9223372036854775807 }
      }
      attr {
        key: "b"
        value { b: false }
      }
      attr {
        key: "B"
        value { b: true }
      }
      attr {
        key: "t"
        value { type: DT_HALF_REF }
      }
      attr {
        key: "f"
        value { f: 0.1 }
      }
      attr {
        key: "zero"
        value { i: 0 }
      }
      attr {
        key: "empty"
        value {}
      }
      attr {
        key: ""
        value { placeholder: "T" }
      }
      attr {
        key: "shape"
        value { shape { dim { size: -1 } } }
      }
      attr {
        key: "list"
        value { list { s: "a" i: 1 type: DT_INT32 } }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape {}
            float_val: 1.5
          }
        }
      }
      attr {
        key: "func"
        value {
          func {
            name: "f"
            attr {
              key: "T"
              value { type: DT_FLOAT }
            }
          }
        }
      }
    }
    node {}
    node {
      name: "d"
      op: "NoOp"
      experimental_debug_info { original_node_names: "o" }
    }
    node {
      name: "e"
      op: "NoOp"
      experimental_type { type_id: TFT_PRODUCT }
    }
    library { function { signature { name: "f" } } }
    version: 3
    versions { producer: 1 min_consumer: 0 bad_consumers: 2 }
    debug_info { files: "model.py" }
  )pb");
  (*graph.mutable_node(0)->mutable_attr())["u"].set_type(
      static_cast<tensorflow::DataType>(999));  // no name: a number
  CHECK(Fast(graph) == Printer(graph));
  CHECK(Fast(GraphDef()) == "");
  GraphDef library_only;
  library_only.mutable_library();
  CHECK(Fast(library_only) == Printer(library_only));
}

TEST_CASE("the fast text writer prints every corpus graph as TextFormat does",
          "[io][corpus]") {
  if (!testing::CorpusDir()) {
    WARN("../shared/corpus is absent; skipping the text writer comparison");
    return;
  }
  int compared = 0;
  for (const std::string& path : testing::CorpusFiles()) {
    std::string name = std::filesystem::path(path).filename().string();
    INFO("file " << name);
    auto loaded = ParseGraph(testing::ReadFileOrDie(path), name);
    if (!loaded.ok()) continue;  // the one malformed file
    CHECK(Fast(loaded->graph) == Printer(loaded->graph));
    ++compared;
  }
  CHECK(compared > 50);
}

}  // namespace
}  // namespace dfg
