#include "lib/distributed/cluster_spec.h"

#include "lib/testing/catch.h"

namespace dfg {
namespace {

TEST_CASE("cluster spec text lists tasks in order per job", "[distributed]") {
  auto c = ParseClusterSpec("worker=127.0.0.1:2222,127.0.0.1:2223;ps=h:1");
  REQUIRE(c.ok());
  CHECK(ClusterTasks(*c) ==
        std::vector<std::string>{"/job:ps/replica:0/task:0",
                                 "/job:worker/replica:0/task:0",
                                 "/job:worker/replica:0/task:1"});
  CHECK(TaskAddress(*c, "/job:worker/replica:0/task:1").value() ==
        "127.0.0.1:2223");
  CHECK(TaskAddress(*c, "/job:worker/task:1/device:CPU:0").value() ==
        "127.0.0.1:2223");
  CHECK(!TaskAddress(*c, "/job:worker/replica:0/task:2").ok());
  CHECK(HasTask(*c, "ps", 0));
  CHECK(!HasTask(*c, "ps", 1));
}

TEST_CASE("cluster spec JSON takes lists and sparse maps", "[distributed]") {
  auto c = ClusterDefFromClusterSpecJson(
      R"({"worker": ["a:1", "b:2"], "ps": {"3": "c:3"}})", "c.json");
  REQUIRE(c.ok());
  CHECK(TaskAddress(*c, "/job:ps/replica:0/task:3").value() == "c:3");
  CHECK(TaskAddress(*c, "/job:worker/replica:0/task:1").value() == "b:2");
}

TEST_CASE("bad cluster specs are errors naming the problem", "[distributed]") {
  CHECK(ParseClusterSpec("worker").status().message().find("JOB=HOST:PORT") !=
        std::string::npos);
  CHECK(ParseClusterSpec("worker=nohostport")
            .status()
            .message()
            .find("is not HOST:PORT") != std::string::npos);
  CHECK(ParseClusterSpec("1job=a:1").status().message().find("not valid") !=
        std::string::npos);
  CHECK(ClusterDefFromClusterSpecJson("[1]", "x.json")
            .status()
            .message()
            .find("x.json") != std::string::npos);
  CHECK(ClusterDefFromClusterSpecJson(R"({"w": [1]})", "x.json")
            .status()
            .code() == Code::kInvalidArgument);
  CHECK(ParseClusterSpec("@/nonexistent/c.json").status().code() != Code::kOk);
}

TEST_CASE("task of a device name", "[distributed]") {
  CHECK(TaskOfDevice("/job:w/replica:0/task:3/device:CPU:0").value() ==
        "/job:w/replica:0/task:3");
  CHECK(!TaskOfDevice("/device:CPU:0").ok());
}

}  // namespace
}  // namespace dfg
