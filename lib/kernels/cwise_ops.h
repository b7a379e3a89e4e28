// Internal: the element-wise machinery. NumPy broadcasting reduced to a few
// collapsed dims (BCast), and loops over them with fast paths: same shape
// (one flat loop the compiler vectorizes), scalar on either side, and a
// general strided walk whose innermost dim is contiguous or broadcast.
// Large loops are split over the intra-op pool. float32 loops of functors
// that name a simd op (`static constexpr simd::UnaryOp kVec` /
// `simd::BinaryOp kVec`) run the vector math of simd/vec_math.h instead.
#ifndef DFG_LIB_KERNELS_CWISE_OPS_H_
#define DFG_LIB_KERNELS_CWISE_OPS_H_

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "lib/kernels/intra_op_pool.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/simd/vec_math.h"
#include "lib/kernels/tensor.h"

namespace dfg {

// NumPy broadcasting of two shapes. `valid` false: incompatible.
struct BCast {
  BCast(const TensorShape& x, const TensorShape& y);

  bool valid = true;
  TensorShape output_shape;
  // Collapsed iteration space (row-major), and each input's stride per
  // collapsed dim (0 where the input is broadcast).
  std::vector<int64_t> dims;
  std::vector<int64_t> x_strides;
  std::vector<int64_t> y_strides;
  bool same_shape = false;  // no broadcasting at all (flat loop)
};

// "Incompatible shapes: [2,3] vs. [4]".
Status IncompatibleShapes(const TensorShape& x, const TensorShape& y);

// Below this, element-wise loops stay on the calling thread.
inline constexpr int64_t kParallelMinElements = 32768;

// ParallelFor's cost per element (about cycles) of a vectorized unary op.
inline constexpr int64_t kVecUnaryCost = 4;

// Runs fn(begin, end) over [0, n), split over `pool` when large.
template <typename Fn>
void ForRange(ThreadPoolInterface* pool, int64_t n, int64_t cost, Fn&& fn) {
  if (pool == nullptr || n < kParallelMinElements) {
    fn(int64_t{0}, n);
    return;
  }
  ParallelFor(pool, n, cost, [&](int64_t b, int64_t e) { fn(b, e); });
}

// The element-wise result of functor F on T inputs: bool for predicates,
// else T.
template <typename F, typename T>
using BinaryOut = std::conditional_t<
    std::is_same_v<decltype(std::declval<F&>()(Load(std::declval<T>()),
                                               Load(std::declval<T>()))),
                   bool>,
    bool, T>;

// Functors naming the simd op that computes them over floats.
template <typename F>
concept HasVecUnary = requires {
  simd::UnaryOp{F::kVec};
};
template <typename F>
concept HasVecBinary = requires {
  simd::BinaryOp{F::kVec};
};

// True when z = f(x, y) over floats runs simd::Binary.
template <typename F, typename T, typename O>
constexpr bool kVecBinary =
    std::conjunction_v<std::is_same<T, float>, std::is_same<O, float>,
                       std::bool_constant<HasVecBinary<F>>>;

template <typename T, typename O, typename F>
void BinarySame(const T* __restrict x, const T* __restrict y, O* __restrict z,
                int64_t n, F& f) {
  if constexpr (kVecBinary<F, T, O>) {
    simd::Binary(F::kVec, simd::Operands::kBoth, x, y, z, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i) z[i] = Store<O>(f(Load(x[i]), Load(y[i])));
}

template <typename T, typename O, typename F>
void BinaryScalarX(const T& x, const T* __restrict y, O* __restrict z,
                   int64_t n, F& f) {
  if constexpr (kVecBinary<F, T, O>) {
    simd::Binary(F::kVec, simd::Operands::kScalarX, &x, y, z, n);
    return;
  }
  const auto xv = Load(x);
  for (int64_t i = 0; i < n; ++i) z[i] = Store<O>(f(xv, Load(y[i])));
}

template <typename T, typename O, typename F>
void BinaryScalarY(const T* __restrict x, const T& y, O* __restrict z,
                   int64_t n, F& f) {
  if constexpr (kVecBinary<F, T, O>) {
    simd::Binary(F::kVec, simd::Operands::kScalarY, x, &y, z, n);
    return;
  }
  const auto yv = Load(y);
  for (int64_t i = 0; i < n; ++i) z[i] = Store<O>(f(Load(x[i]), yv));
}

// Output elements [begin, end) of a broadcast: walks the collapsed dims.
template <typename T, typename O, typename F>
void BinaryGeneral(const BCast& b, const T* x, const T* y, O* z, int64_t begin,
                   int64_t end, F& f) {
  const int rank = static_cast<int>(b.dims.size());
  const int64_t inner = b.dims[rank - 1];
  const int64_t xs = b.x_strides[rank - 1], ys = b.y_strides[rank - 1];
  // Decompose `begin` into an index per dim.
  std::vector<int64_t> idx(rank, 0);
  int64_t rem = begin;
  for (int d = rank - 1; d >= 0; --d) {
    idx[d] = rem % b.dims[d];
    rem /= b.dims[d];
  }
  int64_t pos = begin;
  while (pos < end) {
    int64_t xo = 0, yo = 0;
    for (int d = 0; d < rank - 1; ++d) {
      xo += idx[d] * b.x_strides[d];
      yo += idx[d] * b.y_strides[d];
    }
    const int64_t start = idx[rank - 1];
    const int64_t count = std::min(inner - start, end - pos);
    const T* xp = x + xo + start * xs;
    const T* yp = y + yo + start * ys;
    O* zp = z + pos;
    if (xs == 1 && ys == 1) {
      BinarySame(xp, yp, zp, count, f);
    } else if (xs == 0 && ys == 1) {
      BinaryScalarX(*xp, yp, zp, count, f);
    } else if (xs == 1 && ys == 0) {
      BinaryScalarY(xp, *yp, zp, count, f);
    } else {
      for (int64_t i = 0; i < count; ++i) {
        zp[i] = Store<O>(f(Load(xp[i * xs]), Load(yp[i * ys])));
      }
    }
    pos += count;
    idx[rank - 1] = 0;
    for (int d = rank - 2; d >= 0; --d) {
      if (++idx[d] < b.dims[d]) break;
      idx[d] = 0;
    }
  }
}

// z = f(x, y) with broadcasting; z has b.output_shape (n elements), x and y
// have xn and yn elements. Functors with an `error` member (division by
// zero...) report it through the return value (true: some element set it).
template <typename T, typename O, typename F>
bool BinaryCompute(ThreadPoolInterface* pool, const BCast& b, const T* xd,
                   int64_t xn, const T* yd, int64_t yn, O* zd, int64_t n,
                   const F& proto_f) {
  std::atomic<bool> error{false};
  auto run = [&](int64_t begin, int64_t end) {
    F f = proto_f;
    if (b.same_shape) {
      BinarySame(xd + begin, yd + begin, zd + begin, end - begin, f);
    } else if (xn == 1) {
      BinaryScalarX(xd[0], yd + begin, zd + begin, end - begin, f);
    } else if (yn == 1) {
      BinaryScalarY(xd + begin, yd[0], zd + begin, end - begin, f);
    } else {
      BinaryGeneral(b, xd, yd, zd, begin, end, f);
    }
    if constexpr (requires { f.error; }) {
      if (f.error) error.store(true, std::memory_order_relaxed);
    }
  };
  if (n == 0) return false;
  ForRange(pool, n, 2, run);
  return error.load();
}

// The kernel of a broadcasting binary op: functor F over the dtypes Types
// (attr T). Output dtype: T, or bool for predicates.
template <typename F, typename Types>
class BinaryOpKernel : public OpKernel {
 public:
  explicit BinaryOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Dispatch(Types(), ctx->input_type(0),
             [&](auto t) { fn_ = &Run<decltype(t)>; });
    if (fn_ == nullptr) {
      ctx->SetStatus(InvalidArgument("{} does not support {}", ctx->def().op(),
                                     DataTypeString(ctx->input_type(0))));
    }
  }
  void Compute(OpKernelContext* ctx) override { fn_(ctx); }

 private:
  template <typename T>
  static void Run(OpKernelContext* ctx) {
    using O = BinaryOut<F, T>;
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BCast b(x.shape(), y.shape());
    if (!b.valid) {
      ctx->SetStatus(IncompatibleShapes(x.shape(), y.shape()));
      return;
    }
    const T* xd = static_cast<const T*>(x.data());
    const T* yd = static_cast<const T*>(y.data());
    const int64_t xn = x.NumElements(), yn = y.NumElements();
    Tensor* z = nullptr;
    Status s = std::is_same_v<O, T>
                   ? ctx->forward_input_or_allocate_output({0, 1}, 0,
                                                           b.output_shape, &z)
                   : ctx->allocate_output(0, b.output_shape, &z);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    // z may share x's or y's buffer (forwarding): same index, read first.
    const bool error =
        BinaryCompute(ctx->intra_op_pool(), b, xd, xn, yd, yn,
                      static_cast<O*>(z->data()), z->NumElements(), F());
    if constexpr (requires { F::Error(); }) {
      if (error) ctx->SetStatus(F::Error());
    }
  }

  void (*fn_)(OpKernelContext*) = nullptr;
};

// The element-wise result of unary functor F on T: bool for predicates.
template <typename F, typename T>
using UnaryOut = std::conditional_t<
    std::is_same_v<decltype(std::declval<F&>()(Load(std::declval<T>()))), bool>,
    bool, T>;

// y = f(x) over n elements.
template <typename T, typename O, typename F>
bool UnaryCompute(ThreadPoolInterface* pool, const T* xd, O* yd, int64_t n,
                  const F& proto_f) {
  if constexpr (std::is_same_v<T, float> && std::is_same_v<O, float> &&
                HasVecUnary<F>) {
    ForRange(pool, n, kVecUnaryCost, [&](int64_t begin, int64_t end) {
      simd::Unary(F::kVec, xd + begin, yd + begin, end - begin);
    });
    return false;
  }
  std::atomic<bool> error{false};
  auto run = [&](int64_t begin, int64_t end) {
    F f = proto_f;
    const T* __restrict xp = xd;
    O* __restrict yp = yd;
    for (int64_t i = begin; i < end; ++i) yp[i] = Store<O>(f(Load(xp[i])));
    if constexpr (requires { f.error; }) {
      if (f.error) error.store(true, std::memory_order_relaxed);
    }
  };
  if (n == 0) return false;
  ForRange(pool, n, 8, run);
  return error.load();
}

// The kernel of an element-wise unary op: functor F over Types (attr T).
template <typename F, typename Types>
class UnaryOpKernel : public OpKernel {
 public:
  explicit UnaryOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Dispatch(Types(), ctx->input_type(0),
             [&](auto t) { fn_ = &Run<decltype(t)>; });
    if (fn_ == nullptr) {
      ctx->SetStatus(InvalidArgument("{} does not support {}", ctx->def().op(),
                                     DataTypeString(ctx->input_type(0))));
    }
  }
  void Compute(OpKernelContext* ctx) override { fn_(ctx); }

 private:
  template <typename T>
  static void Run(OpKernelContext* ctx) {
    using O = UnaryOut<F, T>;
    const Tensor& x = ctx->input(0);
    const T* xd = static_cast<const T*>(x.data());
    const TensorShape shape = x.shape();
    Tensor* y = nullptr;
    Status s = std::is_same_v<O, T>
                   ? ctx->forward_input_or_allocate_output({0}, 0, shape, &y)
                   : ctx->allocate_output(0, shape, &y);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    UnaryCompute(ctx->intra_op_pool(), xd, static_cast<O*>(y->data()),
                 y->NumElements(), F());
  }

  void (*fn_)(OpKernelContext*) = nullptr;
};

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_CWISE_OPS_H_
