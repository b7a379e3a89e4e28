// FreezeSavedModel: signature → placeholders and outputs → inlined calls →
// variable reads as Consts (values from a loaded session) → pruned.
#include "lib/savedmodel/freeze.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "lib/graph/tensor_id.h"
#include "lib/optimize/function_inline.h"
#include "lib/prune/prune_unused.h"
#include "lib/savedmodel/freeze_resources.h"
#include "lib/savedmodel/freeze_tables.h"

namespace dfg {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;
using tensorflow::TensorInfo;

struct Endpoint {
  std::string key;
  TensorInfo info;
};

const std::set<std::string>& ForbiddenOps() {
  static const auto* ops = new std::set<std::string>{
      "VarHandleOp",         "VariableV2",       "Variable",
      "ReadVariableOp",      "AssignVariableOp", "AssignAddVariableOp",
      "AssignSubVariableOp", "Assign",           "AssignAdd",
      "AssignSub",           "SaveV2",           "RestoreV2",
      "MergeV2Checkpoints",  "PartitionedCall",  "StatefulPartitionedCall"};
  return *ops;
}

class Freezer {
 public:
  Freezer(const LoadedGraph& model, const FreezeOptions& options)
      : model_(model), options_(options), graph_(model.graph) {}

  StatusOr<GraphDef> Run() {
    FunctionInliner inliner(&graph_);
    DFG_RETURN_IF_ERROR(Inline(&inliner));
    DFG_RETURN_IF_ERROR(FindVariables());
    DFG_RETURN_IF_ERROR(PrepareLoad());
    DFG_RETURN_IF_ERROR(FindTableInitializers(&inliner));
    DFG_RETURN_IF_ERROR(ReadValues());
    ReplaceReads();
    DFG_RETURN_IF_ERROR(ConvertCapturedVariables(
        &graph_, captured_values_, NeededNodes(graph_, roots_), Where()));
    if (!table_inits_.empty()) {
      roots_.push_back(
          "^" + AddTableInitializers(&graph_, table_inits_, table_values_));
    }
    Prune();
    return Check();
  }

  // The same graph before any variable is read: what `dfg dot --signature`
  // draws (no checkpoint needed, variables still VarHandleOp/ReadVariableOp).
  StatusOr<GraphDef> Computation() {
    FunctionInliner inliner(&graph_);
    DFG_RETURN_IF_ERROR(Inline(&inliner));
    Prune();
    return std::move(graph_);
  }

 private:
  // What Run and Computation share: the signature's inputs as Placeholders,
  // its outputs as nodes named by their keys, the calls they need inlined.
  Status Inline(FunctionInliner* inliner) {
    DFG_RETURN_IF_ERROR(ReadSignature());
    RenameClashes();
    AddInputPlaceholders();
    AddOutputNodes();
    return inliner->InlineCallsNeededBy(roots_);
  }

  std::string Where() const { return "signature '" + options_.signature + "'"; }

