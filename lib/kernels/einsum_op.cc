// Einsum with one or two operands, TensorFlow's semantics (EinsumOp in
// linalg/einsum_op_impl.h): labels are single characters, "..." stands for
// broadcasting dims (NumPy-broadcast between the operands), a label repeated
// in an operand takes the diagonal, one repeated in the output inflates
// (zeros off the diagonal).
//
// Each label is one of: broadcasting ("..."), batch (both operands and the
// output), free (one operand and the output), contract (both operands, not
// the output), reduce (one operand, not the output). Each operand is reduced
// to [broadcast..., batch..., F, C] (summing reduce labels, taking
// diagonals, transposing; nothing is copied when the operand already has
// that order, or [..., C, F]), the two are multiplied batch by batch (cblas
// for float/double), and the result [broadcast..., batch..., free0...,
// free1...] is permuted (or inflated) into the output's order. float and
// double products that need none of that (no diagonal, no summed-out label,
// strides BLAS can take) skip it all: one strided batched GEMM straight
// from the inputs into the output (einsum_gemm.h).
#include <cblas.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "lib/kernels/blas_threads.h"
#include "lib/kernels/einsum_gemm.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

enum LabelType { kBroadcasting = 0, kBatch, kFree, kContract, kReduce };
constexpr int kEllipsis = -1;

struct Equation {
  std::vector<std::vector<int>> inputs;  // labels; kEllipsis for "..."
  std::vector<int> output;
  std::vector<LabelType> types;  // per named label
  std::vector<char> chars;       // per named label
};

std::vector<std::string> Split(const std::string& s, const std::string& sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    if (pos == std::string::npos) break;
    parts.push_back(s.substr(start, pos - start));
    start = pos + sep.size();
  }
  parts.push_back(s.substr(start));
  return parts;
}

