// The FFTs (FFT/IFFT, RFFT/IRFFT in 1, 2 and 3 dimensions) over the innermost
// dims, with FFTW 3 doing the transforms, as TensorFlow's fft_ops kernels:
// inverse transforms scaled by 1/N, RFFT and IRFFT cropping their input to
// fft_length (fft_length/2+1 on IRFFT's innermost dim), c2r taking the
// Hermitian half as it is (the imaginary parts of the DC and Nyquist terms
// ignored). And the complex-number element ops Complex, Real, Imag, Angle,
// ComplexAbs and Conj.
//
// FFTW's planner is not thread-safe (its execution is): plans are made and
// destroyed under one mutex. FFTW_ESTIMATE plans do not touch the arrays.
#include <fftw3.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <mutex>

#include "lib/kernels/cwise_ops.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

std::mutex& PlannerMutex() {
  static std::mutex mu;
  return mu;
}

// FFTW's float (fftwf_) or double (fftw_) API for real type R.
template <typename R>
struct Fftw;

template <>
struct Fftw<float> {
  using Plan = fftwf_plan;
  using Complex = fftwf_complex;
  static Plan C2C(int rank, const int* n, int howmany, std::complex<float>* in,
                  std::complex<float>* out, int sign) {
    const int dist = Product(rank, n);
    return fftwf_plan_many_dft(rank, n, howmany, Cast(in), nullptr, 1, dist,
                               Cast(out), nullptr, 1, dist, sign,
                               FFTW_ESTIMATE);
  }
  static Plan R2C(int rank, const int* n, int howmany, float* in,
                  std::complex<float>* out) {
    return fftwf_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1,
                                   Product(rank, n), Cast(out), nullptr, 1,
                                   HalfProduct(rank, n), FFTW_ESTIMATE);
  }
  static Plan C2R(int rank, const int* n, int howmany, std::complex<float>* in,
                  float* out) {
    return fftwf_plan_many_dft_c2r(rank, n, howmany, Cast(in), nullptr, 1,
                                   HalfProduct(rank, n), out, nullptr, 1,
                                   Product(rank, n), FFTW_ESTIMATE);
  }
  static void Execute(Plan p) { fftwf_execute(p); }
  static void Destroy(Plan p) { fftwf_destroy_plan(p); }
  static Complex* Cast(std::complex<float>* p) {
    return reinterpret_cast<Complex*>(p);
  }
  static int Product(int rank, const int* n) {
    int p = 1;
    for (int i = 0; i < rank; ++i) p *= n[i];
    return p;
  }
  static int HalfProduct(int rank, const int* n) {
    return Product(rank - 1, n) * (n[rank - 1] / 2 + 1);
  }
};

template <>
struct Fftw<double> {
  using Plan = fftw_plan;
  using Complex = fftw_complex;
  static Plan C2C(int rank, const int* n, int howmany, std::complex<double>* in,
                  std::complex<double>* out, int sign) {
    const int dist = Fftw<float>::Product(rank, n);
    return fftw_plan_many_dft(rank, n, howmany, Cast(in), nullptr, 1, dist,
                              Cast(out), nullptr, 1, dist, sign, FFTW_ESTIMATE);
  }
  static Plan R2C(int rank, const int* n, int howmany, double* in,
                  std::complex<double>* out) {
    return fftw_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1,
                                  Fftw<float>::Product(rank, n), Cast(out),
                                  nullptr, 1, Fftw<float>::HalfProduct(rank, n),
                                  FFTW_ESTIMATE);
  }
  static Plan C2R(int rank, const int* n, int howmany, std::complex<double>* in,
                  double* out) {
    return fftw_plan_many_dft_c2r(rank, n, howmany, Cast(in), nullptr, 1,
                                  Fftw<float>::HalfProduct(rank, n), out,
                                  nullptr, 1, Fftw<float>::Product(rank, n),
                                  FFTW_ESTIMATE);
  }
  static void Execute(Plan p) { fftw_execute(p); }
  static void Destroy(Plan p) { fftw_destroy_plan(p); }
  static Complex* Cast(std::complex<double>* p) {
    return reinterpret_cast<Complex*>(p);
  }
};

