// dfg dot: a GraphDef as a picture (DOT text, or SVG/PNG/PDF through
// Graphviz), with clusters, folding of big graphs and a focus on one node.
#include "lib/dot/dot.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <ostream>

#include "lib/base/strings.h"
#include "lib/graph/graph_check.h"
#include "lib/optimize/optimize.h"
#include "lib/savedmodel/freeze.h"
#include "subcommands/completion_script.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct DotFlags {
  InputFlags input;
  OutputFlags output;
  std::string cluster = "auto";
  std::string rankdir = "TB";
  int collapse = -1;
  int max_nodes = 1500;
  std::string focus;
  int radius = 2;
  std::string render;  // -T
  std::string format;  // -f, --format
  std::string signature;
  bool outer_graph = false;
  bool full_names = false;
};

// The form the -o extension names (.svg, .png, .pdf, .dot, .gv), or "".
std::string ExtensionForm(const std::string& out) {
  for (const char* ext : {"svg", "png", "pdf", "dot", "gv"}) {
    if (EndsWith(out, std::string(".") + ext)) return ext;
  }
  return "";
}

// -T or -f, else the -o extension, else DOT text. Flags that disagree with
// each other or with the extension are a usage error: writing SVG into
// a.png would leave a file that no viewer opens.
StatusOr<DotFormat> OutputForm(const DotFlags& flags) {
  if (!flags.render.empty() && !flags.format.empty()) {
    DFG_ASSIGN_OR_RETURN(DotFormat t, ParseDotFormat(flags.render));
    DFG_ASSIGN_OR_RETURN(DotFormat f, ParseDotFormat(flags.format));
    if (t != f) {
      return InvalidArgument(
          "-T {} and -f {} ask for different output forms; give one",
          flags.render, flags.format);
    }
  }
  const std::string& chosen =
      flags.render.empty() ? flags.format : flags.render;
  std::string ext = ExtensionForm(flags.output.output);
  if (chosen.empty())
    return ext.empty() ? DotFormat::kDot : ParseDotFormat(ext);
  DFG_ASSIGN_OR_RETURN(DotFormat form, ParseDotFormat(chosen));
  if (!ext.empty()) {
    DFG_ASSIGN_OR_RETURN(DotFormat ext_form, ParseDotFormat(ext));
    if (ext_form != form) {
      return InvalidArgument(
          "{} {} would write {} into '{}'; use a .{} file name or leave out "
          "{}",
          flags.render.empty() ? "-f" : "-T", chosen, chosen,
          flags.output.output, chosen, flags.render.empty() ? "-f" : "-T");
    }
  }
  return form;
}

// A CLI11 check: a whole number >= `min` (a usage error otherwise).
std::function<std::string(const std::string&)> AtLeast(int min) {
  return [min](const std::string& text) -> std::string {
    std::optional<int64_t> value = ParseInt64(text);
    if (value && *value >= min && *value <= (1 << 30)) return "";
    return fmt::format("must be a whole number of at least {}, not '{}'", min,
                       text);
  };
}

DotCluster ClusterOption(const std::string& name) {
  if (name == "device") return DotCluster::kDevice;
  if (name == "scope") return DotCluster::kScope;
  if (name == "none") return DotCluster::kNone;
  return DotCluster::kAuto;
}

constexpr const char kServingDefault[] = "serving_default";

// The signature to draw: --signature, else a SavedModel's serving_default;
// "" draws the graph as read (a GraphDef, --outer-graph, or a SavedModel
// without serving_default).
StatusOr<std::string> ChooseSignature(const LoadedGraph& loaded,
                                      const DotFlags& flags) {
  const bool graph_def = loaded.container == GraphContainer::kGraphDef ||
                         loaded.container == GraphContainer::kTfjsModel;
  if (flags.outer_graph && graph_def) {
    // As --signature: the flag picks among a SavedModel's graphs.
    return InvalidArgument(
        "not a SavedModel: --outer-graph draws a SavedModel's or "
        "MetaGraphDef's stored graph instead of a signature; a GraphDef is "
        "drawn as it is (leave the flag out)");
  }
  if (flags.outer_graph) return std::string();
  if (flags.signature.empty()) {
    bool has_default = loaded.container == GraphContainer::kSavedModel &&
                       loaded.signatures.count(kServingDefault) > 0;
    return std::string(has_default ? kServingDefault : "");
  }
  if (graph_def) {
    return InvalidArgument(
        "not a SavedModel: --signature {} draws a signature of a SavedModel "
        "or MetaGraphDef, and a GraphDef has none",
        flags.signature);
  }
  if (loaded.signatures.count(flags.signature)) return flags.signature;
  std::vector<std::string> keys;
  for (const auto& [key, def] : loaded.signatures) {
    // The init op is stored as a signature but computes nothing to draw.
    if (key != "__saved_model_init_op") keys.push_back(key);
  }
  return NotFound(
      "no signature '{}'{}; the signatures are: {}", flags.signature,
      DidYouMean(flags.signature, keys),
      keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", ")));
}

