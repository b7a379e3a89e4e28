#include "lib/distributed/master_step.h"

#include <grpcpp/alarm.h>

#include <chrono>
#include <random>

#include "lib/proto/worker.pb.h"

namespace dfg {
namespace {

using StepDone = std::function<void(const Status&)>;

// CleanupGraph without waiting for the answer.
void SendCleanup(WorkerCache* cache, const std::string& task, int64_t step) {
  auto stubs = cache->Get(task);
  if (!stubs.ok()) return;
  struct Call : public CqTag {
    grpc::ClientContext context;
    tensorflow::CleanupGraphRequest request;
    tensorflow::CleanupGraphResponse response;
    grpc::Status status;
    std::unique_ptr<
        grpc::ClientAsyncResponseReader<tensorflow::CleanupGraphResponse>>
        reader;
    void OnEvent(bool) override { delete this; }
  };
  auto* call = new Call;
  call->request.set_step_id(step);
  call->context.set_deadline(std::chrono::system_clock::now() +
                             std::chrono::seconds(10));
  tensorflow::WorkerService::Stub* stub = (*stubs)->stub.get();
  bool started = cache->loop()->Start([&](grpc::CompletionQueue* cq) {
    call->reader =
        stub->PrepareAsyncCleanupGraph(&call->context, call->request, cq);
    call->reader->StartCall();
    call->reader->Finish(&call->response, &call->status, call);
  });
  if (!started) delete call;
}

}  // namespace

void StepCancellation::Cancel() {
  std::function<void()> action;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    action = std::move(action_);
  }
  if (action) action();
}

void StepCancellation::OnCancel(std::function<void()> action) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!cancelled_) {
      action_ = std::move(action);
      return;
    }
  }
  action();
}

// One running step: a RunGraph per part (the master's own part called
// directly), finished by whichever part ends last.
struct MasterSession::Step : public std::enable_shared_from_this<Step> {
  struct Part : public CqTag {
    std::shared_ptr<Step> keep;  // the step, while the call is in flight
    grpc::ClientContext context;
    tensorflow::RunGraphRequest request;
    tensorflow::RunGraphResponse response;
    grpc::Status rpc;
    std::unique_ptr<
        grpc::ClientAsyncResponseReader<tensorflow::RunGraphResponse>>
        reader;
    std::string task;
    bool local = false;     // the master's own worker, called directly
    bool finished = false;  // guarded by Step::mu
    void OnEvent(bool) override {
      std::shared_ptr<Step> s = std::move(keep);
      s->PartDone(this, RemoteStatus());
    }
    Status RemoteStatus() const {
      if (!rpc.ok()) {
        Status s = FromGrpcStatus(rpc);
        return Status(s.code(), fmt::format("From {}:\n{}", task, s.message()));
      }
      int code = response.status_code();
      if (code == 0) return Status::Ok();
      if (code < 0 || code > static_cast<int>(Code::kDataLoss)) code = 2;
      return Status(static_cast<Code>(code), response.status_error_message());
    }
  };
  // Fires at the step's deadline (or when cancelled, with !ok).
  struct Timeout : public CqTag {
    std::shared_ptr<Step> step;
    void OnEvent(bool ok) override {
      if (ok) {
        step->Stop(DeadlineExceeded("Timed out waiting for the step ({} ms)",
                                    step->options.timeout_ms));
      }
      delete this;
    }
  };

  MasterSession* session = nullptr;  // Not owned; outlives the step's done
  std::shared_ptr<Signature> sig;
  const std::vector<std::string>* fetches = nullptr;
  StepOptions options;
  std::vector<Tensor>* outputs = nullptr;
  StepDone done;
  int64_t step_id = 0;
  grpc::Alarm alarm;

  bool finished = false;  // guarded by session->steps_mu_

  std::mutex mu;
  int pending = 0;         // guarded by mu
  bool stopped = false;    // guarded by mu
  bool alarm_set = false;  // guarded by mu
  Status first_error;      // guarded by mu
  std::vector<std::unique_ptr<Part>> parts;

