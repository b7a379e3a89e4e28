// Resolving --feed/--examples/--fetch against the graph and a signature.
#include "subcommands/run/step.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "lib/base/strings.h"
#include "lib/exec/session.h"
#include "lib/graph/op_registry.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/types.h"
#include "lib/tensor_io/tensor_io.h"
#include "subcommands/run/examples.h"
#include "subcommands/run/feed_value.h"
#include "subcommands/run/tensor_literal.h"

namespace dfg {
namespace {

using tensorflow::NodeDef;
using tensorflow::SignatureDef;
using tensorflow::TensorInfo;

// A name to feed or fetch, resolved: the graph tensor and its dtype
// (DT_INVALID when it cannot be told).
struct Resolved {
  std::string tensor;
  DataType dtype = tensorflow::DT_INVALID;
  const TensorShapeProto* shape = nullptr;  // nullptr: not known
};

class StepBuilder {
 public:
  // `names`: the keys or tensors the step feeds and fetches, the only
  // names Resolve looks up.
  StepBuilder(const LoadedGraph& model, const SignatureDef* signature,
              const std::vector<std::string>& names)
      : model_(model), signature_(signature) {
    // The nodes those names could name, found in one sweep: a graph of a
    // million nodes is not indexed for a few names.
    for (const std::string& name : names)
      nodes_.emplace(ParseTensorName(name).node, nullptr);
    size_t found = 0;
    for (const NodeDef& node : model.graph.node()) {
      auto it = nodes_.find(node.name());
      if (it == nodes_.end() || it->second != nullptr) continue;
      it->second = &node;
      if (++found == nodes_.size()) break;
    }
  }

  // `key` names an input or output of the signature, or a graph tensor.
  // With `graph_first` (the default signature chosen for a step that names
  // its fetches), a name with ':' or naming a node is a graph tensor before
  // it is a key; otherwise keys come first.
  enum class Side { kInput, kOutput };
  StatusOr<Resolved> Resolve(const std::string& key, Side side) const {
    if (signature_ != nullptr) {
      const auto& map =
          side == Side::kInput ? signature_->inputs() : signature_->outputs();
      bool graph_tensor = key.find(':') != std::string::npos ||
                          FindNode(ParseTensorName(key).node) != nullptr;
      auto it = map.find(key);
      if (it != map.end() && !(graph_first_ && graph_tensor))
        return FromTensorInfo(key, it->second);
      if (!graph_tensor) {
        std::vector<std::string> keys;
        for (const auto& [k, info] : map) keys.push_back(k);
        std::sort(keys.begin(), keys.end());
        return NotFound(
            "signature '{}' has no {} '{}' (nor is it a node); "
            "its {}s: {}{}",
            model_signature_key_, SideName(side), key, SideName(side),
            keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", ")),
            DidYouMean(key, keys));
      }
    }
    return Resolved{key, DtypeOfTensor(key), PlaceholderShape(key)};
  }

  void set_signature_key(std::string key, bool graph_first) {
    model_signature_key_ = std::move(key);
    graph_first_ = graph_first;
  }

 private:
  static const char* SideName(Side side) {
    return side == Side::kInput ? "input" : "output";
  }

  StatusOr<Resolved> FromTensorInfo(const std::string& key,
                                    const TensorInfo& info) const {
    if (info.encoding_case() != TensorInfo::kName) {
      return InvalidArgument(
          "signature '{}': {} is a sparse or composite tensor; dfg feeds and "
          "fetches dense tensors only",
          model_signature_key_, key);
    }
    return Resolved{info.name(), info.dtype(),
                    info.has_tensor_shape() ? &info.tensor_shape() : nullptr};
  }

  // The declared shape of a Placeholder's output; nullptr for other nodes.
  const TensorShapeProto* PlaceholderShape(const std::string& name) const {
    TensorId id = ParseTensorName(name);
    const NodeDef* found = FindNode(id.node);
    if (found == nullptr || id.index != 0) return nullptr;
    const NodeDef& node = *found;
    if (node.op() != "Placeholder" && node.op() != "PlaceholderWithDefault")
      return nullptr;
    auto attr = node.attr().find("shape");
    if (attr == node.attr().end() || !attr->second.has_shape()) return nullptr;
    return &attr->second.shape();
  }

