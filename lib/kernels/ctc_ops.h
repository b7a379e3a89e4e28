// Internal to the CTC kernels (ctc_ops.cc, ctc_loss_op.cc): log-space sums
// as TensorFlow's ctc_loss_util.h computes them.
#ifndef DFG_LIB_KERNELS_CTC_OPS_H_
#define DFG_LIB_KERNELS_CTC_OPS_H_

#include <cmath>
#include <limits>

namespace dfg::ctc {

template <typename T>
T LogZero() {
  return -std::numeric_limits<T>::infinity();
}

// log(exp(a) + exp(b)). The correction term is computed in float, as
// TensorFlow's log1pf(expf(.)): for double it has a float's precision.
template <typename T>
T LogSumExp(T a, T b) {
  if (a <= LogZero<T>()) return b;
  if (b <= LogZero<T>()) return a;
  auto term = [](T d) {
    return static_cast<T>(std::log1p(std::exp(static_cast<float>(d))));
  };
  return a > b ? a + term(b - a) : b + term(a - b);
}

}  // namespace dfg::ctc

#endif  // DFG_LIB_KERNELS_CTC_OPS_H_
