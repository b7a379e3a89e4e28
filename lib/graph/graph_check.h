// The structure a GraphDef must have to be a graph at all: the checks of
// TensorFlow's GraphConstructor that need no op registry, in its order and
// with its messages (TF-SEMANTICS.md §0.4):
//   "Node 'X' is not unique"
//   "Node 'X': Control dependencies must come after regular dependencies"
//   "Node 'X': Unknown input node 'Y'"
//   "N nodes in a cycle"   (a while loop's NextIteration -> Merge back edge
//                           is no cycle)
//
// CheckGraphStructure runs them alone, so that a graph that a custom or
// unknown op makes unimportable still converts and summarizes (`dfg
// convert`, `info`, `dot`). ImportGraphDef (graph_import.h) runs the same
// steps interleaved with what needs the op registry, through the pieces in
// namespace graph_check; lib/io runs the whole check over its own view of a
// binary GraphDef (graph_check::CheckStructure).
#ifndef DFG_LIB_GRAPH_GRAPH_CHECK_H_
#define DFG_LIB_GRAPH_GRAPH_CHECK_H_

#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/op_types.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/types.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

// kInvalidArgument with one of the messages above for the first problem
// found; Ok otherwise. The message does not name the file (callers do).
Status CheckGraphStructure(const tensorflow::GraphDef& graph);

namespace graph_check {

// Node name -> index by open addressing over the caller's names
// (`name_of(index)`, which must stay valid while the index is used): 8 bytes
// a slot and no allocation per name. For a million nodes, memory (page
// faults, cache misses) is most of the time.
template <typename NameOf>
class NameIndex {
 public:
  NameIndex(size_t count, NameOf name_of) : name_of_(std::move(name_of)) {
    size_t capacity = 16;
    while (capacity < count * 2) capacity *= 2;
    slots_.resize(capacity);
  }
  // Adds node `index` under its name; false (and nothing added) when a node
  // of that name is there already: the first one wins.
  bool Insert(int index) {
    std::string_view name = name_of_(index);
    return InsertHashed(index, name, Hash(name));
  }
  int Find(std::string_view name) const {  // -1 when absent
    return FindHashed(name, Hash(name));
  }

  // The same in two steps, for LookupWindow: Hash(name), Prefetch(hash)
  // and, once the slot had time to arrive from memory, the *Hashed call.
  static uint32_t Hash(std::string_view name) {
    return static_cast<uint32_t>(std::hash<std::string_view>()(name));
  }
  void Prefetch(uint32_t hash) const {
    __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
  }
  bool InsertHashed(int index, std::string_view name, uint32_t hash) {
    size_t at = Probe(name, hash);
    if (slots_[at].index >= 0) return false;
    slots_[at] = {hash, index};
    return true;
  }
  int FindHashed(std::string_view name, uint32_t hash) const {
    return slots_[Probe(name, hash)].index;
  }

 private:
  struct Slot {
    uint32_t hash = 0;
    int32_t index = -1;
  };
  size_t Probe(std::string_view name, uint32_t hash) const {
    size_t mask = slots_.size() - 1;
    size_t at = hash & mask;
    while (slots_[at].index >= 0 &&
           (slots_[at].hash != hash || name_of_(slots_[at].index) != name)) {
      at = (at + 1) & mask;
    }
    return at;
  }
  NameOf name_of_;
  std::vector<Slot> slots_;
};

// The errors, in TensorFlow's words.
// Names on their way into or out of a NameIndex, kSize at a time: each
// name's slot is prefetched when it is pushed and used when it leaves, in
// push order, so that a million lookups wait for memory in parallel rather
// than one after another (the table is far larger than the caches).
template <typename Index>
class LookupWindow {
 public:
  struct Item {
    std::string_view name;  // must stay valid until the item leaves
    uint32_t hash;
    int a, b;  // the caller's, e.g. node and input position
  };
  explicit LookupWindow(const Index& index) : index_(index) {}
  // Queues a name; when the window was full, the oldest item leaves into
  // *out and Push returns true.
  bool Push(std::string_view name, int a, int b, Item* out) {
    uint32_t hash = Index::Hash(name);
    index_.Prefetch(hash);
    bool full = count_ == kSize;
    if (full) {
      *out = items_[head_];
      head_ = (head_ + 1) % kSize;
      --count_;
    }
    items_[(head_ + count_) % kSize] = Item{name, hash, a, b};
    ++count_;
    return full;
  }
  // The oldest queued item into *out; false when there is none.
  bool Pop(Item* out) {
    if (count_ == 0) return false;
    *out = items_[head_];
    head_ = (head_ + 1) % kSize;
    --count_;
    return true;
  }

