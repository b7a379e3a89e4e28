// Kernels of the linalg_ext family that are not decompositions: the
// deprecated AdjustContrast (v1: float output clamped to [min, max]),
// IsotonicRegression (decreasing, by pooling adjacent violators), SdcaFprint
// (farmhash Fingerprint128 of each string), Fact and ApproxTopK (on CPU the
// exact top k of the last dim), SdcaShrinkL1 (in place on ref variables).
#include <farmhash.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// Per image and channel: (x - mean) * factor + mean over the image's height
// and width, clamped to [min_value, max_value], as float.
class AdjustContrastV1Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() >= 3,
                    InvalidArgument("input must be at least 3-D, got shape{}",
                                    in.shape().DebugString()));
    const char* names[] = {"contrast_factor", "min_value", "max_value"};
    float scalars[3];
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i + 1);
      DFG_OP_REQUIRES(ctx, t.dims() == 0,
                      InvalidArgument("{} must be scalar: {}", names[i],
                                      t.shape().DebugString()));
      scalars[i] = *static_cast<const float*>(t.data());
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    const int64_t pixels =
        in.dim_size(in.dims() - 3) * in.dim_size(in.dims() - 2);
    const int64_t channels = in.dim_size(in.dims() - 1);
    const int64_t images = in.NumElements() / (pixels * channels);
    float* dst = static_cast<float*>(out->data());
    using Types = TypeList<uint8_t, int8_t, int16_t, int32_t, float, double>;
    Dispatch(Types(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* src = static_cast<const T*>(in.data());
      for (int64_t i = 0; i < images; ++i) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t base = i * pixels * channels + c;
          double sum = 0;
          for (int64_t p = 0; p < pixels; ++p)
            sum += static_cast<float>(src[base + p * channels]);
          const float mean =
              static_cast<float>(sum) / static_cast<float>(pixels);
          for (int64_t p = 0; p < pixels; ++p) {
            const float x = static_cast<float>(src[base + p * channels]);
            const float y = (x - mean) * scalars[0] + mean;
            dst[base + p * channels] =
                std::max(std::min(y, scalars[2]), scalars[1]);
          }
        }
      }
    });
  }
};

// Per row of the last dim: the non-increasing sequence nearest in l2, a
// block-wise constant run of segment means; segments numbers the blocks.
// Sums and means are kept in the output type, as TensorFlow's are.
class IsotonicRegressionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    Tensor* seg = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, in.shape(), &seg));
    const int64_t n = in.dims() == 0 ? 1 : in.dim_size(in.dims() - 1);
    if (in.NumElements() == 0) return;
    using In = TypeList<float, double, Half, BFloat16, int8_t, int16_t, int32_t,
                        int64_t>;
    Dispatch(In(), in.dtype(), [&](auto vi) {
      using TIn = decltype(vi);
      Dispatch(TypeList<float, double, Half, BFloat16>(), out->dtype(),
               [&](auto vo) {
                 using TOut = decltype(vo);
                 Solve<TIn, TOut>(static_cast<const TIn*>(in.data()),
                                  static_cast<TOut*>(out->data()),
                                  static_cast<int32_t*>(seg->data()),
                                  in.NumElements() / n, n);
               });
    });
  }

 private:
  template <typename TIn, typename TOut>
  static void Solve(const TIn* x, TOut* y, int32_t* seg, int64_t rows,
                    int64_t n) {
    struct Pool {
      int64_t start, limit;
      TOut sum, mean;
    };
    std::vector<Pool> pools;
    for (int64_t r = 0; r < rows; ++r) {
      pools.clear();
      for (int64_t c = 0; c < n; ++c) {
        const TOut v = Store<TOut>(Load(x[r * n + c]));
        pools.push_back({c, c + 1, v, v});
        while (pools.size() > 1 &&
               Load(pools.back().mean) > Load(pools[pools.size() - 2].mean)) {
          Pool& prev = pools[pools.size() - 2];
          prev.limit = pools.back().limit;
          prev.sum = Store<TOut>(Load(prev.sum) + Load(pools.back().sum));
          prev.mean = Store<TOut>(
              Load(prev.sum) /
              Load(Store<TOut>(static_cast<float>(prev.limit - prev.start))));
          pools.pop_back();
        }
      }
      for (size_t p = 0; p < pools.size(); ++p) {
        for (int64_t c = pools[p].start; c < pools[p].limit; ++c) {
          y[r * n + c] = pools[p].mean;
          seg[r * n + c] = static_cast<int32_t>(p);
        }
      }
    }
  }
};

