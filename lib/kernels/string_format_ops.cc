// StringFormat (TensorFlow's core/kernels/string_format_op.cc): a template
// with each placeholder replaced by a tensor summarized as print_v2 does
// (the first and last `summarize` entries of every dimension, strings
// quoted and C-escaped, floats in their shortest round-trip %g). And the
// file ops ReadFile, WriteFile, MatchingFiles (whole_file_read_ops.cc,
// matching_files_op.cc).
#include <glob.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "lib/base/file.h"
#include "lib/kernels/file_policy.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

std::string CEscape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        // UTF-8 stays as it is (absl's Utf8SafeCEscape).
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\{:03o}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

// TensorFlow's FloatToBuffer / DoubleToBuffer: %g with the type's digits,
// more when that does not read back.
template <typename F>
std::string ShortestG(F v) {
  constexpr int kDigits = std::is_same_v<F, float> ? FLT_DIG : DBL_DIG;
  constexpr int kMore = std::is_same_v<F, float> ? 3 : 2;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", kDigits, static_cast<double>(v));
  const F back = std::is_same_v<F, float> ? std::strtof(buf, nullptr)
                                          : std::strtod(buf, nullptr);
  if (back != v && v == v) {
    std::snprintf(buf, sizeof(buf), "%.*g", kDigits + kMore,
                  static_cast<double>(v));
  }
  return buf;
}

template <typename T>
std::string Element(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return "\"" + CEscape(v) + "\"";
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else if constexpr (kIsHalfLike<T>) {
    return ShortestG(Load(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    return ShortestG(v);
  } else if constexpr (std::is_integral_v<T>) {
    return fmt::format("{}", v);
  } else {
    return "?";
  }
}

// Spacing before an entry of dimension `dim`: a space in the innermost,
// otherwise one newline per inner dimension and an indent.
void Spacing(int dim, int rank, std::string* out) {
  if (dim == rank - 1) {
    *out += ' ';
    return;
  }
  out->append(rank - dim - 1, '\n');
  out->append(dim + 1, ' ');
}

// The first and last `ends` sub-arrays of each dimension, "..." between
// them. A loop with a frame per open dimension, not recursion (a tensor of
// rank 100,000 is that deep), and strides computed once.
template <typename T>
void PrintNested(const std::vector<int64_t>& shape, int64_t ends, const T* data,
                 std::string* out) {
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> stride(rank, 1);
  for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  struct Frame {
    int64_t next = 0;      // the next sub-array to print
    int64_t at = 0;        // the element this sub-array starts at
    bool skipped = false;  // past the first `ends`
  };
  std::vector<Frame> frames(1);
  *out += '[';
  while (!frames.empty()) {
    const int dim = static_cast<int>(frames.size()) - 1;
    const int64_t n = shape[dim];
    Frame& f = frames.back();
    if (!f.skipped && f.next >= std::min(ends, n)) {
      f.skipped = true;
      if (n > 2 * ends) {
        Spacing(dim, rank, out);
        *out += "...";
      }
      f.next = std::max(f.next, std::max(ends, n - ends));
    }
    if (f.next >= n) {
      *out += ']';
      frames.pop_back();
      continue;
    }
    if (f.next > 0) Spacing(dim, rank, out);
    const int64_t at = f.at + stride[dim] * f.next++;
    if (dim + 1 == rank) {
      *out += Element(data[at]);
    } else {
      *out += '[';
      frames.push_back(Frame{0, at, false});
    }
  }
}

std::string SummarizeV2(const Tensor& t, int64_t summarize) {
  const int64_t n = t.NumElements();
  const int64_t limit = summarize < 0 ? n : std::min(summarize, n);
  std::string out;
  Dispatch(AllTypes(), t.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* data = t.flat<T>().data();
    if (t.dims() == 0) {
      out = limit > 0 ? Element(data[0]) : "";
      return;
    }
    const auto dims = t.shape().dim_sizes();
    PrintNested(std::vector<int64_t>(dims.begin(), dims.end()), limit, data,
                &out);
  });
  return out;
}

class StringFormatOp : public OpKernel {
 public:
  explicit StringFormatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string tmpl, placeholder;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("template", &tmpl));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("placeholder", &placeholder));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
    size_t start = 0;
    for (size_t p; !placeholder.empty() &&
                   (p = tmpl.find(placeholder, start)) != std::string::npos;
         start = p + placeholder.size()) {
      pieces_.push_back(tmpl.substr(start, p - start));
    }
    pieces_.push_back(tmpl.substr(start));
    const int inputs = ctx->num_inputs();
    DFG_OP_REQUIRES(ctx, static_cast<int>(pieces_.size()) - 1 == inputs,
                    InvalidArgument("num placeholders in template and num "
                                    "inputs must match: {} vs. {}",
                                    pieces_.size() - 1, inputs));
  }

  void Compute(OpKernelContext* ctx) override {
    std::string s = pieces_[0];
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      s += SummarizeV2(ctx->input(i), summarize_);
      s += pieces_[i + 1];
    }
    ctx->set_output(0, Tensor::Scalar<std::string>(std::move(s)));
  }

 private:
  std::vector<std::string> pieces_;
  int64_t summarize_ = 3;
};

