#include "subcommands/run_master.h"

#include <memory>
#include <unordered_map>

#include "lib/distributed/master_client.h"
#include "lib/distributed/step_stats_proto.h"
#include "lib/exec/feed_check.h"
#include "lib/graph/tensor_id.h"

namespace dfg {
namespace {

// The client's own check of fed values, before the step goes to the master
// (as TensorFlow's Python client does for a local or a remote session).
class FeedChecker {
 public:
  explicit FeedChecker(const GraphDef& graph)
      : legacy_(LegacyPlaceholderShapes(graph)) {
    for (const auto& node : graph.node()) {
      if (node.op() == "Placeholder" || node.op() == "PlaceholderV2")
        placeholders_[node.name()] = node;
    }
  }
  Status Check(const std::vector<std::pair<std::string, Tensor>>& feeds) const {
    for (const auto& [name, value] : feeds) {
      auto it = placeholders_.find(ParseTensorName(name).node);
      if (it == placeholders_.end()) continue;
      DFG_RETURN_IF_ERROR(CheckFeedShape(it->second, name, value, legacy_));
    }
    return Status::Ok();
  }

 private:
  bool legacy_;
  std::unordered_map<std::string, tensorflow::NodeDef> placeholders_;
};

}  // namespace

StatusOr<StepFn> MasterStepFn(const std::string& target,
                              const std::string& tls_ca, GraphDef graph,
                              bool allow_soft_placement,
                              std::vector<NodeStat>* stats) {
  auto checker = std::make_shared<const FeedChecker>(graph);
  MasterClientOptions options;
  options.allow_soft_placement = allow_soft_placement;
  options.tls.ca_file = tls_ca;
  DFG_ASSIGN_OR_RETURN(std::unique_ptr<MasterClient> client,
                       MasterClient::Create(target, graph, options));
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

}  // namespace dfg
