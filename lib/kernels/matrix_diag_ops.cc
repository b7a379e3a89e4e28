// Diagonals: Diag / DiagPart (a rank-r tensor's diagonal in a rank-2r one),
// and the batched matrix forms MatrixDiag / MatrixDiagPart / MatrixSetDiag
// with their V2 (a band of diagonals k = [lower, upper], num_rows, num_cols,
// padding_value) and V3 (plus `align`) versions.
//
// A band's diagonals are stored from upper to lower; each is max_diag_len
// long, and a shorter one sits left- or right-aligned in its row: V3's
// align "SUPER_SUB" says which for super- (d >= 0) and subdiagonals
// (d <= 0); V1/V2 align both left.
#include <algorithm>
#include <string>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

using PodTypes = decltype(NumberTypes() + TypeList<bool>());
using DiagTypes = TypeList<float, double, Half, int32_t, int64_t,
                           std::complex<float>, std::complex<double>>;

struct Band {
  int64_t lower = 0, upper = 0;
  bool left_super = true, left_sub = true;

  int64_t num_diags() const { return upper - lower + 1; }
  // Length of diagonal d of a rows x cols matrix, and where it starts in its
  // max_len slot.
  int64_t Len(int64_t d, int64_t rows, int64_t cols) const {
    return std::min(rows + std::min<int64_t>(0, d),
                    cols - std::max<int64_t>(0, d));
  }
  int64_t Offset(int64_t d, int64_t max_len, int64_t rows, int64_t cols) const {
    const bool left = (d >= 0 && left_super) || (d <= 0 && left_sub);
    return left ? 0 : max_len - Len(d, rows, cols);
  }
};

void ReadAlign(OpKernelConstruction* ctx, Band* band) {
  if (!ctx->HasAttr("align")) return;
  std::string align;
  DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("align", &align));
  band->left_super = align == "LEFT_LEFT" || align == "LEFT_RIGHT";
  band->left_sub = align == "LEFT_LEFT" || align == "RIGHT_LEFT";
}

Status ReadK(const Tensor& k, Band* band) {
  if (k.dims() > 1) {
    return InvalidArgument(
        "diag_index must be a scalar or vector, received shape: {}",
        k.shape().DebugString());
  }
  if (k.NumElements() == 0) {
    return InvalidArgument("diag_index must have at least one element");
  }
  if (k.NumElements() > 2) {
    return InvalidArgument(
        "diag_index must have only one or two elements, received {} "
        "elements.",
        k.NumElements());
  }
  const std::vector<int64_t> v = IntValues(k);
  band->lower = v[0];
  band->upper = v.back();
  return Status::Ok();
}

// The band must lie in a rows x cols matrix (`dot`: MatrixDiagPart's
// message has a period after the lower index, MatrixSetDiag's has not).
Status CheckBand(const Band& b, int64_t rows, int64_t cols, bool dot) {
  auto inside = [&](int64_t d) { return (-rows < d && d < cols) || d == 0; };
  if (!inside(b.lower)) {
    return InvalidArgument(
        "lower_diag_index is out of bound: {}{} It must be between {} and {}",
        b.lower, dot ? "." : "", -rows, cols);
  }
  if (!inside(b.upper)) {
    return InvalidArgument(
        "upper_diag_index is out of bound: {} It must be between {} and {}",
        b.upper, -rows, cols);
  }
  if (b.lower > b.upper) {
    return InvalidArgument(
        "lower_diag_index must not be larger than upper_diag_index: {} > {}",
        b.lower, b.upper);
  }
  return Status::Ok();
}

