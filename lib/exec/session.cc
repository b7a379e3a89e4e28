#include "lib/exec/session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "lib/base/progress.h"
#include "lib/base/strings.h"
#include "lib/exec/call_frame.h"
#include "lib/exec/feed_check.h"
#include "lib/exec/partition_runner.h"
#include "lib/exec/rendezvous.h"
#include "lib/exec/thread_pool.h"
#include "lib/graph/device_name.h"
#include "lib/graph/graph_import.h"
#include "lib/graph/op_registry.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/unknown_op.h"
#include "lib/partition/partition.h"
#include "lib/pipeline/execution_state.h"
#include "lib/place/device_set.h"

namespace dfg {
namespace {

// Everything built for one (feeds, fetches, targets) signature.
struct Signature {
  std::vector<std::string> feeds, fetches, targets;  // sorted
  // A step of it may write variables: the session's write epoch moves on.
  bool writes_resources = false;
  // Built with variables frozen at write epoch `epoch`: stale after it.
  bool frozen = false;
  int64_t epoch = 0;
  std::vector<DataType> arg_types, ret_types;
  std::vector<PartitionExecutor> executors;
  std::map<std::string, GraphDef> partitions;
  int64_t num_nodes = 0;  // in all partitions
  // Holds an op that may wait for another node of the step: with
  // inter_op_threads 0, its steps get the inter-op pool.
  bool has_waiting_ops = false;
};

// From this many nodes a step is a progress stage.
constexpr int64_t kRunStageMinNodes = 10000;

// Kernels that block until another node of the step (or another step) acts:
// run inline, one thread, such a node waiting for a node not yet run would
// wait for ever.
bool MayWait(const std::string& op) {
  static const auto* ops =
      new std::unordered_set<std::string>{"Stage",
                                          "Unstage",
                                          "StagePeek",
                                          "MapStage",
                                          "MapUnstage",
                                          "MapUnstageNoKey",
                                          "MapPeek",
                                          "OrderedMapStage",
                                          "OrderedMapUnstage",
                                          "OrderedMapUnstageNoKey",
                                          "OrderedMapPeek",
                                          "AccumulatorTakeGradient",
                                          "SparseAccumulatorTakeGradient",
                                          "ResourceAccumulatorTakeGradient",
                                          "MutexLock"};
  return ops->contains(op);
}

bool HasWaitingOps(const tensorflow::FunctionDefLibrary& library) {
  for (const auto& f : library.function()) {
    for (const NodeDef& n : f.node_def()) {
      if (MayWait(n.op())) return true;
    }
  }
  return false;
}

bool HasWaitingOps(const GraphDef& graph) {
  for (const NodeDef& n : graph.node()) {
    if (MayWait(n.op())) return true;
  }
  return HasWaitingOps(graph.library());
}

bool HasWaitingOps(const Graph& graph) {
  for (const Node* n : graph.op_nodes()) {
    if (MayWait(n->op())) return true;
  }
  return HasWaitingOps(graph.library());
}

// The one device of a client graph without control-flow ops, or "" (then
// it is partitioned).
std::string OnlyDevice(const Graph& graph) {
  const std::string* device = nullptr;
  for (const Node* n : graph.op_nodes()) {
    if (n->IsControlFlow()) return "";
    const std::string& d = n->assigned_device_name();
    if (d.empty()) return "";
    if (device == nullptr) {
      device = &d;
    } else if (d != *device) {
      return "";
    }
  }
  return device != nullptr ? *device : "";
}

int DefaultThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

StatusOr<ExecutionStateOptions> SessionStateOptions(
    const SessionOptions& options) {
  ExecutionStateOptions state;
  std::vector<std::string> flags = options.devices;
  if (flags.empty()) flags.push_back("cpu:0");
  DFG_ASSIGN_OR_RETURN(state.devices, DeviceSetFromFlags(flags));
  state.allow_soft_placement = options.allow_soft_placement;
  state.check_op_deprecations = true;
  return state;
}

StatusOr<SessionGraphs> BuildSessionGraphs(
    const ExecutionState& state, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, std::atomic<int64_t>* name_counter,
    const OptimizeOptions* optimize, bool may_keep_whole) {
  PruneOptions client;
  client.feeds = feeds;
  client.fetches = fetches;
  client.targets = targets;
  client.convention = Convention::kFunction;
  client.client_device = state.devices().devices()[0].name;
  OptimizeReport report;
  DFG_ASSIGN_OR_RETURN(ClientGraph cg,
                       state.BuildClientGraph(client, optimize, &report));
  // The graph may hold ops dfg does not know (every other stage handles
  // them); running one is TensorFlow's "Op type not registered" error.
  for (const Node* n : cg.graph->op_nodes()) {
    if (!n->op_known()) return OpTypeNotRegistered(n->op());
  }
  SessionGraphs graphs;
  graphs.writes_resources = report.writes_resources;
  graphs.frozen_variables = report.frozen_variables;
  graphs.arg_types = std::move(cg.feed_types);
  graphs.ret_types = std::move(cg.fetch_types);
  if (may_keep_whole) {
    std::string device = OnlyDevice(*cg.graph);
    if (!device.empty()) {
      for (Node* n : cg.graph->op_nodes()) {
        if (n->requested_device() != device) {
          n->mutable_def()->set_device(device);
        }
      }
      graphs.whole = std::move(cg.graph);
      graphs.whole_device = std::move(device);
      return graphs;
    }
  }
  // DirectSession: a session-wide name counter, incarnation 1.
  PartitionOptions popts;
  popts.name_counter = name_counter;
  popts.incarnation = 1;
  // The client graph ends here: its attrs move into the partitions.
  popts.can_make_destructive_changes = true;
  DFG_ASSIGN_OR_RETURN(graphs.partitions,
                       PartitionClientGraph(cg.graph.get(), popts));
  return graphs;
}

struct Session::Impl {
  SessionOptions options;
  std::unique_ptr<ExecutionState> state;  // the placed full graph
  DeviceSet device_set;
  std::vector<std::string> devices;
  std::map<std::string, std::unique_ptr<ResourceMgr>> resources;
  std::unique_ptr<ThreadPool> inter_op_pool;
  std::unique_ptr<ThreadPool> intra_op_pool;
  std::atomic<int64_t> name_counter{0};
  std::atomic<int64_t> next_step_id{1};
  // TensorFlow's client check of fed values (the Placeholders' shapes, as
  // the graph's producer version reads them).
  FeedShapeChecker feed_checker;

