#include "lib/distributed/master.h"

#include <random>

#include "lib/distributed/cluster_spec.h"
#include "lib/proto/worker.pb.h"

namespace dfg {
namespace {

// A session handle is the only thing that keeps one client from closing,
// running or deleting another's session: drawn from the OS's random source
// each time (a seeded mt19937_64 can be predicted from the handles a
// client sees).
std::string NewHandle() {
  static std::mutex mu;
  static std::random_device rd;
  std::lock_guard<std::mutex> lock(mu);
  const uint64_t hi = rd(), lo = rd();
  return fmt::format("{:016x}", (hi << 32) ^ lo);
}

// The step's feeds, within the step memory limit (a feed may claim a shape
// far bigger than its message: one float_val fills them all).
StatusOr<std::vector<std::pair<std::string, Tensor>>> Feeds(
    const google::protobuf::RepeatedPtrField<tensorflow::NamedTensorProto>&
        feeds,
    int64_t limit) {
  MemoryBudgetRef budget(limit > 0 ? MemoryBudget::New(limit) : nullptr);
  ScopedMemoryBudget scope(budget.get());
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& f : feeds) {
    auto t = Tensor::FromProto(f.tensor());
    if (!t.ok()) {
      return Status(t.status().code(),
                    fmt::format("feed {}: {}", f.name(), t.status().message()));
    }
    out.emplace_back(f.name(), std::move(t).value());
  }
  return out;
}

}  // namespace

Master::Master(WorkerCache* cache, std::string master_task, ThreadPool* pool,
               Worker* local)
    : cache_(cache),
      master_task_(std::move(master_task)),
      pool_(pool),
      local_(local) {}

Master::~Master() { CloseAll(); }

Status Master::Find(const std::string& handle,
                    std::shared_ptr<MasterSession>* session) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) {
    return Aborted("Session {} is not found.", handle);
  }
  *session = it->second.session;
  return Status::Ok();
}

Status Master::CreateSession(const tensorflow::CreateSessionRequest& request,
                             tensorflow::CreateSessionResponse* response) {
  if (request.config().has_cluster_def() &&
      request.config().cluster_def().job_size() > 0) {
    return Unimplemented(
        "dfg's master does not take a cluster_def in the session config "
        "(ClusterSpec propagation); start the servers with --cluster");
  }
  std::string handle = NewHandle();
  DFG_ASSIGN_OR_RETURN(
      std::unique_ptr<MasterSession> session,
      MasterSession::Create(handle, request.graph_def(), request.config(),
                            cache_, master_task_, pool_, local_));
  response->set_session_handle(handle);
  response->set_graph_version(session->graph_version());
  std::lock_guard<std::mutex> lock(mu_);
  sessions_[handle].session = std::move(session);
  return Status::Ok();
}

Status Master::ExtendSession(const tensorflow::ExtendSessionRequest& request,
                             tensorflow::ExtendSessionResponse* response) {
  std::shared_ptr<MasterSession> session;
  DFG_RETURN_IF_ERROR(Find(request.session_handle(), &session));
  int64_t version = 0;
  DFG_RETURN_IF_ERROR(session->Extend(
      request.graph_def(), request.current_graph_version(), &version));
  response->set_new_graph_version(version);
  return Status::Ok();
}

// What a running step reads and writes, alive until its done.
struct Master::StepArgs {
  std::shared_ptr<MasterSession> session;  // open while the step runs
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches, targets;
  std::vector<Tensor> outputs;
};

void Master::RunStep(const tensorflow::RunStepRequest* request,
                     tensorflow::RunStepResponse* response,
                     std::shared_ptr<StepCancellation> cancel,
                     std::function<void(const Status&)> done) {
  if (!request->partial_run_handle().empty()) {
    done(Unimplemented("dfg's master does not run partial runs"));
    return;
  }
  auto args = std::make_shared<StepArgs>();
  if (Status s = Find(request->session_handle(), &args->session); !s.ok()) {
    done(s);
    return;
  }
  auto feeds = Feeds(request->feed(), StepMemoryLimit());
  if (!feeds.ok()) {
    done(feeds.status());
    return;
  }
  args->feeds = std::move(feeds).value();
  args->fetches.assign(request->fetch().begin(), request->fetch().end());
  args->targets.assign(request->target().begin(), request->target().end());
  MasterSession::StepOptions options;
  options.timeout_ms = request->options().timeout_in_ms();
  if (request->options().trace_level() != tensorflow::RunOptions::NO_TRACE) {
    options.stats = response->mutable_metadata()->mutable_step_stats();
  }
  MasterSession* session = args->session.get();
  session->RunAsync(
      &args->feeds, &args->fetches, &args->targets, options, std::move(cancel),
      &args->outputs, [args, response, done = std::move(done)](Status s) {
        if (s.ok()) {
          for (size_t i = 0; i < args->fetches.size(); ++i) {
            auto* t = response->add_tensor();
            t->set_name(args->fetches[i]);
            args->outputs[i].ToProto(t->mutable_tensor(), true);
          }
        }
        // The session may close once the step is over.
        std::shared_ptr<MasterSession> keep = std::move(args->session);
        done(s);
      });
}