  Status ReadSignature() {
    auto it = model_.signatures.find(options_.signature);
    if (it == model_.signatures.end()) {
      std::vector<std::string> keys;
      for (const auto& [k, sig] : model_.signatures) keys.push_back(k);
      return NotFound(
          "no signature '{}'; the signatures are: {}", options_.signature,
          keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", ")));
    }
    for (const auto& [key, info] : it->second.inputs())
      inputs_.push_back({key, info});
    for (const auto& [key, info] : it->second.outputs())
      outputs_.push_back({key, info});
    auto by_key = [](const Endpoint& a, const Endpoint& b) {
      return a.key < b.key;
    };
    std::sort(inputs_.begin(), inputs_.end(), by_key);
    std::sort(outputs_.begin(), outputs_.end(), by_key);
    std::set<std::string> input_keys;
    for (const Endpoint& e : inputs_) input_keys.insert(e.key);
    for (const auto* list : {&inputs_, &outputs_}) {
      for (const Endpoint& e : *list) {
        if (e.info.encoding_case() != TensorInfo::kName) {
          return InvalidArgument(
              "{}: '{}' is a sparse or composite tensor; freezing and drawing "
              "a signature handle dense tensors only",
              Where(), e.key);
        }
        if (list == &outputs_ && input_keys.count(e.key)) {
          return InvalidArgument("{}: '{}' is both an input and an output key",
                                 Where(), e.key);
        }
      }
    }
    return Status::Ok();
  }

  bool HasNode(const std::string& name) const {
    for (const NodeDef& n : graph_.node()) {
      if (n.name() == name) return true;
    }
    return false;
  }

  std::string UniqueName(const std::string& base) const {
    std::unordered_set<std::string> names;
    for (const NodeDef& n : graph_.node()) names.insert(n.name());
    for (int i = 1;; ++i) {
      std::string name = base + "_" + std::to_string(i);
      if (!names.count(name) && !reserved_.count(name)) return name;
    }
  }

  // An output that already is port 0 of a node named by its key (and not a
  // call, which inlining replaces) needs no Identity.
  bool IsDirect(const Endpoint& out) const {
    TensorId id = ParseTensorName(out.info.name());
    if (id.node != out.key || id.index != 0) return false;
    for (const NodeDef& n : graph_.node()) {
      if (n.name() == out.key) {
        return n.op() != "PartitionedCall" &&
               n.op() != "StatefulPartitionedCall";
      }
    }
    return false;
  }

  void RenameClashes() {
    for (const Endpoint& e : inputs_) reserved_.insert(e.key);
    for (const Endpoint& e : outputs_) {
      if (!IsDirect(e)) reserved_.insert(e.key);
    }
    for (const std::string& key : reserved_) {
      if (!HasNode(key)) continue;
      std::string to = UniqueName(key);
      RenameNode(&graph_, key, to);
      original_name_[to] = key;
      for (auto* list : {&inputs_, &outputs_}) {
        for (Endpoint& e : *list) {
          TensorId id = ParseTensorName(e.info.name());
          if (id.node == key)
            e.info.set_name(to + ":" + std::to_string(id.index));
        }
      }
    }
  }

  void AddInputPlaceholders() {
    std::vector<NodeDef> placeholders;
    for (const Endpoint& e : inputs_) {
      TensorId fed = ParseTensorName(e.info.name());
      for (NodeDef& n : *graph_.mutable_node()) {
        for (std::string& in : *n.mutable_input()) {
          if (in[0] != '^' && ParseTensorName(in) == fed) in = e.key;
        }
      }
      for (Endpoint& out : outputs_) {
        if (ParseTensorName(out.info.name()) == fed)
          out.info.set_name(e.key + ":0");
      }
      NodeDef p;
      p.set_name(e.key);
      p.set_op("Placeholder");
      (*p.mutable_attr())["dtype"].set_type(e.info.dtype());
      auto* shape = (*p.mutable_attr())["shape"].mutable_shape();
      if (e.info.has_tensor_shape()) {
        *shape = e.info.tensor_shape();
      } else {
        shape->set_unknown_rank(true);
      }
      placeholders.push_back(std::move(p));
    }
    google::protobuf::RepeatedPtrField<NodeDef> nodes;
    for (NodeDef& p : placeholders) *nodes.Add() = std::move(p);
    for (NodeDef& n : *graph_.mutable_node()) *nodes.Add() = std::move(n);
    graph_.mutable_node()->Swap(&nodes);
  }

  void AddOutputNodes() {
    for (const Endpoint& e : outputs_) {
      if (IsDirect(e)) {
        roots_.push_back(e.key);
        continue;
      }
      NodeDef* id = graph_.add_node();
      id->set_name(e.key);
      id->set_op("Identity");
      TensorId out = ParseTensorName(e.info.name());
      id->add_input(InputString(out.node, out.index));
      (*id->mutable_attr())["T"].set_type(e.info.dtype());
      roots_.push_back(e.key);
    }
    for (const Endpoint& e : inputs_) keep_.insert(e.key);
  }

  const NodeDef* Find(std::string_view name) const {
    auto it = index_.find(std::string(name));
    return it == index_.end() ? nullptr : &graph_.node(it->second);
  }

  void Reindex() {
    index_.clear();
    for (int i = 0; i < graph_.node_size(); ++i)
      index_[graph_.node(i).name()] = i;
  }

  // Each needed ReadVariableOp's VarHandleOp, each needed VariableV2.
  Status FindVariables() {
    Reindex();
    std::vector<std::string> needed = NeededNodes(graph_, roots_);
    std::sort(needed.begin(), needed.end());
    // Handles passed to functions or gathers: convert_variables_to_constants_v2
    // converts those uses too (freeze_resources.h).
    captured_ = CapturedHandles(graph_, needed);
    for (const std::string& name : needed) {
      const NodeDef& n = *Find(name);
      if (n.op() == "VariableV2" || n.op() == "Variable") {
        variables_.insert(name);
      } else if (n.op() == "ReadVariableOp" && n.input_size() > 0) {
        const NodeDef* src = Find(ParseTensorNameView(n.input(0)).node);
        while (src != nullptr && src->op() == "Identity" &&
               src->input_size() > 0) {
          src = Find(ParseTensorNameView(src->input(0)).node);
        }
        if (src == nullptr || src->op() != "VarHandleOp") {
          return InvalidArgument(
              "{}: node '{}' (ReadVariableOp) reads a resource that is no "
              "VarHandleOp; dfg freeze cannot tell its value",
              Where(), name);
        }
        handles_[name] = src->name();
      } else if (ChangesVariable(n.op())) {
        return InvalidArgument(
            "{}: node '{}' ({}) changes a variable; a frozen graph cannot",
            Where(), name, n.op());
      }
    }
    return Status::Ok();
  }

  // How the model is loaded to read its values: export_dir absolute (asset
  // paths end up in a frozen graph's table initializers, which must work
  // from any directory); the asset tensors and their paths.
  Status PrepareLoad() {
    load_ = options_.load;
    if (load_.export_dir.empty()) load_.export_dir = model_.export_dir;
    if (!load_.export_dir.empty()) {
      std::error_code ec;
      auto absolute = std::filesystem::absolute(load_.export_dir, ec);
      if (!ec) load_.export_dir = absolute.lexically_normal().string();
    }
    DFG_ASSIGN_OR_RETURN(assets_,
                         AssetFeeds(model_.meta_graph, load_.export_dir));
    return Status::Ok();
  }

  // The path an asset tensor is fed at load time, or nullptr.
  const std::string* AssetPath(const std::string& tensor) const {
    for (const auto& [name, path] : assets_) {
      if (ParseTensorName(name) == ParseTensorName(tensor)) return &path;
    }
    return nullptr;
  }

  // The name a node of the model has in graph_ (RenameClashes).
  std::string CurrentName(const std::string& model_name) const {
    for (const auto& [to, from] : original_name_) {
      if (from == model_name) return to;
    }
    return model_name;
  }

  // The tables the outputs need and the initializers the init op runs on
  // them; each initializer input is a Const of graph_ (its value copied) or
  // a tensor of the model to fetch after loading (table_fetches_).
  Status FindTableInitializers(FunctionInliner* inliner) {
    DFG_ASSIGN_OR_RETURN(
        std::vector<std::string> tables,
        FindTables(graph_, NeededNodes(graph_, roots_), Where()));
    if (tables.empty()) return Status::Ok();
    DFG_ASSIGN_OR_RETURN(std::string init_op,
                         InitOpName(model_.meta_graph, model_.export_dir));
    if (!init_op.empty()) init_op = CurrentName(init_op);
    DFG_ASSIGN_OR_RETURN(
        table_inits_,
        dfg::FindTableInitializers(&graph_, inliner, tables, init_op, Where()));
    Reindex();
    table_values_.resize(table_inits_.size());
    for (size_t k = 0; k < table_inits_.size(); ++k) {
      const TableInitializer& init = table_inits_[k];
      table_values_[k].resize(init.sources.size());
      for (size_t i = 0; i < init.sources.size(); ++i) {
        TensorId source = ParseTensorName(init.sources[i]);
        auto it = original_name_.find(std::string(source.node));
        const std::string model_node =
            it == original_name_.end() ? std::string(source.node) : it->second;
        const std::string tensor = InputString(model_node, source.index);
        // An asset tensor (a Const in TF1 graphs) holds the path at export
        // time; the loader feeds it the asset's path under DIR/assets.
        if (const std::string* path = AssetPath(tensor)) {
          table_values_[k][i] = Tensor::Scalar<std::string>(*path);
          continue;
        }
        const NodeDef* n = Find(source.node);
        if (n != nullptr && n->op() == "Const" && source.index == 0) {
          auto value = Tensor::FromProto(n->attr().at("value").tensor());
          DFG_RETURN_IF_ERROR(value.status());
          table_values_[k][i] = *std::move(value);
          continue;
        }
        if (!HasModelNode(model_node)) {
          return InvalidArgument(
              "{}: the initializer '{}' of lookup table '{}' reads '{}', "
              "which is computed inside a function; dfg freeze cannot tell "
              "its value",
              Where(), init.node, init.table, init.sources[i]);
        }
        table_fetches_.push_back(tensor);
        table_targets_.push_back(&table_values_[k][i]);
      }
    }
    return Status::Ok();
  }

  bool HasModelNode(const std::string& name) const {
    for (const NodeDef& n : model_.graph.node()) {
      if (n.name() == name) return true;
    }
    return false;
  }

  // Loads the model (restore, init op) with a read of every variable added,
  // and fetches them.
  Status ReadValues() {
    if (variables_.empty() && handles_.empty() && captured_.empty() &&
        table_fetches_.empty()) {
      return Status::Ok();
    }
    GraphDef augmented = model_.graph;
    std::unordered_set<std::string> original;
    for (const NodeDef& n : augmented.node()) original.insert(n.name());
    std::vector<std::string> fetches;
    std::vector<Tensor*> targets;
    // A variable's name in the model (before RenameClashes).
    auto model_name = [&](const std::string& var) {
      auto it = original_name_.find(var);
      return it == original_name_.end() ? var : it->second;
    };
    auto require = [&](const std::string& var) -> Status {
      if (original.count(model_name(var))) return Status::Ok();
      return InvalidArgument(
          "{}: variable '{}' is created inside a function; dfg freeze reads "
          "only variables of the graph itself",
          Where(), var);
    };
    for (const std::string& name : variables_) {
      DFG_RETURN_IF_ERROR(require(name));
      fetches.push_back(model_name(name) + ":0");
      targets.push_back(&values_[name]);
    }
    std::map<std::string, std::string> reads;  // VarHandleOp -> its read
    std::vector<std::string> read_handles = captured_;
    for (const auto& [read, handle] : handles_) read_handles.push_back(handle);
    for (const std::string& handle : read_handles) {
      DFG_RETURN_IF_ERROR(require(handle));
      if (reads.count(handle)) continue;
      std::string name = model_name(handle) + "/_dfg_freeze_read";
      while (original.count(name)) name += "_";
      NodeDef* node = augmented.add_node();
      node->set_name(name);
      node->set_op("ReadVariableOp");
      node->add_input(model_name(handle));
      const NodeDef* h = Find(handle);
      (*node->mutable_attr())["dtype"] = h->attr().at("dtype");
      reads[handle] = name;
    }
    for (const auto& [handle, read] : reads) {
      fetches.push_back(read + ":0");
      targets.push_back(&values_[handle]);
    }
    for (size_t i = 0; i < table_fetches_.size(); ++i) {
      fetches.push_back(table_fetches_[i]);
      targets.push_back(table_targets_[i]);
    }
    // The asset tensors are fed as at load time: an initializer input may
    // be computed from one.
    std::vector<std::pair<std::string, Tensor>> feeds;
    if (!table_fetches_.empty()) {
      for (const auto& [tensor, path] : assets_) {
        feeds.emplace_back(tensor, Tensor::Scalar<std::string>(path));
      }
    }
    const LoadOptions& load = load_;
    DFG_ASSIGN_OR_RETURN(auto session, LoadSavedModel(std::move(augmented),
                                                      model_.meta_graph, load));
    std::vector<Tensor> values;
    Status s = session->Run(feeds, fetches, {}, &values, load.run);
    if (!s.ok()) return s.WithPrefix("reading the variables: ");
    for (size_t i = 0; i < values.size(); ++i) *targets[i] = values[i];
    for (const std::string& handle : captured_) {
      captured_values_[handle] = values_.at(handle);
    }
    return Status::Ok();
  }

  void ReplaceReads() {
    for (NodeDef& n : *graph_.mutable_node()) {
      if (variables_.count(n.name())) {
        MakeConstNode(&n, values_.at(n.name()));
      } else if (auto it = handles_.find(n.name()); it != handles_.end()) {
        MakeConstNode(&n, values_.at(it->second));
      }
    }
  }

  // The outputs' (and table initializers') ancestors and the inputs stay;
  // a frozen graph is never differentiated, so no gradient is kept.
  void Prune() {
    PruneUnusedOptions options;
    options.roots = roots_;
    options.keep.assign(keep_.begin(), keep_.end());
    options.drop_gradients = true;
    PruneUnused(&graph_, options, /*report=*/nullptr);
  }

  StatusOr<GraphDef> Check() {
    std::unordered_set<std::string> names;
    for (const NodeDef& n : graph_.node()) {
      if (ForbiddenOps().count(n.op())) {
        std::string user;
        for (const NodeDef& m : graph_.node()) {
          for (const std::string& in : m.input()) {
            if (ParseTensorNameView(in[0] == '^'
                                        ? std::string_view(in).substr(1)
                                        : std::string_view(in))
                    .node == n.name()) {
              user = m.name() + " (" + m.op() + ")";
            }
          }
        }
        return InvalidArgument(
            "{}: node '{}' ({}) is still needed{}{}; dfg freeze turns "
            "variables into constants only where ReadVariableOp, a reference, "
            "a gather or a function they are passed to reads them",
            Where(), n.name(), n.op(), user.empty() ? "" : " by ", user);
      }
      if (!names.insert(n.name()).second) {
        return Internal("{}: two nodes named '{}' after freezing", Where(),
                        n.name());
      }
    }
    return std::move(graph_);
  }

  const LoadedGraph& model_;
  const FreezeOptions& options_;
  GraphDef graph_;
  std::vector<Endpoint> inputs_, outputs_;
  std::set<std::string> reserved_;
  std::vector<std::string> roots_;
  std::set<std::string> keep_;
  std::unordered_map<std::string, int> index_;
  std::set<std::string> variables_;             // VariableV2 nodes
  std::map<std::string, std::string> handles_;  // ReadVariableOp -> handle
  std::map<std::string, Tensor> values_;        // variable -> value
  std::vector<std::string> captured_;  // VarHandleOps used beyond reads
  std::map<std::string, Tensor> captured_values_;
  std::map<std::string, std::string> original_name_;  // renamed -> model's
  LoadOptions load_;                                  // PrepareLoad
  std::vector<std::pair<std::string, std::string>> assets_;  // tensor, path
  std::vector<TableInitializer> table_inits_;
  std::vector<std::vector<Tensor>> table_values_;  // per initializer source
  std::vector<std::string> table_fetches_;         // model tensors to fetch
  std::vector<Tensor*> table_targets_;             // where each fetch goes
};

}  // namespace

StatusOr<GraphDef> FreezeSavedModel(const LoadedGraph& model,
                                    const FreezeOptions& options) {
  return Freezer(model, options).Run();
}

StatusOr<GraphDef> SignatureComputation(const LoadedGraph& model,
                                        const std::string& signature) {
  FreezeOptions options;
  options.signature = signature;
  return Freezer(model, options).Computation();
}

}  // namespace dfg
