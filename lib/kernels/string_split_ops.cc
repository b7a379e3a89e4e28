// StringSplitV2 and StringNGrams (TensorFlow's core/kernels/
// string_split_op.cc, string_ngrams_op.cc): splitting a vector of strings
// into a sparse result, and joining ragged rows of tokens into n-grams.
#include <algorithm>
#include <string_view>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

// Python's str.split: with a separator, empty pieces count; without one,
// runs of whitespace separate and leading/trailing runs are dropped. After
// `maxsplit` splits the rest is one piece.
std::vector<std::string_view> SplitV2(std::string_view text,
                                      std::string_view sep, int64_t maxsplit) {
  std::vector<std::string_view> out;
  if (maxsplit == 0) return {text};
  int64_t splits = 0;
  if (sep.empty()) {
    auto skip_space = [&] {
      size_t i = 0;
      while (i < text.size() && IsSpace(text[i])) ++i;
      text.remove_prefix(i);
    };
    skip_space();
    while (!text.empty()) {
      size_t i = 0;
      while (i < text.size() && !IsSpace(text[i])) ++i;
      out.push_back(text.substr(0, i));
      text.remove_prefix(i);
      skip_space();
      if (maxsplit > 0 && ++splits == maxsplit) {
        out.push_back(text);
        return out;
      }
    }
    return out;
  }
  for (size_t p = text.find(sep); p != std::string_view::npos;
       p = text.find(sep)) {
    out.push_back(text.substr(0, p));
    text.remove_prefix(p + sep.size());
    if (maxsplit > 0 && ++splits == maxsplit) break;
  }
  out.push_back(text);
  return out;
}

class StringSplitV2Op : public OpKernel {
 public:
  explicit StringSplitV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("maxsplit", &maxsplit_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& sep = ctx->input(1);
    DFG_OP_REQUIRES(ctx, in.dims() == 1,
                    InvalidArgument("input must be a vector, got shape: {}",
                                    in.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, sep.dims() == 0,
                    InvalidArgument("sep must be a scalar, got shape: {}",
                                    sep.shape().DebugString()));
    auto s = in.flat<std::string>();
    const std::string_view sep_text = sep.flat<std::string>()[0];
    std::vector<std::vector<std::string_view>> pieces(s.size());
    int64_t total = 0, widest = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      pieces[i] = SplitV2(s[i], sep_text, maxsplit_);
      total += static_cast<int64_t>(pieces[i].size());
      widest = std::max<int64_t>(widest, pieces[i].size());
    }
    Tensor *indices, *values, *shape;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {total, 2}, &indices));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, {total}, &values));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, {2}, &shape));
    auto ix = indices->flat<int64_t>();
    auto v = values->flat<std::string>();
    int64_t k = 0;
    for (size_t i = 0; i < pieces.size(); ++i) {
      for (size_t j = 0; j < pieces[i].size(); ++j, ++k) {
        ix[2 * k] = static_cast<int64_t>(i);
        ix[2 * k + 1] = static_cast<int64_t>(j);
        v[k] = std::string(pieces[i][j]);
      }
    }
    shape->flat<int64_t>()[0] = static_cast<int64_t>(s.size());
    shape->flat<int64_t>()[1] = widest;
  }

 private:
  int64_t maxsplit_ = -1;
};

struct NGramOptions {
  std::string separator, left_pad, right_pad;
  std::vector<int64_t> widths;
  int64_t pad_width = -1;
  bool preserve_short = false;

  // Padding never exceeds width - 1; a negative pad_width means exactly that.
  int64_t PadFor(int64_t width) const {
    return std::min(pad_width < 0 ? width - 1 : pad_width, width - 1);
  }
  int64_t Count(int64_t length, int64_t width) const {
    return std::max<int64_t>(0, length + 2 * PadFor(width) - width + 1);
  }
};

// The `count` n-grams of `width` over tokens[0, length), padded.
void MakeNGrams(const NGramOptions& o, const std::string* tokens, int64_t count,
                int64_t width, std::string* out) {
  const int64_t pad = o.PadFor(width);
  for (int64_t g = 0; g < count; ++g) {
    const int64_t left = std::max<int64_t>(0, pad - g);
    const int64_t right = std::max<int64_t>(0, pad - (count - 1 - g));
    const int64_t n = width - left - right;
    const int64_t first = left > 0 ? 0 : g - pad;
    std::vector<std::string_view> parts;
    for (int64_t i = 0; i < left; ++i) parts.push_back(o.left_pad);
    for (int64_t i = 0; i < n; ++i) parts.push_back(tokens[first + i]);
    for (int64_t i = 0; i < right; ++i) parts.push_back(o.right_pad);
    std::string s;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) s += o.separator;
      s += parts[i];
    }
    out[g] = std::move(s);
  }
}

