// Solvers and products on banded matrices, as plain loops over the element
// type (float, double, complex64, complex128), in TensorFlow's arithmetic
// order where it matters for ties (pivot choices):
//   TridiagonalMatMul      superdiag, maindiag, subdiag [..., 1, m] x rhs
//   TridiagonalSolve       diagonals [..., 3, m]: Gaussian elimination with
//                          partial pivoting (LAPACK dgtsv's), optionally
//                          perturbing tiny pivots (dlagtf / dlagts'), or the
//                          Thomas algorithm without pivoting
//   BandedTriangularSolve  bands [..., K, n] (LEFT_RIGHT aligned), batch dims
//                          broadcast
// A singular system gives NaN (TensorFlow logs a warning; for complex types
// std::numeric_limits gives 0, as in TensorFlow).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "lib/kernels/cwise_ops.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

using BandTypes =
    TypeList<float, double, std::complex<float>, std::complex<double>>;

template <typename T>
using RealOf = decltype(std::abs(T{}));

// LinearAlgebraOp's input checks: input 0 of rank >= 2, the others of its
// rank and batch dims.
Status CheckSameBatch(OpKernelContext* ctx, int inputs) {
  const Tensor& first = ctx->input(0);
  if (first.dims() < 2) {
    return InvalidArgument("Input tensor 0 must have rank >= 2, got {}",
                           first.dims());
  }
  for (int i = 1; i < inputs; ++i) {
    const Tensor& t = ctx->input(i);
    if (t.dims() != first.dims()) {
      return InvalidArgument("All input tensors must have the same rank.");
    }
    for (int d = 0; d < t.dims() - 2; ++d) {
      if (t.dim_size(d) != first.dim_size(d)) {
        return InvalidArgument(
            "All input tensors must have the same outer dimensions.");
      }
    }
  }
  return Status::Ok();
}

int64_t Dim(const Tensor& t, int from_end) {
  return t.dim_size(t.dims() - from_end);
}

class TridiagonalMatMulOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, CheckSameBatch(ctx, 4));
    const Tensor& rhs = ctx->input(3);
    const int64_t m = Dim(rhs, 2), k = Dim(rhs, 1);
    const char* names[] = {"superdiagonal", "main diagonal", "subdiagonal"};
    for (int i = 0; i < 3; ++i) {
      const Tensor& d = ctx->input(i);
      DFG_OP_REQUIRES(ctx, Dim(d, 2) == 1 && Dim(d, 1) == m,
                      InvalidArgument("Invalid {} shape.", names[i]));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, rhs.shape(), &out));
    if (out->NumElements() == 0) return;
    Dispatch(BandTypes(), rhs.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* sup = static_cast<const T*>(ctx->input(0).data());
      const T* dia = static_cast<const T*>(ctx->input(1).data());
      const T* sub = static_cast<const T*>(ctx->input(2).data());
      const T* x = static_cast<const T*>(rhs.data());
      T* y = static_cast<T*>(out->data());
      for (int64_t b = 0; b < out->NumElements() / (m * k); ++b) {
        const T* xb = x + b * m * k;
        T* yb = y + b * m * k;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < k; ++j) {
            T acc = xb[i * k + j] * dia[b * m + i];
            if (i > 0) acc += xb[(i - 1) * k + j] * sub[b * m + i];
            if (i + 1 < m) acc += xb[(i + 1) * k + j] * sup[b * m + i];
            yb[i * k + j] = acc;
          }
        }
      }
    });
  }
};

// One tridiagonal system: super/diag/sub of length n (super's last and sub's
// first are ignored), rhs and x n x k row-major.
template <typename T>
struct Tridiagonal {
  const T* sup;
  const T* diag;
  const T* sub;
  const T* rhs;
  T* x;
  int64_t n, k;

  T& X(int64_t r, int64_t c) { return x[r * k + c]; }
  T R(int64_t r, int64_t c) const { return rhs[r * k + c]; }
  void Fail() { std::fill(x, x + n * k, std::numeric_limits<T>::quiet_NaN()); }

