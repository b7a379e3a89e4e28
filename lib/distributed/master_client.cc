#include "lib/distributed/master_client.h"

#include <cctype>
#include <chrono>
#include <map>

#include "lib/distributed/master_service.grpc.pb.h"

namespace dfg {

struct MasterClient::Impl {
  std::string target;
  std::unique_ptr<tensorflow::MasterService::Stub> stub;
  std::string session_handle;
  bool closed = false;
};

namespace {

// Why the last connection attempt failed, in a few words a user can act on,
// from gRPC's status for a call that was not sent ("failed to connect to all
// addresses; last error: UNKNOWN: ipv4:127.0.0.1:1: Failed to connect to
// remote host: Connection refused").
std::string ConnectFailure(const grpc::Status& status) {
  std::string message = status.error_message();
  std::string lower = message;
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  for (const char* known :
       {"connection refused", "no route to host", "network is unreachable",
        "name resolution", "dns resolution failed", "handshake failed",
        "connection reset"}) {
    if (lower.find(known) != std::string::npos) return known;
  }
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return "still connecting (no answer to the connection attempt)";
  }
  return message.empty() ? "not connected" : message;
}

// Waits until the channel to the master is connected. gRPC retries the
// connection by itself with backoff (100 ms growing to 1 s: NewChannel), so
// a master started after the client is found within about a second of
// coming up. After `timeout_ms` a call that does not wait for the
// connection asks the channel why it failed. Error (kUnavailable): the
// master is not there, with gRPC's reason ("connection refused").
Status WaitForMaster(grpc::Channel& channel,
                     tensorflow::MasterService::Stub& stub,
                     const std::string& target, int64_t timeout_ms) {
  auto deadline =
      std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms);
  if (channel.WaitForConnected(deadline)) return Status::Ok();
  grpc::ClientContext ctx;
  ctx.set_wait_for_ready(false);
  ctx.set_deadline(std::chrono::system_clock::now() +
                   std::chrono::milliseconds(500));
  // An empty handle names no session: a master that came up just now
  // answers with an error of its own (not UNAVAILABLE) and runs nothing.
  tensorflow::CloseSessionRequest request;
  tensorflow::CloseSessionResponse response;
  grpc::Status probe = stub.CloseSession(&ctx, request, &response);
  if (probe.error_code() != grpc::StatusCode::UNAVAILABLE &&
      probe.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) {
    return Status::Ok();
  }
  return Unavailable("the master at {} does not answer (within {} ms): {}",
                     target, timeout_ms, ConnectFailure(probe));
}

}  // namespace

