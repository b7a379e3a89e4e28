#include "lib/distributed/step_stats_proto.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string_view>

namespace dfg {
namespace {

constexpr char kTensorName[] = " tensor_name=";

int64_t SteadyToWallOffsetNs() {
  using namespace std::chrono;
  return duration_cast<nanoseconds>(system_clock::now().time_since_epoch() -
                                    steady_clock::now().time_since_epoch())
      .count();
}

// StepStats has no field for the node that called a function body's node;
// its name is "<caller>/<node>" and it ran within the caller's time on the
// caller's thread (function calls run on the calling thread). A name scope
// ("dense" and "dense/MatMul") never nests in time on one thread, so both
// together find the caller. Times keep whole microseconds: 1 us of slack.
void FindCallers(std::vector<NodeStat>* stats) {
  std::map<std::string_view, std::vector<const NodeStat*>> by_name;
  for (const NodeStat& s : *stats) by_name[s.node].push_back(&s);
  for (NodeStat& s : *stats) {
    std::string_view name = s.node;
    for (size_t slash = name.rfind('/'); slash != std::string_view::npos;
         slash = slash == 0 ? std::string_view::npos
                            : name.rfind('/', slash - 1)) {
      auto it = by_name.find(name.substr(0, slash));
      if (it == by_name.end()) continue;
      for (const NodeStat* c : it->second) {
        if (c->device == s.device && c->thread_id == s.thread_id &&
            c->start_ns <= s.start_ns && s.end_ns <= c->end_ns + 1000) {
          s.caller = c->node;
          break;
        }
      }
      if (!s.caller.empty()) break;
    }
  }
}

}  // namespace

void AppendStepStats(const std::vector<NodeStat>& stats,
                     tensorflow::StepStats* out) {
  const int64_t offset = SteadyToWallOffsetNs();
  std::map<std::string, tensorflow::DeviceStepStats*> by_device;
  for (auto& d : *out->mutable_dev_stats()) by_device[d.device()] = &d;
  for (const NodeStat& s : stats) {
    auto& dev = by_device[s.device];
    if (dev == nullptr) {
      dev = out->add_dev_stats();
      dev->set_device(s.device);
    }
    auto* n = dev->add_node_stats();
    const int64_t start = s.start_ns + offset;
    const int64_t took = s.end_ns - s.start_ns;
    n->set_node_name(s.node);
    n->set_all_start_micros(start / 1000);
    n->set_all_start_nanos(start);
    n->set_op_start_rel_micros(0);
    n->set_op_end_rel_micros(took / 1000);
    n->set_all_end_rel_micros(took / 1000);
    n->set_op_start_rel_nanos(0);
    n->set_thread_id(static_cast<uint32_t>(s.thread_id + 1));
    std::string label =
        fmt::format("{} = {}({})", s.node, s.op, fmt::join(s.inputs, ", "));
    if (!s.tensor_name.empty()) label += kTensorName + s.tensor_name;
    n->set_timeline_label(label);
    for (size_t i = 0; i < s.outputs.size(); ++i) {
      auto* o = n->add_output();
      o->set_slot(static_cast<int>(i));
      auto* desc = o->mutable_tensor_description();
      s.outputs[i].first.AsProto(desc->mutable_shape());
      desc->mutable_allocation_description()->set_requested_bytes(
          s.outputs[i].second);
    }
  }
}

std::vector<NodeStat> NodeStatsFromStepStats(
    const tensorflow::StepStats& stats) {
  std::vector<NodeStat> out;
  for (const auto& dev : stats.dev_stats()) {
    for (const auto& n : dev.node_stats()) {
      NodeStat s;
      s.node = n.node_name();
      s.device = dev.device();
      s.start_ns = n.all_start_nanos() != 0 ? n.all_start_nanos()
                                            : n.all_start_micros() * 1000;
      s.end_ns = s.start_ns + n.all_end_rel_micros() * 1000;
      s.thread_id = static_cast<int>(n.thread_id()) - 1;
      // "node = Op(a, b) tensor_name=t"
      const std::string& label = n.timeline_label();
      size_t eq = label.find(" = ");
      size_t paren = label.find('(', eq == std::string::npos ? 0 : eq);
      if (eq != std::string::npos && paren != std::string::npos) {
        s.op = label.substr(eq + 3, paren - eq - 3);
        size_t close = label.find(')', paren);
        std::string inputs = label.substr(paren + 1, close - paren - 1);
        size_t begin = 0;
        while (!inputs.empty() && begin <= inputs.size()) {
          size_t comma = inputs.find(", ", begin);
          s.inputs.push_back(inputs.substr(begin, comma - begin));
          if (comma == std::string::npos) break;
          begin = comma + 2;
        }
      }
      size_t tn = label.find(kTensorName);
      if (tn != std::string::npos)
        s.tensor_name = label.substr(tn + sizeof(kTensorName) - 1);
      for (const auto& o : n.output()) {
        auto shape = TensorShape::FromProto(o.tensor_description().shape());
        s.outputs.emplace_back(
            shape.ok() ? *shape : TensorShape(),
            o.tensor_description().allocation_description().requested_bytes());
      }
      out.push_back(std::move(s));
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const NodeStat& a, const NodeStat& b) {
                     return a.start_ns < b.start_ns;
                   });
  FindCallers(&out);
  return out;
}

}  // namespace dfg
