#include "lib/distributed/tf_config.h"

#include <arpa/inet.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "lib/base/strings.h"
#include "lib/distributed/cluster_spec.h"

namespace dfg {
namespace {

using tensorflow::ClusterDef;
using tensorflow::JobDef;
using Json = nlohmann::json;

// The jobs TensorFlow's multi-worker strategies accept
// (multi_worker_util._validate_cluster_spec).
constexpr std::string_view kJobs[] = {"chief", "worker", "ps", "evaluator"};
constexpr std::string_view kJobList = "chief, worker, ps, evaluator";

bool KnownJob(std::string_view job) {
  return std::find(std::begin(kJobs), std::end(kJobs), job) != std::end(kJobs);
}

const JobDef* FindJob(const ClusterDef& cluster, std::string_view name) {
  for (const JobDef& job : cluster.job()) {
    if (job.name() == name) return &job;
  }
  return nullptr;
}

std::vector<int> TaskIndices(const JobDef& job) {
  std::vector<int> out;
  for (const auto& [index, address] : job.tasks()) out.push_back(index);
  std::sort(out.begin(), out.end());
  return out;
}

// "tasks 0 to 2", "only task 0", "tasks 1, 4" (a sparse job).
std::string DescribeTasks(const JobDef& job) {
  std::vector<int> tasks = TaskIndices(job);
  if (tasks.size() == 1) return fmt::format("only task {}", tasks[0]);
  if (tasks.back() == static_cast<int>(tasks.size()) - 1) {
    return fmt::format("tasks 0 to {}", tasks.back());
  }
  return fmt::format("tasks {}", fmt::join(tasks, ", "));
}

std::string JobNames(const ClusterDef& cluster) {
  std::vector<std::string> names;
  for (const JobDef& job : cluster.job()) names.push_back(job.name());
  return fmt::format("{}", fmt::join(names, ", "));
}

// `key` of object `j` as a string; "" when absent or null.
StatusOr<std::string> OptionalString(const Json& j, const char* key,
                                     const char* field) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return InvalidArgument("TF_CONFIG: {} must be a string, not {}", field,
                           it->dump());
  }
  return it->get<std::string>();
}

Status ParseCluster(const Json& root, ClusterDef* cluster) {
  auto it = root.find("cluster");
  if (it == root.end() || it->is_null() || (it->is_object() && it->empty())) {
    return Status::Ok();
  }
  if (!it->is_object()) {
    return InvalidArgument(
        "TF_CONFIG: cluster must be an object of jobs ({{\"worker\": "
        "[\"host:port\", ...]}}), not {}",
        it->dump());
  }
  DFG_ASSIGN_OR_RETURN(*cluster, ClusterDefFromClusterSpecJson(
                                     it->dump(), "TF_CONFIG: cluster"));
  for (const JobDef& job : cluster->job()) {
    if (!KnownJob(job.name())) {
      return InvalidArgument("TF_CONFIG: cluster job '{}' is not one of {}",
                             job.name(), kJobList);
    }
    if ((job.name() == "chief" || job.name() == "evaluator") &&
        job.tasks_size() > 1) {
      return InvalidArgument(
          "TF_CONFIG: cluster job '{}' has {} tasks: there must be at most "
          "one '{}' job",
          job.name(), job.tasks_size(), job.name());
    }
  }
  return Status::Ok();
}

// task.index: a non-negative integer, or its decimal string (TF's int()).
StatusOr<int> ParseTaskIndex(const Json& index) {
  std::optional<int64_t> value;
  if (index.is_number_unsigned()) {
    value = index.get<uint64_t>() > INT32_MAX
                ? -1
                : static_cast<int64_t>(index.get<uint64_t>());
  } else if (index.is_number_integer()) {
    value = index.get<int64_t>();
  } else if (index.is_string()) {
    value = ParseInt64(index.get<std::string>());
  }
  if (!value || *value < 0 || *value > INT32_MAX) {
    return InvalidArgument(
        "TF_CONFIG: task.index must be a non-negative integer, not {}",
        index.dump());
  }
  return static_cast<int>(*value);
}

