// Checkpoint kernels over lib/checkpoint's TensorBundle: SaveV2, RestoreV2,
// MergeV2Checkpoints, ShardedFilename, ShardedFilespec (TensorFlow's
// save_restore_v2_ops.cc, save_restore_tensor.cc, save_op.cc).
//
// RestoreV2 reads each numeric tensor straight into its output buffer
// (pread()s, checksummed as they arrive, no second copy), tensors and the
// ranges of big tensors in parallel on the intra-op pool (TensorFlow restores
// its big tensors on a pool of its own). shape_and_slices
// entries ("4 6 0,2:-") save a piece of a partitioned tensor and restore a
// slice, from a tensor stored whole or from pieces. Not supported: the V1
// checkpoint format that TensorFlow falls back to when PREFIX.index does not
// exist.
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <optional>

#include "lib/checkpoint/tensor_bundle.h"
#include "lib/kernels/file_policy.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/save_restore_util.h"

namespace dfg {
namespace {

// TensorFlow's ValidateInputs of save_restore_v2_ops.cc.
Status ValidateInputs(bool is_save_op, OpKernelContext* ctx) {
  const Tensor& prefix = ctx->input(0);
  const Tensor& names = ctx->input(1);
  const Tensor& slices = ctx->input(2);
  if (prefix.NumElements() != 1) {
    return InvalidArgument(
        "Input prefix should have a single element, got {} instead.",
        prefix.NumElements());
  }
  if (names.dims() != 1 || slices.dims() != 1) {
    return InvalidArgument(
        "Input tensor_names and shape_and_slices should be an 1-D tensors, "
        "got {} and {} instead.",
        names.shape().DebugString(), slices.shape().DebugString());
  }
  if (names.NumElements() != slices.NumElements()) {
    return InvalidArgument(
        "tensor_names and shape_and_slices have different number of "
        "elements: {} vs. {}",
        names.NumElements(), slices.NumElements());
  }
  const int64_t n = names.NumElements();
  if (is_save_op && ctx->num_inputs() != n + 3) {
    return InvalidArgument("Got {} tensor names but {} tensors.", n,
                           ctx->num_inputs() - 3);
  }
  return Status::Ok();
}

class SaveV2Op : public OpKernel {
 public:
  explicit SaveV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, ValidateInputs(true, ctx));
    const std::string& prefix = ctx->input(0).flat<std::string>()[0];
    DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, prefix));
    auto names = ctx->input(1).flat<std::string>();
    auto specs = ctx->input(2).flat<std::string>();
    BundleWriter writer(prefix);
    DFG_OP_REQUIRES_OK(ctx, writer.status());
    for (size_t i = 0; i < names.size(); ++i) {
      const Tensor& t = ctx->input(static_cast<int>(i) + 3);
      std::vector<int64_t> dims(t.shape().dim_sizes().begin(),
                                t.shape().dim_sizes().end());
      std::string key = names[i];
      if (!specs[i].empty()) {
        auto slice = ParseShapeAndSlice(specs[i]);
        DFG_OP_REQUIRES_OK(ctx, slice.status());
        DFG_OP_REQUIRES(
            ctx, slice->SliceShape() == t.shape(),
            InvalidArgument("Slice in shape_and_slice specification does not "
                            "match the shape of the tensor to  save: {}, "
                            "tensor: {}",
                            specs[i], t.shape().DebugString()));
        std::vector<int64_t> full(slice->full_shape.dim_sizes().begin(),
                                  slice->full_shape.dim_sizes().end());
        auto slice_key = writer.AddSliceEntry(
            names[i], t.dtype(), full, SliceSpec{slice->start, slice->length});
        DFG_OP_REQUIRES_OK(ctx, slice_key.status());
        key = *slice_key;
      }
      if (t.dtype() == tensorflow::DT_STRING) {
        std::vector<std::string> values(t.flat<std::string>().begin(),
                                        t.flat<std::string>().end());
        DFG_OP_REQUIRES_OK(ctx, writer.AddStrings(key, dims, values));
      } else {
        DFG_OP_REQUIRES_OK(
            ctx, writer.Add(key, t.dtype(), dims, t.data(), t.TotalBytes()));
      }
    }
    DFG_OP_REQUIRES_OK(ctx, writer.Finish());
  }
};

