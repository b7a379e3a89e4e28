// NonMaxSuppression (V1-V5), NonMaxSuppressionWithOverlaps and
// CombinedNonMaxSuppression, as TensorFlow's
// image/non_max_suppression_op: greedy selection from a max-heap of
// candidates, the previously selected boxes scanned backwards, optional
// soft-NMS (V5) with Gaussian re-weighting. Half inputs compute in float,
// rounded to half where TensorFlow's Eigen::half arithmetic rounds.
#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <queue>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// Intersection over union of boxes i and j (each [y1, x1, y2, x2], corners
// in either order); 0 when either box has no area.
float Iou(const float* boxes, int64_t i, int64_t j) {
  const float* a = boxes + 4 * i;
  const float* b = boxes + 4 * j;
  const float ymin_a = std::min(a[0], a[2]), xmin_a = std::min(a[1], a[3]);
  const float ymax_a = std::max(a[0], a[2]), xmax_a = std::max(a[1], a[3]);
  const float ymin_b = std::min(b[0], b[2]), xmin_b = std::min(b[1], b[3]);
  const float ymax_b = std::max(b[0], b[2]), xmax_b = std::max(b[1], b[3]);
  const float area_a = (ymax_a - ymin_a) * (xmax_a - xmin_a);
  const float area_b = (ymax_b - ymin_b) * (xmax_b - xmin_b);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float ih =
      std::max(std::min(ymax_a, ymax_b) - std::max(ymin_a, ymin_b), 0.0f);
  const float iw =
      std::max(std::min(xmax_a, xmax_b) - std::max(xmin_a, xmin_b), 0.0f);
  const float inter = ih * iw;
  return inter / (area_a + area_b - inter);
}

// A float scalar of any float dtype (the thresholds may be T_threshold).
// The NMS kernels below compute in float; for T = half they round where
// TensorFlow's Eigen::half arithmetic would.
float FloatScalar(const Tensor& t) {
  float v = 0;
  Dispatch(FloatTypes(), t.dtype(), [&](auto z) {
    using T = decltype(z);
    v = static_cast<float>(Load(t.flat<T>()[0]));
  });
  return v;
}

std::vector<float> FloatValues(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  Dispatch(FloatTypes(), t.dtype(), [&](auto z) {
    using T = decltype(z);
    auto f = t.flat<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(Load(f[i]));
  });
  return v;
}

Status CheckScalar(const Tensor& t, const char* name, bool with_rank) {
  if (t.dims() == 0) return Status();
  if (with_rank) {
    return InvalidArgument(
        "{} must be 0-D, got shape {} (Shape must be rank 0 "
        "but is rank {})",
        name, t.shape().DebugString(), t.dims());
  }
  return InvalidArgument("{} must be 0-D, got shape {}", name,
                         t.shape().DebugString());
}

Status CheckBoxesAndScores(const Tensor& boxes, const Tensor& scores) {
  if (boxes.dims() != 2) {
    return InvalidArgument(
        "boxes must be 2-D{} (Shape must be rank 2 but is rank {})",
        boxes.shape().DebugString(), boxes.dims());
  }
  if (boxes.dim_size(1) != 4) {
    return InvalidArgument(
        "boxes must have 4 columns (Dimension must be 4 but is {})",
        boxes.dim_size(1));
  }
  if (scores.dims() != 1) {
    return InvalidArgument(
        "scores must be 1-D{} (Shape must be rank 1 but is rank {})",
        scores.shape().DebugString(), scores.dims());
  }
  if (scores.dim_size(0) != boxes.dim_size(0)) {
    return InvalidArgument(
        "scores has incompatible shape (Dimensions must be equal, but are {} "
        "and {})",
        boxes.dim_size(0), scores.dim_size(0));
  }
  return Status();
}

struct NmsResult {
  std::vector<int32_t> selected;
  std::vector<float> scores;
};

