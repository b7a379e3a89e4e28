#include "lib/base/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

namespace dfg {
namespace {

using Clock = std::chrono::steady_clock;

// The one line of the process (ProgressLine is one at a time).
struct Line {
  std::mutex mu;
  std::condition_variable cv;
  std::ostream* out = nullptr;         // mu
  std::string prefix;                  // mu
  std::vector<ProgressStage*> stages;  // mu; outermost first
  size_t width = 0;                    // mu; characters now on the line
  bool stop = false;                   // mu
  Clock::duration delay{};
  std::thread ticker;
};

std::atomic<bool> line_on{false};

Line& TheLine() {
  static Line* const line = new Line();
  return *line;
}

void ClearLocked(Line& line) {
  if (line.width == 0) return;
  *line.out << '\r' << std::string(line.width, ' ') << '\r' << std::flush;
  line.width = 0;
}

// The innermost stage, once the outermost has run for the delay.
void DrawLocked(Line& line) {
  if (line.stages.empty() ||
      Clock::now() - line.stages.front()->start() < line.delay) {
    ClearLocked(line);
    return;
  }
  const ProgressStage& s = *line.stages.back();
  std::string text = fmt::format("{}: {}...", line.prefix, s.what());
  if (s.total() > 0) {
    text +=
        fmt::format(" {}%", std::min<int64_t>(100, s.done() * 100 / s.total()));
  } else {
    text += fmt::format(
        " {:.0f} s",
        std::chrono::duration<double>(Clock::now() - s.start()).count());
  }
  size_t width = text.size();
  if (width < line.width) text += std::string(line.width - width, ' ');
  *line.out << '\r' << text << std::flush;
  line.width = width;
}

void Tick(Line& line) {
  std::unique_lock<std::mutex> lock(line.mu);
  while (!line.stop) {
    line.cv.wait_for(lock, std::chrono::milliseconds(200));
    if (!line.stop) DrawLocked(line);
  }
}

// DFG_STAGE_STATS=1: each stage's time and memory on stderr when it ends,
// for finding where a big graph's time and memory go.
bool StatsWanted() {
  static const bool wanted = [] {
    const char* v = std::getenv("DFG_STAGE_STATS");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  return wanted;
}

// VmRSS and VmHWM of /proc/self/status, in MB (0 where unknown).
std::pair<int64_t, int64_t> RssMb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  int64_t rss = 0, peak = 0, kb = 0;
  while (status >> key) {
    if (key == "VmRSS:" && status >> kb) rss = kb / 1024;
    if (key == "VmHWM:" && status >> kb) peak = kb / 1024;
  }
  return {rss, peak};
}

}  // namespace

ProgressStage::ProgressStage(std::string what, int64_t total)
    : what_(std::move(what)), total_(total), start_(Clock::now()) {
  if (!line_on.load(std::memory_order_acquire)) return;
  Line& line = TheLine();
  std::lock_guard<std::mutex> lock(line.mu);
  if (line.out == nullptr) return;
  line.stages.push_back(this);
  registered_ = true;
}

ProgressStage::~ProgressStage() {
  if (registered_) {
    Line& line = TheLine();
    std::lock_guard<std::mutex> lock(line.mu);
    line.stages.erase(std::find(line.stages.begin(), line.stages.end(), this));
    // Whatever comes next on stderr starts on a clean line.
    ClearLocked(line);
  }
  if (StatsWanted()) {
    auto [rss, peak] = RssMb();
    std::cerr << fmt::format(
        "stage {}: {:.3f} s, RSS {} MB, peak RSS {} MB\n", what_,
        std::chrono::duration<double>(Clock::now() - start_).count(), rss,
        peak);
  }
}

ProgressLine::ProgressLine(std::ostream* err, std::string prefix,
                           std::chrono::milliseconds delay) {
  if (err == nullptr || line_on.load()) return;
  Line& line = TheLine();
  {
    std::lock_guard<std::mutex> lock(line.mu);
    line.out = err;
    line.prefix = std::move(prefix);
    line.delay = delay;
    line.stop = false;
    line.width = 0;
  }
  line.ticker = std::thread([&line] { Tick(line); });
  line_on.store(true, std::memory_order_release);
  on_ = true;
}

ProgressLine::~ProgressLine() {
  if (!on_) return;
  Line& line = TheLine();
  line_on.store(false, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(line.mu);
    line.stop = true;
  }
  line.cv.notify_all();
  line.ticker.join();
  std::lock_guard<std::mutex> lock(line.mu);
  ClearLocked(line);
  line.out = nullptr;
}

}  // namespace dfg