// Makes a plan under the planner mutex, runs it, destroys it.
template <typename R, typename MakePlan>
void RunPlan(MakePlan make) {
  typename Fftw<R>::Plan plan;
  {
    std::lock_guard<std::mutex> lock(PlannerMutex());
    plan = make();
  }
  Fftw<R>::Execute(plan);
  std::lock_guard<std::mutex> lock(PlannerMutex());
  Fftw<R>::Destroy(plan);
}

// Copies the innermost `rank` dims of `in` (batch x in_dims) cropped to
// `dims` (each <= its in_dims) into a contiguous batch x dims buffer.
template <typename T>
std::vector<T> CropInner(const T* in, int64_t batch,
                         const std::vector<int64_t>& in_dims,
                         const std::vector<int64_t>& dims) {
  const int rank = static_cast<int>(dims.size());
  int64_t rows = batch, in_rows_stride = 1;
  for (int i = 0; i < rank - 1; ++i) rows *= dims[i];
  for (int64_t d : in_dims) in_rows_stride *= d;
  const int64_t row = dims[rank - 1];
  std::vector<T> out(rows * row);
  for (int64_t r = 0; r < rows; ++r) {
    // Decompose r into (batch index, outer indices) and map to the input.
    int64_t rem = r, offset = 0, stride = in_dims[rank - 1];
    for (int i = rank - 2; i >= 0; --i) {
      offset += (rem % dims[i]) * stride;
      rem /= dims[i];
      stride *= in_dims[i];
    }
    offset += rem * in_rows_stride;
    std::copy(in + offset, in + offset + row, out.data() + r * row);
  }
  return out;
}

