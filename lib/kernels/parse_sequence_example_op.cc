// ParseSequenceExampleV2 (TensorFlow's ParseSequenceExampleOp in
// core/kernels/example_parsing_ops.cc): the attrs, the key inputs and the
// defaults checked as TensorFlow does, then the engine of
// sequence_example_parsing.h; its outputs in output-arg order.
#include <algorithm>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/sequence_example_parsing.h"

namespace dfg {
namespace {

using tensorflow::DT_INT64;

std::vector<int64_t> Dims(const TensorShapeProto& p) {
  std::vector<int64_t> d;
  for (const auto& dim : p.dim()) d.push_back(dim.size());
  return d;
}

class ParseSequenceExampleV2Op : public OpKernel {
 public:
  explicit ParseSequenceExampleV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(true);
    DFG_OP_REQUIRES_OK(ctx, Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    const Tensor& names = ctx->input(1);
    DFG_OP_REQUIRES(ctx, serialized.dims() <= 1,
                    InvalidArgument("Expected serialized to be a scalar or "
                                    "vector, got shape: {}",
                                    serialized.shape().DebugString()));
    Config context, lists;
    DFG_OP_REQUIRES_OK(ctx, MakeConfigs(ctx, &context, &lists));
    auto ser = serialized.flat<std::string>();
    auto nm = names.flat<std::string>();
    Outputs c, l;
    DFG_OP_REQUIRES_OK(ctx,
                       ParseSequenceExamples(
                           context, lists,
                           std::span<const std::string>(ser.data(), ser.size()),
                           std::span<const std::string>(nm.data(), nm.size()),
                           serialized.dims() == 1, &c, &l));
    int o = 0;
    auto emit = [&](std::vector<Tensor>& ts) {
      for (Tensor& t : ts) ctx->set_output(o++, std::move(t));
    };
    emit(c.sparse_indices), emit(c.sparse_values), emit(c.sparse_shapes);
    emit(c.dense_values), emit(c.ragged_values), emit(c.ragged_outer);
    emit(l.sparse_indices), emit(l.sparse_values), emit(l.sparse_shapes);
    emit(l.dense_values), emit(l.dense_lengths);
    emit(l.ragged_values), emit(l.ragged_outer), emit(l.ragged_inner);
  }

