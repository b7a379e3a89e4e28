// In-process clusters on loopback ports the OS picks: servers, the master
// client, and raw calls with TensorFlow's method paths.
#include <arpa/inet.h>
#include <grpcpp/generic/generic_stub.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "lib/distributed/cluster_spec.h"
#include "lib/distributed/grpc_server.h"
#include "lib/distributed/master_client.h"
#include "lib/distributed/master_service.grpc.pb.h"
#include "lib/distributed/worker_service.grpc.pb.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

// A free loopback port: bind port 0, read it back, release it.
int PickPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  socklen_t len = sizeof(addr);
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  close(fd);
  return ntohs(addr.sin_port);
}

struct TestCluster {
  explicit TestCluster(int tasks,
                       std::chrono::microseconds busy_poll = kIdlePoll) {
    std::string spec = "worker=";
    for (int i = 0; i < tasks; ++i) {
      addresses.push_back("127.0.0.1:" + std::to_string(PickPort()));
      spec += (i ? "," : "") + addresses.back();
    }
    auto cluster = ParseClusterSpec(spec);
    REQUIRE(cluster.ok());
    for (int i = 0; i < tasks; ++i) {
      ServerOptions options;
      options.worker.cluster = *cluster;
      options.worker.task = i;
      options.worker.inter_op_threads = 2;
      options.worker.intra_op_threads = 1;
      options.busy_poll = busy_poll;
      auto server = GrpcServer::Start(options);
      INFO(server.status().ToString());
      REQUIRE(server.ok());
      servers.push_back(std::move(server).value());
    }
  }
  std::string target() const { return "grpc://" + addresses[0]; }
  std::shared_ptr<grpc::Channel> Channel(int task) const {
    return grpc::CreateChannel(addresses[task],
                               grpc::InsecureChannelCredentials());
  }
  std::vector<std::string> addresses;
  std::vector<std::unique_ptr<GrpcServer>> servers;
};

tensorflow::GraphDef Parse(const std::string& text) {
  return testing::ParseTextProto<tensorflow::GraphDef>(text);
}

std::string Task(int t) {
  return "/job:worker/replica:0/task:" + std::to_string(t) + "/device:CPU:0";
}

std::string FloatConst(const std::string& name, float v, int task,
                       const std::string& control = "") {
  return fmt::format(
      R"(node {{ name: "{}" op: "Const" device: "{}" {}
      attr {{ key: "dtype" value {{ type: DT_FLOAT }} }}
      attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT
        tensor_shape {{}} float_val: {} }} }} }} }})",
      name, Task(task), control.empty() ? "" : "input: \"^" + control + "\"",
      v);
}

std::string Op(const std::string& name, const std::string& op,
               std::vector<std::string> inputs, int task,
               const std::string& type = "DT_FLOAT",
               const std::string& extra = "") {
  std::string in;
  for (const auto& i : inputs) in += "input: \"" + i + "\" ";
  return fmt::format(
      R"(node {{ name: "{}" op: "{}" device: "{}" {}
      attr {{ key: "T" value {{ type: {} }} }} {} }})",
      name, op, Task(task), in, type, extra);
}

// y = x*x + 1 with x and the square on task 1, the sum on task 0.
std::string SquarePlusOne() {
  return fmt::format(
             R"(node {{ name: "x" op: "Placeholder" device: "{}"
      attr {{ key: "dtype" value {{ type: DT_FLOAT }} }} }})",
             Task(1)) +
         Op("sq", "Square", {"x"}, 1) + FloatConst("one", 1, 0) +
         Op("y", "AddV2", {"sq", "one"}, 0);
}

std::unique_ptr<MasterClient> Connect(const TestCluster& c,
                                      const tensorflow::GraphDef& g) {
  auto client = MasterClient::Create(c.target(), g, {});
  INFO(client.status().ToString());
  REQUIRE(client.ok());
  return std::move(client).value();
}