Status Master::CloseSession(const tensorflow::CloseSessionRequest& request,
                            tensorflow::CloseSessionResponse*) {
  std::shared_ptr<MasterSession> session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(request.session_handle());
    if (it == sessions_.end()) {
      return Aborted(
          "Session {} is not found. Possibly, this master has "
          "restarted.",
          request.session_handle());
    }
    session = std::move(it->second.session);
    sessions_.erase(it);
  }
  session->Close();
  return Status::Ok();
}

Status Master::ListDevices(const tensorflow::ListDevicesRequest&,
                           tensorflow::ListDevicesResponse* response) {
  DFG_ASSIGN_OR_RETURN(auto devices,
                       DiscoverDevices(cache_, master_task_, 10000));
  for (const auto& d : devices) {
    bool local = TaskOrEmpty(d.name()) == master_task_;
    *(local ? response->add_local_device() : response->add_remote_device()) = d;
  }
  return Status::Ok();
}

Status Master::Reset(const tensorflow::ResetRequest& request,
                     tensorflow::ResetResponse*) {
  CloseAll();
  for (const std::string& task : ClusterTasks(cache_->cluster())) {
    DFG_ASSIGN_OR_RETURN(WorkerStubs * stubs, cache_->Get(task));
    tensorflow::CleanupAllRequest req;
    *req.mutable_container() = request.container();
    tensorflow::CleanupAllResponse resp;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(10));
    Status s = FromGrpcStatus(stubs->stub->CleanupAll(&ctx, req, &resp));
    if (!s.ok()) {
      return Status(s.code(), fmt::format("From {}:\n{}", task, s.message()));
    }
  }
  return Status::Ok();
}

Status Master::MakeCallable(const tensorflow::MakeCallableRequest& request,
                            tensorflow::MakeCallableResponse* response) {
  const auto& o = request.options();
  if (o.tensor_connection_size() > 0) {
    return Unimplemented("dfg's master does not take tensor_connection");
  }
  std::shared_ptr<MasterSession> session;
  DFG_RETURN_IF_ERROR(Find(request.session_handle(), &session));
  Callable c;
  c.feeds.assign(o.feed().begin(), o.feed().end());
  c.fetches.assign(o.fetch().begin(), o.fetch().end());
  c.targets.assign(o.target().begin(), o.target().end());
  c.timeout_ms = o.run_options().timeout_in_ms();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(request.session_handle());
  if (it == sessions_.end()) {
    return Aborted("Session {} is not found.", request.session_handle());
  }
  int64_t handle = it->second.next_callable++;
  it->second.callables[handle] = std::move(c);
  response->set_handle(handle);
  return Status::Ok();
}

void Master::RunCallable(const tensorflow::RunCallableRequest* request,
                         tensorflow::RunCallableResponse* response,
                         std::shared_ptr<StepCancellation> cancel,
                         std::function<void(const Status&)> done) {
  auto args = std::make_shared<StepArgs>();
  Callable c;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(request->session_handle());
    if (it == sessions_.end()) {
      done(Aborted("Session {} is not found.", request->session_handle()));
      return;
    }
    auto cit = it->second.callables.find(request->handle());
    if (cit == it->second.callables.end()) {
      done(InvalidArgument(
          "Attempted to run callable {} that was not created or has been "
          "released.",
          request->handle()));
      return;
    }
    args->session = it->second.session;
    c = cit->second;
  }
  if (request->feed_size() != static_cast<int>(c.feeds.size())) {
    done(InvalidArgument("Expected {} feed tensors, but got {}", c.feeds.size(),
                         request->feed_size()));
    return;
  }
  const int64_t limit = StepMemoryLimit();
  MemoryBudgetRef budget(limit > 0 ? MemoryBudget::New(limit) : nullptr);
  ScopedMemoryBudget scope(budget.get());
  for (int i = 0; i < request->feed_size(); ++i) {
    auto t = Tensor::FromProto(request->feed(i));
    if (!t.ok()) {
      done(t.status());
      return;
    }
    args->feeds.emplace_back(c.feeds[i], std::move(t).value());
  }
  args->fetches = std::move(c.fetches);
  args->targets = std::move(c.targets);
  MasterSession::StepOptions options;
  options.timeout_ms = c.timeout_ms;
  MasterSession* session = args->session.get();
  session->RunAsync(
      &args->feeds, &args->fetches, &args->targets, options, std::move(cancel),
      &args->outputs, [args, response, done = std::move(done)](Status s) {
        if (s.ok()) {
          for (const Tensor& t : args->outputs) {
            t.ToProto(response->add_fetch(), true);
          }
        }
        std::shared_ptr<MasterSession> keep = std::move(args->session);
        done(s);
      });
}

Status Master::ReleaseCallable(
    const tensorflow::ReleaseCallableRequest& request,
    tensorflow::ReleaseCallableResponse*) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(request.session_handle());
  if (it == sessions_.end()) {
    return Aborted("Session {} is not found.", request.session_handle());
  }
  if (it->second.callables.erase(request.handle()) == 0) {
    return InvalidArgument(
        "Attempted to release callable {} that was not created or has "
        "already been released.",
        request.handle());
  }
  return Status::Ok();
}

void Master::CloseAll() {
  std::map<std::string, Entry> sessions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sessions.swap(sessions_);
  }
  for (auto& [handle, entry] : sessions) entry.session->Close();
}

}  // namespace dfg
