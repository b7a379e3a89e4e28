// Internal to the scatter kernels (scatter_ops.cc, scatter_var_ops.cc): the
// element update of each scatter op, TensorFlow's ScatterNd core (validation
// and in-order updates) and its error texts.
#ifndef DFG_LIB_KERNELS_SCATTER_OPS_H_
#define DFG_LIB_KERNELS_SCATTER_OPS_H_

#include <string>
#include <type_traits>
#include <vector>

#include "lib/kernels/kernel_util.h"

namespace dfg {

enum class UpdateOp { kAssign, kAdd, kSub, kMul, kDiv, kMin, kMax };

template <typename T>
constexpr bool kIsComplexType = std::is_same_v<T, std::complex<float>> ||
                                std::is_same_v<T, std::complex<double>>;

// Wrapping integer arithmetic (Eigen's in practice), no signed overflow.
template <typename T, typename F>
T WrapArith(T a, T b, F f) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(f(static_cast<U>(a), static_cast<U>(b)));
}

// *dst = *dst <op> src. Strings and bools add by concatenation and logical
// or (Eigen's + on them).
template <typename T>
void ApplyUpdate(UpdateOp op, T* dst, const T& src) {
  if (op == UpdateOp::kAssign) {
    *dst = src;
    return;
  }
  if constexpr (std::is_same_v<T, std::string>) {
    *dst += src;
  } else if constexpr (std::is_same_v<T, bool>) {
    *dst = *dst || src;
  } else if constexpr (std::is_same_v<T, ResourceHandle>) {
    *dst = src;
  } else if constexpr (std::is_integral_v<T> && sizeof(T) >= 4) {
    switch (op) {
      case UpdateOp::kAdd:
        *dst = WrapArith(*dst, src, [](auto a, auto b) { return a + b; });
        break;
      case UpdateOp::kSub:
        *dst = WrapArith(*dst, src, [](auto a, auto b) { return a - b; });
        break;
      case UpdateOp::kMul:
        *dst = WrapArith(*dst, src, [](auto a, auto b) { return a * b; });
        break;
      case UpdateOp::kDiv:
        *dst = src == 0 ? T(0) : *dst / src;
        break;
      case UpdateOp::kMin:
        *dst = src < *dst ? src : *dst;
        break;
      default:
        *dst = *dst < src ? src : *dst;
        break;
    }
  } else {
    const auto a = Load(*dst);
    const auto b = Load(src);
    switch (op) {
      case UpdateOp::kAdd:
        *dst = Store<T>(a + b);
        break;
      case UpdateOp::kSub:
        *dst = Store<T>(a - b);
        break;
      case UpdateOp::kMul:
        *dst = Store<T>(a * b);
        break;
      case UpdateOp::kDiv:
        if constexpr (std::is_integral_v<T>) {
          *dst = b == 0 ? T(0) : Store<T>(a / b);
        } else {
          *dst = Store<T>(a / b);
        }
        break;
      default:
        if constexpr (!kIsComplexType<T>) {
          const bool take = op == UpdateOp::kMin ? b < a : a < b;
          if (take) *dst = src;
        }
        break;
    }
  }
}

using UpdateTypes = AllTypes;
using AddTypes = NumberTypes;
using MinMaxTypes = RealTypes;

// The op's dtypes for each update kind.
inline std::vector<DataType> TypesFor(UpdateOp op) {
  switch (op) {
    case UpdateOp::kAssign:
      return DataTypes(UpdateTypes());
    case UpdateOp::kMin:
    case UpdateOp::kMax:
      return DataTypes(MinMaxTypes());
    default:
      return DataTypes(AddTypes());
  }
}

// Runs fn(T{}) for the element type of `dtype` (any type a scatter updates).
template <typename Fn>
void VisitScatterType(DataType dtype, Fn&& fn) {
  Dispatch(UpdateTypes() + TypeList<ResourceHandle>(), dtype, fn);
}

// TensorFlow's SliceDebugString: "[1,2]" for flat index `i` of `shape`, ""
// for a scalar.
std::string SliceString(const TensorShape& shape, int64_t i);

// TensorFlow's DoScatterNd on an `out` that already holds the starting
// values (shape `shape`): validates, then applies the updates in order. A
// bad index stops with an error, or is skipped when `ignore_bad`.
Status ScatterNdInto(const Tensor& indices, const Tensor& updates,
                     const TensorShape& shape, UpdateOp op, bool ignore_bad,
                     Tensor* out);

// The bad_indices_policy attr (absent: the default): true for IGNORE.
Status IgnoreBadIndices(OpKernelConstruction* ctx, bool* ignore);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_SCATTER_OPS_H_
