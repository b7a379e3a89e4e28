// The in-process rendezvous between executors (TensorFlow's LocalRendezvous,
// TF-SEMANTICS.md §4.5): Send never blocks; whichever of Send and RecvAsync
// arrives second completes the transfer; StartAbort fails every waiter and
// every later call with the abort status.
#ifndef DFG_LIB_EXEC_RENDEZVOUS_H_
#define DFG_LIB_EXEC_RENDEZVOUS_H_

#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#include "lib/kernels/rendezvous_interface.h"

namespace dfg {

class LocalRendezvous : public RendezvousInterface {
 public:
  LocalRendezvous() = default;
  ~LocalRendezvous() override;

  Status Send(const ParsedKey& key, const Tensor& value, bool is_dead) override;
  void RecvAsync(const ParsedKey& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;

  // Synchronous receive (tests and tools): waits for the matching Send.
  Status Recv(const ParsedKey& key, Tensor* value, bool* is_dead);

  // The abort status, OK when not aborted.
  Status status() const;
  // Keys sent but not yet received (a finished step should have none).
  size_t num_pending_sends() const;

 private:
  // For one key either values waiting for receivers or receivers waiting for
  // values, never both.
  struct Item {
    bool is_send = false;
    Tensor value;
    bool is_dead = false;
    DoneCallback done;
  };
  using Queue = std::deque<Item>;

  mutable std::mutex mu_;
  std::unordered_map<std::string, Queue> table_;  // guarded by mu_
  Status abort_status_;                           // guarded by mu_
};

}  // namespace dfg

#endif  // DFG_LIB_EXEC_RENDEZVOUS_H_
