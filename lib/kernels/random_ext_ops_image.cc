// The random image-crop ops: SampleDistortedBoundingBox (V1 with the
// min_object_covered attr, V2 with it as an input), its stateless form, and
// the deprecated RandomCrop, as TensorFlow's CPU kernels
// (sample_distorted_bounding_box_op.cc, random_crop_op.cc) draw them from
// 32-bit Philox draws read one at a time (SimplePhilox): per attempt an
// aspect ratio, a height in [min, max] and the crop's offsets, until a crop
// covers enough of one of the given boxes (else the whole image).
#include <cmath>
#include <limits>

#include "lib/kernels/random_ext_ops.h"
#include "lib/kernels/random_fill.h"

namespace dfg {
namespace {

// The 32-bit draws and the integers in [0, n) of TensorFlow's SimplePhilox.
class Draws {
 public:
  explicit Draws(Philox4x32* gen) : single_(gen) {}  // Not owned.
  uint32_t Rand32() { return single_(); }
  float RandFloat() { return Uint32ToUnitFloat(single_()); }
  uint32_t Uniform(uint32_t n) {
    if (n == 0) return Rand32() * n;
    if ((n & (n - 1)) == 0) return Rand32() & (n - 1);
    const uint32_t rem = (std::numeric_limits<uint32_t>::max() % n) + 1;
    uint32_t r;
    do {
      r = Rand32();
    } while (r < rem);
    return r % n;
  }

 private:
  SingleSampleAdapter single_;
};

struct Rect {
  int min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  float Area() const {
    return static_cast<float>((max_x - min_x) * (max_y - min_y));
  }
  Rect Intersect(const Rect& r) const {
    Rect o{std::max(min_x, r.min_x), std::max(min_y, r.min_y),
           std::min(max_x, r.max_x), std::min(max_y, r.max_y)};
    if (o.min_x > o.max_x || o.min_y > o.max_y) return Rect();
    return o;
  }
};

bool Covers(const Rect& crop, float min_covered,
            const std::vector<Rect>& boxes) {
  if (crop.Area() < 1.0f) return false;
  for (const Rect& b : boxes) {
    const float area = b.Area();
    if (area < 1.0f) continue;
    if (crop.Intersect(b).Area() / area >= min_covered) return true;
  }
  return false;
}

int Round(float v) { return static_cast<int>(lrintf(v)); }

// TensorFlow's GenerateRandomCrop.
bool RandomCrop(int width, int height, float min_rel, float max_rel,
                float aspect, Draws* rnd, Rect* crop) {
  if (max_rel <= 0.0 || aspect <= 0.0 || width <= 0 || height <= 0 ||
      min_rel > max_rel) {
    return false;
  }
  const float min_area = min_rel * width * height;
  const float max_area = max_rel * width * height;
  int h = Round(std::sqrt(min_area / aspect));
  int max_h = Round(std::sqrt(max_area / aspect));
  if (Round(max_h * aspect) > width) {
    const float kEps = 0.0000001;
    max_h = static_cast<int>((width + 0.5 - kEps) / aspect);
    if (Round(max_h * aspect) > width) max_h -= 1;
  }
  if (max_h > height) max_h = height;
  if (h >= max_h) h = max_h;
  if (h < max_h) h += rnd->Uniform(max_h - h + 1);
  int w = Round(h * aspect);
  float area = static_cast<float>(w * h);
  if (area < min_area) {
    h += 1;
    w = Round(h * aspect);
    area = w * h;
  }
  if (area > max_area) {
    h -= 1;
    w = Round(h * aspect);
    area = w * h;
  }
  if (area < min_area || area > max_area || w > width || h > height || w <= 0 ||
      h <= 0) {
    return false;
  }
  const int y = h < height ? rnd->Uniform(height - h) : 0;
  const int x = w < width ? rnd->Uniform(width - w) : 0;
  *crop = Rect{x, y, x + w, y + h};
  return true;
}

Status FloatList(OpKernelConstruction* ctx, const char* name,
                 std::vector<float>* v) {
  auto it = ctx->def().attr().find(name);
  if (it == ctx->def().attr().end()) {
    return NotFound("No attr named '{}' in NodeDef:", name);
  }
  v->assign(it->second.list().f().begin(), it->second.list().f().end());
  return Status::Ok();
}

using BoxIntTypes = TypeList<uint8_t, int8_t, uint16_t, int16_t, int32_t,
                             int64_t, uint32_t, uint64_t>;

class SampleBoxOp : public OpKernel {
 public:
  explicit SampleBoxOp(OpKernelConstruction* ctx);
  void Compute(OpKernelContext* ctx) override;

 private:
  Status Inputs(OpKernelContext* ctx, int* width, int* height, float* covered,
                std::vector<Rect>* boxes);