// SdcaFprint: [n, 2] int64 per string, the low then the high 64 bits of its
// farmhash Fingerprint128; a low half of 0 or 1 wraps to the top of the
// range (TensorFlow keeps 0 and 1 free as sentinels).
class SdcaFprintOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 1,
                    InvalidArgument("Input must be a vector, got shape {}",
                                    in.shape().DebugString()));
    const int64_t n = in.NumElements();
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n, 2}), &out));
    const auto* s = static_cast<const std::string*>(in.data());
    auto* o = static_cast<int64_t*>(out->data());
    for (int64_t i = 0; i < n; ++i) {
      const util::uint128_t fp = util::Fingerprint128(s[i].data(), s[i].size());
      const uint64_t low = util::Uint128Low64(fp);
      o[2 * i] = static_cast<int64_t>(low >= 2 ? low : low - 2);
      o[2 * i + 1] = static_cast<int64_t>(util::Uint128High64(fp));
    }
  }
};

// TensorFlow's unlabeled CPU kernel gives one fixed text; the kernel labeled
// "sergey" (the node's _kernel attr) another.
class FactOp : public OpKernel {
 public:
  explicit FactOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const auto& attrs = ctx->def().attr();
    auto it = attrs.find("_kernel");
    labeled_ = it != attrs.end() &&
               (it->second.s() == "sergey" || it->second.s() == "Sergey");
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    *static_cast<std::string*>(out->data()) =
        labeled_ ? "Sergey Brin and Batman have never been seen at the same "
                   "place at the same time."
                 : "0! == 1";
  }

 private:
  bool labeled_ = false;
};

// TensorFlow's CPU kernel exists for reduction_dimension -1 and is_max_k
// only, and is its exact TopK there: the k largest of the last dim, largest
// first, equal values by index. NaN is put first here; TensorFlow's order of
// NaNs depends on its TopK's heap and is not matched.
class ApproxTopKOp : public OpKernel {
 public:
  explicit ApproxTopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t dim = 0;
    bool max_k = true;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("k", &k_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("reduction_dimension", &dim));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("is_max_k", &max_k));
    DFG_OP_REQUIRES(
        ctx, dim == -1 && max_k,
        NotFound(
            "No OpKernel was registered to support Op 'ApproxTopK' used "
            "by {{{{node {}}}}} with these attrs: [reduction_dimension={}, "
            "is_max_k={}] (TensorFlow's CPU kernel needs "
            "reduction_dimension=-1 and is_max_k=true)",
            ctx->def().name(), dim, max_k));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() >= 1,
                    InvalidArgument("input must be >= 1-D, got shape {}",
                                    in.shape().DebugString()));
    const int64_t n = in.dim_size(in.dims() - 1);
    DFG_OP_REQUIRES(ctx, n >= k_,
                    InvalidArgument("input must have at least k columns. Had "
                                    "{}, needed {}",
                                    n, k_));
    TensorShape shape = in.shape();
    shape.set_dim(in.dims() - 1, k_);
    Tensor* values = nullptr;
    Tensor* indices = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &values));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &indices));
    if (k_ == 0 || in.NumElements() == 0) return;
    Dispatch(TypeList<float, Half, BFloat16>(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* x = static_cast<const T*>(in.data());
      T* ov = static_cast<T*>(values->data());
      auto* oi = static_cast<int32_t*>(indices->data());
      std::vector<int32_t> order(n);
      for (int64_t r = 0; r < in.NumElements() / n; ++r) {
        const T* row = x + r * n;
        std::iota(order.begin(), order.end(), 0);
        std::partial_sort(order.begin(), order.begin() + k_, order.end(),
                          [&](int32_t a, int32_t b) {
                            const float fa = Load(row[a]), fb = Load(row[b]);
                            if (std::isnan(fa) != std::isnan(fb))
                              return std::isnan(fa);
                            if (fa != fb && !std::isnan(fa)) return fa > fb;
                            return a < b;
                          });
        for (int64_t j = 0; j < k_; ++j) {
          ov[r * k_ + j] = row[order[j]];
          oi[r * k_ + j] = order[j];
        }
      }
    });
  }

 private:
  int64_t k_ = 0;
};

