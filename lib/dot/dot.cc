// Drawing: the view (dot_model.h) becomes a cgraph graph, which is written as
// DOT (dot_text.h: agwrite's text without its quadratic cost) or laid out and
// rendered by gvc. Graphviz's agcanonStr does the quoting and escaping; node
// ids are "n<k>" in view order, so the output is stable.
#include "lib/dot/dot.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "lib/dot/dot_model.h"
#include "lib/dot/dot_text.h"
#include "lib/dot/dot_writer.h"

namespace dfg {
namespace {

using dot_internal::DotModel;
using dot_internal::DotView;
using dot_internal::FoldOptions;

// Graphviz reports errors through a process-wide hook; collect them while one
// of our calls runs instead of letting them reach stderr.
std::string* g_graphviz_errors = nullptr;

int CollectGraphvizError(char* message) {
  if (g_graphviz_errors != nullptr) g_graphviz_errors->append(message);
  return 0;
}

class GraphvizErrors {
 public:
  GraphvizErrors() {
    previous_level_ = agseterr(AGERR);
    previous_ = agseterrf(CollectGraphvizError);
    g_graphviz_errors = &text_;
  }
  ~GraphvizErrors() {
    g_graphviz_errors = nullptr;
    agseterrf(previous_);
    agseterr(previous_level_);
  }
  // The collected text, trimmed, or `fallback`.
  std::string Text(std::string_view fallback) const {
    std::string text = text_;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
      text.pop_back();
    }
    return text.empty() ? std::string(fallback) : text;
  }

 private:
  std::string text_;
  agusererrf previous_;
  agerrlevel_t previous_level_;
};

const char* GvFormat(DotFormat format) {
  switch (format) {
    case DotFormat::kSvg:
      return "svg";
    case DotFormat::kPng:
      return "png";
    case DotFormat::kPdf:
      return "pdf";
    case DotFormat::kDot:
      break;
  }
  return "dot";
}

StatusOr<std::string> AgwriteText(Agraph_t* graph) {
  char* buffer = nullptr;
  size_t size = 0;
  FILE* file = open_memstream(&buffer, &size);
  if (file == nullptr) return Internal("cannot open a memory stream");
  int rc = agwrite(graph, file);
  std::fclose(file);
  std::string text(buffer, size);
  std::free(buffer);
  if (rc != 0) return Internal("graphviz could not write the graph");
  return text;
}

// Graphviz 2.42's dot layout gives a labelled edge between two nodes of one
// rank a virtual label node by growing that rank's node array with realloc
// (make_vn_slot in dotgen/flat.c), updating the array's current pointer `v`
// but not `av`, the pointer gvFreeLayout frees. When realloc moves the block,
// gvFreeLayout frees it a second time ("double free detected in tcache 2";
// whether it moves depends on the heap, so the same picture crashes one
// process and not another). The root graph's `v` only ever points into its
// own `av` block otherwise (mincross offsets it while ordering components),
// so a `v` outside that block is the moved array: make it the one freed.
void RepairMovedRanks(Agraph_t* graph) {
  rank_t* ranks = GD_rank(graph);
  if (ranks == nullptr) return;
  for (int r = GD_minrank(graph); r <= GD_maxrank(graph); ++r) {
    rank_t& rank = ranks[r];
    bool inside = rank.v >= rank.av && rank.v <= rank.av + rank.an;
    if (rank.v != nullptr && !inside) rank.av = rank.v;
  }
}

// Cairo's bitmaps hold at most 32767 pixels a side; Graphviz shrinks a
// bigger picture to fit (with a warning of its own) into an unreadable
// strip. A PNG that large is refused with advice instead.
constexpr double kMaxBitmapPixels = 32767;

Status CheckBitmapSize(Agraph_t* graph, DotFormat format) {
  if (format != DotFormat::kPng) return Status::Ok();
  const boxf& box = GD_bb(graph);
  double dpi = GD_drawing(graph) != nullptr && GD_drawing(graph)->dpi > 0
                   ? GD_drawing(graph)->dpi
                   : 96;
  double width = (box.UR.x - box.LL.x) * dpi / 72;
  double height = (box.UR.y - box.LL.y) * dpi / 72;
  if (width <= kMaxBitmapPixels && height <= kMaxBitmapPixels) {
    return Status::Ok();
  }
  return InvalidArgument(
      "the picture is {:.0f}x{:.0f} pixels, more than a PNG can hold readably "
      "({:.0f} a side); write SVG or PDF (-T svg, -T pdf), or draw less "
      "(--focus NODE, --collapse DEPTH)",
      width, height, kMaxBitmapPixels);
}

// Lays out `graph` with dot and renders it; kDot writes the text as is,
// through dfg's writer (linear; dot_text.h) for a graph BuildAgraph made,
// else through agwrite.
StatusOr<std::string> Render(Agraph_t* graph, DotFormat format,
                             const GraphvizErrors& errors, bool built) {
  if (format == DotFormat::kDot) {
    if (built) return dot_internal::WriteDotText(graph);
    return AgwriteText(graph);
  }
  // One context for the process, used under a lock (Graphviz is not
  // thread-safe). Graphviz 2.42's pango plugin caches a pointer to the last
  // font name, which the context's font dictionary owns: a context freed
  // between two renders leaves that pointer dangling (AddressSanitizer
  // reports the next render's strcmp as a use after free).
  static std::mutex mu;
  static GVC_t* const gvc = gvContext();
  std::lock_guard<std::mutex> lock(mu);
  std::string result;
  Status status;
  if (gvLayout(gvc, graph, "dot") != 0) {
    status =
        Internal("graphviz layout failed: {}", errors.Text("no reason given"));
  } else if (status = CheckBitmapSize(graph, format); !status.ok()) {
    RepairMovedRanks(graph);
    gvFreeLayout(gvc, graph);
  } else {
    char* data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(gvc, graph, GvFormat(format), &data, &length) != 0) {
      status = Internal("graphviz could not render {}: {}", GvFormat(format),
                        errors.Text("no renderer"));
    } else {
      result.assign(data, length);
    }
    if (data != nullptr) gvFreeRenderData(data);
    RepairMovedRanks(graph);
    gvFreeLayout(gvc, graph);
  }
  if (!status.ok()) return status;
  return result;
}

