#include "lib/distributed/master_session.h"

#include <algorithm>
#include <chrono>
#include <unordered_set>

#include "lib/distributed/cluster_spec.h"
#include "lib/distributed/master_step.h"
#include "lib/graph/device_name.h"
#include "lib/graph/graph_import.h"
#include "lib/kernels/rendezvous_interface.h"
#include "lib/partition/partition.h"
#include "lib/proto/worker.pb.h"

namespace dfg {
namespace {

void SetDeadline(grpc::ClientContext* ctx, int64_t timeout_ms) {
  ctx->set_deadline(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(timeout_ms));
}

Status FromTask(const std::string& task, const grpc::Status& rpc) {
  Status s = FromGrpcStatus(rpc);
  if (s.ok()) return s;
  return Status(s.code(), fmt::format("From {}:\n{}", task, s.message()));
}

}  // namespace

StatusOr<std::vector<tensorflow::DeviceAttributes>> DiscoverDevices(
    WorkerCache* cache, const std::string& master_task, int64_t timeout_ms) {
  std::vector<std::string> tasks = ClusterTasks(cache->cluster());
  std::stable_partition(tasks.begin(), tasks.end(),
                        [&](const std::string& t) { return t == master_task; });
  std::vector<tensorflow::DeviceAttributes> devices;
  for (const std::string& task : tasks) {
    DFG_ASSIGN_OR_RETURN(WorkerStubs * stubs, cache->Get(task));
    grpc::ClientContext ctx;
    SetDeadline(&ctx, timeout_ms);
    // A task that just (re)started may still be connecting: wait for it, up
    // to the deadline, instead of failing on the channel's first attempt.
    ctx.set_wait_for_ready(true);
    tensorflow::GetStatusRequest request;
    tensorflow::GetStatusResponse response;
    grpc::Status rpc = stubs->stub->GetStatus(&ctx, request, &response);
    if (rpc.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      return Unavailable("From {}:\nno answer from {} within {} ms", task,
                         stubs->address, timeout_ms);
    }
    DFG_RETURN_IF_ERROR(FromTask(task, rpc));
    for (const auto& d : response.device_attributes()) devices.push_back(d);
  }
  return devices;
}

StatusOr<std::unique_ptr<MasterSession>> MasterSession::Create(
    std::string handle, tensorflow::GraphDef graph,
    tensorflow::ConfigProto config, WorkerCache* cache, std::string master_task,
    ThreadPool* pool, Worker* local) {
  std::unique_ptr<MasterSession> s(new MasterSession());
  s->local_ = local;
  s->pool_ = pool;
  s->handle_ = std::move(handle);
  s->master_task_ = std::move(master_task);
  s->cache_ = cache;
  s->config_ = std::move(config);
  s->graph_ = std::move(graph);
  DFG_ASSIGN_OR_RETURN(s->devices_,
                       DiscoverDevices(cache, s->master_task_, 5000));
  for (const auto& d : s->devices_) {
    DFG_RETURN_IF_ERROR(s->device_set_.AddDevice(d.name()));
    s->incarnations_[d.name()] = d.incarnation();
  }
  if (s->devices_.empty() ||
      TaskOrEmpty(s->devices_[0].name()) != s->master_task_) {
    return Internal("the master's task {} reports no devices", s->master_task_);
  }
  s->client_device_ = s->device_set_.devices()[0].name;
  s->client_incarnation_ = s->devices_[0].incarnation();
  for (const std::string& task : ClusterTasks(cache->cluster())) {
    DFG_ASSIGN_OR_RETURN(WorkerStubs * stubs, cache->Get(task));
    tensorflow::CreateWorkerSessionRequest request;
    request.set_session_handle(s->handle_);
    auto* def = request.mutable_server_def();
    *def->mutable_cluster() = cache->cluster();
    ParsedDeviceName parsed;
    ParseFullName(task, &parsed);
    def->set_job_name(parsed.job);
    def->set_task_index(parsed.task);
    def->set_protocol("grpc");
    request.set_master_task(s->master_task_);
    request.set_master_incarnation(
        static_cast<int64_t>(s->client_incarnation_));
    grpc::ClientContext ctx;
    SetDeadline(&ctx, 10000);
    ctx.set_wait_for_ready(true);
    tensorflow::CreateWorkerSessionResponse response;
    DFG_RETURN_IF_ERROR(FromTask(
        task, stubs->stub->CreateWorkerSession(&ctx, request, &response)));
    s->tasks_.push_back(task);
  }
  return s;
}

MasterSession::~MasterSession() { Close(); }

Status MasterSession::Extend(const tensorflow::GraphDef& nodes,
                             int64_t current_version, int64_t* new_version) {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_version != version_) {
    return FailedPrecondition("Current version is {} but caller expected {}.",
                              version_, current_version);
  }
  std::unordered_set<std::string> names;
  for (const auto& n : graph_.node()) names.insert(n.name());
  for (const auto& n : nodes.node()) {
    if (names.count(n.name())) {
      return InvalidArgument("Node '{}' already exists in the graph", n.name());
    }
  }
  tensorflow::GraphDef merged = graph_;
  for (const auto& n : nodes.node()) *merged.add_node() = n;
  merged.mutable_library()->MergeFrom(nodes.library());
  if (nodes.has_versions()) *merged.mutable_versions() = nodes.versions();
  // Check that the result still imports before accepting it.
  DFG_RETURN_IF_ERROR(ImportGraphDef(merged).status());
  graph_ = std::move(merged);
  *new_version = ++version_;
  state_.reset();
  std::lock_guard<std::mutex> sig_lock(sig_mu_);
  cache_map_.clear();  // a step must not find a signature of the old graph
  return Status::Ok();
}

