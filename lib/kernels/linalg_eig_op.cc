// Eig: the eigenvalues and eigenvectors of general matrices (float, double,
// complex64, complex128; complex output), in TensorFlow's order as far as
// it can be had:
// - complex input: TensorFlow's Eigen complex solver sorts the eigenvalues
//   by ascending modulus, so the order is exact. The Schur form here is a
//   complex single-shift QR in the manner of that solver (Wilkinson-like
//   shift from the trailing 2 x 2 block, exceptional shifts at iterations 10
//   and 20) on LAPACK's Hessenberg form; eigenvectors by back substitution
//   on the triangular factor, mapped back, unit 2-norm.
// - real input: TensorFlow's real solver leaves the eigenvalues in its real
//   Schur order, unsorted. LAPACK's dgeevx (no balancing) runs the same kind
//   of Francis QR and often gives the same order, not always (the oracle
//   compares real-input results in one canonical order).
// Eigenvector phases are not Eigen's: compare them up to a unit factor.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "lib/kernels/linalg_complex.h"

using dfg::Complex;

extern "C" {
void zgehrd_(const int* n, const int* ilo, const int* ihi, Complex* a,
             const int* lda, Complex* tau, Complex* work, const int* lwork,
             int* info);
void dgeevx_(const char* balanc, const char* jobvl, const char* jobvr,
             const char* sense, const int* n, double* a, const int* lda,
             double* wr, double* wi, double* vl, const int* ldvl, double* vr,
             const int* ldvr, int* ilo, int* ihi, double* scale, double* abnrm,
             double* rconde, double* rcondv, double* work, const int* lwork,
             int* iwork, int* info, size_t, size_t, size_t, size_t);
void zunghr_(const int* n, const int* ilo, const int* ihi, Complex* a,
             const int* lda, const Complex* tau, Complex* work,
             const int* lwork, int* info);
}

namespace dfg {
namespace {

double Norm1(const Complex& z) {
  return std::abs(z.real()) + std::abs(z.imag());
}

// A = U T U^H, T upper triangular, by Hessenberg reduction and shifted QR.
class ComplexSchur {
 public:
  explicit ComplexSchur(CMat a) : t_(std::move(a)), u_(t_.n) {}

  // False when the QR does not converge in 30 n iterations.
  bool Compute() {
    Hessenberg();
    const int n = t_.n;
    int iu = n - 1, iter = 0, total = 0;
    while (true) {
      while (iu > 0 && Negligible(iu - 1)) {
        iter = 0;
        --iu;
      }
      if (iu == 0) return true;
      ++iter;
      if (++total > 30 * n) return false;
      int il = iu - 1;
      while (il > 0 && !Negligible(il - 1)) --il;
      Step(il, iu, Shift(iu, iter));
    }
  }

  CMat& t() { return t_; }
  CMat& u() { return u_; }

 private:
  void Hessenberg() {
    const int n = t_.n, one = 1;
    int info = 0, lwork = std::max(1, 64 * n);
    std::vector<Complex> tau(std::max(1, n - 1)), work(lwork);
    zgehrd_(&n, &one, &n, t_.data(), &n, tau.data(), work.data(), &lwork,
            &info);
    u_ = t_;
    zunghr_(&n, &one, &n, u_.data(), &n, tau.data(), work.data(), &lwork,
            &info);
    for (int c = 0; c < n; ++c)
      for (int r = c + 2; r < n; ++r) t_.at(r, c) = 0.0;
  }

  // T(i + 1, i) against its diagonal neighbours; zeroed when negligible.
  bool Negligible(int i) {
    const double d = Norm1(t_.at(i, i)) + Norm1(t_.at(i + 1, i + 1));
    if (Norm1(t_.at(i + 1, i)) <= d * std::numeric_limits<double>::epsilon()) {
      t_.at(i + 1, i) = 0.0;
      return true;
    }
    return false;
  }

  // The eigenvalue of the trailing 2 x 2 block nearer its bottom entry.
  Complex Shift(int iu, int iter) {
    if (iter == 10 || iter == 20) {
      return std::abs(t_.at(iu, iu - 1).real()) +
             std::abs(t_.at(iu - 1, iu - 2).real());
    }
    Complex a = t_.at(iu - 1, iu - 1), b = t_.at(iu - 1, iu),
            c = t_.at(iu, iu - 1), d = t_.at(iu, iu);
    const double norm = std::abs(a) + std::abs(b) + std::abs(c) + std::abs(d);
    a /= norm, b /= norm, c /= norm, d /= norm;
    const Complex bc = b * c, diff = a - d;
    const Complex disc = std::sqrt(diff * diff + 4.0 * bc);
    const Complex det = a * d - bc, trace = a + d;
    Complex e1 = (trace + disc) / 2.0, e2 = (trace - disc) / 2.0;
    // The smaller root from the product (cancellation).
    if (Norm1(e1) > Norm1(e2)) {
      e2 = det / e1;
    } else if (Norm1(e2) != 0) {
      e1 = det / e2;
    }
    return norm * (Norm1(e1 - d) < Norm1(e2 - d) ? e1 : e2);
  }

