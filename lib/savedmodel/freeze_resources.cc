// ConvertCapturedVariables: a variable's value follows its resource handle
// from the VarHandleOp (now a Const) through the graph and into copies of the
// functions it is passed to (see the header for the ops).
#include "lib/savedmodel/freeze_resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "lib/graph/tensor_id.h"

namespace dfg {
namespace {

using tensorflow::FunctionDef;
using tensorflow::GraphDef;
using tensorflow::NodeDef;

bool IsIdentityLike(const std::string& op) {
  return op == "Identity" || op == "Snapshot" || op == "Enter" ||
         op == "Exit" || op == "NextIteration";
}

}  // namespace

bool ChangesVariable(const std::string& op) {
  // ScatterNd and ScatterNdNonAliasingAdd make a new tensor; the other
  // Scatter* ops write into a ref variable.
  if (op == "ScatterNd" || op == "ScatterNdNonAliasingAdd") return false;
  return op.rfind("Assign", 0) == 0 || op.rfind("Scatter", 0) == 0 ||
         op.rfind("ResourceScatter", 0) == 0 ||
         op.rfind("ResourceApply", 0) == 0 ||
         op.rfind("ResourceSparseApply", 0) == 0 || op == "DestroyResourceOp";
}

void MakeConstNode(NodeDef* node, const Tensor& value) {
  std::string device = node->device();
  std::string name = node->name();
  node->Clear();
  node->set_name(name);
  node->set_op("Const");
  node->set_device(device);
  (*node->mutable_attr())["dtype"].set_type(value.dtype());
  value.ToProto((*node->mutable_attr())["value"].mutable_tensor());
}

namespace {

// How a function caller passes its inputs on (convert_to_constants.py's
// _FunctionCaller subclasses): inputs from `first` on are the functions'
// arguments, typed by the list attr `type_attr`.
struct CallerKind {
  int first;
  const char* type_attr;
  std::vector<std::string> function_attrs;
};

const CallerKind* FindCallerKind(const std::string& op) {
  static const auto* kinds = new std::unordered_map<std::string, CallerKind>{
      {"While", {0, "T", {"body", "cond"}}},
      {"StatelessWhile", {0, "T", {"body", "cond"}}},
      {"If", {1, "Tin", {"then_branch", "else_branch"}}},
      {"StatelessIf", {1, "Tin", {"then_branch", "else_branch"}}},
      {"Case", {1, "Tin", {"branches"}}},
      {"StatelessCase", {1, "Tin", {"branches"}}},
      {"PartitionedCall", {0, "Tin", {"f"}}},
      {"StatefulPartitionedCall", {0, "Tin", {"f"}}}};
  auto it = kinds->find(op);
  return it == kinds->end() ? nullptr : &it->second;
}

void SetShape(tensorflow::TensorShapeProto* shape, const Tensor& value) {
  shape->Clear();
  for (int64_t d : value.shape().dim_sizes()) shape->add_dim()->set_size(d);
}

// The graph itself (fn == nullptr) or one converted function copy; tensors
// are named as that scope names them ("n:1" or "n:output:1", an argument by
// its name).
struct Scope {
  FunctionDef* fn = nullptr;

  std::string Output(const NodeDef& n, const std::string& arg, int i) const {
    if (fn == nullptr) return InputString(n.name(), i);
    return n.name() + ":" + arg + ":" + std::to_string(i);
  }
  std::string Where(const NodeDef& n) const {
    std::string s = fmt::format("node '{}' ({})", n.name(), n.op());
    if (fn != nullptr) s += " in function '" + fn->signature().name() + "'";
    return s;
  }
};

class Converter {
 public:
  Converter(GraphDef* graph, const std::vector<std::string>& needed,
            std::string where)
      : graph_(graph),
        needed_(needed.begin(), needed.end()),
        where_(std::move(where)) {}

  Status ConvertHandle(const std::string& handle, const Tensor& value) {
    for (NodeDef& n : *graph_->mutable_node()) {
      if (n.name() == handle) MakeConstNode(&n, value);
    }
    return Propagate(Scope{}, InputString(handle, 0), value);
  }