Status CheckOptions(const DotOptions& options) {
  if (options.collapse_depth == 0 || options.collapse_depth < -1) {
    return InvalidArgument("--collapse: depth must be at least 1, not {}",
                           options.collapse_depth);
  }
  if (options.max_nodes < 0) {
    return InvalidArgument("--max-nodes: must be 0 (no limit) or more, not {}",
                           options.max_nodes);
  }
  if (options.radius < 0) {
    return InvalidArgument("--radius: must be 0 or more, not {}",
                           options.radius);
  }
  return Status::Ok();
}

dot_internal::ClusterBy ResolveClusters(const DotModel& model,
                                        const DotOptions& options,
                                        bool partitions) {
  using dot_internal::ClusterBy;
  if (options.cluster == DotCluster::kNone) return ClusterBy::kNone;
  if (partitions) return ClusterBy::kPartition;
  if (options.cluster == DotCluster::kDevice) return ClusterBy::kDevice;
  if (options.cluster == DotCluster::kScope) return ClusterBy::kScope;
  // One device says nothing a cluster should (the fill colour and legend
  // show it); its name scopes, a Keras model's layers, do.
  return model.devices.size() < 2 ? ClusterBy::kScope : ClusterBy::kDevice;
}

// Focus, then fold (explicitly or because of max_nodes), filling `report`.
StatusOr<DotView> MakeDotView(const DotModel& model, const DotOptions& options,
                              bool split_by_device, DotReport& report) {
  std::vector<bool> visible(model.nodes.size(), true);
  if (!options.focus.empty()) {
    DFG_ASSIGN_OR_RETURN(
        visible, dot_internal::FocusMask(model, options.focus, options.radius));
  }
  int visible_count =
      static_cast<int>(std::count(visible.begin(), visible.end(), true));
  FoldOptions fold{options.collapse_depth, split_by_device};
  if (fold.depth < 0 && options.max_nodes > 0 &&
      visible_count > options.max_nodes) {
    fold.depth = dot_internal::ChooseFoldDepth(
        model, visible, options.max_nodes, split_by_device);
    report.auto_fold_depth = fold.depth;
  }
  DotView view = dot_internal::MakeView(model, visible, fold);
  report.drawn_nodes = static_cast<int>(view.nodes.size());
  if (report.auto_fold_depth > 0) {
    report.notes.push_back(fmt::format(
        "{} nodes is more than --max-nodes {}: folded the name scopes below "
        "depth {}, drawing {} nodes (--collapse DEPTH or --max-nodes 0 "
        "chooses otherwise)",
        visible_count, options.max_nodes, fold.depth, report.drawn_nodes));
    if (report.drawn_nodes > options.max_nodes) {
      report.notes.push_back(fmt::format(
          "still {} nodes at depth 1; --focus NODE draws a part of the graph",
          report.drawn_nodes));
    }
  }
  return view;
}

// What keeps dot fast (measured on the corpus: every graph then lays out in
// seconds; without it an unrolled 550-node RNN takes minutes): edge labels
// only on small pictures (dot turns each label into a node and doubles the
// ranks; big pictures get them as SVG tooltips), a budget of virtual nodes
// for long edges, and capped network simplex/crossing iterations.
constexpr int kEdgeLabelLimit = 300;      // drawn nodes
constexpr int kFastLayoutLimit = 300;     // drawn nodes
constexpr int kVirtualNodeBudget = 3000;  // halved when edges carry labels
constexpr int kMinCutSpan = 4;            // ranks

