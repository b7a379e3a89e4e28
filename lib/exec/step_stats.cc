#include "lib/exec/step_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "lib/graph/op_types.h"

namespace dfg {

void StepStatsCollector::NodeDone(const NodeExecRecord& record) {
  NodeStat stat;
  const Node& node = *record.node;
  stat.op = node.op();
  if (record.call_path.empty()) {
    stat.node = node.name();
    stat.device = node.assigned_device_name().empty()
                      ? node.requested_device()
                      : node.assigned_device_name();
  } else {
    stat.node = record.call_path + "/" + node.name();
    stat.caller = record.call_path;
    stat.device = record.call_device;
  }
  stat.start_ns = record.start_ns;
  stat.end_ns = record.end_ns;
  stat.thread_id = record.thread_id;
  stat.frame_iter = record.frame_iter;
  stat.is_dead = record.is_dead;
  stat.outputs = record.outputs;
  for (const std::string& in : node.def().input()) stat.inputs.push_back(in);
  if (node.IsSend() || node.IsRecv()) {
    auto it = node.def().attr().find("tensor_name");
    if (it != node.def().attr().end()) stat.tensor_name = it->second.s();
  }
  std::lock_guard<std::mutex> lock(mu_);
  stats_.push_back(std::move(stat));
}

std::vector<NodeStat> StepStatsCollector::Take() {
  std::vector<NodeStat> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    out.swap(stats_);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const NodeStat& a, const NodeStat& b) {
                     return a.start_ns < b.start_ns;
                   });
  return out;
}

std::string ChromeTraceJson(const std::vector<NodeStat>& stats,
                            const std::vector<std::string>& devices) {
  using nlohmann::json;
  json events = json::array();
  std::map<std::string, int> pid;
  for (const std::string& d : devices)
    pid.emplace(d, static_cast<int>(pid.size()) + 1);
  for (const NodeStat& s : stats) {
    if (!pid.count(s.device))
      pid.emplace(s.device, static_cast<int>(pid.size()) + 1);
  }
  for (const auto& [device, id] : pid) {
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", id},
                      {"args", {{"name", device}}}});
    events.push_back({{"ph", "M"},
                      {"name", "process_sort_index"},
                      {"pid", id},
                      {"args", {{"sort_index", id}}}});
  }
  int64_t t0 = stats.empty() ? 0 : stats.front().start_ns;
  auto us = [t0](int64_t ns) { return static_cast<double>(ns - t0) / 1000.0; };
  std::map<std::pair<int, int>, bool> lanes;
  for (const NodeStat& s : stats) {
    int p = pid[s.device];
    int tid = s.thread_id + 1;  // 0: the thread that called Run
    if (!lanes[{p, tid}]) {
      lanes[{p, tid}] = true;
      events.push_back(
          {{"ph", "M"},
           {"name", "thread_name"},
           {"pid", p},
           {"tid", tid},
           {"args",
            {{"name", tid == 0 ? std::string("caller")
                               : fmt::format("inter-op {}", tid - 1)}}}});
    }
    json outputs = json::array();
    for (const auto& [shape, bytes] : s.outputs) {
      outputs.push_back({{"shape", shape.DebugString()}, {"bytes", bytes}});
    }
    json args = {{"op", s.op}, {"inputs", s.inputs}, {"outputs", outputs}};
    if (s.is_dead) args["dead"] = true;
    if (s.frame_iter.frame_id != 0 || s.frame_iter.iter_id != 0) {
      args["frame_iter"] =
          fmt::format("{:x}:{}", s.frame_iter.frame_id, s.frame_iter.iter_id);
    }
    events.push_back({{"ph", "X"},
                      {"name", s.node},
                      {"cat", s.op},
                      {"pid", p},
                      {"tid", tid},
                      {"ts", us(s.start_ns)},
                      {"dur", std::max(0.0, us(s.end_ns) - us(s.start_ns))},
                      {"args", args}});
    if (!s.tensor_name.empty()) {
      bool send = IsSendOp(s.op);
      std::string id = fmt::format("{};{:x};{}", s.tensor_name,
                                   s.frame_iter.frame_id, s.frame_iter.iter_id);
      json flow = {{"ph", send ? "s" : "f"},
                   {"name", s.tensor_name},
                   {"cat", "transfer"},
                   {"id", std::hash<std::string>{}(id) >> 12},
                   {"pid", p},
                   {"tid", tid},
                   {"ts", send ? us(s.end_ns) : us(s.start_ns)}};
      if (!send) flow["bp"] = "e";
      events.push_back(flow);
    }
  }
  return json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump(1) +
         "\n";
}

std::string StatsTable(const std::vector<NodeStat>& stats, int top) {
  struct OpTotal {
    int64_t count = 0;
    int64_t ns = 0;
  };
  std::map<std::string, OpTotal> by_op;
  std::map<std::string, std::string> op_of;  // node -> op, for callers
  for (const NodeStat& s : stats) op_of.emplace(s.node, s.op);
  int64_t total = 0;
  for (const NodeStat& s : stats) {
    OpTotal& t = by_op[s.op];
    t.count++;
    const int64_t ns = s.end_ns - s.start_ns;
    t.ns += ns;
    auto caller = s.caller.empty() ? op_of.end() : op_of.find(s.caller);
    if (caller != op_of.end()) {
      by_op[caller->second].ns -= ns;  // the caller's time holds the body's
    } else {
      total += ns;
    }
  }
  std::vector<std::pair<std::string, OpTotal>> ops(by_op.begin(), by_op.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
    return a.second.ns > b.second.ns;
  });
  std::string out = fmt::format("{:<28} {:>8} {:>12} {:>10} {:>7}\n", "op",
                                "count", "total_us", "mean_us", "share");
  for (const auto& [op, t] : ops) {
    out += fmt::format("{:<28} {:>8} {:>12.1f} {:>10.2f} {:>6.1f}%\n", op,
                       t.count, t.ns / 1e3, t.ns / 1e3 / t.count,
                       total > 0 ? 100.0 * t.ns / total : 0.0);
  }
  std::vector<const NodeStat*> nodes;
  for (const NodeStat& s : stats) nodes.push_back(&s);
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const NodeStat* a, const NodeStat* b) {
                     return a->end_ns - a->start_ns > b->end_ns - b->start_ns;
                   });
  out += fmt::format("\n{:<40} {:<20} {:>12}\n", "slowest nodes", "op", "us");
  for (int i = 0; i < top && i < static_cast<int>(nodes.size()); ++i) {
    out +=
        fmt::format("{:<40} {:<20} {:>12.1f}\n", nodes[i]->node, nodes[i]->op,
                    (nodes[i]->end_ns - nodes[i]->start_ns) / 1e3);
  }
  return out;
}

}  // namespace dfg
