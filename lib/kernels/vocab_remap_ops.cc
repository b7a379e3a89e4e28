// GenerateVocabRemapping (TensorFlow's
// core/kernels/generate_vocab_remapping_op.cc): for each id of a slice of a
// new vocabulary file, the line of the same token in an old vocabulary file
// (-1: absent), and how many were found. Both files are read as the lookup
// tables' text initializers read them (text_table_reader.h), so their errors
// are TensorFlow's.
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

}  // namespace

void RegisterVocabRemapKernels(KernelRegistry* r) {
  r->Register<GenerateVocabRemappingOp>("GenerateVocabRemapping");
}

}  // namespace dfg
