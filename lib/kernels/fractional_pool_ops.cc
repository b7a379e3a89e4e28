// FractionalMaxPool / FractionalAvgPool and their gradients, as TensorFlow's
// CPU kernels (fractional_{max,avg}_pool_op, fractional_pool_common).
//
// The pooling regions along rows and columns come from TensorFlow's
// generator, reproduced draw for draw so seeded runs give its sequences: a
// Philox stream seeded (seed, seed2) (random seeds when both are 0), of
// which each sequence reserves its 32-bit draws in 128-bit blocks. Random
// sequences shuffle [k+1 ... k+1, k ... k] with TensorFlow's own Fisher-Yates
// (swap i with i + draw % (n - i)); pseudo-random ones are ceil(alpha * (i +
// u)) for one draw u scaled into the range that keeps every step k or k+1.
// The generator advances on every run unless `deterministic`, which keeps
// the first run's regions.
#include <cmath>
#include <mutex>
#include <random>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/philox.h"

namespace dfg {
namespace {

// TensorFlow's GuardedPhiloxRandom.
class SeededGenerator {
 public:
  void Init(int64_t seed, int64_t seed2) {
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      seed = (int64_t{rd()} << 32) | rd();
      seed2 = (int64_t{rd()} << 32) | rd();
    }
    gen_ =
        Philox4x32(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  }
  // A stream for `n` 32-bit draws; the shared one skips past them.
  Philox4x32 Reserve32(int64_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    Philox4x32 local = gen_;
    gen_.Skip(static_cast<uint64_t>((n + 3) / 4));
    return local;
  }

 private:
  std::mutex mu_;
  Philox4x32 gen_{0, 0};  // guarded by mu_
};

// The cumulative pooling sequence [0, ..., in_len] of out_len regions.
std::vector<int64_t> PoolingSequence(int64_t in_len, int64_t out_len,
                                     SeededGenerator* gen, bool pseudo_random) {
  std::vector<int64_t> diff(out_len);
  const int64_t k = in_len / out_len;
  if (pseudo_random) {
    const double alpha = static_cast<double>(in_len) / out_len;
    const double u_max1 = (k + 2) / alpha - 1;
    const double u_max2 = (in_len + 1 - k) / alpha - (out_len - 1);
    Philox4x32 local = gen->Reserve32(2);
    SingleSampleAdapter single(&local);
    const uint32_t x0 = single();
    const uint32_t x1 = single();
    const double u = Uint64ToUnitDouble(x0, x1) * std::min(u_max1, u_max2);
    std::vector<int64_t> cum(out_len + 1);
    cum[0] = 1;
    cum[out_len] = in_len + 1;
    for (int64_t i = 1; i < out_len; ++i) {
      cum[i] = static_cast<int>(std::ceil(alpha * (i + u)));
    }
    for (int64_t i = 0; i < out_len; ++i) diff[i] = cum[i + 1] - cum[i];
  } else {
    std::fill(diff.begin(), diff.end(), k);
    for (int64_t i = 0; i < in_len % out_len; ++i) ++diff[i];
    Philox4x32 local = gen->Reserve32(out_len);
    SingleSampleAdapter single(&local);
    for (int64_t i = 0; i + 1 < out_len; ++i) {
      const uint32_t n = static_cast<uint32_t>(out_len - i);
      std::swap(diff[i], diff[i + single() % n]);
    }
  }
  std::vector<int64_t> cum(out_len + 1, 0);
  for (int64_t i = 1; i <= out_len; ++i) cum[i] = cum[i - 1] + diff[i - 1];
  return cum;
}

// Region i of a sequence: [seq[i], seq[i + 1] (overlapping) or seq[i + 1] -
// 1], cut at the last row/column `max`.
inline void Region(const int64_t* seq, int64_t i, bool overlapping, int64_t max,
                   int64_t* lo, int64_t* hi) {
  *lo = seq[i];
  *hi = std::min(overlapping ? seq[i + 1] : seq[i + 1] - 1, max);
}

// The pooled geometry: NHWC input dims, output rows/cols, sequences.
struct FracGeom {
  int64_t batch = 0, rows = 0, cols = 0, depth = 0, out_rows = 0, out_cols = 0;
  const int64_t* row_seq = nullptr;  // Not owned.
  const int64_t* col_seq = nullptr;  // Not owned.
  bool overlapping = false;
};

// Calls fn(out_index, in_index) (pixel indices, times depth) for every input
// pixel of every region, output by output.
template <typename Fn>
void ForRegions(const FracGeom& g, const Fn& fn) {
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t r = 0; r < g.out_rows; ++r) {
      int64_t r0, r1;
      Region(g.row_seq, r, g.overlapping, g.rows - 1, &r0, &r1);
      for (int64_t c = 0; c < g.out_cols; ++c) {
        int64_t c0, c1;
        Region(g.col_seq, c, g.overlapping, g.cols - 1, &c0, &c1);
        const int64_t o = (b * g.out_rows + r) * g.out_cols + c;
        for (int64_t y = r0; y <= r1; ++y) {
          for (int64_t x = c0; x <= c1; ++x) {
            fn(o * g.depth, ((b * g.rows + y) * g.cols + x) * g.depth);
          }
        }
      }
    }
  }
}