class FftOp : public OpKernel {
 public:
  FftOp(OpKernelConstruction* ctx, int rank, bool forward, bool real)
      : OpKernel(ctx), rank_(rank), forward_(forward), real_(real) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() >= rank_,
                    InvalidArgument("Input must have rank of at least {} but "
                                    "got: {}",
                                    rank_, in.shape().DebugString()));
    TensorShape out_shape = in.shape();
    std::vector<int64_t> fft(rank_);
    const int outer = in.dims() - rank_;
    for (int i = 0; i < rank_; ++i) fft[i] = in.dim_size(outer + i);
    if (real_) DFG_OP_REQUIRES_OK(ctx, RealLengths(ctx, &fft, &out_shape));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    DFG_OP_REQUIRES_OK(ctx, CheckTypes(in.dtype(), out->dtype()));
    if (out->NumElements() == 0) return;
    if (in.NumElements() == 0) {
      // TensorFlow passes an empty input through without writing the
      // output; give zeros rather than whatever the buffer held.
      std::memset(out->data(), 0, out->TotalBytes());
      return;
    }
    int64_t batch = 1;
    for (int i = 0; i < outer; ++i) batch *= in.dim_size(i);
    std::vector<int64_t> in_dims(rank_);
    for (int i = 0; i < rank_; ++i) in_dims[i] = in.dim_size(outer + i);
    const DataType c = real_ && !forward_ ? in.dtype() : out->dtype();
    if (c == tensorflow::DT_COMPLEX64) {
      Run<float>(in, batch, in_dims, fft, out);
    } else {
      Run<double>(in, batch, in_dims, fft, out);
    }
  }

 private:
  // fft_length checks and the output shape of RFFT/IRFFT.
  Status RealLengths(OpKernelContext* ctx, std::vector<int64_t>* fft,
                     TensorShape* out_shape) const {
    const Tensor& len = ctx->input(1);
    if (len.dims() != 1 || len.dim_size(0) != rank_) {
      return InvalidArgument("fft_length must have shape [{}]", rank_);
    }
    const TensorShape& shape = ctx->input(0).shape();
    for (int i = 0; i < rank_; ++i) {
      const int64_t n = len.flat<int32_t>()[i];
      if (n < 0) {
        return InvalidArgument("fft_length[{}] must >= 0, but got: {}", i, n);
      }
      (*fft)[i] = n;
      const bool inner = i == rank_ - 1;
      const int64_t min_len = !forward_ && inner ? n / 2 + 1 : n;
      const int index = shape.dims() - rank_ + i;
      if (shape.dim_size(index) != 0 && shape.dim_size(index) < min_len) {
        return InvalidArgument(
            "Input dimension {} must have length of at least {} but got: {}",
            index, min_len, shape.dim_size(index));
      }
      out_shape->set_dim(index, forward_ && inner && n != 0 ? n / 2 + 1 : n);
    }
    return Status::Ok();
  }

  // The (input, output) dtype pairs TensorFlow's kernel accepts.
  Status CheckTypes(DataType in, DataType out) const {
    using tensorflow::DT_COMPLEX128, tensorflow::DT_COMPLEX64,
        tensorflow::DT_DOUBLE, tensorflow::DT_FLOAT;
    bool ok = false;
    const char* what = "FFT";
    if (!real_) {
      ok = (in == DT_COMPLEX64 && out == DT_COMPLEX64) ||
           (in == DT_COMPLEX128 && out == DT_COMPLEX128);
    } else if (forward_) {
      what = "forward real FFT";
      ok = (in == DT_FLOAT && out == DT_COMPLEX64) ||
           (in == DT_DOUBLE && out == DT_COMPLEX128);
    } else {
      what = "backward real FFT";
      ok = (in == DT_COMPLEX64 && out == DT_FLOAT) ||
           (in == DT_COMPLEX128 && out == DT_DOUBLE);
    }
    if (ok) return Status::Ok();
    return InvalidArgument("Wrong types for {}: in={} out={}", what,
                           static_cast<int>(in), static_cast<int>(out));
  }

  template <typename R>
  void Run(const Tensor& in, int64_t batch, const std::vector<int64_t>& in_dims,
           const std::vector<int64_t>& fft, Tensor* out) const {
    using C = std::complex<R>;
    std::vector<int> n(fft.begin(), fft.end());
    int64_t total = 1;
    for (int64_t d : fft) total *= d;
    const int howmany = static_cast<int>(batch);
    if (!real_) {
      std::vector<C> src = CropInner(in.flat<C>().data(), batch, in_dims, fft);
      C* dst = out->flat<C>().data();
      RunPlan<R>([&] {
        return Fftw<R>::C2C(rank_, n.data(), howmany, src.data(), dst,
                            forward_ ? FFTW_FORWARD : FFTW_BACKWARD);
      });
      if (!forward_) Scale(dst, out->NumElements(), R(1.0 / total));
    } else if (forward_) {
      std::vector<R> src = CropInner(in.flat<R>().data(), batch, in_dims, fft);
      C* dst = out->flat<C>().data();
      RunPlan<R>([&] {
        return Fftw<R>::R2C(rank_, n.data(), howmany, src.data(), dst);
      });
    } else {
      std::vector<int64_t> half = fft;
      half.back() = fft.back() / 2 + 1;
      std::vector<C> src = CropInner(in.flat<C>().data(), batch, in_dims, half);
      R* dst = out->flat<R>().data();
      RunPlan<R>([&] {
        return Fftw<R>::C2R(rank_, n.data(), howmany, src.data(), dst);
      });
      Scale(dst, out->NumElements(), R(1.0 / total));
    }
  }

  template <typename V, typename R>
  static void Scale(V* v, int64_t n, R s) {
    for (int64_t i = 0; i < n; ++i) v[i] *= s;
  }

  int rank_;
  bool forward_, real_;
};

template <int kRank, bool kForward, bool kReal>
class FftKernel : public FftOp {
 public:
  explicit FftKernel(OpKernelConstruction* ctx)
      : FftOp(ctx, kRank, kForward, kReal) {}
};

// ---- Complex element ops -------------------------------------------------

// The complex ops' kernels exist for matching pairs only: float with
// complex64, double with complex128.
Status CheckPair(OpKernelConstruction* ctx, DataType real, DataType complex) {
  const bool ok =
      (real == tensorflow::DT_FLOAT && complex == tensorflow::DT_COMPLEX64) ||
      (real == tensorflow::DT_DOUBLE && complex == tensorflow::DT_COMPLEX128);
  if (ok) return Status::Ok();
  return InvalidArgument("{} has no kernel for {} with {}", ctx->def().op(),
                         DataTypeString(real), DataTypeString(complex));
}

