// GenerateVocabRemapping and LoadAndRemapMatrix, the warm-start ops
// (TensorFlow's core/kernels/generate_vocab_remapping_op.cc and
// load_and_remap_matrix_op.cc). GenerateVocabRemapping: for each id of a
// slice of a new vocabulary file, the line of the same token in an old
// vocabulary file (-1: absent), and how many were found; both files are read
// as the lookup tables' text initializers read them (text_table_reader.h).
// LoadAndRemapMatrix: a float matrix of a V2 checkpoint with its rows (and
// columns) moved to their new ids, the cells of new ids filled from
// initializing_values in row-major order.
#include <unordered_map>

#include "lib/checkpoint/tensor_bundle.h"
#include "lib/kernels/file_policy.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/lookup_table.h"
#include "lib/kernels/text_table_reader.h"

namespace dfg {
namespace {

using tensorflow::DT_INT64;
using tensorflow::DT_STRING;

// A HashTable initialized from `path` with the given key/value columns.
StatusOr<std::shared_ptr<LookupTable>> TextTable(const std::string& path,
                                                 TextTableOptions options) {
  Tensor keys, values;
  DFG_RETURN_IF_ERROR(ReadTextTable(path, options, &keys, &values));
  DFG_ASSIGN_OR_RETURN(
      std::shared_ptr<LookupTable> table,
      LookupTable::MakeHashTable(options.key_dtype, options.value_dtype));
  DFG_RETURN_IF_ERROR(table->Initialize(keys, values));
  return table;
}

class GenerateVocabRemappingOp : public OpKernel {
 public:
  explicit GenerateVocabRemappingOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("new_vocab_offset", &offset_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_new_vocab", &count_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("old_vocab_size", &old_size_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& new_file = ctx->input(0);
    DFG_OP_REQUIRES(ctx, new_file.dims() == 0,
                    InvalidArgument("new_vocab_file should be a single "
                                    "string, but got {}",
                                    new_file.shape().DebugString()));
    const std::string& new_path = new_file.scalar<std::string>();
    DFG_OP_REQUIRES(ctx, !new_path.empty(),
                    InvalidArgument("new vocab filename cannot be empty."));
    DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, new_path));
    TextTableOptions by_line;  // line number -> token
    by_line.key_index = TextTableOptions::kLineNumber;
    by_line.value_index = TextTableOptions::kWholeLine;
    by_line.key_dtype = DT_INT64;
    by_line.value_dtype = DT_STRING;
    StatusOr<std::shared_ptr<LookupTable>> new_table =
        TextTable(new_path, by_line);
    DFG_OP_REQUIRES_OK(ctx, new_table.status());
    DFG_OP_REQUIRES(ctx, offset_ + count_ <= (*new_table)->size(),
                    InvalidArgument("lookup table size must be larger than "
                                    "last new vocab entry's line"));
    const Tensor& old_file = ctx->input(1);
    DFG_OP_REQUIRES(ctx, old_file.dims() == 0,
                    InvalidArgument("old_vocab_file should be a single "
                                    "string, but got {}",
                                    old_file.shape().DebugString()));
    const std::string& old_path = old_file.scalar<std::string>();
    // TensorFlow's text for an empty old filename names the new one.
    DFG_OP_REQUIRES(ctx, !old_path.empty(),
                    InvalidArgument("new vocab filename cannot be empty."));
    DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, old_path));
    TextTableOptions by_token;  // token -> line number
    by_token.vocab_size = old_size_;
    StatusOr<std::shared_ptr<LookupTable>> old_table =
        TextTable(old_path, by_token);
    DFG_OP_REQUIRES_OK(ctx, old_table.status());
    Tensor ids(DT_INT64, TensorShape({count_}));
    for (int64_t i = 0; i < count_; ++i) ids.flat<int64_t>()[i] = offset_ + i;
    Tensor* remapping = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {count_}, &remapping));
    if (count_ > 0) {
      Tensor tokens(DT_STRING, TensorShape({count_}));
      DFG_OP_REQUIRES_OK(
          ctx,
          (*new_table)->Find(ids, Tensor::Scalar<std::string>(""), &tokens));
      DFG_OP_REQUIRES_OK(
          ctx,
          (*old_table)->Find(tokens, Tensor::Scalar<int64_t>(-1), remapping));
    }
    int32_t present = 0;
    for (int64_t v : remapping->flat<int64_t>()) present += v != -1;
    ctx->set_output(1, Tensor::Scalar<int32_t>(present));
  }

 private:
  int64_t offset_ = 0;
  int64_t count_ = 0;
  int64_t old_size_ = -1;
};

// Old id -> new id of a remapping vector (new id -> old id, -1: none), and
// which new ids have an old one.
Status InvertRemapping(const Tensor& remapping, std::vector<bool>* present,
                       std::unordered_map<int64_t, int64_t>* old_to_new) {
  auto r = remapping.flat<int64_t>();
  present->assign(r.size(), false);
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] < 0) continue;
    (*present)[i] = true;
    auto [it, fresh] = old_to_new->emplace(r[i], i);
    if (!fresh) {
      return Unimplemented(
          "Old ID {} is mapped to both new ID {} and {}, which is not "
          "supported.",
          r[i], it->second, i);
    }
  }
  return Status::Ok();
}