using FracTypes = TypeList<float, double, int32_t, int64_t>;

template <bool kMax>
class FractionalPoolOp : public OpKernel {
 public:
  explicit FractionalPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadAttrs(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 4,
                    InvalidArgument("tensor_in must be 4-dimensional"));
    int64_t out_dims[4];
    for (int i = 0; i < 4; ++i) {
      // int / float in float, as TensorFlow's shape function computes it.
      out_dims[i] = static_cast<int>(
          std::floor(static_cast<int32_t>(in.dim_size(i)) / ratio_[i]));
      DFG_OP_REQUIRES(
          ctx, out_dims[i] > 0,
          InvalidArgument("Pooling ratio is higher than input dimension size "
                          "for dimension {}. Input dim size: {} pooling "
                          "ratio: {}",
                          i, in.dim_size(i), ratio_[i]));
    }
    std::vector<int64_t> row_seq, col_seq;
    Sequences(in.dim_size(1), out_dims[1], in.dim_size(2), out_dims[2],
              &row_seq, &col_seq);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape(std::span<const int64_t>(out_dims)), &out));
    for (int i = 1; i <= 2; ++i) {
      const std::vector<int64_t>& seq = i == 1 ? row_seq : col_seq;
      Tensor* t = nullptr;
      DFG_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(i, TensorShape({int64_t(seq.size())}), &t));
      std::copy(seq.begin(), seq.end(), t->flat<int64_t>().begin());
    }
    const FracGeom g{in.dim_size(0), in.dim_size(1), in.dim_size(2),
                     in.dim_size(3), out_dims[1],    out_dims[2],
                     row_seq.data(), col_seq.data(), overlapping_};
    Dispatch(FracTypes(), in.dtype(), [&](auto z) {
      using T = decltype(z);
      Pool<T>(g, in.flat<T>().data(), out->flat<T>().data(),
              out->NumElements());
    });
  }

 private:
  template <typename T>
  static void Pool(const FracGeom& g, const T* in, T* out, int64_t n) {
    std::fill(out, out + n, kMax ? std::numeric_limits<T>::lowest() : T(0));
    std::vector<T> count(kMax ? 0 : n / std::max<int64_t>(g.depth, 1), T(0));
    ForRegions(g, [&](int64_t o, int64_t i) {
      for (int64_t c = 0; c < g.depth; ++c) {
        if constexpr (kMax) {
          out[o + c] = out[o + c] < in[i + c] ? in[i + c] : out[o + c];
        } else {
          out[o + c] += in[i + c];
        }
      }
      if constexpr (!kMax) count[o / g.depth] += T(1);
    });
    if constexpr (!kMax) {
      for (int64_t i = 0; i < n; ++i) out[i] /= count[i / g.depth];
    }
  }

  // The regions of this run: drawn now, or the first run's if deterministic.
  void Sequences(int64_t rows, int64_t out_rows, int64_t cols, int64_t out_cols,
                 std::vector<int64_t>* row_seq, std::vector<int64_t>* col_seq) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!deterministic_ || !generated_) {
      row_seq_ = PoolingSequence(rows, out_rows, &gen_, pseudo_random_);
      col_seq_ = PoolingSequence(cols, out_cols, &gen_, pseudo_random_);
      generated_ = true;
    }
    *row_seq = row_seq_;
    *col_seq = col_seq_;
  }

  Status ReadAttrs(OpKernelConstruction* ctx) {
    // (list(float) attrs are read off the NodeDef: no GetAttr overload.)
    auto it = ctx->def().attr().find("pooling_ratio");
    if (it == ctx->def().attr().end()) {
      return InvalidArgument("No attr named 'pooling_ratio' in NodeDef");
    }
    ratio_.assign(it->second.list().f().begin(), it->second.list().f().end());
    DFG_RETURN_IF_ERROR(ctx->GetAttr("pseudo_random", &pseudo_random_));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("overlapping", &overlapping_));
    if (ratio_.size() != 4) {
      return InvalidArgument("pooling_ratio field must specify 4 dimensions");
    }
    for (float r : ratio_) {
      if (r < 1) {
        return InvalidArgument(
            "pooling_ratio cannot be smaller than 1, got: {}", r);
      }
    }
    if (ratio_[0] != 1 || ratio_[3] != 1) {
      return Unimplemented(
          "Fractional {} pooling is not yet supported on the batch nor channel "
          "dimension.",
          kMax ? "max" : "average");
    }
    DFG_RETURN_IF_ERROR(ctx->GetAttr("deterministic", &deterministic_));
    int64_t seed = 0, seed2 = 0;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("seed", &seed));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("seed2", &seed2));
    if (!deterministic_ && (seed != 0 || seed2 != 0)) {
      return InvalidArgument(
          "Both seed and seed2 should be 0 if deterministic is false.");
    }
    gen_.Init(seed, seed2);
    return Status::Ok();
  }

  std::vector<float> ratio_;
  bool pseudo_random_ = false, overlapping_ = false, deterministic_ = false;
  SeededGenerator gen_;
  std::mutex mu_;
  bool generated_ = false;                  // guarded by mu_
  std::vector<int64_t> row_seq_, col_seq_;  // guarded by mu_
};