 private:
  bool Same(const Scope& scope, const std::string& in,
            const std::string& tensor) const {
    if (scope.fn != nullptr) {
      return in == tensor || (in + ":0") == tensor;
    }
    if (in[0] == '^') return false;
    TensorIdView a = ParseTensorNameView(in), b = ParseTensorNameView(tensor);
    return a.node == b.node && a.index == b.index;
  }

  // Every (node, input index) of the scope that reads `tensor` (in the graph,
  // only needed nodes: the others are pruned).
  std::vector<std::pair<NodeDef*, int>> Uses(const Scope& scope,
                                             const std::string& tensor) {
    std::vector<std::pair<NodeDef*, int>> uses;
    auto* nodes = scope.fn != nullptr ? scope.fn->mutable_node_def()
                                      : graph_->mutable_node();
    for (NodeDef& n : *nodes) {
      if (scope.fn == nullptr && !needed_.count(n.name())) continue;
      for (int i = 0; i < n.input_size(); ++i) {
        if (Same(scope, n.input(i), tensor)) uses.emplace_back(&n, i);
      }
    }
    return uses;
  }

  Status Propagate(const Scope& scope, const std::string& tensor,
                   const Tensor& value) {
    for (auto [node, index] : Uses(scope, tensor)) {
      std::string key =
          fmt::format("{}|{}|{}", scope.fn ? scope.fn->signature().name() : "",
                      node->name(), index);
      if (!visited_.insert(key).second) continue;
      DFG_RETURN_IF_ERROR(ConvertUse(scope, node, index, value));
    }
    return Status::Ok();
  }

  Status ConvertUse(const Scope& scope, NodeDef* n, int index,
                    const Tensor& value) {
    const std::string op = n->op();
    auto& attr = *n->mutable_attr();
    if (IsIdentityLike(op)) {
      attr["T"].set_type(value.dtype());
      attr.erase("_output_shapes");
      return Propagate(scope, scope.Output(*n, "output", 0), value);
    }
    if (op == "Switch") {
      attr["T"].set_type(value.dtype());
      attr.erase("_output_shapes");
      DFG_RETURN_IF_ERROR(
          Propagate(scope, scope.Output(*n, "output_false", 0), value));
      return Propagate(scope, scope.Output(*n, "output_true", 0), value);
    }
    if (op == "IdentityN") {
      auto* types = attr["T"].mutable_list();
      if (index < types->type_size()) types->set_type(index, value.dtype());
      attr.erase("_output_shapes");
      return Propagate(scope, scope.Output(*n, "output", index), value);
    }
    if (op == "ReadVariableOp") return ReadToIdentity(scope, n);
    if (op == "ResourceGather") return GatherToGatherV2(scope, n);
    if (op == "ResourceGatherNd") {
      ReplaceGather(n, "GatherNd");
      return Status::Ok();
    }
    if (const CallerKind* kind = FindCallerKind(op)) {
      return ConvertCaller(scope, n, *kind, index, value);
    }
    if (ChangesVariable(op)) {
      return InvalidArgument("{}: {} changes a variable; a frozen graph cannot",
                             where_, scope.Where(*n));
    }
    return InvalidArgument(
        "{}: {} uses a variable's resource handle (input {}); dfg freeze "
        "converts only reads, gathers, and functions the handle is passed to",
        where_, scope.Where(*n), index);
  }

  // In a function, its users name the result "n:value:0": an Identity's
  // result is "n:output:0".
  Status ReadToIdentity(const Scope& scope, NodeDef* n) {
    std::string old_out = scope.Output(*n, "value", 0);
    n->set_op("Identity");
    auto& attr = *n->mutable_attr();
    attr["T"] = attr["dtype"];
    attr.erase("dtype");
    if (scope.fn == nullptr) return Status::Ok();
    std::string new_out = scope.Output(*n, "output", 0);
    for (auto [use, i] : Uses(scope, old_out)) *use->mutable_input(i) = new_out;
    for (auto& [key, ret] : *scope.fn->mutable_ret()) {
      if (Same(scope, ret, old_out)) ret = new_out;
    }
    return Status::Ok();
  }