  // Cancels the parts not finished yet (outside mu: aborting the local part
  // may finish it on this thread).
  void CancelOthers(const Status& why) {
    std::vector<Part*> open;
    {
      std::lock_guard<std::mutex> lock(mu);
      for (auto& part : parts) {
        if (!part->finished) open.push_back(part.get());
      }
    }
    for (Part* part : open) {
      if (part->local) {
        session->local_->AbortStep(step_id, why);
      } else {
        part->context.TryCancel();
      }
    }
  }
  // Cancellation, the timeout, Close: the first stop wins.
  void Stop(const Status& why) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (stopped || pending == 0) return;
      stopped = true;
      if (first_error.ok()) first_error = why;
    }
    CancelOthers(why);
  }
  void PartDone(Part* part, const Status& s) {
    bool first = false, last = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      part->finished = true;
      if (!s.ok() && first_error.ok()) {
        first_error = s;
        first = true;
      } else if (!s.ok() && !stopped &&
                 first_error.code() == Code::kCancelled &&
                 s.code() != Code::kCancelled) {
        // A cancellation is often the echo of another part's failure (a
        // peer that died aborts the RecvTensor calls it had open): the
        // cause, when it arrives before the step ends, is the better
        // error, as TensorFlow's StatusGroup prefers non-derived errors.
        // (A step stopped on purpose keeps its reason: Ctrl-C, a deadline.)
        first_error = s;
      }
      last = --pending == 0;
    }
    if (first) CancelOthers(s);
    if (last) Finish();
  }
  // The starter is done with the session.
  void Started() {
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      last = --pending == 0;
    }
    if (last) Finish();
  }
  void Finish();
  Status Collect();

  // The steps of StartStep, in order.
  void AddParts(const std::vector<std::pair<std::string, Tensor>>& feeds);
  void ArmTimeout();
  Part* StartRemoteParts();
  void RunLocalPart(Part* part);
  void Track(const std::shared_ptr<StepCancellation>& cancel);
};

// One RunGraph request per part; the client's part carries the feeds and
// asks for the fetches.
void MasterSession::Step::AddParts(
    const std::vector<std::pair<std::string, Tensor>>& feeds) {
  for (const Signature::Part& sig_part : sig->parts) {
    auto part = std::make_unique<Part>();
    part->task = sig_part.task;
    part->local =
        session->local_ != nullptr && sig_part.task == session->master_task_;
    auto& req = part->request;
    req.set_session_handle(session->handle_);
    req.set_create_worker_session_called(true);
    req.set_graph_handle(sig_part.graph_handle);
    req.set_step_id(step_id);
    req.set_store_errors_in_response_body(true);
    if (options.stats != nullptr) {
      req.mutable_exec_opts()->set_record_timeline(true);
    }
    if (sig_part.is_client) {
      for (size_t i = 0; i < sig->feeds.size(); ++i) {
        for (const auto& [name, value] : feeds) {
          if (name != sig->feeds[i]) continue;
          auto* send = req.add_send();
          send->set_name(sig->feed_keys[i]);
          value.ToProto(send->mutable_tensor(), true);
          break;
        }
      }
      for (const std::string& key : sig->fetch_keys) req.add_recv_key(key);
    }
    if (options.timeout_ms > 0) {
      part->context.set_deadline(std::chrono::system_clock::now() +
                                 std::chrono::milliseconds(options.timeout_ms));
    }
    parts.push_back(std::move(part));
  }
}

// The deadline counts from here. A stop before a part started still
// reaches it: a remote call cancelled before it starts is cancelled when it
// does, and the local part is aborted after it starts (RunLocalPart).
void MasterSession::Step::ArmTimeout() {
  if (options.timeout_ms <= 0) return;
  auto* timeout = new Timeout;
  timeout->step = shared_from_this();
  std::lock_guard<std::mutex> lock(mu);
  if (pending > 0) {
    alarm_set = session->cache_->loop()->Start([&](grpc::CompletionQueue* cq) {
      alarm.Set(cq,
                std::chrono::system_clock::now() +
                    std::chrono::milliseconds(options.timeout_ms),
                timeout);
    });
  }
  if (!alarm_set) delete timeout;
}