TEST_CASE("a step that crosses two tasks computes through the master",
          "[distributed]") {
  // Servers whose network thread polls (the default) and sleeps at once.
  auto busy_poll = GENERATE(kIdlePoll, std::chrono::microseconds(0));
  INFO("busy poll " << busy_poll.count() << " us");
  TestCluster c(2, busy_poll);
  auto client = Connect(c, Parse(SquarePlusOne()));
  for (float x : {3.0f, -2.0f, 0.5f, 7.0f}) {
    std::vector<Tensor> out;
    Status s = client->Run({{"x", Tensor::Scalar<float>(x)}}, {"y", "sq"}, {},
                           &out, 5000, nullptr);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(out[0].scalar<float>() == x * x + 1);
    CHECK(out[1].scalar<float>() == x * x);
  }
  // The master drops every step's rendezvous on both tasks (CleanupGraph,
  // sent after the answer: wait for it a while).
  for (int task = 0; task < 2; ++task) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (c.servers[task]->worker()->num_step_rendezvous() > 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK(c.servers[task]->worker()->num_step_rendezvous() == 0);
  }
  CHECK(c.servers[1]->worker()->num_registered_graphs() == 1);
  REQUIRE(client->Close().ok());
  CHECK(c.servers[0]->worker()->num_registered_graphs() == 0);
  CHECK(c.servers[1]->worker()->num_registered_graphs() == 0);
}

TEST_CASE("the master names the nodes it adds as TensorFlow's does",
          "[distributed]") {
  TestCluster c(2);
  // c feeds a node on each task: TensorFlow's ReplicateConstantsPass gives
  // each task its own copy; sq crosses from task 1 to task 0 through a
  // _Send/_Recv pair that MasterSession names "<src>_S<k>".
  auto client = Connect(c, Parse(SquarePlusOne() + FloatConst("c", 2, 0) +
                                 Op("a", "AddV2", {"x", "c"}, 1) +
                                 Op("b", "Mul", {"y", "c"}, 0)));
  std::vector<Tensor> out;
  tensorflow::StepStats stats;
  Status s = client->Run({{"x", Tensor::Scalar<float>(3)}}, {"a", "b"}, {},
                         &out, 5000, nullptr, &stats);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(out[0].scalar<float>() == 5);
  CHECK(out[1].scalar<float>() == 20);
  std::vector<std::string> names;
  for (const auto& dev : stats.dev_stats()) {
    for (const auto& n : dev.node_stats()) names.push_back(n.node_name());
  }
  INFO(fmt::format("{}", fmt::join(names, " ")));
  auto count = [&](const std::string& needle) {
    return std::count_if(names.begin(), names.end(), [&](const auto& n) {
      return n.find(needle) != std::string::npos;
    });
  };
  CHECK(count("sq_S") == 2);           // the _Send on task 1, the _Recv on 0
  CHECK(count("c/replicate/_") == 2);  // one copy per task
  CHECK(count("c_S") == 0);            // so nothing is sent for c
  CHECK(count("/_") == 2);             // only the replicas use Graph::NewName
}

TEST_CASE("errors of a step come back with TensorFlow's codes",
          "[distributed]") {
  TestCluster c(2);
  auto client = Connect(c, Parse(SquarePlusOne()));
  std::vector<Tensor> out;
  // Not fed: the Placeholder on task 1 fails.
  Status s = client->Run({}, {"y"}, {}, &out, 5000, nullptr);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK(s.message().find("placeholder") != std::string::npos);
  s = client->Run({}, {"nope"}, {}, &out, 5000, nullptr);
  CHECK(s.code() == Code::kNotFound);
}