class LoadAndRemapMatrixOp : public OpKernel {
 public:
  explicit LoadAndRemapMatrixOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_rows", &rows_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_cols", &cols_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& row_map = ctx->input(2);
    DFG_OP_REQUIRES(ctx, row_map.dims() == 1,
                    InvalidArgument("The `row_remapping` tensor must be 1-D, "
                                    "got a tensor of shape {}",
                                    row_map.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, row_map.NumElements() == rows_,
                    InvalidArgument("Size of row_remapping is {} instead of "
                                    "being equal to num_rows={}",
                                    row_map.NumElements(), rows_));
    std::vector<bool> row_present, col_present;
    std::unordered_map<int64_t, int64_t> old_row, old_col;
    DFG_OP_REQUIRES_OK(ctx, InvertRemapping(row_map, &row_present, &old_row));
    const Tensor& col_map = ctx->input(3);
    const bool remap_cols = col_map.NumElements() > 0;
    if (remap_cols) {
      DFG_OP_REQUIRES(ctx, col_map.NumElements() == cols_,
                      InvalidArgument("Provided col_remapping, but its size is "
                                      "{} instead of being equal to "
                                      "num_cols={}",
                                      col_map.NumElements(), cols_));
      DFG_OP_REQUIRES_OK(ctx, InvertRemapping(col_map, &col_present, &old_col));
    } else {
      col_present.assign(cols_, true);
    }
    StatusOr<Tensor> old = ReadMatrix(ctx, remap_cols);
    DFG_OP_REQUIRES_OK(ctx, old.status());
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {rows_, cols_}, &out));
    auto o = out->flat<float>();
    auto src = old->flat<float>();
    const int64_t old_cols = old->dim_size(1);
    for (int64_t r = 0; r < old->dim_size(0); ++r) {
      auto row = old_row.find(r);
      if (row == old_row.end()) continue;
      for (int64_t c = 0; c < old_cols; ++c) {
        int64_t new_col = c;
        if (remap_cols) {
          auto col = old_col.find(c);
          if (col == old_col.end()) continue;
          new_col = col->second;
        }
        o[row->second * cols_ + new_col] = src[r * old_cols + c];
      }
    }
    auto init = ctx->input(4).flat<float>();
    size_t used = 0;
    for (int64_t i = 0; i < rows_; ++i) {
      for (int64_t j = 0; j < cols_; ++j) {
        if (row_present[i] && col_present[j]) continue;
        DFG_OP_REQUIRES(ctx, used < init.size(),
                        InvalidArgument("initializing_values contained {} "
                                        "elements, but more missing values "
                                        "remain.",
                                        init.size()));
        o[i * cols_ + j] = init[used++];
      }
    }
    DFG_OP_REQUIRES(ctx, used == init.size(),
                    InvalidArgument("initializing_values contained {} "
                                    "elements, but only {} elements were used "
                                    "to fill in missing values.",
                                    init.size(), used));
  }

 private:
  // The old float matrix, whole (TensorFlow reads the rows it needs in
  // chunks of max_rows_in_memory; the values are the same).
  StatusOr<Tensor> ReadMatrix(OpKernelContext* ctx, bool remap_cols) const {
    const Tensor& path = ctx->input(0);
    if (path.NumElements() != 1) {
      return InvalidArgument(
          "The `ckpt_path` tensor must have exactly one element, got tensor "
          "of shape {}",
          path.shape().DebugString());
    }
    const std::string& name = ctx->input(1).flat<std::string>()[0];
    DFG_RETURN_IF_ERROR(CheckPath(*ctx, path.flat<std::string>()[0]));
    DFG_ASSIGN_OR_RETURN(auto reader,
                         BundleReader::Open(path.flat<std::string>()[0]));
    DFG_ASSIGN_OR_RETURN(BundleEntryInfo info, reader->Lookup(name));
    const TensorShape shape(std::span<const int64_t>(info.shape));
    if (info.dtype != tensorflow::DT_FLOAT) {
      return InvalidArgument(
          "Tensor {} has invalid type {} instead of "
          "expected type float",
          name, DataTypeString(info.dtype));
    }
    if (shape.dims() != 2) {
      return InvalidArgument(
          "Tensor {} has shape {} of invalid rank {} instead of expected "
          "shape of rank 2.",
          name, shape.DebugString(), shape.dims());
    }
    if (!remap_cols && shape.dim_size(1) != cols_) {
      return InvalidArgument(
          "Tensor {} has shape {}, where the size of its 2nd dimension is {} "
          "instead of being equal to num_cols={}",
          name, shape.DebugString(), shape.dim_size(1), cols_);
    }
    DFG_ASSIGN_OR_RETURN(Tensor t,
                         Tensor::TryAllocate(tensorflow::DT_FLOAT, shape));
    SliceSpec whole{{0, 0}, {-1, -1}};
    DFG_RETURN_IF_ERROR(
        reader->ReadSlice(name, whole, t.data(), t.TotalBytes()));
    return t;
  }

  int64_t rows_ = 0;
  int64_t cols_ = 0;
};

}  // namespace

void RegisterVocabRemapKernels(KernelRegistry* r) {
  r->Register<GenerateVocabRemappingOp>("GenerateVocabRemapping");
  r->Register<LoadAndRemapMatrixOp>("LoadAndRemapMatrix");
}

}  // namespace dfg
