// CTCBeamSearchDecoder: TensorFlow's CTC prefix beam search with its
// default scorer (ctc_beam_search.h): each step takes the log-softmax of
// the logits, updates every beam's blank / non-blank log probabilities, then
// grows children of the beams that can still enter the beam. The beam keeps
// the beam_width best prefixes by total probability; a prefix pushed out
// is forgotten (its probabilities reset). Computed in T; only the log-space
// sums' correction term is a float (ctc_ops.h), as in TensorFlow.
#include <algorithm>
#include <map>
#include <memory>

#include "lib/kernels/ctc_ops.h"
#include "lib/kernels/cwise_ops.h"

namespace dfg {

Status ValidateCtcDecoderInputs(const Tensor& inputs, const Tensor& seq_len);
Status StoreCtcDecoded(OpKernelContext* ctx,
                       const std::vector<std::vector<std::vector<int>>>& seqs,
                       int top);

namespace {

using ctc::LogSumExp;
using ctc::LogZero;

template <typename T>
struct BeamProb {
  T total = LogZero<T>(), blank = LogZero<T>(), label = LogZero<T>();
  void Reset() { *this = BeamProb(); }
};

template <typename T>
struct Entry {
  Entry* parent = nullptr;
  int label = -1;
  std::map<int, Entry*> children;
  BeamProb<T> oldp, newp;
  bool Active() const { return newp.total != LogZero<T>(); }
};

// One batch entry's search: the prefix tree and the beam (at most `width`
// entries, TensorFlow's gtl::TopN by newp.total).
template <typename T>
class BeamSearch {
 public:
  BeamSearch(int classes, int width) : classes_(classes), width_(width) {
    Entry<T>* root = NewEntry(nullptr, -1);
    root->newp.total = 0;
    root->newp.blank = 0;
    leaves_.push_back(root);
  }

  void Step(const T* raw) {
    // The log-softmax shift.
    const T max_coeff = *std::max_element(raw, raw + classes_);
    T sum = 0;
    for (int j = 0; j < classes_; ++j) sum += std::exp(raw[j] - max_coeff);
    const T norm = max_coeff + std::log(sum);
    const int blank = classes_ - 1;
    std::vector<Entry<T>*> branches = Sorted();
    leaves_.clear();
    for (Entry<T>* b : branches) b->oldp = b->newp;
    for (Entry<T>* b : branches) {
      if (b->parent != nullptr) {
        if (b->parent->Active()) {
          const T previous = b->label == b->parent->label
                                 ? b->parent->oldp.blank
                                 : b->parent->oldp.total;
          b->newp.label = LogSumExp(b->newp.label, previous);
        }
        b->newp.label += raw[b->label] - norm;
      }
      b->newp.blank = b->oldp.total + raw[blank] - norm;
      b->newp.total = LogSumExp(b->newp.blank, b->newp.label);
      Push(b);
    }
    for (Entry<T>* b : branches) {
      if (!Candidate(b->oldp)) continue;
      for (int label = 0; label < blank; ++label) {
        const T logit = raw[label];
        Entry<T>* c = Child(b, label);
        if (c->Active()) continue;
        c->newp.blank = LogZero<T>();
        const T previous = c->label == b->label ? b->oldp.blank : b->oldp.total;
        c->newp.label = logit - norm + previous;
        c->newp.total = c->newp.label;
        if (Candidate(c->newp)) {
          if (static_cast<int>(leaves_.size()) == width_) {
            Bottom()->newp.Reset();
          }
          Push(c);
        } else {
          c->oldp.Reset();
          c->newp.Reset();
        }
      }
    }
  }

  // The best n prefixes (labels, merged repeats if asked) and their totals.
  Status TopPaths(int n, bool merge_repeated,
                  std::vector<std::vector<int>>* paths,
                  std::vector<T>* log_probs) const {
    if (n > width_) {
      return InvalidArgument("requested more paths than the beam width.");
    }
    if (n > static_cast<int>(leaves_.size())) {
      return InvalidArgument("Less leaves in the beam search than requested.");
    }
    const std::vector<Entry<T>*> best = Sorted();
    for (int i = 0; i < n; ++i) {
      std::vector<int> labels;
      int prev = -1;
      for (const Entry<T>* e = best[i]; e->parent != nullptr; e = e->parent) {
        if (!merge_repeated || e->label != prev) labels.push_back(e->label);
        prev = e->label;
      }
      std::reverse(labels.begin(), labels.end());
      paths->push_back(std::move(labels));
      log_probs->push_back(best[i]->newp.total);
    }
    return Status::Ok();
  }

