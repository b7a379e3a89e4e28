// NodeDef against OpDef: the signature of a node (InOutTypesForNode), default
// attrs, full validation and the summaries TensorFlow prints in its errors.
// Messages are TensorFlow's (framework/node_def_util.cc, op_def_util.cc) so
// that a user can search for them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "lib/base/strings.h"
#include "lib/graph/attr_summary.h"
#include "lib/graph/op_def_util.h"
#include "lib/graph/op_registry.h"
#include "lib/graph/op_registry_builder.h"
#include "lib/graph/types.h"

namespace dfg {
namespace {

using tensorflow::AttrValue;
using tensorflow::NodeDef;

std::string SummarizeArgs(
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args) {
  std::vector<std::string> pieces;
  for (const OpDef::ArgDef& arg : args) {
    std::string s = arg.name() + ":";
    if (arg.is_ref()) s += "Ref(";
    if (!arg.number_attr().empty()) s += arg.number_attr() + "*";
    // As TensorFlow: a type-list arg prints its (empty) type_attr.
    s += arg.type() != tensorflow::DT_INVALID ? DataTypeString(arg.type())
                                              : arg.type_attr();
    if (arg.is_ref()) s += ")";
    pieces.push_back(std::move(s));
  }
  return fmt::format("{}", fmt::join(pieces, ", "));
}

std::string TypesString(const std::vector<DataType>& types) {
  std::vector<std::string> names;
  for (DataType t : types) names.push_back(DataTypeString(t));
  return fmt::format("{}", fmt::join(names, ", "));
}

const AttrValue* FindNodeAttr(const NodeDef& node, const std::string& name) {
  auto it = node.attr().find(name);
  return it == node.attr().end() ? nullptr : &it->second;
}

// The node's attr `name`, checked to hold a value of `type`.
StatusOr<const AttrValue*> GetAttr(const NodeDef& node, const OpDef& op_def,
                                   const std::string& name,
                                   std::string_view type) {
  const AttrValue* value = FindNodeAttr(node, name);
  if (value == nullptr) {
    return InvalidArgument("NodeDef missing attr '{}' from {}; NodeDef: {}",
                           name, SummarizeOpDef(op_def),
                           SummarizeNodeDef(node));
  }
  Status s = AttrValueHasType(*value, type);
  if (!s.ok()) {
    return InvalidArgument("{}\n\t for attr '{}'\n\t; NodeDef: {}", s.message(),
                           name, SummarizeNodeDef(node));
  }
  return value;
}

constexpr int64_t kMaxListArgLength = int64_t{1} << 24;

Status AddArgToSig(const NodeDef& node, const OpDef& op_def,
                   const OpDef::ArgDef& arg, std::vector<DataType>* sig) {
  const size_t original_size = sig->size();
  if (!arg.number_attr().empty()) {
    DFG_ASSIGN_OR_RETURN(const AttrValue* n,
                         GetAttr(node, op_def, arg.number_attr(), "int"));
    if (n->i() > INT32_MAX)
      return InvalidArgument("Number of outputs is too big: {}", n->i());
    // A list that long would take gigabytes before anything ran (and no
    // real graph has one): refused, not left to fail in an allocation.
    if (n->i() > kMaxListArgLength) {
      return ResourceExhausted(
          "attr '{}' = {} of {}: lists of more than {} inputs or outputs are "
          "not supported",
          arg.number_attr(), n->i(), SummarizeNodeDef(node), kMaxListArgLength);
    }
    if (n->i() < 0)
      return InvalidArgument("Value for number_attr() {} < 0", n->i());
    DataType dtype = arg.type();
    if (!arg.type_attr().empty()) {
      DFG_ASSIGN_OR_RETURN(const AttrValue* t,
                           GetAttr(node, op_def, arg.type_attr(), "type"));
      dtype = t->type();
    }
    sig->insert(sig->end(), n->i(), dtype);
  } else if (!arg.type_attr().empty()) {
    DFG_ASSIGN_OR_RETURN(const AttrValue* t,
                         GetAttr(node, op_def, arg.type_attr(), "type"));
    sig->push_back(t->type());
  } else if (!arg.type_list_attr().empty()) {
    DFG_ASSIGN_OR_RETURN(
        const AttrValue* l,
        GetAttr(node, op_def, arg.type_list_attr(), "list(type)"));
    for (int t : l->list().type()) sig->push_back(static_cast<DataType>(t));
  } else if (arg.type() != tensorflow::DT_INVALID) {
    sig->push_back(arg.type());
  } else {
    return InvalidArgument("No type fields in {}", arg.ShortDebugString());
  }
  if (arg.is_ref()) {
    for (size_t i = original_size; i < sig->size(); ++i) {
      if (IsRefType((*sig)[i]))
        return InvalidArgument("Requested reference to a reference type: {}",
                               arg.ShortDebugString());
      (*sig)[i] = MakeRefType((*sig)[i]);
    }
  }
  return Status::Ok();
}

// Number of slots of `arg` from the node's attrs (0 when they are missing).
int ArgSlots(const NodeDef& node, const OpDef::ArgDef& arg) {
  if (!arg.number_attr().empty()) {
    const AttrValue* n = FindNodeAttr(node, arg.number_attr());
    return n == nullptr
               ? 0
               : static_cast<int>(std::clamp<int64_t>(n->i(), 0, INT32_MAX));
  }
  if (!arg.type_list_attr().empty()) {
    const AttrValue* l = FindNodeAttr(node, arg.type_list_attr());
    return l == nullptr ? 0 : l->list().type_size();
  }
  return 1;
}

Status ValidateInputs(const NodeDef& node, int* num_inputs) {
  bool seen_control = false;
  *num_inputs = 0;
  for (const std::string& input : node.input()) {
    if (StartsWith(input, "^")) {
      seen_control = true;
      if (input.find(':') != std::string::npos)
        return InvalidArgument(
            "Control input '{}' must not have ':' in NodeDef: {}", input,
            SummarizeNodeDef(node));
    } else if (seen_control) {
      return InvalidArgument(
          "Non-control input '{}' after control input in NodeDef: {}", input,
          SummarizeNodeDef(node));
    } else {
      ++*num_inputs;
    }
  }
  return Status::Ok();
}

}  // namespace

std::string SummarizeOpDef(const OpDef& op_def) {
  std::string ret = fmt::format("Op<name={}; signature={} -> {}", op_def.name(),
                                SummarizeArgs(op_def.input_arg()),
                                SummarizeArgs(op_def.output_arg()));
  for (const auto& attr : op_def.attr()) {
    ret += fmt::format("; attr={}:{}", attr.name(), attr.type());
    if (attr.has_default_value())
      ret += ",default=" + SummarizeAttrValue(attr.default_value());
    if (attr.has_minimum()) ret += fmt::format(",min={}", attr.minimum());
    if (attr.has_allowed_values())
      ret += ",allowed=" + SummarizeAttrValue(attr.allowed_values());
  }
  if (op_def.is_commutative()) ret += "; is_commutative=true";
  if (op_def.is_aggregate()) ret += "; is_aggregate=true";
  if (op_def.is_stateful()) ret += "; is_stateful=true";
  if (op_def.allows_uninitialized_input())
    ret += "; allows_uninitialized_input=true";
  if (op_def.is_distributed_communication())
    ret += "; is_distributed_communication=true";
  return ret + ">";
}

std::string SummarizeAttrs(const NodeDef& node) {
  std::vector<std::string> names;
  for (const auto& [name, value] : node.attr()) names.push_back(name);
  std::sort(names.begin(), names.end());
  std::vector<std::string> pieces;
  for (const std::string& name : names)
    pieces.push_back(name + "=" + SummarizeAttrValue(node.attr().at(name)));
  if (!node.device().empty())
    pieces.push_back(fmt::format("_device=\"{}\"", node.device()));
  return fmt::format("{}", fmt::join(pieces, ", "));
}

std::string SummarizeNodeDef(const NodeDef& node) {
  return fmt::format("{{{{node {}}}}} = {}[{}]({})", node.name(), node.op(),
                     SummarizeAttrs(node), fmt::join(node.input(), ", "));
}

Status InOutTypesForNode(const NodeDef& node, const OpDef& op_def,
                         std::vector<DataType>* inputs,
                         std::vector<DataType>* outputs) {
  inputs->clear();
  outputs->clear();
  for (const auto& arg : op_def.input_arg())
    DFG_RETURN_IF_ERROR(AddArgToSig(node, op_def, arg, inputs));
  for (const auto& arg : op_def.output_arg())
    DFG_RETURN_IF_ERROR(AddArgToSig(node, op_def, arg, outputs));
  return Status::Ok();
}

void AddDefaultsToNodeDef(const OpDef& op_def, NodeDef* node) {
  for (const auto& attr : op_def.attr()) {
    if (attr.has_default_value() && !node->attr().contains(attr.name()))
      (*node->mutable_attr())[attr.name()] = attr.default_value();
  }
}

Status ValidateNodeDef(const NodeDef& node, const OpDef& op_def,
                       bool allow_unknown_attrs) {
  if (node.op() != op_def.name()) {
    return InvalidArgument("NodeDef op '{}' does not match {}; NodeDef: {}",
                           node.op(), SummarizeOpDef(op_def),
                           SummarizeNodeDef(node));
  }
  int num_inputs = 0;
  DFG_RETURN_IF_ERROR(ValidateInputs(node, &num_inputs));

  // Node attrs in name order, so that the first error is deterministic.
  std::vector<std::string> names;
  for (const auto& [name, value] : node.attr()) names.push_back(name);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (StartsWith(name, "_")) continue;  // internal attrs are always allowed
    const OpDef::AttrDef* attr_def = nullptr;
    for (const auto& a : op_def.attr())
      if (a.name() == name) attr_def = &a;
    if (attr_def == nullptr) {
      if (allow_unknown_attrs) continue;
      return InvalidArgument(
          "NodeDef mentions attr '{}' not in {}; NodeDef: {}. (Check whether "
          "your "
          "GraphDef-interpreting binary is up to date with your "
          "GraphDef-generating "
          "binary.).",
          name, SummarizeOpDef(op_def), SummarizeNodeDef(node));
    }
    const AttrValue& value = node.attr().at(name);
    if (!value.placeholder().empty()) continue;
    Status s = ValidateAttrValue(value, *attr_def);
    if (!s.ok()) {
      return InvalidArgument("{}\n\t; NodeDef: {}; {}", s.message(),
                             SummarizeNodeDef(node), SummarizeOpDef(op_def));
    }
  }

