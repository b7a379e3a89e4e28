// Counting each variable once. A TF2 SavedModel's graph (the one TF1-style
// loaders such as saved_model_cli run) holds more handles than the model has
// variables: the export makes a handle for each object that tracks a
// variable, and copies initialized from another's value. A Keras export
// holds three per variable, so summing every handle's shape reports three
// times the model's parameters. Copies and handles nothing uses are listed
// apart and left out of the count.
#include "lib/graph/tensor_id.h"
#include "lib/io/graph_summary_records.h"

namespace dfg::io_internal {
namespace {

// The node that input `k` of `node` reads as data, or -1.
int DataProducer(const GraphRecords& r, const RecordIndex& index,
                 const NodeRecord& node, uint32_t k) {
  if (k >= node.input_count) return -1;
  TensorIdView id = ParseTensorNameView(r.inputs[node.first_input + k]);
  return id.index < 0 ? -1 : index.Find(id.node);
}

bool IsAssign(std::string_view op) {
  return op == "AssignVariableOp" || op == "Assign";
}

bool IsRead(std::string_view op) {
  return op == "ReadVariableOp" || op == "Identity";
}

// The variable (slot) another one is a copy of, by following `copy_of` to
// its end; -1 when the chain runs in a circle (then none is the original).
int Original(const std::vector<int>& copy_of, int slot) {
  int steps = 0;
  while (copy_of[slot] >= 0) {
    slot = copy_of[slot];
    if (++steps > static_cast<int>(copy_of.size())) return -1;
  }
  return slot;
}

}  // namespace

void CountVariables(const GraphRecords& r, const RecordIndex& index,
                    const std::vector<char>& consumed, GraphSummary* s) {
  const int slots = static_cast<int>(s->variables.size());
  if (slots == 0) return;
  std::vector<int> slot_of(r.nodes.size(), -1);
  for (int slot = 0; slot < slots; ++slot) {
    int node = index.Find(s->variables[slot].name);
    if (node >= 0 && slot_of[node] < 0) slot_of[node] = slot;
  }
  std::vector<char> used(slots, 0);
  std::vector<char> read(slots, 0);  // by a read nothing consumes
  std::vector<int> copy_of(slots, -1);
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const NodeRecord& node = r.nodes[i];
    // A read nothing consumes does not make its variable used.
    bool dangling_read = node.op == "ReadVariableOp" && !consumed[i];
    for (uint32_t k = 0; k < node.input_count; ++k) {
      int producer = DataProducer(r, index, node, k);
      if (producer < 0 || slot_of[producer] < 0) continue;
      int slot = slot_of[producer];
      (dangling_read ? read : used)[slot] = 1;
      if (k != 0 || !IsAssign(node.op)) continue;
      // Assign(copy, Read(original)): the copy starts as the original.
      int value = DataProducer(r, index, node, 1);
      if (value < 0 || !IsRead(r.nodes[value].op)) continue;
      int source = DataProducer(r, index, r.nodes[value], 0);
      if (source >= 0 && slot_of[source] >= 0 && slot_of[source] != slot) {
        copy_of[slot] = slot_of[source];
      }
    }
  }
  s->variable_parameters = 0;
  for (int slot = 0; slot < slots; ++slot) {
    const GraphSummary::Input& v = s->variables[slot];
    int original = copy_of[slot] >= 0 ? Original(copy_of, slot) : -1;
    if (original >= 0) {
      s->uncounted_variables.push_back({v.name, s->variables[original].name});
    } else if (read[slot] && !used[slot]) {
      s->uncounted_variables.push_back({v.name, ""});
    } else if (v.elements > 0) {
      s->variable_parameters += v.elements;
    }
  }
}

}  // namespace dfg::io_internal
