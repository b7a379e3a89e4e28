// The checks mirror lib/graph/graph_import.cc (BuildNodeIndex, InitFromEdges
// and the Kahn loop of Convert) without an op registry, on the GraphDef or on
// the records `dfg info` views the bytes through. For a million nodes the
// time goes to memory, so the working set is a few int arrays and an 8-byte
// hash slot per name; nothing is copied.
#include "lib/io/graph_check.h"

#include <cstdint>
#include <string_view>
#include <vector>

#include "lib/graph/tensor_id.h"
#include "lib/io/graph_summary_records.h"

namespace dfg {
namespace io_internal {
namespace {

bool IsMergeOp(std::string_view op) {
  return op == "Merge" || op == "RefMerge" || op == "_XlaMerge";
}

bool IsNextIterationOp(std::string_view op) {
  return op == "NextIteration" || op == "RefNextIteration";
}

// The two shapes of graph the check runs on; same interface.
class RecordsGraph {
 public:
  explicit RecordsGraph(const GraphRecords& r) : r_(r) {}
  int size() const { return static_cast<int>(r_.nodes.size()); }
  std::string_view name(int n) const { return r_.nodes[n].name; }
  std::string_view op(int n) const { return r_.nodes[n].op; }
  int input_count(int n) const {
    return static_cast<int>(r_.nodes[n].input_count);
  }
  std::string_view input(int n, int k) const {
    return r_.inputs[r_.nodes[n].first_input + k];
  }

 private:
  const GraphRecords& r_;
};

class DefGraph {
 public:
  explicit DefGraph(const tensorflow::GraphDef& g) : g_(g) {}
  int size() const { return g_.node_size(); }
  std::string_view name(int n) const { return g_.node(n).name(); }
  std::string_view op(int n) const { return g_.node(n).op(); }
  int input_count(int n) const { return g_.node(n).input_size(); }
  std::string_view input(int n, int k) const { return g_.node(n).input(k); }

 private:
  const tensorflow::GraphDef& g_;
};

enum Kind : uint8_t { kOther, kMerge, kNextIteration };

// TensorFlow's BuildNodeIndex: unique names, control inputs last. Notes
// each node's kind on the way.
template <typename G, typename Index>
Status IndexAndCheckNames(const G& g, Index* index, std::vector<Kind>* kinds) {
  kinds->resize(g.size());
  for (int n = 0; n < g.size(); ++n) {
    std::string_view op = g.op(n);
    (*kinds)[n] = IsMergeOp(op)           ? kMerge
                  : IsNextIterationOp(op) ? kNextIteration
                                          : kOther;
    if (!index->Insert(n)) {
      return InvalidArgument("Node '{}' is not unique", g.name(n));
    }
    bool in_control = false;
    for (int k = 0; k < g.input_count(n); ++k) {
      std::string_view input = g.input(n, k);
      if (!input.empty() && input[0] == '^') {
        in_control = true;
      } else if (in_control) {
        return InvalidArgument(
            "Node '{}': Control dependencies must come after regular "
            "dependencies",
            g.name(n));
      }
    }
  }
  return Status::Ok();
}

// The source node of every input (in input order), or the first input that
// names no node.
template <typename G, typename Index>
Status ResolveInputs(const G& g, const Index& index,
                     std::vector<int>* sources) {
  for (int n = 0; n < g.size(); ++n) {
    for (int k = 0; k < g.input_count(n); ++k) {
      std::string_view input = g.input(n, k);
      int src = index.Find(ParseTensorNameView(input).node);
      if (src < 0) {
        return InvalidArgument("Node '{}': Unknown input node '{}'", g.name(n),
                               input);
      }
      sources->push_back(src);
    }
  }
  return Status::Ok();
}

// Kahn's algorithm as TensorFlow's import runs it: a Merge fed by a
// NextIteration waits only for its control inputs and one data input, and
// the NextIteration -> Merge edge is never counted.
template <typename G>
Status CheckAcyclic(const G& g, const std::vector<Kind>& kinds,
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
    int num_control = 0;
    bool has_loop_back_edge = false;
    for (int k = 0; k < g.input_count(n); ++k, ++j) {
      int src = sources[j];
      consumers[begin[src]++] = n;  // begin[src] ends at begin[src + 1]
      if (g.input(n, k).starts_with('^')) {
        ++num_control;
      } else if (kinds[src] == kNextIteration) {
        has_loop_back_edge = true;
      }
    }
    pending[n] = g.input_count(n);
    if (has_loop_back_edge && kinds[n] == kMerge) pending[n] = num_control + 1;
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
    bool next_iteration = kinds[o] == kNextIteration;
    for (int k = begin[o]; k < begin[o + 1]; ++k) {
      int out = consumers[k];
      if (next_iteration && kinds[out] == kMerge) continue;
      if (pending[out] <= 0) continue;
      if (--pending[out] == 0) ready.push_back(out);
    }
  }
  if (processed < n_nodes) {
    return InvalidArgument("{} nodes in a cycle", n_nodes - processed);
  }
  return Status::Ok();
}

template <typename G, typename Index>
Status CheckStructure(const G& g, size_t num_inputs, Index* index) {
  std::vector<Kind> kinds;
  DFG_RETURN_IF_ERROR(IndexAndCheckNames(g, index, &kinds));
  std::vector<int> sources;
  sources.reserve(num_inputs);
  DFG_RETURN_IF_ERROR(ResolveInputs(g, *index, &sources));
  return CheckAcyclic(g, kinds, sources);
}

}  // namespace

void IndexNodes(const GraphRecords& r, RecordIndex* index) {
  for (size_t n = 0; n < r.nodes.size(); ++n) {
    index->Insert(static_cast<int>(n));
  }
}

Status CheckGraphRecords(const GraphRecords& r, RecordIndex* index) {
  return CheckStructure(RecordsGraph(r), r.inputs.size(), index);
}

}  // namespace io_internal

Status CheckGraphStructure(const tensorflow::GraphDef& graph) {
  // The names side by side: one cache miss less per probe than through the
  // NodeDefs.
  std::vector<std::string_view> names;
  names.reserve(graph.node_size());
  size_t num_inputs = 0;
  for (const tensorflow::NodeDef& node : graph.node()) {
    names.push_back(node.name());
    num_inputs += node.input_size();
  }
  struct Name {
    const std::vector<std::string_view>* names;
    std::string_view operator()(int n) const { return (*names)[n]; }
  };
  io_internal::NameIndex<Name> index(names.size(), Name{&names});
  return io_internal::CheckStructure(io_internal::DefGraph(graph), num_inputs,
                                     &index);
}

}  // namespace dfg