// The remote parts go first: they start on their tasks while the local part
// runs on this thread. Returns the local part, if any.
MasterSession::Step::Part* MasterSession::Step::StartRemoteParts() {
  Part* local_part = nullptr;
  for (auto& part_ptr : parts) {
    Part* part = part_ptr.get();
    if (part->local) {
      local_part = part;
      continue;
    }
    WorkerStubs* stubs = session->cache_->Get(part->task).value();
    part->keep = shared_from_this();
    bool started =
        session->cache_->loop()->Start([&](grpc::CompletionQueue* cq) {
          part->reader = stubs->stub->PrepareAsyncRunGraph(&part->context,
                                                           part->request, cq);
          part->reader->StartCall();
          part->reader->Finish(&part->response, &part->rpc, part);
        });
    if (!started) {
      part->keep.reset();
      PartDone(part, Cancelled("the server is shutting down"));
    }
  }
  return local_part;
}

void MasterSession::Step::RunLocalPart(Part* part) {
  session->local_->RunGraph(&part->request, &part->response,
                            [step = shared_from_this(), part](const Status& s) {
                              step->PartDone(part, s);
                            });
  // A stop or a remote failure that came before the local part started
  // could not abort it.
  Status failed;
  {
    std::lock_guard<std::mutex> lock(mu);
    failed = first_error;
  }
  if (!failed.ok()) session->local_->AbortStep(step_id, failed);
}

// Makes the running step reachable by Close (StopSteps) and by the
// caller's cancellation.
void MasterSession::Step::Track(
    const std::shared_ptr<StepCancellation>& cancel) {
  bool closed = false;
  {
    std::lock_guard<std::mutex> lock(session->sig_mu_);
    closed = session->closed_;
    std::lock_guard<std::mutex> steps_lock(session->steps_mu_);
    if (!closed && !finished) session->steps_.insert(this);
  }
  if (closed) Stop(Cancelled("Session {} was closed", session->handle_));
  std::weak_ptr<Step> weak = weak_from_this();
  cancel->OnCancel([weak] {
    if (auto s = weak.lock()) s->Stop(Cancelled("Run call was cancelled"));
  });
}

void MasterSession::Step::Finish() {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (alarm_set) alarm.Cancel();
  }
  Status s = first_error.ok() ? Collect() : first_error;
  {
    std::lock_guard<std::mutex> lock(session->steps_mu_);
    finished = true;
    session->steps_.erase(this);
  }
  // The step's state on every task goes after the answer, off the step's
  // time (TensorFlow's master cleans up asynchronously too). The worker and
  // the cache outlive the session, which `done` may release.
  Worker* local = session->local_;
  WorkerCache* cache = session->cache_;
  StepDone d = std::move(done);
  d(s);
  for (const auto& part : parts) {
    if (part->local) {
      tensorflow::CleanupGraphRequest request;
      request.set_step_id(step_id);
      tensorflow::CleanupGraphResponse response;
      (void)local->CleanupGraph(request, &response);
    } else {
      SendCleanup(cache, part->task, step_id);
    }
  }
}

Status MasterSession::Step::Collect() {
  if (options.stats != nullptr) {
    for (auto& part : parts) {
      for (const auto& dev : part->response.step_stats().dev_stats())
        *options.stats->add_dev_stats() = dev;
    }
  }
  outputs->clear();
  for (const std::string& f : *fetches) {
    auto pos = std::lower_bound(sig->fetches.begin(), sig->fetches.end(), f);
    const std::string& key = sig->fetch_keys[pos - sig->fetches.begin()];
    const tensorflow::TensorProto* found = nullptr;
    for (auto& part : parts) {
      for (const auto& recv : part->response.recv()) {
        if (recv.name() == key) found = &recv.tensor();
      }
    }
    if (found == nullptr) {
      return Internal("RunGraph returned no value for fetch {}", f);
    }
    DFG_ASSIGN_OR_RETURN(Tensor t, Tensor::FromProto(*found));
    outputs->push_back(std::move(t));
  }
  return Status::Ok();
}

