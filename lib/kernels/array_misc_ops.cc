// Small array kernels (TensorFlow's bcast_ops.cc, bitcast_op.cc,
// shape_ops.cc, data_format_ops.cc, nth_element_op.cc, mirror_pad_op.cc,
// inplace_ops.cc, guarantee_const_op.cc): BroadcastArgs, Bitcast,
// EnsureShape, DataFormatDimMap, DataFormatVecPermute, NthElement,
// MirrorPadGrad, Empty, GuaranteeConst, DeepCopy and ToBool.
#include <algorithm>
#include <cstring>

#include "lib/kernels/array_util.h"
#include "lib/kernels/shape_args.h"

namespace dfg {

void RegisterArrayExtKernels(KernelRegistry* r);  // array_ext_ops.cc

namespace {

// Writes int64 `values` into a new int32/int64 output.
void SetIntOutput(OpKernelContext* ctx, int i, const TensorShape& shape,
                  const std::vector<int64_t>& values) {
  Tensor* out = nullptr;
  DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(i, shape, &out));
  for (size_t k = 0; k < values.size(); ++k) {
    if (out->dtype() == tensorflow::DT_INT32) {
      out->flat<int32_t>()[k] = static_cast<int32_t>(values[k]);
    } else {
      out->flat<int64_t>()[k] = values[k];
    }
  }
}

class BroadcastArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> s[2];
    for (int i = 0; i < 2; ++i) {
      const Tensor& t = ctx->input(i);
      DFG_OP_REQUIRES(ctx, t.dims() == 1,
                      InvalidArgument("In[{}] must be a vector.{}", i,
                                      t.shape().DebugString()));
      s[i] = IntValues(t);
    }
    const size_t rank = std::max(s[0].size(), s[1].size());
    std::vector<int64_t> r(rank);
    for (size_t k = 0; k < rank; ++k) {
      const int64_t a =
          k < rank - s[0].size() ? 1 : s[0][k - (rank - s[0].size())];
      const int64_t b =
          k < rank - s[1].size() ? 1 : s[1][k - (rank - s[1].size())];
      DFG_OP_REQUIRES(ctx, a == b || a == 1 || b == 1,
                      InvalidArgument("Incompatible shapes: {} vs. {}",
                                      VectorString(s[0]), VectorString(s[1])));
      r[k] = a == 1 ? b : a;
    }
    SetIntOutput(ctx, 0, TensorShape({static_cast<int64_t>(rank)}), r);
  }
};

class BitcastOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const DataType to = output_type(0);
    const size_t in_size = Tensor(in.dtype(), TensorShape({1})).TotalBytes();
    const size_t out_size = Tensor(to, TensorShape({1})).TotalBytes();
    TensorShape shape = in.shape();
    const auto error = [&] {
      return InvalidArgument("Cannot bitcast from {} to {}",
                             static_cast<int>(in.dtype()),
                             static_cast<int>(to));
    };
    if (in_size > out_size) {
      DFG_OP_REQUIRES(ctx, in_size % out_size == 0, error());
      shape.AddDim(in_size / out_size);
    } else if (in_size < out_size) {
      DFG_OP_REQUIRES(ctx,
                      out_size % in_size == 0 && shape.dims() >= 1 &&
                          shape.dim_size(shape.dims() - 1) ==
                              static_cast<int64_t>(out_size / in_size),
                      error());
      shape.RemoveDim(shape.dims() - 1);
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (in.TotalBytes() > 0)
      std::memcpy(out->data(), in.data(), in.TotalBytes());
  }
};

class EnsureShapeOp : public OpKernel {
 public:
  explicit EnsureShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    bool ok = shape_.unknown_rank();
    if (!ok && shape_.dim_size() == in.dims()) {
      ok = true;
      for (int d = 0; d < in.dims(); ++d) {
        const int64_t want = shape_.dim(d).size();
        ok = ok && (want < 0 || want == in.dim_size(d));
      }
    }
    DFG_OP_REQUIRES(
        ctx, ok,
        InvalidArgument("Shape of tensor {} {} is not compatible "
                        "with expected shape {}.",
                        requested_input(0), in.shape().DebugString(),
                        PartialShapeDebugString(shape_)));
    ctx->set_output(0, in);
  }

 private:
  TensorShapeProto shape_;
};

// The src/dst format attrs of the DataFormat ops: 4 or 5 letters, one a
// permutation of the other.
Status ReadFormats(OpKernelConstruction* ctx, std::string* src,
                   std::string* dst) {
  DFG_RETURN_IF_ERROR(ctx->GetAttr("src_format", src));
  DFG_RETURN_IF_ERROR(ctx->GetAttr("dst_format", dst));
  if (src->size() != 4 && src->size() != 5) {
    return InvalidArgument(
        "Source format must be of length 4 or 5, received src_format = {}",
        *src);
  }
  if (dst->size() != 4 && dst->size() != 5) {
    return InvalidArgument(
        "Destination format must be of length 4 or 5, received dst_format = {}",
        *dst);
  }
  if (!std::is_permutation(src->begin(), src->end(), dst->begin(),
                           dst->end())) {
    return InvalidArgument(
        "Destination and source format must determine a permutation, got {} "
        "and {}",
        *src, *dst);
  }
  return Status::Ok();
}

