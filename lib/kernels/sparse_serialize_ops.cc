// SerializeSparse / SerializeManySparse (a sparse tensor, or each row of a
// minibatch of them, as 3 strings: its indices, values and shape, each a
// TensorProto in tensor_content form, byte for byte as TensorFlow writes
// them) and DeserializeSparse / DeserializeManySparse (the inverse; a batch
// of serialized tensors becomes one sparse tensor with leading batch dims,
// the other dims the maximum over the batch, entries in batch order).
// out_type / Tserialized string only: the variant forms are not here.
#include <algorithm>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/sparse_util.h"

namespace dfg {
namespace {

void PutVarint32(std::string* out, uint32_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// TensorFlow's AsProtoTensorContent: strings too go to tensor_content, as
// all their varint32 lengths, then all their bytes (EncodeStringList).
std::string Serialize(const Tensor& t) {
  TensorProto proto;
  t.ToProto(&proto, /*use_tensor_content=*/true);
  if (t.dtype() == tensorflow::DT_STRING) {
    proto.clear_string_val();
    std::string content;
    for (const std::string& v : t.flat<std::string>()) {
      PutVarint32(&content, static_cast<uint32_t>(v.size()));
    }
    for (const std::string& v : t.flat<std::string>()) content += v;
    proto.set_tensor_content(content);
  }
  return proto.SerializeAsString();
}

// The strings of an EncodeStringList tensor_content; false when malformed.
bool DecodeStrings(const std::string& in, std::span<std::string> out) {
  size_t pos = 0;
  std::vector<uint32_t> sizes(out.size());
  for (uint32_t& size : sizes) {
    size = 0;
    for (int shift = 0;; shift += 7) {
      if (pos >= in.size() || shift > 28) return false;
      const uint8_t b = static_cast<uint8_t>(in[pos++]);
      size |= static_cast<uint32_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (in.size() - pos < sizes[i]) return false;
    out[i] = in.substr(pos, sizes[i]);
    pos += sizes[i];
  }
  return pos == in.size();
}

void Write3(std::string* out, const Tensor& idx, const Tensor& vals,
            const Tensor& shape) {
  out[0] = Serialize(idx);
  out[1] = Serialize(vals);
  out[2] = Serialize(shape);
}

class SerializeSparseOp : public OpKernel {
 public:
  explicit SerializeSparseOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), many_(def().op() == "SerializeManySparse") {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& idx = ctx->input(0);
    const Tensor& vals = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    DFG_OP_REQUIRES(ctx, idx.dims() == 2,
                    InvalidArgument("Input indices should be a matrix but "
                                    "received shape {}",
                                    idx.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, vals.dims() == 1,
                    InvalidArgument("Input values should be a vector but "
                                    "received shape {}",
                                    vals.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, shape.dims() == 1,
                    InvalidArgument("Input shape should be a vector but "
                                    "received shape {}",
                                    shape.shape().DebugString()));
    if (!many_) {
      Tensor* out = nullptr;
      DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({3}), &out));
      Write3(out->flat<std::string>().data(), idx, vals, shape);
      return;
    }
    DFG_OP_REQUIRES_OK(ctx, SerializeMany(ctx, idx, vals, shape));
  }

 private:
  static Status SerializeMany(OpKernelContext* ctx, const Tensor& idx_t,
                              const Tensor& vals, const Tensor& shape_t) {
    const std::vector<int64_t> shape = IntValues(shape_t);
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (rank <= 1) {
      return InvalidArgument(
          "Rank of input SparseTensor should be > 1, but saw rank: {}", rank);
    }
    const std::vector<int64_t> idx = IntValues(idx_t);
    const int64_t n = vals.NumElements();
    DFG_RETURN_IF_ERROR(ValidateSparseIndices(SparseIndices{idx, n, rank},
                                              std::span<const int64_t>(shape)));
    const int64_t batch = shape[0];
    Tensor* out = nullptr;
    DFG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({batch, 3}), &out));
    const Tensor rest = Tensor::Vector<int64_t>(
        std::vector<int64_t>(shape.begin() + 1, shape.end()));
    int64_t i = 0;
    for (int64_t b = 0; b < batch; ++b) {
      int64_t end = i;
      while (end < n && idx[end * rank] == b) ++end;
      const int64_t m = end - i;
      Tensor oi(tensorflow::DT_INT64, TensorShape({m, rank - 1}));
      Tensor ov(vals.dtype(), TensorShape({m}));
      for (int64_t k = 0; k < m; ++k) {
        for (int64_t d = 1; d < rank; ++d) {
          oi.flat<int64_t>()[k * (rank - 1) + d - 1] = idx[(i + k) * rank + d];
        }
        CopyElements(vals, i + k, &ov, k, 1);
      }
      Write3(out->flat<std::string>().data() + 3 * b, oi, ov, rest);
      i = end;
    }
    return Status::Ok();
  }

