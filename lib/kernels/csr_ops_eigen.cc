// The CSR kernels TensorFlow computes with Eigen's sparse module, computed
// with the same Eigen code (Debian's libeigen3-dev) so that the results are
// TensorFlow's bit for bit: SparseMatrixSparseMatMul (Eigen's conservative
// sparse product: sorted columns, numeric zeros kept),
// SparseMatrixOrderingAMD (Eigen's AMDOrdering of the pattern of the
// lower triangle mirrored) and SparseMatrixSparseCholesky (SimplicialLLT of
// the matrix permuted by the given ordering).
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <algorithm>

#include "lib/kernels/csr_ops.h"

namespace dfg {
namespace {

// Matrix b of m as a [rows, cols] Eigen map (row-major: CSR as it is;
// column-major: CSR read as the CSC of the transpose).
template <typename T, int Order>
Eigen::Map<const Eigen::SparseMatrix<T, Order, int>> MapBatch(
    const CsrMatrix& m, int64_t b, const T* values) {
  const int64_t base = m.batch_ptr[b];
  return Eigen::Map<const Eigen::SparseMatrix<T, Order, int>>(
      m.rows(), m.cols(), m.batch_ptr[b + 1] - base, m.RowPtr(b),
      m.col_ind.data() + base, values + base);
}

// The matrices `parts` (compressed, rows + 1 outer pointers each) as one
// batched CSR matrix of shape `shape`.
template <typename T, int Order>
std::shared_ptr<CsrMatrix> Assemble(
    const std::vector<Eigen::SparseMatrix<T, Order, int>>& parts,
    std::vector<int64_t> shape) {
  auto out = std::make_shared<CsrMatrix>();
  out->dtype = DataTypeToEnum<T>::value;
  out->shape = std::move(shape);
  const int64_t rows = out->rows();
  out->batch_ptr.assign(parts.size() + 1, 0);
  for (size_t b = 0; b < parts.size(); ++b) {
    out->batch_ptr[b + 1] =
        out->batch_ptr[b] + static_cast<int32_t>(parts[b].nonZeros());
  }
  const int64_t total = out->batch_ptr.back();
  out->row_ptr.resize(parts.size() * (rows + 1));
  out->col_ind.resize(total);
  out->values = Tensor(out->dtype, TensorShape({total}));
  T* v = out->values.flat<T>().data();
  for (size_t b = 0; b < parts.size(); ++b) {
    const auto& p = parts[b];
    std::copy(p.outerIndexPtr(), p.outerIndexPtr() + rows + 1,
              out->row_ptr.begin() + b * (rows + 1));
    std::copy(p.innerIndexPtr(), p.innerIndexPtr() + p.nonZeros(),
              out->col_ind.begin() + out->batch_ptr[b]);
    std::copy(p.valuePtr(), p.valuePtr() + p.nonZeros(), v + out->batch_ptr[b]);
  }
  return out;
}

Status CheckSquare(const CsrMatrix& m) {
  if (m.rows() != m.cols()) {
    return InvalidArgument("sparse matrix must be square; got: {} != {}",
                           m.rows(), m.cols());
  }
  return Status::Ok();
}

class CsrSparseMatMulOp : public OpKernel {
 public:
  explicit CsrSparseMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("type", &type_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &ta_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &tb_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint_a", &aa_));
    DFG_OP_REQUIRES(ctx, !(aa_ && ta_),
                    InvalidArgument("Only one of adjoint_a and transpose_a "
                                    "may be true."));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint_b", &ab_));
    DFG_OP_REQUIRES(ctx, !(ab_ && tb_),
                    InvalidArgument("Only one of adjoint_b and transpose_b "
                                    "may be true."));
  }

  void Compute(OpKernelContext* ctx) override {
    const CsrMatrix *a = nullptr, *b = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetCsrInput(ctx, 0, type_, &a));
    DFG_OP_REQUIRES_OK(ctx, GetCsrInput(ctx, 1, type_, &b));
    for (auto [m, name] : {std::pair{a, "a"}, {b, "b"}}) {
      DFG_OP_REQUIRES(ctx, m->dtype == type_,
                      InvalidArgument("dtype of {} is not equal to 'type': "
                                      "{} vs. {}",
                                      name, DataTypeString(m->dtype),
                                      DataTypeString(type_)));
    }
    DFG_OP_REQUIRES(ctx, a->batch() == b->batch(),
                    InvalidArgument("Batch sizes of A and B do not agree.  "
                                    "Batch sizes are: {} vs. {}",
                                    a->batch(), b->batch()));
    std::vector<int64_t> as = a->shape, bs = b->shape;
    const size_t r = as.size() - 2;
    if (ta_ || aa_) std::swap(as[r], as[r + 1]);
    if (tb_ || ab_) std::swap(bs[r], bs[r + 1]);
    DFG_OP_REQUIRES(
        ctx, as[r + 1] == bs[r],
        InvalidArgument(
            "Inner product dimensions of A and B do not agree.  "
            "Shapes are: {} vs. {}",
            TensorShape(std::span<const int64_t>(as)).DebugString(),
            TensorShape(std::span<const int64_t>(bs)).DebugString()));
    std::vector<int64_t> shape = as;
    shape[r + 1] = bs[r + 1];
    Dispatch(CsrTypes(), type_, [&](auto zero) {
      using T = decltype(zero);
      using Sparse = Eigen::SparseMatrix<T, Eigen::RowMajor, int>;
      std::vector<Sparse> parts(a->batch());
      for (int64_t i = 0; i < a->batch(); ++i) {
        parts[i] = Operand<T>(*a, i, ta_, aa_) * Operand<T>(*b, i, tb_, ab_);
      }
      SetCsrOutput(ctx, 0, Assemble(parts, shape));
    });
  }

