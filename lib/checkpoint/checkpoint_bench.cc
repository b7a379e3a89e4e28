// Restoring a 1 GiB checkpoint (64 float tensors of 16 MiB, generated once
// per process in a temporary directory removed at exit) against reading the
// same files with read(), as `cat` does. All reads are from the page cache
// (it cannot be dropped here): the comparison is of CPU cost per byte.
//   BM_CatFiles              read() each data file through a 128 KiB buffer
//   BM_RestoreIntoBuffers    BundleReader::ReadInto every tensor into
//                            buffers allocated once (pread()s of 256 KiB,
//                            each checksummed while in cache)
//   BM_RestoreIntoNewBuffers the same into fresh buffers each time (page
//                            faults included, as a real restore allocates)
//   BM_RestoreIntoBuffersThreads/2  two readers taking tensors in turn, as
//                            RestoreV2 does on the intra-op pool
//   BM_Crc32c                CRC32C alone over 16 MiB in cache
// The same restore through `dfg run --checkpoint`'s own path (a Session
// running the Saver's restore op) is lib/savedmodel/restore_bench.cc.
// Bandwidth is in bytes_per_second; the target is restore >= 50% of cat.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lib/checkpoint/bench_checkpoint.h"
#include "lib/checkpoint/crc32c.h"
#include "lib/checkpoint/tensor_bundle.h"

namespace dfg {
namespace {

using bench_checkpoint::Checkpoint;
using bench_checkpoint::kTensorBytes;
using bench_checkpoint::kTensors;

void BM_CatFiles(benchmark::State& state) {
  std::vector<std::string> files = {MetaFilename(Checkpoint().prefix()),
                                    DataFilename(Checkpoint().prefix(), 0, 1)};
  std::vector<char> buf(128 << 10);
  size_t total = 0;
  for (auto _ : state) {
    total = 0;
    for (const std::string& f : files) {
      int fd = ::open(f.c_str(), O_RDONLY);
      ssize_t r;
      while ((r = ::read(fd, buf.data(), buf.size())) > 0) total += r;
      ::close(fd);
    }
    benchmark::DoNotOptimize(buf.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(total));
}
BENCHMARK(BM_CatFiles)->Unit(benchmark::kMillisecond)->UseRealTime();

// Every tensor into its buffer, `threads` readers taking tensors in turn
// (as RestoreV2 does on the intra-op pool).
void RestoreParallel(BundleReader& reader,
                     std::vector<std::unique_ptr<char[]>>& buffers,
                     int threads) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t t; (t = next++) < reader.Entries().size();) {
      Status s = reader.ReadInto(reader.Entries()[t].key, buffers[t].get(),
                                 kTensorBytes);
      if (!s.ok()) abort();
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
}

void BM_RestoreIntoBuffersThreads(benchmark::State& state) {
  const std::string& prefix = Checkpoint().prefix();
  std::vector<std::unique_ptr<char[]>> buffers(kTensors);
  for (auto& b : buffers) {
    b.reset(new char[kTensorBytes]);
    std::fill_n(b.get(), kTensorBytes, 0);
  }
  for (auto _ : state) {
    auto reader = BundleReader::Open(prefix);
    if (!reader.ok()) abort();
    RestoreParallel(**reader, buffers, static_cast<int>(state.range(0)));
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kTensors *
                          int64_t(kTensorBytes));
}
BENCHMARK(BM_RestoreIntoBuffersThreads)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void Restore(benchmark::State& state, bool fresh) {
  const std::string& prefix = Checkpoint().prefix();
  std::vector<std::unique_ptr<char[]>> buffers(kTensors);
  for (auto& b : buffers) {
    b.reset(new char[kTensorBytes]);
    std::fill_n(b.get(), kTensorBytes, 0);
  }
  for (auto _ : state) {
    auto reader = BundleReader::Open(prefix);
    if (!reader.ok()) abort();
    int t = 0;
    for (const BundleEntryInfo& info : (*reader)->Entries()) {
      if (fresh) buffers[t].reset(new char[kTensorBytes]);
      Status s = (*reader)->ReadInto(info.key, buffers[t].get(), kTensorBytes);
      if (!s.ok()) abort();
      ++t;
    }
    if (fresh) {
      for (auto& b : buffers) b.reset();
    }
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kTensors *
                          int64_t(kTensorBytes));
}

void BM_RestoreIntoBuffers(benchmark::State& state) { Restore(state, false); }
BENCHMARK(BM_RestoreIntoBuffers)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RestoreIntoNewBuffers(benchmark::State& state) { Restore(state, true); }
BENCHMARK(BM_RestoreIntoNewBuffers)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Crc32c(benchmark::State& state) {
  std::vector<char> data(kTensorBytes, 'x');
  for (auto _ : state) {
    benchmark::DoNotOptimize(crc32c::Value(data.data(), data.size()));
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(kTensorBytes));
}
BENCHMARK(BM_Crc32c)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dfg