  // Gaussian elimination with row interchanges; u holds U's diagonal and two
  // superdiagonals.
  void SolvePivoting() {
    std::vector<T> u0(n), u1(n), u2(n);
    u0[0] = diag[0];
    u1[0] = sup[0];
    for (int64_t c = 0; c < k; ++c) X(0, c) = R(0, c);
    for (int64_t i = 0; i + 1 < n; ++i) {
      if (std::abs(u0[i]) >= std::abs(sub[i + 1])) {
        if (u0[i] == T(0)) return Fail();
        const T f = sub[i + 1] / u0[i];
        u0[i + 1] = diag[i + 1] - f * u1[i];
        for (int64_t c = 0; c < k; ++c) X(i + 1, c) = R(i + 1, c) - f * X(i, c);
        if (i != n - 2) {
          u1[i + 1] = sup[i + 1];
          u2[i] = T(0);
        }
      } else {
        const T f = u0[i] / sub[i + 1];
        u0[i] = sub[i + 1];
        u0[i + 1] = u1[i] - f * diag[i + 1];
        u1[i] = diag[i + 1];
        for (int64_t c = 0; c < k; ++c) {
          const T xi = X(i, c);
          X(i + 1, c) = xi - f * R(i + 1, c);
          X(i, c) = R(i + 1, c);
        }
        if (i != n - 2) {
          u2[i] = sup[i + 1];
          u1[i + 1] = -f * sup[i + 1];
        }
      }
    }
    if (u0[n - 1] == T(0)) return Fail();
    for (int64_t c = 0; c < k; ++c) {
      X(n - 1, c) /= u0[n - 1];
      X(n - 2, c) = (X(n - 2, c) - u1[n - 2] * X(n - 1, c)) / u0[n - 2];
      for (int64_t i = n - 3; i >= 0; --i) {
        X(i, c) = (X(i, c) - u1[i] * X(i + 1, c) - u2[i] * X(i + 2, c)) / u0[i];
      }
    }
  }

  void SolveThomas() {
    std::vector<T> u(n);
    if (diag[0] == T(0)) return Fail();
    u[0] = sup[0] / diag[0];
    for (int64_t c = 0; c < k; ++c) X(0, c) = R(0, c) / diag[0];
    for (int64_t i = 1; i < n; ++i) {
      const T denom = diag[i] - sub[i] * u[i - 1];
      if (denom == T(0)) return Fail();
      u[i] = sup[i] / denom;
      for (int64_t c = 0; c < k; ++c)
        X(i, c) = (R(i, c) - sub[i] * X(i - 1, c)) / denom;
    }
    for (int64_t i = n - 2; i >= 0; --i)
      for (int64_t c = 0; c < k; ++c) X(i, c) -= u[i] * X(i + 1, c);
  }

  void SolvePerturbed();
  static void Perturb(RealOf<T> perturb, T& pivot, std::vector<T>& row);
};

// Moves a pivot of magnitude < 1 away from zero (by `perturb`, doubling) or
// scales it and the row up, until neither row / pivot nor 1 / pivot
// overflows (LAPACK dlagts' safeguard).
template <typename T>
void Tridiagonal<T>::Perturb(RealOf<T> perturb, T& pivot, std::vector<T>& row) {
  using Real = RealOf<T>;
  constexpr Real one(1);
  constexpr Real tiny = std::numeric_limits<Real>::min();
  constexpr Real small = one / std::numeric_limits<Real>::max();
  const Real safemin =
      small < tiny ? tiny
                   : (one + std::numeric_limits<Real>::epsilon()) * small;
  const Real bignum = one / safemin;
  Real abs_pivot = std::abs(pivot);
  if (abs_pivot >= one) return;
  perturb =
      std::copysign(std::max(std::abs(perturb), safemin), std::real(pivot));
  Real max_factor = 0;
  for (const T& v : row) max_factor = std::max(max_factor, Real(std::abs(v)));
  bool stop = false;
  while (abs_pivot < one && !stop) {
    if (abs_pivot < safemin) {
      if (abs_pivot == 0 || max_factor * safemin > abs_pivot) {
        pivot += perturb;
        perturb *= 2;
      } else {
        pivot *= bignum;
        for (T& v : row) v *= bignum;
        stop = true;
      }
    } else if (max_factor > abs_pivot * bignum) {
      pivot += perturb;
      perturb *= 2;
    } else {
      stop = true;
    }
    abs_pivot = std::abs(pivot);
  }
}