// Calls fn(d, slot, i, j) for each element of each diagonal of the band in a
// rows x cols matrix: slot is its index in the packed [num_diags, max_len]
// layout, (i, j) its matrix position.
template <typename Fn>
void ForBand(const Band& b, int64_t rows, int64_t cols, int64_t max_len,
             Fn&& fn) {
  for (int64_t m = 0; m < b.num_diags(); ++m) {
    const int64_t d = b.upper - m;
    const int64_t len = b.Len(d, rows, cols);
    const int64_t off = b.Offset(d, max_len, rows, cols);
    for (int64_t n = 0; n < len; ++n) {
      const int64_t i = d >= 0 ? n : n - d;
      const int64_t j = d >= 0 ? n + d : n;
      fn(m * max_len + off + n, i, j);
    }
  }
}

template <typename T>
T Scalar(const Tensor& t) {
  return t.NumElements() > 0 ? static_cast<const T*>(t.data())[0] : T{};
}

class MatrixDiagPartOp : public OpKernel {
 public:
  explicit MatrixDiagPartOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadAlign(ctx, &band_);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Band b = band_;
    if (ctx->num_inputs() > 1)
      DFG_OP_REQUIRES_OK(ctx, ReadK(ctx->input(1), &b));
    DFG_OP_REQUIRES(ctx, in.dims() >= 2,
                    InvalidArgument("input must be at least 2-dim, received "
                                    "shape: {}",
                                    in.shape().DebugString()));
    const int64_t rows = in.dim_size(in.dims() - 2);
    const int64_t cols = in.dim_size(in.dims() - 1);
    DFG_OP_REQUIRES_OK(ctx, CheckBand(b, rows, cols, /*dot=*/true));
    TensorShape shape;
    for (int d = 0; d < in.dims() - 2; ++d) shape.AddDim(in.dim_size(d));
    if (b.num_diags() > 1) shape.AddDim(b.num_diags());
    const int64_t max_len = std::min(rows + std::min<int64_t>(b.upper, 0),
                                     cols - std::max<int64_t>(b.lower, 0));
    shape.AddDim(max_len);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t mat = rows * cols, packed = b.num_diags() * max_len;
    const int64_t batch = packed == 0 ? 0 : out->NumElements() / packed;
    Dispatch(PodTypes(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      const T pad = ctx->num_inputs() > 2 ? Scalar<T>(ctx->input(2)) : T{};
      const T* src = static_cast<const T*>(in.data());
      T* dst = static_cast<T*>(out->data());
      std::fill(dst, dst + out->NumElements(), pad);
      for (int64_t n = 0; n < batch; ++n) {
        ForBand(b, rows, cols, max_len, [&](int64_t s, int64_t i, int64_t j) {
          dst[n * packed + s] = src[n * mat + i * cols + j];
        });
      }
    });
  }

 private:
  Band band_;
};

