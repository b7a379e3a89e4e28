// TensorFlow's InstantiateFunction (core/framework/function.cc), over the
// GraphDef model: see function_instantiate.h.
#include "lib/graph/function_instantiate.h"

#include <map>
#include <utility>

#include "lib/graph/op_registry.h"

namespace dfg {
namespace {

using AttrMap = google::protobuf::Map<std::string, tensorflow::AttrValue>;
using tensorflow::AttrValue;
using tensorflow::FunctionDef;
using tensorflow::FunctionDefLibrary;
using tensorflow::GraphDef;
using tensorflow::NameAttrList;
using tensorflow::OpDef;

// Replaces attr placeholders ("$T") by the call's values, also inside lists
// of functions and function attrs.
Status SubstitutePlaceholders(const AttrMap& attrs, const OpDef& signature,
                              AttrValue* value) {
  if (!value->placeholder().empty()) {
    auto it = attrs.find(value->placeholder());
    if (it == attrs.end()) {
      return NotFound("Attr {} is not found from {}", value->placeholder(),
                      SummarizeOpDef(signature));
    }
    *value = it->second;
    return Status::Ok();
  }
  if (value->has_func()) {
    for (auto& [name, inner] : *value->mutable_func()->mutable_attr()) {
      DFG_RETURN_IF_ERROR(SubstitutePlaceholders(attrs, signature, &inner));
    }
  }
  if (value->has_list()) {
    for (NameAttrList& fn : *value->mutable_list()->mutable_func()) {
      for (auto& [name, inner] : *fn.mutable_attr()) {
        DFG_RETURN_IF_ERROR(SubstitutePlaceholders(attrs, signature, &inner));
      }
    }
  }
  return Status::Ok();
}

// The dtypes of one arg of the signature under `attrs` (TF's ArgNumType).
Status ArgTypes(const AttrMap& attrs, const OpDef& signature,
                const OpDef::ArgDef& arg, bool* is_list,
                std::vector<DataType>* types) {
  auto attr = [&](const std::string& name) -> StatusOr<const AttrValue*> {
    auto it = attrs.find(name);
    if (it == attrs.end()) {
      return NotFound("Attr {} is not found from {}", name,
                      SummarizeOpDef(signature));
    }
    return &it->second;
  };
  types->clear();
  if (!arg.type_list_attr().empty()) {
    *is_list = true;
    DFG_ASSIGN_OR_RETURN(const AttrValue* v, attr(arg.type_list_attr()));
    for (int t : v->list().type()) types->push_back(static_cast<DataType>(t));
    return Status::Ok();
  }
  int64_t n = 1;
  *is_list = !arg.number_attr().empty();
  if (*is_list) {
    DFG_ASSIGN_OR_RETURN(const AttrValue* v, attr(arg.number_attr()));
    n = v->i();
    if (n < 0) {
      return InvalidArgument("Value for number_attr() {} < 0",
                             arg.number_attr());
    }
  }
  DataType dtype = arg.type();
  if (!arg.type_attr().empty()) {
    DFG_ASSIGN_OR_RETURN(const AttrValue* v, attr(arg.type_attr()));
    dtype = v->type();
  }
  if (dtype == tensorflow::DT_INVALID) {
    return InvalidArgument("Arg {} of {} has no type", arg.name(),
                           SummarizeOpDef(signature));
  }
  types->assign(n, dtype);
  return Status::Ok();
}

NodeDef MakeArgNode(const std::string& name, const std::string& op,
                    DataType dtype, int index) {
  NodeDef node;
  node.set_name(name);
  node.set_op(op);
  (*node.mutable_attr())["T"].set_type(dtype);
  (*node.mutable_attr())["index"].set_i(index);
  return node;
}

// Body references ("x", "n:out:0", "n:out") -> graph tensor names ("n:3"),
// TensorFlow's name_info in InstantiateFunction.
using NameInfo = std::unordered_map<std::string, std::vector<std::string>>;

// One _Arg per input (one per element of a list input), in signature order.
Status AddArgNodes(const AttrMap& attrs, const OpDef& sig, GraphDef* out,
                   NameInfo* names) {
  int index = 0;
  for (const OpDef::ArgDef& arg : sig.input_arg()) {
    bool is_list = false;
    std::vector<DataType> types;
    DFG_RETURN_IF_ERROR(ArgTypes(attrs, sig, arg, &is_list, &types));
    std::vector<std::string>& refs = (*names)[arg.name()];
    for (size_t i = 0; i < types.size(); ++i) {
      std::string name =
          is_list ? arg.name() + "_" + std::to_string(i) : arg.name();
      *out->add_node() = MakeArgNode(name, "_Arg", types[i], index++);
      refs.push_back(name);
    }
  }
  return Status::Ok();
}

// The body's nodes with their attrs instantiated and defaults added, inputs
// left for ConnectBodyInputs; records the names of their outputs.
Status AddBodyNodes(const FunctionDef& fdef, const AttrMap& attrs,
                    const FunctionDefLibrary& library, GraphDef* out,
                    NameInfo* names) {
  const OpDef& sig = fdef.signature();
  OpLookup lookup(&library);
  for (const NodeDef& body : fdef.node_def()) {
    NodeDef* node = out->add_node();
    *node = body;
    node->clear_input();
    for (auto& [name, value] : *node->mutable_attr()) {
      DFG_RETURN_IF_ERROR(SubstitutePlaceholders(attrs, sig, &value));
    }
    const OpDef* op_def = lookup.LookUpOpDef(node->op());
    if (op_def == nullptr) {
      return NotFound("Op type not registered '{}' in function {}", node->op(),
                      sig.name());
    }
    AddDefaultsToNodeDef(*op_def, node);
    std::vector<std::string> input_args, output_args;
    SlotArgNames(*node, *op_def, &input_args, &output_args);
    std::map<std::string, int> seen;
    for (size_t slot = 0; slot < output_args.size(); ++slot) {
      std::string tensor = node->name() + ":" + std::to_string(slot);
      int k = seen[output_args[slot]]++;
      (*names)[node->name() + ":" + output_args[slot]].push_back(tensor);
      (*names)[node->name() + ":" + output_args[slot] + ":" + std::to_string(k)]
          .push_back(tensor);
    }
  }
  return Status::Ok();
}

// The body nodes' inputs as graph tensor names, control inputs last.
Status ConnectBodyInputs(const FunctionDef& fdef, const NameInfo& names,
                         int first_body, GraphDef* out) {
  for (int b = 0; b < fdef.node_def_size(); ++b) {
    const NodeDef& body = fdef.node_def(b);
    NodeDef* node = out->mutable_node(first_body + b);
    std::vector<std::string> controls;
    for (const std::string& input : body.input()) {
      if (!input.empty() && input[0] == '^') {
        std::string src = input.substr(1);
        auto it = names.find(src);
        // A control input names a node or an arg.
        controls.push_back(
            "^" + (it != names.end() && !it->second.empty()
                       ? it->second[0].substr(0, it->second[0].find(':'))
                       : src));
        continue;
      }
      auto it = names.find(input);
      if (it == names.end()) {
        return InvalidArgument("input {} is not found: {}", input,
                               SummarizeNodeDef(body));
      }
      for (const std::string& t : it->second) node->add_input(t);
    }
    for (std::string& c : controls) node->add_input(std::move(c));
  }
  return Status::Ok();
}

// One _Retval per output (per element of a list output), fed by what the
// FunctionDef's ret map names.
Status AddRetvalNodes(const FunctionDef& fdef, const AttrMap& attrs,
                      const NameInfo& names, GraphDef* out) {
  const OpDef& sig = fdef.signature();
  int ret_index = 0;
  for (const OpDef::ArgDef& arg : sig.output_arg()) {
    bool is_list = false;
    std::vector<DataType> types;
    DFG_RETURN_IF_ERROR(ArgTypes(attrs, sig, arg, &is_list, &types));
    auto ret = fdef.ret().find(arg.name());
    if (ret == fdef.ret().end()) {
      return InvalidArgument("Return {} missing.", arg.name());
    }
    auto it = names.find(ret->second);
    if (it == names.end()) {
      return InvalidArgument("Return {} -> {} is not found.", arg.name(),
                             ret->second);
    }
    if (it->second.size() != types.size()) {
      return InvalidArgument("Return {} -> {} has {} tensors, the signature {}",
                             arg.name(), ret->second, it->second.size(),
                             types.size());
    }
    for (size_t i = 0; i < types.size(); ++i) {
      std::string name = arg.name() + "_RetVal" +
                         (is_list ? "_" + std::to_string(i) : std::string());
      NodeDef* node = out->add_node();
      *node = MakeArgNode(name, "_Retval", types[i], ret_index++);
      node->add_input(it->second[i]);
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<GraphDef> InstantiateFunction(
    const FunctionDef& fdef, const AttrMap& call_attrs,
    const tensorflow::FunctionDefLibrary& library, bool copy_library) {
  const OpDef& sig = fdef.signature();
  AttrMap attrs = call_attrs;
  for (const OpDef::AttrDef& a : sig.attr()) {
    if (!attrs.contains(a.name()) && a.has_default_value()) {
      attrs[a.name()] = a.default_value();
    }
  }
  GraphDef out;
  if (copy_library) *out.mutable_library() = library;
  NameInfo names;
  DFG_RETURN_IF_ERROR(AddArgNodes(attrs, sig, &out, &names));
  const int first_body = out.node_size();
  DFG_RETURN_IF_ERROR(AddBodyNodes(fdef, attrs, library, &out, &names));
  DFG_RETURN_IF_ERROR(ConnectBodyInputs(fdef, names, first_body, &out));
  DFG_RETURN_IF_ERROR(AddRetvalNodes(fdef, attrs, names, &out));
  return out;
}

}  // namespace dfg
