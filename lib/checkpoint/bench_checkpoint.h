// The 1 GiB checkpoint of the restore benchmarks (lib/checkpoint's and
// lib/savedmodel's): 64 float tensors "layer_<i>/kernel" of 4096x1024
// (16 MiB each), written once per process in a temporary directory removed
// at exit, or kept in DFG_BENCH_CHECKPOINT_DIR when that is set (to time
// `cat DIR/ckpt.data-* > /dev/null` on the same files, or another disk).
#ifndef DFG_LIB_CHECKPOINT_BENCH_CHECKPOINT_H_
#define DFG_LIB_CHECKPOINT_BENCH_CHECKPOINT_H_

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "lib/checkpoint/tensor_bundle.h"

namespace dfg::bench_checkpoint {

inline constexpr int kTensors = 64;
inline constexpr size_t kTensorBytes = size_t{16} << 20;

inline std::string TensorKey(int t) {
  return "layer_" + std::to_string(t) + "/kernel";
}

class BenchCheckpoint {
 public:
  BenchCheckpoint() {
    const char* keep = std::getenv("DFG_BENCH_CHECKPOINT_DIR");
    keep_ = keep != nullptr;
    dir_ = keep_ ? std::string(keep)
                 : (std::filesystem::temp_directory_path() /
                    ("dfg_ckpt_bench_" + std::to_string(::getpid())))
                       .string();
    prefix_ = dir_ + "/ckpt";
    if (keep_ && std::filesystem::exists(prefix_ + ".index")) return;
    BundleWriter writer(prefix_);
    std::vector<float> values(kTensorBytes / sizeof(float));
    std::mt19937 rng(1);
    for (int t = 0; t < kTensors; ++t) {
      for (float& v : values) v = static_cast<float>(rng()) * 1e-9f;
      Status s = writer.Add(TensorKey(t), tensorflow::DT_FLOAT,
                            {int64_t(values.size() / 1024), 1024},
                            values.data(), kTensorBytes);
      if (!s.ok()) abort();
    }
    if (!writer.Finish().ok()) abort();
  }
  ~BenchCheckpoint() {
    if (keep_) return;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::string& prefix() const { return prefix_; }

 private:
  bool keep_ = false;
  std::string dir_;
  std::string prefix_;
};

inline const BenchCheckpoint& Checkpoint() {
  static BenchCheckpoint checkpoint;  // removed at exit
  return checkpoint;
}

}  // namespace dfg::bench_checkpoint

#endif  // DFG_LIB_CHECKPOINT_BENCH_CHECKPOINT_H_
