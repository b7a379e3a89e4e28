#include "lib/distributed/cluster_spec.h"

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>

#include "lib/base/file.h"
#include "lib/base/strings.h"
#include "lib/graph/device_name.h"

namespace dfg {
namespace {

using tensorflow::ClusterDef;
using tensorflow::JobDef;

JobDef* FindOrAddJob(ClusterDef* cluster, const std::string& name) {
  for (JobDef& job : *cluster->mutable_job()) {
    if (job.name() == name) return &job;
  }
  JobDef* job = cluster->add_job();
  job->set_name(name);
  return job;
}

bool ValidJobName(std::string_view name) {
  if (name.empty() || !isalpha(static_cast<unsigned char>(name[0])))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

Status AddTask(ClusterDef* cluster, const std::string& job, int task,
               const std::string& address, std::string_view where) {
  if (!ValidJobName(job)) {
    return InvalidArgument("{}: job name '{}' is not valid", where, job);
  }
  if (address.empty() || address.find(':') == std::string::npos) {
    return InvalidArgument("{}: job '{}' task {}: '{}' is not HOST:PORT", where,
                           job, task, address);
  }
  auto* tasks = FindOrAddJob(cluster, job)->mutable_tasks();
  if (tasks->count(task)) {
    return InvalidArgument("{}: job '{}' lists task {} twice", where, job,
                           task);
  }
  (*tasks)[task] = address;
  return Status::Ok();
}

}  // namespace

StatusOr<ClusterDef> ClusterDefFromClusterSpecJson(std::string_view json,
                                                   std::string_view where) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return InvalidArgument(
        "{}: not a ClusterSpec JSON object ({{\"worker\": [\"host:port\", "
        "...]}})",
        where);
  }
  ClusterDef cluster;
  for (const auto& [job, tasks] : j.items()) {
    if (tasks.is_array()) {
      for (size_t i = 0; i < tasks.size(); ++i) {
        if (!tasks[i].is_string()) {
          return InvalidArgument("{}: job '{}' task {} is not a string", where,
                                 job, i);
        }
        DFG_RETURN_IF_ERROR(AddTask(&cluster, job, static_cast<int>(i),
                                    tasks[i].get<std::string>(), where));
      }
    } else if (tasks.is_object()) {
      for (const auto& [index, address] : tasks.items()) {
        std::optional<int64_t> task = ParseInt64(index);
        if (!task || *task < 0 || *task > INT32_MAX || !address.is_string()) {
          return InvalidArgument("{}: job '{}' has a bad task entry '{}'",
                                 where, job, index);
        }
        DFG_RETURN_IF_ERROR(AddTask(&cluster, job, static_cast<int>(*task),
                                    address.get<std::string>(), where));
      }
    } else {
      return InvalidArgument("{}: job '{}' must list its tasks", where, job);
    }
  }
  if (cluster.job_size() == 0) return InvalidArgument("{}: no jobs", where);
  return cluster;
}

StatusOr<ClusterDef> ParseClusterSpec(std::string_view text) {
  if (!text.empty() && text[0] == '@') {
    std::string path(text.substr(1));
    DFG_ASSIGN_OR_RETURN(std::string json, ReadFileToString(path));
    return ClusterDefFromClusterSpecJson(json, path);
  }
  ClusterDef cluster;
  for (const std::string& part : StrSplit(text, ';')) {
    if (part.empty()) continue;
    size_t eq = part.find('=');
    if (eq == std::string::npos) {
      return InvalidArgument(
          "--cluster: '{}' is not JOB=HOST:PORT[,HOST:PORT...]", part);
    }
    std::string job = part.substr(0, eq);
    if (FindOrAddJob(&cluster, job)->tasks_size() > 0) {
      return InvalidArgument("--cluster: job '{}' is listed twice", job);
    }
    std::vector<std::string> addresses = StrSplit(part.substr(eq + 1), ',');
    for (size_t i = 0; i < addresses.size(); ++i) {
      DFG_RETURN_IF_ERROR(AddTask(&cluster, job, static_cast<int>(i),
                                  addresses[i], "--cluster"));
    }
  }
  if (cluster.job_size() == 0) return InvalidArgument("--cluster: no jobs");
  return cluster;
}

std::string TaskName(std::string_view job, int task) {
  return fmt::format("/job:{}/replica:0/task:{}", job, task);
}

std::vector<std::string> ClusterTasks(const ClusterDef& cluster) {
  std::vector<const JobDef*> jobs;
  for (const JobDef& job : cluster.job()) jobs.push_back(&job);
  std::sort(jobs.begin(), jobs.end(), [](const JobDef* a, const JobDef* b) {
    return a->name() < b->name();
  });
  std::vector<std::string> out;
  for (const JobDef* job : jobs) {
    std::vector<int> tasks;
    for (const auto& [index, address] : job->tasks()) tasks.push_back(index);
    std::sort(tasks.begin(), tasks.end());
    for (int t : tasks) out.push_back(TaskName(job->name(), t));
  }
  return out;
}

StatusOr<std::string> TaskAddress(const ClusterDef& cluster,
                                  std::string_view task_name) {
  ParsedDeviceName parsed;
  if (ParseFullName(task_name, &parsed) && parsed.has_job && parsed.has_task) {
    for (const JobDef& job : cluster.job()) {
      if (job.name() != parsed.job) continue;
      auto it = job.tasks().find(parsed.task);
      if (it != job.tasks().end()) return it->second;
    }
  }
  return InvalidArgument("no task {} in the cluster", task_name);
}

StatusOr<std::string> TaskOfDevice(std::string_view device) {
  ParsedDeviceName parsed;
  if (!ParseFullName(device, &parsed) || !parsed.has_job ||
      !parsed.has_replica || !parsed.has_task) {
    return InvalidArgument("device '{}' does not name a task", device);
  }
  return fmt::format("/job:{}/replica:{}/task:{}", parsed.job, parsed.replica,
                     parsed.task);
}

std::string TaskOrEmpty(std::string_view device) {
  auto task = TaskOfDevice(device);
  return task.ok() ? *task : std::string();
}

bool HasTask(const ClusterDef& cluster, std::string_view job, int task) {
  for (const JobDef& j : cluster.job()) {
    if (j.name() == job) return j.tasks().count(task) > 0;
  }
  return false;
}

}  // namespace dfg
