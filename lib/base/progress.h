// A progress line for stages that run long, such as `dfg run` building its
// executors for a million-node graph: "dfg run: placing 1000001 nodes...
// 43%" on stderr, rewritten in place with '\r' and cleared when the stage
// ends.
//
// Library code marks its stages (ProgressStage, a scope) whether or not
// anyone looks; the CLI turns the line on (ProgressLine) only when stderr is
// a terminal, so output that goes to a file or a pipe never changes. A stage
// shows only after it has run for ProgressLine's delay (2 s), so quick
// commands print nothing. Stages nest: the innermost running one is shown.
//
// The line is drawn by a ticker thread that ProgressLine starts: stages only
// store their counts (one relaxed atomic store per update), and a stage
// costs one atomic load when no line is on.
#ifndef DFG_LIB_BASE_PROGRESS_H_
#define DFG_LIB_BASE_PROGRESS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace dfg {

class ProgressStage {
 public:
  // `what` describes the stage ("placing 1000001 nodes"); with `total` > 0
  // Set(done) reports done/total as a percentage.
  explicit ProgressStage(std::string what, int64_t total = 0);
  ~ProgressStage();
  ProgressStage(const ProgressStage&) = delete;
  ProgressStage& operator=(const ProgressStage&) = delete;

  void Set(int64_t done) { done_.store(done, std::memory_order_relaxed); }

  // For the ticker (progress.cc).
  const std::string& what() const { return what_; }
  int64_t total() const { return total_; }
  int64_t done() const { return done_.load(std::memory_order_relaxed); }
  std::chrono::steady_clock::time_point start() const { return start_; }

 private:
  std::string what_;
  int64_t total_;
  std::atomic<int64_t> done_{0};
  std::chrono::steady_clock::time_point start_;
  bool registered_ = false;
};

// While alive, stages draw their line on `err` prefixed by `prefix` ("dfg
// run"). One at a time per process; `err` null turns nothing on.
class ProgressLine {
 public:
  ProgressLine(std::ostream* err, std::string prefix,
               std::chrono::milliseconds delay = std::chrono::seconds(2));
  ~ProgressLine();  // clears the line and stops the ticker
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  bool on_ = false;
};

}  // namespace dfg

#endif  // DFG_LIB_BASE_PROGRESS_H_
