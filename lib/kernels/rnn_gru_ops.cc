// GRUBlockCell and GRUBlockCellGrad (float only, as TensorFlow registers
// them), after TensorFlow's core/kernels/rnn/gru_ops.cc:
//   r, u = sigmoid([x, h_prev] . w_ru + b_ru)
//   c    = tanh([x, r * h_prev] . w_c + b_c)
//   h    = u * (h_prev - c) + c
#include <fmt/format.h>

#include "lib/kernels/rnn_ops.h"

namespace dfg::rnn {
namespace {

struct GruDims {
  int64_t batch = 0, input = 0, cell = 0;
};

Status CheckMatrix(const Tensor& t, std::string_view name, int64_t rows,
                   int64_t cols, std::string_view dim_name = "dims") {
  if (t.dims() != 2) {
    return InvalidArgument("Rank of {} must be 2, got {}", name, t.dims());
  }
  DFG_RETURN_IF_ERROR(
      CheckSize(t.dim_size(0), rows,
                fmt::format("{}.{}(0) != batch_size", name, dim_name)));
  return CheckSize(t.dim_size(1), cols,
                   fmt::format("{}.{}(1) != cell_size", name, dim_name));
}

// The checks both GRU kernels make on x, h_prev, w_ru, w_c, b_ru, b_c.
Status ValidateGru(OpKernelContext* ctx, GruDims* d) {
  const Tensor &x = ctx->input(0), &h = ctx->input(1), &w_ru = ctx->input(2),
               &w_c = ctx->input(3), &b_ru = ctx->input(4),
               &b_c = ctx->input(5);
  if (x.dims() != 2) {
    return InvalidArgument("Rank of x must be 2, got {}", x.dims());
  }
  d->batch = x.dim_size(0);
  d->input = x.dim_size(1);
  if (h.dims() != 2) {
    return InvalidArgument("Rank of h_prev must be 2, got {}", h.dims());
  }
  DFG_RETURN_IF_ERROR(
      CheckSize(h.dim_size(0), d->batch, "h_prev.dims(0) != batch_size"));
  d->cell = h.dim_size(1);
  const int64_t xh = d->input + d->cell;
  if (w_ru.dims() != 2) {
    return InvalidArgument("Rank of w_ru_ must be 2, got {}", w_ru.dims());
  }
  DFG_RETURN_IF_ERROR(CheckSize(w_ru.dim_size(0), xh,
                                "w_ru.dim_size(0) != input_size + cell_size"));
  DFG_RETURN_IF_ERROR(CheckSize(w_ru.dim_size(1), d->cell * 2,
                                "w_ru.dim_size(1) != cell_size * 2"));
  if (w_c.dims() != 2) {
    return InvalidArgument("Rank of w_c must be 2, got {}", w_c.dims());
  }
  DFG_RETURN_IF_ERROR(CheckSize(w_c.dim_size(0), xh,
                                "w_c.dim_size(0) != input_size + cell_size"));
  DFG_RETURN_IF_ERROR(
      CheckSize(w_c.dim_size(1), d->cell, "w_c.dim_size(1) != cell_size"));
  if (b_ru.dims() != 1) {
    return InvalidArgument("Rank of b_ru must be 1, got {}", b_ru.dims());
  }
  DFG_RETURN_IF_ERROR(CheckSize(b_ru.dim_size(0), d->cell * 2,
                                "b_ru.dim_size(0) != cell_size * 2"));
  if (b_c.dims() != 1) {
    return InvalidArgument("Rank of b_c must be 1, got {}", b_c.dims());
  }
  return CheckSize(b_c.dim_size(0), d->cell, "b_c.dim_size(0) != cell_size");
}

// [a, b] row by row: a [rows, na], b [rows, nb].
std::vector<float> ConcatColumns(const float* a, int64_t na, const float* b,
                                 int64_t nb, int64_t rows) {
  std::vector<float> out(rows * (na + nb));
  for (int64_t r = 0; r < rows; ++r) {
    std::copy_n(a + r * na, na, out.data() + r * (na + nb));
    std::copy_n(b + r * nb, nb, out.data() + r * (na + nb) + na);
  }
  return out;
}

void Emit(OpKernelContext* ctx, int index, int64_t rows, int64_t cols,
          const std::vector<float>& v) {
  Tensor* t = nullptr;
  DFG_OP_REQUIRES_OK(
      ctx, ctx->allocate_output(index, TensorShape({rows, cols}), &t));
  StoreFloats(v.data(), rows * cols, t);
}

class GRUBlockCellOp : public OpKernel {
 public:
  explicit GRUBlockCellOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    GruDims d;
    DFG_OP_REQUIRES_OK(ctx, ValidateGru(ctx, &d));
    const int64_t n = d.batch * d.cell, xhn = d.input + d.cell;
    const std::vector<float> x = Floats(ctx->input(0)),
                             h = Floats(ctx->input(1)),
                             w_ru = Floats(ctx->input(2)),
                             w_c = Floats(ctx->input(3)),
                             b_ru = Floats(ctx->input(4)),
                             b_c = Floats(ctx->input(5));
    std::vector<float> xh =
        ConcatColumns(x.data(), d.input, h.data(), d.cell, d.batch);
    std::vector<float> ru(2 * n), r(n), u(n), c(n), hr(n), out(n);
    Gemm(ctx->intra_op_pool(), false, false, d.batch, 2 * d.cell, xhn,
         xh.data(), xhn, w_ru.data(), 2 * d.cell, ru.data(), 2 * d.cell);
    for (int64_t b = 0; b < d.batch; ++b) {
      for (int64_t j = 0; j < d.cell; ++j) {
        const float* g = ru.data() + b * 2 * d.cell;
        const int64_t e = b * d.cell + j;
        r[e] = Sigmoid(g[j] + b_ru[j]);
        u[e] = Sigmoid(g[d.cell + j] + b_ru[d.cell + j]);
        hr[e] = h[e] * r[e];
      }
    }
    xh = ConcatColumns(x.data(), d.input, hr.data(), d.cell, d.batch);
    Gemm(ctx->intra_op_pool(), false, false, d.batch, d.cell, xhn, xh.data(),
         xhn, w_c.data(), d.cell, c.data(), d.cell);
    for (int64_t e = 0; e < n; ++e) {
      c[e] = std::tanh(c[e] + b_c[e % d.cell]);
      out[e] = u[e] * (h[e] - c[e]) + c[e];
    }
    Emit(ctx, 0, d.batch, d.cell, r);
    Emit(ctx, 1, d.batch, d.cell, u);
    Emit(ctx, 2, d.batch, d.cell, c);
    Emit(ctx, 3, d.batch, d.cell, out);
  }
};

class GRUBlockCellGradOp : public OpKernel {
 public:
  explicit GRUBlockCellGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    GruDims d;
    DFG_OP_REQUIRES_OK(ctx, ValidateGru(ctx, &d));
    const char* names[] = {"r", "u", "w_c", "d_h"};  // TF's text for c: w_c
    const char* dims_names[] = {"r", "u", "c", "d_h"};
    for (int k = 0; k < 4; ++k) {
      const Tensor& t = ctx->input(6 + k);
      if (t.dims() != 2) {
        DFG_OP_REQUIRES(ctx, false,
                        InvalidArgument("Rank of {} must be 2, got {}",
                                        names[k], t.dims()));
      }
      DFG_OP_REQUIRES_OK(ctx, CheckMatrix(t, dims_names[k], d.batch, d.cell));
    }
    const int64_t n = d.batch * d.cell, xhn = d.input + d.cell;
    const std::vector<float> h = Floats(ctx->input(1)),
                             w_ru = Floats(ctx->input(2)),
                             w_c = Floats(ctx->input(3)),
                             r = Floats(ctx->input(6)),
                             u = Floats(ctx->input(7)),
                             c = Floats(ctx->input(8)),
                             dh = Floats(ctx->input(9));
    std::vector<float> dc(n), dru(2 * n), d_xhr(d.batch * xhn),
        d_xh(d.batch * xhn), dx(d.batch * d.input), dhp(n);
    for (int64_t e = 0; e < n; ++e) {
      dc[e] = dh[e] * (1 - u[e]) * (1 - c[e] * c[e]);
      const int64_t row = e / d.cell, j = e % d.cell;
      dru[row * 2 * d.cell + d.cell + j] =
          dh[e] * (h[e] - c[e]) * u[e] * (1 - u[e]);
    }
    Gemm(ctx->intra_op_pool(), false, true, d.batch, xhn, d.cell, dc.data(),
         d.cell, w_c.data(), d.cell, d_xhr.data(), xhn);
    for (int64_t e = 0; e < n; ++e) {
      const int64_t row = e / d.cell, j = e % d.cell;
      const float d_hr = d_xhr[row * xhn + d.input + j];
      dru[row * 2 * d.cell + j] = d_hr * h[e] * r[e] * (1 - r[e]);
    }
    Gemm(ctx->intra_op_pool(), false, true, d.batch, xhn, 2 * d.cell,
         dru.data(), 2 * d.cell, w_ru.data(), 2 * d.cell, d_xh.data(), xhn);
    for (int64_t row = 0; row < d.batch; ++row) {
      for (int64_t j = 0; j < d.input; ++j) {
        dx[row * d.input + j] = d_xh[row * xhn + j] + d_xhr[row * xhn + j];
      }
      for (int64_t j = 0; j < d.cell; ++j) {
        const int64_t e = row * d.cell + j, col = row * xhn + d.input + j;
        dhp[e] = d_xh[col] + d_xhr[col] * r[e] + dh[e] * u[e];
      }
    }
    Emit(ctx, 0, d.batch, d.input, dx);
    Emit(ctx, 1, d.batch, d.cell, dhp);
    Emit(ctx, 2, d.batch, d.cell, dc);
    Emit(ctx, 3, d.batch, 2 * d.cell, dru);
  }
};

}  // namespace

void RegisterGruKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("T", TypeList<float>());
  r->Register<GRUBlockCellOp>("GRUBlockCell", {types});
  r->Register<GRUBlockCellGradOp>("GRUBlockCellGrad", {types});
}

}  // namespace dfg::rnn