  std::vector<std::string> missing;
  for (const auto& attr : op_def.attr())
    if (!node.attr().contains(attr.name())) missing.push_back(attr.name());
  if (!missing.empty()) {
    return InvalidArgument("NodeDef missing attr{} '{}' from {}; NodeDef: {}",
                           missing.size() == 1 ? "" : "s",
                           fmt::join(missing, "', '"), SummarizeOpDef(op_def),
                           SummarizeNodeDef(node));
  }

  std::vector<DataType> inputs, outputs;
  DFG_RETURN_IF_ERROR(InOutTypesForNode(node, op_def, &inputs, &outputs));
  if (num_inputs != static_cast<int>(inputs.size())) {
    return InvalidArgument(
        "NodeDef expected inputs '{}' do not match {} inputs specified; {}; "
        "NodeDef: {}",
        TypesString(inputs), num_inputs, SummarizeOpDef(op_def),
        SummarizeNodeDef(node));
  }
  return Status::Ok();
}

void SlotArgNames(const NodeDef& node, const OpDef& op_def,
                  std::vector<std::string>* input_args,
                  std::vector<std::string>* output_args) {
  input_args->clear();
  output_args->clear();
  for (const auto& arg : op_def.input_arg())
    input_args->insert(input_args->end(), ArgSlots(node, arg), arg.name());
  for (const auto& arg : op_def.output_arg())
    output_args->insert(output_args->end(), ArgSlots(node, arg), arg.name());
}

