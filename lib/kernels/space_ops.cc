// Rearranging blocks between space, depth and batch: DepthToSpace,
// SpaceToDepth (NHWC only on CPU, as TensorFlow), SpaceToBatchND and
// BatchToSpaceND (any number of block dims; int32/int64 block_shape and
// paddings/crops). Checks and error texts follow TensorFlow's
// depthtospace_op.cc, spacetodepth_op.cc, spacetobatch_op.cc and
// batchtospace_op.cc.
#include <algorithm>
#include <string>
#include <vector>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

using SpaceTypes = decltype(AllTypes() + TypeList<QInt8>());

// Calls fn(T{}) for the element type of `dtype` (any non-resource type).
template <typename Fn>
void DispatchAny(DataType dtype, Fn&& fn) {
  Dispatch(SpaceTypes(), dtype, std::forward<Fn>(fn));
}

// Reads block_size and data_format and checks them. `depth_to_space` picks
// the op's wording and check order.
Status ReadBlockAttrs(OpKernelConstruction* ctx, bool depth_to_space,
                      int64_t* block_size) {
  std::string format;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  if (format != "NHWC" && format != "NCHW" && format != "NCHW_VECT_C") {
    return InvalidArgument("Invalid data format");
  }
  auto check_format = [&]() -> Status {
    if (format != "NHWC") {
      return InvalidArgument("Only NHWC data_format supported on CPU. Got {}",
                             format);
    }
    return Status::Ok();
  };
  if (depth_to_space) DFG_RETURN_IF_ERROR(check_format());
  DFG_RETURN_IF_ERROR(ctx->GetAttr("block_size", block_size));
  if (*block_size <= 1) {
    return depth_to_space
               ? InvalidArgument("Block size should be > 1: {}", *block_size)
               : InvalidArgument("Block size should be > 1, but was: {}",
                                 *block_size);
  }
  if (!depth_to_space) DFG_RETURN_IF_ERROR(check_format());
  return Status::Ok();
}

// out[b, h, w, d] = in[b, h / bs, w / bs, ((h % bs) * bs + w % bs) * od + d]
// for DepthToSpace; SpaceToDepth is the inverse map. Both walk the
// space-side tensor [b, H, W, od] in depth runs of `od` elements.
template <typename T>
void MoveBlocks(ThreadPoolInterface* pool, bool depth_to_space, int64_t batch,
                int64_t rows, int64_t cols, int64_t od, int64_t bs, const T* in,
                T* out) {
  const int64_t small_cols = cols / bs, deep = od * bs * bs;
  ParallelFor(pool, batch * rows, cols * od, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / rows, h = r % rows;
      for (int64_t w = 0; w < cols; ++w) {
        const int64_t space = (r * cols + w) * od;
        const int64_t depth =
            ((b * (rows / bs) + h / bs) * small_cols + w / bs) * deep +
            ((h % bs) * bs + w % bs) * od;
        if (depth_to_space) {
          std::copy(in + depth, in + depth + od, out + space);
        } else {
          std::copy(in + space, in + space + od, out + depth);
        }
      }
    }
  });
}

class DepthToSpaceOp : public OpKernel {
 public:
  explicit DepthToSpaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadBlockAttrs(ctx, true, &block_size_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFG_OP_REQUIRES(ctx, input.dims() == 4,
                    InvalidArgument("Input rank should be: 4 instead of: {}",
                                    input.dims()));
    const int64_t bs = block_size_, bs_sq = bs * bs;
    const int64_t depth = input.dim_size(3);
    DFG_OP_REQUIRES(ctx, depth % bs_sq == 0,
                    InvalidArgument("Input depth dimension {} should be "
                                    "divisible by: {}",
                                    depth, bs_sq));
    const TensorShape shape({input.dim_size(0), input.dim_size(1) * bs,
                             input.dim_size(2) * bs, depth / bs_sq});
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    DispatchAny(input.dtype(), [&](auto v) {
      using T = decltype(v);
      MoveBlocks(ctx->intra_op_pool(), true, shape.dim_size(0),
                 shape.dim_size(1), shape.dim_size(2), shape.dim_size(3), bs,
                 static_cast<const T*>(input.data()),
                 static_cast<T*>(out->data()));
    });
  }

 private:
  int64_t block_size_ = 0;
};

