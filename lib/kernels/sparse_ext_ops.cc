// Feature crosses: SparseCross, SparseCrossV2, SparseCrossHashed
// (tf.sparse.cross, tf.sparse.cross_hashed, Keras HashedCrossing) and
// RaggedCross (tf.ragged.cross). Each input is a column of features per batch
// row (a 2-D sparse tensor, a ragged tensor of rank 2, or a dense matrix);
// every row's output is the cartesian product of its features across the
// columns, the last column varying fastest. A cross is the features joined
// as text ("a_X_b") or a hash chained with TensorFlow's FingerprintCat64 over
// each feature's 64-bit value (Fingerprint64 for strings, SipHash keyed by
// the salt for SparseCrossHashed's strong hash). Bit-exact with TensorFlow,
// including its quirks (see FeatureHash).
#include "lib/kernels/sparse_ext_ops.h"

#include <farmhash.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "lib/kernels/sparse_util.h"
#include "lib/kernels/string_hash.h"

namespace dfg {

namespace {

// TensorFlow's FingerprintCat64 (platform/fingerprint.h): chains two 64-bit
// fingerprints, not commutative.
uint64_t FingerprintCat64(uint64_t fp1, uint64_t fp2) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  auto shift_mix = [](uint64_t v) { return v ^ (v >> 47); };
  uint64_t r = fp1 ^ kMul;
  r ^= shift_mix(fp2 * kMul) * kMul;
  r *= kMul;
  r = shift_mix(r) * kMul;
  return shift_mix(r);
}

// A feature's 64-bit value. kHash: a string's Fingerprint64, an int64 as is.
// kKeyedHash (SparseCrossHashed) hashes an int64's first 4 bytes (TensorFlow
// hashes sizeof(DataType) bytes of it), except that a dense column's int64
// without the strong hash is taken as is.
uint64_t FeatureHash(const Column& c, int64_t b, int64_t n,
                     const CrossSpec& spec) {
  if (spec.kind == CrossSpec::kHash) {
    return c.is_string() ? util::Fingerprint64(c.Str(b, n))
                         : static_cast<uint64_t>(c.Int(b, n));
  }
  std::string_view bytes;
  int64_t v = 0;
  if (c.is_string()) {
    bytes = c.Str(b, n);
  } else {
    v = c.Int(b, n);
    if (!spec.strong && c.dense) return static_cast<uint64_t>(v);
    bytes = std::string_view(reinterpret_cast<const char*>(&v), 4);
  }
  return spec.strong ? SipHash24(spec.salt, bytes)
                     : util::Fingerprint64(bytes.data(), bytes.size());
}

int64_t Bucket(uint64_t h, int64_t num_buckets) {
  const uint64_t m =
      num_buckets > 0
          ? static_cast<uint64_t>(num_buckets)
          : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  return static_cast<int64_t>(h % m);
}

}  // namespace

Column DenseColumn(const Tensor& t) {
  Column c;
  c.values = &t;
  c.dense = true;
  const int64_t rows = t.dim_size(0), width = t.dim_size(1);
  for (int64_t b = 0; b < rows; ++b) {
    c.start.push_back(b * width);
    c.count.push_back(width);
  }
  return c;
}

// Number of crosses of batch row b: the product of the feature counts.
int64_t CrossCount(const std::vector<Column>& cols, int64_t b) {
  int64_t n = 1;
  for (const Column& c : cols) {
    if (c.count[b] <= 0) return c.count[b] < 0 ? -1 : 0;
    n *= c.count[b];
  }
  return n;
}