// The greedy (soft-)NMS loop. Candidates: score > score_threshold, popped
// by score, ties to the lower index; similarity(i, j) is the IoU of boxes i
// and j (or the given overlap).
// With `half`, each step rounds to half as TensorFlow's Eigen::half kernel.
NmsResult GreedyNms(const std::function<float(int64_t, int64_t)>& similarity,
                    const std::vector<float>& scores, int64_t output_size,
                    float iou_threshold, float score_threshold, float sigma,
                    bool half) {
  auto h = [half](float x) { return half ? HalfToFloat(FloatToHalf(x)) : x; };
  struct Candidate {
    int32_t index;
    float score;
    int64_t suppress_begin;
  };
  auto cmp = [](const Candidate& a, const Candidate& b) {
    return (a.score == b.score && a.index > b.index) || a.score < b.score;
  };
  std::priority_queue<Candidate, std::deque<Candidate>, decltype(cmp)> queue(
      cmp);
  for (size_t i = 0; i < scores.size(); ++i) {
    if (scores[i] > score_threshold) {
      queue.push({static_cast<int32_t>(i), scores[i], 0});
    }
  }
  const bool soft = sigma > 0.0f;
  const float scale = soft ? h(-0.5f / sigma) : 0.0f;
  NmsResult r;
  while (static_cast<int64_t>(r.selected.size()) < output_size &&
         !queue.empty()) {
    Candidate c = queue.top();
    const float original = c.score;
    queue.pop();
    bool hard_suppressed = false;
    for (int64_t j = static_cast<int64_t>(r.selected.size()) - 1;
         j >= c.suppress_begin; --j) {
      const float sim = h(similarity(c.index, r.selected[j]));
      const float weight = h(std::exp(h(h(scale * sim) * sim)));
      c.score = h(c.score * ((soft || sim <= iou_threshold) ? weight : 0.0f));
      if (!soft && sim > iou_threshold) {
        hard_suppressed = true;
        break;
      }
      if (c.score <= score_threshold) break;
    }
    c.suppress_begin = static_cast<int64_t>(r.selected.size());
    if (hard_suppressed) continue;
    if (c.score == original) {
      r.selected.push_back(c.index);
      r.scores.push_back(c.score);
    } else if (c.score > score_threshold) {
      queue.push(c);
    }
  }
  return r;
}

class NonMaxSuppressionOp : public OpKernel {
 public:
  explicit NonMaxSuppressionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const std::string& op = ctx->def().op();
    version_ = op == "NonMaxSuppression" ? 1 : op.back() - '0';
    if (version_ >= 4) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_to_max_output_size", &pad_));
    }
    if (version_ == 1) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("iou_threshold", &iou_attr_));
      DFG_OP_REQUIRES(ctx, iou_attr_ >= 0.0f && iou_attr_ <= 1.0f,
                      InvalidArgument("iou_threshold must be in [0, 1]"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const Tensor& max_output = ctx->input(2);
    // TensorFlow casts the thresholds to T (half rounds them).
    const bool half = boxes.dtype() == tensorflow::DT_HALF;
    auto h = [half](float x) { return half ? HalfToFloat(FloatToHalf(x)) : x; };
    DFG_OP_REQUIRES_OK(
        ctx, CheckScalar(max_output, "max_output_size", version_ == 3));
    float iou = iou_attr_;
    if (version_ >= 2) {
      DFG_OP_REQUIRES_OK(
          ctx, CheckScalar(ctx->input(3), "iou_threshold", version_ == 3));
      iou = h(FloatScalar(ctx->input(3)));
      DFG_OP_REQUIRES(ctx, iou >= 0.0f && iou <= 1.0f,
                      InvalidArgument("iou_threshold must be in [0, 1]"));
    }
    // V1 and V2 have no score threshold: every box is a candidate.
    float score_threshold = std::numeric_limits<float>::lowest();
    if (version_ >= 3) {
      DFG_OP_REQUIRES_OK(ctx,
                         CheckScalar(ctx->input(4), "score_threshold", false));
      score_threshold = h(FloatScalar(ctx->input(4)));
    }
    float sigma = 0.0f;
    if (version_ == 5) {
      DFG_OP_REQUIRES_OK(ctx,
                         CheckScalar(ctx->input(5), "soft_nms_sigma", false));
      sigma = h(FloatScalar(ctx->input(5)));
      DFG_OP_REQUIRES(ctx, sigma >= 0.0f,
                      InvalidArgument("soft_nms_sigma_val must be >= 0"));
    }
    DFG_OP_REQUIRES_OK(ctx, CheckBoxesAndScores(boxes, scores));
    const int32_t output_size = max_output.flat<int32_t>()[0];
    DFG_OP_REQUIRES(ctx, output_size >= 0,
                    InvalidArgument("output size must be non-negative"));
    const std::vector<float> box_values = FloatValues(boxes);
    NmsResult r = GreedyNms(
        [&](int64_t i, int64_t j) { return Iou(box_values.data(), i, j); },
        FloatValues(scores), output_size, iou, score_threshold, sigma, half);
    const int32_t valid = static_cast<int32_t>(r.selected.size());
    // Padding fills with zeros; the tensors are allocated first so that a
    // huge max_output_size fails as an allocation error.
    const TensorShape shape({pad_ ? output_size : valid});
    Tensor* indices = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &indices));
    auto idx = indices->flat<int32_t>();
    std::fill(std::copy(r.selected.begin(), r.selected.end(), idx.begin()),
              idx.end(), 0);
    if (version_ == 5) {
      Tensor* out_scores = nullptr;
      DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &out_scores));
      Dispatch(FloatTypes(), out_scores->dtype(), [&](auto z) {
        using T = decltype(z);
        auto f = out_scores->flat<T>();
        for (size_t i = 0; i < f.size(); ++i) {
          f[i] = Store<T>(i < r.scores.size() ? r.scores[i] : 0.0f);
        }
      });
    }
    if (version_ >= 4) {
      ctx->set_output(version_ == 5 ? 2 : 1, Tensor::Scalar<int32_t>(valid));
    }
  }

 private:
  int version_ = 3;
  bool pad_ = false;
  float iou_attr_ = 0.5f;  // V1's iou_threshold attr
};