  // G = [c s; -conj(s) c] with G [p; q] = [r; 0].
  struct Givens {
    double c;
    Complex s;
  };
  static Givens MakeGivens(Complex p, Complex q) {
    const double ap = std::abs(p), nrm = std::hypot(ap, std::abs(q));
    if (nrm == 0) return {1.0, 0.0};
    if (ap == 0) return {0.0, 1.0};
    return {ap / nrm, (p / ap) * std::conj(q) / nrm};
  }
  // T = G T G^H on rows / cols i, i + 1 (cols from `col0`, rows to `row1`);
  // U = U G^H.
  void Rotate(int i, const Givens& g, int col0, int row1) {
    const int n = t_.n;
    for (int c = col0; c < n; ++c) {
      const Complex x = t_.at(i, c), y = t_.at(i + 1, c);
      t_.at(i, c) = g.c * x + g.s * y;
      t_.at(i + 1, c) = -std::conj(g.s) * x + g.c * y;
    }
    auto right = [&](CMat& m, int rows) {
      for (int r = 0; r < rows; ++r) {
        const Complex x = m.at(r, i), y = m.at(r, i + 1);
        m.at(r, i) = x * g.c + y * std::conj(g.s);
        m.at(r, i + 1) = -x * g.s + y * g.c;
      }
    };
    right(t_, row1 + 1);
    right(u_, n);
  }

  // One implicit single-shift QR sweep over the active block [il, iu].
  void Step(int il, int iu, Complex shift) {
    Rotate(il, MakeGivens(t_.at(il, il) - shift, t_.at(il + 1, il)), il,
           std::min(il + 2, iu));
    for (int i = il + 1; i < iu; ++i) {
      const Givens g = MakeGivens(t_.at(i, i - 1), t_.at(i + 1, i - 1));
      t_.at(i, i - 1) = g.c * t_.at(i, i - 1) + g.s * t_.at(i + 1, i - 1);
      t_.at(i + 1, i - 1) = 0.0;
      Rotate(i, g, i, std::min(i + 2, iu));
    }
  }

