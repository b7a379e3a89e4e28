// A client of a master (what tf.compat.v1.Session("grpc://HOST:PORT") is):
// CreateSession with the graph, RunStep per step, CloseSession at the end.
#ifndef DFG_LIB_DISTRIBUTED_MASTER_CLIENT_H_
#define DFG_LIB_DISTRIBUTED_MASTER_CLIENT_H_

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/distributed/grpc_util.h"
#include "lib/kernels/tensor.h"
#include "lib/proto/graph.pb.h"
#include "lib/proto/step_stats.pb.h"

namespace dfg {

struct MasterClientOptions {
  bool allow_soft_placement = true;
  TlsOptions tls;  // tls.ca_file: talk TLS to the master
  int64_t connect_timeout_ms = 10000;
  // false: ask the master not to optimize (graph_options.rewrite_options.
  // disable_meta_optimizer, as TensorFlow's client turns Grappler off).
  bool optimize = true;
};

class MasterClient {
 public:
  // `target`: "grpc://HOST:PORT". Creates the session. Errors: a bad
  // target, a master that does not answer within the connect timeout
  // (kUnavailable), and the master's CreateSession errors.
  static StatusOr<std::unique_ptr<MasterClient>> Create(
      const std::string& target, const tensorflow::GraphDef& graph,
      const MasterClientOptions& options);
  ~MasterClient();  // closes the session

  // One RunStep; `outputs` in fetch order. `timeout_ms` > 0 becomes
  // RunOptions.timeout_in_ms and the call's deadline; a raised `cancelled`
  // cancels the call (and so the step on every worker). With `stats`, every
  // task records the step (RunOptions FULL_TRACE) into it.
  Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs, int64_t timeout_ms,
             const std::atomic<bool>* cancelled,
             tensorflow::StepStats* stats = nullptr);

  Status Close();

  struct Impl;

 private:
  explicit MasterClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_MASTER_CLIENT_H_
