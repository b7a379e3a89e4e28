#include "lib/distributed/tf_config.h"

#include <string>

#include "lib/distributed/cluster_spec.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

bool Contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// The message of ParseTfConfig's error (empty when it succeeds).
std::string ParseError(std::string_view json) {
  return ParseTfConfig(json).status().message();
}

constexpr std::string_view kReadmeConfig = R"({
  "cluster": {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"],
              "ps": ["host3:2222"]},
  "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc",
  "environment": "cloud", "job": {"ignored": true}})";

TEST_CASE("TF_CONFIG gives the cluster, the task and the rpc layer",
          "[distributed]") {
  auto c = ParseTfConfig(kReadmeConfig);
  REQUIRE(c.ok());
  CHECK(ClusterTasks(c->cluster) ==
        std::vector<std::string>{
            "/job:chief/replica:0/task:0", "/job:ps/replica:0/task:0",
            "/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"});
  CHECK(TaskAddress(c->cluster, "/job:worker/replica:0/task:1").value() ==
        "host2:2222");
  CHECK(c->task_type == "worker");
  CHECK(c->task_index == 1);
  CHECK(c->rpc_layer == "grpc");
  CHECK(c->session_master.empty());
}

TEST_CASE("TF_CONFIG's optional parts may be absent", "[distributed]") {
  auto empty = ParseTfConfig("{}");
  REQUIRE(empty.ok());
  CHECK(empty->cluster.job_size() == 0);
  CHECK(empty->task_type.empty());
  CHECK(!empty->task_index.has_value());
  auto no_task = ParseTfConfig(R"({"cluster": {"worker": ["a:1"]}})");
  REQUIRE(no_task.ok());
  CHECK(no_task->task_type.empty());
  // The index as a string is TF's int("1"); a sparse job as ClusterSpec's.
  auto c = ParseTfConfig(
      R"({"cluster": {"worker": {"1": "a:1", "3": "c:1"}}, "task": {"type":
          "worker", "index": "1"}, "session_master": "b:2"})");
  REQUIRE(c.ok());
  CHECK(c->task_index == 1);
  CHECK(c->session_master == "b:2");
  // An evaluator may stand outside the cluster.
  auto e = ParseTfConfig(
      R"({"cluster": {"worker": ["a:1"]}, "task": {"type": "evaluator",
          "index": 0}})");
  REQUIRE(e.ok());
  CHECK(e->task_type == "evaluator");
}

TEST_CASE("bad TF_CONFIG is an error naming the field", "[distributed]") {
  CHECK(Contains(ParseError("{\"cluster\": "), "TF_CONFIG is not valid JSON"));
  CHECK(Contains(ParseError("[1]"), "must be a JSON object"));
  CHECK(Contains(ParseError(R"({"cluster": ["a:1"]})"),
                 "cluster must be an object"));
  CHECK(Contains(ParseError(R"({"cluster": {"worker": "a:1"}})"),
                 "job 'worker' must list its tasks"));
  CHECK(Contains(ParseError(R"({"cluster": {"worker": ["a"]}})"),
                 "is not HOST:PORT"));
  CHECK(Contains(ParseError(R"({"cluster": {"master": ["a:1"]}})"),
                 "cluster job 'master' is not one of chief, worker"));
  CHECK(Contains(ParseError(R"({"cluster": {"chief": ["a:1", "b:1"]}})"),
                 "at most one 'chief' job"));
  CHECK(Contains(ParseError(R"({"cluster": {"evaluator": ["a:1", "b:1"]}})"),
                 "at most one 'evaluator' job"));
  CHECK(
      Contains(ParseError(R"({"task": "worker"})"), "task must be an object"));
  CHECK(Contains(ParseError(R"({"task": {"index": 0}})"),
                 "task.type is missing"));
  CHECK(Contains(ParseError(R"({"task": {"type": 1, "index": 0}})"),
                 "task.type must be a string"));
  const std::string worker = R"({"cluster": {"worker": ["a:1", "b:1"]}, )";
  CHECK(
      Contains(ParseError(worker + R"("task": {"type": "boss", "index": 0}})"),
               "task.type 'boss' is not one of"));
  CHECK(Contains(ParseError(worker + R"("task": {"type": "ps", "index": 0}})"),
                 "task.type 'ps' is not a job of the cluster (jobs: worker)"));
  CHECK(Contains(ParseError(worker + R"("task": {"type": "worker"}})"),
                 "task.index is missing"));
  CHECK(Contains(
      ParseError(worker + R"("task": {"type": "worker", "index": -1}})"),
      "task.index must be a non-negative integer"));
  CHECK(Contains(
      ParseError(worker + R"("task": {"type": "worker", "index": 1.5}})"),
      "task.index must be a non-negative integer"));
  CHECK(Contains(
      ParseError(worker + R"("task": {"type": "worker", "index": 2}})"),
      "task.index 2 is out of range: job 'worker' has tasks 0 to 1"));
  CHECK(Contains(ParseError(R"({"cluster": {"worker": {"1": "a:1", "3": "b:1"}},
                                "task": {"type": "worker", "index": 3}})"),
                 "task.index 3 is out of range: job 'worker' has tasks 1, 3"));
  CHECK(Contains(ParseError(R"({"rpc_layer": "grpc+verbs"})"),
                 "rpc_layer 'grpc+verbs' is not supported"));
  CHECK(Contains(ParseError(R"({"rpc_layer": 1})"),
                 "rpc_layer must be a string"));
  CHECK(Contains(ParseError(R"({"session_master": ["a"]})"),
                 "session_master must be a string"));
  CHECK(ParseTfConfig("nope").status().code() == Code::kInvalidArgument);
}