// TensorFlow's MapToLabels: '.' starts an ellipsis and swallows the next two
// characters.
std::vector<int> MapLabels(const std::string& subscript, Equation* eq) {
  std::vector<int> labels;
  for (size_t i = 0; i < subscript.size(); ++i) {
    const char c = subscript[i];
    if (c == '.') {
      labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    auto it = std::find(eq->chars.begin(), eq->chars.end(), c);
    if (it == eq->chars.end()) {
      eq->chars.push_back(c);
      it = eq->chars.end() - 1;
    }
    labels.push_back(static_cast<int>(it - eq->chars.begin()));
  }
  return labels;
}

Status ParseEquation(const std::string& equation, Equation* eq) {
  const std::vector<std::string> sides = Split(equation, "->");
  if (sides.size() != 2) {
    return InvalidArgument("Expecting exactly one '->' in einsum equation: {}",
                           equation);
  }
  const std::vector<std::string> inputs = Split(sides[0], ",");
  if (inputs.size() != 1 && inputs.size() != 2) {
    return InvalidArgument(
        "Expecting 1 or 2 input subscripts in equation '{}' but got: {}",
        equation, inputs.size());
  }
  for (const std::string& s : inputs) eq->inputs.push_back(MapLabels(s, eq));
  const size_t num_inputs_labels = eq->chars.size();
  eq->output = MapLabels(sides[1], eq);
  if (eq->chars.size() > num_inputs_labels) {
    // TensorFlow's shape function rejects this before any kernel runs.
    return InvalidArgument(
        "Output subscripts contain the label {} not present in the input "
        "subscripts.",
        eq->chars[num_inputs_labels]);
  }
  const int n = static_cast<int>(eq->chars.size());
  for (int label = 0; label < n; ++label) {
    auto count = [&](const std::vector<int>& v) {
      return std::count(v.begin(), v.end(), label);
    };
    const bool removed = count(eq->output) == 0;
    const bool unique = eq->inputs.size() == 1 || count(eq->inputs[0]) == 0 ||
                        count(eq->inputs[1]) == 0;
    eq->types.push_back(removed ? (unique ? kReduce : kContract)
                                : (unique ? kFree : kBatch));
  }
  return Status::Ok();
}

// The per-step view of the equation: ellipses expanded into broadcasting
// labels (numbered from the named labels on) and every label's size.
struct Problem {
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  std::vector<LabelType> types;
  std::vector<int64_t> sizes;  // named labels (broadcast ones vary)
  int num_bcast = 0;
};

Status ExpandEquation(const Equation& eq, OpKernelContext* ctx, Problem* p) {
  const int num_inputs = ctx->num_inputs();
  if (num_inputs != static_cast<int>(eq.inputs.size())) {
    return InvalidArgument("Expected {} inputs but got: {}", eq.inputs.size(),
                           num_inputs);
  }
  const int named = static_cast<int>(eq.chars.size());
  p->types = eq.types;
  p->sizes.assign(named, -1);
  auto record = [&](int label, int axis, const Tensor& t) -> Status {
    const int64_t dim = t.dim_size(axis);
    if (p->sizes[label] != -1 && p->sizes[label] != dim) {
      return InvalidArgument(
          "Expected dimension {} at axis {} of the input shaped {} but got "
          "dimension {}",
          p->sizes[label], axis, t.shape().DebugString(), dim);
    }
    p->sizes[label] = dim;
    return Status::Ok();
  };
  for (int i = 0; i < num_inputs; ++i) {
    const Tensor& t = ctx->input(i);
    const std::vector<int>& labels = eq.inputs[i];
    const int n = static_cast<int>(labels.size());
    const auto ellipsis = std::find(labels.begin(), labels.end(), kEllipsis);
    std::vector<int> expanded;
    if (ellipsis == labels.end()) {
      if (t.dims() != n) {
        return InvalidArgument("Expected input {} to have rank {} but got: {}",
                               i, n, t.dims());
      }
      for (int a = 0; a < n; ++a) DFG_RETURN_IF_ERROR(record(labels[a], a, t));
      p->inputs.push_back(labels);
      continue;
    }
    if (t.dims() + 1 < n) {
      return InvalidArgument(
          "Expected input {} to have rank at least {} but got: {}", i, n - 1,
          t.dims());
    }
    const int nb = t.dims() - n + 1;
    const int at = static_cast<int>(ellipsis - labels.begin());
    for (int a = 0; a < n; ++a) {
      if (a == at) {
        for (int b = 0; b < nb; ++b) expanded.push_back(named + b);
        continue;
      }
      const int axis = a < at ? a : a + nb - 1;
      DFG_RETURN_IF_ERROR(record(labels[a], axis, t));
      expanded.push_back(labels[a]);
    }
    p->num_bcast = std::max(p->num_bcast, nb);
    p->inputs.push_back(std::move(expanded));
  }
  const auto out_ellipsis =
      std::find(eq.output.begin(), eq.output.end(), kEllipsis);
  if (out_ellipsis != eq.output.end()) {
    for (int label : eq.output) {
      if (label != kEllipsis) {
        p->output.push_back(label);
        continue;
      }
      for (int b = 0; b < p->num_bcast; ++b) p->output.push_back(named + b);
    }
  } else {
    if (p->num_bcast > 0) {
      return InvalidArgument(
          "Output contains {} broadcasting dimension(s) but no ellipsis (...) "
          "was found in the output subscripts.",
          p->num_bcast);
    }
    p->output = eq.output;
  }
  p->types.resize(named + p->num_bcast, kBroadcasting);
  return Status::Ok();
}

// An operand reduced to [broadcast..., batch..., F, C] (or [..., C, F] when
// `swapped`), and its free labels in order.
struct Reduced {
  Tensor t;
  bool swapped = false;
  std::vector<int> free;
};

// Strides of a row-major shape.
std::vector<int64_t> Strides(std::span<const int64_t> dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
    s[d] = s[d + 1] * dims[d + 1];
  }
  return s;
}

