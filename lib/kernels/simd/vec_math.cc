// Picks the vector math table once: the widest ISA the CPU (and the OS, which
// __builtin_cpu_supports also checks through XGETBV) supports, capped by
// DFG_SIMD. Compiled for the baseline like the rest of dfg.
#include "lib/kernels/simd/vec_math.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "lib/kernels/simd/vec_table.h"

namespace dfg::simd {
namespace {

std::atomic<const VecTable*> g_table{nullptr};
std::atomic<Level> g_level{Level::kBaseline};

bool CpuHas(Level level) {
#if DFG_SIMD_X86
  __builtin_cpu_init();
  const bool avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (level == Level::kAvx2) return avx2;
  if (level == Level::kAvx512) {
    return avx2 && __builtin_cpu_supports("avx512f");
  }
  return true;
#else
  return level == Level::kBaseline;
#endif
}

// The level DFG_SIMD asks for; unset or unknown: no cap.
Level EnvCap() {
  const char* v = std::getenv("DFG_SIMD");
  if (v == nullptr) return Level::kAvx512;
  if (std::strcmp(v, "baseline") == 0 || std::strcmp(v, "sse2") == 0) {
    return Level::kBaseline;
  }
  if (std::strcmp(v, "avx2") == 0) return Level::kAvx2;
  return Level::kAvx512;
}

const VecTable* TableFor(Level level) {
#if DFG_SIMD_X86
  switch (level) {
    case Level::kAvx512:
      return VecTableAvx512();
    case Level::kAvx2:
      return VecTableAvx2();
    case Level::kBaseline:
      break;
  }
#endif
  return VecTableBaseline();
}

void Select(Level cap) {
  Level level = cap;
  while (level != Level::kBaseline && !CpuHas(level)) {
    level = static_cast<Level>(static_cast<int>(level) - 1);
  }
  g_level.store(level, std::memory_order_relaxed);
  g_table.store(TableFor(level), std::memory_order_release);
}

const VecTable& Table() {
  const VecTable* t = g_table.load(std::memory_order_acquire);
  if (t == nullptr) {
    Select(EnvCap());  // racing first callers pick the same table
    t = g_table.load(std::memory_order_acquire);
  }
  return *t;
}

}  // namespace

Level ActiveLevel() {
  Table();
  return g_level.load(std::memory_order_relaxed);
}

const char* LevelName(Level level) {
  switch (level) {
    case Level::kAvx512:
      return "avx512";
    case Level::kAvx2:
      return "avx2";
    case Level::kBaseline:
      break;
  }
  return "baseline";
}

void SetLevelForTesting(Level level) { Select(level); }

void Unary(UnaryOp op, const float* x, float* y, size_t n) {
  Table().unary(op, x, y, n);
}

void LeakyRelu(const float* x, float alpha, float* y, size_t n) {
  Table().leaky_relu(x, alpha, y, n);
}

void Binary(BinaryOp op, Operands form, const float* x, const float* y,
            float* z, size_t n) {
  Table().binary(op, form, x, y, z, n);
}

void SoftmaxRows(const float* x, float* y, size_t rows, size_t depth,
                 bool log) {
  Table().softmax_rows(x, y, rows, depth, log);
}

}  // namespace dfg::simd