bool AppendScalarAttrsKey(const tensorflow::NodeDef& node, std::string* key) {
  using tensorflow::AttrValue;
  // Called for every node of a big graph: no allocation but the key's.
  constexpr int kMaxAttrs = 16;
  std::pair<const std::string*, const AttrValue*> attrs[kMaxAttrs];
  int n = 0;
  for (const auto& [name, value] : node.attr()) {
    switch (value.value_case()) {
      case AttrValue::kList:
      case AttrValue::kFunc:
      case AttrValue::kPlaceholder:
        return false;
      default:
        if (n == kMaxAttrs) return false;
        attrs[n++] = {&name, &value};
    }
  }
  // A NodeDef's attr map has no set order.
  std::sort(attrs, attrs + n,
            [](const auto& a, const auto& b) { return *a.first < *b.first; });
  key->append(node.op());
  for (int i = 0; i < n; ++i) {
    const AttrValue& value = *attrs[i].second;
    key->push_back('\0');
    key->append(*attrs[i].first);
    key->push_back('\0');
    key->push_back(static_cast<char>('A' + value.value_case()));
    int64_t scalar = 0;
    switch (value.value_case()) {
      case AttrValue::kType:
        scalar = value.type();
        break;
      case AttrValue::kI:
        scalar = value.i();
        break;
      case AttrValue::kB:
        scalar = value.b();
        break;
      default:
        continue;
    }
    key->append(reinterpret_cast<const char*>(&scalar), sizeof(scalar));
  }
  return true;
}

}  // namespace dfg
