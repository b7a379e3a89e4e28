// The devices a graph is placed onto (TensorFlow's DeviceSet), and how a user
// names them: `--devices` strings (full, legacy and partial names, shorthands
// such as `cpu:0` or `/job:worker/task:1/gpu:0`) and cluster files
// (`@cluster.json`: jobs → tasks → device counts).
//
// A cluster file is not the ClusterSpec file of `dfg server --cluster @FILE`
// (lib/distributed/cluster_spec.h), though both map job names to task lists:
// a cluster file says which devices each task has and nothing about
// addresses, since placing a graph connects to nothing; a ClusterSpec says
// where each task listens and nothing about its devices, which a running task
// reports itself. Neither can be derived from the other, so the two keep their
// own formats and names.
//
// Every device has a canonical full name,
// `/job:<job>/replica:<r>/task:<t>/device:<TYPE>:<id>`, and can be found by
// that name or by its legacy form (`/job:<job>/replica:<r>/task:<t>/cpu:0`).
// Device types are free-form names; CPU and GPU are the ones dfg's op registry
// has kernels for.
#ifndef DFG_LIB_PLACE_DEVICE_SET_H_
#define DFG_LIB_PLACE_DEVICE_SET_H_

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/device_name.h"

namespace dfg {

struct Device {
  std::string name;  // canonical full name
  ParsedDeviceName parsed;
  const std::string& type() const { return parsed.type; }
};

// TensorFlow's DeviceFactory::DevicePriority as registered by a stock build:
// GPU 210, CPU 60, any other type 50. Higher is preferred.
int DeviceTypePriority(std::string_view type);

class DeviceSet {
 public:
  // Adds a device by its fully specified name (any spelling ParseFullName
  // accepts). Errors (kInvalidArgument): a name that does not parse, lacks a
  // job, replica, task, type or id, or names a device already in the set.
  Status AddDevice(std::string_view full_name);

  // In the order added. The first device is the client device: its address
  // space (job, replica, task) is the local one.
  const std::vector<Device>& devices() const { return devices_; }
  bool empty() const { return devices_.empty(); }
  int size() const { return static_cast<int>(devices_.size()); }

  // The index of the device with this full or legacy name, or -1.
  int FindDeviceByName(std::string_view name) const;

  // Indices of the devices that `spec` matches (IsCompleteSpecification), in
  // the order added.
  std::vector<int> FindMatchingDevices(const ParsedDeviceName& spec) const;

  // The distinct device types sorted by (priority desc, name asc).
  std::vector<std::string> PrioritizedDeviceTypeList() const;

 private:
  std::vector<Device> devices_;
  std::unordered_map<std::string, int> by_name_;  // full and legacy names
};

// The default device set: `/job:localhost/replica:0/task:0/device:CPU:0`.
DeviceSet DefaultDeviceSet();

// One `--devices` value to a canonical full name. Accepts full names, legacy
// names (`/job:a/replica:0/task:0/cpu:0`), partial names whose unset job,
// replica and task default to localhost, 0 and 0 (`/job:worker/task:1/gpu:0`,
// `/device:GPU:1`, `/gpu:1`) and shorthands without the slash (`cpu:0`,
// `GPU:1`, `TPU:0`). The type and the id must be given.
// Errors (kInvalidArgument) name the value.
StatusOr<std::string> ParseDeviceFlag(std::string_view text);

// Builds a device set from a cluster file's JSON text (not TensorFlow's
// ClusterSpec JSON, which lists addresses; see the overview):
//   {"worker": [{"CPU": 1, "GPU": 2}, {"CPU": 1}], "ps": [{"CPU": 1}]}
// Each job lists its tasks in task order; each task maps device types to
// counts. Devices are added job by job in file order, task by task, type by
// type in file order, ids from 0. Errors (kInvalidArgument) start with
// `display_name` and say where in the file the problem is.
StatusOr<DeviceSet> DeviceSetFromClusterJson(std::string_view json_text,
                                             std::string_view display_name);

// The device set `--devices` describes: each value is a device name (see
// ParseDeviceFlag) or `@path` naming a cluster file; values may be mixed.
// No values gives DefaultDeviceSet(). Errors (kInvalidArgument): an invalid
// name, a malformed cluster file, a device listed twice; a cluster file that
// cannot be read gives lib/base/file.h's error (its code, and its message
// after "cannot read cluster file '<path>': ").
StatusOr<DeviceSet> DeviceSetFromFlags(const std::vector<std::string>& values);

}  // namespace dfg

#endif  // DFG_LIB_PLACE_DEVICE_SET_H_