// The crosses of every batch row in order, written into `out` (string or
// int64) from `out_start[b]` on.
void WriteCrosses(const std::vector<Column>& cols,
                  const std::vector<int64_t>& out_start, const CrossSpec& spec,
                  Tensor* out) {
  const int64_t batch = static_cast<int64_t>(out_start.size());
  std::vector<int64_t> combo(cols.size());
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t total = CrossCount(cols, b);
    std::fill(combo.begin(), combo.end(), 0);
    for (int64_t k = 0; k < total; ++k) {
      const int64_t pos = out_start[b] + k;
      if (spec.kind == CrossSpec::kText) {
        std::string s;
        for (size_t i = 0; i < cols.size(); ++i) {
          if (i > 0) s += spec.sep;
          s += cols[i].Text(b, combo[i]);
        }
        out->flat<std::string>()[pos] = std::move(s);
      } else {
        // SparseCrossHashed starts the chain from its first feature, the
        // others from hash_key.
        const bool keyed = spec.kind == CrossSpec::kKeyedHash;
        uint64_t h =
            keyed ? FeatureHash(cols[0], b, combo[0], spec) : spec.hash_key;
        for (size_t i = keyed ? 1 : 0; i < cols.size(); ++i) {
          h = FingerprintCat64(h, FeatureHash(cols[i], b, combo[i], spec));
        }
        out->flat<int64_t>()[pos] = Bucket(h, spec.num_buckets);
      }
      for (int64_t i = static_cast<int64_t>(cols.size()) - 1; i >= 0; --i) {
        if (++combo[i] < cols[i].count[b]) break;
        combo[i] = 0;
      }
    }
  }
}