class DataFormatDimMapOp : public OpKernel {
 public:
  explicit DataFormatDimMapOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadFormats(ctx, &src_, &dst_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const int64_t n = static_cast<int64_t>(src_.size());
    std::vector<int64_t> y;
    for (int64_t v : IntValues(x)) {
      const char c = src_[((v % n) + n) % n];
      y.push_back(static_cast<int64_t>(dst_.find(c)));
    }
    SetIntOutput(ctx, 0, x.shape(), y);
  }

 private:
  std::string src_, dst_;
};

class DataFormatVecPermuteOp : public OpKernel {
 public:
  explicit DataFormatVecPermuteOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadFormats(ctx, &src_, &dst_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const int64_t full = static_cast<int64_t>(src_.size());
    const int64_t spatial = full - 2;
    const std::string shape = x.shape().DebugString();
    if (x.dims() == 1) {
      DFG_OP_REQUIRES(ctx, x.dim_size(0) == spatial || x.dim_size(0) == full,
                      InvalidArgument("1D input must be of size {} or {}, but "
                                      "got shape {}",
                                      spatial, full, shape));
    } else if (x.dims() == 2) {
      DFG_OP_REQUIRES(ctx, x.dim_size(0) == spatial || x.dim_size(0) == full,
                      InvalidArgument("First dimension of 2D input must be of "
                                      "size {} or {}, but got shape {}",
                                      spatial, full, shape));
      DFG_OP_REQUIRES(ctx, x.dim_size(1) == 2,
                      InvalidArgument("Second dimension of 2D input must be of "
                                      "size 2, but got shape {}",
                                      shape));
    } else {
      ctx->SetStatus(InvalidArgument(
          "input must be a vector or 2D tensor, but got shape {}", shape));
      return;
    }
    std::string src = src_, dst = dst_;
    if (x.dim_size(0) == spatial) {  // only the spatial dims
      auto keep_spatial = [&](std::string* s) {
        std::erase_if(*s, [&](char c) {
          return c != 'H' && c != 'W' && (spatial == 2 || c != 'D');
        });
      };
      keep_spatial(&src);
      keep_spatial(&dst);
    }
    const std::vector<int64_t> in = IntValues(x);
    const int64_t width = x.dims() == 2 ? 2 : 1;
    std::vector<int64_t> y(in.size());
    for (size_t i = 0; i < dst.size(); ++i) {
      const size_t from = src.find(dst[i]);
      for (int64_t j = 0; j < width; ++j) {
        y[i * width + j] = in[from * width + j];
      }
    }
    SetIntOutput(ctx, 0, x.shape(), y);
  }

 private:
  std::string src_, dst_;
};

class NthElementOp : public OpKernel {
 public:
  explicit NthElementOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("reverse", &reverse_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& n_t = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, n_t.dims() == 0,
        InvalidArgument("N must be scalar but has rank {}", n_t.dims()));
    int64_t n = IntValues(n_t)[0];
    DFG_OP_REQUIRES(ctx, n >= 0,
                    InvalidArgument("n must be non-negative but is {}", n));
    const Tensor& in = ctx->input(0);
    const int rank = in.dims();
    DFG_OP_REQUIRES(ctx, rank >= 1,
                    InvalidArgument("Input must be at least rank 1 but is "
                                    "rank {}",
                                    rank));
    const int64_t last = in.dim_size(rank - 1);
    DFG_OP_REQUIRES(
        ctx, last > n,
        InvalidArgument("Input must have last dimension > n = {}", n));
    if (reverse_) n = last - n - 1;
    TensorShape shape = in.shape();
    shape.RemoveDim(rank - 1);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    Dispatch(RealTypes(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* src = static_cast<const T*>(in.data());
      T* dst = static_cast<T*>(out->data());
      std::vector<CalcType<T>> row(last);
      for (int64_t r = 0; r < shape.num_elements(); ++r) {
        for (int64_t j = 0; j < last; ++j) row[j] = Load(src[r * last + j]);
        std::nth_element(row.begin(), row.begin() + n, row.end());
        dst[r] = Store<T>(row[n]);
      }
    });
  }

 private:
  bool reverse_ = false;
};

