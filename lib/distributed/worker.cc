#include "lib/distributed/worker.h"

#include <malloc.h>

#include <random>
#include <thread>

#include "lib/distributed/cluster_spec.h"
#include "lib/distributed/step_stats_proto.h"
#include "lib/exec/partition_runner.h"
#include "lib/exec/step_stats.h"
#include "lib/graph/device_name.h"
#include "lib/graph/graph_import.h"
#include "lib/pipeline/registered_graph.h"

namespace dfg {

struct Worker::GraphItem {
  std::vector<PartitionExecutor> executors;  // one per local device
  // Every node runs at most once per step (no loops, no function calls):
  // the step may start, and go on after a RecvTensor answer, on the
  // calling thread (the completion loop's) without holding it for long.
  bool bounded = false;
};

struct Worker::WorkerSession {
  std::string handle;
  std::map<std::string, std::unique_ptr<ResourceMgr>> resources;  // by device
  std::mutex mu;
  std::map<std::string, std::shared_ptr<GraphItem>> graphs;  // guarded by mu
};

namespace {

// A node that may run many times in a step, or run a function's body.
bool Unbounded(const Node& node, const tensorflow::GraphDef& graph) {
  static const char* const kFunctional[] = {"If",
                                            "StatelessIf",
                                            "While",
                                            "StatelessWhile",
                                            "Case",
                                            "StatelessCase",
                                            "For",
                                            "PartitionedCall",
                                            "StatefulPartitionedCall",
                                            "SymbolicGradient",
                                            "RemoteCall"};
  if (node.IsSwitch() || node.IsMerge() || node.IsEnter() || node.IsExit() ||
      node.IsNextIteration()) {
    return true;
  }
  for (const char* op : kFunctional) {
    if (node.op() == op) return true;
  }
  for (const auto& f : graph.library().function()) {
    if (f.signature().name() == node.op()) return true;
  }
  return false;
}

uint64_t RandomNonZero() {
  static std::mutex mu;
  static std::mt19937_64 gen{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  uint64_t v = 0;
  while (v == 0) v = gen();
  return v;
}

int Threads(int requested) {
  if (requested > 0) return requested;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

}  // namespace

StatusOr<std::shared_ptr<const FilePolicy>> ServerFilePolicy(
    const std::vector<std::string>& dirs) {
  return FilePolicy::Create(
      dirs,
      "a graph sent to dfg server may touch only files under a directory "
      "given with --allow-path DIR");
}

Worker::Worker(WorkerOptions options)
    : options_(std::move(options)),
      task_name_(TaskName(options_.job, options_.task)),
      file_policy_(options_.file_policy),
      cache_(options_.cluster, options_.tls),
      rendezvous_mgr_(task_name_, &cache_) {
  if (file_policy_ == nullptr) {
    file_policy_ = ServerFilePolicy({}).value();
  }
  for (int i = 0; i < std::max(1, options_.num_cpus); ++i) {
    tensorflow::DeviceAttributes d;
    d.set_name(fmt::format("{}/device:CPU:{}", task_name_, i));
    d.set_device_type("CPU");
    d.set_memory_limit(268435456);
    d.mutable_locality();
    d.set_incarnation(RandomNonZero());
    incarnations_[d.name()] = d.incarnation();
    incarnations_[fmt::format("{}/cpu:{}", task_name_, i)] = d.incarnation();
    devices_.push_back(d);
  }
  inter_op_pool_ =
      std::make_unique<ThreadPool>(Threads(options_.inter_op_threads));
  int intra = Threads(options_.intra_op_threads);
  if (intra > 1) intra_op_pool_ = std::make_unique<ThreadPool>(intra);
  auto legacy = std::make_shared<WorkerSession>();
  for (const auto& d : devices_) {
    legacy->resources[d.name()] = std::make_unique<ResourceMgr>();
  }
  sessions_[""] = legacy;
}

Worker::~Worker() {
  rendezvous_mgr_.CleanupAll();
  inter_op_pool_.reset();  // runs what is queued, then joins
}

Status Worker::GetStatus(const tensorflow::GetStatusRequest&,
                         tensorflow::GetStatusResponse* response) {
  for (const auto& d : devices_) *response->add_device_attributes() = d;
  return Status::Ok();
}

Status Worker::CreateWorkerSession(
    const tensorflow::CreateWorkerSessionRequest& request,
    tensorflow::CreateWorkerSessionResponse*) {
  if (request.session_handle().empty()) {
    return InvalidArgument("CreateWorkerSession needs a session handle");
  }
  auto session = std::make_shared<WorkerSession>();
  session->handle = request.session_handle();
  for (const auto& d : devices_) {
    session->resources[d.name()] = std::make_unique<ResourceMgr>();
  }
  std::lock_guard<std::mutex> lock(mu_);
  sessions_[request.session_handle()] = std::move(session);
  return Status::Ok();
}

Status Worker::DeleteWorkerSession(
    const tensorflow::DeleteWorkerSessionRequest& request,
    tensorflow::DeleteWorkerSessionResponse*) {
  if (request.session_handle().empty()) return Status::Ok();
  {
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.erase(request.session_handle());
  }
  // What the session's steps freed goes back to the system, not only to
  // the next step (a one-off peak must not stay resident).
  ReleaseCachedTensorMemory();
  malloc_trim(0);
  return Status::Ok();
}

StatusOr<std::shared_ptr<Worker::WorkerSession>> Worker::FindSession(
    const std::string& handle, bool create_worker_session_called) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = create_worker_session_called ? handle : "";
  auto it = sessions_.find(key);
  if (it == sessions_.end()) {
    return Aborted(
        "Session handle is not found: {}. Possibly this worker (\"{}\") just "
        "restarted.",
        handle, task_name_);
  }
  return it->second;
}

StatusOr<std::shared_ptr<Worker::GraphItem>> Worker::BuildGraphItem(
    const tensorflow::GraphDef& graph, WorkerSession* session) {
  DFG_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, ImportGraphDef(graph));
  auto item = std::make_shared<GraphItem>();
  item->bounded = true;
  for (Node* n : g->op_nodes()) {
    if (Unbounded(*n, graph)) item->bounded = false;
  }
  RegisteredGraphOptions options;
  for (const auto& d : devices_) options.devices.push_back(d.name());
  // TensorFlow's GraphMgr names the nodes it adds "<prefix>_G<k>".
  options.new_name = [this](std::string_view prefix) {
    return fmt::format("{}_G{}", prefix, name_counter_.fetch_add(1));
  };
  options.get_incarnation = [this](std::string_view device) {
    auto it = incarnations_.find(std::string(device));
    return it == incarnations_.end() ? uint64_t{0} : it->second;
  };
  DFG_ASSIGN_OR_RETURN(auto partitions,
                       PartitionRegisteredGraph(g.get(), options));
  for (auto& [device, def] : partitions) {
    DFG_ASSIGN_OR_RETURN(PartitionExecutor executor,
                         CreatePartitionExecutor(
                             def, device, "CPU",
                             session->resources[device].get(), file_policy_));
    item->executors.push_back(std::move(executor));
  }
  return item;
}

Status Worker::RegisterGraph(const tensorflow::RegisterGraphRequest& request,
                             tensorflow::RegisterGraphResponse* response) {
  DFG_ASSIGN_OR_RETURN(std::shared_ptr<WorkerSession> session,
                       FindSession(request.session_handle(),
                                   request.create_worker_session_called()));
  DFG_ASSIGN_OR_RETURN(std::shared_ptr<GraphItem> item,
                       BuildGraphItem(request.graph_def(), session.get()));
  std::string handle = fmt::format("{:016x}", next_handle_++ ^ RandomNonZero());
  std::lock_guard<std::mutex> lock(session->mu);
  session->graphs[handle] = std::move(item);
  response->set_graph_handle(handle);
  return Status::Ok();
}

Status Worker::DeregisterGraph(
    const tensorflow::DeregisterGraphRequest& request,
    tensorflow::DeregisterGraphResponse*) {
  DFG_ASSIGN_OR_RETURN(std::shared_ptr<WorkerSession> session,
                       FindSession(request.session_handle(),
                                   request.create_worker_session_called()));
  std::lock_guard<std::mutex> lock(session->mu);
  if (session->graphs.erase(request.graph_handle()) == 0) {
    return Aborted("Graph handle is not found: {}", request.graph_handle());
  }
  return Status::Ok();
}

StatusOr<std::shared_ptr<Worker::GraphItem>> Worker::FindGraph(
    const tensorflow::RunGraphRequest& request) {
  DFG_ASSIGN_OR_RETURN(std::shared_ptr<WorkerSession> session,
                       FindSession(request.session_handle(),
                                   request.create_worker_session_called()));
  std::lock_guard<std::mutex> lock(session->mu);
  auto it = session->graphs.find(request.graph_handle());
  if (it == session->graphs.end()) {
    return Aborted(
        "Graph handle is not found: {}. Possibly this worker just restarted.",
        request.graph_handle());
  }
  return it->second;
}

// The client-terminated feeds go into the step's table before it starts.
Status Worker::SendFeeds(const tensorflow::RunGraphRequest& request,
                         RemoteRendezvous* rendezvous) {
  for (const auto& send : request.send()) {
    ParsedKey key;
    DFG_RETURN_IF_ERROR(ParseKey(send.name(), &key));
    DFG_ASSIGN_OR_RETURN(Tensor value, Tensor::FromProto(send.tensor()));
    DFG_RETURN_IF_ERROR(rendezvous->Send(key, value, false));
  }
  return Status::Ok();
}

void Worker::RunGraph(const tensorflow::RunGraphRequest* request,
                      tensorflow::RunGraphResponse* response,
                      std::function<void(const Status&)> done) {
  if (request->is_partial()) {
    done(Unimplemented("dfg workers do not run partial runs"));
    return;
  }
  auto found = FindGraph(*request);
  if (!found.ok()) {
    done(found.status());
    return;
  }
  // Held until the step ends, even if the graph is deregistered meanwhile.
  std::shared_ptr<GraphItem> item = std::move(found).value();
  std::shared_ptr<RemoteRendezvous> rendezvous =
      rendezvous_mgr_.Find(request->step_id());
  MemoryBudgetRef budget;
  if (options_.step_memory_limit > 0) {
    budget.reset(MemoryBudget::New(options_.step_memory_limit));
  }
  Status sent;
  {
    ScopedMemoryBudget scope(budget.get());
    sent = SendFeeds(*request, rendezvous.get());
  }
  if (!sent.ok()) {
    rendezvous->StartAbort(sent);
    done(sent);
    return;
  }
  StartExecutors(request, response, std::move(item), std::move(rendezvous),
                 std::move(budget), std::move(done));
}

void Worker::StartExecutors(const tensorflow::RunGraphRequest* request,
                            tensorflow::RunGraphResponse* response,
                            std::shared_ptr<GraphItem> item,
                            std::shared_ptr<RemoteRendezvous> rendezvous,
                            MemoryBudgetRef budget,
                            std::function<void(const Status&)> done) {
  auto step = std::make_shared<StepState>();
  step->rendezvous = rendezvous;
  step->budget = std::move(budget);
  std::shared_ptr<StepStatsCollector> collector;
  if (request->exec_opts().record_timeline() ||
      request->exec_opts().record_costs()) {
    collector = std::make_shared<StepStatsCollector>();
  }
  PartitionStepArgs args;
  args.step_id = request->step_id();
  args.rendezvous = rendezvous.get();
  args.cancelled = &step->cancelled;
  args.inter_op_pool = inter_op_pool_.get();
  args.intra_op_pool = intra_op_pool_.get();
  args.observer = collector.get();
  args.memory_budget = step->budget.get();
  // A RecvTensor answer arrives on the completion loop's thread: the nodes
  // it makes ready go on there (no pool thread woken per step).
  args.continue_on_done_thread = item->bounded;
  // The last executor starts on this thread (its root nodes run here; the
  // executor hands expensive successors to the pool): one thread hand-off
  // less per step. Only a bounded graph: the caller may be the completion
  // loop, which a loop running here would hold for good.
  args.start = item->bounded ? StartOn::kPoolButLast : StartOn::kPool;
  // The step holds `item` (its executors) until it ends, even if the graph
  // is deregistered meanwhile, and `step` (the cancellation flag).
  step->run = std::make_unique<PartitionStep>(item->executors, args);
  // Registered before it starts: an abort from now on stops it (an abort
  // before Start makes the executors stop at their first node).
  std::multimap<int64_t, std::shared_ptr<StepState>>::iterator step_it;
  {
    std::lock_guard<std::mutex> lock(mu_);
    step_it = steps_.emplace(request->step_id(), step);
  }
  PartitionStep* run = step->run.get();
  run->Start([this, request, response, rendezvous, item, step, step_it,
              collector, done](const Status& s) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      steps_.erase(step_it);
    }
    if (collector != nullptr) {
      AppendStepStats(collector->Take(), response->mutable_step_stats());
    }
    FinishStep(request, response, rendezvous, s, done);
  });
}