class MatrixDiagOp : public OpKernel {
 public:
  explicit MatrixDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadAlign(ctx, &band_);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& diag = ctx->input(0);
    Band b = band_;
    int64_t rows = -1, cols = -1;
    if (ctx->num_inputs() > 1) {
      DFG_OP_REQUIRES_OK(ctx, ReadK(ctx->input(1), &b));
      for (int i : {2, 3}) {
        DFG_OP_REQUIRES(ctx, ctx->input(i).NumElements() == 1,
                        InvalidArgument("{} must be a scalar",
                                        i == 2 ? "num_rows" : "num_cols"));
      }
      rows = IntValues(ctx->input(2))[0];
      cols = IntValues(ctx->input(3))[0];
    }
    const int rank = diag.dims();
    DFG_OP_REQUIRES(ctx, rank >= 1,
                    InvalidArgument("diagonal must be at least 1-dim, "
                                    "received shape: {}",
                                    diag.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, b.lower <= b.upper,
                    InvalidArgument("lower_diag_index must not be larger than "
                                    "upper_diag_index: {} > {}",
                                    b.lower, b.upper));
    DFG_OP_REQUIRES(
        ctx,
        b.lower == b.upper ||
            (rank >= 2 && diag.dim_size(rank - 2) == b.num_diags()),
        InvalidArgument("The number of diagonals provided in the input does "
                        "not match the lower_diag_index and upper_diag_index "
                        "range."));
    const int64_t max_len = diag.dim_size(rank - 1);
    const int64_t min_rows = max_len - std::min<int64_t>(b.upper, 0);
    const int64_t min_cols = max_len + std::max<int64_t>(b.lower, 0);
    DFG_OP_REQUIRES(ctx, rows == -1 || rows >= min_rows,
                    InvalidArgument("The number of rows is too small."));
    DFG_OP_REQUIRES(ctx, cols == -1 || cols >= min_cols,
                    InvalidArgument("The number of columns is too small."));
    if (rows == -1 && cols == -1) {
      rows = cols = std::max(min_rows, min_cols);
    } else if (rows == -1) {
      rows = min_rows;
    } else if (cols == -1) {
      cols = min_cols;
    }
    DFG_OP_REQUIRES(ctx, rows == min_rows || cols == min_cols,
                    InvalidArgument("The number of rows or columns is not "
                                    "consistent with the specified d_lower, "
                                    "d_upper, and diagonal."));
    TensorShape shape = diag.shape();
    if (b.num_diags() == 1) {
      shape.set_dim(rank - 1, rows);
      shape.AddDim(cols);
    } else {
      shape.set_dim(rank - 2, rows);
      shape.set_dim(rank - 1, cols);
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t mat = rows * cols, packed = b.num_diags() * max_len;
    const int64_t batch = mat == 0 ? 0 : out->NumElements() / mat;
    Dispatch(PodTypes(), diag.dtype(), [&](auto v) {
      using T = decltype(v);
      const T pad = ctx->num_inputs() > 4 ? Scalar<T>(ctx->input(4)) : T{};
      const T* src = static_cast<const T*>(diag.data());
      T* dst = static_cast<T*>(out->data());
      std::fill(dst, dst + out->NumElements(), pad);
      for (int64_t n = 0; n < batch; ++n) {
        ForBand(b, rows, cols, max_len, [&](int64_t s, int64_t i, int64_t j) {
          dst[n * mat + i * cols + j] = src[n * packed + s];
        });
      }
    });
  }

 private:
  Band band_;
};

class MatrixSetDiagOp : public OpKernel {
 public:
  explicit MatrixSetDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadAlign(ctx, &band_);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& diag = ctx->input(1);
    Band b = band_;
    if (ctx->num_inputs() > 2)
      DFG_OP_REQUIRES_OK(ctx, ReadK(ctx->input(2), &b));
    DFG_OP_REQUIRES(ctx, in.dims() >= 2,
                    InvalidArgument("input must be at least 2-dim, received "
                                    "shape: {}",
                                    in.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, diag.dims() >= 1,
                    InvalidArgument("diagonal must be at least 1-dim, "
                                    "received shape: {}",
                                    diag.shape().DebugString()));
    const int rank = in.dims();
    const int64_t rows = in.dim_size(rank - 2), cols = in.dim_size(rank - 1);
    DFG_OP_REQUIRES_OK(ctx, CheckBand(b, rows, cols, /*dot=*/false));
    DFG_OP_REQUIRES(
        ctx,
        b.lower == b.upper || (diag.dims() > rank - 2 &&
                               diag.dim_size(rank - 2) == b.num_diags()),
        InvalidArgument("The number of diagonals provided in `diag` is not "
                        "consistent with `lower_diag_index` and "
                        "`upper_diag_index`"));
    TensorShape expected;
    for (int d = 0; d < rank - 2; ++d) expected.AddDim(in.dim_size(d));
    if (b.num_diags() > 1) expected.AddDim(b.num_diags());
    const int64_t max_len = std::min(rows + std::min<int64_t>(b.upper, 0),
                                     cols - std::max<int64_t>(b.lower, 0));
    expected.AddDim(max_len);
    DFG_OP_REQUIRES(
        ctx, expected.IsSameSize(diag.shape()),
        InvalidArgument(
            "Either first dimensions of diagonal don't match "
            "input.shape[:-2], or diagonal.shape[:-1] is not equal to the "
            "longests diagonal in range [lower_diag_index:upper_diag_index]."
            "\nInput shape: {}\nDiagonal shape: {}\nExpected diagonal shape: "
            "{}",
            in.shape().DebugString(), diag.shape().DebugString(),
            expected.DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t mat = rows * cols, packed = b.num_diags() * max_len;
    const int64_t batch = mat == 0 ? 0 : in.NumElements() / mat;
    Dispatch(PodTypes(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* src = static_cast<const T*>(in.data());
      const T* dg = static_cast<const T*>(diag.data());
      T* dst = static_cast<T*>(out->data());
      std::copy(src, src + in.NumElements(), dst);
      for (int64_t n = 0; n < batch; ++n) {
        ForBand(b, rows, cols, max_len, [&](int64_t s, int64_t i, int64_t j) {
          dst[n * mat + i * cols + j] = dg[n * packed + s];
        });
      }
    });
  }

 private:
  Band band_;
};

// Diag: out[i..., i...] = in[i...] (rank r -> 2r); DiagPart the inverse.
template <bool kPart>
class DiagOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    TensorShape shape;
    int64_t n = 0;  // elements of the diagonal
    if constexpr (kPart) {
      const int rank = in.dims();
      DFG_OP_REQUIRES(ctx, rank > 0 && rank % 2 == 0,
                      InvalidArgument("The rank of the tensor should be "
                                      "                                       "
                                      "  even and positive, got shape {}",
                                      in.shape().DebugString()));
      for (int d = 0; d < rank / 2; ++d) {
        DFG_OP_REQUIRES(
            ctx, in.dim_size(d) == in.dim_size(d + rank / 2),
            InvalidArgument("Invalid shape {}: dimensions {} and "
                            "{} do not match.",
                            in.shape().DebugString(), d, d + rank / 2));
        shape.AddDim(in.dim_size(d));
      }
      n = shape.num_elements();
    } else {
      DFG_OP_REQUIRES(
          ctx, in.dims() >= 1,
          InvalidArgument("Input must be at least rank 1, got {}", in.dims()));
      shape = in.shape();
      for (int d = 0; d < in.dims(); ++d) shape.AddDim(in.dim_size(d));
      n = in.NumElements();
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    Dispatch(DiagTypes(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* src = static_cast<const T*>(in.data());
      T* dst = static_cast<T*>(out->data());
      // Element i of the diagonal is at i * (n + 1) of the square form.
      if constexpr (kPart) {
        for (int64_t i = 0; i < n; ++i) dst[i] = src[i * (n + 1)];
      } else {
        std::fill(dst, dst + out->NumElements(), T{});
        for (int64_t i = 0; i < n; ++i) dst[i * (n + 1)] = src[i];
      }
    });
  }
};

}  // namespace

void RegisterMatrixDiagKernels(KernelRegistry* r) {
  for (const char* op : {"MatrixDiagPart", "MatrixDiagPartV2",
                         "MatrixDiagPartV3", "BatchMatrixDiagPart"}) {
    r->Register<MatrixDiagPartOp>(op, {TypeConstraint("T", PodTypes())});
  }
  for (const char* op :
       {"MatrixDiag", "MatrixDiagV2", "MatrixDiagV3", "BatchMatrixDiag"}) {
    r->Register<MatrixDiagOp>(op, {TypeConstraint("T", PodTypes())});
  }
  for (const char* op : {"MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3",
                         "BatchMatrixSetDiag"}) {
    r->Register<MatrixSetDiagOp>(op, {TypeConstraint("T", PodTypes())});
  }
  r->Register<DiagOp<false>>("Diag", {TypeConstraint("T", DiagTypes())});
  r->Register<DiagOp<true>>("DiagPart", {TypeConstraint("T", DiagTypes())});
}

}  // namespace dfg