// Pivoting by scaled magnitudes (dlagtf), then back substitution through
// Perturb: a numerically singular system still gives finite values.
template <typename T>
void Tridiagonal<T>::SolvePerturbed() {
  using Real = RealOf<T>;
  const Real eps = std::numeric_limits<Real>::epsilon();
  std::vector<T> row(k);
  auto solve_row = [&](int64_t r, T denom, Real tol) {
    Perturb(tol, denom, row);
    for (int64_t c = 0; c < k; ++c) X(r, c) = row[c] * (T(1) / denom);
  };
  if (n == 1) {
    for (int64_t c = 0; c < k; ++c) row[c] = R(0, c);
    return solve_row(0, diag[0], eps * std::abs(diag[0]));
  }
  std::vector<T> u0(n), u1(n), u2(n);
  u0[0] = diag[0];
  u1[0] = sup[0];
  Real max_u = std::max(std::abs(u0[0]), std::abs(u1[0]));
  Real scale1 = std::abs(u0[0]) + std::abs(u1[0]);
  for (int64_t c = 0; c < k; ++c) X(0, c) = R(0, c);
  for (int64_t i = 0; i + 1 < n; ++i) {
    u0[i + 1] = diag[i + 1];
    Real scale2 = std::abs(sub[i + 1]) + std::abs(u0[i + 1]);
    if (i < n - 2) scale2 += std::abs(sup[i + 1]);
    const Real piv1 = u0[i] == T(0) ? Real(0) : std::abs(u0[i]) / scale1;
    const Real piv2 = scale2 == 0 ? Real(0) : std::abs(sub[i + 1]) / scale2;
    if (sub[i + 1] == T(0)) {  // row i + 1 is already eliminated
      scale1 = scale2;
      u1[i + 1] = sup[i + 1];
      u2[i] = T(0);
      for (int64_t c = 0; c < k; ++c) X(i + 1, c) = R(i + 1, c);
    } else if (piv2 <= piv1) {
      const T f = sub[i + 1] / u0[i];
      scale1 = scale2;
      u0[i + 1] = diag[i + 1] - f * u1[i];
      u1[i + 1] = sup[i + 1];
      u2[i] = T(0);
      for (int64_t c = 0; c < k; ++c) X(i + 1, c) = R(i + 1, c) - f * X(i, c);
    } else {
      const T f = u0[i] / sub[i + 1];
      u0[i] = sub[i + 1];
      u0[i + 1] = u1[i] - f * diag[i + 1];
      u1[i] = diag[i + 1];
      if (i < n - 2) {
        u2[i] = sup[i + 1];
        u1[i + 1] = -f * sup[i + 1];
      }
      for (int64_t c = 0; c < k; ++c) {
        X(i + 1, c) = X(i, c) - f * R(i + 1, c);
        X(i, c) = R(i + 1, c);
      }
    }
    if (i < n - 2) {
      max_u = std::max({max_u, Real(std::abs(u0[i])), Real(std::abs(u1[i])),
                        Real(std::abs(u2[i]))});
    }
  }
  max_u = std::max(max_u, Real(std::abs(u0[n - 1])));
  const Real tol = eps * max_u;
  for (int64_t c = 0; c < k; ++c) row[c] = X(n - 1, c);
  solve_row(n - 1, u0[n - 1], tol);
  for (int64_t c = 0; c < k; ++c)
    row[c] = X(n - 2, c) - u1[n - 2] * X(n - 1, c);
  solve_row(n - 2, u0[n - 2], std::copysign(tol, std::real(u0[n - 2])));
  for (int64_t i = n - 3; i >= 0; --i) {
    for (int64_t c = 0; c < k; ++c)
      row[c] = X(i, c) - u1[i] * X(i + 1, c) - u2[i] * X(i + 2, c);
    solve_row(i, u0[i], std::copysign(tol, std::real(u0[i])));
  }
}

