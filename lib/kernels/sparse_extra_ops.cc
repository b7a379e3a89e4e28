// More sparse kernels: SparseSplit, SparseMatMul (a dense matmul with
// sparsity hints, float output), EditDistance (Levenshtein distance between
// the sequences of two sparse tensors, grouped by all dims but the last) and
// SetSize (distinct values per group).
#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/sparse_util.h"

namespace dfg {
namespace {

class SparseSplitOp : public OpKernel {
 public:
  explicit SparseSplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_split", &num_split_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& idx_t = ctx->input(1);
    const Tensor& vals = ctx->input(2);
    const Tensor& shape_t = ctx->input(3);
    DFG_OP_REQUIRES(ctx, ctx->input(0).NumElements() == 1,
                    InvalidArgument("split_dim should be a scalar"));
    DFG_OP_REQUIRES_OK(ctx, CheckSparseInputs(idx_t, vals, shape_t, "Input"));
    const std::vector<int64_t> shape = IntValues(shape_t);
    const int64_t rank = static_cast<int64_t>(shape.size());
    int64_t dim = IntValues(ctx->input(0))[0];
    DFG_OP_REQUIRES(ctx, dim >= -rank && dim < rank,
                    InvalidArgument("Input split_dim should be between {} and "
                                    "{}, got {}",
                                    -rank, rank - 1, dim));
    if (dim < 0) dim += rank;
    DFG_OP_REQUIRES(ctx, num_split_ >= 1 && num_split_ <= shape[dim],
                    InvalidArgument("Input num_split should be between 1 and "
                                    "the splitting dimension size ({}), got {}",
                                    shape[dim], num_split_));
    const int64_t size = shape[dim] / num_split_;
    const int64_t residual = shape[dim] % num_split_;
    const std::vector<int64_t> idx = IntValues(idx_t);
    const int64_t n = vals.NumElements();
    for (int64_t s = 0; s < num_split_; ++s) {
      const int64_t begin = s * size + std::min(s, residual);
      const int64_t len = size + (s < residual ? 1 : 0);
      std::vector<int64_t> hits;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t x = idx[i * rank + dim];
        if (x >= begin && x < begin + len) hits.push_back(i);
      }
      const int64_t m = static_cast<int64_t>(hits.size());
      Tensor oi(tensorflow::DT_INT64, TensorShape({m, rank}));
      Tensor ov(vals.dtype(), TensorShape({m}));
      for (int64_t k = 0; k < m; ++k) {
        for (int64_t d = 0; d < rank; ++d) {
          oi.flat<int64_t>()[k * rank + d] =
              idx[hits[k] * rank + d] - (d == dim ? begin : 0);
        }
        CopyElements(vals, hits[k], &ov, k, 1);
      }
      std::vector<int64_t> out_shape = shape;
      out_shape[dim] = len;
      ctx->set_output(static_cast<int>(s), std::move(oi));
      ctx->set_output(static_cast<int>(num_split_ + s), std::move(ov));
      ctx->set_output(static_cast<int>(2 * num_split_ + s),
                      Tensor::Vector<int64_t>(out_shape));
    }
  }

 private:
  int64_t num_split_ = 1;
};

class SparseMatMulOp : public OpKernel {
 public:
  explicit SparseMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &ta_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &tb_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    DFG_OP_REQUIRES(ctx, a.dims() == 2, InvalidArgument("a is not a matrix"));
    DFG_OP_REQUIRES(ctx, b.dims() == 2, InvalidArgument("b is not a matrix"));
    const int64_t m = a.dim_size(ta_ ? 1 : 0), k = a.dim_size(ta_ ? 0 : 1);
    const int64_t k2 = b.dim_size(tb_ ? 1 : 0), n = b.dim_size(tb_ ? 0 : 1);
    DFG_OP_REQUIRES(
        ctx, k == k2,
        InvalidArgument("Matrix size incompatible: a: {}, b: {}",
                        a.shape().DebugString(), b.shape().DebugString()));
    const std::vector<float> av = AsFloat(a), bv = AsFloat(b);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    float* o = out->flat<float>().data();
    const int64_t ac = a.dim_size(1), bc = b.dim_size(1);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float s = 0;
        for (int64_t p = 0; p < k; ++p) {
          s += av[ta_ ? p * ac + i : i * ac + p] *
               bv[tb_ ? j * bc + p : p * bc + j];
        }
        o[i * n + j] = s;
      }
    }
  }

 private:
  static std::vector<float> AsFloat(const Tensor& t) {
    std::vector<float> v(t.NumElements());
    if (t.dtype() == tensorflow::DT_BFLOAT16) {
      for (size_t i = 0; i < v.size(); ++i) v[i] = Load(t.flat<BFloat16>()[i]);
    } else {
      std::copy_n(t.flat<float>().data(), v.size(), v.data());
    }
    return v;
  }
  bool ta_ = false, tb_ = false;
};

// The entries of a sparse tensor grouped by all dims but the last, in
// row-major order: (group coordinates, entry numbers in last-dim order).
std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> Groups(
    const std::vector<int64_t>& idx, int64_t n, int64_t rank) {
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(&idx[a * rank], &idx[(a + 1) * rank],
                                        &idx[b * rank], &idx[(b + 1) * rank]);
  });
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> out;
  for (int64_t i : perm) {
    std::vector<int64_t> key(&idx[i * rank], &idx[i * rank] + rank - 1);
    if (out.empty() || out.back().first != key) out.push_back({key, {}});
    out.back().second.push_back(i);
  }
  return out;
}