TEST_CASE("dead tensors travel between tasks (a cond across tasks)",
          "[distributed]") {
  TestCluster c(2);
  std::string g =
      fmt::format(R"(node {{ name: "p" op: "Placeholder" device: "{}"
      attr {{ key: "dtype" value {{ type: DT_BOOL }} }} }})",
                  Task(0)) +
      FloatConst("v", 5, 0) + Op("sw", "Switch", {"v", "p"}, 1) +
      Op("neg", "Neg", {"sw"}, 0) + Op("id", "Identity", {"sw:1"}, 0) +
      Op("m", "Merge", {"neg", "id"}, 1, "DT_FLOAT",
         R"(attr { key: "N" value { i: 2 } })");
  auto client = Connect(c, Parse(g));
  for (bool p : {true, false}) {
    std::vector<Tensor> out;
    Status s = client->Run({{"p", Tensor::Scalar<bool>(p)}}, {"m"}, {}, &out,
                           5000, nullptr);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(out[0].scalar<float>() == (p ? 5.0f : -5.0f));
  }
}

// while (i < limit) i = i + 1, the body on task 1, the loop on task 0.
std::string CountingLoop(float limit) {
  std::string frame = R"(attr { key: "frame_name" value { s: "f" } })";
  return FloatConst("i0", 0, 0) +
         Op("e", "Enter", {"i0"}, 0, "DT_FLOAT", frame) +
         Op("m", "Merge", {"e", "n"}, 0, "DT_FLOAT",
            R"(attr { key: "N" value { i: 2 } })") +
         FloatConst("lim", limit, 0, "m") +
         Op("less", "Less", {"m", "lim"}, 0) +
         fmt::format(R"(node {{ name: "c" op: "LoopCond" input: "less"
             device: "{}" }})",
                     Task(0)) +
         Op("s", "Switch", {"m", "c"}, 0) + Op("body", "Identity", {"s:1"}, 1) +
         FloatConst("inc", 1, 1, "body") +
         Op("add", "AddV2", {"body", "inc"}, 1) +
         Op("n", "NextIteration", {"add"}, 0) + Op("x", "Exit", {"s"}, 0);
}

TEST_CASE("a while loop whose body runs on another task", "[distributed]") {
  TestCluster c(2);
  auto client = Connect(c, Parse(CountingLoop(10)));
  std::vector<Tensor> out;
  Status s = client->Run({}, {"x"}, {}, &out, 10000, nullptr);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(out[0].scalar<float>() == 10);
}

TEST_CASE("a timeout cancels the step on every task", "[distributed]") {
  TestCluster c(2);
  auto client = Connect(c, Parse(CountingLoop(1e30f)));
  std::vector<Tensor> out;
  auto start = std::chrono::steady_clock::now();
  Status s = client->Run({}, {"x"}, {}, &out, 300, nullptr);
  CHECK(s.code() == Code::kDeadlineExceeded);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  // Both workers drop the step soon after.
  int running = -1;
  for (int i = 0; i < 100 && running != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    running = c.servers[0]->worker()->num_running_steps() +
              c.servers[1]->worker()->num_running_steps();
  }
  CHECK(running == 0);
  // And the session still runs the next step.
  auto ok = Connect(c, Parse(SquarePlusOne()));
  REQUIRE(
      ok->Run({{"x", Tensor::Scalar<float>(2)}}, {"y"}, {}, &out, 5000, nullptr)
          .ok());
}

TEST_CASE("a loop on the master's task alone times out on every step",
          "[distributed]") {
  TestCluster c(2);
  std::string loop = CountingLoop(1e30f);
  for (size_t at = loop.find("task:1"); at != std::string::npos;
       at = loop.find("task:1", at)) {
    loop.replace(at, 6, "task:0");
  }
  auto client = Connect(c, Parse(loop));
  // The second step finds its graphs registered and starts where RunStep
  // arrives: the loop must not hold the server's completion loop.
  for (int step = 0; step < 2; ++step) {
    std::vector<Tensor> out;
    auto start = std::chrono::steady_clock::now();
    Status s = client->Run({}, {"x"}, {}, &out, 300, nullptr);
    CHECK(s.code() == Code::kDeadlineExceeded);
    // The master's own timeout, not the client's backstop (2 s later).
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  }
  auto ok = Connect(c, Parse(SquarePlusOne()));
  std::vector<Tensor> out;
  CHECK(
      ok->Run({{"x", Tensor::Scalar<float>(2)}}, {"y"}, {}, &out, 5000, nullptr)
          .ok());
}