  // The dtype of output `port` of the node `name` names, from its op's
  // signature and attrs; DT_INVALID when unknown.
  DataType DtypeOfTensor(const std::string& name) const {
    TensorId id = ParseTensorName(name);
    const NodeDef* node = FindNode(id.node);
    if (node == nullptr || id.index < 0) return tensorflow::DT_INVALID;
    OpLookup ops(&model_.graph.library());
    const OpDef* op_def = ops.LookUpOpDef(node->op());
    std::vector<DataType> in, out;
    if (op_def == nullptr ||
        !InOutTypesForNode(*node, *op_def, &in, &out).ok() ||
        id.index >= static_cast<int>(out.size())) {
      return tensorflow::DT_INVALID;
    }
    return BaseType(out[id.index]);
  }

  const LoadedGraph& model_;
  const SignatureDef* signature_;
  std::string model_signature_key_;
  bool graph_first_ = false;
  // The node named `name` among those the request's names could name.
  const NodeDef* FindNode(std::string_view name) const {
    auto it = nodes_.find(std::string(name));
    return it == nodes_.end() ? nullptr : it->second;
  }

  // Names of nodes the request may name -> the node, or null (none).
  std::unordered_map<std::string, const NodeDef*> nodes_;
};

Status SplitSpec(const std::string& spec, const char* flag, std::string* name,
                 std::string* value) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) {
    return InvalidArgument(
        "{} takes {}, got '{}'", flag,
        std::string_view(flag) == "--feed" ? "TENSOR=FILE" : "KEY=JSON", spec);
  }
  *name = spec.substr(0, eq);
  *value = spec.substr(eq + 1);
  return Status::Ok();
}

// The signature keys resolve against: --signature, else a SavedModel's
// serving_default. When the step names its fetches or targets without
// --signature, graph tensors come before that signature's keys
// (`graph_first`): `--fetch output_0` still means the output key.
StatusOr<const SignatureDef*> ChooseSignature(const LoadedGraph& model,
                                              const StepRequest& request,
                                              std::string* key,
                                              bool* graph_first) {
  *key = request.signature;
  *graph_first = false;
  if (key->empty()) {
    if (model.container != GraphContainer::kSavedModel ||
        !model.signatures.count(kDefaultServingSignatureKey)) {
      return nullptr;
    }
    *graph_first = !request.fetches.empty() || !request.targets.empty();
    *key = kDefaultServingSignatureKey;
  }
  auto it = model.signatures.find(*key);
  if (it == model.signatures.end()) {
    std::vector<std::string> keys;
    for (const auto& [k, sig] : model.signatures) keys.push_back(k);
    return NotFound(
        "no signature '{}'; the signatures are: {}", *key,
        keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", ")));
  }
  return &it->second;
}

// A file whose open fails, for a value that could have been a string:
// the shell ate the quotes of '"hi"'.
Status WithQuoteHint(Status status, const std::string& name,
                     const std::string& value, DataType dtype) {
  if (dtype != tensorflow::DT_STRING && dtype != tensorflow::DT_INVALID)
    return status;
  if (status.message().find("cannot open") == std::string::npos) return status;
  return InvalidArgument(
      "{}; to feed the string \"{}\", quote it for the shell: '{}=\"{}\"'",
      status.message(), value, name, value);
}

// Reads the value of one --feed: generated, a JSON literal or a file
// (converted to `r`'s dtype as TensorFlow's Session converts numpy arrays,
// with a note in `notes`).
StatusOr<Tensor> FeedValue(const std::string& name, const std::string& value,
                           const Resolved& r, int64_t batch,
                           std::vector<std::string>* notes) {
  DFG_ASSIGN_OR_RETURN(auto generated, ParseGeneratedFeed(value));
  if (generated.has_value()) {
    if (r.dtype == tensorflow::DT_INVALID || r.shape == nullptr) {
      return InvalidArgument(
          "the dtype and shape of '{}' are not known (not a signature input "
          "nor a Placeholder), so {} cannot be made; feed a file or a literal",
          name, value);
    }
    return MakeGeneratedFeed(*generated, r.dtype, *r.shape, batch);
  }
  if (!LooksLikeTensorLiteral(value)) {
    auto tensor = LoadTensorFile(value);
    if (!tensor.ok())
      return WithQuoteHint(tensor.status(), name, value, r.dtype);
    if (r.dtype == tensorflow::DT_INVALID || tensor->dtype() == r.dtype)
      return tensor;
    DFG_ASSIGN_OR_RETURN(Tensor converted, ConvertFeedDtype(*tensor, r.dtype));
    notes->push_back(fmt::format(
        "--feed {}: converted {} to {}, the input's dtype (as TensorFlow's "
        "Session does)",
        name, NumpyDtypeName(tensor->dtype()), NumpyDtypeName(r.dtype)));
    return converted;
  }
  if (r.dtype == tensorflow::DT_INVALID) {
    return InvalidArgument(
        "the dtype of '{}' is not known, so a JSON literal cannot be "
        "converted to it; use a .npy file",
        name);
  }
  return ParseTensorLiteral(value, r.dtype, "JSON literal");
}

}  // namespace