Status ParseTask(const Json& root, TfConfig* config) {
  auto it = root.find("task");
  if (it == root.end() || it->is_null() || (it->is_object() && it->empty())) {
    return Status::Ok();
  }
  if (!it->is_object()) {
    return InvalidArgument(
        "TF_CONFIG: task must be an object ({{\"type\": \"worker\", "
        "\"index\": 0}}), not {}",
        it->dump());
  }
  const Json& task = *it;
  if (!task.contains("type"))
    return InvalidArgument("TF_CONFIG: task.type is missing");
  DFG_ASSIGN_OR_RETURN(config->task_type,
                       OptionalString(task, "type", "task.type"));
  if (!KnownJob(config->task_type)) {
    return InvalidArgument("TF_CONFIG: task.type '{}' is not one of {}",
                           config->task_type, kJobList);
  }
  if (!task.contains("index")) {
    return InvalidArgument("TF_CONFIG: task.index is missing");
  }
  DFG_ASSIGN_OR_RETURN(config->task_index, ParseTaskIndex(task["index"]));
  const JobDef* job = FindJob(config->cluster, config->task_type);
  // An evaluator may stand outside the cluster it evaluates; a TF_CONFIG
  // without a cluster is the server's error (it has nothing to serve).
  if (config->cluster.job_size() == 0) return Status::Ok();
  if (job == nullptr && config->task_type != "evaluator") {
    return InvalidArgument(
        "TF_CONFIG: task.type '{}' is not a job of the cluster (jobs: {})",
        config->task_type, JobNames(config->cluster));
  }
  // TensorFlow's strategies also count a sparse job's tasks: index 3 of a
  // job with tasks 1 and 3 is out of their range.
  if (job != nullptr && (!job->tasks().count(*config->task_index) ||
                         *config->task_index >= job->tasks_size())) {
    return InvalidArgument(
        "TF_CONFIG: task.index {} is out of range: job '{}' has {}",
        *config->task_index, job->name(), DescribeTasks(*job));
  }
  return Status::Ok();
}

// The lowest task of `job`, or nullopt.
std::optional<std::string> FirstTaskAddress(const ClusterDef& cluster,
                                            std::string_view job) {
  const JobDef* j = FindJob(cluster, job);
  if (j == nullptr || j->tasks().empty()) return std::nullopt;
  return j->tasks().at(TaskIndices(*j).front());
}