class MirrorPadGradOp : public OpKernel {
 public:
  explicit MirrorPadGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string mode;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("mode", &mode));
    offset_ = mode == "REFLECT" ? 1 : 0;
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& pad_t = ctx->input(1);
    const int rank = in.dims();
    DFG_OP_REQUIRES(ctx, pad_t.dims() == 2 && pad_t.dim_size(1) == 2,
                    InvalidArgument("paddings must be a matrix with 2 "
                                    "columns: {}",
                                    pad_t.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, pad_t.dim_size(0) == rank,
        InvalidArgument("The first dimension of paddings must be "
                        "the rank of inputs{} {}",
                        pad_t.shape().DebugString(), in.shape().DebugString()));
    const std::vector<int64_t> pads = IntValues(pad_t);
    TensorShape shape;
    for (int d = 0; d < rank; ++d) {
      const int64_t before = pads[2 * d], after = pads[2 * d + 1];
      DFG_OP_REQUIRES(ctx, before >= 0 && after >= 0,
                      InvalidArgument("Paddings must be non-negative: {}, {}",
                                      before, after));
      const int64_t total = before + after;
      DFG_OP_REQUIRES(ctx, total < in.dim_size(d),
                      InvalidArgument("Total paddings must be less than the "
                                      "input dimension size: {} was not less "
                                      "than {}",
                                      total, in.dim_size(d)));
      const int64_t n = in.dim_size(d) - total;
      if (offset_ == 0) {
        DFG_OP_REQUIRES(ctx, before <= n && after <= n,
                        InvalidArgument("paddings must be no greater than the "
                                        "output dimension size: {}, {} "
                                        "greater than {}",
                                        before, after, n));
      } else {
        DFG_OP_REQUIRES(ctx, before < n && after < n,
                        InvalidArgument("paddings must be less than the output "
                                        "dimension size: {}, {} not less than "
                                        "{}",
                                        before, after, n));
      }
      shape.AddDim(n);
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    Dispatch(NumberTypes(), in.dtype(),
             [&](auto v) { Fold<decltype(v)>(in, pads, out); });
  }

 private:
  // out[mirror(c)] += in[c] for every padded coordinate c.
  template <typename T>
  void Fold(const Tensor& in, const std::vector<int64_t>& pads,
            Tensor* out) const {
    const int rank = in.dims();
    std::vector<CalcType<T>> acc(out->NumElements(), CalcType<T>(0));
    const T* src = static_cast<const T*>(in.data());
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      int64_t rem = i, dst = 0, stride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t c = rem % in.dim_size(d);
        rem /= in.dim_size(d);
        const int64_t n = out->dim_size(d);
        int64_t x = c - pads[2 * d];
        if (x < 0) x = -x - 1 + offset_;
        if (x >= n) x = 2 * n - 1 - offset_ - x;
        dst += x * stride;
        stride *= n;
      }
      acc[dst] += Load(src[i]);
    }
    T* o = static_cast<T*>(out->data());
    for (size_t k = 0; k < acc.size(); ++k) o[k] = Store<T>(acc[k]);
  }

  int64_t offset_ = 0;
};

class EmptyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& s = ctx->input(0);
    DFG_OP_REQUIRES(ctx, s.dims() == 1,
                    InvalidArgument("shape must be a vector of int32, got "
                                    "shape {}",
                                    s.shape().DebugString()));
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, MakeShape(IntValues(s), &shape));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    // Zeros also without `init`: TensorFlow leaves them unspecified.
    VisitElementType(out->dtype(), [&](auto v) {
      using T = decltype(v);
      for (T& e : out->flat<T>()) e = T{};
    });
  }
};

class PassThroughOp : public OpKernel {
 public:
  explicit PassThroughOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    copy_ = ctx->def().op() == "DeepCopy";
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, copy_ ? ctx->input(0).DeepCopy() : ctx->input(0));
  }

 private:
  bool copy_ = false;
};

// ToBool: a scalar's value != 0 (a string's non-emptiness); else whether the
// tensor has elements.
class ToBoolOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    bool b = in.NumElements() > 0;
    if (in.dims() == 0) {
      Dispatch(AllTypes(), in.dtype(), [&](auto v) {
        using T = decltype(v);
        const T& e = in.flat<T>()[0];
        if constexpr (std::is_same_v<T, std::string>) {
          b = !e.empty();
        } else {
          b = Load(e) != CalcType<T>(0);
        }
      });
    }
    ctx->set_output(0, Tensor::Scalar<bool>(b));
  }
};

}  // namespace

void RegisterArrayMiscKernels(KernelRegistry* r) {
  r->Register<BroadcastArgsOp>("BroadcastArgs");
  // TensorFlow's Bitcast kernel takes every type, the quantized ones too.
  const auto types =
      NumberTypes() + TypeList<QInt8, QUInt8, QInt16, QUInt16, QInt32>();
  r->Register<BitcastOp>(
      "Bitcast", {TypeConstraint("T", types), TypeConstraint("type", types)});
  r->Register<EnsureShapeOp>("EnsureShape");
  r->Register<DataFormatDimMapOp>("DataFormatDimMap");
  r->Register<DataFormatVecPermuteOp>("DataFormatVecPermute");
  r->Register<NthElementOp>("NthElement", {TypeConstraint("T", RealTypes())});
  r->Register<MirrorPadGradOp>("MirrorPadGrad",
                               {TypeConstraint("T", NumberTypes())});
  r->Register<EmptyOp>("Empty", {TypeConstraint("dtype", AllTypes())});
  r->Register<PassThroughOp>("GuaranteeConst");
  r->Register<PassThroughOp>("DeepCopy");
  r->Register<ToBoolOp>("ToBool", {TypeConstraint("T", AllTypes())});
  RegisterArrayExtKernels(r);
}

}  // namespace dfg
