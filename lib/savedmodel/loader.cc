// LoadSavedModel: restore, then init, as tensorflow/cc/saved_model/loader.cc.
#include "lib/savedmodel/loader.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>

namespace dfg {
namespace {

using tensorflow::GraphDef;
using tensorflow::MetaGraphDef;

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// TensorFlow's ValidateSavedTensors: every Const has a value, and every
// value attr's shape is fully defined.
Status ValidateSavedTensors(const GraphDef& graph) {
  for (const auto& node : graph.node()) {
    auto it = node.attr().find("value");
    if (it != node.attr().end()) {
      if (!it->second.has_tensor()) continue;
      const auto& shape = it->second.tensor().tensor_shape();
      bool defined = !shape.unknown_rank();
      for (const auto& dim : shape.dim()) defined &= dim.size() >= 0;
      if (!defined) {
        return FailedPrecondition(
            "Saved model contains node \"{}\" (op \"{}\") which initializes "
            "from a tensor with -1 elements",
            node.name(), node.op());
      }
    } else if (node.op() == "Const") {
      return FailedPrecondition(
          "Saved model contains node \"{}\" which is a constant tensor but "
          "no value has been provided",
          node.name());
    }
  }
  return Status::Ok();
}

// The first variable of the graph (VariableV2, VarHandleOp...), or "".
std::string FirstVariable(const GraphDef& graph) {
  for (const auto& node : graph.node()) {
    const std::string& op = node.op();
    if (op == "VariableV2" || op == "Variable" || op == "VarHandleOp") {
      return node.name();
    }
  }
  return "";
}

Tensor StringScalar(const std::string& value) {
  return Tensor::Scalar<std::string>(value);
}

using Feeds = std::vector<std::pair<std::string, Tensor>>;

Feeds AssetTensors(const std::vector<std::pair<std::string, std::string>>& a) {
  Feeds feeds;
  for (const auto& [tensor, path] : a) {
    feeds.emplace_back(tensor, StringScalar(path));
  }
  return feeds;
}

bool HasNode(const GraphDef& graph, std::string_view name) {
  for (const auto& node : graph.node()) {
    if (node.name() == name) return true;
  }
  return false;
}

// The saver that restores: the meta graph's saver_def; for a plain GraphDef
// given --checkpoint, the ops a tf.compat.v1.train.Saver made under its
// default names (save/Const:0 fed the prefix, save/restore_all), as
// TensorFlow's own SaverDef defaults name them.
tensorflow::SaverDef SaverOf(const GraphDef& graph, const MetaGraphDef& meta,
                             const LoadOptions& options) {
  tensorflow::SaverDef saver = meta.saver_def();
  if (saver.restore_op_name().empty() && !options.checkpoint.empty() &&
      HasNode(graph, "save/restore_all") && HasNode(graph, "save/Const")) {
    saver.set_filename_tensor_name("save/Const:0");
    saver.set_restore_op_name("save/restore_all");
  }
  return saver;
}

// The restore step: the checkpoint prefix to restore from, or "" to skip.
StatusOr<std::string> RestorePrefix(const GraphDef& graph,
                                    const tensorflow::SaverDef& saver,
                                    const LoadOptions& options) {
  if (!options.checkpoint.empty()) {
    if (saver.restore_op_name().empty()) {
      return InvalidArgument(
          "--checkpoint {}: the graph has no saver to restore with (no "
          "saver_def, and no save/restore_all and save/Const ops)",
          options.checkpoint);
    }
    if (!FileExists(options.checkpoint + ".index")) {
      return NotFound(
          "The passed save_path is not a valid checkpoint: {} ({}.index: no "
          "such file)",
          options.checkpoint, options.checkpoint);
    }
    return options.checkpoint;
  }
  if (options.export_dir.empty()) return std::string();
  std::string prefix = JoinPath(options.export_dir, "variables/variables");
  if (FileExists(prefix + ".index")) {
    return saver.restore_op_name().empty() ? std::string() : prefix;
  }
  std::string variable = FirstVariable(graph);
  if (!saver.restore_op_name().empty() && !variable.empty()) {
    return NotFound(
        "{}.index: no such file; the SavedModel has variables (such as '{}') "
        "and restores them from {}",
        prefix, variable, prefix);
  }
  return std::string();  // TensorFlow: "The specified SavedModel has no
                         // variables; no checkpoints were restored."
}

}  // namespace

StatusOr<std::vector<std::pair<std::string, std::string>>> AssetFeeds(
    const MetaGraphDef& meta, const std::string& export_dir) {
  std::vector<tensorflow::AssetFileDef> assets(meta.asset_file_def().begin(),
                                               meta.asset_file_def().end());
  if (assets.empty()) {
    auto it = meta.collection_def().find(kSavedModelAssetsKey);
    if (it != meta.collection_def().end()) {
      for (const auto& any : it->second.any_list().value()) {
        tensorflow::AssetFileDef asset;
        if (!any.UnpackTo(&asset)) {
          return InvalidArgument(
              "collection '{}' holds a {}, not a tensorflow.AssetFileDef",
              kSavedModelAssetsKey, any.type_url());
        }
        assets.push_back(std::move(asset));
      }
    }
  }
  std::vector<std::pair<std::string, std::string>> feeds;
  for (const auto& asset : assets) {
    std::pair<std::string, std::string> feed(
        asset.tensor_info().name(),
        JoinPath(JoinPath(export_dir, "assets"), asset.filename()));
    // A tensor listed twice (a TF1 graph that added its asset to
    // ASSET_FILEPATHS once more) is fed once, as TensorFlow's Python loader
    // keeps them in a dict.
    if (std::find(feeds.begin(), feeds.end(), feed) == feeds.end()) {
      feeds.push_back(std::move(feed));
    }
  }
  return feeds;
}

StatusOr<std::string> InitOpName(const MetaGraphDef& meta,
                                 const std::string& export_dir) {
  auto sig = meta.signature_def().find(kSavedModelInitOpSignatureKey);
  if (sig != meta.signature_def().end()) {
    auto out = sig->second.outputs().find(kSavedModelInitOpSignatureKey);
    if (out == sig->second.outputs().end()) {
      return FailedPrecondition("signature '{}' has no output '{}'",
                                kSavedModelInitOpSignatureKey,
                                kSavedModelInitOpSignatureKey);
    }
    return out->second.name();
  }
  const auto& collections = meta.collection_def();
  const char* key = collections.count(kSavedModelMainOpKey)
                        ? kSavedModelMainOpKey
                        : kSavedModelLegacyInitOpKey;
  auto it = collections.find(key);
  if (it == collections.end()) return std::string();
  if (it->second.node_list().value_size() != 1) {
    return FailedPrecondition("Expected exactly one main op in : {}",
                              export_dir);
  }
  return it->second.node_list().value(0);
}

StatusOr<std::vector<LoadStep>> SavedModelLoadSteps(
    const GraphDef& graph, const MetaGraphDef& meta,
    const LoadOptions& options) {
  if (!options.export_dir.empty() || !options.checkpoint.empty()) {
    DFG_RETURN_IF_ERROR(ValidateSavedTensors(graph));
  }
  const tensorflow::SaverDef saver = SaverOf(graph, meta, options);
  DFG_ASSIGN_OR_RETURN(std::string prefix,
                       RestorePrefix(graph, saver, options));
  std::vector<std::pair<std::string, std::string>> assets;
  if (!options.export_dir.empty()) {
    DFG_ASSIGN_OR_RETURN(assets, AssetFeeds(meta, options.export_dir));
  }
  DFG_ASSIGN_OR_RETURN(std::string init_op,
                       InitOpName(meta, options.export_dir));
  if (init_op.empty() && options.export_dir.empty() &&
      HasNode(graph, kTablesInitializerName)) {
    init_op = kTablesInitializerName;
  }
  std::vector<LoadStep> steps;
  if (!prefix.empty()) {
    LoadStep& restore = steps.emplace_back();
    restore.feeds = AssetTensors(assets);
    restore.feeds.insert(restore.feeds.begin(),
                         {saver.filename_tensor_name(), StringScalar(prefix)});
    restore.target = saver.restore_op_name();
    restore.what = "restoring from " + prefix + ": ";
  }
  if (!init_op.empty()) {
    steps.push_back({AssetTensors(assets), init_op,
                     "running the init op '" + init_op + "': "});
  }
  return steps;
}

StatusOr<std::unique_ptr<Session>> LoadSavedModel(GraphDef graph,
                                                  const MetaGraphDef& meta,
                                                  const LoadOptions& options) {
  DFG_ASSIGN_OR_RETURN(std::vector<LoadStep> steps,
                       SavedModelLoadSteps(graph, meta, options));
  DFG_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                       Session::Create(std::move(graph), options.session));
  std::vector<Tensor> unused;
  for (const LoadStep& step : steps) {
    Status s =
        session->Run(step.feeds, {}, {step.target}, &unused, options.run);
    if (!s.ok()) return s.WithPrefix(step.what);
  }
  return session;
}

}  // namespace dfg
