// Reading and writing GraphDefs: binary, text and JSON protobuf, detected by
// content; MetaGraphDef and SavedModel files give their graph_def; the
// TensorFlow.js model.json gives its modelTopology. Output files are written
// atomically (a temporary file renamed into place).
#ifndef DFG_LIB_IO_GRAPH_IO_H_
#define DFG_LIB_IO_GRAPH_IO_H_

#include <google/protobuf/arena.h>

#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/file.h"
#include "lib/base/status.h"
#include "lib/io/graph_text.h"
#include "lib/proto/graph.pb.h"
#include "lib/proto/meta_graph.pb.h"

namespace dfg {

enum class GraphFormat { kPbtxt, kPb, kJson, kDot };

// "pbtxt", "pb", "json", "dot".
const char* GraphFormatName(GraphFormat format);
std::optional<GraphFormat> ParseGraphFormat(std::string_view name);
// From a file name: .pbtxt/.txt, .pb, .json, .dot/.gv; nullopt otherwise.
std::optional<GraphFormat> GraphFormatFromPath(std::string_view path);

enum class GraphContainer { kGraphDef, kMetaGraphDef, kSavedModel, kTfjsModel };
const char* GraphContainerName(GraphContainer container);

struct LoadedGraph {
  tensorflow::GraphDef graph;
  GraphFormat format = GraphFormat::kPb;  // how the bytes were encoded
  GraphContainer container = GraphContainer::kGraphDef;
  // For MetaGraphDef/SavedModel: the chosen meta graph's tags and signatures.
  std::vector<std::string> tags;
  std::map<std::string, tensorflow::SignatureDef> signatures;
  // All meta graphs' tag sets (SavedModel), for messages and `info`.
  std::vector<std::vector<std::string>> available_tag_sets;
  // MetaGraphDef/SavedModel: the chosen meta graph without its graph_def
  // (saver_def, collection_def, asset_file_def, signature_def).
  tensorflow::MetaGraphDef meta_graph;
  // SavedModel read from a path: the directory that holds its variables/ and
  // assets/ (the directory given, or the one holding the saved_model.pb
  // file). Empty otherwise (stdin, GraphDefs, MetaGraphDefs).
  std::string export_dir;
};

struct ReadOptions {
  // SavedModel: the meta graph whose tags include this one (else the first).
  std::string meta_graph_tag;
};

// Parses bytes in any supported form. `display_name` names the source in
// messages ("model.pb: ..."). Errors (kInvalidArgument): empty input, bytes
// that are no GraphDef in any form, text syntax errors with line and column,
// no meta graph with the tag.
StatusOr<LoadedGraph> ParseGraph(std::string_view bytes,
                                 std::string_view display_name,
                                 const ReadOptions& options = {});

// The file to read for `path`: `path` itself, or for a SavedModel directory
// the saved_model.pb (else saved_model.pbtxt) inside it. Errors
// (kInvalidArgument): a directory holding neither.
StatusOr<std::string> ResolveGraphPath(const std::string& path);

// Reads `path` (a file or a SavedModel directory), or `in` when path is "-";
// errors name the file.
StatusOr<LoadedGraph> ReadGraph(const std::string& path, std::istream& in,
                                const ReadOptions& options = {});

// As ReadGraph, for big graphs: the GraphDef is parsed into `arena` (not
// owned; it must outlive the returned graph), which makes parsing it cheaper
// and freeing it nearly free. `info` receives the rest of what ReadGraph
// gives; its own `graph` is left empty.
StatusOr<tensorflow::GraphDef*> ReadGraphOnArena(const std::string& path,
                                                 std::istream& in,
                                                 const ReadOptions& options,
                                                 google::protobuf::Arena* arena,
                                                 LoadedGraph* info);

// ReadGraphOnArena in two halves, for a stage that works on a binary
// GraphDef's bytes directly when it can (dfg place) and on the parsed graph
// otherwise: the input read once, then parsed (its bytes freed on the way).
struct GraphInput {
  std::string file;   // the file read ("-" for stdin)
  std::string bytes;  // its contents
};
StatusOr<GraphInput> ReadGraphInput(const std::string& path, std::istream& in);
StatusOr<tensorflow::GraphDef*> ParseGraphOnArena(
    GraphInput input, const ReadOptions& options,
    google::protobuf::Arena* arena, LoadedGraph* info);
// True when ReadGraph reads `bytes` as a plain binary GraphDef (not text or
// JSON, not a MetaGraphDef or SavedModel, shaped like a GraphDef): then the
// GraphDef it gives is exactly what protobuf parses from the bytes, or an
// error when protobuf cannot.
bool IsPlainBinaryGraphDef(std::string_view bytes);

// Arena options for ReadGraphOnArena: large blocks, so that a million-node
// graph costs a few hundred allocations rather than a hundred thousand.
google::protobuf::ArenaOptions BigGraphArenaOptions();

// Serialization. kDot is not a GraphDef form (lib/dot makes DOT).
// JSON is protobuf's JSON mapping (camelCase names, as model.json carries).
StatusOr<std::string> SerializeGraph(const tensorflow::GraphDef& graph,
                                     GraphFormat format);

// True when `message` (recursively) carries fields dfg's protos do not model:
// binary output keeps them; text and JSON output cannot and drop them.
bool HasUnknownFields(const google::protobuf::Message& message);

// Reads `in` for "-", else the file (lib/base/file.h's ReadFileToString, whose
// errors these are).
StatusOr<std::string> ReadFileToString(const std::string& path,
                                       std::istream& in);

// Writes `graph` to the file `path` in `format` (not kDot) as
// WriteFileAtomically does, but serializing straight into the file: no copy
// of the whole output is held in memory. The bytes are SerializeGraph's.
Status WriteGraphFile(const std::string& path,
                      const tensorflow::GraphDef& graph, GraphFormat format);

// Writes to `path` as WriteGraphFile does (atomically, or in place for a
// device or pipe), with the bytes `produce` hands to the `write` it is given,
// in order. An error from `produce` leaves no file.
using ChunkWriter = std::function<Status(std::string_view chunk)>;
Status WriteFileStreamed(
    const std::string& path,
    const std::function<Status(const ChunkWriter& write)>& produce);

// The text form of a graph handed over node by node (graph_text.h's
// PrintGraphTextStreamed), given to `write` in pieces: what SerializeGraph
// prints for the whole graph.
Status WriteGraphTextStreamed(const NodeSource& nodes,
                              const tensorflow::GraphDef& rest,
                              const ChunkWriter& write);

// Writes `data` to `path` through a temporary file in the same directory and
// a rename, so that the file is whole or absent. Errors name the path.
Status WriteFileAtomically(const std::string& path, std::string_view data);

// Makes the atomic writes above, on this thread and while it lives, one set:
// each file stays in its temporary file until Commit renames them all into
// place; destroyed uncommitted (a later file failed), it removes them. So a
// directory of outputs (--output-dir, partition -o DIR/) is whole or
// unchanged. Writes in place (a device, a pipe) are not deferred.
class OutputFileSet {
 public:
  OutputFileSet();
  ~OutputFileSet();
  OutputFileSet(const OutputFileSet&) = delete;
  OutputFileSet& operator=(const OutputFileSet&) = delete;

  // Renames every file written since construction; stops deferring. On a
  // failed rename the files not yet renamed are removed.
  Status Commit();

  // For the writers: a finished temporary file and its destination.
  void Add(const std::string& temp, const std::string& path,
           const std::string& name, int slot);

 private:
  struct Pending {
    std::string temp, path, name;
    int slot;
  };
  void Discard(size_t from);

  std::vector<Pending> pending_;
  OutputFileSet* outer_;
};

}  // namespace dfg

#endif  // DFG_LIB_IO_GRAPH_IO_H_
