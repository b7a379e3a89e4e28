#include "lib/exec/thread_pool.h"

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

// Two functions that each wait for the other: they finish only if the pool
// runs them at the same time. False if they did not meet within 30 s.
bool RunPair(ThreadPool& pool) {
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0, finished = 0;
  bool met = true;
  auto meet = [&] {
    std::unique_lock<std::mutex> lock(mu);
    ++arrived;
    cv.notify_all();
    if (!cv.wait_for(lock, std::chrono::seconds(30),
                     [&] { return arrived == 2; })) {
      met = false;
    }
    ++finished;
    cv.notify_all();
  };
  pool.Schedule(meet);
  pool.Schedule(meet);
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished == 2; });
  return met;
}

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

TEST_CASE("a polling pool wakes a sleeper for work its pollers cannot take",
          "[exec]") {
  // Right after a pair every worker polls; later ones find them asleep.
  ThreadPool pool(2);
  for (int i = 0; i < 200; ++i) {
    REQUIRE(RunPair(pool));
    if (i % 50 == 49) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
}

TEST_CASE("a pool without polling runs work in parallel too", "[exec]") {
  ThreadPool pool(2, std::chrono::microseconds(0));
  for (int i = 0; i < 50; ++i) REQUIRE(RunPair(pool));
}

TEST_CASE("an idle pool sleeps after its poll", "[exec]") {
  ThreadPool pool(4);
  std::atomic<int> ran{0};
  for (int i = 0; i < 8; ++i) pool.Schedule([&] { ++ran; });
  // Four workers that never slept would use 4 s of CPU time in this second.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double before = CpuSeconds();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  CHECK(CpuSeconds() - before < 0.5);
  CHECK(ran.load() == 8);
}

TEST_CASE("a pool runs what was scheduled before it is destroyed", "[exec]") {
  std::atomic<int> ran{0};
  {
    ThreadPool pool(3);
    for (int i = 0; i < 1000; ++i) pool.Schedule([&] { ++ran; });
  }
  CHECK(ran.load() == 1000);
}

}  // namespace
}  // namespace dfg
