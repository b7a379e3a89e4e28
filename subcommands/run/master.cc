// The step function of a cluster's master, for `dfg run --master`.
#include "subcommands/run/master.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include "lib/distributed/cluster_spec.h"
#include "lib/distributed/master_client.h"
#include "lib/distributed/step_stats_proto.h"
#include "lib/distributed/tf_config.h"
#include "lib/exec/feed_check.h"
#include "lib/savedmodel/loader.h"

namespace dfg {

StatusOr<std::string> ResolveMasterTarget(const std::string& flag,
                                          std::string* note) {
  if (flag != kTfConfigMaster) return flag;
  std::optional<std::string_view> env = TfConfigFromEnvironment();
  if (!env) {
    return InvalidArgument(
        "--master tf_config: the TF_CONFIG environment variable is not set");
  }
  DFG_ASSIGN_OR_RETURN(TfConfig config, ParseTfConfig(*env));
  DFG_ASSIGN_OR_RETURN(std::string target, TfConfigMaster(config));
  *note = fmt::format(
      "master {} from TF_CONFIG ({})", target,
      !config.session_master.empty() ? "session_master"
      : config.task_index &&
              HasTask(config.cluster, config.task_type, *config.task_index)
          ? fmt::format("this process's task, {} {}", config.task_type,
                        *config.task_index)
          : "no task of this process: the chief, else the first worker");
  return target;
}

StatusOr<StepFn> MasterStepFn(const MasterOptions& options,
                              tensorflow::GraphDef graph,
                              std::vector<NodeStat>* stats) {
  auto checker = std::make_shared<const FeedShapeChecker>(graph);
  MasterClientOptions client_options;
  client_options.allow_soft_placement = options.allow_soft_placement;
  client_options.optimize = options.optimize;
  client_options.tls.ca_file = options.tls_ca;
  client_options.tls.cert_file = options.tls_cert;
  client_options.tls.key_file = options.tls_key;
  client_options.connect_timeout_ms = options.connect_timeout_ms;
  DFG_ASSIGN_OR_RETURN(
      std::unique_ptr<MasterClient> client,
      MasterClient::Create(options.target, graph, client_options));
  std::shared_ptr<MasterClient> shared(std::move(client));
  return StepFn([shared, stats, checker](
                    const auto& feeds, const auto& fetches, const auto& targets,
                    std::vector<Tensor>* outputs, const RunOptions& run) {
    DFG_RETURN_IF_ERROR(checker->Check(feeds));
    if (run.observer == nullptr) {
      return shared->Run(feeds, fetches, targets, outputs, run.timeout_ms,
                         run.cancelled);
    }
    tensorflow::StepStats step_stats;
    Status s = shared->Run(feeds, fetches, targets, outputs, run.timeout_ms,
                           run.cancelled, &step_stats);
    *stats = NodeStatsFromStepStats(step_stats);
    return s;
  });
}

StatusOr<RunOutcome> RunOnMaster(LoadedGraph model, const Step& step,
                                 const MasterOptions& options,
                                 RepeatOptions repeat, bool collect_stats) {
  // The tasks open the files: absolute paths, whatever their directory.
  auto absolute = [](const std::string& path) {
    return path.empty() ? path : std::filesystem::absolute(path).string();
  };
  LoadOptions load;
  load.export_dir = absolute(model.export_dir);
  load.checkpoint = absolute(options.checkpoint);
  DFG_ASSIGN_OR_RETURN(
      std::vector<LoadStep> load_steps,
      SavedModelLoadSteps(model.graph, model.meta_graph, load));
  RunOutcome outcome;
  MasterOptions connect = options;
  // --timeout-ms bounds the wait for a master that is not up yet too.
  if (repeat.run.timeout_ms > 0) {
    connect.connect_timeout_ms = repeat.run.timeout_ms;
  }
  DFG_ASSIGN_OR_RETURN(
      StepFn run_step,
      MasterStepFn(connect, std::move(model.graph), &outcome.stats));
  for (const LoadStep& s : load_steps) {
    std::vector<Tensor> unused;
    Status loaded = run_step(s.feeds, {}, {s.target}, &unused, repeat.run);
    if (!loaded.ok()) return loaded.WithPrefix(s.what);
  }
  // The step function fills outcome.stats itself; the observer only asks it
  // to collect them (from every task) on the last step.
  StepStatsCollector ask_for_stats;
  repeat.last_step_observer = collect_stats ? &ask_for_stats : nullptr;
  DFG_ASSIGN_OR_RETURN(outcome.results, RunRepeated(run_step, step, repeat));
  return outcome;
}

}  // namespace dfg
