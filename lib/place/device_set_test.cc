#include "lib/place/device_set.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

std::string Flag(const std::string& text) {
  StatusOr<std::string> name = ParseDeviceFlag(text);
  INFO(text << ": " << name.status().ToString());
  REQUIRE(name.ok());
  return *name;
}

std::vector<std::string> Names(const DeviceSet& set) {
  std::vector<std::string> names;
  for (const Device& d : set.devices()) names.push_back(d.name);
  return names;
}

TEST_CASE("device flags accept shorthands, legacy, partial and full names",
          "[place]") {
  const std::string local = "/job:localhost/replica:0/task:0/device:";
  CHECK(Flag("cpu:0") == local + "CPU:0");
  CHECK(Flag("gpu:1") == local + "GPU:1");
  CHECK(Flag("GPU:3") == local + "GPU:3");
  CHECK(Flag("TPU:0") == local + "TPU:0");
  CHECK(Flag("/gpu:2") == local + "GPU:2");
  CHECK(Flag("/device:GPU:1") == local + "GPU:1");
  CHECK(Flag("/job:worker/task:1/gpu:0") ==
        "/job:worker/replica:0/task:1/device:GPU:0");
  CHECK(Flag("/job:ps/replica:2/task:3/cpu:1") ==
        "/job:ps/replica:2/task:3/device:CPU:1");
  CHECK(Flag(local + "CPU:7") == local + "CPU:7");
}

TEST_CASE("invalid device flags are errors naming the value", "[place]") {
  for (const char* bad : {"", "cpu", "gpu:x", "/job:1/cpu:0", "/foo:bar",
                          "/device:GPU:*", "cpu:0/extra"}) {
    StatusOr<std::string> name = ParseDeviceFlag(bad);
    INFO(bad);
    REQUIRE_FALSE(name.ok());
    CHECK(name.status().code() == Code::kInvalidArgument);
    CHECK_THAT(name.status().message(), Contains(std::string("'") + bad));
  }
}

TEST_CASE("no device flags give one CPU", "[place]") {
  StatusOr<DeviceSet> set = DeviceSetFromFlags({});
  REQUIRE(set.ok());
  CHECK(Names(*set) == std::vector<std::string>{
                           "/job:localhost/replica:0/task:0/device:CPU:0"});
}

TEST_CASE("a device is found by its full and its legacy name", "[place]") {
  StatusOr<DeviceSet> set = DeviceSetFromFlags({"cpu:0", "gpu:1"});
  REQUIRE(set.ok());
  CHECK(set->FindDeviceByName("/job:localhost/replica:0/task:0/device:GPU:1") ==
        1);
  CHECK(set->FindDeviceByName("/job:localhost/replica:0/task:0/gpu:1") == 1);
  CHECK(set->FindDeviceByName("/job:localhost/replica:0/task:0/cpu:0") == 0);
  CHECK(set->FindDeviceByName("/device:GPU:1") == -1);
}

TEST_CASE("a device listed twice is an error", "[place]") {
  StatusOr<DeviceSet> set = DeviceSetFromFlags({"cpu:0", "/cpu:0"});
  REQUIRE_FALSE(set.ok());
  CHECK_THAT(set.status().message(), Contains("listed twice"));
}

TEST_CASE("device types are prioritized GPU, CPU, then by name", "[place]") {
  StatusOr<DeviceSet> set =
      DeviceSetFromFlags({"TPU:0", "cpu:0", "FOO:0", "gpu:0", "cpu:1"});
  REQUIRE(set.ok());
  CHECK(set->PrioritizedDeviceTypeList() ==
        std::vector<std::string>{"GPU", "CPU", "FOO", "TPU"});
  CHECK(DeviceTypePriority("GPU") == 210);
  CHECK(DeviceTypePriority("CPU") == 60);
  CHECK(DeviceTypePriority("TPU") == 50);
}

TEST_CASE("partial specs match the devices they describe", "[place]") {
  StatusOr<DeviceSet> set = DeviceSetFromFlags(
      {"/job:worker/task:0/cpu:0", "/job:worker/task:1/gpu:0",
       "/job:worker/task:1/cpu:0", "/job:ps/task:0/cpu:0"});
  REQUIRE(set.ok());
  auto match = [&](const char* spec) {
    ParsedDeviceName parsed;
    REQUIRE(ParseFullName(spec, &parsed));
    return set->FindMatchingDevices(parsed);
  };
  CHECK(match("/job:worker") == std::vector<int>{0, 1, 2});
  CHECK(match("/job:worker/task:1") == std::vector<int>{1, 2});
  CHECK(match("/device:CPU:*") == std::vector<int>{0, 2, 3});
  CHECK(match("/gpu:0") == std::vector<int>{1});
}

TEST_CASE("a cluster file lists jobs, tasks and device counts", "[place]") {
  StatusOr<DeviceSet> set = DeviceSetFromClusterJson(
      R"({"worker": [{"CPU": 1, "GPU": 2}, {"CPU": 1}], "ps": [{"cpu": 1}]})",
      "cluster.json");
  INFO(set.status().ToString());
  REQUIRE(set.ok());
  CHECK(Names(*set) == std::vector<std::string>{
                           "/job:worker/replica:0/task:0/device:CPU:0",
                           "/job:worker/replica:0/task:0/device:GPU:0",
                           "/job:worker/replica:0/task:0/device:GPU:1",
                           "/job:worker/replica:0/task:1/device:CPU:0",
                           "/job:ps/replica:0/task:0/device:CPU:0",
                       });
}

TEST_CASE("malformed cluster files are errors saying where", "[place]") {
  struct Case {
    const char* json;
    const char* phrase;
  };
  for (const Case& c : std::vector<Case>{
           {"[1]", "a cluster file is a JSON object"},
           {"{\"worker\": {}}", "job 'worker' must be a list of tasks"},
           {"{\"1job\": []}", "invalid job name '1job'"},
           {"{\"w\": [3]}", "job 'w' task 0: a task must be an object"},
           {"{\"w\": [{\"CPU\": -1}]}", "must be an integer from 0"},
           {"{\"w\": [{\"CPU\": 1.5}]}", "must be an integer from 0"},
           {"{\"w\": [{}, {\"G-PU\": 1}]}", "task 1: invalid device type"},
           {"{\"w\": [", "cluster.json: not valid JSON"},
       }) {
    StatusOr<DeviceSet> set = DeviceSetFromClusterJson(c.json, "cluster.json");
    INFO(c.json);
    REQUIRE_FALSE(set.ok());
    CHECK(set.status().code() == Code::kInvalidArgument);
    CHECK_THAT(set.status().message(), Contains(c.phrase));
  }
}

TEST_CASE("@file device flags read cluster files", "[place]") {
  auto path = std::filesystem::temp_directory_path() / "dfg_place_cluster.json";
  {
    std::ofstream out(path);
    out << R"({"worker": [{"GPU": 1}]})";
  }
  StatusOr<DeviceSet> set = DeviceSetFromFlags({"cpu:0", "@" + path.string()});
  std::filesystem::remove(path);
  REQUIRE(set.ok());
  CHECK(Names(*set) ==
        std::vector<std::string>{"/job:localhost/replica:0/task:0/device:CPU:0",
                                 "/job:worker/replica:0/task:0/device:GPU:0"});
  StatusOr<DeviceSet> missing = DeviceSetFromFlags({"@/nonexistent/c.json"});
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.status().message(),
             Contains("cannot read cluster file '/nonexistent/c.json'"));
}

}  // namespace
}  // namespace dfg