class SpaceToDepthOp : public OpKernel {
 public:
  explicit SpaceToDepthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadBlockAttrs(ctx, false, &block_size_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFG_OP_REQUIRES(
        ctx, input.dims() == 4,
        InvalidArgument("Input rank should be 4 instead of {}", input.dims()));
    const int64_t bs = block_size_;
    const int64_t rows = input.dim_size(1), cols = input.dim_size(2);
    DFG_OP_REQUIRES(ctx, cols % bs == 0 && rows % bs == 0,
                    InvalidArgument("Image width {} and height {} should be "
                                    "divisible by block_size: {}",
                                    cols, rows, bs));
    const int64_t depth = input.dim_size(3);
    const TensorShape shape(
        {input.dim_size(0), rows / bs, cols / bs, depth * bs * bs});
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    DispatchAny(input.dtype(), [&](auto v) {
      using T = decltype(v);
      MoveBlocks(ctx->intra_op_pool(), false, input.dim_size(0), rows, cols,
                 depth, bs, static_cast<const T*>(input.data()),
                 static_cast<T*>(out->data()));
    });
  }

 private:
  int64_t block_size_ = 0;
};

// TensorFlow's kMaxSpaceToBatchBlockDims.
constexpr int kMaxBlockDims = 4;

// The problem after folding leading/trailing block dims with block 1 and no
// padding into the batch and depth: space-side [batch, space..., depth],
// batch-side [batch * prod(block), batch_space..., depth].
struct BlockProblem {
  int64_t batch = 0, depth = 1;
  std::vector<int64_t> block, pad_start, space, batch_space;
  TensorShape out_shape;
  bool identity = false;  // nothing to move: the output is the input
};

// One block dimension's space-side and batch-side sizes: padded then divided
// by the block (to_batch), or multiplied by the block then cropped.
Status PlanBlockDim(bool to_batch, int d, int64_t size, int64_t b,
                    int64_t start, int64_t end, int64_t* space,
                    int64_t* batch_space) {
  if (start < 0 || end < 0) {
    if (to_batch) return InvalidArgument("Paddings must be non-negative");
    return InvalidArgument("Crops must be non-negative");
  }
  if (to_batch) {
    const int64_t padded = size + start + end;
    if (padded % b != 0) {
      return InvalidArgument(
          "padded_shape[{}]={} is not divisible by block_shape[{}]={}", d,
          padded, d, b);
    }
    *space = size;
    *batch_space = padded / b;
    return Status::Ok();
  }
  const int64_t cropped = size * b - start - end;
  if (cropped < 0) {
    return InvalidArgument("cropped_shape[{}]={} must be non-negative", d,
                           cropped);
  }
  *space = cropped;
  *batch_space = size;
  return Status::Ok();
}

// The ranks and shapes of block_shape and paddings/crops, and the product
// of the block sizes (each positive).
Status CheckBlockArgs(bool to_batch, const Tensor& input, const Tensor& block_t,
                      const Tensor& pads_t, int64_t* product) {
  const char* pads_name = to_batch ? "paddings" : "crops";
  if (block_t.dims() != 1) {
    return InvalidArgument("block_shape rank should be 1 instead of {}",
                           block_t.dims());
  }
  const int block_dims = static_cast<int>(block_t.dim_size(0));
  if (input.dims() < 1 + block_dims) {
    return InvalidArgument("input rank should be >= {} instead of {}",
                           1 + block_dims, input.dims());
  }
  if (pads_t.dims() != 2 || pads_t.dim_size(0) != block_dims ||
      pads_t.dim_size(1) != 2) {
    return InvalidArgument("{} should have shape [{}, 2] instead of {}",
                           pads_name, block_dims, pads_t.shape().DebugString());
  }
  const std::vector<int64_t> block = IntValues(block_t);
  *product = 1;
  for (int d = 0; d < block_dims; ++d) {
    // BatchToSpaceND only checks the product; a negative entry would make a
    // positive product meaningless, so both ops reject it.
    if (block[d] < 1) {
      return InvalidArgument(
          "All values in block_shape must be positive, got value, {} at "
          "index {}.",
          block[d], d);
    }
    if (__builtin_mul_overflow(*product, block[d], product)) {
      return InvalidArgument("Product of block sizes must be positive, got {}",
                             -1);
    }
  }
  const int64_t in_batch = input.dim_size(0);
  if (!to_batch && in_batch % *product != 0) {
    return InvalidArgument(
        "Input batch dimension ({}) is not divisible by product of block "
        "sizes ({})",
        in_batch, *product);
  }
  return Status::Ok();
}

