#include "lib/distributed/grpc_server.h"

#include <malloc.h>

#include <chrono>
#include <climits>

#include "lib/distributed/cluster_spec.h"
#include "lib/distributed/master.h"
#include "lib/distributed/services.h"

namespace dfg {

struct GrpcServer::Impl {
  std::unique_ptr<Worker> worker;
  std::unique_ptr<Master> master;
  // Master calls that wait on workers (session management, first steps).
  std::unique_ptr<ThreadPool> pool;
  // The worker's RegisterGraph (building executors): a pool of its own, so
  // that masters waiting on the first pool never starve it.
  std::unique_ptr<ThreadPool> worker_pool;
  std::unique_ptr<ServiceSet> worker_service;
  std::unique_ptr<ServiceSet> master_service;
  // Every call of the process, served and made (completion_loop.h).
  std::unique_ptr<CompletionLoop> loop;
  std::unique_ptr<grpc::Server> server;
  bool shut_down = false;
};

GrpcServer::GrpcServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

GrpcServer::~GrpcServer() { Shutdown(); }

const std::string& GrpcServer::task_name() const {
  return impl_->worker->task_name();
}

Worker* GrpcServer::worker() { return impl_->worker.get(); }

StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(
    const ServerOptions& options) {
  const WorkerOptions& w = options.worker;
  if (!HasTask(w.cluster, w.job, w.task)) {
    return InvalidArgument("--job {} --task {}: no such task in the cluster",
                           w.job, w.task);
  }
  std::string listen = options.listen;
  if (listen.empty()) {
    DFG_ASSIGN_OR_RETURN(std::string address,
                         TaskAddress(w.cluster, TaskName(w.job, w.task)));
    listen = "127.0.0.1" + address.substr(address.rfind(':'));
  }
  PrepareGrpcRuntime();
  // gRPC reads a large RecvTensor into many buffers; with glibc's defaults
  // they are fresh mmaps, or heap that is trimmed after every step, whose
  // pages fault in again on the next (about a sixth of the receiver's CPU
  // for a 64 MB tensor). Keep freed memory for reuse, as TensorFlow's
  // allocators do.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
  auto impl = std::make_unique<Impl>();
  impl->worker = std::make_unique<Worker>(w);
  impl->pool = std::make_unique<ThreadPool>(16);
  impl->worker_pool = std::make_unique<ThreadPool>(8);
  impl->master =
      std::make_unique<Master>(impl->worker->cache(), impl->worker->task_name(),
                               impl->pool.get(), impl->worker.get());
  impl->worker_service =
      NewWorkerService(impl->worker.get(), impl->worker_pool.get());
  impl->master_service = NewMasterService(impl->master.get(), impl->pool.get());
  DFG_ASSIGN_OR_RETURN(auto creds, NewServerCredentials(options.tls));
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, creds, &port);
  builder.SetMaxReceiveMessageSize(INT_MAX);
  builder.SetMaxSendMessageSize(INT_MAX);
  // One server per port: never share a port with another process.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES,
                             kFlowControlWindow);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, kMaxFrameSize);
  builder.AddChannelArgument(GRPC_ARG_ENABLE_CHANNELZ, 0);
  builder.RegisterService(impl->worker_service->service());
  builder.RegisterService(impl->master_service->service());
  std::unique_ptr<grpc::ServerCompletionQueue> cq =
      builder.AddCompletionQueue();
  grpc::ServerCompletionQueue* server_cq = cq.get();
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || port == 0) {
    return Unavailable("could not bind {} (address in use or not local?)",
                       listen);
  }
  impl->loop =
      std::make_unique<CompletionLoop>(std::move(cq), options.busy_poll);
  impl->worker->cache()->SetLoop(impl->loop.get());
  impl->worker_service->Serve(impl->loop.get(), server_cq);
  impl->master_service->Serve(impl->loop.get(), server_cq);
  std::unique_ptr<GrpcServer> server(new GrpcServer(std::move(impl)));
  server->bound_address_ =
      listen.substr(0, listen.rfind(':')) + ":" + std::to_string(port);
  return server;
}

void GrpcServer::Shutdown() {
  if (impl_ == nullptr || impl_->shut_down) return;
  impl_->shut_down = true;
  impl_->master->CloseAll();
  // Wakes every parked RecvTensor and running step so that their calls
  // finish before the server waits for them.
  impl_->worker->AbortAll();
  impl_->server->Shutdown(std::chrono::system_clock::now() +
                          std::chrono::seconds(2));
  impl_->worker->AbortAll();
  impl_->server->Wait();
  impl_->loop->Shutdown();
  // Calls still on the pool finish against a loop that starts nothing more
  // (before the loop and the services go).
  impl_->pool.reset();
  impl_->worker_pool.reset();
}

}  // namespace dfg