void Worker::FinishStep(const tensorflow::RunGraphRequest* request,
                        tensorflow::RunGraphResponse* response,
                        std::shared_ptr<RemoteRendezvous> rendezvous,
                        Status status,
                        std::function<void(const Status&)> done) {
  // On an error the step's rendezvous is aborted already.
  if (!status.ok()) {
    done(status);
    return;
  }
  // Every client-terminated _Send has run, so each fetch is already there.
  for (const std::string& name : request->recv_key()) {
    ParsedKey key;
    Status s = ParseKey(name, &key);
    if (!s.ok()) {
      done(s);
      return;
    }
    Status got;
    bool called = false;
    rendezvous->RecvLocalAsync(
        key, [&](const Status& rs, const Tensor& value, bool is_dead) {
          called = true;
          got = rs;
          if (!rs.ok()) return;
          if (is_dead) {
            got = InvalidArgument("The tensor returned for {} was not valid.",
                                  name);
            return;
          }
          auto* recv = response->add_recv();
          recv->set_name(name);
          value.ToProto(recv->mutable_tensor(), true);
        });
    if (!called) {
      rendezvous->StartAbort(Cancelled("RunGraph finished"));
      got = Internal("RunGraph: no value was sent for {}", name);
    }
    if (!got.ok()) {
      done(got);
      return;
    }
  }
  done(Status::Ok());
}