TEST_CASE(
    "TensorFlow's method paths are served, the tensorflow.grpc ones "
    "are not",
    "[distributed]") {
  TestCluster c(1);
  grpc::GenericStub stub(c.Channel(0));
  auto call = [&](const std::string& method, const std::string& bytes) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(5));
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1), response;
    grpc::Status result;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    stub.UnaryCall(&ctx, method, grpc::StubOptions(), &request, &response,
                   [&](grpc::Status s) {
                     std::lock_guard<std::mutex> lock(mu);
                     result = s;
                     done = true;
                     cv.notify_all();
                   });
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
    return result;
  };
  CHECK(call("/tensorflow.WorkerService/GetStatus", "").ok());
  CHECK(call("/tensorflow.MasterService/ListDevices", "").ok());
  CHECK(call("/tensorflow.grpc.WorkerService/GetStatus", "").error_code() ==
        grpc::StatusCode::UNIMPLEMENTED);
  CHECK(call("/tensorflow.WorkerService/Logging", "").error_code() ==
        grpc::StatusCode::UNIMPLEMENTED);
  CHECK(call("/tensorflow.WorkerService/CompleteGroup", "").error_code() ==
        grpc::StatusCode::UNIMPLEMENTED);
  // Bytes that do not parse: an error status, and the server lives on.
  CHECK_FALSE(call("/tensorflow.WorkerService/RunGraph", "\xff\xff\xff").ok());
  CHECK_FALSE(
      call("/tensorflow.WorkerService/RecvTensor", "\x0a\xff\xff").ok());
  CHECK_FALSE(
      call("/tensorflow.MasterService/CreateSession", "\x0a\x05\x01").ok());
  CHECK(call("/tensorflow.WorkerService/GetStatus", "").ok());
}

TEST_CASE("worker errors use TensorFlow's wording", "[distributed]") {
  TestCluster c(1);
  auto stub = tensorflow::WorkerService::NewStub(c.Channel(0));
  auto deadline = [](int ms) {
    return std::chrono::system_clock::now() + std::chrono::milliseconds(ms);
  };
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline(5000));
    tensorflow::RunGraphRequest req;
    req.set_graph_handle("no-such-graph");
    req.set_step_id(7);
    tensorflow::RunGraphResponse resp;
    grpc::Status s = stub->RunGraph(&ctx, req, &resp);
    CHECK(s.error_code() == grpc::StatusCode::ABORTED);
    CHECK(s.error_message().find("Graph handle is not found") !=
          std::string::npos);
  }
  {
    // store_errors_in_response_body: gRPC OK, the status in the body.
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline(5000));
    tensorflow::RunGraphRequest req;
    req.set_graph_handle("no-such-graph");
    req.set_store_errors_in_response_body(true);
    tensorflow::RunGraphResponse resp;
    REQUIRE(stub->RunGraph(&ctx, req, &resp).ok());
    CHECK(resp.status_code() == 10);  // ABORTED
    CHECK(resp.status_error_message().find("Graph handle is not found") !=
          std::string::npos);
  }
  tensorflow::GetStatusResponse status;
  {
    grpc::ClientContext ctx;
    REQUIRE(stub->GetStatus(&ctx, {}, &status).ok());
    REQUIRE(status.device_attributes_size() == 1);
    CHECK(status.device_attributes(0).name() == Task(0));
    CHECK(status.device_attributes(0).device_type() == "CPU");
    CHECK(status.device_attributes(0).incarnation() != 0);
  }
  const uint64_t inc = status.device_attributes(0).incarnation();
  {
    // A key never sent: the call waits until its deadline.
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline(300));
    tensorflow::RecvTensorRequest req;
    req.set_step_id(11);
    req.set_rendezvous_key(CreateKey(Task(0), inc, Task(0), "never", {}));
    tensorflow::RecvTensorResponse resp;
    CHECK(stub->RecvTensor(&ctx, req, &resp).error_code() ==
          grpc::StatusCode::DEADLINE_EXCEEDED);
    grpc::ClientContext cleanup;
    tensorflow::CleanupGraphRequest creq;
    creq.set_step_id(11);
    tensorflow::CleanupGraphResponse cresp;
    CHECK(stub->CleanupGraph(&cleanup, creq, &cresp).ok());
  }
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline(5000));
    tensorflow::RecvTensorRequest req;
    req.set_step_id(12);
    req.set_rendezvous_key(CreateKey(Task(0), inc + 1, Task(0), "t", {}));
    tensorflow::RecvTensorResponse resp;
    grpc::Status s = stub->RecvTensor(&ctx, req, &resp);
    CHECK(s.error_code() == grpc::StatusCode::ABORTED);
    CHECK(s.error_message().find(
              "RecvTensor expects a different device incarnation") !=
          std::string::npos);
  }
  {
    grpc::ClientContext ctx;
    tensorflow::RegisterGraphRequest req;
    req.set_session_handle("unknown");
    req.set_create_worker_session_called(true);
    tensorflow::RegisterGraphResponse resp;
    grpc::Status s = stub->RegisterGraph(&ctx, req, &resp);
    CHECK(s.error_code() == grpc::StatusCode::ABORTED);
    CHECK(s.error_message().find("Session handle is not found") !=
          std::string::npos);
  }
}

