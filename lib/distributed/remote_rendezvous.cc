#include "lib/distributed/remote_rendezvous.h"

#include "lib/distributed/cluster_spec.h"
#include "lib/distributed/tensor_coding.h"
#include "lib/proto/worker.pb.h"

namespace dfg {

// One RecvTensor call, completed on the cache's loop.
struct RemoteRendezvous::Call : public CqTag {
  grpc::ClientContext context;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;
  grpc::Status status;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
  std::shared_ptr<RemoteRendezvous> self;
  std::string task;
  DoneCallback done;

  void OnEvent(bool) override {
    std::shared_ptr<RemoteRendezvous> r = std::move(self);
    Status aborted;
    {
      std::lock_guard<std::mutex> lock(r->mu_);
      r->calls_.erase(this);
      aborted = r->aborted_;
    }
    Tensor value;
    bool is_dead = false;
    Status s = FromGrpcStatus(status);
    if (!aborted.ok()) {
      s = aborted;
    } else if (!s.ok()) {
      s = Status(s.code(), fmt::format("From {}:\n{}", task, s.message()));
    } else {
      s = DecodeRecvTensorResponse(&response, &value, &is_dead);
    }
    DoneCallback d = std::move(done);
    delete this;
    d(s, value, is_dead);
  }
};

RemoteRendezvous::RemoteRendezvous(int64_t step_id, std::string local_task,
                                   WorkerCache* cache)
    : step_id_(step_id), local_task_(std::move(local_task)), cache_(cache) {}

RemoteRendezvous::~RemoteRendezvous() = default;

Status RemoteRendezvous::Send(const ParsedKey& key, const Tensor& value,
                              bool is_dead) {
  return local_.Send(key, value, is_dead);
}

void RemoteRendezvous::RecvLocalAsync(const ParsedKey& key, DoneCallback done) {
  local_.RecvAsync(key, std::move(done));
}

void RemoteRendezvous::RecvAsync(const ParsedKey& key, DoneCallback done) {
  auto task = TaskOfDevice(key.src_device());
  if (task.ok() && *task == local_task_) {
    local_.RecvAsync(key, std::move(done));
    return;
  }
  RecvRemote(key, std::move(done));
}

void RemoteRendezvous::RecvRemote(const ParsedKey& key, DoneCallback done) {
  auto stubs = cache_->Get(std::string(key.src_device()));
  if (!stubs.ok()) {
    done(stubs.status(), Tensor(), false);
    return;
  }
  auto* call = new Call;
  tensorflow::RecvTensorRequest request;
  request.set_step_id(step_id_);
  request.set_rendezvous_key(key.FullKey());
  request.set_dma_ok(false);
  std::string bytes = request.SerializeAsString();
  grpc::Slice slice(bytes);
  call->request = grpc::ByteBuffer(&slice, 1);
  call->task = (*stubs)->task;
  call->done = std::move(done);
  grpc::GenericStub* generic = (*stubs)->generic.get();
  CompletionLoop* loop = cache_->loop();
  Status refused;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!aborted_.ok()) {
      refused = aborted_;
    } else {
      call->self = shared_from_this();
      // Under mu_, so that StartAbort cancels it once started.
      bool started = loop->Start([&](grpc::CompletionQueue* cq) {
        call->reader = generic->PrepareUnaryCall(
            &call->context, kRecvTensorMethod, call->request, cq);
        call->reader->StartCall();
        call->reader->Finish(&call->response, &call->status, call);
      });
      if (started) {
        calls_.insert(call);
      } else {
        call->self.reset();
        refused = Cancelled("the server is shutting down");
      }
    }
  }
  if (!refused.ok()) {
    DoneCallback d = std::move(call->done);
    delete call;
    d(refused, Tensor(), false);
  }
}

void RemoteRendezvous::StartAbort(const Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (aborted_.ok()) aborted_ = status;
    for (Call* call : calls_) call->context.TryCancel();
  }
  local_.StartAbort(status);
}

RendezvousMgr::RendezvousMgr(std::string local_task, WorkerCache* cache)
    : local_task_(std::move(local_task)), cache_(cache) {}

std::shared_ptr<RemoteRendezvous> RendezvousMgr::Find(int64_t step_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = table_[step_id];
  if (slot == nullptr) {
    slot = std::make_shared<RemoteRendezvous>(step_id, local_task_, cache_);
  }
  return slot;
}

void RendezvousMgr::Cleanup(int64_t step_id) {
  std::shared_ptr<RemoteRendezvous> r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = table_.find(step_id);
    if (it == table_.end()) return;
    r = std::move(it->second);
    table_.erase(it);
  }
  r->StartAbort(Cancelled("Cleanup {}", step_id));
}

int RendezvousMgr::size() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(table_.size());
}

void RendezvousMgr::CleanupAll() {
  std::map<int64_t, std::shared_ptr<RemoteRendezvous>> table;
  {
    std::lock_guard<std::mutex> lock(mu_);
    table.swap(table_);
  }
  for (auto& [step, r] : table) r->StartAbort(Cancelled("Cleanup {}", step));
}

}  // namespace dfg
