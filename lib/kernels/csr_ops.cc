// CSR sparse matrices (tf.raw_ops / tf.linalg.experimental.sparse): a
// scalar DT_VARIANT holding TensorFlow's CSRSparseMatrix — a dense shape of
// rank 2 or 3 (a batch of matrices), batch_pointers [batch + 1] (where each
// matrix's entries start), row_pointers [batch * (rows + 1)], column
// indices [nnz] (int32) and values [nnz]. Kernels: conversions to and from
// dense and SparseTensor form, its components, nnz, transpose and the
// product with a dense matrix. Entries keep the order they were given in
// (TensorFlow assumes row-major input and does not sort).
#include "lib/kernels/csr_ops.h"

#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace dfg {
namespace {

// A CSR matrix from COO entries (row-major order assumed): TensorFlow's
// SparseTensorToCSRSparseMatrixCPUFunctor.
std::shared_ptr<CsrMatrix> FromCoo(const std::vector<int64_t>& idx,
                                   const std::vector<int64_t>& shape,
                                   Tensor values) {
  auto m = std::make_shared<CsrMatrix>();
  m->dtype = values.dtype();
  m->shape = shape;
  m->values = std::move(values);
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t nnz = m->values.NumElements();
  const int64_t batch = m->batch(), rows = m->rows();
  m->batch_ptr.assign(batch + 1, 0);
  m->row_ptr.assign(batch * (rows + 1), 0);
  m->col_ind.resize(nnz);
  for (int64_t i = 0; i < nnz; ++i) {
    const int64_t b = rank == 3 ? idx[i * rank] : 0;
    const int64_t r = idx[i * rank + rank - 2];
    m->row_ptr[b * (rows + 1) + r + 1] += 1;
    m->col_ind[i] = static_cast<int32_t>(idx[i * rank + rank - 1]);
    m->batch_ptr[b + 1] += 1;
  }
  for (int64_t b = 0; b < batch; ++b) {
    m->batch_ptr[b + 1] += m->batch_ptr[b];
    int32_t* rp = m->row_ptr.data() + b * (rows + 1);
    for (int64_t r = 0; r < rows; ++r) rp[r + 1] += rp[r];
  }
  return m;
}

class SparseTensorToCsrOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const std::vector<int64_t> shape = IntValues(ctx->input(2));
    const int64_t rank = static_cast<int64_t>(shape.size());
    DFG_OP_REQUIRES(ctx, indices.dims() == 2 && values.dims() == 1,
                    InvalidArgument("Sparse indices must be rank 2 and "
                                    "values rank 1"));
    DFG_OP_REQUIRES(ctx, rank == 2 || rank == 3,
                    InvalidArgument("SparseTensor must have rank 2 or 3; but "
                                    "indices has rank: {}",
                                    rank));
    const std::vector<int64_t> idx = IntValues(indices);
    for (int64_t i = 0; i < indices.dim_size(0); ++i) {
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t x = idx[i * rank + d];
        if (x >= 0 && x < shape[d]) continue;
        std::string row;
        for (int64_t e = 0; e < rank; ++e) {
          row += (e ? ", " : "") + std::to_string(idx[i * rank + e]);
        }
        ctx->SetStatus(InvalidArgument(
            "Sparse index tuple indices[{}, :] = [{}] is out of bounds", i,
            row));
        return;
      }
    }
    SetCsrOutput(ctx, 0, FromCoo(idx, shape, values));
  }
};

class DenseToCsrOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& dense = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const int64_t rank = dense.dims();
    DFG_OP_REQUIRES(ctx, rank == 2 || rank == 3,
                    InvalidArgument("params must be a matrix or batch of "
                                    "matrices; saw shape: {}",
                                    dense.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, indices.dims() == 2 && indices.dim_size(1) == rank,
        InvalidArgument("indices.shape[-1] must match rank of dense; saw: {} "
                        "vs. {}",
                        indices.dims() == 2 ? indices.dim_size(1) : -1, rank));
    const std::vector<int64_t> idx = IntValues(indices);
    const int64_t nnz = indices.dim_size(0);
    std::vector<int64_t> shape(rank);
    for (int64_t d = 0; d < rank; ++d) shape[d] = dense.dim_size(d);
    Tensor values(dense.dtype(), TensorShape({nnz}));
    for (int64_t i = 0; i < nnz; ++i) {
      int64_t offset = 0;
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t x = idx[i * rank + d];
        if (x < 0 || x >= shape[d]) {
          std::string row;
          for (int64_t e = 0; e < rank; ++e) {
            row += (e ? ", " : "") + std::to_string(idx[i * rank + e]);
          }
          ctx->SetStatus(InvalidArgument(
              "indices[{}] = [{}] does not index into param shape {}", i, row,
              dense.shape().DebugString()));
          return;
        }
        offset = offset * shape[d] + x;
      }
      CopyElements(dense, offset, &values, i, 1);
    }
    SetCsrOutput(ctx, 0, FromCoo(idx, shape, std::move(values)));
  }
};

