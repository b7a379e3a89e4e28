// BCast: NumPy broadcasting collapsed to the fewest dims.
#include "lib/kernels/cwise_ops.h"

#include <algorithm>

namespace dfg {

BCast::BCast(const TensorShape& x, const TensorShape& y) {
  const int rank = std::max(x.dims(), y.dims());
  enum State { kNone, kXBcast, kYBcast };
  std::vector<int64_t> out(rank);
  std::vector<std::pair<int64_t, State>> groups;
  for (int i = 0; i < rank; ++i) {
    const int xi = i - (rank - x.dims());
    const int yi = i - (rank - y.dims());
    const int64_t xd = xi >= 0 ? x.dim_size(xi) : 1;
    const int64_t yd = yi >= 0 ? y.dim_size(yi) : 1;
    State state;
    if (xd == yd) {
      out[i] = xd;
      state = kNone;
    } else if (xd == 1) {
      out[i] = yd;
      state = kXBcast;
    } else if (yd == 1) {
      out[i] = xd;
      state = kYBcast;
    } else {
      valid = false;
      return;
    }
    if (out[i] == 1) continue;
    if (!groups.empty() && groups.back().second == state) {
      groups.back().first *= out[i];
    } else {
      groups.push_back({out[i], state});
    }
  }
  output_shape = TensorShape(std::span<const int64_t>(out));
  same_shape = std::all_of(groups.begin(), groups.end(),
                           [](const auto& g) { return g.second == kNone; });
  if (groups.empty()) groups.push_back({1, kNone});
  const int n = static_cast<int>(groups.size());
  dims.resize(n);
  x_strides.resize(n);
  y_strides.resize(n);
  int64_t xs = 1, ys = 1;
  for (int g = n - 1; g >= 0; --g) {
    dims[g] = groups[g].first;
    x_strides[g] = groups[g].second == kXBcast ? 0 : xs;
    y_strides[g] = groups[g].second == kYBcast ? 0 : ys;
    if (groups[g].second != kXBcast) xs *= dims[g];
    if (groups[g].second != kYBcast) ys *= dims[g];
  }
}

Status IncompatibleShapes(const TensorShape& x, const TensorShape& y) {
  return InvalidArgument("Incompatible shapes: {} vs. {}", x.DebugString(),
                         y.DebugString());
}

}  // namespace dfg