// NonMaxSuppressionWithOverlaps: hard NMS where the similarity of boxes i
// and j is overlaps[i, j].
class NonMaxSuppressionWithOverlapsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& overlaps = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const Tensor& max_output = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, CheckScalar(max_output, "max_output_size", false));
    DFG_OP_REQUIRES_OK(ctx,
                       CheckScalar(ctx->input(3), "overlap_threshold", false));
    DFG_OP_REQUIRES_OK(ctx,
                       CheckScalar(ctx->input(4), "score_threshold", false));
    DFG_OP_REQUIRES(ctx, overlaps.dims() == 2,
                    InvalidArgument("overlaps must be 2-D{}",
                                    overlaps.shape().DebugString()));
    const int64_t n = overlaps.dim_size(0);
    DFG_OP_REQUIRES(ctx, overlaps.dim_size(1) == n,
                    InvalidArgument("overlaps must be square{}",
                                    overlaps.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, scores.dims() == 1,
        InvalidArgument("scores must be 1-D{}", scores.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, scores.dim_size(0) == n,
                    InvalidArgument("scores has incompatible shape"));
    const int32_t output_size = max_output.flat<int32_t>()[0];
    DFG_OP_REQUIRES(ctx, output_size >= 0,
                    InvalidArgument("output size must be non-negative"));
    const float* ov = overlaps.flat<float>().data();
    NmsResult r = GreedyNms([&](int64_t i, int64_t j) { return ov[i * n + j]; },
                            FloatValues(scores), output_size,
                            ctx->input(3).flat<float>()[0],
                            ctx->input(4).flat<float>()[0], 0.0f, false);
    Tensor* indices = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({static_cast<int64_t>(r.selected.size())}),
                 &indices));
    std::copy(r.selected.begin(), r.selected.end(),
              indices->flat<int32_t>().begin());
  }
};

// One selected box of CombinedNonMaxSuppression.
struct ResultCandidate {
  int box_index = -1;
  float score = -std::numeric_limits<float>::infinity();
  int class_idx = -1;
  float box[4] = {0, 0, 0, 0};
};

struct CombinedDims {
  int64_t batches, num_boxes, q, num_classes;
  int64_t size_per_class;
};