template <typename T>
bool Equal(const T& a, const T& b) {
  if constexpr (kIsHalfLike<T>) {
    return Load(a) == Load(b);
  } else {
    return a == b;
  }
}

template <typename T>
int64_t Levenshtein(const T* h, const std::vector<int64_t>& hi, const T* t,
                    const std::vector<int64_t>& ti) {
  const size_t s = hi.size(), u = ti.size();
  std::vector<int64_t> prev(u + 1), cur(u + 1);
  std::iota(prev.begin(), prev.end(), 0);
  for (size_t i = 1; i <= s; ++i) {
    cur[0] = static_cast<int64_t>(i);
    for (size_t j = 1; j <= u; ++j) {
      const int64_t sub =
          prev[j - 1] + (Equal(h[hi[i - 1]], t[ti[j - 1]]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[u];
}

class EditDistanceOp : public OpKernel {
 public:
  explicit EditDistanceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("normalize", &normalize_));
  }

  void Compute(OpKernelContext* ctx) override {
    for (int k = 0; k < 2; ++k) {
      DFG_OP_REQUIRES_OK(
          ctx, CheckSparseInputs(ctx->input(3 * k), ctx->input(3 * k + 1),
                                 ctx->input(3 * k + 2),
                                 k == 0 ? "hypothesis" : "truth"));
    }
    const std::vector<int64_t> hs = IntValues(ctx->input(2));
    const std::vector<int64_t> ts = IntValues(ctx->input(5));
    DFG_OP_REQUIRES(ctx, hs.size() == ts.size() && hs.size() >= 1,
                    InvalidArgument("truth and hypothesis tensors must have "
                                    "the same rank, got {} and {}",
                                    ts.size(), hs.size()));
    const int64_t rank = static_cast<int64_t>(hs.size());
    std::vector<int64_t> out_shape(rank - 1);
    for (int64_t d = 0; d + 1 < rank; ++d) {
      out_shape[d] = std::max(hs[d], ts[d]);
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape(std::span<const int64_t>(out_shape)), &out));
    float* o = out->flat<float>().data();
    std::fill(o, o + out->NumElements(), 0.0f);
    const std::vector<int64_t> strides = Strides(out_shape);
    const auto flat = [&](const std::vector<int64_t>& key) {
      int64_t off = 0;
      for (size_t d = 0; d < key.size(); ++d) off += key[d] * strides[d];
      return off;
    };
    const auto hg =
        Groups(IntValues(ctx->input(0)), ctx->input(1).NumElements(), rank);
    const auto tg =
        Groups(IntValues(ctx->input(3)), ctx->input(4).NumElements(), rank);
    Dispatch(AllTypes(), ctx->input(1).dtype(), [&](auto v) {
      using T = decltype(v);
      const T* h = ctx->input(1).flat<T>().data();
      const T* t = ctx->input(4).flat<T>().data();
      const std::vector<int64_t> none;
      size_t i = 0, j = 0;
      while (i < hg.size() || j < tg.size()) {
        const bool take_h =
            i < hg.size() && (j >= tg.size() || hg[i].first <= tg[j].first);
        const bool take_t =
            j < tg.size() && (i >= hg.size() || tg[j].first <= hg[i].first);
        const auto& key = take_h ? hg[i].first : tg[j].first;
        const auto& hv = take_h ? hg[i].second : none;
        const auto& tv = take_t ? tg[j].second : none;
        float d = static_cast<float>(Levenshtein(h, hv, t, tv));
        if (normalize_) d /= static_cast<float>(tv.size());
        o[flat(key)] = d;
        i += take_h;
        j += take_t;
      }
    });
  }

 private:
  bool normalize_ = true;
};

class SetSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& idx_t = ctx->input(0);
    const Tensor& vals = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, CheckSparseInputs(idx_t, vals, shape_t, "Input"));
    const std::vector<int64_t> shape = IntValues(shape_t);
    const int64_t rank = static_cast<int64_t>(shape.size());
    DFG_OP_REQUIRES(ctx, rank >= 2,
                    InvalidArgument("Invalid input rank {}.", rank));
    const std::vector<int64_t> out_shape(shape.begin(), shape.end() - 1);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape(std::span<const int64_t>(out_shape)), &out));
    int32_t* o = out->flat<int32_t>().data();
    std::fill(o, o + out->NumElements(), 0);
    const std::vector<int64_t> strides = Strides(out_shape);
    const auto groups = Groups(IntValues(idx_t), vals.NumElements(), rank);
    Dispatch(TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                      std::string>(),
             vals.dtype(), [&](auto v) {
               using T = decltype(v);
               const T* in = vals.flat<T>().data();
               for (const auto& [key, entries] : groups) {
                 std::set<T> distinct;
                 for (int64_t e : entries) distinct.insert(in[e]);
                 int64_t off = 0;
                 for (size_t d = 0; d < key.size(); ++d) {
                   off += key[d] * strides[d];
                 }
                 o[off] = static_cast<int32_t>(distinct.size());
               }
             });
  }
};

}  // namespace

void RegisterSparseExtraKernels(KernelRegistry* r) {
  r->Register<SparseSplitOp>("SparseSplit");
  r->Register<SparseMatMulOp>("SparseMatMul");
  r->Register<EditDistanceOp>("EditDistance");
  r->Register<SetSizeOp>("SetSize");
}

}  // namespace dfg
