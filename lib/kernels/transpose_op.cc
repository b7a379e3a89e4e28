// Transpose (and ConjugateTranspose for real types) by a permutation input.
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& perm_t = ctx->input(1);
    DFG_OP_REQUIRES(ctx, perm_t.dims() == 1,
                    InvalidArgument("perm must be a vector, not {}",
                                    perm_t.shape().DebugString()));
    const std::vector<int64_t> p = IntValues(perm_t);
    const int rank = in.dims();
    DFG_OP_REQUIRES(ctx, static_cast<int64_t>(p.size()) == rank,
                    InvalidArgument("transpose expects a vector of size {}. "
                                    "But input(1) is a vector of size {}",
                                    rank, p.size()));
    std::vector<int> perm(rank);
    std::vector<bool> seen(rank, false);
    std::vector<int64_t> dims(rank);
    bool identity = true;
    for (int i = 0; i < rank; ++i) {
      const int64_t d = p[i];
      DFG_OP_REQUIRES(ctx, d >= 0 && d < rank,
                      InvalidArgument("{} is out of range [0 .. {})", d, rank));
      perm[i] = static_cast<int>(d);
      seen[d] = true;
      dims[i] = in.dim_size(perm[i]);
      identity &= perm[i] == i;
    }
    for (int i = 0; i < rank; ++i) {
      DFG_OP_REQUIRES(
          ctx, seen[i],
          InvalidArgument("{} is missing from {{{}}}.", i, fmt::join(p, ",")));
    }
    const TensorShape shape{std::span<const int64_t>(dims)};
    if (identity) {
      Tensor t;
      t.CopyFrom(in, shape);
      if (type_string() == "ConjugateTranspose") {
        t = t.DeepCopy();
        Conjugate(&t);
      }
      ctx->set_output(0, std::move(t));
      return;
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    TransposeInto(ctx->intra_op_pool(), in, perm, out);
    if (type_string() == "ConjugateTranspose") Conjugate(out);
  }

 private:
  static void Conjugate(Tensor* t) {
    Dispatch(ComplexTypes(), t->dtype(), [&](auto v) {
      for (auto& e : t->flat<decltype(v)>()) e = std::conj(e);
    });
  }
};

}  // namespace

void RegisterTransposeKernels(KernelRegistry* r) {
  r->Register<TransposeOp>("Transpose");
  r->Register<TransposeOp>("ConjugateTranspose");
}

}  // namespace dfg