  // ResourceGather(resource, indices) -> GatherV2(params, indices, axis);
  // Gather's output is named "output" in both.
  static void ReplaceGather(NodeDef* n, const std::string& op) {
    auto& attr = *n->mutable_attr();
    n->set_op(op);
    attr["Tparams"] = attr["dtype"];
    attr.erase("dtype");
    attr.erase("validate_indices");
    if (op == "GatherV2") {
      attr.erase("batch_dims");
      attr["Taxis"] = attr["Tindices"];
    }
  }

  Status GatherToGatherV2(const Scope& scope, NodeDef* n) {
    auto& attr = *n->mutable_attr();
    int64_t batch_dims = attr.count("batch_dims") ? attr["batch_dims"].i() : 0;
    if (batch_dims != 0) {
      return InvalidArgument(
          "{}: batch_dims must be 0 for freeze_graph, but got "
          "node({}).attr('batch_dims') = {}",
          where_, n->name(), batch_dims);
    }
    const DataType index_type = attr["Tindices"].type();
    NodeDef axis;
    axis.set_name(n->name() + "/axis");
    axis.set_op("Const");
    (*axis.mutable_attr())["dtype"].set_type(index_type);
    Tensor zero = index_type == tensorflow::DT_INT64
                      ? Tensor::Scalar<int64_t>(0)
                      : Tensor::Scalar<int32_t>(0);
    zero.ToProto((*axis.mutable_attr())["value"].mutable_tensor());
    std::string axis_ref = scope.Output(axis, "output", 0);
    std::vector<std::string> inputs(n->input().begin(), n->input().end());
    ReplaceGather(n, "GatherV2");
    n->clear_input();
    n->add_input(inputs[0]);
    n->add_input(inputs[1]);
    n->add_input(axis_ref);
    for (size_t i = 2; i < inputs.size(); ++i) n->add_input(inputs[i]);
    if (scope.fn != nullptr) {
      *scope.fn->add_node_def() = std::move(axis);
    } else {
      needed_.insert(axis.name());
      *graph_->add_node() = std::move(axis);
    }
    return Status::Ok();
  }

  Status ConvertCaller(const Scope& scope, NodeDef* n, const CallerKind& kind,
                       int index, const Tensor& value) {
    const int arg = index - kind.first;
    if (arg < 0) {
      return InvalidArgument("{}: {} takes a variable's handle as input {}",
                             where_, scope.Where(*n), index);
    }
    auto& attr = *n->mutable_attr();
    auto* types = attr[kind.type_attr].mutable_list();
    if (arg < types->type_size()) types->set_type(arg, value.dtype());
    for (const std::string& name : kind.function_attrs) {
      auto it = attr.find(name);
      if (it == attr.end()) continue;
      std::vector<tensorflow::NameAttrList*> fns;
      // mutable_list() on a func-valued attr would clear its func.
      if (it->second.has_func()) {
        fns.push_back(it->second.mutable_func());
      } else if (it->second.has_list()) {
        for (auto& f : *it->second.mutable_list()->mutable_func()) {
          fns.push_back(&f);
        }
      }
      for (tensorflow::NameAttrList* f : fns) {
        DFG_ASSIGN_OR_RETURN(FunctionDef * copy,
                             ConvertArgument(f->name(), arg, value));
        f->set_name(copy->signature().name());
        // A While body's results are its next arguments.
        if (name == "body" && arg < copy->signature().output_arg_size()) {
          copy->mutable_signature()->mutable_output_arg(arg)->set_type(
              value.dtype());
        }
      }
    }
    if (kind.function_attrs[0] == "body" && attr.count("output_shapes") &&
        arg < attr["output_shapes"].list().shape_size()) {
      SetShape(attr["output_shapes"].mutable_list()->mutable_shape(arg), value);
    }
    attr.erase("_output_shapes");
    return Status::Ok();
  }

  FunctionDef* FindFunction(const std::string& name) {
    for (FunctionDef& f : *graph_->mutable_library()->mutable_function()) {
      if (f.signature().name() == name) return &f;
    }
    return nullptr;
  }