// Validates block_shape and paddings/crops and computes the output shape,
// as SpaceToBatchOpCompute (to_batch) / BatchToSpaceOpCompute.
Status PlanBlocks(bool to_batch, const Tensor& input, const Tensor& block_t,
                  const Tensor& pads_t, BlockProblem* p) {
  int64_t product = 1;
  DFG_RETURN_IF_ERROR(
      CheckBlockArgs(to_batch, input, block_t, pads_t, &product));
  const int block_dims = static_cast<int>(block_t.dim_size(0));
  const std::vector<int64_t> block = IntValues(block_t);
  const std::vector<int64_t> pads = IntValues(pads_t);
  auto trivial = [&](int d) {
    return pads[2 * d] == 0 && pads[2 * d + 1] == 0 && block[d] == 1;
  };
  int prefix = 0;
  while (prefix < block_dims && trivial(prefix)) ++prefix;
  int suffix = 0;
  while (suffix < block_dims - prefix && trivial(block_dims - 1 - suffix)) {
    ++suffix;
  }
  const int64_t in_batch = input.dim_size(0);
  const int internal = block_dims - prefix - suffix;
  if (internal > kMaxBlockDims) {
    return InvalidArgument(
        "Maximum number of non-combined block dimensions is {} but must not "
        "exceed {}",
        internal, kMaxBlockDims);
  }
  if (internal == 0) {
    p->identity = true;
    return Status::Ok();
  }
  std::vector<int64_t> out_dims;
  if (to_batch) {
    int64_t out_batch = 0;
    if (__builtin_mul_overflow(in_batch, product, &out_batch)) {
      return InvalidArgument(
          "Negative output dimension size caused by overflow when multiplying "
          "{} and {}",
          in_batch, product);
    }
    out_dims.push_back(out_batch);
  } else {
    out_dims.push_back(in_batch / product);
  }
  // batch: the space-side batch (with the folded prefix dims).
  p->batch = to_batch ? in_batch : in_batch / product;
  for (int d = 0; d < prefix; ++d) {
    p->batch *= input.dim_size(d + 1);
    out_dims.push_back(input.dim_size(d + 1));
  }
  for (int d = prefix; d < block_dims - suffix; ++d) {
    const int64_t start = pads[2 * d], end = pads[2 * d + 1];
    const int64_t b = block[d];
    int64_t space = 0, batch_space = 0;
    DFG_RETURN_IF_ERROR(PlanBlockDim(to_batch, d, input.dim_size(d + 1), b,
                                     start, end, &space, &batch_space));
    p->block.push_back(b);
    p->pad_start.push_back(start);
    p->space.push_back(space);
    p->batch_space.push_back(batch_space);
    out_dims.push_back(to_batch ? batch_space : space);
  }
  for (int d = block_dims - suffix + 1; d < input.dims(); ++d) {
    p->depth *= input.dim_size(d);
    out_dims.push_back(input.dim_size(d));
  }
  if (!TensorShape::IsValid(out_dims)) {
    return InvalidArgument("Shape {} is too large", VectorString(out_dims));
  }
  p->out_shape = TensorShape(std::span<const int64_t>(out_dims));
  return Status::Ok();
}