class TridiagonalSolveOp : public OpKernel {
 public:
  explicit TridiagonalSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("partial_pivoting", &pivoting_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("perturb_singular", &perturb_));
    DFG_OP_REQUIRES(ctx, pivoting_ || !perturb_,
                    InvalidArgument("Setting perturb_singular requires also "
                                    "setting partial_pivoting."));
  }
  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, CheckSameBatch(ctx, 2));
    const Tensor& diags = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFG_OP_REQUIRES(ctx, Dim(diags, 2) == 3,
                    InvalidArgument("Expected diagonals to be provided as a "
                                    "matrix with 3 rows, got {} rows.",
                                    Dim(diags, 2)));
    const int64_t n = Dim(diags, 1), k = Dim(rhs, 1);
    DFG_OP_REQUIRES(ctx, n == Dim(rhs, 2),
                    InvalidArgument("Expected the same number of left-hand "
                                    "sides and right-hand sides, got {} and "
                                    "{}.",
                                    n, Dim(rhs, 2)));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, rhs.shape(), &out));
    if (n == 0 || k == 0) return;
    Dispatch(BandTypes(), rhs.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* d = static_cast<const T*>(diags.data());
      for (int64_t b = 0; b < out->NumElements() / (n * k); ++b) {
        const T* db = d + b * 3 * n;
        Tridiagonal<T> sys{db,
                           db + n,
                           db + 2 * n,
                           static_cast<const T*>(rhs.data()) + b * n * k,
                           static_cast<T*>(out->data()) + b * n * k,
                           n,
                           k};
        Solve(sys);
      }
    });
  }

 private:
  template <typename T>
  void Solve(Tridiagonal<T>& sys) const {
    if (pivoting_ && perturb_) return sys.SolvePerturbed();
    if (sys.n == 1) {
      if (sys.diag[0] == T(0)) return sys.Fail();
      for (int64_t c = 0; c < sys.k; ++c)
        sys.X(0, c) = sys.R(0, c) / sys.diag[0];
      return;
    }
    if (pivoting_) return sys.SolvePivoting();
    sys.SolveThomas();
  }

  bool pivoting_ = true, perturb_ = false;
};

// The entry (i, j) of the triangular matrix in band storage: row d of a
// lower band matrix is the d-th subdiagonal, right-aligned (A[i][i-d] at
// column i); row K-1-d of an upper one the d-th superdiagonal, left-aligned
// (A[i][i+d] at column i).
template <typename T>
struct Bands {
  const T* b;
  int64_t num_bands, n;
  bool lower;
  T At(int64_t i, int64_t j) const {
    const int64_t d = lower ? i - j : j - i;
    if (d < 0 || d >= num_bands) return T(0);
    return b[(lower ? d : num_bands - 1 - d) * n + i];
  }
};

template <typename T>
T Conj(const T& v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v;
  } else {
    return std::conj(v);
  }
}

// Solves op(A) X = B by substitution over the band (op: adjoint or not).
template <typename T>
void BandedSolve(const Bands<T>& a, bool adjoint, const T* rhs, T* x,
                 int64_t k) {
  const int64_t n = a.n, w = a.num_bands - 1;
  // Forward order when the effective matrix is lower triangular.
  const bool forward = a.lower != adjoint;
  for (int64_t s = 0; s < n; ++s) {
    const int64_t i = forward ? s : n - 1 - s;
    const int64_t lo = forward ? std::max<int64_t>(0, i - w) : i + 1;
    const int64_t hi = forward ? i : std::min(n, i + w + 1);
    const T pivot = adjoint ? Conj(a.At(i, i)) : a.At(i, i);
    for (int64_t c = 0; c < k; ++c) {
      T acc = rhs[i * k + c];
      for (int64_t j = lo; j < hi; ++j)
        acc -= (adjoint ? Conj(a.At(j, i)) : a.At(i, j)) * x[j * k + c];
      x[i * k + c] = acc / pivot;
    }
  }
}

