// dfg run --master grpc://HOST:PORT: the step runs on a cluster through
// its master (lib/distributed's MasterClient), as
// tf.compat.v1.Session("grpc://HOST:PORT") would; the client checks fed
// values against the graph's Placeholders first, as TensorFlow's does.
// `--master tf_config` takes the master from the TF_CONFIG environment
// variable, as TFConfigClusterResolver().master() does.
#ifndef DFG_SUBCOMMANDS_RUN_MASTER_H_
#define DFG_SUBCOMMANDS_RUN_MASTER_H_

#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/exec/step_stats.h"
#include "lib/proto/graph.pb.h"
#include "subcommands/run/repeat.h"
#include "subcommands/run/step.h"

namespace dfg {

// The --master value that asks for TF_CONFIG's master.
inline constexpr std::string_view kTfConfigMaster = "tf_config";

struct MasterOptions {
  std::string target;      // grpc://HOST:PORT
  std::string tls_ca;      // PEM CA certificate: talk TLS to the master
  std::string checkpoint;  // --checkpoint PREFIX: restore from it
  // PEM client certificate and key, for a master that asks for one
  // (dfg server --tls-client-ca)
  std::string tls_cert, tls_key;
  bool allow_soft_placement = true;
  bool optimize = true;
  // How long to wait for the master to accept the connection (gRPC retries
  // with backoff meanwhile); RunOnMaster makes it --timeout-ms when set.
  int64_t connect_timeout_ms = 10000;
};

// `--master`'s target: itself, or for kTfConfigMaster the master TF_CONFIG
// names (TfConfigMaster) with a note saying where it came from in *note.
// Errors (kInvalidArgument): TF_CONFIG is unset, malformed or names no
// master.
StatusOr<std::string> ResolveMasterTarget(const std::string& flag,
                                          std::string* note);

// Creates a session on the master and returns its step function (the
// session closes when the last copy of the function is destroyed).
// When a step runs with an observer (--trace, --stats), its node statistics
// from every task replace *stats.
StatusOr<StepFn> MasterStepFn(const MasterOptions& options,
                              tensorflow::GraphDef graph,
                              std::vector<NodeStat>* stats);

// Creates the session on the master with `model`'s graph, runs the steps
// that load a SavedModel (or restore --checkpoint) as LoadSavedModel would
// (SavedModelLoadSteps: the tasks read the variables and assets from the
// same paths), then RunRepeated on MasterStepFn's function (`repeat.run`:
// the timeout and cancellation of every step, and a timeout is also the
// connection's); with collect_stats, the last step's node statistics from
// every task. Errors: the loading's, the master session's creation, and the
// first step that fails.
StatusOr<RunOutcome> RunOnMaster(LoadedGraph model, const Step& step,
                                 const MasterOptions& options,
                                 RepeatOptions repeat, bool collect_stats);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_RUN_MASTER_H_