Status CheckSplits(const std::vector<int64_t>& splits, int64_t size) {
  if (splits.empty()) return Status::Ok();
  if (splits[0] != 0) {
    return InvalidArgument("First split value must be 0, got {}", splits[0]);
  }
  for (size_t i = 1; i < splits.size(); ++i) {
    if (splits[i] < splits[i - 1] || splits[i] > size) {
      return InvalidArgument("Invalid split value {}, must be in [{}, {}]",
                             splits[i], splits[i - 1], size);
    }
  }
  if (splits.back() != size) {
    return InvalidArgument(
        "Last split value must be data size. Expected {}, got {}", size,
        splits.back());
  }
  return Status::Ok();
}

class StringNGramsOp : public OpKernel {
 public:
  explicit StringNGramsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("separator", &o_.separator));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("ngram_widths", &o_.widths));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("left_pad", &o_.left_pad));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("right_pad", &o_.right_pad));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_width", &o_.pad_width));
    DFG_OP_REQUIRES_OK(
        ctx, ctx->GetAttr("preserve_short_sequences", &o_.preserve_short));
  }

  void Compute(OpKernelContext* ctx) override {
    for (int64_t w : o_.widths) {
      DFG_OP_REQUIRES(
          ctx, w > 0,
          InvalidArgument("ngram_widths must contain positive values"));
    }
    const Tensor& data = ctx->input(0);
    const Tensor& splits_t = ctx->input(1);
    const std::vector<int64_t> splits = IntValues(splits_t);
    auto tokens = data.flat<std::string>();
    DFG_OP_REQUIRES_OK(ctx, CheckSplits(splits, tokens.size()));
    const int64_t rows = static_cast<int64_t>(splits.size()) - 1;
    std::vector<int64_t> out_splits(splits.size(), 0);
    const bool empty = tokens.size() == 0 || splits.empty();
    for (int64_t r = 1; r <= rows && !empty; ++r) {
      const int64_t len = splits[r] - splits[r - 1];
      int64_t n = 0;
      for (int64_t w : o_.widths) n += o_.Count(len, w);
      if (o_.preserve_short && len > 0 && n == 0) n = 1;
      out_splits[r] = out_splits[r - 1] + n;
    }
    Tensor* ngrams = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, empty ? data.shape() : TensorShape({out_splits.back()}),
                 &ngrams));
    Tensor* ngram_splits = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, splits_t.shape(), &ngram_splits));
    Dispatch(TypeList<int32_t, int64_t>(), splits_t.dtype(), [&](auto t) {
      using T = decltype(t);
      auto o = ngram_splits->flat<T>();
      for (size_t i = 0; i < out_splits.size(); ++i) o[i] = out_splits[i];
    });
    if (empty) return;
    auto out = ngrams->flat<std::string>();
    for (int64_t r = 0; r < rows; ++r) {
      const std::string* row = tokens.data() + splits[r];
      const int64_t len = splits[r + 1] - splits[r];
      int64_t at = out_splits[r];
      for (int64_t w : o_.widths) {
        const int64_t n = o_.Count(len, w);
        MakeNGrams(o_, row, n, w, out.data() + at);
        at += n;
      }
      if (!o_.preserve_short || at != out_splits[r] || len == 0) continue;
      DFG_OP_REQUIRES(ctx, o_.pad_width >= 0,
                      InvalidArgument("Pad width should be >= 0 when "
                                      "preserve_short_sequences is True and "
                                      "ngram_widths are not provided, got {}",
                                      o_.pad_width));
      MakeNGrams(o_, row, 1, len + 2 * o_.pad_width, out.data() + at);
    }
  }

 private:
  NGramOptions o_;
};

}  // namespace

void RegisterStringSplitKernels(KernelRegistry* r) {
  r->Register<StringSplitV2Op>("StringSplitV2");
  r->Register<StringNGramsOp>("StringNGrams");
}

}  // namespace dfg
