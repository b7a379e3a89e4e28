// The master client's wait for its master: a master that is not there is
// reported after the connect timeout with gRPC's reason, and a master that
// comes up while the client waits is found.
#include "lib/distributed/master_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "lib/distributed/cluster_spec.h"
#include "lib/distributed/grpc_server.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

// A loopback port nothing listens on: bind port 0, read it back, release it.
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  socklen_t len = sizeof(addr);
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  close(fd);
  return ntohs(addr.sin_port);
}

tensorflow::GraphDef OneConst() {
  return testing::ParseTextProto<tensorflow::GraphDef>(R"(
    node { name: "c" op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {}
        float_val: 4 } } } })");
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST_CASE("a master that is not there is refused after the connect timeout",
          "[distributed]") {
  const std::string address = "127.0.0.1:" + std::to_string(FreePort());
  MasterClientOptions options;
  options.connect_timeout_ms = 700;
  auto start = std::chrono::steady_clock::now();
  auto client = MasterClient::Create("grpc://" + address, OneConst(), options);
  double seconds = SecondsSince(start);
  REQUIRE_FALSE(client.ok());
  CHECK(client.status().code() == Code::kUnavailable);
  INFO(client.status().message());
  CHECK(client.status().message().find("connection refused") !=
        std::string::npos);
  CHECK(client.status().message().find(address) != std::string::npos);
  // The timeout governs the wait: neither the refusal at once nor a fixed
  // wait of its own.
  CHECK(seconds >= 0.6);
  CHECK(seconds < 3.0);
}

TEST_CASE("a client started before its master connects once it is up",
          "[distributed]") {
  const int port = FreePort();
  auto cluster = ParseClusterSpec("worker=127.0.0.1:" + std::to_string(port));
  REQUIRE(cluster.ok());
  std::unique_ptr<GrpcServer> server;
  Status started;
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    ServerOptions options;
    options.worker.cluster = *cluster;
    options.worker.inter_op_threads = 1;
    options.worker.intra_op_threads = 1;
    auto s = GrpcServer::Start(options);
    if (s.ok()) {
      server = std::move(s).value();
    } else {
      started = s.status();
    }
  });
  MasterClientOptions options;
  options.connect_timeout_ms = 20000;
  auto start = std::chrono::steady_clock::now();
  auto client = MasterClient::Create("grpc://127.0.0.1:" + std::to_string(port),
                                     OneConst(), options);
  double seconds = SecondsSince(start);
  late.join();
  REQUIRE(started.ok());
  INFO(client.status().ToString());
  REQUIRE(client.ok());
  // Found within gRPC's reconnect backoff (at most 1 s) of coming up.
  CHECK(seconds < 5.0);
  std::vector<Tensor> out;
  REQUIRE((*client)->Run({}, {"c"}, {}, &out, 5000, nullptr).ok());
  CHECK(out[0].scalar<float>() == 4.0f);
  REQUIRE((*client)->Close().ok());
}

}  // namespace
}  // namespace dfg