// Hard NMS of one class of one batch; fills result[size_per_class * class
// + k] for its k-th selection.
void NmsPerClass(const CombinedDims& d, int64_t class_idx, const float* boxes,
                 const float* scores, float score_threshold,
                 float iou_threshold, std::vector<ResultCandidate>* result) {
  struct Candidate {
    int index;
    float score;
  };
  auto cmp = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score;
  };
  // Ties pop in std::priority_queue's heap order, as in TensorFlow.
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(cmp)> queue(
      cmp);
  for (int64_t i = 0; i < d.num_boxes; ++i) {
    const float s = scores[i * d.num_classes + class_idx];
    if (s > score_threshold) queue.push({static_cast<int>(i), s});
  }
  const int64_t box_class = d.q > 1 ? class_idx : 0;
  std::vector<int64_t> selected;  // box row offsets (in boxes of 4)
  while (static_cast<int64_t>(selected.size()) < d.size_per_class &&
         !queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    const int64_t row = c.index * d.q + box_class;
    bool keep = true;
    for (int64_t j = static_cast<int64_t>(selected.size()) - 1; j >= 0; --j) {
      if (Iou(boxes, row, selected[j]) > iou_threshold) {
        keep = false;
        break;
      }
    }
    if (!keep) continue;
    ResultCandidate& rc =
        (*result)[selected.size() + d.size_per_class * class_idx];
    rc.box_index = c.index;
    rc.score = c.score;
    rc.class_idx = static_cast<int>(class_idx);
    std::copy(boxes + 4 * row, boxes + 4 * row + 4, rc.box);
    selected.push_back(row);
  }
}