// What a user means by "the model": the chosen signature's computation with
// its function calls inlined, as dfg freeze and dfg run see it.
bool SelectSignature(Context& ctx, const DotFlags& flags, LoadedGraph* loaded) {
  StatusOr<std::string> key = ChooseSignature(*loaded, flags);
  if (!key.ok()) {
    ctx.Error(key.status(), InputName(flags.input));
    return false;
  }
  if (key->empty()) return true;
  auto computation = SignatureComputation(*loaded, *key);
  if (!computation.ok() && flags.signature.empty()) {
    // Not asked for: the graph as stored is still worth drawing.
    *ctx.io.err << "dfg dot: note: cannot draw signature '" << *key << "' ("
                << computation.status().message()
                << "); drawing the SavedModel's whole graph\n";
    return true;
  }
  if (!computation.ok()) {
    ctx.Error(computation.status(), InputName(flags.input));
    return false;
  }
  loaded->graph = *std::move(computation);
  // The inliner's Identity hops (each call's inputs and outputs) and the
  // NoOps that only forward control are bookkeeping, not the model: the
  // dependency pass (dfg optimize --passes dependency) takes them out. The
  // signature's inputs and outputs are kept (Placeholders, and nothing
  // consumes the outputs); on an error the inlined graph is drawn as is.
  OptimizeOptions simplify;
  simplify.passes = {"dependency"};
  OptimizeReport unused;
  (void)Optimize(&loaded->graph, simplify, &unused);
  if (flags.signature.empty()) {
    *ctx.io.err << "dfg dot: note: drawing signature '" << *key
                << "' (calls inlined); --signature KEY draws another, "
                   "--outer-graph the SavedModel's whole graph\n";
  }
  return true;
}

int RunDot(Context& ctx, const DotFlags& flags) {
  DotOptions options;
  options.cluster = ClusterOption(flags.cluster);
  options.left_to_right = flags.rankdir == "LR";
  options.collapse_depth = flags.collapse;
  options.max_nodes = flags.max_nodes;
  options.focus = flags.focus;
  options.radius = flags.radius;
  options.full_names = flags.full_names;
  if (flags.outer_graph && !flags.signature.empty()) {
    return ctx.Usage(
        "--outer-graph draws no signature; give one of "
        "--outer-graph and --signature");
  }
  StatusOr<DotFormat> format = OutputForm(flags);
  if (!format.ok()) return ctx.Usage(format.status().message());
  options.format = *format;

  LoadedGraph loaded;
  if (!LoadInput(ctx, flags.input, &loaded)) return ctx.exit_code;
  if (!SelectSignature(ctx, flags, &loaded)) return ctx.exit_code;
  Status structure = CheckGraphStructure(loaded.graph);
  if (!structure.ok()) return ctx.Error(structure, InputName(flags.input));
  DotReport report;
  StatusOr<std::string> picture = GraphToDot(loaded.graph, options, &report);
  if (!picture.ok()) return ctx.Error(picture.status(), InputName(flags.input));
  for (const std::string& note : report.notes) {
    *ctx.io.err << "dfg dot: note: " << note << "\n";
  }
  Status written = WriteOutput(ctx, flags.output, *picture,
                               IsBinaryDotFormat(options.format));
  if (!written.ok()) return ctx.Error(written);
  return kExitOk;
}

}  // namespace

void RegisterDot(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<DotFlags>();
  CLI::App* sub =
      AddSubcommand(app, ctx, "dot",
                    "Draw a graph: DOT text, or SVG/PNG/PDF through Graphviz",
                    [flags](Context& c) { return RunDot(c, *flags); });
  AddInputFlags(sub, &flags->input);
  HintFile(sub->add_option("-o,--output", flags->output.output,
                           "output file; absent or - writes stdout"));
  sub->add_option(
         "-T", flags->render,
         "render: svg, png, pdf or dot (default: from the -o extension, "
         "else DOT text)")
      ->check(CLI::IsMember({"dot", "svg", "png", "pdf"}));
  sub->add_option("-f,--format", flags->format,
                  "the same as -T (both, or one disagreeing with the -o "
                  "extension, is an error)")
      ->check(CLI::IsMember({"dot", "svg", "png", "pdf"}));
  sub->add_option("--cluster", flags->cluster,
                  "group nodes by device, name scope, or not at all (default: "
                  "device when nodes are on two or more, else scope)")
      ->check(CLI::IsMember({"auto", "device", "scope", "none"}));
  sub->add_option("--rankdir", flags->rankdir,
                  "TB (top to bottom, default) or LR (left to right)")
      ->check(CLI::IsMember({"TB", "LR"}));
  sub->add_option("--collapse", flags->collapse,
                  "fold every name scope below DEPTH into one node")
      ->check(AtLeast(1));
  sub->add_option("--max-nodes", flags->max_nodes,
                  "above N nodes, fold scopes by themselves (default 1500; 0: "
                  "never)")
      ->check(AtLeast(0));
  sub->add_option("--focus", flags->focus,
                  "draw only the neighbourhood of NODE");
  sub->add_option("--radius", flags->radius,
                  "with --focus: hops from NODE (default 2)")
      ->check(AtLeast(0));
  sub->add_flag("--full-names", flags->full_names,
                "label nodes with their whole names (default: without the "
                "scopes their cluster or all nodes share; the whole name is "
                "each node's tooltip)");
  HintSignature(sub->add_option(
      "--signature", flags->signature,
      "SavedModel: draw this signature's computation, calls inlined "
      "(default: serving_default when there is one)"));
  sub->add_flag("--outer-graph", flags->outer_graph,
                "SavedModel: draw its whole graph as stored (variables, "
                "saver, the calls) instead of a signature");
}

}  // namespace dfg
