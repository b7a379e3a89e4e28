// dfg_op_list: the ops dfg knows, one per line, as "<op>\t<kernel|no-kernel>"
// (kernel: at least one CPU kernel is registered). With --constraints, one
// line per CPU kernel registration instead: "<op>\t<attr>=<type>,<type>;..."
// over every type attr of the op, sorted by attr: the registration's
// constraint (within the OpDef's allowed types; a registration for types no
// node can have is left out), else the OpDef's allowed types; an attr that
// takes any type is left out. This is the form testdata/tf_oracle/op_list.py
// writes TensorFlow's registrations in (docs/ops/tf-cpu-kernels.tsv), so the op
// list's test can compare the dtypes each kernel runs for (docs/OPS.md). With
// --op-defs, the OpDef of every op dfg knows, as a binary OpList on stdout, for
// the TF oracle's comparison with TensorFlow's own
// (testdata/ops/check_op_defs.py). A developer tool, not installed.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "lib/base/sanitizer_options.h"  // once per executable
#include "lib/graph/op_registry.h"
#include "lib/graph/types.h"
#include "lib/kernels/kernel_registry.h"

namespace {

std::string TypeList(const std::vector<dfg::DataType>& types) {
  std::set<std::string> names;
  for (dfg::DataType t : types) names.insert(dfg::DataTypeString(t));
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

// attr -> allowed types of the op's type attrs (empty: any type).
std::map<std::string, std::set<dfg::DataType>> OpDefTypes(
    const std::string& op) {
  std::map<std::string, std::set<dfg::DataType>> types;
  const dfg::OpInfo* info = dfg::OpRegistry::Global().Find(op);
  if (info == nullptr) return types;
  for (const auto& attr : info->def.attr()) {
    if (attr.type() != "type" && attr.type() != "list(type)") continue;
    auto& allowed = types[attr.name()];
    for (int t : attr.allowed_values().list().type()) {
      allowed.insert(static_cast<dfg::DataType>(t));
    }
  }
  return types;
}

// One registration's line, its constraints kept within what the OpDef
// allows; "" when a constraint leaves no type a node can have.
std::optional<std::string> ConstraintLine(const std::string& op,
                                          const dfg::KernelRegistration& reg) {
  std::map<std::string, std::set<dfg::DataType>> types = OpDefTypes(op);
  for (const dfg::KernelTypeConstraint& c : reg.constraints) {
    std::set<dfg::DataType> kept;
    for (dfg::DataType t : c.allowed) {
      if (types[c.attr].empty() || types[c.attr].count(t)) kept.insert(t);
    }
    if (kept.empty()) return std::nullopt;
    types[c.attr] = kept;
  }
  std::string line;
  for (const auto& [attr, allowed] : types) {
    if (allowed.empty()) continue;
    line += (line.empty() ? "" : ";") + attr + '=' +
            TypeList({allowed.begin(), allowed.end()});
  }
  return line;
}

void PrintConstraints(const dfg::KernelRegistry& kernels) {
  for (const std::string& op : kernels.OpNames(dfg::kDeviceCpu)) {
    for (const dfg::KernelRegistration* reg : kernels.Registrations(op)) {
      if (reg->device_type != dfg::kDeviceCpu) continue;
      if (auto line = ConstraintLine(op, *reg)) {
        std::printf("%s\t%s\n", op.c_str(), line->c_str());
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const dfg::KernelRegistry& kernels = dfg::KernelRegistry::Global();
  if (argc > 1 && std::strcmp(argv[1], "--op-defs") == 0) {
    tensorflow::OpList list;
    for (const std::string& op : dfg::OpRegistry::Global().OpNames()) {
      *list.add_op() = dfg::OpRegistry::Global().Find(op)->def;
    }
    return list.SerializeToOstream(&std::cout) ? 0 : 1;
  }
  if (argc > 1 && std::strcmp(argv[1], "--constraints") == 0) {
    PrintConstraints(kernels);
    return 0;
  }
  const auto names = kernels.OpNames(dfg::kDeviceCpu);
  const std::set<std::string> with_kernel(names.begin(), names.end());
  for (const std::string& op : dfg::OpRegistry::Global().OpNames()) {
    std::printf("%s\t%s\n", op.c_str(),
                with_kernel.count(op) ? "kernel" : "no-kernel");
  }
  return 0;
}
