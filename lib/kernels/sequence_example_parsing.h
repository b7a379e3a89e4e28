// The engine of ParseSequenceExampleV2 (TensorFlow's FastParseSequenceExample
// in core/util/example_proto_fast_parsing.cc): serialized tf.SequenceExample
// protos to the context's sparse, dense and ragged features and the feature
// lists' sparse, dense (padded, with lengths) and ragged features. A first
// pass finds each requested feature's bytes and counts its values, a second
// fills the outputs.
#ifndef DFG_LIB_KERNELS_SEQUENCE_EXAMPLE_PARSING_H_
#define DFG_LIB_KERNELS_SEQUENCE_EXAMPLE_PARSING_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"

namespace dfg {

struct FeatureSpec {
  std::string key;
  DataType dtype = tensorflow::DT_FLOAT;
  DataType splits = tensorflow::DT_INT64;
  std::vector<int64_t> shape = {};  // dense only
  Tensor def = Tensor();            // context dense default
  bool missing_ok = false;          // feature-list dense
};

struct Config {
  std::vector<FeatureSpec> sparse, dense, ragged;
};

// Output slots of the op, in output-arg order.
struct Outputs {
  std::vector<Tensor> sparse_indices, sparse_values, sparse_shapes;
  std::vector<Tensor> dense_values, dense_lengths;
  std::vector<Tensor> ragged_values, ragged_outer, ragged_inner;
};

// Parses `serialized` (one per example; `batch` false: one example, no
// batch dimension). `names` is empty or one per example (for messages).
// Errors (kInvalidArgument, TensorFlow's text): "Invalid protocol message
// input, example id: <n>", "Name: <n>, Context feature: <k>.  Data types
// don't match. Expected type: <t>", "Feature: <k> (data type: <t>) is
// required but could not be found.", "Name: <n>, Feature list '<k>' is
// required but could not be found.  ...", "Inconsistent max number of
// elements for feature <k>: expected <a>, but found <b>".
Status ParseSequenceExamples(const Config& context, const Config& lists,
                             std::span<const std::string> serialized,
                             std::span<const std::string> names, bool batch,
                             Outputs* ctx_out, Outputs* list_out);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_SEQUENCE_EXAMPLE_PARSING_H_