// Walks the batch-side tensor in depth runs: batch-side entry (bb, pos...)
// maps to space-side (bb % batch, pos * block + offset - pad_start), where
// offset is bb / batch unflattened over the block dims; outside the space
// it is padding (zeros when moving to batch, dropped when moving back).
template <typename T>
void MoveSpaceBatch(ThreadPoolInterface* pool, bool to_batch,
                    const BlockProblem& p, const T* in, T* out) {
  const int k = static_cast<int>(p.block.size());
  int64_t positions = 1;
  for (int64_t s : p.batch_space) positions *= s;
  int64_t product = 1;
  for (int64_t b : p.block) product *= b;
  const int64_t runs = p.batch * product * positions;
  ParallelFor(pool, runs, p.depth + 8 * k, [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> pos(k), sp(k);
    for (int64_t r = r0; r < r1; ++r) {
      int64_t rest = r;
      for (int d = k - 1; d >= 0; --d) {
        pos[d] = rest % p.batch_space[d];
        rest /= p.batch_space[d];
      }
      const int64_t bb = rest;
      int64_t block_index = bb / p.batch;
      int64_t space_offset = bb % p.batch;
      bool inside = true;
      // Unflatten the block offset (last dim fastest) and locate the
      // space-side element, row-major over [batch, space...].
      for (int d = k - 1; d >= 0; --d) {
        const int64_t off = block_index % p.block[d];
        block_index /= p.block[d];
        sp[d] = pos[d] * p.block[d] + off - p.pad_start[d];
        if (sp[d] < 0 || sp[d] >= p.space[d]) inside = false;
      }
      for (int d = 0; d < k; ++d) {
        space_offset = space_offset * p.space[d] + sp[d];
      }
      if (to_batch) {
        T* dst = out + r * p.depth;
        if (inside) {
          std::copy(in + space_offset * p.depth,
                    in + (space_offset + 1) * p.depth, dst);
        } else {
          std::fill(dst, dst + p.depth, T());
        }
      } else if (inside) {
        std::copy(in + r * p.depth, in + (r + 1) * p.depth,
                  out + space_offset * p.depth);
      }
    }
  });
}

// Moves `input` between space and batch by `block` (an int32/int64 vector),
// padding or cropping by `pads`.
void RunSpaceBatch(OpKernelContext* ctx, bool to_batch, const Tensor& input,
                   const Tensor& block, const Tensor& pads) {
  BlockProblem p;
  DFG_OP_REQUIRES_OK(ctx, PlanBlocks(to_batch, input, block, pads, &p));
  if (p.identity) {
    ctx->set_output(0, input);
    return;
  }
  Tensor* out = nullptr;
  DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, p.out_shape, &out));
  if (out->NumElements() == 0) return;
  DispatchAny(input.dtype(), [&](auto v) {
    using T = decltype(v);
    MoveSpaceBatch(ctx->intra_op_pool(), to_batch, p,
                   static_cast<const T*>(input.data()),
                   static_cast<T*>(out->data()));
  });
}

template <bool kToBatch>
class SpaceBatchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    RunSpaceBatch(ctx, kToBatch, ctx->input(0), ctx->input(1), ctx->input(2));
  }
};

// SpaceToBatch and BatchToSpace: 4-D input, the block_size attr for both
// spatial dims (TensorFlow's kernels check the rank themselves, with their
// message as written).
template <bool kToBatch>
class SpaceBatch2DOp : public OpKernel {
 public:
  explicit SpaceBatch2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t block_size = 0;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("block_size", &block_size));
    DFG_OP_REQUIRES(
        ctx, block_size > 1,
        InvalidArgument("Block size should be > 1: {}", block_size));
    block_ = Tensor(tensorflow::DT_INT64, TensorShape({2}));
    block_.flat<int64_t>()[0] = block_size;
    block_.flat<int64_t>()[1] = block_size;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFG_OP_REQUIRES(
        ctx, input.dims() == 4,
        InvalidArgument("Input rank should be: 4instead of: {}", input.dims()));
    RunSpaceBatch(ctx, kToBatch, input, block_, ctx->input(1));
  }

 private:
  Tensor block_;
};

}  // namespace

void RegisterSpaceKernels(KernelRegistry* r) {
  r->Register<DepthToSpaceOp>("DepthToSpace",
                              {TypeConstraint("T", AllTypes())});
  r->Register<SpaceToDepthOp>("SpaceToDepth",
                              {TypeConstraint("T", SpaceTypes())});
  const auto index = TypeList<int32_t, int64_t>();
  r->Register<SpaceBatchOp<true>>(
      "SpaceToBatchND",
      {TypeConstraint("T", RealTypes()), TypeConstraint("Tblock_shape", index),
       TypeConstraint("Tpaddings", index)});
  r->Register<SpaceBatchOp<false>>(
      "BatchToSpaceND",
      {TypeConstraint("T", RealTypes()), TypeConstraint("Tblock_shape", index),
       TypeConstraint("Tcrops", index)});
  r->Register<SpaceBatch2DOp<true>>(
      "SpaceToBatch",
      {TypeConstraint("T", RealTypes()), TypeConstraint("Tpaddings", index)});
  r->Register<SpaceBatch2DOp<false>>(
      "BatchToSpace",
      {TypeConstraint("T", RealTypes()), TypeConstraint("Tidx", index)});
}

}  // namespace dfg