 private:
  static constexpr int kSize = 16;
  const Index& index_;
  Item items_[kSize];
  int head_ = 0;
  int count_ = 0;
};

// [A-Za-z0-9.][A-Za-z0-9_./-]* pieces joined by '>'; with allow_internal_ops
// the very first character may also be '_' (TensorFlow's IsValidNodeName).
bool IsValidNodeName(std::string_view s, bool allow_internal_ops);

// TensorFlow's TypesCompatible for an edge, plus: an unknown dtype on either
// side (an op dfg does not know) is never reported as a mismatch.
bool TypesCompatible(DataType expected, DataType actual);

Status NotUniqueError(std::string_view node);
Status UnknownInputError(std::string_view node, std::string_view input);
Status CycleError(int nodes_in_cycle);

// TensorFlow's BuildNodeIndex for the `count` input names of one node
// (`input_at(k)`): control inputs ("^x") come last.
template <typename InputAt>
Status CheckControlInputsLast(std::string_view node, int count,
                              InputAt input_at) {
  bool in_control = false;
  for (int k = 0; k < count; ++k) {
    std::string_view input = input_at(k);
    if (!input.empty() && input[0] == '^') {
      in_control = true;
    } else if (in_control) {
      return InvalidArgument(
          "Node '{}': Control dependencies must come after regular "
          "dependencies",
          node);
    }
  }
  return Status::Ok();
}

// How many of its `num_inputs` inputs a node waits for in the topological
// order TensorFlow's import runs (Kahn's algorithm): all of them, except that
// a Merge fed by a NextIteration (a while loop's back edge) waits only for
// its control inputs and one data input. `is_control(k)` and
// `from_next_iteration(k)` describe input k; they are called only for a Merge.
// When a node is done, its consumers count down, except a Merge after a
// NextIteration, and never below zero (a Merge with several forward inputs).
template <typename IsControl, typename FromNextIteration>
int PendingInputCount(bool is_merge, int num_inputs, IsControl is_control,
                      FromNextIteration from_next_iteration) {
  if (!is_merge) return num_inputs;
  int num_control = 0;
  bool has_loop_back_edge = false;
  for (int k = 0; k < num_inputs; ++k) {
    if (is_control(k)) {
      ++num_control;
    } else if (from_next_iteration(k)) {
      has_loop_back_edge = true;
    }
  }
  return has_loop_back_edge ? num_control + 1 : num_inputs;
}

// The whole check over a view `g` of a graph: g.size(), g.name(n), g.op(n),
// g.input_count(n), g.input(n, k) (string_views). `num_inputs` is the total
// number of inputs (a reservation); `index` (a NameIndex over g's names) is
// filled on the way, completely only when the result is Ok.
template <typename G, typename Index>
Status CheckStructure(const G& g, size_t num_inputs, Index* index);

// Implementation.

enum class NodeKind : uint8_t { kOther, kMerge, kNextIteration };

template <typename G, typename Index>
Status IndexAndCheckNames(const G& g, Index* index,
                          std::vector<NodeKind>* kinds) {
  kinds->resize(g.size());
  // Each node is checked when it leaves the window, in node order.
  auto check = [&](const typename LookupWindow<Index>::Item& item) {
    const int n = item.a;
    std::string_view op = g.op(n);
    (*kinds)[n] = IsMergeOp(op)           ? NodeKind::kMerge
                  : IsNextIterationOp(op) ? NodeKind::kNextIteration
                                          : NodeKind::kOther;
    if (!index->InsertHashed(n, item.name, item.hash)) {
      return NotUniqueError(g.name(n));
    }
    return CheckControlInputsLast(g.name(n), g.input_count(n),
                                  [&](int k) { return g.input(n, k); });
  };
  LookupWindow<Index> window(*index);
  typename LookupWindow<Index>::Item item;
  for (int n = 0; n < g.size(); ++n) {
    if (window.Push(g.name(n), n, 0, &item)) DFG_RETURN_IF_ERROR(check(item));
  }
  while (window.Pop(&item)) DFG_RETURN_IF_ERROR(check(item));
  return Status::Ok();
}

// The source node of every input (in input order), or the first input that
// names no node.
template <typename G, typename Index>
Status ResolveInputs(const G& g, const Index& index,
                     std::vector<int>* sources) {
  auto resolve = [&](const typename LookupWindow<Index>::Item& item) {
    int src = index.FindHashed(item.name, item.hash);
    if (src < 0)
      return UnknownInputError(g.name(item.a), g.input(item.a, item.b));
    sources->push_back(src);
    return Status::Ok();
  };
  LookupWindow<Index> window(index);
  typename LookupWindow<Index>::Item item;
  for (int n = 0; n < g.size(); ++n) {
    for (int k = 0; k < g.input_count(n); ++k) {
      std::string_view node = ParseTensorNameView(g.input(n, k)).node;
      if (window.Push(node, n, k, &item)) DFG_RETURN_IF_ERROR(resolve(item));
    }
  }
  while (window.Pop(&item)) DFG_RETURN_IF_ERROR(resolve(item));
  return Status::Ok();
}

template <typename G>
Status CheckAcyclic(const G& g, const std::vector<NodeKind>& kinds,
                    const std::vector<int>& sources) {
  const int n_nodes = g.size();
  // Consumers of node n: consumers[begin[n], begin[n + 1]).
  std::vector<int> begin(n_nodes + 1, 0);
  for (int src : sources) ++begin[src + 1];
  for (int n = 0; n < n_nodes; ++n) begin[n + 1] += begin[n];
  std::vector<int> consumers(sources.size());
  std::vector<int> pending(n_nodes);
  std::vector<int> ready;
  for (int n = 0, j = 0; n < n_nodes; ++n) {
    const int first = j;
    for (int k = 0; k < g.input_count(n); ++k, ++j) {
      consumers[begin[sources[j]]++] = n;  // begin[src] ends at begin[src + 1]
    }
    pending[n] = PendingInputCount(
        kinds[n] == NodeKind::kMerge, g.input_count(n),
        [&](int k) { return g.input(n, k).starts_with('^'); },
        [&](int k) {
          return kinds[sources[first + k]] == NodeKind::kNextIteration;
        });
    if (pending[n] == 0) ready.push_back(n);
  }
  // Each begin[n] now holds where n's consumers end; shift back.
  for (int n = n_nodes; n > 0; --n) begin[n] = begin[n - 1];
  begin[0] = 0;
  int processed = 0;
  while (!ready.empty()) {
    int o = ready.back();
    ready.pop_back();
    ++processed;
    bool next_iteration = kinds[o] == NodeKind::kNextIteration;
    for (int k = begin[o]; k < begin[o + 1]; ++k) {
      int out = consumers[k];
      if (next_iteration && kinds[out] == NodeKind::kMerge) continue;
      if (pending[out] <= 0) continue;
      if (--pending[out] == 0) ready.push_back(out);
    }
  }
  if (processed < n_nodes) return CycleError(n_nodes - processed);
  return Status::Ok();
}

template <typename G, typename Index>
Status CheckStructure(const G& g, size_t num_inputs, Index* index) {
  std::vector<NodeKind> kinds;
  DFG_RETURN_IF_ERROR(IndexAndCheckNames(g, index, &kinds));
  std::vector<int> sources;
  sources.reserve(num_inputs);
  DFG_RETURN_IF_ERROR(ResolveInputs(g, *index, &sources));
  return CheckAcyclic(g, kinds, sources);
}

}  // namespace graph_check
}  // namespace dfg

#endif  // DFG_LIB_GRAPH_GRAPH_CHECK_H_