MasterClient::MasterClient(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

MasterClient::~MasterClient() { (void)Close(); }

StatusOr<std::unique_ptr<MasterClient>> MasterClient::Create(
    const std::string& target, const tensorflow::GraphDef& graph,
    const MasterClientOptions& options) {
  DFG_ASSIGN_OR_RETURN(std::string address, ParseGrpcTarget(target));
  DFG_ASSIGN_OR_RETURN(auto channel, NewChannel(address, options.tls));
  auto stub = tensorflow::MasterService::NewStub(channel);
  DFG_RETURN_IF_ERROR(
      WaitForMaster(*channel, *stub, target, options.connect_timeout_ms));
  auto impl = std::make_unique<Impl>();
  impl->target = target;
  impl->stub = std::move(stub);
  tensorflow::CreateSessionRequest request;
  *request.mutable_graph_def() = graph;
  request.mutable_config()->set_allow_soft_placement(
      options.allow_soft_placement);
  if (!options.optimize) {
    request.mutable_config()
        ->mutable_graph_options()
        ->mutable_rewrite_options()
        ->set_disable_meta_optimizer(true);
  }
  request.set_target(target);
  tensorflow::CreateSessionResponse response;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  DFG_RETURN_IF_ERROR(
      FromGrpcStatus(impl->stub->CreateSession(&ctx, request, &response)));
  impl->session_handle = response.session_handle();
  return std::unique_ptr<MasterClient>(new MasterClient(std::move(impl)));
}

Status MasterClient::Run(
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
    int64_t timeout_ms, const std::atomic<bool>* cancelled,
    tensorflow::StepStats* stats) {
  tensorflow::RunStepRequest request;
  request.set_session_handle(impl_->session_handle);
  for (const auto& [name, value] : feeds) {
    auto* f = request.add_feed();
    f->set_name(name);
    value.ToProto(f->mutable_tensor(), true);
  }
  for (const std::string& f : fetches) request.add_fetch(f);
  for (const std::string& t : targets) request.add_target(t);
  request.set_store_errors_in_response_body(true);
  if (stats != nullptr) {
    request.mutable_options()->set_trace_level(
        tensorflow::RunOptions::FULL_TRACE);
  }
  grpc::ClientContext ctx;
  if (timeout_ms > 0) {
    request.mutable_options()->set_timeout_in_ms(timeout_ms);
    // The master reports its own DEADLINE_EXCEEDED first; the call's
    // deadline is the backstop for a master that stopped answering.
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::milliseconds(timeout_ms + 2000));
  }
  tensorflow::RunStepResponse response;
  grpc::Status rpc;
  // The call completes on a queue of its own, polled by this thread (as a
  // sync call's is): no other thread wakes up for a step.
  grpc::CompletionQueue cq;
  auto reader = impl_->stub->PrepareAsyncRunStep(&ctx, request, &cq);
  reader->StartCall();
  reader->Finish(&response, &rpc, &rpc);
  // Wakes every 20 ms to look at `cancelled` (raised by a signal handler).
  bool cancel_sent = false;
  while (true) {
    void* tag = nullptr;
    bool ok = false;
    auto next = cq.AsyncNext(
        &tag, &ok,
        std::chrono::system_clock::now() + std::chrono::milliseconds(20));
    if (next == grpc::CompletionQueue::GOT_EVENT && tag == &rpc) break;
    DFG_CHECK(next != grpc::CompletionQueue::SHUTDOWN);
    if (!cancel_sent && cancelled != nullptr && cancelled->load()) {
      cancel_sent = true;
      ctx.TryCancel();
    }
  }
  cq.Shutdown();
  {
    void* tag = nullptr;
    bool ok = false;
    while (cq.Next(&tag, &ok)) {
    }
  }
  if (cancelled != nullptr && cancelled->load() && !rpc.ok()) {
    return Cancelled("Run call was cancelled");
  }
  DFG_RETURN_IF_ERROR(FromGrpcStatus(rpc));
  if (response.status_code() != 0) {
    int code = response.status_code();
    if (code < 0 || code > static_cast<int>(Code::kDataLoss)) code = 2;
    return Status(static_cast<Code>(code), response.status_error_message());
  }
  if (stats != nullptr) *stats = response.metadata().step_stats();
  std::map<std::string, const tensorflow::TensorProto*> by_name;
  for (const auto& t : response.tensor()) by_name[t.name()] = &t.tensor();
  outputs->clear();
  for (const std::string& f : fetches) {
    auto it = by_name.find(f);
    if (it == by_name.end()) {
      return Internal("the master returned no value for fetch {}", f);
    }
    DFG_ASSIGN_OR_RETURN(Tensor t, Tensor::FromProto(*it->second));
    outputs->push_back(std::move(t));
  }
  return Status::Ok();
}

Status MasterClient::Close() {
  if (impl_ == nullptr || impl_->closed) return Status::Ok();
  impl_->closed = true;
  tensorflow::CloseSessionRequest request;
  request.set_session_handle(impl_->session_handle);
  tensorflow::CloseSessionResponse response;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return FromGrpcStatus(impl_->stub->CloseSession(&ctx, request, &response));
}

}  // namespace dfg