 private:
  Status Init(OpKernelConstruction* ctx) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("context_sparse_types", &cs_types_));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("Tcontext_dense", &cd_types_));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("context_dense_shapes", &cd_shapes_));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("context_ragged_value_types", &cr_types_));
    DFG_RETURN_IF_ERROR(
        ctx->GetAttr("context_ragged_split_types", &cr_splits_));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("feature_list_sparse_types", &fs_types_));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("feature_list_dense_types", &fd_types_));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("feature_list_dense_shapes", &fd_shapes_));
    DFG_RETURN_IF_ERROR(
        ctx->GetAttr("feature_list_ragged_value_types", &fr_types_));
    DFG_RETURN_IF_ERROR(
        ctx->GetAttr("feature_list_ragged_split_types", &fr_splits_));
    if (cd_shapes_.size() != cd_types_.size()) {
      return InvalidArgument(
          "len(context_dense_shapes) != len(Tcontext_dense)");
    }
    if (fd_shapes_.size() != fd_types_.size()) {
      return InvalidArgument(
          "len(feature_list_dense_shapes) != len(feature_list_dense_types)");
    }
    if (cr_types_.size() != cr_splits_.size() ||
        fr_types_.size() != fr_splits_.size()) {
      return InvalidArgument(
          "ragged value and split type lists differ in length");
    }
    return Status::Ok();
  }

  // The keys (inputs 2..7), the missing-assumed-empty flags (8) and the
  // context defaults (9...), checked as TensorFlow's CheckInputShapes does.
  Status MakeConfigs(OpKernelContext* ctx, Config* context,
                     Config* lists) const {
    auto keys = [&](int i, size_t n,
                    const char* what) -> StatusOr<std::vector<std::string>> {
      const Tensor& t = ctx->input(i);
      if (static_cast<size_t>(t.NumElements()) != n) {
        return InvalidArgument("Expected len({}", what);
      }
      auto f = t.flat<std::string>();
      return std::vector<std::string>(f.begin(), f.end());
    };
    DFG_ASSIGN_OR_RETURN(auto cs,
                         keys(2, cs_types_.size(),
                              "context_sparse_keys) to match Ncontext_sparse"));
    DFG_ASSIGN_OR_RETURN(
        auto cd, keys(3, cd_types_.size(),
                      "context_dense_keys) to match len(Tcontext_dense)"));
    DFG_ASSIGN_OR_RETURN(
        auto cr,
        keys(4, cr_types_.size(),
             "context_ragged_keys) to match len(context_ragged_value_types)"));
    DFG_ASSIGN_OR_RETURN(
        auto fs,
        keys(5, fs_types_.size(),
             "feature_list_sparse_keys) to match Nfeature_list_sparse"));
    DFG_ASSIGN_OR_RETURN(
        auto fd, keys(6, fd_types_.size(),
                      "feature_list_dense_keys) to match Nfeature_list_dense"));
    DFG_ASSIGN_OR_RETURN(auto fr, keys(7, fr_types_.size(),
                                       "feature_list_ragged_keys) to match "
                                       "len(feature_list_ragged_value_types)"));
    const Tensor& missing = ctx->input(8);
    if (static_cast<size_t>(missing.NumElements()) != fd_types_.size()) {
      return InvalidArgument(
          "Expected len(feature_list_dense_missing_assumed_empty to match "
          "Nfeature_list_dense");
    }
    for (size_t d = 0; d < cd_types_.size(); ++d) {
      const Tensor& def = ctx->input(9 + d);
      if (def.NumElements() == 0) continue;
      // Compared as dims: a shape attr may hold -1, which no TensorShape
      // holds.
      const std::vector<int64_t> want = Dims(cd_shapes_[d]);
      const auto have = def.shape().dim_sizes();
      if (!std::equal(have.begin(), have.end(), want.begin(), want.end())) {
        return InvalidArgument(
            "default_value[{}].shape() == {} != context_dense_shapes[{}] == {}",
            d, def.shape().DebugString(), d, VectorString(want));
      }
    }
    for (size_t d = 0; d < cs.size(); ++d) {
      context->sparse.push_back({cs[d], cs_types_[d]});
    }
    for (size_t d = 0; d < cd.size(); ++d) {
      context->dense.push_back({cd[d], cd_types_[d], DT_INT64,
                                Dims(cd_shapes_[d]), ctx->input(9 + d)});
    }
    for (size_t d = 0; d < cr.size(); ++d) {
      context->ragged.push_back({cr[d], cr_types_[d], cr_splits_[d]});
    }
    for (size_t d = 0; d < fs.size(); ++d) {
      lists->sparse.push_back({fs[d], fs_types_[d]});
    }
    for (size_t d = 0; d < fd.size(); ++d) {
      FeatureSpec spec{fd[d], fd_types_[d], DT_INT64, Dims(fd_shapes_[d])};
      spec.missing_ok = missing.flat<bool>()[d];
      lists->dense.push_back(std::move(spec));
    }
    for (size_t d = 0; d < fr.size(); ++d) {
      lists->ragged.push_back({fr[d], fr_types_[d], fr_splits_[d]});
    }
    return Status::Ok();
  }

  std::vector<DataType> cs_types_, cd_types_, cr_types_, cr_splits_;
  std::vector<DataType> fs_types_, fd_types_, fr_types_, fr_splits_;
  std::vector<TensorShapeProto> cd_shapes_, fd_shapes_;
};

}  // namespace

void RegisterParseSequenceExampleKernels(KernelRegistry* r) {
  r->Register<ParseSequenceExampleV2Op>("ParseSequenceExampleV2");
}

}  // namespace dfg