class CsrKernel : public OpKernel {
 public:
  explicit CsrKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->HasAttr("type")) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("type", &type_));
    }
  }

 protected:
  DataType type_ = tensorflow::DT_INVALID;
};

class CsrToDenseOp : public CsrKernel {
 public:
  using CsrKernel::CsrKernel;
  void Compute(OpKernelContext* ctx) override {
    const CsrMatrix* m = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetCsrInput(ctx, 0, type_, &m));
    DFG_OP_REQUIRES(
        ctx, m->dtype == type_,
        InvalidArgument("Asked for a CSRSparseMatrix of type {} "
                        "but saw dtype: {}",
                        DataTypeString(type_), DataTypeString(m->dtype)));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape(std::span<const int64_t>(m->shape)), &out));
    if (out->TotalBytes() > 0) std::memset(out->data(), 0, out->TotalBytes());
    const int64_t rows = m->rows(), cols = m->cols();
    for (int64_t b = 0; b < m->batch(); ++b) {
      const int32_t* rp = m->RowPtr(b);
      const int64_t base = m->batch_ptr[b];
      for (int64_t r = 0; r < rows; ++r) {
        for (int32_t k = rp[r]; k < rp[r + 1]; ++k) {
          CopyElements(m->values, base + k, out,
                       (b * rows + r) * cols + m->col_ind[base + k], 1);
        }
      }
    }
  }
};

class CsrToSparseTensorOp : public CsrKernel {
 public:
  using CsrKernel::CsrKernel;
  void Compute(OpKernelContext* ctx) override {
    const CsrMatrix* m = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetCsrInput(ctx, 0, type_, &m));
    DFG_OP_REQUIRES(
        ctx, m->dtype == type_,
        InvalidArgument("Asked for a CSRSparseMatrix of type {} "
                        "but saw dtype: {}",
                        DataTypeString(type_), DataTypeString(m->dtype)));
    const int64_t rank = static_cast<int64_t>(m->shape.size());
    const int64_t nnz = m->values.NumElements();
    Tensor* ind = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({nnz, rank}), &ind));
    int64_t* o = ind->flat<int64_t>().data();
    for (int64_t b = 0; b < m->batch(); ++b) {
      const int32_t* rp = m->RowPtr(b);
      const int64_t base = m->batch_ptr[b];
      for (int64_t r = 0; r < m->rows(); ++r) {
        for (int32_t k = rp[r]; k < rp[r + 1]; ++k) {
          if (rank == 3) *o++ = b;
          *o++ = r;
          *o++ = m->col_ind[base + k];
        }
      }
    }
    ctx->set_output(1, m->values);
    ctx->set_output(2, Tensor::Vector<int64_t>(m->shape));
  }
};

class CsrComponentsOp : public CsrKernel {
 public:
  using CsrKernel::CsrKernel;
  void Compute(OpKernelContext* ctx) override {
    const CsrMatrix* m = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetCsrInput(ctx, 0, type_, &m));
    DFG_OP_REQUIRES(
        ctx, m->dtype == type_,
        InvalidArgument("dtype of input is not equal to 'type': "
                        "{} vs. {}",
                        DataTypeString(m->dtype), DataTypeString(type_)));
    const Tensor& index_t = ctx->input(1);
    DFG_OP_REQUIRES(ctx, index_t.dims() == 0,
                    InvalidArgument("index should be a scalar, but saw: {}",
                                    index_t.DebugString()));
    const int64_t index = index_t.flat<int32_t>()[0];
    DFG_OP_REQUIRES(
        ctx, index >= 0 && index < m->batch(),
        InvalidArgument("index ({}) not in [0, {})", index, m->batch()));
    const int32_t* rp = m->RowPtr(index);
    ctx->set_output(0, Tensor::Vector<int32_t>(
                           std::vector<int32_t>(rp, rp + m->rows() + 1)));
    const int64_t begin = m->batch_ptr[index], end = m->batch_ptr[index + 1];
    ctx->set_output(1,
                    Tensor::Vector<int32_t>(std::vector<int32_t>(
                        m->col_ind.begin() + begin, m->col_ind.begin() + end)));
    Tensor vals(m->dtype, TensorShape({end - begin}));
    CopyElements(m->values, begin, &vals, 0, end - begin);
    ctx->set_output(2, std::move(vals));
  }
};

class CsrNnzOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const CsrMatrix* m = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetCsrInput(ctx, 0, tensorflow::DT_INVALID, &m));
    std::vector<int32_t> nnz(m->batch());
    for (int64_t b = 0; b < m->batch(); ++b) {
      nnz[b] = m->batch_ptr[b + 1] - m->batch_ptr[b];
    }
    // A rank-2 matrix has a scalar count.
    ctx->set_output(0, m->shape.size() == 2 ? Tensor::Scalar<int32_t>(nnz[0])
                                            : Tensor::Vector<int32_t>(nnz));
  }
};

class CsrTransposeOp : public CsrKernel {
 public:
  explicit CsrTransposeOp(OpKernelConstruction* ctx) : CsrKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("conjugate", &conjugate_));
  }
  void Compute(OpKernelContext* ctx) override {
    const CsrMatrix* m = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetCsrInput(ctx, 0, type_, &m));
    DFG_OP_REQUIRES(
        ctx, m->dtype == type_,
        InvalidArgument("Asked for a CSRSparseMatrix of type {} "
                        "but saw dtype: {}",
                        DataTypeString(type_), DataTypeString(m->dtype)));
    auto t = std::make_shared<CsrMatrix>();
    t->dtype = m->dtype;
    t->shape = m->shape;
    std::swap(t->shape[t->shape.size() - 1], t->shape[t->shape.size() - 2]);
    t->batch_ptr = m->batch_ptr;
    const int64_t rows = m->rows(), cols = m->cols();
    t->row_ptr.assign(m->batch() * (cols + 1), 0);
    t->col_ind.resize(m->col_ind.size());
    t->values = Tensor(m->dtype, m->values.shape());
    for (int64_t b = 0; b < m->batch(); ++b) {
      const int32_t* rp = m->RowPtr(b);
      const int64_t base = m->batch_ptr[b];
      int32_t* tp = t->row_ptr.data() + b * (cols + 1);
      for (int32_t k = 0; k < rp[rows]; ++k) ++tp[m->col_ind[base + k] + 1];
      for (int64_t c = 0; c < cols; ++c) tp[c + 1] += tp[c];
      std::vector<int32_t> next(tp, tp + cols);
      for (int64_t r = 0; r < rows; ++r) {
        for (int32_t k = rp[r]; k < rp[r + 1]; ++k) {
          const int64_t dst = base + next[m->col_ind[base + k]]++;
          t->col_ind[dst] = static_cast<int32_t>(r);
          CopyElements(m->values, base + k, &t->values, dst, 1);
        }
      }
    }
    if (conjugate_) {
      Dispatch(CsrTypes(), t->dtype, [&](auto zero) {
        using T = decltype(zero);
        for (T& v : t->values.flat<T>()) v = Conj(v);
      });
    }
    SetCsrOutput(ctx, 0, std::move(t));
  }

 private:
  bool conjugate_ = false;
};