class CombinedNonMaxSuppressionOp : public OpKernel {
 public:
  explicit CombinedNonMaxSuppressionOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_per_class", &pad_per_class_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("clip_boxes", &clip_boxes_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, CheckInputs(boxes, scores));
    for (int i = 2; i < 6; ++i) {
      static const char* const kNames[] = {"max_size_per_class",
                                           "max_total_size", "iou_threshold",
                                           "score_threshold"};
      DFG_OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(i), kNames[i - 2], false));
      if (i == 2) {
        DFG_OP_REQUIRES(ctx, ctx->input(2).flat<int32_t>()[0] > 0,
                        InvalidArgument("max_size_per_class must be positive"));
      }
      if (i == 3) {
        DFG_OP_REQUIRES(ctx, ctx->input(3).flat<int32_t>()[0] > 0,
                        InvalidArgument("max_total_size must be > 0"));
      }
    }
    const int64_t max_per_class = ctx->input(2).flat<int32_t>()[0];
    const int64_t total_per_batch = ctx->input(3).flat<int32_t>()[0];
    const float iou = ctx->input(4).flat<float>()[0];
    const float score_threshold = ctx->input(5).flat<float>()[0];
    DFG_OP_REQUIRES(ctx, iou >= 0 && iou <= 1,
                    InvalidArgument("iou_threshold must be in [0, 1]"));
    CombinedDims d{boxes.dim_size(0), boxes.dim_size(1), boxes.dim_size(2),
                   scores.dim_size(2), 0};
    d.size_per_class = std::min(max_per_class, d.num_boxes);
    const int64_t slots = d.size_per_class * d.num_classes;
    DFG_OP_REQUIRES(
        ctx, slots <= std::numeric_limits<int>::max(),
        InvalidArgument("size_per_class * num_classes causes overflow"));
    int64_t per_batch = total_per_batch;
    const int64_t max_total = std::min<int64_t>(std::numeric_limits<int>::max(),
                                                max_per_class * d.num_classes);
    if (pad_per_class_) per_batch = std::min(total_per_batch, max_total);

    Tensor *out_boxes, *out_scores, *out_classes, *out_valid;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({d.batches, per_batch, 4}),
                                  &out_boxes));
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({d.batches, per_batch}),
                                  &out_scores));
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(2, TensorShape({d.batches, per_batch}),
                                  &out_classes));
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(3, TensorShape({d.batches}), &out_valid));
    for (Tensor* t : {out_boxes, out_scores, out_classes}) {
      std::fill(t->flat<float>().begin(), t->flat<float>().end(), 0.0f);
    }
    for (int64_t b = 0; b < d.batches; ++b) {
      SelectBatch(d, boxes.flat<float>().data() + b * d.num_boxes * d.q * 4,
                  scores.flat<float>().data() + b * d.num_boxes * d.num_classes,
                  score_threshold, iou, per_batch,
                  out_boxes->flat<float>().data() + b * per_batch * 4,
                  out_scores->flat<float>().data() + b * per_batch,
                  out_classes->flat<float>().data() + b * per_batch,
                  &out_valid->flat<int32_t>()[b]);
    }
  }

 private:
  // NMS per class of one batch, then its best `per_batch` over all classes.
  void SelectBatch(const CombinedDims& d, const float* boxes,
                   const float* scores, float score_threshold, float iou,
                   int64_t per_batch, float* out_boxes, float* out_scores,
                   float* out_classes, int32_t* valid) const {
    std::vector<ResultCandidate> result(d.size_per_class * d.num_classes);
    for (int64_t c = 0; c < d.num_classes; ++c) {
      NmsPerClass(d, c, boxes, scores, score_threshold, iou, &result);
    }
    // std::sort (not stable) as in TensorFlow, so equal scores come out in
    // the same order.
    std::sort(result.begin(), result.end(),
              [](const ResultCandidate& x, const ResultCandidate& y) {
                return y.score < x.score;
              });
    const int64_t found = std::count_if(
        result.begin(), result.end(),
        [](const ResultCandidate& r) { return r.box_index > -1; });
    const int64_t n = std::min(found, per_batch);
    *valid = static_cast<int32_t>(n);
    for (int64_t k = 0; k < n; ++k) {
      for (int i = 0; i < 4; ++i) {
        const float v = result[k].box[i];
        out_boxes[4 * k + i] =
            clip_boxes_ ? std::max(std::min(v, 1.0f), 0.0f) : v;
      }
      out_scores[k] = result[k].score;
      out_classes[k] = static_cast<float>(result[k].class_idx);
    }
  }

  static Status CheckInputs(const Tensor& boxes, const Tensor& scores) {
    if (boxes.dims() != 4) {
      return InvalidArgument(
          "boxes must be 4-D [batch, num_boxes, q, 4], got shape {}",
          boxes.shape().DebugString());
    }
    if (scores.dims() != 3) {
      return InvalidArgument(
          "scores must be 3-D [batch, num_boxes, num_classes], got shape {}",
          scores.shape().DebugString());
    }
    if (boxes.dim_size(2) != 1 && boxes.dim_size(2) != scores.dim_size(2)) {
      return InvalidArgument(
          "third dimension of boxes must be either 1 or num classes");
    }
    if (boxes.dim_size(3) != 4) {
      return InvalidArgument("boxes must have 4 columns");
    }
    if (scores.dim_size(1) != boxes.dim_size(1)) {
      return InvalidArgument("scores has incompatible shape");
    }
    if (boxes.dim_size(0) != scores.dim_size(0)) {
      return InvalidArgument("boxes and scores must have same batch size");
    }
    return Status();
  }

  bool pad_per_class_ = false, clip_boxes_ = true;
};

}  // namespace

void RegisterNmsKernels(KernelRegistry* r) {
  const auto t = TypeConstraint("T", TypeList<float, Half>());
  r->Register<NonMaxSuppressionOp>("NonMaxSuppression");
  r->Register<NonMaxSuppressionOp>("NonMaxSuppressionV2", {t});
  r->Register<NonMaxSuppressionWithOverlapsOp>("NonMaxSuppressionWithOverlaps");
  r->Register<NonMaxSuppressionOp>("NonMaxSuppressionV3", {t});
  r->Register<NonMaxSuppressionOp>("NonMaxSuppressionV4", {t});
  r->Register<NonMaxSuppressionOp>("NonMaxSuppressionV5", {t});
  r->Register<CombinedNonMaxSuppressionOp>("CombinedNonMaxSuppression");
}

}  // namespace dfg