void Worker::AbortStep(int64_t step_id, const Status& status) {
  std::vector<std::shared_ptr<StepState>> steps;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto range = steps_.equal_range(step_id);
    for (auto it = range.first; it != range.second; ++it)
      steps.push_back(it->second);
  }
  // Stop records `status` as the step's error before raising the flag.
  for (auto& step : steps) step->run->Stop(status);
}

void Worker::AbortAll() {
  std::vector<std::shared_ptr<StepState>> steps;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, step] : steps_) steps.push_back(step);
  }
  for (auto& step : steps) {
    step->run->Stop(Cancelled("the server is shutting down"));
  }
  rendezvous_mgr_.CleanupAll();
}

Status Worker::CleanupGraph(const tensorflow::CleanupGraphRequest& request,
                            tensorflow::CleanupGraphResponse*) {
  rendezvous_mgr_.Cleanup(request.step_id());
  return Status::Ok();
}

Status Worker::CleanupAll(const tensorflow::CleanupAllRequest& request,
                          tensorflow::CleanupAllResponse*) {
  std::vector<std::string> containers(request.container().begin(),
                                      request.container().end());
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [handle, session] : sessions_) {
    for (auto& [device, mgr] : session->resources) {
      if (containers.empty()) {
        mgr->Cleanup(mgr->default_container());
      } else {
        for (const std::string& c : containers) mgr->Cleanup(c);
      }
    }
  }
  return Status::Ok();
}

