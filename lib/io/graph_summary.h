// What a graph is, at a glance (`dfg info`): what TensorFlow's
// summarize_graph prints (possible inputs, variables, possible outputs,
// parameter counts, op types) plus node/edge counts, constant bytes, requested
// devices, library functions, ops dfg does not know, and for SavedModels and
// MetaGraphDefs their tags and signatures.
//
// Computed from the GraphDef directly with hash maps (no Graph is built); a
// binary graph of a million nodes takes about a second from its bytes.
#ifndef DFG_LIB_IO_GRAPH_SUMMARY_H_
#define DFG_LIB_IO_GRAPH_SUMMARY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/graph/types.h"
#include "lib/io/graph_io.h"

namespace dfg {

struct GraphSummary {
  struct NodeRef {
    std::string name;
    std::string op;
  };
  // A Placeholder-like node: dtype attr and shape attr as TensorFlow prints
  // them ("float", "[?,5]", "<unknown>", "None" when there is no shape attr),
  // and the shape's dimensions (-1 unknown) when its rank is known.
  struct Input {
    std::string name;
    std::string op;
    DataType dtype = tensorflow::DT_INVALID;
    std::string shape;
    bool known_rank = false;
    std::vector<int64_t> dims;
    int64_t elements = -1;  // of a fully defined shape, else -1
  };
  struct Function {
    std::string name;
    int64_t nodes = 0;
    int64_t inputs = 0;
    int64_t outputs = 0;
  };
  struct SignatureTensor {
    std::string key;     // the signature's name for it
    std::string tensor;  // the graph tensor ("x:0")
    DataType dtype = tensorflow::DT_INVALID;
    std::string shape;
    bool known_rank = false;
    std::vector<int64_t> dims;
  };
  struct Signature {
    std::string key;
    std::string method;
    std::vector<SignatureTensor> inputs;
    std::vector<SignatureTensor> outputs;
  };
  // A tensor of the SavedModel's checkpoint (inspect_checkpoint's list).
  struct CheckpointTensor {
    std::string key;
    DataType dtype = tensorflow::DT_INVALID;
    std::vector<int64_t> shape;
    int64_t bytes = 0;  // as stored
  };
  using Count = std::pair<std::string, int64_t>;

  std::string source;
  GraphFormat format = GraphFormat::kPb;
  GraphContainer container = GraphContainer::kGraphDef;
  int64_t producer = 0;  // versions.producer

  int64_t nodes = 0;
  int64_t data_edges = 0;
  int64_t control_edges = 0;

  std::vector<Input> inputs;  // Placeholder nodes (as summarize_graph)
  std::vector<Input> defaulted_inputs;  // PlaceholderWithDefault nodes
  std::vector<Input> variables;         // Variable, VariableV2, VarHandleOp
  // Variables left out of variable_parameters, so that it counts each
  // variable once: copies (assigned another variable's value at
  // initialization: `copy_of` names it) and handles nothing uses but a read
  // that nothing consumes (`copy_of` empty). A TF2 SavedModel's graph holds
  // such duplicates of each variable; a Keras export, three of each.
  struct UncountedVariable {
    std::string name;
    std::string copy_of;
  };
  std::vector<UncountedVariable> uncounted_variables;
  // summarize_graph's rule: consumed by nothing, op not Const, Assign, NoOp
  // or Placeholder.
  std::vector<NodeRef> outputs;
  std::vector<NodeRef> unconsumed;  // every node nothing consumes

  int64_t const_nodes = 0;
  int64_t const_parameters = 0;  // elements of every Const's value
  int64_t const_bytes = 0;       // their bytes (tensor_content or elements)
  // Elements of the fully defined shapes of the variables, each counted once
  // (not uncounted_variables).
  int64_t variable_parameters = 0;

  std::vector<Count> op_counts;     // graph and function bodies; count desc
  std::vector<Count> devices;       // requested device -> nodes; by name
  std::vector<Function> functions;  // by name
  std::vector<Count> unknown_ops;   // neither registry nor library; by name
  // Ops dfg knows but has no CPU kernel for (`dfg run` stops at TensorFlow's
  // "No OpKernel was registered"); by name. Filled by the caller, which
  // links the kernels (lib/io does not).
  std::vector<Count> no_kernel_ops;
  // summarize_graph's FindInvalidInputs: {node, input naming no node}.
  std::vector<std::pair<std::string, std::string>> invalid_inputs;

  std::vector<std::string> tags;
  std::vector<std::vector<std::string>> available_tag_sets;
  std::vector<Signature> signatures;  // by key
  // "serving_default" when the SavedModel has it (what `dfg run` runs).
  std::string default_signature;

  // SavedModel read from a directory or saved_model.pb: where its variables/
  // and assets/ are (LoadedGraph::export_dir). The checkpoint is listed by
  // the caller (lib/savedmodel reads it): its prefix, or "" when the
  // SavedModel has no variables/variables.index, and its tensors by key.
  std::string export_dir;
  std::string checkpoint_prefix;
  std::vector<CheckpointTensor> checkpoint_tensors;
};

GraphSummary SummarizeGraph(const LoadedGraph& loaded, std::string_view source);

// Parses and summarizes in one go, the path `dfg info` takes. A binary
// GraphDef is checked node by node and never built (its summary views the
// bytes); other forms are parsed into a protobuf Arena. Either way there is
// no malloc and free per node, which for a million nodes is most of the time.
// Errors as ParseGraph / ReadGraph, and those of CheckGraphStructure
// (graph_check.h) prefixed with `display_name`. SummarizeGraph makes no check
// (it lists inputs naming no node in invalid_inputs).
StatusOr<GraphSummary> SummarizeGraphBytes(std::string_view bytes,
                                           std::string_view display_name,
                                           const ReadOptions& options = {});
StatusOr<GraphSummary> ReadGraphSummary(const std::string& path,
                                        std::istream& in,
                                        const ReadOptions& options = {});

// The summary as text: summarize_graph's lines first, then dfg's sections.
std::string FormatGraphSummary(const GraphSummary& summary);

// The same as a JSON object (one line per key, sorted lists).
std::string GraphSummaryJson(const GraphSummary& summary);

// TensorFlow's strings::HumanReadableNum: 999, "1.20k", "3.40M".
std::string HumanReadableNum(int64_t value);

}  // namespace dfg

#endif  // DFG_LIB_IO_GRAPH_SUMMARY_H_
