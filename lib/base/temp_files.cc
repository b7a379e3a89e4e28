#include "lib/base/temp_files.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace dfg {
namespace {

// Fixed storage: the signal handler may neither allocate nor lock. A slot is
// free, being filled, or holding a path the handler may unlink.
enum SlotState : int { kFree = 0, kFilling = 1, kReady = 2 };
constexpr int kSlots = 64;
constexpr size_t kMaxPath = 4096;

struct Slot {
  std::atomic<int> state{kFree};
  char path[kMaxPath];
};
Slot slots[kSlots];

void OnFatalSignal(int sig) {
  RemoveRegisteredTempFiles();
  // Die of the signal as the process would have without the handler.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

int RegisterTempFile(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (slots[i].state.compare_exchange_strong(expected, kFilling)) {
      std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
      slots[i].state.store(kReady);
      return i;
    }
  }
  return -1;
}

void UnregisterTempFile(int slot) {
  if (slot >= 0 && slot < kSlots) slots[slot].state.store(kFree);
}

void RemoveRegisteredTempFiles() {
  for (Slot& slot : slots) {
    if (slot.state.load() == kReady) ::unlink(slot.path);  // signal-safe
  }
}

void InstallTempFileCleanup() {
  struct sigaction action {};
  action.sa_handler = OnFatalSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    struct sigaction old {};
    // A signal ignored by the parent (nohup) stays ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) {
      continue;
    }
    ::sigaction(sig, &action, nullptr);
  }
  ::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace dfg