  bool stateless_ = false;
  int64_t max_attempts_ = 0;
  std::vector<float> area_range_, aspect_range_;
  float min_covered_ = 0;
  bool use_image_ = false;
  SeededPhilox generator_;
};

SampleBoxOp::SampleBoxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
  stateless_ = def().op() == "StatelessSampleDistortedBoundingBox";
  if (def().op() == "SampleDistortedBoundingBox") {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("min_object_covered", &min_covered_));
    DFG_OP_REQUIRES(
        ctx, min_covered_ >= 0,
        InvalidArgument("Min object covered must be non-negative: {}",
                        min_covered_));
  }
  DFG_OP_REQUIRES_OK(
      ctx, ctx->GetAttr("use_image_if_no_bounding_boxes", &use_image_));
  DFG_OP_REQUIRES_OK(ctx, FloatList(ctx, "aspect_ratio_range", &aspect_range_));
  DFG_OP_REQUIRES(
      ctx, aspect_range_.size() == 2,
      InvalidArgument("Aspect ratio range field must specify 2 dimensions"));
  DFG_OP_REQUIRES(ctx, aspect_range_[0] > 0 && aspect_range_[1] > 0,
                  InvalidArgument("Aspect ratio range must be non-negative: "
                                  "[{}, {}]",
                                  aspect_range_[0], aspect_range_[1]));
  DFG_OP_REQUIRES_OK(ctx, FloatList(ctx, "area_range", &area_range_));
  DFG_OP_REQUIRES(
      ctx, area_range_.size() == 2,
      InvalidArgument("Area range field must specify 2 dimensions"));
  DFG_OP_REQUIRES(ctx, area_range_[0] > 0 && area_range_[1] > 0,
                  InvalidArgument("Area range must be non-negative: [{}, {}]",
                                  area_range_[0], area_range_[1]));
  DFG_OP_REQUIRES(ctx, area_range_[0] <= 1 && area_range_[1] <= 1,
                  InvalidArgument("Area range must be less then or equal to "
                                  "1.0: [{}, {}]",
                                  area_range_[0], area_range_[1]));
  DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("max_attempts", &max_attempts_));
  DFG_OP_REQUIRES(
      ctx, max_attempts_ > 0,
      InvalidArgument("Max attempts must be non-negative: {}", max_attempts_));
  if (!stateless_) DFG_OP_REQUIRES_OK(ctx, generator_.Init(ctx));
}

Status SampleBoxOp::Inputs(OpKernelContext* ctx, int* width, int* height,
                           float* covered, std::vector<Rect>* boxes) {
  const Tensor& size = ctx->input(0);
  if (size.dims() != 1) {
    return InvalidArgument("image_size must be 1-dimensional{}",
                           size.shape().DebugString());
  }
  if (size.dim_size(0) != 3) {
    return InvalidArgument("image_size must contain 3 elements{}",
                           size.shape().DebugString());
  }
  uint64_t h = 0, w = 0;
  Dispatch(BoxIntTypes(), size.dtype(), [&](auto v) {
    using T = decltype(v);
    h = static_cast<uint64_t>(size.flat<T>()[0]);
    w = static_cast<uint64_t>(size.flat<T>()[1]);
  });
  constexpr uint64_t kMax = std::numeric_limits<int32_t>::max();
  if (h >= kMax) return InvalidArgument("image height cannot be >= int32 max");
  if (w >= kMax) return InvalidArgument("image width cannot be >= int32 max");
  *height = static_cast<int>(h);
  *width = static_cast<int>(w);
  const Tensor& in = ctx->input(1);
  if (in.dims() != 3) {
    return InvalidArgument(
        "input boxes must be 3-dimensional [batch, num_boxes, coords]: {}",
        in.shape().DebugString());
  }
  if (in.dim_size(2) != 4) {
    return InvalidArgument(
        "bounding boxes must have shape [4] or [*, 4], got {}",
        in.shape().DebugString());
  }
  *covered = min_covered_;
  if (ctx->num_inputs() >= 3) {
    const Tensor& c = ctx->input(2);
    if (c.dims() != 0) {
      return InvalidArgument("min_object_covered must be 0-D, got shape {}",
                             c.shape().DebugString());
    }
    *covered = c.scalar<float>();
    if (!(*covered >= 0)) {
      return InvalidArgument("Min object covered must be non-negative: {}",
                             *covered);
    }
  }
  const float* b = in.flat<float>().data();
  for (int64_t i = 0; i < in.NumElements() / 4; ++i, b += 4) {
    for (int j = 0; j < 4; ++j) {
      if (!(b[j] >= 0.0f && b[j] <= 1.0f)) {
        return InvalidArgument(
            "All bounding box coordinates must be in [0.0, 1.0]: {}", b[j]);
      }
    }
    boxes->push_back(Rect{static_cast<int32_t>(b[1] * *width),
                          static_cast<int32_t>(b[0] * *height),
                          static_cast<int32_t>(b[3] * *width),
                          static_cast<int32_t>(b[2] * *height)});
  }
  if (boxes->empty()) {
    if (!use_image_) {
      return InvalidArgument(
          "No bounding boxes provided as input. One must enable "
          "use_image_if_no_bounding_boxes if you wish to not provide any "
          "bounding boxes.");
    }
    boxes->push_back(Rect{0, 0, *width, *height});
  }
  return Status::Ok();
}