namespace {

// ---------------------------------------------------------------------------
// SparseCross, SparseCrossV2, SparseCrossHashed: inputs indices[N],
// values[N], shapes[N], dense[M], then the op's own inputs.

Status ValidateSparseCross(OpKernelContext* ctx, int n, int m,
                           DataType internal_type, int64_t* batch) {
  auto ind = [&](int i) -> const Tensor& { return ctx->input(i); };
  auto val = [&](int i) -> const Tensor& { return ctx->input(n + i); };
  auto shp = [&](int i) -> const Tensor& { return ctx->input(2 * n + i); };
  auto dns = [&](int i) -> const Tensor& { return ctx->input(3 * n + i); };
  const bool check_type = internal_type != tensorflow::DT_INVALID;
  for (int i = 0; i < n; ++i) {
    if (ind(i).dims() != 2) {
      return InvalidArgument(
          "Input indices should be a matrix but received shape {} at "
          "position {}",
          ind(i).shape().DebugString(), i);
    }
    if (ind(i).dim_size(1) != 2) {
      return InvalidArgument(
          "Expected D2 of index to be 2 got {} at position {}",
          ind(i).dim_size(1), i);
    }
  }
  for (int i = 0; i < n; ++i) {
    if (check_type && internal_type == tensorflow::DT_STRING &&
        val(i).dtype() == tensorflow::DT_INT64) {
      return InvalidArgument(
          "Input values should be of internal type {} but received {}",
          static_cast<int>(internal_type), static_cast<int>(val(i).dtype()));
    }
    if (val(i).dims() != 1) {
      return InvalidArgument(
          "Input values should be a vector but received shape {} at "
          "position {}",
          val(i).shape().DebugString(), i);
    }
    if (ind(i).dim_size(0) != val(i).dim_size(0)) {
      return InvalidArgument(
          "Expected size of values to be {} got {} at position {}",
          ind(i).dim_size(0), val(i).dim_size(0), i);
    }
  }
  for (int i = 0; i < n; ++i) {
    if (shp(i).dims() != 1) {
      return InvalidArgument(
          "Input shapes should be a vector but received shape {} at "
          "position {}",
          shp(i).shape().DebugString(), i);
    }
    if (shp(i).NumElements() != 2) {
      return InvalidArgument(
          "shape should imply a 2D tensor, but got {} at position {}",
          shp(i).shape().DebugString(), i);
    }
  }
  for (int i = 0; i < m; ++i) {
    if (check_type && internal_type == tensorflow::DT_STRING &&
        dns(i).dtype() == tensorflow::DT_INT64) {
      return InvalidArgument(
          "Dense inputs should be of internal type {} but received {}",
          static_cast<int>(internal_type), static_cast<int>(dns(i).dtype()));
    }
    if (dns(i).dims() != 2) {
      return InvalidArgument(
          "Dense inputs should be a matrix but received shape {} at "
          "position {}",
          dns(i).shape().DebugString(), i);
    }
  }
  *batch = n > 0 ? shp(0).flat<int64_t>()[0] : (m > 0 ? dns(0).dim_size(0) : 0);
  for (int i = 0; i < n; ++i) {
    if (shp(i).flat<int64_t>()[0] != *batch) {
      return InvalidArgument("Expected batch size {} got {} at position {}",
                             *batch, shp(i).flat<int64_t>()[0], i);
    }
  }
  for (int i = 0; i < m; ++i) {
    if (dns(i).dim_size(0) != *batch) {
      return InvalidArgument("Expected batch size {} got {} at dense tensor {}",
                             *batch, dns(i).dim_size(0), i);
    }
  }
  return Status::Ok();
}

// The columns of a SparseCross: a sparse column's row b is its run of
// consecutive entries whose batch index is b (TensorFlow's reading: the
// entries must be sorted by row).
std::vector<Column> SparseCrossColumns(OpKernelContext* ctx, int n, int m,
                                       int64_t batch) {
  std::vector<Column> cols;
  for (int i = 0; i < n; ++i) {
    Column c;
    c.values = &ctx->input(n + i);
    const Tensor& ind = ctx->input(i);
    const int64_t rows = ind.dim_size(0);
    const int64_t* idx = ind.flat<int64_t>().data();
    int64_t cur = 0;
    for (int64_t b = 0; b < batch; ++b) {
      c.start.push_back(cur);
      int64_t k = 0;
      while (cur < rows && idx[2 * cur] == b) ++cur, ++k;
      c.count.push_back(k);
    }
    cols.push_back(std::move(c));
  }
  for (int i = 0; i < m; ++i)
    cols.push_back(DenseColumn(ctx->input(3 * n + i)));
  return cols;
}

// Allocates the [total, 2] indices, [total] values and [2] shape outputs and
// writes the crosses.
Status EmitSparseCross(OpKernelContext* ctx, const std::vector<Column>& cols,
                       int64_t batch, const CrossSpec& spec) {
  std::vector<int64_t> out_start(batch);
  int64_t total = 0, widest = 0;
  for (int64_t b = 0; b < batch; ++b) {
    out_start[b] = total;
    const int64_t k = CrossCount(cols, b);
    widest = std::max(widest, k);
    total += k;
  }
  Tensor *ind = nullptr, *vals = nullptr;
  DFG_RETURN_IF_ERROR(
      AllocSparse(ctx, 0, total, 2, {batch, widest}, &ind, &vals));
  int64_t* o = ind->flat<int64_t>().data();
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t end = b + 1 < batch ? out_start[b + 1] : total;
    for (int64_t p = out_start[b]; p < end; ++p) {
      o[2 * p] = b;
      o[2 * p + 1] = p - out_start[b];
    }
  }
  WriteCrosses(cols, out_start, spec, vals);
  return Status::Ok();
}

class SparseCrossBase : public OpKernel {
 public:
  explicit SparseCrossBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("N", &n_));
    std::vector<DataType> dense;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dense_types", &dense));
    m_ = static_cast<int>(dense.size());
  }

 protected:
  // Validates the inputs and computes the batch size and the columns.
  bool Prepare(OpKernelContext* ctx, DataType internal_type,
               std::vector<Column>* cols, int64_t* batch) {
    Status s = ValidateSparseCross(ctx, n_, m_, internal_type, batch);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return false;
    }
    *cols = SparseCrossColumns(ctx, n_, m_, *batch);
    return true;
  }
  int n_ = 0, m_ = 0;
};

