// TF_CONFIG: the environment variable through which Kubeflow's TFJob,
// Vertex AI, SageMaker and tf.distribute's TFConfigClusterResolver tell each
// process of a cluster what the cluster is and which task it is:
//
//   {"cluster": {"chief": ["h0:2222"], "worker": ["h1:2222", "h2:2222"]},
//    "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc"}
//
// Read as TFConfigClusterResolver reads it (cluster_spec(), task_type,
// task_id, rpc_layer, master()), checked as TensorFlow's multi-worker
// strategies check it (multi_worker_util._validate_cluster_spec: the jobs
// are chief, worker, ps and evaluator, at most one chief and one evaluator,
// the task in range; an evaluator may stand outside the cluster). Keys it
// does not use ("environment", Vertex AI's "job") are ignored, as TF does.
//
// Where dfg differs, on purpose: rpc_layer must be "grpc" (or absent), the
// only protocol dfg speaks; master() never answers "" (TF's in-process
// session of a one-task cluster): a client of `dfg run` always has a server.
#ifndef DFG_LIB_DISTRIBUTED_TF_CONFIG_H_
#define DFG_LIB_DISTRIBUTED_TF_CONFIG_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/proto/cluster.pb.h"

namespace dfg {

struct TfConfig {
  tensorflow::ClusterDef cluster;  // no jobs when TF_CONFIG has no cluster
  std::string task_type;           // "" when TF_CONFIG has no task
  std::optional<int> task_index;   // set whenever task_type is
  std::string rpc_layer;           // "" or "grpc"
  std::string session_master;      // "" when absent
};

// The TF_CONFIG environment variable's value; nullopt when it is unset,
// empty or blank (all three mean "no TF_CONFIG").
std::optional<std::string_view> TfConfigFromEnvironment();

// Parses and checks TF_CONFIG's value. Errors (kInvalidArgument) start with
// "TF_CONFIG" and name the field: not a JSON object, cluster not an object
// of task lists, a job other than chief/worker/ps/evaluator, two chiefs or
// evaluators, task.type unknown or not in the cluster, task.index missing,
// not a non-negative integer or out of range, rpc_layer other than grpc,
// session_master not a string.
StatusOr<TfConfig> ParseTfConfig(std::string_view json);

// The master a client of this cluster talks to, as "grpc://HOST:PORT":
// TFConfigClusterResolver.master()'s answer (session_master when given,
// else this process's own task) where it has one; where TF's has none (no
// task, or an evaluator outside the cluster) the chief, else the lowest
// worker. Error (kInvalidArgument): none of these exists, or session_master
// names another protocol.
StatusOr<std::string> TfConfigMaster(const TfConfig& config);

// True when the host of "HOST:PORT" is a loopback address: localhost,
// 127.0.0.0/8, ::1.
bool IsLoopbackAddress(std::string_view address);

// What `dfg server` was told on its command line; whatever it was not told
// comes from TF_CONFIG when --cluster is absent.
struct ServerTaskFlags {
  std::string cluster;             // --cluster; empty: TF_CONFIG's
  std::optional<std::string> job;  // --job
  std::optional<int> task;         // --task
  std::string listen;              // --listen
};

// The task a server serves and where it listens.
struct ServerTask {
  tensorflow::ClusterDef cluster;
  std::string job;
  int task = 0;
  // --listen; else the task's port on 127.0.0.1, or on every interface
  // (0.0.0.0) when TF_CONFIG gives the task a non-loopback host.
  std::string listen;
  // What came from where, for stderr: "cluster from TF_CONFIG (...)".
  std::vector<std::string> notes;
  // With TF_CONFIG read: TfConfigMaster's answer, when it has one.
  std::optional<std::string> master;
};

// Resolves the flags against TF_CONFIG (`tf_config`: its value, nullopt
// when unset or empty). With --cluster, TF_CONFIG is not read; without it,
// TF_CONFIG's cluster is used and --job/--task override its task. Errors
// (kInvalidArgument): ParseTfConfig's, ParseClusterSpec's, no --cluster and
// no TF_CONFIG, no task, the task not in the cluster.
StatusOr<ServerTask> ResolveServerTask(
    const ServerTaskFlags& flags, std::optional<std::string_view> tf_config);

// The task as one line of JSON: {"cluster": {JOB: ["HOST:PORT", ...]},
// "task": {"type": JOB, "index": N}, "listen": "HOST:PORT"[, "master":
// "grpc://HOST:PORT"]} (a sparse job as {"INDEX": "HOST:PORT"}).
std::string ServerTaskJson(const ServerTask& task);

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_TF_CONFIG_H_