// Checks the sequences against out_backprop ([batch, out_rows, out_cols,
// depth]) and the input extent, and fills g's output side.
Status ReadSequences(const Tensor& dy, const Tensor& row_seq,
                     const Tensor& col_seq, FracGeom* g) {
  g->out_rows = dy.dim_size(1);
  g->out_cols = dy.dim_size(2);
  const Tensor* seqs[2] = {&row_seq, &col_seq};
  const int64_t outs[2] = {g->out_rows, g->out_cols};
  const int64_t ins[2] = {g->rows, g->cols};
  for (int i = 0; i < 2; ++i) {
    const char* name = i == 0 ? "row_seq_tensor" : "col_seq_tensor";
    if (seqs[i]->NumElements() < outs[i] + 1) {
      return InvalidArgument(
          "Given out_backprop shape {}, {} must have at least {} elements, but "
          "got {}",
          dy.shape().DebugString(), name, outs[i] + 1, seqs[i]->NumElements());
    }
    const int64_t* v = seqs[i]->flat<int64_t>().data();
    for (int64_t j = 0; j < outs[i]; ++j) {
      if (v[j] < 0 || v[j] >= ins[i] || v[j + 1] < v[j]) {
        return InvalidArgument("{} value {} at {} is out of range [0, {})",
                               name, v[j], j, ins[i]);
      }
    }
  }
  g->row_seq = row_seq.flat<int64_t>().data();
  g->col_seq = col_seq.flat<int64_t>().data();
  return Status::Ok();
}