Status BlameKeys(const Step& step, const Status& status) {
  for (const auto& [tensor, given] : step.key_tensors) {
    if (status.message().find(tensor) == std::string::npos) continue;
    return Status(status.code(),
                  fmt::format("{} ({})", status.message(), given));
  }
  return status;
}

Status CheckStepSyntax(const StepRequest& request) {
  std::string name, value;
  for (const std::string& spec : request.feeds)
    DFG_RETURN_IF_ERROR(SplitSpec(spec, "--feed", &name, &value));
  for (const std::string& spec : request.examples)
    DFG_RETURN_IF_ERROR(SplitSpec(spec, "--examples", &name, &value));
  return Status::Ok();
}

StatusOr<Step> PrepareStep(const LoadedGraph& model,
                           const StepRequest& request) {
  Step step;
  bool graph_first = false;
  DFG_ASSIGN_OR_RETURN(
      const SignatureDef* signature,
      ChooseSignature(model, request, &step.signature, &graph_first));
  // NAME=VALUE of each --feed and --examples, and every name to resolve.
  std::vector<std::pair<std::string, std::string>> feeds, examples;
  std::vector<std::string> names = request.fetches;
  for (auto [specs, flag, parsed] :
       {std::tuple(&request.feeds, "--feed", &feeds),
        std::tuple(&request.examples, "--examples", &examples)}) {
    for (const std::string& spec : *specs) {
      auto& [name, value] = parsed->emplace_back();
      DFG_RETURN_IF_ERROR(SplitSpec(spec, flag, &name, &value));
      names.push_back(name);
    }
  }
  StepBuilder builder(model, signature, names);
  builder.set_signature_key(step.signature, graph_first);
  using Side = StepBuilder::Side;
  for (const auto& [name, value] : feeds) {
    auto resolved = builder.Resolve(name, Side::kInput);
    if (!resolved.ok())
      return resolved.status().WithPrefix("--feed " + name + ": ");
    auto tensor = FeedValue(name, value, *resolved, request.batch, &step.notes);
    if (!tensor.ok())
      return tensor.status().WithPrefix("--feed " + name + ": ");
    if (resolved->tensor != name)
      step.key_tensors.emplace_back(resolved->tensor, "--feed " + name);
    step.feeds.emplace_back(resolved->tensor, std::move(tensor).value());
  }
  for (const auto& [name, value] : examples) {
    auto resolved = builder.Resolve(name, Side::kInput);
    if (!resolved.ok())
      return resolved.status().WithPrefix("--examples " + name + ": ");
    auto tensor = ExamplesFromJson(value);
    if (!tensor.ok())
      return tensor.status().WithPrefix("--examples " + name + ": ");
    step.feeds.emplace_back(resolved->tensor, std::move(tensor).value());
  }
  step.targets = request.targets;
  if (signature != nullptr && request.fetches.empty() &&
      request.targets.empty()) {
    // By key (the proto map's order is unspecified).
    std::map<std::string, const TensorInfo*> outputs;
    for (const auto& [key, info] : signature->outputs()) outputs[key] = &info;
    for (const auto& [key, info] : outputs) {
      DFG_ASSIGN_OR_RETURN(Resolved r, builder.Resolve(key, Side::kOutput));
      step.fetches.push_back(r.tensor);
      step.fetch_names.push_back(key);
    }
    return step;
  }
  for (const std::string& fetch : request.fetches) {
    auto resolved = builder.Resolve(fetch, Side::kOutput);
    if (!resolved.ok())
      return resolved.status().WithPrefix("--fetch " + fetch + ": ");
    if (resolved->tensor != fetch)
      step.key_tensors.emplace_back(resolved->tensor, "--fetch " + fetch);
    step.fetches.push_back(resolved->tensor);
    step.fetch_names.push_back(fetch);
  }
  if (step.fetches.empty() && step.targets.empty()) {
    DefaultFetchesAndTargets(model.graph, &step.fetches, &step.targets);
    step.fetch_names = step.fetches;
  }
  return step;
}

}  // namespace dfg