// out[i...] = sum over r... of in[i . out_strides + r . red_strides]:
// transposes, takes diagonals and sums reduced labels in one walk.
template <typename T>
void GatherSum(ThreadPoolInterface* pool, const T* in,
               const std::vector<int64_t>& out_dims,
               const std::vector<int64_t>& out_strides,
               const std::vector<int64_t>& red_dims,
               const std::vector<int64_t>& red_strides, T* out, int64_t n) {
  using C = CalcType<T>;
  int64_t red_n = 1;
  for (int64_t d : red_dims) red_n *= d;
  const int k = static_cast<int>(out_dims.size());
  const int kr = static_cast<int>(red_dims.size());
  ParallelFor(pool, n, red_n * 2 + k, [&](int64_t b, int64_t e) {
    std::vector<int64_t> idx(kr);
    for (int64_t o = b; o < e; ++o) {
      int64_t base = 0, rest = o;
      for (int d = k - 1; d >= 0; --d) {
        base += (rest % out_dims[d]) * out_strides[d];
        rest /= out_dims[d];
      }
      C sum = C(0);
      std::fill(idx.begin(), idx.end(), 0);
      int64_t off = 0;
      for (int64_t r = 0; r < red_n; ++r) {
        sum += Load(in[base + off]);
        for (int d = kr - 1; d >= 0; --d) {
          off += red_strides[d];
          if (++idx[d] < red_dims[d]) break;
          off -= red_strides[d] * red_dims[d];
          idx[d] = 0;
        }
      }
      out[o] = Store<T>(sum);
    }
  });
}

template <typename T>
Status ReduceOperand(OpKernelContext* ctx, const Problem& p, int i,
                     Reduced* r) {
  const Tensor& input = ctx->input(i);
  const std::vector<int>& labels = p.inputs[i];
  std::vector<int> unique = labels;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  auto order = [&](bool swap) {
    std::vector<int> v;
    for (int l : unique) {
      if (p.types[l] != kReduce) v.push_back(l);
    }
    auto rank = [&](int l) {
      const int t = p.types[l];
      return swap && (t == kFree || t == kContract) ? kFree + kContract - t : t;
    };
    std::stable_sort(v.begin(), v.end(),
                     [&](int a, int b) { return rank(a) < rank(b); });
    return v;
  };
  const std::vector<int> kept = order(false), kept_swapped = order(true);
  r->swapped = labels == kept_swapped;
  std::vector<int64_t> shape, free_shape;
  int64_t f = 1, c = 1;
  const std::vector<int>& layout = r->swapped ? kept_swapped : kept;
  std::vector<int64_t> dims_by_label(p.types.size(), 1);
  for (int a = 0; a < input.dims(); ++a) {
    dims_by_label[labels[a]] = input.dim_size(a);
  }
  for (int l : layout) {
    const int64_t dim = dims_by_label[l];
    if (p.types[l] == kFree) {
      r->free.push_back(l);
      f *= dim;
    } else if (p.types[l] == kContract) {
      c *= dim;
    } else {
      shape.push_back(dim);
    }
  }
  shape.push_back(r->swapped ? c : f);
  shape.push_back(r->swapped ? f : c);
  const TensorShape reduced_shape{std::span<const int64_t>(shape)};
  if (r->swapped || labels == kept) {  // already in order: reshape only
    r->t = Tensor(input.dtype());
    DFG_CHECK(r->t.CopyFrom(input, reduced_shape));
    return Status::Ok();
  }
  DFG_ASSIGN_OR_RETURN(r->t, Tensor::TryAllocate(input.dtype(), reduced_shape));
  const std::vector<int64_t> in_strides = Strides(input.shape().dim_sizes());
  std::vector<int64_t> stride_by_label(p.types.size(), 0);
  for (int a = 0; a < input.dims(); ++a) {
    stride_by_label[labels[a]] += in_strides[a];
  }
  std::vector<int64_t> out_dims, out_strides, red_dims, red_strides;
  for (int l : kept) {
    out_dims.push_back(dims_by_label[l]);
    out_strides.push_back(stride_by_label[l]);
  }
  for (int l : unique) {
    if (p.types[l] != kReduce) continue;
    red_dims.push_back(dims_by_label[l]);
    red_strides.push_back(stride_by_label[l]);
  }
  if (r->t.NumElements() == 0) return Status::Ok();
  if (out_dims.empty()) {
    out_dims.push_back(1);
    out_strides.push_back(0);
  }
  GatherSum(ctx->intra_op_pool(), static_cast<const T*>(input.data()), out_dims,
            out_strides, red_dims, red_strides, static_cast<T*>(r->t.data()),
            r->t.NumElements());
  return Status::Ok();
}

