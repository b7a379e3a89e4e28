// Substr (TensorFlow's core/kernels/substr_op.cc): the substring at pos of
// length len, counted in bytes or UTF-8 characters. pos and len share one
// shape that broadcasts against the input's. A negative pos counts from the
// end; a pos beyond the string is an error, a len beyond it is cut.
#include <algorithm>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

bool IsTrail(const std::string& s, int64_t i) {
  return i < static_cast<int64_t>(s.size()) &&
         (static_cast<uint8_t>(s[i]) & 0xC0) == 0x80;
}

// Moves *pos forward by n characters; false if the string ends first.
bool Forward(const std::string& s, int64_t n, int64_t* pos) {
  int64_t count = 0;
  const int64_t size = static_cast<int64_t>(s.size());
  while (count < n && *pos < size) {
    do {
      ++*pos;
    } while (*pos < size && IsTrail(s, *pos));
    ++count;
  }
  return count == n;
}

bool Backward(const std::string& s, int64_t n, int64_t* pos) {
  int64_t count = 0;
  while (count<n&& * pos> 0) {
    do {
      --*pos;
    } while (*pos > 0 && IsTrail(s, *pos));
    ++count;
  }
  return count == n;
}

// The byte range of (pos, len) in UTF-8 characters; false: pos is outside.
bool Utf8Range(const std::string& s, int64_t pos, int64_t len, int64_t* b,
               int64_t* n) {
  int64_t start = pos >= 0 ? 0 : static_cast<int64_t>(s.size());
  if (pos >= 0 ? !Forward(s, pos, &start) : !Backward(s, -pos, &start)) {
    return false;
  }
  int64_t end = start;
  Forward(s, len, &end);
  *b = start;
  *n = end - start;
  return true;
}

// Broadcast shape of a and b (NumPy rules); false if incompatible.
bool BroadcastShape(const TensorShape& a, const TensorShape& b,
                    TensorShape* out) {
  const int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.dims() - rank + i, ib = b.dims() - rank + i;
    const int64_t da = ia >= 0 ? a.dim_size(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim_size(ib) : 1;
    if (da != db && da != 1 && db != 1) return false;
    dims[i] = da == 1 ? db : da;
  }
  *out = TensorShape(std::span<const int64_t>(dims));
  return true;
}

// The flat index into `in` (broadcast to `out`) of out's flat index i.
int64_t SourceIndex(const TensorShape& in, const TensorShape& out, int64_t i) {
  int64_t src = 0, stride = 1;
  for (int d = out.dims() - 1; d >= 0; --d) {
    const int64_t coord = i % out.dim_size(d);
    i /= out.dim_size(d);
    const int id = in.dims() - out.dims() + d;
    if (id < 0) break;
    if (in.dim_size(id) != 1) src += coord * stride;
    stride *= in.dim_size(id);
  }
  return src;
}

class SubstrOp : public OpKernel {
 public:
  explicit SubstrOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string unit;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("unit", &unit));
    utf8_ = unit == "UTF8_CHAR";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& pos_t = ctx->input(1);
    const Tensor& len_t = ctx->input(2);
    DFG_OP_REQUIRES(ctx, pos_t.shape() == len_t.shape(),
                    InvalidArgument("pos and len should have the same shape, "
                                    "got: {} vs. {}",
                                    pos_t.shape().DebugString(),
                                    len_t.shape().DebugString()));
    TensorShape shape;
    DFG_OP_REQUIRES(
        ctx, BroadcastShape(in.shape(), pos_t.shape(), &shape),
        InvalidArgument("Incompatible shapes: {} vs. {}",
                        in.shape().DebugString(), pos_t.shape().DebugString()));
    // TensorFlow broadcasts (pos not scalar, shapes unequal) in 1 or 2
    // dimensions only, and then names an element by its coordinates.
    const bool broadcast = pos_t.dims() > 0 && pos_t.shape() != in.shape();
    DFG_OP_REQUIRES(ctx, !broadcast || shape.dims() <= 2,
                    Unimplemented("Substr broadcast not implemented for {} "
                                  "dimensions",
                                  shape.dims()));
    auto where = [&](int64_t i) {
      return broadcast && shape.dims() == 2
                 ? fmt::format("({}, {})", i / shape.dim_size(1),
                               i % shape.dim_size(1))
                 : fmt::format("{}", i);
    };
    const std::vector<int64_t> pos = IntValues(pos_t);
    const std::vector<int64_t> len = IntValues(len_t);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    auto s = in.flat<std::string>();
    auto o = out->flat<std::string>();
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      const std::string& str = s[SourceIndex(in.shape(), shape, i)];
      const int64_t k = SourceIndex(pos_t.shape(), shape, i);
      int64_t b = pos[k], n = len[k];
      if (utf8_) {
        DFG_OP_REQUIRES(ctx, Utf8Range(str, pos[k], len[k], &b, &n),
                        InvalidArgument("pos {} out of range for string at "
                                        "index {}",
                                        pos[k], where(i)));
      } else {
        if (b < 0) b += static_cast<int64_t>(str.size());
        DFG_OP_REQUIRES(
            ctx, b >= 0 && b <= static_cast<int64_t>(str.size()),
            InvalidArgument("pos {} out of range for string b'{}' at index {}",
                            pos[k], str, where(i)));
      }
      // A negative length takes the rest, as string_view::substr does.
      o[i] = n < 0 ? str.substr(b) : str.substr(b, n);
    }
  }

 private:
  bool utf8_ = false;
};

}  // namespace

void RegisterSubstrKernels(KernelRegistry* r) {
  r->Register<SubstrOp>("Substr");
}

}  // namespace dfg