std::string Master(std::string_view json) {
  auto c = ParseTfConfig(json);
  REQUIRE(c.ok());
  auto m = TfConfigMaster(*c);
  return m.ok() ? *m : "error: " + m.status().message();
}

TEST_CASE("the master of a TF_CONFIG is TF's, else the chief or worker 0",
          "[distributed]") {
  // TFConfigClusterResolver.master(): this process's own task...
  CHECK(Master(kReadmeConfig) == "grpc://host2:2222");
  // ...or session_master, as given (grpc:// added when it has no protocol).
  CHECK(Master(R"({"session_master": "m:1"})") == "grpc://m:1");
  CHECK(Master(R"({"session_master": "grpc://m:1"})") == "grpc://m:1");
  CHECK(Contains(Master(R"({"session_master": "http://m:1"})"),
                 "is not grpc://HOST:PORT"));
  // Without a task of its own (a driver outside the cluster): the chief,
  // else the lowest worker.
  CHECK(Master(R"({"cluster": {"chief": ["c:1"], "worker": ["w:1"]}})") ==
        "grpc://c:1");
  CHECK(Master(R"({"cluster": {"worker": {"2": "w2:1", "1": "w1:1"}}})") ==
        "grpc://w1:1");
  CHECK(Master(R"({"cluster": {"worker": ["w:1"], "evaluator": ["e:1"]},
                   "task": {"type": "evaluator", "index": 0}})") ==
        "grpc://e:1");
  CHECK(Master(R"({"cluster": {"worker": ["w:1"]},
                   "task": {"type": "evaluator", "index": 0}})") ==
        "grpc://w:1");
  CHECK(Contains(Master(R"({"cluster": {"ps": ["p:1"]}})"),
                 "TF_CONFIG names no master"));
}

TEST_CASE("loopback addresses", "[distributed]") {
  CHECK(IsLoopbackAddress("127.0.0.1:2222"));
  CHECK(IsLoopbackAddress("127.1.2.3:1"));
  CHECK(IsLoopbackAddress("localhost:2222"));
  CHECK(IsLoopbackAddress("[::1]:2222"));
  CHECK(!IsLoopbackAddress("0.0.0.0:2222"));
  CHECK(!IsLoopbackAddress("10.0.0.7:2222"));
  CHECK(!IsLoopbackAddress("dfg-0.dfg:2222"));
  CHECK(!IsLoopbackAddress("[::]:2222"));
  CHECK(!IsLoopbackAddress(":2222"));
}

std::string ResolveError(const ServerTaskFlags& flags,
                         std::optional<std::string_view> tf_config) {
  return ResolveServerTask(flags, tf_config).status().message();
}

TEST_CASE("a server takes its task from TF_CONFIG, flags first",
          "[distributed]") {
  ServerTaskFlags none;
  auto t = ResolveServerTask(none, kReadmeConfig);
  REQUIRE(t.ok());
  CHECK(t->job == "worker");
  CHECK(t->task == 1);
  CHECK(t->listen == "0.0.0.0:2222");  // host2 is not loopback
  CHECK(t->master == "grpc://host2:2222");
  REQUIRE(t->notes.size() == 2);
  CHECK(Contains(t->notes[0],
                 "job 'worker' from TF_CONFIG task.type, task 1 "
                 "from TF_CONFIG task.index"));
  CHECK(Contains(t->notes[1], "every interface"));

  const std::string_view loopback =
      R"({"cluster": {"worker": ["127.0.0.1:5000", "localhost:5001"]},
          "task": {"type": "worker", "index": 1}})";
  auto l = ResolveServerTask(none, loopback);
  REQUIRE(l.ok());
  CHECK(l->listen == "127.0.0.1:5001");
  CHECK(l->notes.size() == 1);

  ServerTaskFlags task0;
  task0.task = 0;
  auto o = ResolveServerTask(task0, loopback);
  REQUIRE(o.ok());
  CHECK(o->task == 0);
  CHECK(Contains(o->notes[0], "task 0 from --task"));
  task0.listen = "127.0.0.1:0";
  CHECK(ResolveServerTask(task0, loopback)->listen == "127.0.0.1:0");

  // --cluster: TF_CONFIG is not read (but said so).
  ServerTaskFlags cluster;
  cluster.cluster = "worker=127.0.0.1:7000";
  auto c = ResolveServerTask(cluster, kReadmeConfig);
  REQUIRE(c.ok());
  CHECK(c->job == "worker");
  CHECK(c->task == 0);
  CHECK(c->listen == "127.0.0.1:7000");
  CHECK(!c->master.has_value());
  CHECK(Contains(c->notes.at(0), "TF_CONFIG not read"));
  CHECK(ResolveServerTask(cluster, std::nullopt)->notes.empty());
}

