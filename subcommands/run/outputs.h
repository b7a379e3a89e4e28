// What `dfg run` writes after the steps: the trace and the statistics of the
// last step, the latencies, and the fetched tensors (printed numpy-like or
// as JSON, or written as .npy files).
#ifndef DFG_SUBCOMMANDS_RUN_OUTPUTS_H_
#define DFG_SUBCOMMANDS_RUN_OUTPUTS_H_

#include <ostream>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"
#include "subcommands/run/repeat.h"
#include "subcommands/run/step.h"

namespace dfg {

// What `dfg run` writes after the steps, in this order.
struct RunOutputOptions {
  std::string trace;       // FILE: Chrome trace JSON of the last step
  bool stats = false;      // the StatsTable on `err`
  bool latencies = false;  // the LatencyLine on `err`
  std::string output_dir;  // DIR: WriteTensorsToDir; else printed on `out`
  bool json = false;       // printed as FormatOutputs(json)
};

// Writes the outcome's trace, statistics, latencies and outputs. Errors:
// the files that cannot be written (nothing further is written then).
Status WriteRunOutputs(const RunOutcome& outcome, const Step& step,
                       const RunOutputOptions& options, std::ostream& out,
                       std::ostream& err);

// The outputs as `dfg run` prints them: numpy-like, one per name, or (json)
// one JSON object keyed by name in fetch order.
std::string FormatOutputs(const std::vector<std::string>& names,
                          const std::vector<Tensor>& tensors, bool json);

// OK when no two distinct names share a FetchFileName ("a/b" and "a_b"
// both give a_b.npy); else kInvalidArgument naming both and the file.
Status CheckFetchFileNames(const std::vector<std::string>& names);

// Writes tensor i as DIR/<FetchFileName(names[i])> (CheckFetchFileNames
// first); every tensor is
// serialized before any file is written, so a failure leaves no partial set.
Status WriteTensorsToDir(const std::string& dir,
                         const std::vector<std::string>& names,
                         const std::vector<Tensor>& tensors);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_RUN_OUTPUTS_H_