 private:
  // op(matrix i of m), evaluated row-major as TensorFlow's Eigen::Ref does.
  template <typename T>
  static Eigen::SparseMatrix<T, Eigen::RowMajor, int> Operand(
      const CsrMatrix& m, int64_t i, bool transpose, bool adjoint) {
    auto map = MapBatch<T, Eigen::RowMajor>(m, i, m.values.flat<T>().data());
    if (transpose) return map.transpose();
    if (adjoint) return map.adjoint();
    return map;
  }
  DataType type_ = tensorflow::DT_INVALID;
  bool ta_ = false, tb_ = false, aa_ = false, ab_ = false;
};

class CsrOrderingAmdOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const CsrMatrix* m = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetCsrInput(ctx, 0, tensorflow::DT_INVALID, &m));
    DFG_OP_REQUIRES_OK(ctx, CheckSquare(*m));
    const int64_t n = m->rows();
    std::vector<int64_t> dims = {n};
    if (m->shape.size() == 3) dims.insert(dims.begin(), m->batch());
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape(std::span<const int64_t>(dims)), &out));
    for (int64_t b = 0; b < m->batch(); ++b) {
      // Only the pattern matters: the column indices serve as values.
      auto map = MapBatch<int, Eigen::RowMajor>(*m, b, m->col_ind.data());
      Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> perm;
      Eigen::AMDOrdering<int> amd;
      amd(map.template selfadjointView<Eigen::Lower>(), perm);
      std::copy(perm.indices().data(), perm.indices().data() + n,
                out->flat<int32_t>().data() + b * n);
    }
  }
};

class CsrSparseCholeskyOp : public OpKernel {
 public:
  explicit CsrSparseCholeskyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("type", &type_));
  }

  void Compute(OpKernelContext* ctx) override {
    const CsrMatrix* m = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetCsrInput(ctx, 0, type_, &m));
    DFG_OP_REQUIRES_OK(ctx, Validate(*m, ctx->input(1)));
    Dispatch(CsrTypes(), type_, [&](auto zero) {
      using T = decltype(zero);
      using Sparse = Eigen::SparseMatrix<T, Eigen::ColMajor, int>;
      const int64_t n = m->rows();
      const int32_t* perm_data = ctx->input(1).flat<int32_t>().data();
      std::vector<Sparse> parts(m->batch());
      for (int64_t b = 0; b < m->batch(); ++b) {
        // A CSR matrix read as CSC is its transpose: the upper triangle
        // here is the lower triangle of the input.
        auto map =
            MapBatch<T, Eigen::ColMajor>(*m, b, m->values.flat<T>().data());
        Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> perm(n);
        std::copy(perm_data + b * n, perm_data + (b + 1) * n,
                  perm.indices().data());
        Sparse permuted;
        permuted.template selfadjointView<Eigen::Upper>() =
            map.template selfadjointView<Eigen::Upper>().twistedBy(
                perm.inverse());
        Eigen::SimplicialLLT<Sparse, Eigen::Upper, Eigen::NaturalOrdering<int>>
            solver;
        solver.compute(permuted);
        if (solver.info() != Eigen::Success) {
          ctx->SetStatus(InvalidArgument(
              "Sparse Cholesky factorization failed for batch index {}. The "
              "input might not be valid.",
              b));
          return;
        }
        parts[b] = solver.matrixU();
        parts[b].makeCompressed();
      }
      SetCsrOutput(ctx, 0, Assemble(parts, m->shape));
    });
  }

 private:
  Status Validate(const CsrMatrix& m, const Tensor& perm) const {
    if (m.dtype != type_) {
      return InvalidArgument(
          "Asked for a CSRSparseMatrix of type {} but saw dtype: {}",
          DataTypeString(type_), DataTypeString(m.dtype));
    }
    DFG_RETURN_IF_ERROR(CheckSquare(m));
    const int rank = static_cast<int>(m.shape.size());
    if (perm.dims() + 1 != rank) {
      return InvalidArgument(
          "sparse matrix must have the same rank as permutation; got: {} != "
          "{} + 1.",
          rank, perm.dims());
    }
    if (perm.dim_size(rank - 2) != m.rows()) {
      return InvalidArgument(
          "permutation must have the same number of elements in each batch "
          "as the number of rows in sparse matrix; got: {} != {}",
          perm.dim_size(rank - 2), m.rows());
    }
    if (m.batch() > 1 && perm.dim_size(0) != m.batch()) {
      return InvalidArgument(
          "permutation must have the same batch size as sparse matrix; got: "
          "{} != {}",
          perm.dim_size(0), m.batch());
    }
    return Status::Ok();
  }
  DataType type_ = tensorflow::DT_INVALID;
};

}  // namespace

void RegisterCsrEigenKernels(KernelRegistry* r) {
  r->Register<CsrSparseMatMulOp>("SparseMatrixSparseMatMul",
                                 {TypeConstraint("type", CsrTypes())});
  r->Register<CsrOrderingAmdOp>("SparseMatrixOrderingAMD");
  r->Register<CsrSparseCholeskyOp>("SparseMatrixSparseCholesky",
                                   {TypeConstraint("type", CsrTypes())});
}

}  // namespace dfg