std::string HostOf(std::string_view address) {
  std::string_view host = address.substr(0, address.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return std::string(host);
}

std::string PortOf(std::string_view address) {
  size_t colon = address.rfind(':');
  return std::string(
      colon == std::string_view::npos ? "" : address.substr(colon + 1));
}

// "chief: 1 task, worker: 2 tasks".
std::string DescribeCluster(const ClusterDef& cluster) {
  std::vector<std::string> jobs;
  for (const JobDef& job : cluster.job()) {
    jobs.push_back(fmt::format("{}: {} task{}", job.name(), job.tasks_size(),
                               job.tasks_size() == 1 ? "" : "s"));
  }
  return fmt::format("{}", fmt::join(jobs, ", "));
}

// The job and task TF_CONFIG (or the flags that override it) name.
Status ChooseTfConfigTask(const ServerTaskFlags& flags, const TfConfig& config,
                          ServerTask* out) {
  if (!flags.job && !flags.task && config.task_type.empty()) {
    return InvalidArgument(
        "TF_CONFIG has no task ({{\"type\": \"worker\", \"index\": 0}}) "
        "and neither --job nor --task is given");
  }
  const bool job_from_env = !flags.job && !config.task_type.empty();
  const bool task_from_env = !flags.task && config.task_index.has_value();
  out->job = flags.job      ? *flags.job
             : job_from_env ? config.task_type
                            : "worker";
  out->task = flags.task ? *flags.task : task_from_env ? *config.task_index : 0;
  out->notes.push_back(fmt::format(
      "cluster from TF_CONFIG ({}); job '{}' from {}, task {} from {}",
      DescribeCluster(out->cluster), out->job,
      job_from_env ? "TF_CONFIG task.type" : "--job", out->task,
      task_from_env ? "TF_CONFIG task.index" : "--task"));
  if (!HasTask(out->cluster, out->job, out->task)) {
    const JobDef* job = FindJob(out->cluster, out->job);
    return InvalidArgument(
        "{}: task {} of job '{}' is not in TF_CONFIG's cluster ({}){}",
        job_from_env && task_from_env ? "TF_CONFIG" : "--job/--task", out->task,
        out->job,
        job ? fmt::format("job '{}' has {}", out->job, DescribeTasks(*job))
            : fmt::format("jobs: {}", JobNames(out->cluster)),
        job == nullptr && out->job == "evaluator"
            ? ": an evaluator outside the cluster has no address to serve on"
            : "");
  }
  return Status::Ok();
}

// Where a server from TF_CONFIG listens: its task's port, on loopback when
// TF_CONFIG gives the task a loopback host, else on every interface (the
// other tasks reach it by that host's name, as TensorFlow's servers do).
std::string TfConfigListen(const std::string& address,
                           std::vector<std::string>* notes) {
  std::string port = PortOf(address);
  if (IsLoopbackAddress(address)) {
    return (HostOf(address).find(':') != std::string::npos ? "[::1]:"
                                                           : "127.0.0.1:") +
           port;
  }
  notes->push_back(fmt::format(
      "listening on every interface (0.0.0.0:{}): TF_CONFIG gives this task "
      "the non-loopback address {}",
      port, address));
  return "0.0.0.0:" + port;
}

}  // namespace

StatusOr<ServerTask> ResolveServerTask(
    const ServerTaskFlags& flags, std::optional<std::string_view> tf_config) {
  ServerTask out;
  if (!flags.cluster.empty() || !tf_config) {
    if (flags.cluster.empty()) {
      return InvalidArgument(
          "--cluster is required (or a TF_CONFIG environment variable)");
    }
    DFG_ASSIGN_OR_RETURN(out.cluster, ParseClusterSpec(flags.cluster));
    out.job = flags.job.value_or("worker");
    out.task = flags.task.value_or(0);
    if (tf_config) out.notes.push_back("TF_CONFIG not read: --cluster given");
    if (!HasTask(out.cluster, out.job, out.task)) {
      return InvalidArgument("--job {} --task {}: no such task in the cluster",
                             out.job, out.task);
    }
  } else {
    DFG_ASSIGN_OR_RETURN(TfConfig config, ParseTfConfig(*tf_config));
    if (config.cluster.job_size() == 0) {
      return InvalidArgument(
          "TF_CONFIG has no cluster ({{\"cluster\": {{\"worker\": "
          "[\"host:port\", ...]}}}})");
    }
    out.cluster = config.cluster;
    DFG_RETURN_IF_ERROR(ChooseTfConfigTask(flags, config, &out));
    auto master = TfConfigMaster(config);
    if (master.ok()) out.master = *master;
  }
  DFG_ASSIGN_OR_RETURN(std::string address,
                       TaskAddress(out.cluster, TaskName(out.job, out.task)));
  if (!flags.listen.empty()) {
    out.listen = flags.listen;
  } else if (flags.cluster.empty()) {
    out.listen = TfConfigListen(address, &out.notes);
  } else {
    out.listen = "127.0.0.1:" + PortOf(address);
  }
  return out;
}