class BandedTriangularSolveOp : public OpKernel {
 public:
  explicit BandedTriangularSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("lower", &lower_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint", &adjoint_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, Validate(a, rhs));
    TensorShape ab, bb;
    for (int d = 0; d < a.dims() - 2; ++d) ab.AddDim(a.dim_size(d));
    for (int d = 0; d < rhs.dims() - 2; ++d) bb.AddDim(rhs.dim_size(d));
    const BCast bcast(ab, bb);
    DFG_OP_REQUIRES(
        ctx, bcast.valid,
        InvalidArgument("In[0] and In[1] must have compatible batch "
                        "dimensions: {} vs. {}",
                        a.shape().DebugString(), rhs.shape().DebugString()));
    const int64_t num_bands = Dim(a, 2), n = Dim(a, 1), k = Dim(rhs, 1);
    DFG_OP_REQUIRES(
        ctx, n == Dim(rhs, 2),
        InvalidArgument("In[0] mismatch In[1] shape: {} vs. {}: "
                        "{} {} {} {}",
                        n, Dim(rhs, 2), a.shape().DebugString(),
                        rhs.shape().DebugString(), int{lower_}, int{adjoint_}));
    TensorShape shape = bcast.output_shape;
    shape.AddDim(n);
    shape.AddDim(k);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    Dispatch(BandTypes(), a.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* ap = static_cast<const T*>(a.data());
      // TensorFlow checks the diagonal of the first matrix only.
      const T* diag = ap + (lower_ ? 0 : (num_bands - 1) * n);
      bool invertible = true;
      for (int64_t i = 0; i < n; ++i) invertible &= std::abs(diag[i]) > 0;
      DFG_OP_REQUIRES(ctx, invertible,
                      InvalidArgument("Input matrix is not invertible."));
      for (int64_t b = 0; b < shape.num_elements() / (n * k); ++b) {
        const Bands<T> bands{
            ap + BatchIndex(bcast.x_strides, bcast.dims, b) * num_bands * n,
            num_bands, n, lower_};
        BandedSolve(bands, adjoint_,
                    static_cast<const T*>(rhs.data()) +
                        BatchIndex(bcast.y_strides, bcast.dims, b) * n * k,
                    static_cast<T*>(out->data()) + b * n * k, k);
      }
    });
  }

 private:
  static Status Validate(const Tensor& a, const Tensor& rhs) {
    if (a.dims() < 2)
      return InvalidArgument("In[0] ndims must be >= 2: {}", a.dims());
    if (rhs.dims() < 2) {
      return InvalidArgument("In[1] ndims must be >= 2: {}", rhs.dims());
    }
    if (a.NumElements() == 0) {
      return InvalidArgument("In[0] must not be an empty tensor: {}",
                             EmptyDebugString(a));
    }
    if (rhs.NumElements() == 0) {
      return InvalidArgument("In[1] must not be an empty tensor: {}",
                             EmptyDebugString(rhs));
    }
    return Status::Ok();
  }
  static std::string EmptyDebugString(const Tensor& t) {
    return "Tensor<type: " + DataTypeString(t.dtype()) +
           " shape: " + t.shape().DebugString() + " values: >";
  }
  // The operand's matrix index for output batch b.
  static int64_t BatchIndex(const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& dims, int64_t b) {
    int64_t index = 0;
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      index += (b % dims[d]) * strides[d];
      b /= dims[d];
    }
    return index;
  }

  bool lower_ = true, adjoint_ = false;
};

}  // namespace

void RegisterLinalgBandKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("T", BandTypes());
  r->Register<TridiagonalMatMulOp>("TridiagonalMatMul", {types});
  r->Register<TridiagonalSolveOp>("TridiagonalSolve", {types});
  r->Register<BandedTriangularSolveOp>("BandedTriangularSolve", {types});
}

}  // namespace dfg