// z[m, n] = op(x) * op(y) with op(x) [m, k], op(y) [k, n].
template <typename T>
void Gemm(ThreadPoolInterface* pool, bool tx, bool ty, int64_t m, int64_t n,
          int64_t k, const T* x, const T* y, T* z) {
  const int64_t lda = tx ? m : k, ldb = ty ? k : n;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    ParallelGemm(pool, tx, ty, m, n, k, x, lda, y, ldb, z, n);
  } else {
    using C = CalcType<T>;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        C sum = C(0);
        for (int64_t q = 0; q < k; ++q) {
          sum += Load(tx ? x[q * lda + i] : x[i * lda + q]) *
                 Load(ty ? y[j * ldb + q] : y[q * ldb + j]);
        }
        z[i * n + j] = Store<T>(sum);
      }
    }
  }
}

// Multiplies the two reduced operands; the result is [batch..., F0, F1].
template <typename T>
Status Contract(OpKernelContext* ctx, const Reduced& a, const Reduced& b,
                Tensor* out) {
  const TensorShape& as = a.t.shape();
  const TensorShape& bs = b.t.shape();
  const int ar = as.dims() - 2, br = bs.dims() - 2;
  const int rank = std::max(ar, br);
  std::vector<int64_t> batch(rank), a_str(rank, 0), b_str(rank, 0);
  const int64_t a_mat = as.dim_size(ar) * as.dim_size(ar + 1);
  const int64_t b_mat = bs.dim_size(br) * bs.dim_size(br + 1);
  int64_t a_step = a_mat, b_step = b_mat;
  for (int d = rank - 1; d >= 0; --d) {
    const int ad = d - (rank - ar), bd = d - (rank - br);
    const int64_t x = ad >= 0 ? as.dim_size(ad) : 1;
    const int64_t y = bd >= 0 ? bs.dim_size(bd) : 1;
    if (x != y && x != 1 && y != 1) {
      return InvalidArgument("Invalid broadcasting dimensions: {} vs. {}",
                             as.DebugString(), bs.DebugString());
    }
    batch[d] = std::max(x, y);
    if (x == 0 || y == 0) batch[d] = 0;
    a_str[d] = x == 1 ? 0 : a_step;
    b_str[d] = y == 1 ? 0 : b_step;
    a_step *= x;
    b_step *= y;
  }
  const int64_t m = a.swapped ? as.dim_size(ar + 1) : as.dim_size(ar);
  const int64_t k = a.swapped ? as.dim_size(ar) : as.dim_size(ar + 1);
  const int64_t n = b.swapped ? bs.dim_size(br + 1) : bs.dim_size(br);
  std::vector<int64_t> out_dims = batch;
  out_dims.push_back(m);
  out_dims.push_back(n);
  DFG_ASSIGN_OR_RETURN(
      *out, Tensor::TryAllocate(
                a.t.dtype(), TensorShape(std::span<const int64_t>(out_dims))));
  const int64_t total = out->NumElements();
  if (total == 0) return Status::Ok();
  T* z = static_cast<T*>(out->data());
  if (k == 0) {
    std::fill(z, z + total, Store<T>(0));
    return Status::Ok();
  }
  const T* x = static_cast<const T*>(a.t.data());
  const T* y = static_cast<const T*>(b.t.data());
  const int64_t batches = total / (m * n);
  const bool parallel =
      batches > 1 && !std::is_same_v<T, float> && !std::is_same_v<T, double>;
  auto run = [&](int64_t b0, int64_t b1) {
    for (int64_t bi = b0; bi < b1; ++bi) {
      int64_t xo = 0, yo = 0, rest = bi;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t i = rest % batch[d];
        rest /= batch[d];
        xo += i * a_str[d];
        yo += i * b_str[d];
      }
      // float/double: batches in turn, each GEMM over the pool.
      Gemm(parallel ? nullptr : ctx->intra_op_pool(), a.swapped, !b.swapped, m,
           n, k, x + xo, y + yo, z + bi * m * n);
    }
  };
  if (parallel) {
    ParallelFor(ctx->intra_op_pool(), batches, m * n * k * 2, run);
  } else {
    run(0, batches);
  }
  return Status::Ok();
}

