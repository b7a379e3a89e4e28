// LoadSavedModel as TensorFlow's C++ loader does it
// (tensorflow/cc/saved_model/loader.cc): one Session over the meta graph's
// graph; the saver's restore op run with its filename tensor fed
// EXPORT_DIR/variables/variables (and every asset tensor fed its file's
// path); then the init op (the `__saved_model_init_op` signature of TF2
// SavedModels, else the `saved_model_main_op` or `legacy_init_op`
// collection) with the asset tensors fed. The session is then ready for the
// requested steps; variables keep their values across them.
#ifndef DFG_LIB_SAVEDMODEL_LOADER_H_
#define DFG_LIB_SAVEDMODEL_LOADER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/exec/session.h"
#include "lib/proto/graph.pb.h"
#include "lib/proto/meta_graph.pb.h"

namespace dfg {

inline constexpr char kSavedModelInitOpSignatureKey[] = "__saved_model_init_op";
inline constexpr char kSavedModelMainOpKey[] = "saved_model_main_op";
inline constexpr char kSavedModelLegacyInitOpKey[] = "legacy_init_op";
inline constexpr char kSavedModelAssetsKey[] = "saved_model_assets";
// tf.compat.v1.tables_initializer()'s op, and what dfg freeze names the op
// that fills a frozen graph's lookup tables.
inline constexpr char kTablesInitializerName[] = "init_all_tables";

struct LoadOptions {
  SessionOptions session;
  RunOptions run;  // for the restore and init steps (timeout, cancellation)
  // The SavedModel's directory (variables/, assets/); empty for a graph read
  // from stdin or a MetaGraphDef.
  std::string export_dir;
  // `--checkpoint PREFIX`: restore from this TensorBundle instead of
  // EXPORT_DIR/variables/variables (a .meta + checkpoint pair).
  std::string checkpoint;
};

// The asset files of a meta graph: asset_file_def (TF2), else the
// saved_model_assets collection's AssetFileDefs (TF1). Each as {tensor to
// feed, path under EXPORT_DIR/assets}. Errors: an Any in the collection that
// is no AssetFileDef.
StatusOr<std::vector<std::pair<std::string, std::string>>> AssetFeeds(
    const tensorflow::MetaGraphDef& meta, const std::string& export_dir);

// The init op to run after the restore, or "" for none. Errors
// (kFailedPrecondition): an init-op collection with other than one node
// ("Expected exactly one main op in : DIR").
StatusOr<std::string> InitOpName(const tensorflow::MetaGraphDef& meta,
                                 const std::string& export_dir);

// One step of the loading (the restore, the init op): fed `feeds`, run
// `target`; `what` prefixes its error ("restoring from PREFIX: ").
struct LoadStep {
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::string target;
  std::string what;
};

// The steps LoadSavedModel runs once its session is created, for a session
// elsewhere (a cluster's master: `dfg run --master`). Errors: those of
// LoadSavedModel before the session is created.
StatusOr<std::vector<LoadStep>> SavedModelLoadSteps(
    const tensorflow::GraphDef& graph, const tensorflow::MetaGraphDef& meta,
    const LoadOptions& options);

// Creates the session and runs the restore and the init op. `meta` is the
// meta graph without its graph_def (LoadedGraph::meta_graph). A graph that
// is no SavedModel (no export_dir) and whose meta graph names no init op
// runs its node `init_all_tables`, when it has one, as the init op: the
// step a TensorFlow user takes (session.run("init_all_tables")) before using
// the lookup tables of a frozen graph. Without a
// variables index the restore is skipped, as TensorFlow does, unless the
// graph has variables and a saver: then the error (kNotFound) names the
// missing file. Errors: TensorFlow's checks of saved Const values
// (kFailedPrecondition; made when there is an export_dir or checkpoint),
// session creation, and the restore and init steps' errors (a missing or
// corrupt data file names the file and tensor key).
StatusOr<std::unique_ptr<Session>> LoadSavedModel(
    tensorflow::GraphDef graph, const tensorflow::MetaGraphDef& meta,
    const LoadOptions& options);

}  // namespace dfg

#endif  // DFG_LIB_SAVEDMODEL_LOADER_H_