void SampleBoxOp::Compute(OpKernelContext* ctx) {
  Philox4x32 gen(0, 0);
  if (stateless_) {
    const Tensor& seed = ctx->input(3);
    DFG_OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                    InvalidArgument("seed must have shape [2], not {}",
                                    seed.shape().DebugString()));
    DFG_OP_REQUIRES_OK(ctx, PhiloxFromSeed(seed, &gen));
  } else {
    // 4 draws per attempt, reserved in whole blocks.
    gen = generator_.Reserve(static_cast<uint64_t>(4 * max_attempts_ + 3) / 4);
  }
  int width = 0, height = 0;
  float covered = 0;
  std::vector<Rect> boxes;
  DFG_OP_REQUIRES_OK(ctx, Inputs(ctx, &width, &height, &covered, &boxes));
  Draws rnd(&gen);
  Rect crop;
  bool found = false;
  for (int64_t i = 0; i < max_attempts_ && !found; ++i) {
    const float aspect =
        rnd.RandFloat() * (aspect_range_[1] - aspect_range_[0]) +
        aspect_range_[0];
    found = RandomCrop(width, height, area_range_[0], area_range_[1], aspect,
                       &rnd, &crop) &&
            Covers(crop, covered, boxes);
  }
  if (!found) crop = Rect{0, 0, width, height};
  Tensor begin(ctx->input(0).dtype(), TensorShape({3}));
  Tensor size(ctx->input(0).dtype(), TensorShape({3}));
  Dispatch(BoxIntTypes(), begin.dtype(), [&](auto v) {
    using T = decltype(v);
    T* b = begin.flat<T>().data();
    T* s = size.flat<T>().data();
    b[0] = static_cast<T>(crop.min_y);
    s[0] = static_cast<T>(crop.max_y - crop.min_y);
    b[1] = static_cast<T>(crop.min_x);
    s[1] = static_cast<T>(crop.max_x - crop.min_x);
    b[2] = T(0);
    s[2] = static_cast<T>(-1);
  });
  Tensor bbox(tensorflow::DT_FLOAT, TensorShape({1, 1, 4}));
  float* o = bbox.flat<float>().data();
  o[0] = static_cast<float>(crop.min_y) / static_cast<float>(height);
  o[1] = static_cast<float>(crop.min_x) / static_cast<float>(width);
  o[2] = static_cast<float>(crop.max_y) / static_cast<float>(height);
  o[3] = static_cast<float>(crop.max_x) / static_cast<float>(width);
  ctx->set_output(0, std::move(begin));
  ctx->set_output(1, std::move(size));
  ctx->set_output(2, std::move(bbox));
}

// RandomCrop(image [h, w, c], size [2] int64): a random [size, c] window.
class RandomCropOp : public OpKernel {
 public:
  explicit RandomCropOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 3,
                    InvalidArgument("input must be 3-dimensional{}",
                                    in.shape().DebugString()));
    const Tensor& size = ctx->input(1);
    DFG_OP_REQUIRES(ctx, size.dims() == 1,
                    InvalidArgument("shape_t must be 1-dimensional{}",
                                    size.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, size.NumElements() == 2,
                    InvalidArgument("shape_t must have two elements{}",
                                    size.shape().DebugString()));
    const int32_t th = static_cast<int32_t>(size.flat<int64_t>()[0]);
    const int32_t tw = static_cast<int32_t>(size.flat<int64_t>()[1]);
    const int32_t h = static_cast<int32_t>(in.dim_size(0));
    const int32_t w = static_cast<int32_t>(in.dim_size(1));
    const int32_t c = static_cast<int32_t>(in.dim_size(2));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({th, tw, c}), &out));
    DFG_OP_REQUIRES(ctx, w >= tw,
                    FailedPrecondition("width must be >= target_width: width "
                                       "= {}, target_width = {}",
                                       w, tw));
    DFG_OP_REQUIRES(ctx, h >= th,
                    FailedPrecondition("height must be >= target_height: "
                                       "height = {}, target_height = {}",
                                       h, th));
    Philox4x32 gen = generator_.Reserve(1);
    Draws rnd(&gen);
    int32_t off_w = 0, off_h = 0;
    if (w > tw) off_w = rnd.Rand32() % (w - tw + 1);
    if (h > th) off_h = rnd.Rand32() % (h - th + 1);
    for (int32_t y = 0; y < th; ++y) {
      CopyElements(in, ((y + off_h) * int64_t{w} + off_w) * c, out,
                   y * int64_t{tw} * c, int64_t{tw} * c);
    }
  }

 private:
  SeededPhilox generator_;
};

}  // namespace

void RegisterRandomExtImageKernels(KernelRegistry* r) {
  for (const char* op :
       {"SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2",
        "StatelessSampleDistortedBoundingBox"}) {
    r->Register<SampleBoxOp>(op, {TypeConstraint("T", BoxIntTypes())});
  }
  r->Register<RandomCropOp>(
      "RandomCrop",
      {TypeConstraint("T", TypeList<uint8_t, int8_t, int16_t, int32_t, int64_t,
                                    float, double>())});
}

}  // namespace dfg
