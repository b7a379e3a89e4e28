// PruneReport as JSON, for `dfg prune --explain` / `--report`.
#include <nlohmann/json.hpp>

#include "lib/graph/types.h"
#include "lib/prune/prune.h"

namespace dfg {

std::string PruneReportToJson(const PruneReport& report) {
  using nlohmann::ordered_json;
  ordered_json kept = ordered_json::array();
  for (const KeptNode& k : report.kept) {
    kept.push_back(
        {{"name", k.name}, {"op", k.op}, {"needed_by", k.needed_by}});
  }
  ordered_json created = ordered_json::array();
  for (const CreatedNode& c : report.created) {
    created.push_back({{"name", c.name},
                       {"op", c.op},
                       {c.is_feed ? "feed" : "fetch", c.endpoint},
                       {"kept", c.kept}});
  }
  auto types = [](const std::vector<DataType>& list) {
    ordered_json out = ordered_json::array();
    for (DataType t : list) out.push_back(DataTypeString(t));
    return out;
  };
  ordered_json json;
  json["kept"] = std::move(kept);
  json["removed"] = report.removed;
  json["created"] = std::move(created);
  json["feed_types"] = types(report.feed_types);
  json["fetch_types"] = types(report.fetch_types);
  json["dropped_colocations"] = report.dropped_colocations;
  json["dropped_functions"] = report.dropped_functions;
  return json.dump(2, ' ', false, ordered_json::error_handler_t::replace) +
         "\n";
}

}  // namespace dfg