std::string ServerTaskJson(const ServerTask& task) {
  Json cluster = Json::object();
  for (const JobDef& job : task.cluster.job()) {
    std::vector<int> tasks = TaskIndices(job);
    const bool dense = tasks.back() == static_cast<int>(tasks.size()) - 1;
    Json& out = cluster[job.name()];
    out = dense ? Json::array() : Json::object();
    for (int t : tasks) {
      if (dense) {
        out.push_back(job.tasks().at(t));
      } else {
        out[std::to_string(t)] = job.tasks().at(t);
      }
    }
  }
  Json j = {{"cluster", cluster},
            {"task", {{"type", task.job}, {"index", task.task}}},
            {"listen", task.listen}};
  if (task.master) j["master"] = *task.master;
  return j.dump() + "\n";
}

std::optional<std::string_view> TfConfigFromEnvironment() {
  const char* value = std::getenv("TF_CONFIG");
  if (value == nullptr) return std::nullopt;
  std::string_view v(value);
  if (v.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return std::nullopt;
  }
  return v;
}

StatusOr<TfConfig> ParseTfConfig(std::string_view json) {
  Json root;
  try {
    root = Json::parse(json);
  } catch (const Json::parse_error& e) {
    // nlohmann's what() starts with its own tag; keep the position and why.
    std::string what = e.what();
    size_t tag_end = what.find("] ");
    if (tag_end != std::string::npos) what = what.substr(tag_end + 2);
    return InvalidArgument("TF_CONFIG is not valid JSON: {}", what);
  }
  if (!root.is_object()) {
    return InvalidArgument("TF_CONFIG must be a JSON object, not {}",
                           root.dump());
  }
  TfConfig config;
  DFG_RETURN_IF_ERROR(ParseCluster(root, &config.cluster));
  DFG_RETURN_IF_ERROR(ParseTask(root, &config));
  DFG_ASSIGN_OR_RETURN(config.rpc_layer,
                       OptionalString(root, "rpc_layer", "rpc_layer"));
  if (!config.rpc_layer.empty() && config.rpc_layer != "grpc") {
    return InvalidArgument(
        "TF_CONFIG: rpc_layer '{}' is not supported: dfg speaks plain gRPC "
        "(\"grpc\") only",
        config.rpc_layer);
  }
  DFG_ASSIGN_OR_RETURN(
      config.session_master,
      OptionalString(root, "session_master", "session_master"));
  return config;
}

StatusOr<std::string> TfConfigMaster(const TfConfig& config) {
  const std::string& session_master = config.session_master;
  if (!session_master.empty()) {
    if (session_master.find("://") == std::string::npos) {
      return "grpc://" + session_master;
    }
    if (StartsWith(session_master, "grpc://")) return session_master;
    return InvalidArgument(
        "TF_CONFIG: session_master '{}' is not grpc://HOST:PORT (the only "
        "protocol dfg speaks)",
        session_master);
  }
  if (config.task_index &&
      HasTask(config.cluster, config.task_type, *config.task_index)) {
    DFG_ASSIGN_OR_RETURN(
        std::string address,
        TaskAddress(config.cluster,
                    TaskName(config.task_type, *config.task_index)));
    return "grpc://" + address;
  }
  for (std::string_view job : {"chief", "worker"}) {
    if (auto address = FirstTaskAddress(config.cluster, job)) {
      return "grpc://" + *address;
    }
  }
  return InvalidArgument(
      "TF_CONFIG names no master: no session_master, no task of this "
      "process in the cluster, no chief and no worker");
}

bool IsLoopbackAddress(std::string_view address) {
  std::string host = HostOf(address);
  if (host == "localhost") return true;
  unsigned char v4[4];
  if (inet_pton(AF_INET, host.c_str(), v4) == 1) return v4[0] == 127;
  unsigned char v6[16];
  if (inet_pton(AF_INET6, host.c_str(), v6) == 1) {
    static const unsigned char kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0,
                                                0, 0, 0, 0, 0, 0, 0, 1};
    return std::equal(v6, v6 + 16, kLoopback);
  }
  return false;
}

}  // namespace dfg