  // The copy of function `name` (made on first use) with argument `arg`
  // holding the value, and its uses converted.
  StatusOr<FunctionDef*> ConvertArgument(const std::string& name, int arg,
                                         const Tensor& value) {
    std::string copy_name = name;
    if (!copies_.count(name)) {
      auto it = copy_of_.find(name);
      if (it == copy_of_.end()) {
        const FunctionDef* original = FindFunction(name);
        if (original == nullptr) {
          return InvalidArgument("{}: function '{}' is not in the library",
                                 where_, name);
        }
        FunctionDef copy = *original;
        copy_name = UniqueFunctionName(name + "_frozen");
        copy.mutable_signature()->set_name(copy_name);
        *graph_->mutable_library()->add_function() = std::move(copy);
        copy_of_[name] = copy_name;
        copies_.insert(copy_name);
      } else {
        copy_name = it->second;
      }
    }
    FunctionDef* fn = FindFunction(copy_name);
    if (arg >= fn->signature().input_arg_size()) {
      return InvalidArgument("{}: function '{}' has no argument {}", where_,
                             name, arg);
    }
    if (!converted_args_.insert({copy_name, arg}).second) return fn;
    auto* input = fn->mutable_signature()->mutable_input_arg(arg);
    input->set_type(value.dtype());
    input->clear_type_attr();
    auto arg_attr = fn->mutable_arg_attr()->find(arg);
    if (arg_attr != fn->mutable_arg_attr()->end()) {
      auto& attrs = *arg_attr->second.mutable_attr();
      if (attrs.count("_output_shapes")) {
        SetShape(attrs["_output_shapes"].mutable_list()->mutable_shape(0),
                 value);
      }
      attrs.erase("_handle_dtypes");
      attrs.erase("_handle_shapes");
    }
    DFG_RETURN_IF_ERROR(Propagate(Scope{fn}, input->name(), value));
    return fn;
  }

  std::string UniqueFunctionName(const std::string& base) {
    std::string name = base;
    for (int i = 1; FindFunction(name) != nullptr; ++i) {
      name = base + "_" + std::to_string(i);
    }
    return name;
  }

  GraphDef* graph_;
  std::unordered_set<std::string> needed_;
  const std::string where_;
  std::unordered_map<std::string, std::string> copy_of_;  // original -> copy
  std::set<std::string> copies_;
  std::set<std::pair<std::string, int>> converted_args_;
  std::unordered_set<std::string> visited_;
};

}  // namespace

std::vector<std::string> CapturedHandles(
    const GraphDef& graph, const std::vector<std::string>& needed) {
  std::unordered_set<std::string> need(needed.begin(), needed.end());
  std::unordered_map<std::string, std::vector<const NodeDef*>> users;
  std::unordered_map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : graph.node()) {
    by_name[n.name()] = &n;
    if (!need.count(n.name())) continue;
    for (const std::string& in : n.input()) {
      if (in[0] == '^') continue;
      users[std::string(ParseTensorNameView(in).node)].push_back(&n);
    }
  }
  std::vector<std::string> captured;
  for (const std::string& name : needed) {
    auto it = by_name.find(name);
    if (it == by_name.end() || it->second->op() != "VarHandleOp") continue;
    std::vector<std::string> stack = {name};
    std::unordered_set<std::string> seen;
    bool other = false;
    while (!stack.empty() && !other) {
      std::string at = stack.back();
      stack.pop_back();
      if (!seen.insert(at).second) continue;
      for (const NodeDef* user : users[at]) {
        if (user->op() == "Identity") {
          stack.push_back(user->name());
        } else if (user->op() != "ReadVariableOp") {
          other = true;
        }
      }
    }
    if (other) captured.push_back(name);
  }
  std::sort(captured.begin(), captured.end());
  return captured;
}

Status ConvertCapturedVariables(GraphDef* graph,
                                const std::map<std::string, Tensor>& values,
                                const std::vector<std::string>& needed,
                                const std::string& where) {
  Converter converter(graph, needed, where);
  for (const auto& [handle, value] : values) {
    DFG_RETURN_IF_ERROR(converter.ConvertHandle(handle, value));
  }
  return Status::Ok();
}

}  // namespace dfg