// The proximal step of SDCA's L1 regularization on every weight variable:
// w = sign(w) * max(|w| - l1 / l2, 0), in float.
class SdcaShrinkL1Op : public OpKernel {
 public:
  explicit SdcaShrinkL1Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float l1 = 0, l2 = 0;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("l1", &l1));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("l2", &l2));
    // TensorFlow divides in float and keeps the quotient as a double, then
    // uses it as a float constant.
    shrinkage_ = static_cast<float>(static_cast<double>(l1 / l2));
  }
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      std::lock_guard<std::mutex> lock(*ctx->input_ref_mutex(i));
      Tensor* w = ctx->mutable_input(i);
      auto* p = static_cast<float*>(w->data());
      for (int64_t j = 0; j < w->NumElements(); ++j) {
        const float sign = p[j] > 0 ? 1.0f : (p[j] < 0 ? -1.0f : 0.0f);
        p[j] = sign * std::max(std::abs(p[j]) - shrinkage_, 0.0f);
      }
    }
  }

 private:
  float shrinkage_ = 0;
};

}  // namespace

void RegisterLinalgBandKernels(KernelRegistry* r);
void RegisterLinalgMatFuncKernels(KernelRegistry* r);
void RegisterLinalgClusterKernels(KernelRegistry* r);
void RegisterLinalgEigKernel(KernelRegistry* r);

void RegisterLinalgExtMiscKernels(KernelRegistry* r) {
  RegisterLinalgBandKernels(r);
  RegisterLinalgMatFuncKernels(r);
  RegisterLinalgClusterKernels(r);
  RegisterLinalgEigKernel(r);
  r->Register<FactOp>("Fact", {});
  r->Register<SdcaShrinkL1Op>("SdcaShrinkL1", {});
  r->Register<ApproxTopKOp>(
      "ApproxTopK", {TypeConstraint("T", TypeList<float, Half, BFloat16>())});
  r->Register<SdcaFprintOp>("SdcaFprint", {});
  r->Register<IsotonicRegressionOp>(
      "IsotonicRegression",
      {TypeConstraint("T", TypeList<int8_t, int16_t>()),
       TypeConstraint("output_dtype", TypeList<float>())});
  r->Register<IsotonicRegressionOp>(
      "IsotonicRegression",
      {TypeConstraint("T", TypeList<int32_t, int64_t>()),
       TypeConstraint("output_dtype", TypeList<double>())});
  for (DataType t : {tensorflow::DT_FLOAT, tensorflow::DT_DOUBLE,
                     tensorflow::DT_HALF, tensorflow::DT_BFLOAT16}) {
    r->Register<IsotonicRegressionOp>(
        "IsotonicRegression", {KernelTypeConstraint{"T", {t}},
                               KernelTypeConstraint{"output_dtype", {t}}});
  }
  r->Register<AdjustContrastV1Op>(
      "AdjustContrast",
      {TypeConstraint(
          "T", TypeList<uint8_t, int8_t, int16_t, int32_t, float, double>())});
}

}  // namespace dfg