// SparseMatrixMatMul: op(A) * op(B) for a CSR A and a dense B, per batch;
// op = transpose or adjoint; the output optionally transposed/conjugated.
class CsrMatMulOp : public OpKernel {
 public:
  explicit CsrMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    for (auto [name, flag] : {std::pair{"transpose_a", &ta_},
                              {"transpose_b", &tb_},
                              {"adjoint_a", &aa_},
                              {"adjoint_b", &ab_},
                              {"transpose_output", &to_},
                              {"conjugate_output", &co_}}) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr(name, flag));
    }
    DFG_OP_REQUIRES(ctx, !(aa_ && ta_),
                    InvalidArgument("Only one of adjoint_a and transpose_a "
                                    "may be true."));
    DFG_OP_REQUIRES(ctx, !(ab_ && tb_),
                    InvalidArgument("Only one of adjoint_b and transpose_b "
                                    "may be true."));
  }

  void Compute(OpKernelContext* ctx) override {
    const CsrMatrix* a = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetCsrInput(ctx, 0, tensorflow::DT_INVALID, &a));
    const Tensor& b = ctx->input(1);
    const int64_t rank = static_cast<int64_t>(a->shape.size());
    DFG_OP_REQUIRES(ctx, b.dims() == rank,
                    InvalidArgument("Ranks of a and b must match, saw: {} vs. "
                                    "{}.",
                                    rank, b.dims()));
    const int64_t batch = a->batch();
    DFG_OP_REQUIRES(ctx, rank == 2 || b.dim_size(0) == batch,
                    InvalidArgument("Batch sizes of a and b must match, saw: "
                                    "{} vs. {}.",
                                    batch, b.dim_size(0)));
    const int64_t br = b.dim_size(rank - 2), bc = b.dim_size(rank - 1);
    const int64_t m = (ta_ || aa_) ? a->cols() : a->rows();
    const int64_t k = (ta_ || aa_) ? a->rows() : a->cols();
    const int64_t k2 = (tb_ || ab_) ? bc : br;
    const int64_t n = (tb_ || ab_) ? br : bc;
    DFG_OP_REQUIRES(
        ctx, k == k2,
        InvalidArgument(
            "Inner product dimensions of A and B do not agree. "
            "Shapes are: {} vs. {}",
            TensorShape(std::span<const int64_t>(a->shape)).DebugString(),
            b.shape().DebugString()));
    std::vector<int64_t> out_dims;
    if (rank == 3) out_dims.push_back(batch);
    out_dims.push_back(to_ ? n : m);
    out_dims.push_back(to_ ? m : n);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape(std::span<const int64_t>(out_dims)), &out));
    Dispatch(CsrTypes(), b.dtype(), [&](auto zero) {
      using T = decltype(zero);
      Multiply<T>(*a, b.flat<T>().data(), br, bc, m, n, out->flat<T>().data());
    });
  }

 private:
  template <typename T>
  void Multiply(const CsrMatrix& a, const T* b, int64_t br, int64_t bc,
                int64_t m, int64_t n, T* out) const {
    const T* av = a.values.flat<T>().data();
    std::vector<T> acc(m * n);
    for (int64_t bi = 0; bi < a.batch(); ++bi) {
      std::fill(acc.begin(), acc.end(), T(0));
      const int32_t* rp = a.RowPtr(bi);
      const int64_t base = a.batch_ptr[bi];
      const T* bm = b + bi * br * bc;
      for (int64_t r = 0; r < a.rows(); ++r) {
        for (int32_t e = rp[r]; e < rp[r + 1]; ++e) {
          const int64_t c = a.col_ind[base + e];
          const T v = aa_ ? Conj(av[base + e]) : av[base + e];
          const int64_t i = (ta_ || aa_) ? c : r, kk = (ta_ || aa_) ? r : c;
          for (int64_t j = 0; j < n; ++j) {
            const T bv = (tb_ || ab_) ? bm[j * bc + kk] : bm[kk * bc + j];
            acc[i * n + j] += v * (ab_ ? Conj(bv) : bv);
          }
        }
      }
      T* o = out + bi * m * n;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          const T x = co_ ? Conj(acc[i * n + j]) : acc[i * n + j];
          o[to_ ? j * m + i : i * n + j] = x;
        }
      }
    }
  }
  bool ta_ = false, tb_ = false, aa_ = false, ab_ = false, to_ = false,
       co_ = false;
};

}  // namespace

// csr_ops_eigen.cc.
void RegisterCsrEigenKernels(KernelRegistry* r);

void RegisterCsrKernels(KernelRegistry* r) {
  r->Register<SparseTensorToCsrOp>("SparseTensorToCSRSparseMatrix",
                                   {TypeConstraint("T", CsrTypes())});
  r->Register<DenseToCsrOp>("DenseToCSRSparseMatrix",
                            {TypeConstraint("T", CsrTypes())});
  r->Register<CsrToDenseOp>("CSRSparseMatrixToDense",
                            {TypeConstraint("type", CsrTypes())});
  r->Register<CsrToSparseTensorOp>("CSRSparseMatrixToSparseTensor",
                                   {TypeConstraint("type", CsrTypes())});
  r->Register<CsrComponentsOp>("CSRSparseMatrixComponents",
                               {TypeConstraint("type", CsrTypes())});
  r->Register<CsrNnzOp>("SparseMatrixNNZ");
  r->Register<CsrTransposeOp>("SparseMatrixTranspose",
                              {TypeConstraint("type", CsrTypes())});
  r->Register<CsrMatMulOp>("SparseMatrixMatMul",
                           {TypeConstraint("T", CsrTypes())});
  RegisterCsrEigenKernels(r);
}

}  // namespace dfg