// Places `result` (labels `labels`) into the output (labels p.output): a
// transpose, or an inflation when the output repeats a label.
template <typename T>
Status PlaceOutput(OpKernelContext* ctx, const Problem& p, const Tensor& result,
                   const std::vector<int>& labels) {
  std::vector<int64_t> size_by_label(p.types.size(), 1);
  for (size_t i = 0; i < labels.size(); ++i) {
    size_by_label[labels[i]] = result.dim_size(static_cast<int>(i));
  }
  std::vector<int64_t> out_dims;
  for (int l : p.output) out_dims.push_back(size_by_label[l]);
  const TensorShape out_shape{std::span<const int64_t>(out_dims)};
  if (p.output == labels) {
    Tensor t(result.dtype());
    DFG_CHECK(t.CopyFrom(result, out_shape));
    ctx->set_output(0, std::move(t));
    return Status::Ok();
  }
  Tensor* out = nullptr;
  DFG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
  if (out->NumElements() == 0) return Status::Ok();
  if (p.output.size() == labels.size()) {  // no repeats: a permutation
    std::vector<int> perm;
    for (int l : p.output) {
      perm.push_back(static_cast<int>(
          std::find(labels.begin(), labels.end(), l) - labels.begin()));
    }
    TransposeInto(ctx->intra_op_pool(), result, perm, out);
    return Status::Ok();
  }
  T* o = static_cast<T*>(out->data());
  std::fill(o, o + out->NumElements(), Store<T>(0));
  const std::vector<int64_t> out_strides = Strides(out_dims);
  std::vector<int64_t> stride_by_label(p.types.size(), 0);
  for (size_t a = 0; a < p.output.size(); ++a) {
    stride_by_label[p.output[a]] += out_strides[a];
  }
  const T* in = static_cast<const T*>(result.data());
  const int k = result.dims();
  for (int64_t e = 0; e < result.NumElements(); ++e) {
    int64_t off = 0, rest = e;
    for (int d = k - 1; d >= 0; --d) {
      off += (rest % result.dim_size(d)) * stride_by_label[labels[d]];
      rest /= result.dim_size(d);
    }
    o[off] = in[e];
  }
  return Status::Ok();
}