void DeregisterSignature(const MasterSession::Signature& sig,
                         const std::string& session_handle,
                         WorkerCache* cache) {
  for (const auto& part : sig.parts) {
    auto stubs = cache->Get(part.task);
    if (!stubs.ok()) continue;
    tensorflow::DeregisterGraphRequest request;
    request.set_session_handle(session_handle);
    request.set_create_worker_session_called(true);
    request.set_graph_handle(part.graph_handle);
    tensorflow::DeregisterGraphResponse response;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(10));
    (void)(*stubs)->stub->DeregisterGraph(&ctx, request, &response);
  }
}

int64_t NewStepId() {
  static std::mutex mu;
  static std::mt19937_64 gen{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  return static_cast<int64_t>(gen() & ((uint64_t{1} << 56) - 1));
}

void MasterSession::RunAsync(
    const std::vector<std::pair<std::string, Tensor>>* feeds,
    const std::vector<std::string>* fetches,
    const std::vector<std::string>* targets, const StepOptions& options,
    std::shared_ptr<StepCancellation> cancel, std::vector<Tensor>* outputs,
    StepDone done) {
  std::vector<std::string> feed_names;
  for (const auto& [name, value] : *feeds) feed_names.push_back(name);
  auto cached = CachedSignature(SignatureKey(feed_names, *fetches, *targets));
  if (!cached.ok()) {
    done(cached.status());
    return;
  }
  if (*cached != nullptr) {
    StartStep(std::move(cached).value(), feeds, fetches, options,
              std::move(cancel), outputs, std::move(done));
    return;
  }
  // The first step of a signature builds and registers its graphs: calls
  // that wait for the workers, this task's too, so not on the loop.
  pool_->Schedule([this, feed_names = std::move(feed_names), feeds, fetches,
                   targets, options, cancel = std::move(cancel), outputs,
                   done = std::move(done)]() mutable {
    auto sig = GetSignature(std::move(feed_names), *fetches, *targets);
    if (!sig.ok()) {
      done(sig.status());
      return;
    }
    StartStep(std::move(sig).value(), feeds, fetches, options,
              std::move(cancel), outputs, std::move(done));
  });
}

void MasterSession::StopSteps(const Status& why) {
  std::vector<std::shared_ptr<Step>> steps;
  {
    std::lock_guard<std::mutex> lock(steps_mu_);
    for (Step* step : steps_) {
      if (auto s = step->weak_from_this().lock()) steps.push_back(s);
    }
  }
  for (auto& step : steps) step->Stop(why);
}

void MasterSession::StartStep(
    std::shared_ptr<Signature> sig,
    const std::vector<std::pair<std::string, Tensor>>* feeds,
    const std::vector<std::string>* fetches, const StepOptions& options,
    std::shared_ptr<StepCancellation> cancel, std::vector<Tensor>* outputs,
    StepDone done) {
  for (const Signature::Part& part : sig->parts) {
    // Every task must be reachable by name before any call starts.
    if (Status s = cache_->Get(part.task).status(); !s.ok()) {
      done(s);
      return;
    }
  }
  auto step = std::make_shared<Step>();
  step->session = this;
  step->sig = std::move(sig);
  step->fetches = fetches;
  step->options = options;
  step->outputs = outputs;
  step->done = std::move(done);
  step->step_id = NewStepId();
  step->AddParts(*feeds);
  // One more than the parts: the step cannot finish (and its done drop the
  // last reference to this session) before this function is done with it.
  step->pending = static_cast<int>(step->parts.size()) + 1;
  step->ArmTimeout();
  if (Step::Part* local_part = step->StartRemoteParts()) {
    step->RunLocalPart(local_part);
  }
  step->Track(cancel);
  step->Started();
}

}  // namespace dfg
