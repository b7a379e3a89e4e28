// What one `dfg run` step feeds and fetches, resolved against the graph and,
// when one is chosen, a signature of the SavedModel (saved_model_cli run's
// --signature_def, --inputs, --input_exprs and --input_examples).
//
// With a signature, feed names are its input keys (graph tensor names are
// accepted too), fetches default to all its outputs (sorted by key) and the
// fetched tensors are named by their output keys. Without --signature and
// without --fetch/--target, a SavedModel with a `serving_default` signature
// runs that signature; other graphs fetch the outputs nothing consumes. With
// --fetch/--target but no --signature, names are graph tensors first (a name
// with ':' or naming a node), else serving_default's keys.
#ifndef DFG_SUBCOMMANDS_RUN_STEP_H_
#define DFG_SUBCOMMANDS_RUN_STEP_H_

#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/io/graph_io.h"
#include "lib/kernels/tensor.h"

namespace dfg {

inline constexpr char kDefaultServingSignatureKey[] = "serving_default";

struct StepRequest {
  // "NAME=FILE.npy", "NAME=FILE.npz[:KEY]", "NAME=JSON" (tensor_literal.h)
  // or "NAME=zeros|ones|random[:SEED]" (feed_value.h). A file's array of
  // another dtype is converted to the input's (feed_value.h).
  std::vector<std::string> feeds;
  // "KEY=JSON": a list of feature dicts fed as serialized tf.Example protos.
  std::vector<std::string> examples;
  std::vector<std::string> fetches;  // output keys or tensor names
  std::vector<std::string> targets;
  std::string signature;  // empty: see the overview
  int64_t batch = 0;      // > 0: dimension 0 of zeros/ones/random inputs
};

struct Step {
  std::vector<std::pair<std::string, Tensor>> feeds;  // graph tensor names
  std::vector<std::string> fetches;                   // graph tensor names
  std::vector<std::string> targets;
  // How each fetch is shown (printed name, --json key, --output-dir file):
  // the signature's output key, else the fetch as given.
  std::vector<std::string> fetch_names;
  std::string signature;  // the signature that runs; empty for none
  // One line per feed converted to its input's dtype, for stderr.
  std::vector<std::string> notes;
  // (graph tensor, "--feed KEY") for each feed or fetch named by a signature
  // key, so that an error naming the tensor also names what the user wrote.
  std::vector<std::pair<std::string, std::string>> key_tensors;
};

// `status` with " (--feed KEY)" after its message for the first keyed
// tensor of `step` the message names; `status` itself otherwise.
Status BlameKeys(const Step& step, const Status& status);

// Errors (kInvalidArgument unless noted), each naming the flag and tensor:
// a feed or example without '=', an unknown signature (kNotFound, listing
// the signatures there are), a feed, example or fetch key that is neither an
// input/output key of the signature nor a node of the graph (kNotFound,
// listing the keys), feed files that cannot be read, JSON literals that are
// bad or do not fit the dtype, a literal fed to a tensor whose dtype cannot
// be told.
StatusOr<Step> PrepareStep(const LoadedGraph& model,
                           const StepRequest& request);

// The NAME=VALUE form of every feed, then every example, checked before
// anything is read: PrepareStep's first error (kInvalidArgument, "--feed
// takes TENSOR=FILE, got 'x'"), which `dfg run` reports as a usage error.
Status CheckStepSyntax(const StepRequest& request);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_RUN_STEP_H_