class SparseCrossOp : public SparseCrossBase {
 public:
  explicit SparseCrossOp(OpKernelConstruction* ctx) : SparseCrossBase(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_buckets", &spec_.num_buckets));
    int64_t key = 0;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("hash_key", &key));
    spec_.hash_key = static_cast<uint64_t>(key);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("internal_type", &internal_type_));
    DataType out_type;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("out_type", &out_type));
    // The kernel follows out_type (hashed_output is not read).
    spec_.kind =
        out_type == tensorflow::DT_INT64 ? CrossSpec::kHash : CrossSpec::kText;
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<Column> cols;
    int64_t batch = 0;
    if (!Prepare(ctx, internal_type_, &cols, &batch)) return;
    DFG_OP_REQUIRES_OK(ctx, EmitSparseCross(ctx, cols, batch, spec_));
  }

 private:
  CrossSpec spec_;
  DataType internal_type_ = tensorflow::DT_INVALID;
};

class SparseCrossV2Op : public SparseCrossBase {
 public:
  using SparseCrossBase::SparseCrossBase;

  void Compute(OpKernelContext* ctx) override {
    std::vector<Column> cols;
    int64_t batch = 0;
    if (!Prepare(ctx, tensorflow::DT_INVALID, &cols, &batch)) return;
    const Tensor& sep = ctx->input(3 * n_ + m_);
    DFG_OP_REQUIRES(ctx, sep.dims() == 0,
                    InvalidArgument("Input separator should be a scalar. "
                                    "Received: {}",
                                    sep.DebugString()));
    CrossSpec spec;
    spec.sep = sep.flat<std::string>()[0];
    DFG_OP_REQUIRES_OK(ctx, EmitSparseCross(ctx, cols, batch, spec));
  }
};

class SparseCrossHashedOp : public SparseCrossBase {
 public:
  using SparseCrossBase::SparseCrossBase;

  void Compute(OpKernelContext* ctx) override {
    std::vector<Column> cols;
    int64_t batch = 0;
    if (!Prepare(ctx, tensorflow::DT_INVALID, &cols, &batch)) return;
    const int first = 3 * n_ + m_;
    CrossSpec spec;
    spec.kind = CrossSpec::kKeyedHash;
    spec.num_buckets = ctx->input(first).flat<int64_t>()[0];
    spec.strong = ctx->input(first + 1).flat<bool>()[0];
    const Tensor& salt = ctx->input(first + 2);
    DFG_OP_REQUIRES(
        ctx, salt.NumElements() == 2,
        InvalidArgument("Input \"salt\" must have length 2 but has length {}",
                        salt.NumElements()));
    for (int k = 0; k < 2; ++k) {
      spec.salt[k] = static_cast<uint64_t>(salt.flat<int64_t>()[k]);
    }
    DFG_OP_REQUIRES_OK(ctx, EmitSparseCross(ctx, cols, batch, spec));
  }
};

}  // namespace

void RegisterRaggedCrossKernels(KernelRegistry* r);
void RegisterSparseCountKernels(KernelRegistry* r);
void RegisterTensorMapKernels(KernelRegistry* r);
void RegisterCsrKernels(KernelRegistry* r);
void RegisterSparseTensorsMapKernels(KernelRegistry* r);
void RegisterCompositeVariantKernels(KernelRegistry* r);

void RegisterSparseExtKernels(KernelRegistry* r) {
  r->Register<SparseCrossOp>("SparseCross");
  r->Register<SparseCrossV2Op>("SparseCrossV2");
  r->Register<SparseCrossHashedOp>("SparseCrossHashed");
  RegisterRaggedCrossKernels(r);
  RegisterSparseCountKernels(r);
  RegisterTensorMapKernels(r);
  RegisterCsrKernels(r);
  RegisterSparseTensorsMapKernels(r);
  RegisterCompositeVariantKernels(r);
}

}  // namespace dfg
