// What every subcommand shares: the streams it talks through, how it reports
// errors ("dfg SUB: error: ..."), and the common input/output options.
#ifndef DFG_SUBCOMMANDS_CONTEXT_H_
#define DFG_SUBCOMMANDS_CONTEXT_H_

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/io/graph_io.h"

namespace CLI {
class App;
}

namespace dfg {

// The process's streams; golden tests pass string streams.
struct Io {
  std::istream* in = nullptr;   // Not owned.
  std::ostream* out = nullptr;  // Not owned.
  std::ostream* err = nullptr;  // Not owned.
  bool stdin_is_terminal = false;
  bool stdout_is_terminal = false;
  bool stderr_is_terminal = false;
  // The caller ends the process as soon as DfgMain returns (the dfg binary;
  // not tests that run DfgMain in-process): a subcommand may then leave its
  // big graph to the OS instead of freeing it piece by piece (LeaveToExit).
  bool exits_after = false;
};

// Exit codes (CLI.md): 0 success, 1 a graph/tensor/file is wrong, 2 usage.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

struct Context {
  Io io;
  std::string subcommand;         // "prune"
  const CLI::App* app = nullptr;  // the subcommand's parser. Not owned.
  int exit_code = kExitOk;

  // Prints "dfg SUB: error: <message>" and returns kExitError.
  int Error(std::string_view message);
  // Prints "dfg SUB: error: <where>: <status message>" (no "<where>: " when
  // empty) and returns kExitError.
  int Error(const Status& status, std::string_view where = {});
  // Prints "dfg SUB: warning: <message>".
  void Warn(std::string_view message);
  // Prints the subcommand's usage on stderr and returns kExitUsage.
  int Usage(std::string_view message = {});
};

// Adds subcommand `name` to `app`; when it is chosen, `run` is called with
// ctx.subcommand and ctx.app set, and its result becomes ctx.exit_code.
CLI::App* AddSubcommand(CLI::App& app, Context& ctx, const char* name,
                        const char* summary, std::function<int(Context&)> run);

// The objects left to the OS at exit: never destroyed, still reachable (so
// not leaks to LeakSanitizer).
std::vector<std::shared_ptr<void>>& KeptUntilExit();

// When the process exits right after this subcommand (ctx.io.exits_after),
// takes `*object` and keeps it alive until exit, never destroyed: freeing a
// graph of a million nodes string by string costs more CPU than some whole
// stages. Else leaves `*object` to be destroyed where it is, as usual. Call
// it last, on success, for objects nothing else uses.
// Sanitizer builds free everything as usual, so that LeakSanitizer still
// sees what the subcommand leaked and ASan checks the destructors.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kFreeBeforeExit = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
inline constexpr bool kFreeBeforeExit = true;
#else
inline constexpr bool kFreeBeforeExit = false;
#endif
#else
inline constexpr bool kFreeBeforeExit = false;
#endif

template <typename T>
void LeaveToExit(const Context& ctx, std::unique_ptr<T>* object) {
  if (*object == nullptr || !ctx.io.exits_after || kFreeBeforeExit) return;
  KeptUntilExit().push_back(std::shared_ptr<void>(std::move(*object)));
}

// INPUT and --meta-graph-tag.
struct InputFlags {
  std::string input;  // empty or "-" = stdin
  std::string meta_graph_tag;
};
void AddInputFlags(CLI::App* app, InputFlags* flags);

// -o/--output and -f/--format.
struct OutputFlags {
  std::string output;  // empty = stdout (not given), "-" = stdout (explicit)
  std::string format;  // empty = from the -o extension, else the default
  bool json = false;   // --json: -f json
};
// `formats` lists what -f accepts, e.g. "pbtxt|pb|json"; --json is -f json.
void AddOutputFlags(CLI::App* app, OutputFlags* flags,
                    std::string_view formats = "pbtxt|pb|json");
// --json, the same as `-f json` (ResolveOutputFormat refuses both with
// another -f): `what` names the output in --help. --json means the
// command's result as JSON on stdout on every subcommand.
void AddJsonFormatFlag(CLI::App* app, OutputFlags* flags,
                       std::string_view what);

// The name the input is called in messages: the path, or "<stdin>".
std::string InputName(const InputFlags& flags);

// Reads the input graph. When the input is absent and stdin is a terminal,
// prints usage and returns kExitUsage through `*exit_code` (never waits).
// On a read error prints it and sets kExitError. Returns true on success.
bool LoadInput(Context& ctx, const InputFlags& flags, LoadedGraph* loaded);
// The same for graphs that may be big: the GraphDef is parsed into `arena`
// (which must outlive it and everything made of it) and returned; `loaded`
// gets the rest. Returns null after printing the error.
tensorflow::GraphDef* LoadInput(Context& ctx, const InputFlags& flags,
                                google::protobuf::Arena* arena,
                                LoadedGraph* loaded);

// LoadInput in two steps, for a stage that may work on a binary GraphDef's
// bytes directly (dfg place): the input's bytes (false after printing the
// error or usage), then, when the stage wants the graph, their parse.
bool ReadInputBytes(Context& ctx, const InputFlags& flags, GraphInput* input);
tensorflow::GraphDef* ParseInput(Context& ctx, const InputFlags& flags,
                                 GraphInput input,
                                 google::protobuf::Arena* arena,
                                 LoadedGraph* loaded);

// The output form: -f, else the -o extension, else `default_format`.
StatusOr<GraphFormat> ResolveOutputFormat(const OutputFlags& flags,
                                          GraphFormat default_format);

// Writes `data` to -o (atomically) or stdout. Binary data is refused on a
// terminal unless -o - was given explicitly.
Status WriteOutput(Context& ctx, const OutputFlags& flags,
                   std::string_view data, bool binary);

// Writes output to -o (atomically) or stdout as `produce` hands it over, in
// pieces; as WriteOutput, binary output is refused on a terminal.
Status WriteStreamedOutput(
    Context& ctx, const OutputFlags& flags, bool binary,
    const std::function<Status(const ChunkWriter& write)>& produce);

// Serializes `graph` in the resolved format and writes it.
Status WriteGraphOutput(Context& ctx, const OutputFlags& flags,
                        const tensorflow::GraphDef& graph,
                        GraphFormat default_format = GraphFormat::kPbtxt);

// Writes each partition graph as DIR/<PartitionFileName(key)>.<format>
// (atomically, creating DIR): what `dfg partition -o DIR/` and
// `dfg run --dump-partitions DIR` write. DOT goes through lib/dot.
Status WritePartitionFiles(
    const std::string& dir, GraphFormat format,
    const std::map<std::string, tensorflow::GraphDef>& partitions);
Status WritePartitionFiles(
    const std::string& dir, GraphFormat format,
    const std::map<std::string, tensorflow::GraphDef*>& partitions);

// Splits repeated, comma-separated option values into one list.
std::vector<std::string> SplitList(const std::vector<std::string>& values);

// --devices given but listing nothing (`--devices ''`) is an error, as
// TensorFlow has no session without devices; absent means the default list.
// Prints the error and returns false then.
bool CheckDevicesGiven(Context& ctx, const std::vector<std::string>& devices);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_CONTEXT_H_
