// Resolving --feed/--examples/--fetch against the graph and a signature.
#include "subcommands/run/step.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "lib/base/strings.h"
#include "lib/exec/session.h"
#include "lib/graph/op_registry.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/types.h"
#include "lib/tensor_io/tensor_io.h"
#include "subcommands/run/examples.h"
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
};

class StepBuilder {
 public:
  StepBuilder(const LoadedGraph& model, const SignatureDef* signature)
      : model_(model), signature_(signature) {
    for (const NodeDef& node : model.graph.node()) nodes_[node.name()] = &node;
  }

  // `key` names an input (kInputs) or output of the signature, or a graph
  // tensor.
  enum class Side { kInput, kOutput };
  StatusOr<Resolved> Resolve(const std::string& key, Side side) const {
    if (signature_ != nullptr) {
      const auto& map =
          side == Side::kInput ? signature_->inputs() : signature_->outputs();
      auto it = map.find(key);
      if (it != map.end()) return FromTensorInfo(key, it->second);
      if (!nodes_.count(ParseTensorName(key).node)) {
        std::vector<std::string> keys;
        for (const auto& [k, info] : map) keys.push_back(k);
        std::sort(keys.begin(), keys.end());
        return NotFound(
            "signature '{}' has no {} '{}' (nor is it a node); "
            "its {}s: {}",
            model_signature_key_, SideName(side), key, SideName(side),
            keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", ")));
      }
    }
    return Resolved{key, DtypeOfTensor(key)};
  }

  void set_signature_key(std::string key) {
    model_signature_key_ = std::move(key);
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
    return Resolved{info.name(), info.dtype()};
  }

  // The dtype of output `port` of the node `name` names, from its op's
  // signature and attrs; DT_INVALID when unknown.
  DataType DtypeOfTensor(const std::string& name) const {
    TensorId id = ParseTensorName(name);
    auto it = nodes_.find(id.node);
    if (it == nodes_.end() || id.index < 0) return tensorflow::DT_INVALID;
    OpLookup ops(&model_.graph.library());
    const OpDef* op_def = ops.LookUpOpDef(it->second->op());
    std::vector<DataType> in, out;
    if (op_def == nullptr ||
        !InOutTypesForNode(*it->second, *op_def, &in, &out).ok() ||
        id.index >= static_cast<int>(out.size())) {
      return tensorflow::DT_INVALID;
    }
    return BaseType(out[id.index]);
  }

  const LoadedGraph& model_;
  const SignatureDef* signature_;
  std::string model_signature_key_;
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

StatusOr<const SignatureDef*> ChooseSignature(const LoadedGraph& model,
                                              const StepRequest& request,
                                              std::string* key) {
  *key = request.signature;
  if (key->empty()) {
    bool told = !request.fetches.empty() || !request.targets.empty();
    if (told || model.container != GraphContainer::kSavedModel ||
        !model.signatures.count(kDefaultServingSignatureKey)) {
      return nullptr;
    }
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

StatusOr<Tensor> FeedValue(const std::string& name, const std::string& value,
                           DataType dtype) {
  if (!LooksLikeTensorLiteral(value)) return LoadTensorFile(value);
  if (dtype == tensorflow::DT_INVALID) {
    return InvalidArgument(
        "the dtype of '{}' is not known, so a JSON literal cannot be "
        "converted to it; use a .npy file",
        name);
  }
  return ParseTensorLiteral(value, dtype, "JSON literal");
}

}  // namespace

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
  DFG_ASSIGN_OR_RETURN(const SignatureDef* signature,
                       ChooseSignature(model, request, &step.signature));
  StepBuilder builder(model, signature);
  builder.set_signature_key(step.signature);
  using Side = StepBuilder::Side;
  for (const std::string& spec : request.feeds) {
    std::string name, value;
    DFG_RETURN_IF_ERROR(SplitSpec(spec, "--feed", &name, &value));
    auto resolved = builder.Resolve(name, Side::kInput);
    if (!resolved.ok())
      return resolved.status().WithPrefix("--feed " + name + ": ");
    auto tensor = FeedValue(name, value, resolved->dtype);
    if (!tensor.ok())
      return tensor.status().WithPrefix("--feed " + name + ": ");
    step.feeds.emplace_back(resolved->tensor, std::move(tensor).value());
  }
  for (const std::string& spec : request.examples) {
    std::string name, value;
    DFG_RETURN_IF_ERROR(SplitSpec(spec, "--examples", &name, &value));
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