class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string equation;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("equation", &equation));
    DFG_OP_REQUIRES_OK(ctx, ParseEquation(equation, &eq_));
  }

  void Compute(OpKernelContext* ctx) override {
    Dispatch(TypeList<float, double, Half, BFloat16, int32_t, int64_t,
                      std::complex<float>, std::complex<double>>(),
             ctx->input_dtype(0),
             [&](auto v) { ctx->SetStatus(Run<decltype(v)>(ctx)); });
  }

 private:
  template <typename T>
  Status Run(OpKernelContext* ctx) const {
    Problem p;
    DFG_RETURN_IF_ERROR(ExpandEquation(eq_, ctx, &p));
    const int num_inputs = ctx->num_inputs();
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      bool done = false;
      DFG_RETURN_IF_ERROR(TryGemm<T>(ctx, p, &done));
      if (done) return Status::Ok();
    }
    std::vector<Reduced> reduced(num_inputs);
    for (int i = 0; i < num_inputs; ++i) {
      DFG_RETURN_IF_ERROR(ReduceOperand<T>(ctx, p, i, &reduced[i]));
    }
    Tensor result;
    if (num_inputs == 1) {
      result = reduced[0].t;
    } else {
      DFG_RETURN_IF_ERROR(Contract<T>(ctx, reduced[0], reduced[1], &result));
    }
    // Expand [batch..., F0, F1] back to one dim per label.
    std::vector<int> labels;
    std::vector<int64_t> dims;
    const int batch_rank = result.dims() - 2;
    for (int d = 0; d < batch_rank; ++d) {
      dims.push_back(result.dim_size(d));
    }
    // Broadcasting labels, numbered left to right, then batch labels in
    // label order.
    const int named = static_cast<int>(eq_.chars.size());
    const int nb = batch_rank - static_cast<int>(std::count(
                                    p.types.begin(), p.types.end(), kBatch));
    for (int b = 0; b < nb; ++b) labels.push_back(named + b);
    for (int l = 0; l < named; ++l) {
      if (p.types[l] == kBatch) labels.push_back(l);
    }
    for (const Reduced& r : reduced) {
      for (int l : r.free) {
        labels.push_back(l);
        dims.push_back(p.sizes[l]);
      }
    }
    Tensor expanded(result.dtype());
    DFG_CHECK(
        expanded.CopyFrom(result, TensorShape(std::span<const int64_t>(dims))));
    return PlaceOutput<T>(ctx, p, expanded, labels);
  }

  // The product as one BatchedGemm when PlanEinsumGemm finds one. Operands
  // whose "..." covers fewer dims than the output's are left to the general
  // path (their broadcast labels are numbered from the left).
  template <typename T>
  Status TryGemm(OpKernelContext* ctx, const Problem& p, bool* done) const {
    if (ctx->num_inputs() != 2) return Status::Ok();
    const int named = static_cast<int>(eq_.chars.size());
    std::vector<int64_t> size_by_label(p.types.size(), 1);
    for (int i = 0; i < 2; ++i) {
      const std::vector<int>& labels = p.inputs[i];
      const int nb = static_cast<int>(std::count_if(
          labels.begin(), labels.end(), [&](int l) { return l >= named; }));
      if (nb != 0 && nb != p.num_bcast) return Status::Ok();
      for (size_t a = 0; a < labels.size(); ++a) {
        size_by_label[labels[a]] =
            std::max(size_by_label[labels[a]], ctx->input(i).dim_size(a));
      }
    }
    std::vector<int64_t> out_dims;
    for (int l : p.output) out_dims.push_back(size_by_label[l]);
    const std::optional<BatchedGemm> g = PlanEinsumGemm(
        {p.inputs[0], ctx->input(0).shape().dim_sizes()},
        {p.inputs[1], ctx->input(1).shape().dim_sizes()}, {p.output, out_dims});
    if (!g) return Status::Ok();
    Tensor* out = nullptr;
    DFG_RETURN_IF_ERROR(ctx->allocate_output(
        0, TensorShape(std::span<const int64_t>(out_dims)), &out));
    RunBatchedGemm(ctx->intra_op_pool(), *g,
                   static_cast<const T*>(ctx->input(0).data()),
                   static_cast<const T*>(ctx->input(1).data()),
                   static_cast<T*>(out->data()));
    *done = true;
    return Status::Ok();
  }

  Equation eq_;
};

}  // namespace

void RegisterEinsumKernels(KernelRegistry* r) {
  r->Register<EinsumOp>(
      "Einsum",
      {TypeConstraint("T",
                      TypeList<float, double, Half, BFloat16, int32_t, int64_t,
                               std::complex<float>, std::complex<double>>())});
}

}  // namespace dfg