  CMat t_, u_;
};

// The eigenvectors of the triangular T (unit diagonal in its basis; equal
// eigenvalues are separated by epsilon times |T|), mapped back by U and
// scaled to unit norm.
CMat Eigenvectors(ComplexSchur& schur) {
  CMat& t = schur.t();
  const int n = t.n;
  double norm = 0;
  for (const Complex& v : t.a) norm += std::norm(v);
  norm = std::sqrt(norm);
  CMat x(n);
  for (int k = n - 1; k >= 0; --k) {
    x.at(k, k) = 1.0;
    for (int i = k - 1; i >= 0; --i) {
      Complex s = -t.at(i, k);
      for (int j = i + 1; j < k; ++j) s -= t.at(i, j) * x.at(j, k);
      Complex z = t.at(i, i) - t.at(k, k);
      if (z == 0.0) z = std::numeric_limits<double>::epsilon() * norm;
      x.at(i, k) = s / z;
    }
  }
  CMat v = Mul(schur.u(), x);
  for (int c = 0; c < n; ++c) {
    double len = 0;
    for (int r = 0; r < n; ++r) len += std::norm(v.at(r, c));
    len = std::sqrt(len);
    for (int r = 0; r < n && len > 0; ++r) v.at(r, c) /= len;
  }
  return v;
}

// Eigen's ComplexEigenSolver order: ascending modulus, each step taking the
// first smallest of the rest (a selection sort), eigenvectors along.
void SortByModulus(std::vector<Complex>* w, CMat* v) {
  const int n = static_cast<int>(w->size());
  for (int i = 0; i < n; ++i) {
    int k = i;
    for (int j = i + 1; j < n; ++j)
      if (std::abs((*w)[j]) < std::abs((*w)[k])) k = j;
    if (k == i) continue;
    std::swap((*w)[i], (*w)[k]);
    for (int r = 0; r < v->n; ++r) std::swap(v->at(r, i), v->at(r, k));
  }
}

// Real input: TensorFlow's real eigensolver (a real Schur form by Francis
// double-shift QR, unsorted; a complex pair with the positive imaginary part
// first). LAPACK's dgeevx without balancing runs the same kind of QR.
void RealEig(const Tensor& in, int64_t b, int n, bool vectors,
             std::vector<Complex>* w, CMat* v) {
  Mat a = ReadMat(in, b, n, n);
  Mat vr(n, n);
  std::vector<double> wr(n), wi(n), scale(n), rconde(n), rcondv(n);
  int info = 0, ilo = 0, ihi = 0, one = 1, lwork = std::max(1, 8 * n);
  double abnrm = 0;
  std::vector<double> work(lwork);
  std::vector<int> iwork(std::max(1, 2 * n));
  dgeevx_("N", "N", vectors ? "V" : "N", "N", &n, a.data(), &n, wr.data(),
          wi.data(), nullptr, &one, vr.data(), &n, &ilo, &ihi, scale.data(),
          &abnrm, rconde.data(), rcondv.data(), work.data(), &lwork,
          iwork.data(), &info, 1, 1, 1, 1);
  for (int j = 0; j < n; ++j) {
    (*w)[j] = Complex(wr[j], wi[j]);
    if (!vectors) continue;
    if (wi[j] == 0) {
      for (int r = 0; r < n; ++r) v->at(r, j) = vr.at(r, j);
    } else if (wi[j] > 0 && j + 1 < n) {
      // Columns j, j + 1 hold the real and imaginary parts of the pair.
      double len = 0;
      for (int r = 0; r < n; ++r) {
        v->at(r, j) = Complex(vr.at(r, j), vr.at(r, j + 1));
        v->at(r, j + 1) = std::conj(v->at(r, j));
        len += std::norm(v->at(r, j));
      }
      len = std::sqrt(len);
      for (int r = 0; r < n && len > 0; ++r) {
        v->at(r, j) /= len;
        v->at(r, j + 1) /= len;
      }
    }
  }
}

class EigOp : public OpKernel {
 public:
  explicit EigOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("compute_v", &compute_v_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const DataType want = in.dtype() == tensorflow::DT_FLOAT ||
                                  in.dtype() == tensorflow::DT_COMPLEX64
                              ? tensorflow::DT_COMPLEX64
                              : tensorflow::DT_COMPLEX128;
    DFG_OP_REQUIRES(ctx, output_type(0) == want,
                    InvalidArgument("Invalid output dtype {} vs {}",
                                    static_cast<int>(output_type(0)),
                                    static_cast<int>(want)));
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(in, 0, true));
    const int n = static_cast<int>(in.dim_size(in.dims() - 1));
    Tensor* e = nullptr;
    Tensor* v = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, BatchShape(in, {n}), &e));
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(1, compute_v_ ? in.shape() : TensorShape(), &v));
    if (!compute_v_) {
      Dispatch(ComplexTypes(), v->dtype(),
               [&](auto z) { *static_cast<decltype(z)*>(v->data()) = {}; });
    }
    if (n == 0) return;
    for (int64_t b = 0; b < NumMatrices(in); ++b) {
      std::vector<Complex> w(n);
      CMat vecs(compute_v_ ? n : 0);
      if (in.dtype() == tensorflow::DT_FLOAT ||
          in.dtype() == tensorflow::DT_DOUBLE) {
        RealEig(in, b, n, compute_v_, &w, &vecs);
      } else {
        ComplexSchur schur(ReadComplex(in, b, n));
        DFG_OP_REQUIRES(ctx, schur.Compute(),
                        InvalidArgument("Eigen decomposition was not "
                                        "successful. The input might not be "
                                        "valid."));
        for (int i = 0; i < n; ++i) w[i] = schur.t().at(i, i);
        if (compute_v_) vecs = Eigenvectors(schur);
        SortByModulus(&w, &vecs);
      }
      Dispatch(ComplexTypes(), e->dtype(), [&](auto z) {
        using T = decltype(z);
        T* pe = static_cast<T*>(e->data()) + b * n;
        for (int i = 0; i < n; ++i) pe[i] = T(w[i]);
        if (!compute_v_) return;
        T* pv = static_cast<T*>(v->data()) + b * n * n;
        for (int r = 0; r < n; ++r)
          for (int c = 0; c < n; ++c) pv[r * n + c] = T(vecs.at(r, c));
      });
    }
  }

 private:
  bool compute_v_ = true;
};

}  // namespace

void RegisterLinalgEigKernel(KernelRegistry* r) {
  r->Register<EigOp>("Eig", {TypeConstraint("T", MatFuncTypes())});
}

}  // namespace dfg