class RestoreV2Op : public OpKernel {
 public:
  explicit RestoreV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtypes", &dtypes_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& names_t = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, names_t.NumElements() == static_cast<int64_t>(dtypes_.size()),
        InvalidArgument("Got {} tensor names, but {} expected dtypes.",
                        names_t.NumElements(), dtypes_.size()));
    DFG_OP_REQUIRES_OK(ctx, ValidateInputs(false, ctx));
    const std::string& prefix = ctx->input(0).flat<std::string>()[0];
    DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, prefix));
    auto names = names_t.flat<std::string>();
    auto specs = ctx->input(2).flat<std::string>();
    std::error_code ec;
    DFG_OP_REQUIRES(
        ctx, std::filesystem::exists(MetaFilename(prefix), ec),
        NotFound("Unsuccessful TensorSliceReader constructor: Failed to find "
                 "any matching files for {} (no {}; dfg reads V2 "
                 "checkpoints only)",
                 prefix, MetaFilename(prefix)));
    auto reader = BundleReader::Open(prefix);
    DFG_OP_REQUIRES_OK(ctx, reader.status());

    // Sorted by name for locality, as TensorFlow does.
    std::vector<size_t> order(names.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return names[a] < names[b]; });
    std::vector<std::string> mismatched;
    for (size_t i : order) {
      auto info = (*reader)->Lookup(names[i]);
      DFG_OP_REQUIRES_OK(ctx, info.status());
      if (info->dtype != dtypes_[i]) {
        mismatched.push_back(fmt::format(
            "tensor_name = {}; expected dtype {} does not equal original "
            "dtype {}",
            names[i], DataTypeString(dtypes_[i]), DataTypeString(info->dtype)));
      }
    }
    DFG_OP_REQUIRES(ctx, mismatched.empty(),
                    InvalidArgument("{}", fmt::join(mismatched, "\n")));
    // Whole tensors: outputs allocated here, values read below in parallel
    // on the intra-op pool (big tensors in ranges); slices one by one.
    std::vector<TensorRead> whole;
    for (size_t i : order) {
      DFG_OP_REQUIRES_OK(ctx, RestoreOne(ctx, **reader, static_cast<int>(i),
                                         names[i], specs[i], &whole));
    }
    DFG_OP_REQUIRES_OK(ctx, ReadTensors(**reader, whole, ctx->intra_op_pool()));
  }

 private:
  static Status RestoreOne(OpKernelContext* ctx, BundleReader& reader, int i,
                           const std::string& name, const std::string& spec,
                           std::vector<TensorRead>* whole) {
    DFG_ASSIGN_OR_RETURN(BundleEntryInfo info, reader.Lookup(name));
    DFG_ASSIGN_OR_RETURN(TensorShape stored,
                         ShapeFromDims(info.shape, name, reader.prefix()));
    std::optional<ShapeAndSlice> slice;
    if (!spec.empty()) {
      DFG_ASSIGN_OR_RETURN(slice, ParseShapeAndSlice(spec));
      if (slice->full_shape != stored) {
        return InvalidArgument(
            "tensor_name = {}; shape in shape_and_slice spec {} does not "
            "match the shape stored in checkpoint: {}",
            name, slice->full_shape.DebugString(), stored.DebugString());
      }
      if (slice->IsFull()) slice.reset();
    }
    if (!info.sliced) DFG_RETURN_IF_ERROR(reader.CheckReadable(name));
    Tensor* out = nullptr;
    DFG_RETURN_IF_ERROR(
        ctx->allocate_output(i, slice ? slice->SliceShape() : stored, &out));
    if (!info.sliced && !slice) {
      whole->push_back(TensorRead{std::move(info), out});
      return Status::Ok();
    }
    if (!info.sliced && info.dtype == tensorflow::DT_STRING) {
      DFG_ASSIGN_OR_RETURN(Tensor whole, ReadWhole(reader, info, stored));
      CopySlice(whole, *slice, out);
      return Status::Ok();
    }
    SliceSpec want;
    for (int d = 0; d < stored.dims(); ++d) {
      want.start.push_back(slice ? slice->start[d] : 0);
      want.length.push_back(slice ? slice->length[d] : -1);
    }
    return reader.ReadSlice(name, want, out->data(), out->TotalBytes());
  }

  static StatusOr<Tensor> ReadWhole(BundleReader& reader,
                                    const BundleEntryInfo& info,
                                    const TensorShape& shape) {
    DFG_ASSIGN_OR_RETURN(Tensor t, Tensor::TryAllocate(info.dtype, shape));
    DFG_RETURN_IF_ERROR(ReadIntoTensor(reader, info, &t));
    return t;
  }

  std::vector<DataType> dtypes_;
};

