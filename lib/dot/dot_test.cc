#include "lib/dot/dot.h"

#include <algorithm>

#include "lib/dot/dot_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using dot_testing::Drawn;
using dot_testing::ParseGraph;
using dot_testing::ReadDrawn;
using tensorflow::GraphDef;

Drawn Draw(const GraphDef& graph, const DotOptions& options = {},
           DotReport* report = nullptr) {
  StatusOr<std::string> dot = GraphToDot(graph, options, report);
  REQUIRE(dot.ok());
  return ReadDrawn(*dot);
}

bool HasEdge(const Drawn& drawn, const std::string& edge) {
  return std::find(drawn.edges.begin(), drawn.edges.end(), edge) !=
         drawn.edges.end();
}

constexpr const char* kSmall = R"pb(
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
          dim { size: 3 }
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
          tensor_shape {
            dim { size: 3 }
            dim { size: 2 }
          }
        }
      }
    }
  }
  node { name: "init" op: "NoOp" }
  node {
    name: "dense/MatMul"
    op: "MatMul"
    input: "x"
    input: "w"
    input: "^init"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "split"
    op: "Split"
    input: "w"
    input: "dense/MatMul"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "num_split"
      value { i: 2 }
    }
  }
  node {
    name: "Identity_1"
    op: "Identity"
    input: "split:1"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

TEST_CASE("labels show the op unless it is NoOp or the name starts with it",
          "[dot]") {
  Drawn drawn = Draw(ParseGraph(kSmall));
  // Device clusters: the scopes shared by every node (none here) are left out.
  CHECK(drawn.nodes["dense/MatMul"]["label"] == "dense/MatMul\\n(MatMul)");
  CHECK(drawn.nodes["init"]["label"] == "init");
  CHECK(drawn.nodes["Identity_1"]["label"] == "Identity_1");
  CHECK(drawn.nodes["x"]["label"] == "x\\n(Placeholder)");
}

TEST_CASE("node shapes follow the node's role", "[dot]") {
  Drawn drawn = Draw(ParseGraph(kSmall));
  CHECK(drawn.nodes["x"]["shape"] == "invhouse");
  CHECK(drawn.nodes["w"]["shape"] == "ellipse");
  CHECK(drawn.nodes["dense/MatMul"]["shape"] == "box");
  CHECK(drawn.nodes["dense/MatMul"]["style"] == "rounded");
}

TEST_CASE("data edges carry dtype, shape and port, control edges are dashed",
          "[dot]") {
  Drawn drawn = Draw(ParseGraph(kSmall));
  CHECK(HasEdge(drawn, "x -> dense/MatMul [label=float[?,3]]"));
  CHECK(HasEdge(drawn, "w -> dense/MatMul [label=float[3,2]]"));
  CHECK(HasEdge(drawn, "init -> dense/MatMul [style=dashed]"));
  CHECK(HasEdge(drawn, "dense/MatMul -> split [label=float]"));
  CHECK(HasEdge(drawn, "split -> Identity_1 [label=:1 float]"));
}

TEST_CASE("the drawing is the same every time, also after rendering", "[dot]") {
  GraphDef graph = ParseGraph(kSmall);
  StatusOr<std::string> first = GraphToDot(graph, {});
  REQUIRE(first.ok());
  DotOptions svg;
  svg.format = DotFormat::kSvg;
  REQUIRE(GraphToDot(graph, svg).ok());
  StatusOr<std::string> second = GraphToDot(graph, {});
  REQUIRE(second.ok());
  CHECK(*first == *second);
}

TEST_CASE("a NextIteration feeding a Merge does not constrain the ranking",
          "[dot]") {
  Drawn drawn = Draw(ParseGraph(R"pb(
    node {
      name: "c"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
    }
    node {
      name: "merge"
      op: "Merge"
      input: "c"
      input: "next"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
      attr {
        key: "N"
        value { i: 2 }
      }
    }
    node {
      name: "next"
      op: "NextIteration"
      input: "merge"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
  )pb"));
  CHECK(HasEdge(drawn, "next -> merge [constraint=false, label=int32]"));
  CHECK(HasEdge(drawn, "merge -> next [label=int32]"));
  CHECK(drawn.nodes["merge"]["shape"] == "hexagon");
}

constexpr const char* kPlaced = R"pb(
  node {
    name: "a"
    op: "Const"
    device: "/job:localhost/replica:0/task:0/device:GPU:0"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "b"
    op: "Neg"
    input: "a"
    device: "/job:localhost/replica:0/task:0/device:CPU:0"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node { name: "c" op: "NoOp" input: "^b" }
)pb";

TEST_CASE("devices get palette colours in sorted order, a cluster and a legend",
          "[dot]") {
  Drawn drawn = Draw(ParseGraph(kPlaced));
  CHECK(drawn.nodes["b"]["fillcolor"] == "#F15854");  // CPU:0 sorts first
  CHECK(drawn.nodes["a"]["fillcolor"] == "#5DA5DA");
  CHECK(drawn.nodes["a"]["fontcolor"] == "white");
  CHECK(drawn.nodes["c"]["fillcolor"] == "");
  CHECK(drawn.clusters["/job:localhost/replica:0/task:0/device:CPU:0"] ==
        std::set<std::string>{"b"});
  REQUIRE(drawn.has_legend);
  CHECK(drawn.legend.find("3 nodes") != std::string::npos);
  CHECK(drawn.legend.find("#5DA5DA") != std::string::npos);
  CHECK(drawn.legend.find("device:GPU:0") != std::string::npos);
}

TEST_CASE("without devices nodes cluster by name scope, chains drawn once",
          "[dot]") {
  Drawn drawn = Draw(ParseGraph(R"pb(
    node { name: "outer/inner/a" op: "NoOp" }
    node { name: "outer/inner/b" op: "NoOp" }
    node { name: "outer/inner/deeper/c" op: "NoOp" }
    node { name: "outer/inner/deeper/d" op: "NoOp" }
    node { name: "lonely/e" op: "NoOp" }
    node { name: "top" op: "NoOp" }
  )pb"));
  CHECK(drawn.clusters.size() == 2);
  // "outer" holds only "outer/inner": one box, named by its last part.
  CHECK(drawn.clusters["inner"] ==
        std::set<std::string>{"outer/inner/a", "outer/inner/b",
                              "outer/inner/deeper/c", "outer/inner/deeper/d"});
  CHECK(drawn.clusters["deeper"] ==
        std::set<std::string>{"outer/inner/deeper/c", "outer/inner/deeper/d"});
}

TEST_CASE("cluster none and rankdir LR are honoured", "[dot]") {
  DotOptions options;
  options.cluster = DotCluster::kNone;
  options.left_to_right = true;
  Drawn drawn = Draw(ParseGraph(kPlaced), options);
  CHECK(drawn.clusters.empty());
  CHECK(drawn.rankdir == "LR");
  CHECK(Draw(ParseGraph(kPlaced)).rankdir == "TB");
}

constexpr const char* kScopes = R"pb(
  node { name: "in" op: "NoOp" }
  node { name: "block/a/x" op: "NoOp" input: "^in" }
  node { name: "block/a/y" op: "NoOp" input: "^block/a/x" }
  node { name: "block/b" op: "NoOp" input: "^block/a/y" }
  node { name: "out" op: "NoOp" input: "^block/b" input: "^block/a/x" }
)pb";

TEST_CASE("collapse folds scopes below the depth into one node with a count",
          "[dot]") {
  DotOptions options;
  options.collapse_depth = 1;
  Drawn drawn = Draw(ParseGraph(kScopes), options);
  REQUIRE(drawn.nodes.size() == 3);
  CHECK(drawn.nodes["block"]["label"] == "block\\n(3 nodes)");
  CHECK(drawn.nodes["block"]["shape"] == "box3d");
  CHECK(drawn.edges == std::vector<std::string>{"in -> block [style=dashed]",
                                                "block -> out [style=dashed]"});
  options.collapse_depth = 2;
  drawn = Draw(ParseGraph(kScopes), options);
  CHECK(drawn.nodes.count("block/a") == 1);
  CHECK(drawn.nodes.count("block/b") == 1);
}

TEST_CASE(
    "above max_nodes the deepest fold under the limit is chosen and reported",
    "[dot]") {
  DotOptions options;
  options.max_nodes = 4;
  DotReport report;
  Drawn drawn = Draw(ParseGraph(kScopes), options, &report);
  CHECK(report.graph_nodes == 5);
  CHECK(report.auto_fold_depth == 2);
  CHECK(report.drawn_nodes == 4);
  REQUIRE(report.notes.size() == 1);
  CHECK(report.notes[0].find("depth 2") != std::string::npos);
  CHECK(drawn.nodes.count("block/a") == 1);

  options.max_nodes = 0;
  Draw(ParseGraph(kScopes), options, &report);
  CHECK(report.auto_fold_depth == -1);
  CHECK(report.notes.empty());
}

TEST_CASE("focus draws the nodes within the radius, over edges both ways",
          "[dot]") {
  DotOptions options;
  options.focus = "block/a/y";
  options.radius = 1;
  Drawn drawn = Draw(ParseGraph(kScopes), options);
  std::set<std::string> names;
  for (const auto& [name, attrs] : drawn.nodes) names.insert(name);
  CHECK(names == std::set<std::string>{"block/a/x", "block/a/y", "block/b"});
}

TEST_CASE("focus on an unknown node is NotFound with the nearest name",
          "[dot]") {
  DotOptions options;
  options.focus = "block/a/z";
  StatusOr<std::string> dot = GraphToDot(ParseGraph(kScopes), options);
  REQUIRE(dot.status().code() == Code::kNotFound);
  CHECK(dot.status().message().find("'block/a/z'") != std::string::npos);
  CHECK(dot.status().message().find("did you mean") != std::string::npos);
}

TEST_CASE("bad options are InvalidArgument", "[dot]") {
  DotOptions options;
  options.collapse_depth = 0;
  Status collapse = GraphToDot(ParseGraph(kScopes), options).status();
  CHECK(collapse.code() == Code::kInvalidArgument);
  CHECK_THAT(collapse.message(),
             Catch::Matchers::Contains("depth must be at least 1, not 0"));
  options = {};
  options.radius = -1;
  options.focus = "in";
  Status radius = GraphToDot(ParseGraph(kScopes), options).status();
  CHECK(radius.code() == Code::kInvalidArgument);
  CHECK_THAT(radius.message(),
             Catch::Matchers::Contains("--radius: must be 0 or more, not -1"));
}

TEST_CASE("an input naming no node is drawn as a dashed missing node",
          "[dot]") {
  Drawn drawn = Draw(ParseGraph(R"pb(
    node { name: "a" op: "Identity" input: "ghost:1" }
  )pb"));
  CHECK(drawn.nodes["ghost"]["label"] == "ghost\\n(missing)");
  CHECK(drawn.nodes["ghost"]["style"] == "dashed");
  CHECK(HasEdge(drawn, "ghost -> a [label=:1]"));
}

TEST_CASE("names needing quotes or escapes survive the round trip", "[dot]") {
  Drawn drawn = Draw(ParseGraph(R"pb(
    node { name: "a\"b\\c" op: "NoOp" }
    node { name: "d-e.f" op: "NoOp" input: "^a\"b\\c" }
  )pb"));
  CHECK(drawn.nodes.count("a\"b\\c") == 1);
  CHECK(HasEdge(drawn, "a\"b\\c -> d-e.f [style=dashed]"));
}

constexpr const char* kCpuPartition = R"pb(
  node {
    name: "a"
    op: "Const"
    device: "/job:localhost/replica:0/task:0/device:CPU:0"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "a/_0"
    op: "_Send"
    input: "a"
    device: "/job:localhost/replica:0/task:0/device:CPU:0"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "tensor_name"
      value { s: "edge_1_a" }
    }
    attr {
      key: "send_device"
      value { s: "/job:localhost/replica:0/task:0/device:CPU:0" }
    }
    attr {
      key: "recv_device"
      value { s: "/job:localhost/replica:0/task:0/device:GPU:0" }
    }
    attr {
      key: "send_device_incarnation"
      value { i: 1 }
    }
    attr {
      key: "client_terminated"
      value { b: false }
    }
  }
)pb";

constexpr const char* kGpuPartition = R"pb(
  node {
    name: "a/_1"
    op: "_Recv"
    device: "/job:localhost/replica:0/task:0/device:GPU:0"
    attr {
      key: "tensor_type"
      value { type: DT_FLOAT }
    }
    attr {
      key: "tensor_name"
      value { s: "edge_1_a" }
    }
    attr {
      key: "send_device"
      value { s: "/job:localhost/replica:0/task:0/device:CPU:0" }
    }
    attr {
      key: "recv_device"
      value { s: "/job:localhost/replica:0/task:0/device:GPU:0" }
    }
    attr {
      key: "send_device_incarnation"
      value { i: 1 }
    }
    attr {
      key: "client_terminated"
      value { b: false }
    }
  }
  node {
    name: "b"
    op: "Neg"
    input: "a/_1"
    device: "/job:localhost/replica:0/task:0/device:GPU:0"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

TEST_CASE("partitions are clusters and each Send/Recv pair is linked",
          "[dot]") {
  std::map<std::string, GraphDef> partitions;
  partitions["/job:localhost/replica:0/task:0/device:CPU:0"] =
      ParseGraph(kCpuPartition);
  partitions["/job:localhost/replica:0/task:0/device:GPU:0"] =
      ParseGraph(kGpuPartition);
  StatusOr<std::string> dot = PartitionsToDot(partitions, {});
  REQUIRE(dot.ok());
  Drawn drawn = ReadDrawn(*dot);
  CHECK(drawn.clusters["/job:localhost/replica:0/task:0/device:CPU:0"] ==
        std::set<std::string>{"a", "a/_0"});
  CHECK(drawn.clusters["/job:localhost/replica:0/task:0/device:GPU:0"] ==
        std::set<std::string>{"a/_1", "b"});
  CHECK(HasEdge(drawn, "a/_0 -> a/_1 [label=edge_1_a, style=bold]"));
  CHECK(HasEdge(drawn, "a/_1 -> b [label=float]"));
  CHECK(drawn.nodes["a/_0"]["shape"] == "cds");
}

TEST_CASE("one GraphDef holding all partitions links its pairs too", "[dot]") {
  GraphDef graph = ParseGraph(kCpuPartition);
  graph.MergeFrom(ParseGraph(kGpuPartition));
  Drawn drawn = Draw(graph);
  CHECK(HasEdge(drawn, "a/_0 -> a/_1 [label=edge_1_a, style=bold]"));
}

TEST_CASE("rendering gives SVG, PNG and PDF bytes", "[dot]") {
  GraphDef graph = ParseGraph(kSmall);
  DotOptions options;
  options.format = DotFormat::kSvg;
  StatusOr<std::string> svg = GraphToDot(graph, options);
  REQUIRE(svg.ok());
  CHECK(svg->find("<svg") != std::string::npos);
  options.format = DotFormat::kPng;
  StatusOr<std::string> png = GraphToDot(graph, options);
  REQUIRE(png.ok());
  CHECK(png->substr(1, 3) == "PNG");
  options.format = DotFormat::kPdf;
  StatusOr<std::string> pdf = GraphToDot(graph, options);
  REQUIRE(pdf.ok());
  CHECK(pdf->substr(0, 4) == "%PDF");
  CHECK(IsBinaryDotFormat(DotFormat::kPng));
  CHECK_FALSE(IsBinaryDotFormat(DotFormat::kSvg));
}

TEST_CASE("RenderDot refuses text that is not DOT", "[dot]") {
  StatusOr<std::string> out = RenderDot("digraph { a -> }", DotFormat::kSvg);
  REQUIRE(out.status().code() == Code::kInvalidArgument);
  CHECK(out.status().message().find("syntax error") != std::string::npos);
  CHECK(RenderDot("digraph { a -> b }", DotFormat::kDot).ok());
}

TEST_CASE("ParseDotFormat knows dot, svg, png and pdf", "[dot]") {
  CHECK(*ParseDotFormat("svg") == DotFormat::kSvg);
  CHECK(*ParseDotFormat("pdf") == DotFormat::kPdf);
  Status gif = ParseDotFormat("gif").status();
  CHECK(gif.code() == Code::kInvalidArgument);
  CHECK_THAT(gif.message(),
             Catch::Matchers::Contains("unknown output form 'gif'"));
}

}  // namespace
}  // namespace dfg