void PlanLayout(DotView& view, dot_internal::WriterOptions& writer,
                DotReport& report) {
  int drawn = static_cast<int>(view.nodes.size());
  writer.edge_labels = drawn <= kEdgeLabelLimit;
  writer.fast_layout = drawn > kFastLayoutLimit;
  int budget = writer.edge_labels ? kVirtualNodeBudget / 2 : kVirtualNodeBudget;
  int cut = dot_internal::CutLongEdges(view, budget, kMinCutSpan);
  if (cut > 0) {
    report.notes.push_back(
        fmt::format("{} long edges end at a copy of their source's name beside "
                    "the consumer",
                    cut));
  }
  if (!writer.edge_labels) {
    report.notes.push_back(fmt::format(
        "{} nodes: edge dtypes and shapes are tooltips, not labels", drawn));
  }
}

// Graphviz's dot layout grows much faster than the node count: 5,000 nodes
// without name scopes (nothing to fold) take about 7 s, 50,000 more than 5
// minutes. Rendering refuses so many unless --max-nodes allows them or is 0.
constexpr int kRenderNodeLimit = 5000;

Status CheckRenderSize(const DotOptions& options, const DotReport& report) {
  int limit = std::max(kRenderNodeLimit, options.max_nodes);
  if (options.format == DotFormat::kDot || options.max_nodes == 0 ||
      report.drawn_nodes <= limit) {
    return Status::Ok();
  }
  return InvalidArgument(
      "{} nodes to lay out, more than {} even with the name scopes folded: "
      "Graphviz would take many minutes; draw a part with --focus NODE, or "
      "lay it out anyway with --max-nodes 0",
      report.drawn_nodes, limit);
}

StatusOr<std::string> Draw(
    const std::vector<const tensorflow::GraphDef*>& graphs,
    std::vector<std::string> partitions, const DotOptions& options,
    DotReport* report) {
  DFG_RETURN_IF_ERROR(CheckOptions(options));
  DotReport local_report;
  DotReport& r = report != nullptr ? *report : local_report;
  r = DotReport();
  bool by_partition = !partitions.empty();
  DotModel model = dot_internal::BuildModel(graphs);
  model.partitions = std::move(partitions);
  for (const auto* g : graphs) r.graph_nodes += g->node_size();
  dot_internal::ClusterBy clusters =
      ResolveClusters(model, options, by_partition);
  DFG_ASSIGN_OR_RETURN(
      DotView view,
      MakeDotView(model, options, clusters == dot_internal::ClusterBy::kDevice,
                  r));
  GraphvizErrors errors;
  dot_internal::WriterOptions writer_options;
  writer_options.clusters = clusters;
  writer_options.left_to_right = options.left_to_right;
  writer_options.full_names = options.full_names;
  writer_options.graph_nodes = r.graph_nodes;
  PlanLayout(view, writer_options, r);
  DFG_RETURN_IF_ERROR(CheckRenderSize(options, r));
  Agraph_t* graph = dot_internal::BuildAgraph(model, view, writer_options);
  if (graph == nullptr) {
    return Internal("graphviz could not build the graph: {}",
                    errors.Text("no reason given"));
  }
  StatusOr<std::string> result =
      Render(graph, options.format, errors, /*built=*/true);
  agclose(graph);
  return result;
}

}  // namespace

StatusOr<std::string> GraphToDot(const tensorflow::GraphDef& graph,
                                 const DotOptions& options, DotReport* report) {
  return Draw({&graph}, {}, options, report);
}

StatusOr<std::string> PartitionsToDot(
    const std::map<std::string, tensorflow::GraphDef>& partitions,
    const DotOptions& options, DotReport* report) {
  std::vector<const tensorflow::GraphDef*> graphs;
  std::vector<std::string> names;
  for (const auto& [name, graph] : partitions) {
    graphs.push_back(&graph);
    names.push_back(name);
  }
  if (names.empty()) names.push_back("");  // still draw by partition
  return Draw(graphs, std::move(names), options, report);
}

StatusOr<std::string> RenderDot(std::string_view dot_text, DotFormat format) {
  GraphvizErrors errors;
  std::string text(dot_text);
  Agraph_t* graph = agmemread(text.c_str());
  if (graph == nullptr) {
    return InvalidArgument("not a DOT graph Graphviz accepts: {}",
                           errors.Text("empty input"));
  }
  StatusOr<std::string> result = Render(graph, format, errors, /*built=*/false);
  agclose(graph);
  return result;
}

StatusOr<DotFormat> ParseDotFormat(std::string_view name) {
  if (name == "dot" || name == "gv") return DotFormat::kDot;
  if (name == "svg") return DotFormat::kSvg;
  if (name == "png") return DotFormat::kPng;
  if (name == "pdf") return DotFormat::kPdf;
  return InvalidArgument("unknown output form '{}' (one of dot, svg, png, pdf)",
                         name);
}

bool IsBinaryDotFormat(DotFormat format) {
  return format == DotFormat::kPng || format == DotFormat::kPdf;
}

}  // namespace dfg
