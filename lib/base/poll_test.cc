#include "lib/base/poll.h"

#include <atomic>
#include <thread>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

TEST_CASE("PollFor returns as soon as the condition holds", "[base]") {
  int calls = 0;
  CHECK(PollFor(std::chrono::seconds(10), [&] { return ++calls == 3; }));
  CHECK(calls == 3);
}

TEST_CASE("PollFor gives up after its budget, a zero budget looks once",
          "[base]") {
  int calls = 0;
  CHECK_FALSE(PollFor(std::chrono::microseconds(0), [&] {
    ++calls;
    return false;
  }));
  CHECK(calls == 1);
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(PollFor(std::chrono::milliseconds(2), [] { return false; }));
  CHECK(std::chrono::steady_clock::now() - start >=
        std::chrono::milliseconds(2));
}

TEST_CASE("PollFor sees another thread's store", "[base]") {
  std::atomic<bool> flag{false};
  std::thread setter([&] { flag.store(true); });
  CHECK(PollFor(std::chrono::seconds(30), [&] { return flag.load(); }));
  setter.join();
}

}  // namespace
}  // namespace dfg