// TensorFlow's errors for a file: "<path>; <strerror>", NotFound when it
// is missing.
Status FileError(const std::string& path, int err) {
  const std::string msg = fmt::format("{}; {}", path, std::strerror(err));
  if (err == ENOENT) return NotFound("{}", msg);
  if (err == EACCES || err == EPERM) {
    return Status(Code::kPermissionDenied, msg);
  }
  return FailedPrecondition("{}", msg);
}

class ReadFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& name = ctx->input(0);
    DFG_OP_REQUIRES(ctx, name.dims() == 0,
                    InvalidArgument("Input filename tensor must be scalar, "
                                    "but had shape: {}",
                                    name.shape().DebugString()));
    const std::string& path = name.flat<std::string>()[0];
    DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, path));
    int err = 0;
    StatusOr<std::string> data = ReadFileToString(path, &err);
    DFG_OP_REQUIRES(ctx, data.ok(), FileError(path, err));
    ctx->set_output(0, Tensor::Scalar<std::string>(*std::move(data)));
  }
};

class WriteFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& name = ctx->input(0);
    const Tensor& contents = ctx->input(1);
    DFG_OP_REQUIRES(ctx, name.dims() == 0,
                    InvalidArgument("Input filename tensor must be scalar, "
                                    "but had shape: {}",
                                    name.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, contents.dims() == 0,
                    InvalidArgument("Contents tensor must be scalar, but had "
                                    "shape: {}",
                                    contents.shape().DebugString()));
    const std::string& path = name.flat<std::string>()[0];
    DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, path));
    // TensorFlow creates the missing directories first.
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    DFG_OP_REQUIRES(ctx, f != nullptr, FileError(path, errno));
    const std::string& data = contents.flat<std::string>()[0];
    const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
    const int err = errno;
    std::fclose(f);
    DFG_OP_REQUIRES(ctx, ok, FileError(path, err));
  }
};

// Shell-style patterns as TensorFlow's GetMatchingPaths reads them; the
// names of all patterns together, sorted.
class MatchingFilesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& patterns = ctx->input(0);
    DFG_OP_REQUIRES(ctx, patterns.dims() <= 1,
                    InvalidArgument("Input patterns tensor must be scalar or "
                                    "vector, but had shape: {}",
                                    patterns.shape().DebugString()));
    std::vector<std::string> names;
    for (const std::string& p : patterns.flat<std::string>()) {
      // The pattern's literal directories, then each match (a wildcard such
      // as ".*" can match "..").
      DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, p));
      glob_t g{};
      if (::glob(p.c_str(), GLOB_NOSORT, nullptr, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; ++i)
          names.emplace_back(g.gl_pathv[i]);
      }
      ::globfree(&g);
    }
    for (const std::string& n : names) {
      DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, n));
    }
    std::sort(names.begin(), names.end());
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                                0, {static_cast<int64_t>(names.size())}, &out));
    auto o = out->flat<std::string>();
    for (size_t i = 0; i < names.size(); ++i) o[i] = std::move(names[i]);
  }
};

}  // namespace

void RegisterStringFormatKernels(KernelRegistry* r) {
  r->Register<StringFormatOp>("StringFormat");
  r->Register<ReadFileOp>("ReadFile");
  r->Register<WriteFileOp>("WriteFile");
  r->Register<MatchingFilesOp>("MatchingFiles");
}

}  // namespace dfg