void Worker::RecvTensor(const tensorflow::RecvTensorRequest& request,
                        RecvDone done) {
  ParsedKey key;
  Status s = ParseKey(request.rendezvous_key(), &key);
  if (!s.ok()) {
    done(s, Tensor(), false);
    return;
  }
  auto it = incarnations_.find(std::string(key.src_device()));
  if (it == incarnations_.end()) {
    done(InvalidArgument("RecvTensor: {} is not a device of {}",
                         key.src_device(), task_name_),
         Tensor(), false);
    return;
  }
  if (it->second != key.src_incarnation()) {
    done(Aborted("RecvTensor expects a different device incarnation: {} vs. "
                 "{}. Your worker job (\"{}\") was probably restarted. Check "
                 "your worker job for the reason why it was restarted.",
                 key.src_incarnation(), it->second, task_name_),
         Tensor(), false);
    return;
  }
  rendezvous_mgr_.Find(request.step_id())->RecvLocalAsync(key, std::move(done));
}

void Worker::RecvTensorCancelled(int64_t step_id,
                                 const std::string& rendezvous_key) {
  bool running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running = steps_.contains(step_id);
  }
  if (running) {
    ParsedKey key;
    const std::string receiver =
        ParseKey(rendezvous_key, &key).ok()
            ? fmt::format(" by its receiver {}", key.dst_device())
            : std::string();
    AbortStep(step_id, Cancelled("RecvTensor of step {} was cancelled{} (the "
                                 "task went away or gave up)",
                                 step_id, receiver));
  } else {
    rendezvous_mgr_.Cleanup(step_id);
  }
}

int Worker::num_running_steps() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(steps_.size());
}

int Worker::num_step_rendezvous() { return rendezvous_mgr_.size(); }

int Worker::num_registered_graphs() {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (auto& [handle, session] : sessions_) {
    std::lock_guard<std::mutex> slock(session->mu);
    n += static_cast<int>(session->graphs.size());
  }
  return n;
}

}  // namespace dfg
