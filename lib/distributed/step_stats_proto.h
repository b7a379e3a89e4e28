// A step's node statistics (lib/exec's NodeStat) as TensorFlow's StepStats
// (RunGraphResponse.step_stats, RunMetadata.step_stats) and back: one
// DeviceStepStats per device, wall-clock microseconds (and nanoseconds),
// output shapes and bytes, and a timeline label "node = Op(inputs)" that
// also carries a transfer's tensor name (" tensor_name=<name>") so that a
// trace can link each _Send to its _Recv across tasks.
#ifndef DFG_LIB_DISTRIBUTED_STEP_STATS_PROTO_H_
#define DFG_LIB_DISTRIBUTED_STEP_STATS_PROTO_H_

#include <vector>

#include "lib/exec/step_stats.h"
#include "lib/proto/step_stats.pb.h"

namespace dfg {

// Appends to `out`. NodeStat times are steady-clock nanoseconds of this
// process; they become wall-clock times.
void AppendStepStats(const std::vector<NodeStat>& stats,
                     tensorflow::StepStats* out);

// Every node of every device, sorted by start time (wall-clock ns). A
// function body's node ("call/mul", within the call's time on its thread)
// gets its caller back.
std::vector<NodeStat> NodeStatsFromStepStats(
    const tensorflow::StepStats& stats);

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_STEP_STATS_PROTO_H_