  bool many_;
};

Status Parse(const std::string& s, const char* what, Tensor* out) {
  TensorProto proto;
  if (!proto.ParseFromString(s)) {
    return InvalidArgument("Could not parse serialized_sparse[{}]", what);
  }
  if (proto.dtype() != tensorflow::DT_STRING ||
      proto.tensor_content().empty()) {
    DFG_ASSIGN_OR_RETURN(*out, Tensor::FromProto(proto));
    return Status::Ok();
  }
  DFG_ASSIGN_OR_RETURN(TensorShape shape,
                       TensorShape::FromProto(proto.tensor_shape()));
  DFG_ASSIGN_OR_RETURN(*out, Tensor::TryAllocate(proto.dtype(), shape));
  auto flat = out->flat<std::string>();
  if (!DecodeStrings(proto.tensor_content(),
                     std::span<std::string>(flat.data(), flat.size()))) {
    return InvalidArgument("Could not parse serialized_sparse[{}]", what);
  }
  return Status::Ok();
}

class DeserializeSparseOp : public OpKernel {
 public:
  explicit DeserializeSparseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() > 0,
                    InvalidArgument("Serialized sparse should have non-zero "
                                    "rank {}",
                                    in.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, in.dim_size(in.dims() - 1) == 3,
                    InvalidArgument("Serialized sparse should have 3 as the "
                                    "last dimension {}",
                                    in.shape().DebugString()));
    const int64_t count = in.NumElements() / 3;
    std::vector<Tensor> idx(count), vals(count);
    std::vector<std::vector<int64_t>> shapes(count);
    const std::string* s = in.flat<std::string>().data();
    for (int64_t i = 0; i < count; ++i) {
      Tensor shape;
      DFG_OP_REQUIRES_OK(ctx, Parse(s[3 * i], "indices", &idx[i]));
      DFG_OP_REQUIRES_OK(ctx, Parse(s[3 * i + 1], "values", &vals[i]));
      DFG_OP_REQUIRES_OK(ctx, Parse(s[3 * i + 2], "shape", &shape));
      DFG_OP_REQUIRES(ctx, vals[i].dtype() == dtype_,
                      InvalidArgument("Requested SparseTensor of type {} but "
                                      "SparseTensor[{}].values.dtype() == {}",
                                      DataTypeString(dtype_), i,
                                      DataTypeString(vals[i].dtype())));
      DFG_OP_REQUIRES_OK(ctx,
                         CheckSparseInputs(idx[i], vals[i], shape, "Input"));
      shapes[i] = IntValues(shape);
    }
    if (in.dims() == 1) {
      ctx->set_output(0, idx[0]);
      ctx->set_output(1, vals[0]);
      ctx->set_output(2, Tensor::Vector<int64_t>(shapes[0]));
      return;
    }
    std::vector<int64_t> out_shape(in.shape().dim_sizes().begin(),
                                   in.shape().dim_sizes().end() - 1);
    const int64_t batch_dims = static_cast<int64_t>(out_shape.size());
    const size_t rank = count > 0 ? shapes[0].size() : 0;
    std::vector<int64_t> max_dims(rank, 0);
    int64_t total = 0;
    for (int64_t i = 0; i < count; ++i) {
      DFG_OP_REQUIRES(ctx, shapes[i].size() == rank,
                      InvalidArgument("Inconsistent shape across "
                                      "SparseTensors: rank prior to "
                                      "SparseTensor[{}] was: {} but rank of "
                                      "SparseTensor[{}] is: {}",
                                      i, rank + batch_dims, i,
                                      shapes[i].size() + batch_dims));
      for (size_t d = 0; d < rank; ++d) {
        max_dims[d] = std::max(max_dims[d], shapes[i][d]);
      }
      total += vals[i].NumElements();
    }
    out_shape.insert(out_shape.end(), max_dims.begin(), max_dims.end());
    const int64_t out_rank = static_cast<int64_t>(out_shape.size());
    Tensor oi(tensorflow::DT_INT64, TensorShape({total, out_rank}));
    Tensor ov(dtype_, TensorShape({total}));
    const std::vector<int64_t> batch_strides = Strides(std::span<const int64_t>(
        out_shape.data(), static_cast<size_t>(batch_dims)));
    int64_t at = 0;
    for (int64_t i = 0; i < count; ++i) {
      const std::vector<int64_t> e = IntValues(idx[i]);
      for (int64_t k = 0; k < vals[i].NumElements(); ++k, ++at) {
        int64_t rem = i;
        for (int64_t d = 0; d < batch_dims; ++d) {
          oi.flat<int64_t>()[at * out_rank + d] = rem / batch_strides[d];
          rem %= batch_strides[d];
        }
        for (size_t d = 0; d < rank; ++d) {
          oi.flat<int64_t>()[at * out_rank + batch_dims + d] = e[k * rank + d];
        }
        CopyElements(vals[i], k, &ov, at, 1);
      }
    }
    ctx->set_output(0, std::move(oi));
    ctx->set_output(1, std::move(ov));
    ctx->set_output(2, Tensor::Vector<int64_t>(out_shape));
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
};

}  // namespace

void RegisterSparseSerializeKernels(KernelRegistry* r) {
  const auto strings = TypeList<std::string>();
  r->Register<SerializeSparseOp>("SerializeSparse",
                                 {TypeConstraint("out_type", strings)});
  r->Register<SerializeSparseOp>("SerializeManySparse",
                                 {TypeConstraint("out_type", strings)});
  r->Register<DeserializeSparseOp>("DeserializeSparse",
                                   {TypeConstraint("Tserialized", strings)});
  r->Register<DeserializeSparseOp>("DeserializeManySparse");
}

}  // namespace dfg
