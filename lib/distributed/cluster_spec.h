// A cluster: TensorFlow's ClusterSpec (jobs, each a list of "host:port"
// tasks) as ClusterDef, read from `--cluster` text or a ClusterSpec file
// (`--cluster @FILE`, TensorFlow's ClusterSpec JSON), and the task names the
// distributed runtime uses ("/job:J/replica:0/task:T").
//
// A ClusterSpec file is not the cluster file of `--devices @FILE`
// (lib/place/device_set.h), though both map job names to task lists: a
// ClusterSpec says where each task listens and nothing about its devices
// (every task reports those itself when asked); a cluster file says which
// devices each task has and nothing about addresses (placement never connects
// to anything). Neither can be derived from the other, so each keeps its own
// format, the one its users already write: TensorFlow's for the ClusterSpec.
#ifndef DFG_LIB_DISTRIBUTED_CLUSTER_SPEC_H_
#define DFG_LIB_DISTRIBUTED_CLUSTER_SPEC_H_

#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/proto/cluster.pb.h"

namespace dfg {

// `--cluster` text: "JOB=HOST:PORT,HOST:PORT[;JOB2=...]", tasks numbered
// from 0 in order; or "@FILE" naming a ClusterSpec file, TensorFlow's
// ClusterSpec JSON ({"worker": ["h:p", ...]} or, sparse,
// {"worker": {"1": "h:p"}}). Errors (kInvalidArgument) name the job or the
// file; a file that cannot be read gives lib/base/file.h's errors.
StatusOr<tensorflow::ClusterDef> ParseClusterSpec(std::string_view text);
// The ClusterSpec JSON `json`; errors start with `where` (the file name).
StatusOr<tensorflow::ClusterDef> ClusterDefFromClusterSpecJson(
    std::string_view json, std::string_view where);

// "/job:<job>/replica:0/task:<task>".
std::string TaskName(std::string_view job, int task);

// Every task of the cluster, jobs in name order, tasks in index order.
std::vector<std::string> ClusterTasks(const tensorflow::ClusterDef& cluster);

// The "host:port" of a task name. Error (kInvalidArgument): no such task.
StatusOr<std::string> TaskAddress(const tensorflow::ClusterDef& cluster,
                                  std::string_view task_name);

// The task ("/job:J/replica:R/task:T") of a full device name.
// Error (kInvalidArgument): the name lacks a job, replica or task.
StatusOr<std::string> TaskOfDevice(std::string_view device);

// TaskOfDevice, or "" when the name lacks a task.
std::string TaskOrEmpty(std::string_view device);

// True when `job` has task `task` in the cluster.
bool HasTask(const tensorflow::ClusterDef& cluster, std::string_view job,
             int task);

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_CLUSTER_SPEC_H_
