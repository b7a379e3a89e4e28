// libFuzzer target: .npy and .npz readers. Invariants: no crash, and what
// ParseNpy accepts, SerializeNpy writes and ParseNpy reads back unchanged.
//   ./npy_fuzz -max_total_time=300 corpus_dir testdata/npy
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lib/io/npy.h"

namespace {

void CheckRoundTrip(const dfg::NpyArray& array) {
  auto bytes = dfg::SerializeNpy(array);
  if (!bytes.ok()) abort();
  auto back = dfg::ParseNpy(*bytes, "fuzz-back");
  if (!back.ok() || back->dtype != array.dtype || back->shape != array.shape ||
      back->data != array.data || back->strings != array.strings) {
    abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (auto array = dfg::ParseNpy(bytes, "fuzz"); array.ok()) {
    CheckRoundTrip(*array);
  }
  if (auto arrays = dfg::ParseNpz(bytes, "fuzz"); arrays.ok()) {
    for (const auto& [name, array] : *arrays) CheckRoundTrip(array);
    if (!dfg::SerializeNpz(*arrays).ok()) abort();
  }
  return 0;
}
