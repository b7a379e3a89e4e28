// One process-wide map from buffer address to its registration count and its
// attachments, behind one mutex: lookups happen once per convolution call
// (microseconds of work each), far from contended.
#include "lib/kernels/const_buffers.h"

#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace dfg {
namespace {

struct Entry {
  int64_t count = 0;
  std::map<uint64_t, std::shared_ptr<void>> derived;
};

struct Registry {
  std::mutex mu;
  std::unordered_map<const void*, Entry> entries;
};

Registry& Get() {
  static Registry* registry = new Registry;
  return *registry;
}

}  // namespace

void RegisterConstBuffer(const void* data) {
  if (data == nullptr) return;
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  ++r.entries[data].count;
}

void UnregisterConstBuffer(const void* data) {
  if (data == nullptr) return;
  Registry& r = Get();
  // Released after the lock.
  std::map<uint64_t, std::shared_ptr<void>> derived;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.entries.find(data);
    if (it == r.entries.end()) return;
    if (--it->second.count > 0) return;
    derived = std::move(it->second.derived);
    r.entries.erase(it);
  }
}

bool IsConstBuffer(const void* data) {
  if (data == nullptr) return false;
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.entries.count(data) > 0;
}

std::shared_ptr<void> FindConstDerived(const void* data, uint64_t key) {
  if (data == nullptr) return nullptr;
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.entries.find(data);
  if (it == r.entries.end()) return nullptr;
  auto d = it->second.derived.find(key);
  return d == it->second.derived.end() ? nullptr : d->second;
}

void AttachConstDerived(const void* data, uint64_t key,
                        std::shared_ptr<void> value) {
  if (data == nullptr) return;
  Registry& r = Get();
  std::shared_ptr<void> old;  // released after the lock
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.entries.find(data);
  if (it == r.entries.end()) return;
  std::shared_ptr<void>& slot = it->second.derived[key];
  old = std::move(slot);
  slot = std::move(value);
}

}  // namespace dfg
