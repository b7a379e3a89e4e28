#include "subcommands/context.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <istream>
#include <ostream>

#include "lib/base/progress.h"
#include "lib/base/strings.h"
#include "lib/dot/dot.h"
#include "lib/partition/partition.h"
#include "subcommands/completion_script.h"

namespace dfg {

std::vector<std::shared_ptr<void>>& KeptUntilExit() {
  static auto* kept = new std::vector<std::shared_ptr<void>>;
  return *kept;
}

int Context::Error(std::string_view message) {
  *io.err << fmt::format("dfg {}: error: {}\n", subcommand, message);
  exit_code = kExitError;
  return kExitError;
}

int Context::Error(const Status& status, std::string_view where) {
  if (where.empty()) return Error(status.message());
  return Error(fmt::format("{}: {}", where, status.message()));
}

void Context::Warn(std::string_view message) {
  *io.err << fmt::format("dfg {}: warning: {}\n", subcommand, message);
}

int Context::Usage(std::string_view message) {
  if (!message.empty()) {
    *io.err << fmt::format("dfg {}: error: {}\n", subcommand, message);
  }
  if (app != nullptr) *io.err << app->help();
  exit_code = kExitUsage;
  return kExitUsage;
}

CLI::App* AddSubcommand(CLI::App& app, Context& ctx, const char* name,
                        const char* summary, std::function<int(Context&)> run) {
  CLI::App* sub = app.add_subcommand(name, summary);
  sub->callback([&ctx, sub, name, run = std::move(run)] {
    ctx.subcommand = name;
    ctx.app = sub;
    // Long stages say how far they are, on a terminal only.
    ProgressLine progress(ctx.io.stderr_is_terminal ? ctx.io.err : nullptr,
                          std::string("dfg ") + name);
    ctx.exit_code = run(ctx);
  });
  return sub;
}

void AddInputFlags(CLI::App* app, InputFlags* flags) {
  HintFile(app->add_option("input", flags->input,
                           "GraphDef file (.pb, .pbtxt, .json, MetaGraphDef) "
                           "or SavedModel directory or saved_model.pb; absent "
                           "or - reads stdin"));
  HintMetaGraphTag(app->add_option(
      "--meta-graph-tag", flags->meta_graph_tag,
      "SavedModel: use the meta graph with this tag (default: the first)"));
}

void AddOutputFlags(CLI::App* app, OutputFlags* flags,
                    std::string_view formats) {
  HintFile(app->add_option("-o,--output", flags->output,
                           "output file; absent or - writes stdout"));
  // Checked by ResolveOutputFormat (its message says what to do instead).
  HintChoices(app->add_option("-f,--format", flags->format,
                              fmt::format("output form: {} (default: from the "
                                          "-o extension, else pbtxt)",
                                          formats)),
              StrSplit(formats, '|', /*skip_empty=*/true));
  AddJsonFormatFlag(app, flags, "the graph");
}

void AddJsonFormatFlag(CLI::App* app, OutputFlags* flags,
                       std::string_view what) {
  app->add_flag(
      "--json", flags->json,
      fmt::format("{} as JSON on stdout (the same as -f json)", what));
}

std::string InputName(const InputFlags& flags) {
  if (flags.input.empty() || flags.input == "-") return "<stdin>";
  return flags.input;
}

namespace {

// The input path for ReadGraph ("-" for stdin), or null after printing
// usage when stdin is a terminal and no input was given.
const std::string* InputPath(Context& ctx, const InputFlags& flags) {
  static const std::string kStdin = "-";
  if (flags.input.empty() && ctx.io.stdin_is_terminal) {
    ctx.Usage("no INPUT given and stdin is a terminal");
    return nullptr;
  }
  return flags.input.empty() ? &kStdin : &flags.input;
}

}  // namespace

bool LoadInput(Context& ctx, const InputFlags& flags, LoadedGraph* loaded) {
  const std::string* path = InputPath(ctx, flags);
  if (path == nullptr) return false;
  ReadOptions options;
  options.meta_graph_tag = flags.meta_graph_tag;
  ProgressStage stage("reading the graph");
  StatusOr<LoadedGraph> result = ReadGraph(*path, *ctx.io.in, options);
  if (!result.ok()) {
    ctx.Error(result.status());
    return false;
  }
  *loaded = std::move(result).value();
  return true;
}

tensorflow::GraphDef* LoadInput(Context& ctx, const InputFlags& flags,
                                google::protobuf::Arena* arena,
                                LoadedGraph* loaded) {
  const std::string* path = InputPath(ctx, flags);
  if (path == nullptr) return nullptr;
  ReadOptions options;
  options.meta_graph_tag = flags.meta_graph_tag;
  ProgressStage stage("reading the graph");
  StatusOr<tensorflow::GraphDef*> graph =
      ReadGraphOnArena(*path, *ctx.io.in, options, arena, loaded);
  if (!graph.ok()) {
    ctx.Error(graph.status());
    return nullptr;
  }
  return *graph;
}

bool ReadInputBytes(Context& ctx, const InputFlags& flags, GraphInput* input) {
  const std::string* path = InputPath(ctx, flags);
  if (path == nullptr) return false;
  StatusOr<GraphInput> read = ReadGraphInput(*path, *ctx.io.in);
  if (!read.ok()) {
    ctx.Error(read.status());
    return false;
  }
  *input = std::move(read).value();
  return true;
}

tensorflow::GraphDef* ParseInput(Context& ctx, const InputFlags& flags,
                                 GraphInput input,
                                 google::protobuf::Arena* arena,
                                 LoadedGraph* loaded) {
  ReadOptions options;
  options.meta_graph_tag = flags.meta_graph_tag;
  ProgressStage stage("reading the graph");
  StatusOr<tensorflow::GraphDef*> graph =
      ParseGraphOnArena(std::move(input), options, arena, loaded);
  if (!graph.ok()) {
    ctx.Error(graph.status());
    return nullptr;
  }
  return *graph;
}

StatusOr<GraphFormat> ResolveOutputFormat(const OutputFlags& flags,
                                          GraphFormat default_format) {
  if (flags.json) {
    if (!flags.format.empty() && flags.format != "json") {
      return InvalidArgument(
          "--json (the same as -f json) and -f {} contradict "
          "each other",
          flags.format);
    }
    return GraphFormat::kJson;
  }
  if (!flags.format.empty()) {
    auto format = ParseGraphFormat(flags.format);
    if (!format) {
      return InvalidArgument("unknown output format '{}'", flags.format);
    }
    return *format;
  }
  if (!flags.output.empty() && flags.output != "-") {
    if (auto format = GraphFormatFromPath(flags.output)) return *format;
  }
  return default_format;
}

Status WriteOutput(Context& ctx, const OutputFlags& flags,
                   std::string_view data, bool binary) {
  if (flags.output.empty() || flags.output == "-") {
    if (binary && flags.output.empty() && ctx.io.stdout_is_terminal) {
      return InvalidArgument(
          "refusing to write binary output to a terminal (use -o FILE, or "
          "-o - to insist)");
    }
    ctx.io.out->write(data.data(), static_cast<std::streamsize>(data.size()));
    ctx.io.out->flush();
    if (!*ctx.io.out) return Unavailable("<stdout>: write failed");
    return Status::Ok();
  }
  return WriteFileAtomically(flags.output, data);
}

Status WriteStreamedOutput(
    Context& ctx, const OutputFlags& flags, bool binary,
    const std::function<Status(const ChunkWriter& write)>& produce) {
  if (!flags.output.empty() && flags.output != "-") {
    return WriteFileStreamed(flags.output, produce);
  }
  if (binary && flags.output.empty() && ctx.io.stdout_is_terminal) {
    return WriteOutput(ctx, flags, {}, /*binary=*/true);  // the refusal
  }
  DFG_RETURN_IF_ERROR(produce([&](std::string_view chunk) {
    ctx.io.out->write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    return *ctx.io.out ? Status::Ok() : Unavailable("<stdout>: write failed");
  }));
  ctx.io.out->flush();
  if (!*ctx.io.out) return Unavailable("<stdout>: write failed");
  return Status::Ok();
}

Status WriteGraphOutput(Context& ctx, const OutputFlags& flags,
                        const tensorflow::GraphDef& graph,
                        GraphFormat default_format) {
  DFG_ASSIGN_OR_RETURN(GraphFormat format,
                       ResolveOutputFormat(flags, default_format));
  if (format == GraphFormat::kDot) {
    return InvalidArgument("-f dot is not available here; use 'dfg dot'");
  }
  if (!flags.output.empty() && flags.output != "-") {
    return WriteGraphFile(flags.output, graph, format);
  }
  DFG_ASSIGN_OR_RETURN(std::string data, SerializeGraph(graph, format));
  return WriteOutput(ctx, flags, data, format == GraphFormat::kPb);
}

namespace {

Status MakeOutputDirectory(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (!std::filesystem::is_directory(dir)) {
    return InvalidArgument("{}: cannot create the output directory", dir);
  }
  return Status::Ok();
}

Status WritePartitionFile(const std::string& dir, GraphFormat format,
                          const std::string& key,
                          const tensorflow::GraphDef& graph) {
  std::string path = (std::filesystem::path(dir) /
                      (PartitionFileName(key) + "." + GraphFormatName(format)))
                         .string();
  if (format == GraphFormat::kDot) {
    DFG_ASSIGN_OR_RETURN(std::string data, GraphToDot(graph, DotOptions()));
    return WriteFileAtomically(path, data);
  }
  return WriteGraphFile(path, graph, format);
}

}  // namespace

Status WritePartitionFiles(
    const std::string& dir, GraphFormat format,
    const std::map<std::string, tensorflow::GraphDef>& partitions) {
  DFG_RETURN_IF_ERROR(MakeOutputDirectory(dir));
  OutputFileSet files;  // all partitions or none
  for (const auto& [key, graph] : partitions) {
    DFG_RETURN_IF_ERROR(WritePartitionFile(dir, format, key, graph));
  }
  return files.Commit();
}

Status WritePartitionFiles(
    const std::string& dir, GraphFormat format,
    const std::map<std::string, tensorflow::GraphDef*>& partitions) {
  DFG_RETURN_IF_ERROR(MakeOutputDirectory(dir));
  OutputFileSet files;  // all partitions or none
  for (const auto& [key, graph] : partitions) {
    DFG_RETURN_IF_ERROR(WritePartitionFile(dir, format, key, *graph));
  }
  return files.Commit();
}

std::vector<std::string> SplitList(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    for (std::string& piece : StrSplit(v, ',', /*skip_empty=*/true)) {
      out.push_back(std::move(piece));
    }
  }
  return out;
}

bool CheckDevicesGiven(Context& ctx, const std::vector<std::string>& devices) {
  if (devices.empty() || !SplitList(devices).empty()) return true;
  ctx.Error(
      "--devices lists no device: TensorFlow needs at least one (e.g. "
      "--devices cpu:0; without --devices, cpu:0)");
  return false;
}

}  // namespace dfg