TEST_CASE("abandoned RecvTensor calls leave no step rendezvous behind",
          "[distributed]") {
  // Each call names a step the worker never ran and gives up at its
  // deadline; the worker must drop the rendezvous (and its waiter) it made
  // for the step when the call is cancelled.
  TestCluster c(1);
  auto stub = tensorflow::WorkerService::NewStub(c.Channel(0));
  tensorflow::GetStatusResponse status;
  {
    grpc::ClientContext ctx;
    REQUIRE(stub->GetStatus(&ctx, {}, &status).ok());
  }
  const uint64_t inc = status.device_attributes(0).incarnation();
  constexpr int kCalls = 300;
  struct Call {
    grpc::ClientContext ctx;
    tensorflow::RecvTensorRequest req;
    tensorflow::RecvTensorResponse resp;
  };
  std::vector<std::unique_ptr<Call>> calls;
  std::mutex mu;
  std::condition_variable cv;
  int finished = 0, expired = 0;
  for (int i = 0; i < kCalls; ++i) {
    auto call = std::make_unique<Call>();
    call->ctx.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::milliseconds(50));
    call->req.set_step_id(500000 + i);
    call->req.set_rendezvous_key(
        CreateKey(Task(0), inc, Task(0), "never" + std::to_string(i), {}));
    stub->async()->RecvTensor(
        &call->ctx, &call->req, &call->resp, [&](grpc::Status s) {
          std::lock_guard<std::mutex> lock(mu);
          ++finished;
          if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
            ++expired;
          }
          cv.notify_all();
        });
    calls.push_back(std::move(call));
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(60),
                        [&] { return finished == kCalls; }));
  }
  CHECK(expired == kCalls);
  // The server learns of a cancellation a little after the client.
  Worker* worker = c.servers[0]->worker();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (worker->num_step_rendezvous() > 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(worker->num_step_rendezvous() == 0);
  CHECK(worker->num_running_steps() == 0);
}

TEST_CASE("a task that is down is named in the error", "[distributed]") {
  TestCluster c(2);
  c.servers[1]->Shutdown();
  auto client = MasterClient::Create(c.target(), Parse(SquarePlusOne()), {});
  REQUIRE_FALSE(client.ok());
  CHECK(client.status().code() == Code::kUnavailable);
  CHECK(client.status().message().find("/job:worker/replica:0/task:1") !=
        std::string::npos);
}

}  // namespace
}  // namespace dfg