StatusOr<std::unique_ptr<ExecutionState>> PlaceMasterGraph(
    tensorflow::GraphDef graph, const DeviceSet& devices,
    bool allow_soft_placement, const std::string& master_task) {
  ExecutionStateOptions options;
  options.devices = devices;
  options.allow_soft_placement = allow_soft_placement;
  // TensorFlow's master fills the job, replica and task a node does not ask
  // for with its own, so unplaced nodes stay on the master's task.
  options.default_task = master_task;
  return ExecutionState::Create(std::move(graph), options);
}

PartitionOptions MasterPartitioning(const MasterPartitionOptions& options) {
  PartitionOptions popts;
  popts.by = PartitionBy::kWorker;
  // TensorFlow's MasterSession names the nodes it adds "<prefix>_S<k>".
  std::atomic<int64_t>* counter = options.name_counter;
  popts.new_name = [counter](std::string_view prefix) {
    return fmt::format("{}_S{}", prefix, counter->fetch_add(1));
  };
  popts.get_incarnation = [incarnations = options.incarnations,
                           client =
                               options.client_device](std::string_view device) {
    auto it = incarnations->find(std::string(device));
    if (it != incarnations->end()) return it->second;
    auto canonical = CanonicalizeDeviceName(device, client);
    it = canonical.ok() ? incarnations->find(*canonical) : incarnations->end();
    return it == incarnations->end() ? uint64_t{0} : it->second;
  };
  return popts;
}

StatusOr<std::map<std::string, tensorflow::GraphDef>> MasterPartitions(
    const ExecutionState& state, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets,
    const MasterPartitionOptions& options) {
  PruneOptions client;
  client.feeds = feeds;
  client.fetches = fetches;
  client.targets = targets;
  client.convention = Convention::kRendezvous;
  client.client_device = options.client_device;
  client.client_incarnation = static_cast<int64_t>(options.client_incarnation);
  OptimizeOptions optimize;
  DFG_ASSIGN_OR_RETURN(
      ClientGraph cg,
      state.BuildClientGraph(client, options.optimize ? &optimize : nullptr));
  return PartitionClientGraph(cg.graph.get(), MasterPartitioning(options));
}

Status MasterSession::EnsurePlaced() {
  if (state_ != nullptr) return Status::Ok();
  DFG_ASSIGN_OR_RETURN(
      state_, PlaceMasterGraph(graph_, device_set_,
                               config_.allow_soft_placement(), master_task_));
  std::lock_guard<std::mutex> lock(sig_mu_);
  cache_map_.clear();  // signatures of an older graph version are stale
  return Status::Ok();
}

// The master's own task registers in-process: a call through gRPC would
// wait on the server's pool from a thread of that pool (with every thread
// building a first step at once, none would be left to answer).
Status MasterSession::RegisterPart(
    const WorkerStubs& stubs, const tensorflow::RegisterGraphRequest& request,
    tensorflow::RegisterGraphResponse* response) {
  if (local_ != nullptr && stubs.task == master_task_) {
    return local_->RegisterGraph(request, response);
  }
  grpc::ClientContext ctx;
  SetDeadline(&ctx, 60000);
  return FromTask(stubs.task,
                  stubs.stub->RegisterGraph(&ctx, request, response));
}