TEST_CASE("a server without a task to serve is an error", "[distributed]") {
  ServerTaskFlags none;
  CHECK(Contains(ResolveError(none, std::nullopt), "--cluster is required"));
  CHECK(Contains(ResolveError(none, R"({"task": {"type": "worker",
                                        "index": 0}})"),
                 "TF_CONFIG has no cluster"));
  CHECK(Contains(ResolveError(none, R"({"cluster": {"worker": ["a:1"]}})"),
                 "TF_CONFIG has no task"));
  CHECK(Contains(ResolveError(none, R"({"cluster": {"worker": ["a:1"]},
                     "task": {"type": "evaluator", "index": 0}})"),
                 "an evaluator outside the cluster"));
  ServerTaskFlags task3;
  task3.task = 3;
  CHECK(Contains(ResolveError(task3, kReadmeConfig),
                 "--job/--task: task 3 of job 'worker' is not in TF_CONFIG's "
                 "cluster (job 'worker' has tasks 0 to 1)"));
  CHECK(Contains(ResolveError(none, "{"), "TF_CONFIG is not valid JSON"));
  task3.cluster = "worker=a:1";
  CHECK(Contains(ResolveError(task3, std::nullopt),
                 "no such task in the cluster"));
}

TEST_CASE("a server's task as JSON", "[distributed]") {
  auto t = ResolveServerTask(
      {}, R"({"cluster": {"worker": ["127.0.0.1:1", "127.0.0.1:2"],
                         "ps": {"4": "127.0.0.1:3"}},
             "task": {"type": "worker", "index": 0}})");
  REQUIRE(t.ok());
  CHECK(ServerTaskJson(*t) ==
        R"({"cluster":{"ps":{"4":"127.0.0.1:3"},"worker":["127.0.0.1:1",)"
        R"("127.0.0.1:2"]},"listen":"127.0.0.1:1","master":)"
        R"("grpc://127.0.0.1:1","task":{"index":0,"type":"worker"}})"
        "\n");
}

}  // namespace
}  // namespace dfg
