// tf.sets: DenseToDenseSetOperation, DenseToSparseSetOperation and
// SparseToSparseSetOperation. Each input holds one set per index of its
// leading dims (the last dim's values: a dense row, or a sparse group's
// entries); the result is a sparse tensor whose group g lists the sorted
// members of set1[g] OP set2[g] (a-b, b-a, intersection, union), its last
// dim the largest result (TensorFlow's set_kernels.cc).
#include <map>
#include <set>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/sparse_util.h"

namespace dfg {
namespace {

using SetTypes =
    TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, std::string>;

template <typename T>
using Sets = std::map<std::vector<int64_t>, std::set<T>>;

// A dense input: every index of its leading dims is a group.
template <typename T>
Status DenseSets(const Tensor& t, std::vector<int64_t>* group_shape,
                 Sets<T>* sets) {
  if (t.dims() < 2) {
    return InvalidArgument("Expected rank >= 2, got {}.", t.dims());
  }
  const auto dims = t.shape().dim_sizes();
  group_shape->assign(dims.begin(), dims.end() - 1);
  const int64_t last = dims.back();
  int64_t groups = 1;
  for (int64_t d : *group_shape) groups *= d;
  const std::vector<int64_t> strides = Strides(*group_shape);
  const T* v = t.flat<T>().data();
  for (int64_t g = 0; g < groups; ++g) {
    std::vector<int64_t> key(group_shape->size());
    int64_t rem = g;
    for (size_t d = 0; d < key.size(); ++d) {
      key[d] = rem / strides[d];
      rem %= strides[d];
    }
    std::set<T>& s = (*sets)[key];
    for (int64_t j = 0; j < last; ++j) s.insert(v[g * last + j]);
  }
  return Status::Ok();
}

// A sparse input (inputs `first`..`first`+2): groups with entries.
template <typename T>
Status SparseSets(OpKernelContext* ctx, int first, bool validate,
                  std::vector<int64_t>* group_shape, Sets<T>* sets) {
  const Tensor& idx_t = ctx->input(first);
  const Tensor& vals = ctx->input(first + 1);
  const Tensor& shape_t = ctx->input(first + 2);
  DFG_RETURN_IF_ERROR(CheckSparseInputs(idx_t, vals, shape_t, "Input"));
  const std::vector<int64_t> shape = IntValues(shape_t);
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank < 2) return InvalidArgument("Expected rank >= 2, got {}.", rank);
  const std::vector<int64_t> idx = IntValues(idx_t);
  const int64_t n = vals.NumElements();
  if (validate) {
    DFG_RETURN_IF_ERROR(ValidateSparseIndices(SparseIndices{idx, n, rank},
                                              std::span<const int64_t>(shape)));
  }
  group_shape->assign(shape.begin(), shape.end() - 1);
  const T* v = vals.flat<T>().data();
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> key(&idx[i * rank], &idx[i * rank] + rank - 1);
    (*sets)[key].insert(v[i]);
  }
  return Status::Ok();
}

class SetOperationOp : public OpKernel {
 public:
  explicit SetOperationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const std::string& op = def().op();
    dense1_ = op.starts_with("DenseTo");
    dense2_ = op == "DenseToDenseSetOperation";
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("set_operation", &operation_));
    DFG_OP_REQUIRES(ctx,
                    operation_ == "a-b" || operation_ == "b-a" ||
                        operation_ == "intersection" || operation_ == "union",
                    InvalidArgument("Invalid set_operation {}.", operation_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_indices", &validate_));
  }

  void Compute(OpKernelContext* ctx) override {
    Dispatch(SetTypes(), ctx->input(dense1_ ? 0 : 1).dtype(), [&](auto v) {
      using T = decltype(v);
      Run<T>(ctx);
    });
  }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx) {
    Sets<T> a, b;
    std::vector<int64_t> ga, gb;
    DFG_OP_REQUIRES_OK(ctx, dense1_
                                ? DenseSets<T>(ctx->input(0), &ga, &a)
                                : SparseSets<T>(ctx, 0, validate_, &ga, &a));
    const int second = dense1_ ? 1 : 3;
    DFG_OP_REQUIRES_OK(
        ctx, dense2_ ? DenseSets<T>(ctx->input(1), &gb, &b)
                     : SparseSets<T>(ctx, second, validate_, &gb, &b));
    DFG_OP_REQUIRES(ctx, ga.size() == gb.size(),
                    InvalidArgument("Mismatched group dims {} vs {}.",
                                    VectorString(ga), VectorString(gb)));
    std::set<std::vector<int64_t>> keys;
    for (const auto& [k, s] : a) keys.insert(k);
    for (const auto& [k, s] : b) keys.insert(k);
    std::vector<std::pair<std::vector<int64_t>, std::vector<T>>> results;
    int64_t max_size = 0, total = 0;
    const std::set<T> none;
    for (const auto& key : keys) {
      const auto ia = a.find(key);
      const auto ib = b.find(key);
      const std::set<T>& x = ia == a.end() ? none : ia->second;
      const std::set<T>& y = ib == b.end() ? none : ib->second;
      std::vector<T> r;
      if (operation_ == "a-b" || operation_ == "b-a") {
        const std::set<T>& from = operation_ == "a-b" ? x : y;
        const std::set<T>& minus = operation_ == "a-b" ? y : x;
        for (const T& e : from) {
          if (!minus.count(e)) r.push_back(e);
        }
      } else if (operation_ == "intersection") {
        for (const T& e : x) {
          if (y.count(e)) r.push_back(e);
        }
      } else {
        std::set<T> u = x;
        u.insert(y.begin(), y.end());
        r.assign(u.begin(), u.end());
      }
      if (r.empty()) continue;
      max_size = std::max<int64_t>(max_size, static_cast<int64_t>(r.size()));
      total += static_cast<int64_t>(r.size());
      results.emplace_back(key, std::move(r));
    }
    std::vector<int64_t> out_shape = ga;
    for (size_t d = 0; d < ga.size(); ++d) {
      out_shape[d] = std::max(ga[d], gb[d]);
    }
    out_shape.push_back(max_size);
    const int64_t rank = static_cast<int64_t>(out_shape.size());
    Tensor *oi = nullptr, *ov = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       AllocSparse(ctx, 0, total, rank, out_shape, &oi, &ov));
    int64_t at = 0;
    for (const auto& [key, r] : results) {
      for (size_t j = 0; j < r.size(); ++j, ++at) {
        std::copy(key.begin(), key.end(),
                  oi->flat<int64_t>().data() + at * rank);
        oi->flat<int64_t>()[at * rank + rank - 1] = static_cast<int64_t>(j);
        ov->flat<T>()[at] = r[j];
      }
    }
  }

  bool dense1_ = false, dense2_ = false, validate_ = true;
  std::string operation_;
};

}  // namespace

void RegisterSetKernels(KernelRegistry* r) {
  for (const char* op :
       {"DenseToDenseSetOperation", "DenseToSparseSetOperation",
        "SparseToSparseSetOperation"}) {
    r->Register<SetOperationOp>(op, {TypeConstraint("T", SetTypes())});
  }
}

}  // namespace dfg