 private:
  Entry<T>* NewEntry(Entry<T>* parent, int label) {
    entries_.push_back(std::make_unique<Entry<T>>());
    entries_.back()->parent = parent;
    entries_.back()->label = label;
    return entries_.back().get();
  }
  Entry<T>* Child(Entry<T>* b, int label) {
    auto [it, added] = b->children.emplace(label, nullptr);
    if (added) it->second = NewEntry(b, label);
    return it->second;
  }
  std::vector<Entry<T>*> Sorted() const {
    std::vector<Entry<T>*> v = leaves_;
    std::stable_sort(v.begin(), v.end(), [](Entry<T>* a, Entry<T>* b) {
      return a->newp.total > b->newp.total;
    });
    return v;
  }
  Entry<T>* Bottom() const {
    return *std::min_element(
        leaves_.begin(), leaves_.end(),
        [](Entry<T>* a, Entry<T>* b) { return a->newp.total < b->newp.total; });
  }
  bool Candidate(const BeamProb<T>& p) const {
    return p.total > LogZero<T>() &&
           (static_cast<int>(leaves_.size()) < width_ ||
            p.total > Bottom()->newp.total);
  }
  // Into the beam if it has room or `e` beats its worst entry (replaced).
  void Push(Entry<T>* e) {
    if (static_cast<int>(leaves_.size()) < width_) {
      leaves_.push_back(e);
      return;
    }
    auto worst = std::min_element(
        leaves_.begin(), leaves_.end(),
        [](Entry<T>* a, Entry<T>* b) { return a->newp.total < b->newp.total; });
    if (e->newp.total > (*worst)->newp.total) *worst = e;
  }

  int classes_, width_;
  std::vector<std::unique_ptr<Entry<T>>> entries_;
  std::vector<Entry<T>*> leaves_;
};

class CTCBeamSearchDecoderOp : public OpKernel {
 public:
  explicit CTCBeamSearchDecoderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("merge_repeated", &merge_repeated_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("beam_width", &beam_width_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("top_paths", &top_paths_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& seq_len = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, ValidateCtcDecoderInputs(inputs, seq_len));
    const int64_t batch = inputs.dim_size(1);
    const int classes = static_cast<int>(inputs.dim_size(2));
    const int top = static_cast<int>(top_paths_);
    Tensor* log_prob = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                                3 * top, TensorShape({batch, top}), &log_prob));
    std::vector<std::vector<std::vector<int>>> seqs(batch);
    Status status;
    Dispatch(TypeList<float, double>(), inputs.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* x = inputs.flat<T>().data();
      auto lp = log_prob->flat<T>();
      auto lens = seq_len.flat<int32_t>();
      for (int64_t b = 0; b < batch && status.ok(); ++b) {
        BeamSearch<T> search(classes, static_cast<int>(beam_width_));
        for (int64_t t = 0; t < lens[b]; ++t) {
          search.Step(x + (t * batch + b) * classes);
        }
        std::vector<T> probs;
        status = search.TopPaths(top, merge_repeated_, &seqs[b], &probs);
        for (int p = 0; p < top && status.ok(); ++p) lp[b * top + p] = probs[p];
      }
    });
    DFG_OP_REQUIRES_OK(ctx, status);
    DFG_OP_REQUIRES_OK(ctx, StoreCtcDecoded(ctx, seqs, top));
  }

 private:
  bool merge_repeated_ = true;
  int64_t beam_width_ = 1, top_paths_ = 1;
};

}  // namespace

void RegisterCtcBeamSearchKernels(KernelRegistry* r) {
  r->Register<CTCBeamSearchDecoderOp>(
      "CTCBeamSearchDecoder", {TypeConstraint("T", TypeList<float, double>())});
}

}  // namespace dfg
