#include "lib/place/device_set.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "lib/base/file.h"
#include "lib/base/strings.h"

namespace dfg {
namespace {

// Generous limits so that a typo in a cluster file cannot exhaust memory.
constexpr int64_t kMaxDevicesPerType = 4096;
constexpr int kMaxDevices = 1 << 16;

constexpr const char* kDeviceExamples =
    "expected e.g. 'cpu:0', 'gpu:1', '/job:worker/task:1/gpu:0' or "
    "'/job:localhost/replica:0/task:0/device:CPU:0'";

// A job or device type name as ParseFullName accepts it.
bool IsValidName(std::string_view name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Cluster files may say "cpu"/"gpu" as the legacy device names do.
std::string NormalizeType(std::string_view type) {
  if (type == "cpu") return "CPU";
  if (type == "gpu") return "GPU";
  return std::string(type);
}

Status AddTask(const nlohmann::ordered_json& task, const std::string& job,
               int task_index, std::string_view file, DeviceSet* set) {
  std::string where =
      fmt::format("{}: job '{}' task {}", file, job, task_index);
  if (!task.is_object()) {
    return InvalidArgument(
        "{}: a task must be an object of device counts such as "
        "{{\"CPU\": 1, \"GPU\": 2}}",
        where);
  }
  for (const auto& [type_key, count] : task.items()) {
    std::string type = NormalizeType(type_key);
    if (!IsValidName(type)) {
      return InvalidArgument("{}: invalid device type '{}'", where, type_key);
    }
    if (!count.is_number_integer() || count.get<int64_t>() < 0 ||
        count.get<int64_t>() > kMaxDevicesPerType) {
      return InvalidArgument(
          "{}: the count of '{}' devices must be an integer from 0 to {}",
          where, type_key, kMaxDevicesPerType);
    }
    int64_t n = count.get<int64_t>();
    if (set->size() + n > kMaxDevices) {
      return InvalidArgument("{}: more than {} devices", file, kMaxDevices);
    }
    for (int64_t id = 0; id < n; ++id) {
      DFG_RETURN_IF_ERROR(set->AddDevice(FullName(job, 0, task_index, type,
                                                  static_cast<int>(id)))
                              .WithPrefix(where + ": "));
    }
  }
  return Status::Ok();
}

}  // namespace

int DeviceTypePriority(std::string_view type) {
  if (type == "GPU") return 210;
  if (type == "CPU") return 60;
  return 50;
}

Status DeviceSet::AddDevice(std::string_view full_name) {
  ParsedDeviceName parsed;
  Device device;
  DFG_ASSIGN_OR_RETURN(device.name, CanonicalFullName(full_name, &parsed));
  device.parsed = parsed;
  if (by_name_.count(device.name) != 0) {
    return InvalidArgument("device '{}' is listed twice", device.name);
  }
  int index = size();
  by_name_.emplace(device.name, index);
  by_name_.emplace(LegacyName(parsed.job, parsed.replica, parsed.task,
                              parsed.type, parsed.id),
                   index);
  devices_.push_back(std::move(device));
  return Status::Ok();
}

int DeviceSet::FindDeviceByName(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? -1 : it->second;
}

std::vector<int> DeviceSet::FindMatchingDevices(
    const ParsedDeviceName& spec) const {
  std::vector<int> out;
  for (int i = 0; i < size(); ++i) {
    if (IsCompleteSpecification(spec, devices_[i].parsed)) out.push_back(i);
  }
  return out;
}

std::vector<std::string> DeviceSet::PrioritizedDeviceTypeList() const {
  std::set<std::string> seen;
  for (const Device& d : devices_) seen.insert(d.type());
  std::vector<std::string> types(seen.begin(), seen.end());
  std::stable_sort(types.begin(), types.end(),
                   [](const std::string& a, const std::string& b) {
                     return DeviceTypePriority(a) > DeviceTypePriority(b);
                   });
  return types;
}

DeviceSet DefaultDeviceSet() {
  DeviceSet set;
  set.AddDevice("/job:localhost/replica:0/task:0/device:CPU:0").IgnoreError();
  return set;
}

StatusOr<std::string> ParseDeviceFlag(std::string_view text) {
  ParsedDeviceName parsed;
  bool ok = false;
  if (StartsWith(text, "/")) {
    ok = ParseFullName(text, &parsed);
  } else if (!text.empty()) {
    // "cpu:0" and "GPU:1" parse as legacy names; "TPU:0" as a device part.
    ok = ParseFullName("/" + std::string(text), &parsed) ||
         ParseFullName("/device:" + std::string(text), &parsed);
  }
  if (!ok) {
    return InvalidArgument("invalid device '{}' ({})", CEscape(text),
                           kDeviceExamples);
  }
  if (!parsed.has_type || !parsed.has_id) {
    return InvalidArgument("device '{}' must name a type and an index ({})",
                           text, kDeviceExamples);
  }
  if (!parsed.has_job) parsed.job = "localhost";
  if (!parsed.has_replica) parsed.replica = 0;
  if (!parsed.has_task) parsed.task = 0;
  return FullName(parsed.job, parsed.replica, parsed.task, parsed.type,
                  parsed.id);
}

StatusOr<DeviceSet> DeviceSetFromClusterJson(std::string_view json_text,
                                             std::string_view display_name) {
  nlohmann::ordered_json root;
  try {
    root = nlohmann::ordered_json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument("{}: not valid JSON: {}", display_name, e.what());
  }
  if (!root.is_object()) {
    return InvalidArgument(
        "{}: a cluster file is a JSON object mapping job names to lists of "
        "tasks, e.g. {{\"worker\": [{{\"CPU\": 1, \"GPU\": 2}}]}}",
        display_name);
  }
  DeviceSet set;
  for (const auto& [job, tasks] : root.items()) {
    if (!IsValidName(job)) {
      return InvalidArgument(
          "{}: invalid job name '{}' (a letter, then letters, digits or '_')",
          display_name, CEscape(job));
    }
    if (!tasks.is_array()) {
      return InvalidArgument("{}: job '{}' must be a list of tasks",
                             display_name, job);
    }
    for (size_t t = 0; t < tasks.size(); ++t) {
      DFG_RETURN_IF_ERROR(
          AddTask(tasks[t], job, static_cast<int>(t), display_name, &set));
    }
  }
  return set;
}

StatusOr<DeviceSet> DeviceSetFromFlags(const std::vector<std::string>& values) {
  if (values.empty()) return DefaultDeviceSet();
  DeviceSet set;
  for (const std::string& value : values) {
    if (StartsWith(value, "@")) {
      std::string path = value.substr(1);
      StatusOr<std::string> text = ReadFileToString(path);
      if (!text.ok()) {
        return text.status().WithPrefix(
            fmt::format("cannot read cluster file '{}': ", path));
      }
      DFG_ASSIGN_OR_RETURN(DeviceSet file_set,
                           DeviceSetFromClusterJson(*text, path));
      for (const Device& d : file_set.devices()) {
        DFG_RETURN_IF_ERROR(set.AddDevice(d.name));
      }
      continue;
    }
    DFG_ASSIGN_OR_RETURN(std::string name, ParseDeviceFlag(value));
    DFG_RETURN_IF_ERROR(set.AddDevice(name));
  }
  return set;
}

}  // namespace dfg
