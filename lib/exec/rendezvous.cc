#include "lib/exec/rendezvous.h"

#include <condition_variable>
#include <utility>
#include <vector>

namespace dfg {

LocalRendezvous::~LocalRendezvous() {
  // Waiters that never got a value learn that the rendezvous went away.
  StartAbort(Cancelled("rendezvous destroyed"));
}

Status LocalRendezvous::Send(const ParsedKey& key, const Tensor& value,
                             bool is_dead) {
  DoneCallback waiter;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) return abort_status_;
    Queue& queue = table_[key.FullKey()];
    if (queue.empty() || queue.front().is_send) {
      // No receiver yet. TensorFlow's LocalRendezvous refuses a second
      // unconsumed send on the same key.
      if (!queue.empty()) {
        return Aborted("Duplicated send: {}", key.FullKey());
      }
      Item item;
      item.is_send = true;
      item.value = value;
      item.is_dead = is_dead;
      queue.push_back(std::move(item));
      return Status::Ok();
    }
    waiter = std::move(queue.front().done);
    queue.pop_front();
    if (queue.empty()) table_.erase(key.FullKey());
  }
  waiter(Status::Ok(), value, is_dead);
  return Status::Ok();
}

void LocalRendezvous::RecvAsync(const ParsedKey& key, DoneCallback done) {
  Item sent;
  Status aborted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    aborted = abort_status_;
  }
  if (!aborted.ok()) {
    done(aborted, Tensor(), false);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) {
      aborted = abort_status_;
    } else {
      auto it = table_.find(key.FullKey());
      if (it == table_.end() || !it->second.front().is_send) {
        Queue& queue = it == table_.end() ? table_[key.FullKey()] : it->second;
        Item item;
        item.done = std::move(done);
        queue.push_back(std::move(item));
        return;
      }
      sent = std::move(it->second.front());
      it->second.pop_front();
      if (it->second.empty()) table_.erase(it);
    }
  }
  if (!aborted.ok()) {
    done(aborted, Tensor(), false);
    return;
  }
  done(Status::Ok(), sent.value, sent.is_dead);
}

void LocalRendezvous::StartAbort(const Status& status) {
  std::vector<DoneCallback> waiters;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) return;
    abort_status_ = status.ok() ? Aborted("rendezvous aborted") : status;
    for (auto& [key, queue] : table_) {
      for (Item& item : queue) {
        if (!item.is_send) waiters.push_back(std::move(item.done));
      }
    }
    table_.clear();
  }
  for (DoneCallback& w : waiters) w(status, Tensor(), false);
}

Status LocalRendezvous::Recv(const ParsedKey& key, Tensor* value,
                             bool* is_dead) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Status result;
  RecvAsync(key, [&](const Status& s, const Tensor& v, bool dead) {
    std::lock_guard<std::mutex> lock(mu);
    result = s;
    *value = v;
    *is_dead = dead;
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return result;
}

Status LocalRendezvous::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return abort_status_;
}

size_t LocalRendezvous::num_pending_sends() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [key, queue] : table_) {
    if (!queue.empty() && queue.front().is_send) n += queue.size();
  }
  return n;
}

}  // namespace dfg
