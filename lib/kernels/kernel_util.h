// Internal helpers shared by the kernel files: dtype lists and dispatch,
// float conversion of 16-bit types, reading shape/axis inputs.
#ifndef DFG_LIB_KERNELS_KERNEL_UTIL_H_
#define DFG_LIB_KERNELS_KERNEL_UTIL_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/intra_op_pool.h"
#include "lib/kernels/kernel_registry.h"
#include "lib/kernels/op_kernel.h"
#include "lib/kernels/tensor.h"

namespace dfg {

template <typename... Ts>
struct TypeList {};

template <typename... A, typename... B>
constexpr TypeList<A..., B...> operator+(TypeList<A...>, TypeList<B...>) {
  return {};
}

using FloatTypes = TypeList<float, double, Half, BFloat16>;
using SignedIntTypes = TypeList<int8_t, int16_t, int32_t, int64_t>;
using UnsignedIntTypes = TypeList<uint8_t, uint16_t, uint32_t, uint64_t>;
using IntTypes = decltype(SignedIntTypes() + UnsignedIntTypes());
using RealTypes = decltype(FloatTypes() + IntTypes());
using SignedRealTypes = decltype(FloatTypes() + SignedIntTypes());
using ComplexTypes = TypeList<std::complex<float>, std::complex<double>>;
using NumberTypes = decltype(RealTypes() + ComplexTypes());
// Every type a Tensor can hold except resource.
using AllTypes = decltype(NumberTypes() + TypeList<bool, std::string>());

template <typename... Ts>
std::vector<DataType> DataTypes(TypeList<Ts...>) {
  return {DataTypeToEnum<Ts>::value...};
}

// Calls fn(T{}) for the T of `dtype` in the list; false if not in it.
template <typename... Ts, typename Fn>
bool Dispatch(TypeList<Ts...>, DataType dtype, Fn&& fn) {
  return ((dtype == DataTypeToEnum<Ts>::value ? (fn(Ts{}), true) : false) ||
          ...);
}

// A type constraint "T in <list>" for KernelRegistry::Register.
template <typename List>
KernelTypeConstraint TypeConstraint(std::string attr, List list) {
  return KernelTypeConstraint{std::move(attr), DataTypes(list)};
}

template <typename T>
constexpr bool kIsHalfLike =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// The type arithmetic runs in: float for half/bfloat16, T otherwise.
template <typename T>
using CalcType = std::conditional_t<kIsHalfLike<T>, float, T>;

template <typename T>
inline CalcType<T> Load(const T& v) {
  if constexpr (std::is_same_v<T, Half>) {
    return HalfToFloat(v);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16ToFloat(v);
  } else {
    return v;
  }
}

template <typename T, typename C>
inline T Store(const C& v) {
  if constexpr (std::is_same_v<T, Half>) {
    return FloatToHalf(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return FloatToBFloat16(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// Reads an int32/int64 tensor into int64s (any shape).
std::vector<int64_t> IntValues(const Tensor& t);
bool IsIntTensor(const Tensor& t);

// `out` (already shaped: out dim i = in dim perm[i], same dtype) = `in`
// with its dims permuted. Any dtype.
void TransposeInto(ThreadPoolInterface* pool, const Tensor& in,
                   const std::vector<int>& perm, Tensor* out);

// Copies the elements of `src` (any dtype) to `dst` + offsets, in elements.
void CopyElements(const Tensor& src, int64_t src_offset, Tensor* dst,
                  int64_t dst_offset, int64_t count);

// "[1,2,3]"-style rendering of int64s.
std::string VectorString(const std::vector<int64_t>& v);

// TensorFlow's CalculateResizeScale for the image resize kernels: in/out,
// or (in-1)/(out-1) with align_corners.
inline float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return align_corners && out > 1 ? (in - 1) / static_cast<float>(out - 1)
                                  : in / static_cast<float>(out);
}

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_KERNEL_UTIL_H_