class ComplexOp : public OpKernel {
 public:
  explicit ComplexOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx,
                       CheckPair(ctx, ctx->input_type(0), ctx->output_type(0)));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BCast b(x.shape(), y.shape());
    DFG_OP_REQUIRES(ctx, b.valid, IncompatibleShapes(x.shape(), y.shape()));
    Tensor* z = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, b.output_shape, &z));
    Dispatch(TypeList<float, double>(), x.dtype(), [&](auto v) {
      using R = decltype(v);
      auto make = [](R re, R im) { return std::complex<R>(re, im); };
      BinaryCompute(ctx->intra_op_pool(), b, x.flat<R>().data(),
                    x.NumElements(), y.flat<R>().data(), y.NumElements(),
                    z->flat<std::complex<R>>().data(), z->NumElements(), make);
    });
  }
};

enum class ComplexPart { kReal, kImag, kAngle, kAbs, kConj };

template <ComplexPart kPart>
class ComplexPartOp : public OpKernel {
 public:
  explicit ComplexPartOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (kPart != ComplexPart::kConj) {
      DFG_OP_REQUIRES_OK(
          ctx, CheckPair(ctx, ctx->output_type(0), ctx->input_type(0)));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    Dispatch(ComplexTypes(), x.dtype(), [&](auto v) {
      using C = decltype(v);
      const C* in = x.flat<C>().data();
      const int64_t n = x.NumElements();
      if constexpr (kPart == ComplexPart::kConj) {
        C* out = y->flat<C>().data();
        for (int64_t i = 0; i < n; ++i) out[i] = std::conj(in[i]);
      } else {
        using R = typename C::value_type;
        R* out = y->flat<R>().data();
        for (int64_t i = 0; i < n; ++i) out[i] = Part(in[i]);
      }
    });
  }

 private:
  template <typename C>
  static typename C::value_type Part(const C& c) {
    if constexpr (kPart == ComplexPart::kReal) return c.real();
    if constexpr (kPart == ComplexPart::kImag) return c.imag();
    if constexpr (kPart == ComplexPart::kAngle) {
      return std::atan2(c.imag(), c.real());
    }
    return std::abs(c);
  }
};

}  // namespace

void RegisterFftKernels(KernelRegistry* r) {
  const auto c = TypeConstraint("Tcomplex", ComplexTypes());
  r->Register<FftKernel<1, true, false>>("FFT", {c});
  r->Register<FftKernel<1, false, false>>("IFFT", {c});
  r->Register<FftKernel<2, true, false>>("FFT2D", {c});
  r->Register<FftKernel<2, false, false>>("IFFT2D", {c});
  r->Register<FftKernel<3, true, false>>("FFT3D", {c});
  r->Register<FftKernel<3, false, false>>("IFFT3D", {c});
  r->Register<FftKernel<1, true, true>>("RFFT", {});
  r->Register<FftKernel<1, false, true>>("IRFFT", {});
  r->Register<FftKernel<2, true, true>>("RFFT2D", {});
  r->Register<FftKernel<2, false, true>>("IRFFT2D", {});
  r->Register<FftKernel<3, true, true>>("RFFT3D", {});
  r->Register<FftKernel<3, false, true>>("IRFFT3D", {});
  // One kernel per (T, Tout) pair, as TensorFlow registers them: float with
  // complex64, double with complex128.
  for (const auto& [re, cx] :
       {std::pair{TypeConstraint("T", TypeList<float>()),
                  TypeConstraint("Tout", TypeList<std::complex<float>>())},
        std::pair{TypeConstraint("T", TypeList<double>()),
                  TypeConstraint("Tout", TypeList<std::complex<double>>())}}) {
    r->Register<ComplexOp>("Complex", {re, cx});
  }
  for (const auto& [cx, re] :
       {std::pair{TypeConstraint("T", TypeList<std::complex<float>>()),
                  TypeConstraint("Tout", TypeList<float>())},
        std::pair{TypeConstraint("T", TypeList<std::complex<double>>()),
                  TypeConstraint("Tout", TypeList<double>())}}) {
    r->Register<ComplexPartOp<ComplexPart::kReal>>("Real", {cx, re});
    r->Register<ComplexPartOp<ComplexPart::kImag>>("Imag", {cx, re});
    r->Register<ComplexPartOp<ComplexPart::kAngle>>("Angle", {cx, re});
  }
  const auto cplx = TypeConstraint("T", ComplexTypes());
  r->Register<ComplexPartOp<ComplexPart::kAbs>>("ComplexAbs", {cplx});
  r->Register<ComplexPartOp<ComplexPart::kConj>>("Conj", {cplx});
}

}  // namespace dfg