  std::mutex mu;
  std::map<std::string, std::shared_ptr<Signature>> cache;  // guarded by mu
  std::shared_ptr<const Signature> last;                    // guarded by mu
  // Steps that may write variables move the epoch on; a signature that
  // froze variables at an older epoch is rebuilt (at most kMaxRefreezes
  // times, then built without freezing).
  int64_t write_epoch = 0;              // guarded by mu
  std::map<std::string, int> rebuilds;  // guarded by mu
  static constexpr int kMaxRefreezes = 3;
  // The variables pass's values: the session's resource variables.
  std::optional<Tensor> VariableValue(const NodeDef& handle) const;

  Status Validate(const std::vector<std::string>& feeds,
                  const std::vector<std::string>& fetches) const;
  StatusOr<std::unique_ptr<Signature>> Build(std::vector<std::string> feeds,
                                             std::vector<std::string> fetches,
                                             std::vector<std::string> targets,
                                             bool freeze);
  Status RunSignature(const Signature& sig, std::vector<Tensor> args,
                      std::vector<Tensor>* rets, const RunOptions& options);

  // One watchdog thread per session enforces timeouts and cancellation.
  struct Watch {
    int64_t timeout_ms = 0;
    std::chrono::steady_clock::time_point deadline;
    const std::atomic<bool>* external = nullptr;
    std::function<void(const Status&)> stop;
    bool fired = false;
  };
  void StartWatch(Watch* watch);
  void EndWatch();
  void WatchdogLoop();
  ~Impl();
  std::mutex watch_mu;
  std::condition_variable watch_cv;
  Watch* current_watch = nullptr;  // guarded by watch_mu
  bool stopping = false;           // guarded by watch_mu
  bool watchdog_idle = false;      // guarded by watch_mu
  std::thread watchdog;
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

StatusOr<std::unique_ptr<Session>> Session::Create(
    GraphDef graph, const SessionOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  DFG_ASSIGN_OR_RETURN(ExecutionStateOptions state_options,
                       SessionStateOptions(options));
  impl->device_set = state_options.devices;
  for (const Device& d : impl->device_set.devices())
    impl->devices.push_back(d.name);
  impl->feed_checker = FeedShapeChecker(graph);
  DFG_ASSIGN_OR_RETURN(impl->state,
                       ExecutionState::Create(std::move(graph), state_options));
  for (const std::string& d : impl->devices) {
    impl->resources[d] = std::make_unique<ResourceMgr>();
  }
  int inter = options.inter_op_threads > 0 ? options.inter_op_threads
                                           : DefaultThreads();
  int intra = options.intra_op_threads > 0 ? options.intra_op_threads
                                           : DefaultThreads();
  if (inter > 1) impl->inter_op_pool = std::make_unique<ThreadPool>(inter);
  if (intra > 1) impl->intra_op_pool = std::make_unique<ThreadPool>(intra);
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

// GraphExecutionState::ValidateFeedAndFetchDevices: feeds first, then
// fetches, each in sorted order.
Status Session::Impl::Validate(const std::vector<std::string>& feeds,
                               const std::vector<std::string>& fetches) const {
  return state->ValidateFeedsAndFetches(feeds, fetches);
}

StatusOr<std::unique_ptr<Signature>> Session::Impl::Build(
    std::vector<std::string> feeds, std::vector<std::string> fetches,
    std::vector<std::string> targets, bool freeze) {
  auto sig = std::make_unique<Signature>();
  sig->feeds = std::move(feeds);
  sig->fetches = std::move(fetches);
  sig->targets = std::move(targets);

  OptimizeOptions optimize;
  if (freeze) {
    optimize.variable_value = [this](const NodeDef& handle) {
      return VariableValue(handle);
    };
  }
  DFG_ASSIGN_OR_RETURN(
      SessionGraphs graphs,
      BuildSessionGraphs(*state, sig->feeds, sig->fetches, sig->targets,
                         &name_counter, options.optimize ? &optimize : nullptr,
                         /*may_keep_whole=*/!options.keep_partitions));
  sig->writes_resources = graphs.writes_resources;
  sig->frozen = graphs.frozen_variables > 0;
  sig->epoch = write_epoch;
  sig->arg_types = std::move(graphs.arg_types);
  sig->ret_types = std::move(graphs.ret_types);
  sig->partitions = std::move(graphs.partitions);

  std::vector<std::string> local_names;
  for (const std::string& d : devices) {
    auto local = LocalName(d);
    local_names.push_back(local.ok() ? *local : d);
  }
  // The device a partition (or the whole graph) runs on: one of the
  // session's, and a CPU.
  auto device_of =
      [&](const std::string& device,
          const std::string& first_node) -> StatusOr<const Device*> {
    int index = device_set.FindDeviceByName(device);
    if (index < 0) {
      auto local = LocalName(device);
      return InvalidArgument(
          "Creating a partition for {} which doesn't exist in the list of "
          "available devices. Available devices: {}",
          local.ok() ? *local : device, fmt::join(local_names, ","));
    }
    const Device& dev = device_set.devices()[index];
    if (dev.type() != "CPU") {
      return InvalidArgument(
          "dfg runs kernels on CPU devices only, but node '{}' is placed on "
          "{}; list only CPU devices (--devices cpu:0): with a GPU listed, "
          "nodes with a GPU kernel are placed on it",
          first_node, dev.name);
    }
    return &dev;
  };
  if (graphs.whole != nullptr) {
    Graph& graph = *graphs.whole;
    std::string first;  // the first node a partition would hold
    for (const Node* n : graph.op_nodes()) {
      first = n->name();
      break;
    }
    DFG_ASSIGN_OR_RETURN(const Device* dev,
                         device_of(graphs.whole_device, first));
    sig->num_nodes = graph.num_op_nodes();
    sig->has_waiting_ops = HasWaitingOps(graph);
    DFG_ASSIGN_OR_RETURN(
        PartitionExecutor executor,
        CreatePartitionExecutor(std::move(graphs.whole), dev->name, dev->type(),
                                resources[dev->name].get()));
    sig->executors.push_back(std::move(executor));
    return sig;
  }
  for (auto& [device, def] : sig->partitions) {
    DFG_ASSIGN_OR_RETURN(
        const Device* found,
        device_of(device, def.node_size() > 0 ? def.node(0).name() : ""));
    const Device& dev = *found;
    sig->num_nodes += def.node_size();
    sig->has_waiting_ops |= HasWaitingOps(def);
    GraphDef copy;
    if (options.keep_partitions) copy = def;
    DFG_ASSIGN_OR_RETURN(PartitionExecutor executor,
                         CreatePartitionExecutor(
                             options.keep_partitions ? &copy : &def, dev.name,
                             dev.type(), resources[dev.name].get()));
    sig->executors.push_back(std::move(executor));
  }
  if (!options.keep_partitions) sig->partitions.clear();  // moved out
  return sig;
}

std::optional<Tensor> Session::Impl::VariableValue(
    const NodeDef& handle) const {
  auto rm = resources.find(handle.device());
  if (rm == resources.end()) return std::nullopt;
  auto container = handle.attr().find("container");
  auto name = handle.attr().find("shared_name");
  if (name == handle.attr().end()) return std::nullopt;
  std::string c =
      container == handle.attr().end() || container->second.s().empty()
          ? rm->second->default_container()
          : container->second.s();
  auto var = rm->second->Lookup(c, name->second.s());
  if (!var.ok()) return std::nullopt;
  std::lock_guard<std::mutex> lock(*(*var)->mu());
  if (!(*var)->is_initialized) return std::nullopt;
  return *(*var)->tensor();
}

void Session::Impl::StartWatch(Watch* watch) {
  std::lock_guard<std::mutex> lock(watch_mu);
  if (!watchdog.joinable()) {
    watchdog = std::thread([this] { WatchdogLoop(); });
  }
  current_watch = watch;
  // A busy watchdog polls; only an idle one needs waking (a step that lasts
  // microseconds should not pay for a thread wake-up).
  if (watchdog_idle) watch_cv.notify_all();
}

void Session::Impl::EndWatch() {
  std::lock_guard<std::mutex> lock(watch_mu);
  current_watch = nullptr;
}

// Cancels the step under watch when its deadline passes or its external
// flag (SIGINT) is raised; the executors notice at their next node and the
// aborted rendezvous wakes pending receives.
void Session::Impl::WatchdogLoop() {
  std::unique_lock<std::mutex> lock(watch_mu);
  while (!stopping) {
    if (current_watch == nullptr) {
      watchdog_idle = true;
      watch_cv.wait(lock);
      watchdog_idle = false;
      continue;
    }
    watch_cv.wait_for(lock, std::chrono::milliseconds(2));
    Watch* w = current_watch;
    if (w == nullptr || w->fired) continue;
    Status stop;
    if (w->external != nullptr && w->external->load()) {
      stop = Cancelled("Run call was cancelled");
    } else if (w->timeout_ms > 0 &&
               std::chrono::steady_clock::now() >= w->deadline) {
      stop = DeadlineExceeded(
          "Timed out waiting for notification (--timeout-ms {})",
          w->timeout_ms);
    }
    if (stop.ok()) continue;
    w->fired = true;
    w->stop(stop);
  }
}

Session::Impl::~Impl() {
  {
    std::lock_guard<std::mutex> lock(watch_mu);
    stopping = true;
  }
  watch_cv.notify_all();
  if (watchdog.joinable()) watchdog.join();
}

Status Session::Impl::RunSignature(const Signature& sig,
                                   std::vector<Tensor> args,
                                   std::vector<Tensor>* rets,
                                   const RunOptions& options) {
  CallFrame frame(sig.arg_types, sig.ret_types);
  DFG_RETURN_IF_ERROR(frame.SetFeeds(std::move(args)));
  LocalRendezvous rendezvous;
  PartitionStepArgs step_args;
  step_args.step_id = next_step_id++;
  step_args.rendezvous = &rendezvous;
  step_args.call_frame = &frame;
  // Auto: inline unless an op may wait on another (SessionOptions).
  const bool pool = this->options.inter_op_threads != 0 || sig.has_waiting_ops;
  step_args.inter_op_pool = pool ? inter_op_pool.get() : nullptr;
  step_args.intra_op_pool = intra_op_pool.get();
  step_args.observer = options.observer;
  PartitionStep step(sig.executors, step_args);
  // Steps of big graphs say that they are running (on a terminal); small
  // ones, run many times, skip even the stage's bookkeeping.
  std::optional<ProgressStage> stage;
  if (sig.num_nodes >= kRunStageMinNodes) {
    stage.emplace(fmt::format("running {} nodes", sig.num_nodes));
  }
  Watch watch;
  const bool watched = options.timeout_ms > 0 || options.cancelled != nullptr;
  if (watched) {
    watch.timeout_ms = options.timeout_ms;
    watch.deadline = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(options.timeout_ms);
    watch.external = options.cancelled;
    watch.stop = [&step](const Status& stop) { step.Stop(stop); };
    StartWatch(&watch);
  }
  Status status = step.Run();
  if (watched) EndWatch();
  if (!status.ok()) return status;
  Status s = frame.ConsumeRetvals(rets);
  if (!s.ok()) return InvalidArgument("{}", s.message());
  return Status::Ok();
}

Status Session::Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                    const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets,
                    std::vector<Tensor>* outputs,
                    const RunOptions& run_options) {
  Impl& impl = *impl_;
  std::vector<std::string> feed_names;
  for (const auto& [name, value] : feeds) feed_names.push_back(name);
  std::vector<std::string> sorted_feeds = Sorted(feed_names);
  std::vector<std::string> sorted_fetches = Sorted(fetches);
  std::vector<std::string> sorted_targets = Sorted(targets);
  DFG_RETURN_IF_ERROR(impl.Validate(sorted_feeds, sorted_fetches));
  DFG_RETURN_IF_ERROR(impl.feed_checker.Check(feeds));

  std::shared_ptr<const Signature> sig;
  {
    std::lock_guard<std::mutex> lock(impl.mu);
    std::string key =
        SignatureKey(sorted_feeds, sorted_fetches, sorted_targets);
    auto it = impl.cache.find(key);
    if (it != impl.cache.end() && it->second->frozen &&
        it->second->epoch != impl.write_epoch) {
      // Variables it froze may have changed since: build it again.
      impl.cache.erase(it);
      it = impl.cache.end();
      ++impl.rebuilds[key];
    }
    if (it == impl.cache.end()) {
      bool freeze = impl.rebuilds[key] < Impl::kMaxRefreezes;
      DFG_ASSIGN_OR_RETURN(
          std::unique_ptr<Signature> built,
          impl.Build(sorted_feeds, sorted_fetches, sorted_targets, freeze));
      it = impl.cache.emplace(key, std::move(built)).first;
    }
    sig = it->second;
    impl.last = sig;
    // A step that may write variables makes frozen graphs stale, whether
    // it succeeds or not.
    if (sig->writes_resources) ++impl.write_epoch;
  }

  // Feeds in sorted order (a name fed twice was refused by prune already).
  std::vector<Tensor> args;
  std::vector<bool> used(feeds.size(), false);
  for (const std::string& name : sig->feeds) {
    for (size_t i = 0; i < feeds.size(); ++i) {
      if (!used[i] && feeds[i].first == name) {
        used[i] = true;
        args.push_back(feeds[i].second);
        break;
      }
    }
  }
  std::vector<Tensor> rets;
  DFG_RETURN_IF_ERROR(
      impl.RunSignature(*sig, std::move(args), &rets, run_options));

  // Back to the caller's fetch order; a fetch named twice gets one tensor.
  outputs->clear();
  for (const std::string& f : fetches) {
    auto pos = std::lower_bound(sig->fetches.begin(), sig->fetches.end(), f);
    outputs->push_back(rets[pos - sig->fetches.begin()]);
  }
  return Status::Ok();
}

const std::map<std::string, GraphDef>& Session::last_partitions() const {
  static const std::map<std::string, GraphDef>* const kEmpty =
      new std::map<std::string, GraphDef>();
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->last != nullptr ? impl_->last->partitions : *kEmpty;
}

void DefaultFetchesAndTargets(const GraphDef& graph,
                              std::vector<std::string>* fetches,
                              std::vector<std::string>* targets) {
  std::unordered_map<std::string, bool> consumed;
  for (const NodeDef& n : graph.node()) {
    for (const std::string& in : n.input())
      consumed[ParseTensorName(in).node] = true;
  }
  OpLookup ops(&graph.library());
  for (const NodeDef& n : graph.node()) {
    if (consumed.count(n.name())) continue;
    const OpDef* op = ops.LookUpOpDef(n.op());
    std::vector<DataType> in_types, out_types;
    bool has_outputs = true;
    if (op != nullptr &&
        InOutTypesForNode(n, *op, &in_types, &out_types).ok()) {
      has_outputs = !out_types.empty();
    }
    if (has_outputs) {
      fetches->push_back(n.name() + ":0");
    } else {
      targets->push_back(n.name());
    }
  }
}

const std::vector<std::string>& Session::devices() const {
  return impl_->devices;
}

}  // namespace dfg
