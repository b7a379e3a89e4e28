// One `dfg server` process (TensorFlow's GrpcServer): a Worker and a Master
// behind one gRPC port, TensorFlow's method paths. Listens on 127.0.0.1
// (the task's port from the cluster) unless told otherwise; no
// authentication: bind it only to a trusted network, or use TLS.
#ifndef DFG_LIB_DISTRIBUTED_GRPC_SERVER_H_
#define DFG_LIB_DISTRIBUTED_GRPC_SERVER_H_

#include <chrono>
#include <memory>
#include <string>

#include "lib/base/status.h"
#include "lib/distributed/completion_loop.h"
#include "lib/distributed/worker.h"

namespace dfg {

struct ServerOptions {
  WorkerOptions worker;  // cluster, job, task, devices, threads, TLS
  // "host:port" to bind; empty: 127.0.0.1 and the task's port in the
  // cluster. Port 0 picks a free port.
  std::string listen;
  TlsOptions tls;  // server certificate and key (SslServerCredentials)
  // How long the network thread polls after an event before it sleeps
  // (completion_loop.h).
  std::chrono::microseconds busy_poll = kIdlePoll;
};

class GrpcServer {
 public:
  // Builds and starts the server. Errors: the job/task is not in the
  // cluster, the address cannot be bound (in use, bad address), TLS files.
  static StatusOr<std::unique_ptr<GrpcServer>> Start(
      const ServerOptions& options);
  ~GrpcServer();

  // "host:port" actually bound (the picked port for port 0).
  const std::string& bound_address() const { return bound_address_; }
  const std::string& task_name() const;
  Worker* worker();

  // Closes the master's sessions, aborts running steps and stops serving.
  void Shutdown();

  struct Impl;

 private:
  explicit GrpcServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::string bound_address_;
};

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_GRPC_SERVER_H_
