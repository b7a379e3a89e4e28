// dfg run --master grpc://HOST:PORT: the step runs on a cluster through
// its master (lib/distributed's MasterClient), as
// tf.compat.v1.Session("grpc://HOST:PORT") would.
#ifndef DFG_SUBCOMMANDS_RUN_MASTER_H_
#define DFG_SUBCOMMANDS_RUN_MASTER_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/exec/session.h"
#include "lib/exec/step_stats.h"
#include "lib/savedmodel/runner.h"

namespace dfg {

// Creates a session on the master and returns its step function (the
// session closes when the last copy of the function is destroyed).
// When a step runs with an observer (--trace, --stats), its node statistics
// from every task replace *stats.
StatusOr<StepFn> MasterStepFn(const std::string& target,
                              const std::string& tls_ca, GraphDef graph,
                              bool allow_soft_placement,
                              std::vector<NodeStat>* stats);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_RUN_MASTER_H_