// FractionalMaxPoolGrad: each output's gradient to the first maximum of its
// region (a later cell must be strictly greater).
class FractionalMaxPoolGradOp : public OpKernel {
 public:
  explicit FractionalMaxPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("overlapping", &overlapping_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& orig_out = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    const char* names[3] = {"tensor_in", "tensor_out", "out_backprop"};
    for (int i = 0; i < 3; ++i) {
      DFG_OP_REQUIRES(ctx, ctx->input(i).dims() == 4,
                      InvalidArgument("{} must be 4-dimensional", names[i]));
    }
    DFG_OP_REQUIRES(
        ctx, orig_out.shape() == dy.shape(),
        InvalidArgument("out_backprop shape {} differs from tensor_out's {}",
                        dy.shape().DebugString(),
                        orig_out.shape().DebugString()));
    FracGeom g{in.dim_size(0), in.dim_size(1), in.dim_size(2), in.dim_size(3)};
    g.overlapping = overlapping_;
    DFG_OP_REQUIRES_OK(ctx,
                       ReadSequences(dy, ctx->input(3), ctx->input(4), &g));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    Dispatch(FracTypes(), in.dtype(), [&](auto z) {
      using T = decltype(z);
      const T* src = in.flat<T>().data();
      const int64_t n = orig_out.NumElements();
      std::vector<T> best(n, std::numeric_limits<T>::lowest());
      std::vector<int64_t> arg(n, -1);
      ForRegions(g, [&](int64_t o, int64_t i) {
        for (int64_t c = 0; c < g.depth; ++c) {
          if (best[o + c] < src[i + c] || arg[o + c] < 0) {
            best[o + c] = src[i + c];
            arg[o + c] = i + c;
          }
        }
      });
      const T* want = orig_out.flat<T>().data();
      for (int64_t i = 0; i < n; ++i) {
        // Compared as TensorFlow does (a NaN never equals itself).
        DFG_OP_REQUIRES(ctx, arg[i] >= 0 && best[i] == want[i],
                        InvalidArgument("tensor_out_dup is not the same as "
                                        "tensor_out"));
      }
      auto o = out->flat<T>();
      std::fill(o.begin(), o.end(), T(0));
      const T* g_dy = dy.flat<T>().data();
      for (int64_t i = 0; i < n; ++i) o[arg[i]] += g_dy[i];
    });
  }

 private:
  bool overlapping_ = false;
};

// FractionalAvgPoolGrad: each output's gradient divided evenly over its
// region, summed in double, then cast to T.
class FractionalAvgPoolGradOp : public OpKernel {
 public:
  explicit FractionalAvgPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("overlapping", &overlapping_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape = ctx->input(0);
    const Tensor& dy = ctx->input(1);
    DFG_OP_REQUIRES(ctx, shape.dims() == 1 && shape.NumElements() == 4,
                    InvalidArgument("original input tensor shape must be"
                                    "1-dimensional and 4 elements"));
    DFG_OP_REQUIRES(ctx, dy.dims() == 4,
                    InvalidArgument("out_backprop must be 4-dimensional"));
    const std::vector<int64_t> dims = IntValues(shape);
    DFG_OP_REQUIRES(
        ctx,
        TensorShape::IsValid(dims) && dims[0] == dy.dim_size(0) &&
            dims[3] == dy.dim_size(3),
        InvalidArgument("orig_input_tensor_shape {} does not fit out_backprop "
                        "shape {}",
                        VectorString(dims), dy.shape().DebugString()));
    FracGeom g{dims[0], dims[1], dims[2], dims[3]};
    g.overlapping = overlapping_;
    DFG_OP_REQUIRES_OK(ctx,
                       ReadSequences(dy, ctx->input(2), ctx->input(3), &g));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape(std::span<const int64_t>(dims)), &out));
    std::vector<double> acc(out->NumElements(), 0.0);
    std::vector<int64_t> count(dy.NumElements() /
                               std::max<int64_t>(g.depth, 1));
    ForRegions(g, [&](int64_t o, int64_t) { ++count[o / g.depth]; });
    Dispatch(FracTypes(), dy.dtype(), [&](auto z) {
      using T = decltype(z);
      const T* g_dy = dy.flat<T>().data();
      ForRegions(g, [&](int64_t o, int64_t i) {
        const double n = static_cast<double>(count[o / g.depth]);
        for (int64_t c = 0; c < g.depth; ++c) {
          acc[i + c] += static_cast<double>(g_dy[o + c]) / n;
        }
      });
      auto f = out->flat<T>();
      for (size_t i = 0; i < acc.size(); ++i) f[i] = static_cast<T>(acc[i]);
    });
  }

 private:
  bool overlapping_ = false;
};

}  // namespace

void RegisterFractionalPoolKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("T", FracTypes());
  r->Register<FractionalPoolOp<true>>("FractionalMaxPool", {types});
  r->Register<FractionalPoolOp<false>>("FractionalAvgPool", {types});
  r->Register<FractionalMaxPoolGradOp>("FractionalMaxPoolGrad", {types});
  r->Register<FractionalAvgPoolGradOp>("FractionalAvgPoolGrad", {types});
}

}  // namespace dfg