class MergeV2CheckpointsOp : public OpKernel {
 public:
  explicit MergeV2CheckpointsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(
        ctx, ctx->GetAttr("delete_old_dirs", &options_.delete_old_dirs));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("allow_missing_files",
                                         &options_.allow_missing_files));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& prefixes = ctx->input(0);
    const Tensor& destination = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, prefixes.dims() == 1,
        InvalidArgument("Input checkpoint_prefixes should be an 1-D tensor, "
                        "got {} instead.",
                        prefixes.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, destination.dims() == 0,
        InvalidArgument("Input destination_prefix should be a scalar tensor, "
                        "got {} instead.",
                        destination.shape().DebugString()));
    std::vector<std::string> inputs(prefixes.flat<std::string>().begin(),
                                    prefixes.flat<std::string>().end());
    // The inputs are read and deleted (with their directories when
    // delete_old_dirs), the destination written.
    for (const std::string& in : inputs) {
      DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, in));
      if (options_.delete_old_dirs) {
        DFG_OP_REQUIRES_OK(
            ctx,
            CheckPath(*ctx, std::filesystem::path(in).parent_path().string()));
      }
    }
    DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, destination.scalar<std::string>()));
    DFG_OP_REQUIRES_OK(
        ctx, MergeBundles(inputs, destination.scalar<std::string>(), options_));
  }

 private:
  MergeOptions options_;
};

// ShardedFilename: "<basename>-<shard:05>-of-<num_shards:05>";
// ShardedFilespec: "<basename>-?????-of-<num_shards:05>".
class ShardedFilenameOp : public OpKernel {
 public:
  explicit ShardedFilenameOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    static const char* const kNames[3] = {"basename", "shard", "num_shards"};
    const bool spec = ctx->num_inputs() == 2;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      DFG_OP_REQUIRES(ctx, ctx->input(i).dims() == 0,
                      InvalidArgument("{} must be a scalar, got shape {}",
                                      spec && i == 1 ? "num_shards" : kNames[i],
                                      ctx->input(i).shape().DebugString()));
    }
    const std::string& base = ctx->input(0).scalar<std::string>();
    std::string name = spec ? fmt::format("{}-{}-of-{:05d}", base, "?????",
                                          ctx->input(1).scalar<int32_t>())
                            : fmt::format("{}-{:05d}-of-{:05d}", base,
                                          ctx->input(1).scalar<int32_t>(),
                                          ctx->input(2).scalar<int32_t>());
    ctx->set_output(0, Tensor::Scalar<std::string>(std::move(name)));
  }
};

}  // namespace

void RegisterSaveRestoreKernels(KernelRegistry* r) {
  r->Register<SaveV2Op>("SaveV2");
  r->Register<RestoreV2Op>("RestoreV2");
  r->Register<MergeV2CheckpointsOp>("MergeV2Checkpoints");
  r->Register<ShardedFilenameOp>("ShardedFilename");
  r->Register<ShardedFilenameOp>("ShardedFilespec");
}

}  // namespace dfg