StatusOr<std::shared_ptr<MasterSession::Signature>> MasterSession::Build(
    std::vector<std::string> feeds, std::vector<std::string> fetches,
    std::vector<std::string> targets) {
  auto sig = std::make_shared<Signature>();
  MasterPartitionOptions options;
  options.client_device = client_device_;
  options.client_incarnation = client_incarnation_;
  options.incarnations = &incarnations_;
  options.name_counter = &name_counter_;
  options.optimize =
      !config_.graph_options().rewrite_options().disable_meta_optimizer();
  DFG_ASSIGN_OR_RETURN(
      auto partitions,
      MasterPartitions(*state_, feeds, fetches, targets, options));
  for (const std::string& f : feeds) {
    sig->feed_keys.push_back(CreateKey(client_device_, client_incarnation_,
                                       client_device_, f, FrameAndIter()));
  }
  for (const std::string& f : fetches) {
    sig->fetch_keys.push_back(CreateKey(client_device_, client_incarnation_,
                                        client_device_, f, FrameAndIter()));
  }
  sig->feeds = std::move(feeds);
  sig->fetches = std::move(fetches);
  for (auto& [task, def] : partitions) {
    DFG_ASSIGN_OR_RETURN(WorkerStubs * stubs, cache_->Get(task));
    tensorflow::RegisterGraphRequest request;
    request.set_session_handle(handle_);
    request.set_create_worker_session_called(true);
    *request.mutable_graph_def() = std::move(def);
    *request.mutable_graph_options() = config_.graph_options();
    *request.mutable_config_proto() = config_;
    tensorflow::RegisterGraphResponse response;
    Status s = RegisterPart(*stubs, request, &response);
    if (!s.ok()) {
      DeregisterSignature(*sig, handle_, cache_);
      return s;
    }
    sig->parts.push_back(Signature::Part{stubs->task, response.graph_handle(),
                                         stubs->task == master_task_});
  }
  return sig;
}

std::string MasterSession::SignatureKey(std::vector<std::string> feeds,
                                        std::vector<std::string> fetches,
                                        std::vector<std::string> targets) {
  std::sort(feeds.begin(), feeds.end());
  std::sort(fetches.begin(), fetches.end());
  std::sort(targets.begin(), targets.end());
  return dfg::SignatureKey(feeds, fetches, targets);
}

StatusOr<std::shared_ptr<MasterSession::Signature>>
MasterSession::CachedSignature(const std::string& key) {
  std::lock_guard<std::mutex> lock(sig_mu_);
  if (closed_) return Aborted("Session {} is not found.", handle_);
  auto it = cache_map_.find(key);
  if (it == cache_map_.end()) return std::shared_ptr<Signature>();
  return it->second;
}

StatusOr<std::shared_ptr<MasterSession::Signature>> MasterSession::GetSignature(
    std::vector<std::string> feeds, std::vector<std::string> fetches,
    std::vector<std::string> targets) {
  std::sort(feeds.begin(), feeds.end());
  std::sort(fetches.begin(), fetches.end());
  std::sort(targets.begin(), targets.end());
  std::string key = dfg::SignatureKey(feeds, fetches, targets);
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return Aborted("Session {} is not found.", handle_);
  DFG_RETURN_IF_ERROR(EnsurePlaced());
  {
    std::lock_guard<std::mutex> sig_lock(sig_mu_);
    auto it = cache_map_.find(key);
    if (it != cache_map_.end()) return it->second;
  }
  DFG_ASSIGN_OR_RETURN(auto sig, Build(std::move(feeds), std::move(fetches),
                                       std::move(targets)));
  std::lock_guard<std::mutex> sig_lock(sig_mu_);
  cache_map_.emplace(key, sig);
  return sig;
}

void MasterSession::Close() {
  std::map<std::string, std::shared_ptr<Signature>> sigs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::lock_guard<std::mutex> sig_lock(sig_mu_);
    if (closed_) return;
    closed_ = true;
    sigs.swap(cache_map_);
  }
  StopSteps(Cancelled("Session {} was closed", handle_));
  for (auto& [key, sig] : sigs) DeregisterSignature(*sig, handle_, cache_);
  for (const std::string& task : tasks_) {
    auto stubs = cache_->Get(task);
    if (!stubs.ok()) continue;
    tensorflow::DeleteWorkerSessionRequest request;
    request.set_session_handle(handle_);
    tensorflow::DeleteWorkerSessionResponse response;
    grpc::ClientContext ctx;
    SetDeadline(&ctx, 10000);
    (void)(*stubs)->stub->DeleteWorkerSession(&ctx, request, &response);
  }
}

}  // namespace dfg
