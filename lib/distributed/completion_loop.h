// The event loop of a process's gRPC calls: one completion queue polled by
// one thread, which serves the calls that arrive (the async services) and
// completes the calls this process makes to other tasks. With gRPC's epoll
// engine only one thread of a process polls at a time, and a poller that
// finds an event hands polling to any other waiting poller before it runs
// the event (a thread wake-up per event): with a single polling thread in
// the process, an event runs on the thread that read it.
//
// Work that may block (sync calls, graph building) does not belong on the
// loop's thread: a sync call to this process would wait for the loop.
//
// After an event the thread polls the queue for a short while before it
// sleeps (lib/base/poll.h): a step's messages come in bursts, and a thread
// that sleeps between them pays for a wake-up on every message.
#ifndef DFG_LIB_DISTRIBUTED_COMPLETION_LOOP_H_
#define DFG_LIB_DISTRIBUTED_COMPLETION_LOOP_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "lib/base/poll.h"

namespace dfg {

// What a completion queue returns: each operation started with a tag
// delivers it once, to OnEvent on the loop's thread.
class CqTag {
 public:
  virtual ~CqTag() = default;
  // `ok` as grpc::CompletionQueue::Next reports it.
  virtual void OnEvent(bool ok) = 0;
};

class CompletionLoop {
 public:
  // Polls `cq` (a server's queue, or a plain one) on a thread of its own,
  // busy for `poll` after each event (0: sleeps at once; `dfg server
  // --busy-poll-us`).
  explicit CompletionLoop(std::unique_ptr<grpc::CompletionQueue> cq,
                          std::chrono::microseconds poll = kIdlePoll);
  ~CompletionLoop();  // Shutdown()
  CompletionLoop(const CompletionLoop&) = delete;
  CompletionLoop& operator=(const CompletionLoop&) = delete;

  // Runs `start` with the queue unless the loop is shutting down (then
  // returns false and does nothing): every operation that gives the queue a
  // tag starts here, so none starts on a queue that is shut down.
  bool Start(const std::function<void(grpc::CompletionQueue*)>& start);

  // Starts no more operations, waits for every tag already given and joins
  // the thread. A server on the queue must be shut down first.
  void Shutdown();

 private:
  void Run(std::chrono::microseconds poll);

  std::unique_ptr<grpc::CompletionQueue> cq_;
  std::mutex mu_;
  bool shut_down_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_COMPLETION_LOOP_H_
