// SparseTensorsMap kernels (tf.compat.v1 add_sparse_to_tensors_map and
// friends, how TF1 input pipelines batch SparseTensors through queues):
// AddSparseToTensorsMap and AddManySparseToTensorsMap store SparseTensors in
// a map resource and output int64 handles to them;
// TakeManySparseFromTensorsMap takes them out again (each handle once) and
// stacks them into one SparseTensor of rank + 1.
//
// The map is a session resource keyed by (container, shared_name): writers
// with an empty shared_name use their node name, as TensorFlow's
// ContainerInfo does; a reader with an empty one gets a map of its own (the
// Python wrapper always passes the writer's name). Handles count from 0 in
// each map.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lib/kernels/resource_mgr.h"
#include "lib/kernels/sparse_util.h"

namespace dfg {
namespace {

class SparseTensorsMap : public ResourceBase {
 public:
  // TensorFlow's ResourceHandle type name of the resource.
  static constexpr char kTypeName[] = "N10tensorflow16SparseTensorsMapE";
  explicit SparseTensorsMap(std::string name) : name_(std::move(name)) {}
  std::string DebugString() const override { return "A SparseTensorsMap"; }

  struct Entry {
    Tensor indices, values;
    std::vector<int64_t> shape;
  };

  int64_t Add(Entry e) {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t h = counter_++;
    entries_[h] = std::move(e);
    return h;
  }

  // Removes and returns the entries of `handles`, in order.
  Status Take(const std::vector<int64_t>& handles, std::vector<Entry>* out) {
    std::lock_guard<std::mutex> lock(mu_);
    for (int64_t h : handles) {
      auto it = entries_.find(h);
      if (it == entries_.end()) {
        return InvalidArgument("Unable to find SparseTensor: {} in map: {}", h,
                               name_);
      }
      out->push_back(std::move(it->second));
      entries_.erase(it);
    }
    return Status::Ok();
  }

 private:
  std::string name_;
  std::mutex mu_;
  int64_t counter_ = 0;
  std::map<int64_t, Entry> entries_;
};

class MapKernel : public OpKernel {
 public:
  explicit MapKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
  }

 protected:
  StatusOr<SparseTensorsMap*> GetMap(OpKernelContext* ctx, bool writing) {
    ResourceMgr* rm = ctx->resource_manager();
    if (rm == nullptr) return Internal("No resource manager.");
    const std::string container =
        container_.empty() ? rm->default_container() : container_;
    const std::string name = !shared_name_.empty() ? shared_name_
                             : writing             ? def().name()
                                                   : "_0_" + def().name();
    DFG_ASSIGN_OR_RETURN(auto made,
                         rm->LookupOrCreateResource(
                             container, SparseTensorsMap::kTypeName, name,
                             [&]() -> StatusOr<std::shared_ptr<ResourceBase>> {
                               return std::shared_ptr<ResourceBase>(
                                   std::make_shared<SparseTensorsMap>(name));
                             }));
    map_ = std::move(made);  // kept alive as long as the kernel
    auto* m = dynamic_cast<SparseTensorsMap*>(map_.get());
    if (m == nullptr) return Internal("Resource {} is not a map", name);
    return m;
  }

 private:
  std::string container_, shared_name_;
  std::shared_ptr<ResourceBase> map_;
};

Status CheckShapes(const Tensor& ind, const Tensor& vals, const Tensor& shp) {
  if (ind.dims() != 2) {
    return InvalidArgument(
        "Input indices should be a matrix but received shape {}",
        ind.shape().DebugString());
  }
  if (vals.dims() != 1) {
    return InvalidArgument(
        "Input values should be a vector but received shape {}",
        vals.shape().DebugString());
  }
  if (shp.dims() != 1) {
    return InvalidArgument(
        "Input shape should be a vector but received shape {}",
        shp.shape().DebugString());
  }
  return Status::Ok();
}

class AddSparseToTensorsMapOp : public MapKernel {
 public:
  using MapKernel::MapKernel;
  void Compute(OpKernelContext* ctx) override {
    auto map = GetMap(ctx, true);
    DFG_OP_REQUIRES_OK(ctx, map.status());
    const Tensor& ind = ctx->input(0);
    const Tensor& vals = ctx->input(1);
    const Tensor& shp = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, CheckShapes(ind, vals, shp));
    const int64_t h = (*map)->Add({ind, vals, IntValues(shp)});
    ctx->set_output(0, Tensor::Scalar<int64_t>(h));
  }
};

class AddManySparseToTensorsMapOp : public MapKernel {
 public:
  using MapKernel::MapKernel;
  void Compute(OpKernelContext* ctx) override {
    auto map = GetMap(ctx, true);
    DFG_OP_REQUIRES_OK(ctx, map.status());
    const Tensor& ind = ctx->input(0);
    const Tensor& vals = ctx->input(1);
    const Tensor& shp = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, CheckShapes(ind, vals, shp));
    DFG_OP_REQUIRES(
        ctx, vals.dim_size(0) == ind.dim_size(0),
        InvalidArgument("Number of values must match first "
                        "dimension of indices. Got {} values, "
                        "indices shape: {}",
                        vals.dim_size(0), ind.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, shp.dim_size(0) == ind.dim_size(1),
        InvalidArgument("Number of dimensions must match second "
                        "dimension of indices. Got {} dimensions, "
                        "indices shape: {}",
                        shp.dim_size(0), ind.shape().DebugString()));
    const std::vector<int64_t> shape = IntValues(shp);
    const int64_t rank = static_cast<int64_t>(shape.size());
    DFG_OP_REQUIRES(ctx, rank > 1,
                    InvalidArgument("Rank of input SparseTensor should be > "
                                    "1, but saw rank: {}",
                                    rank));
    const std::vector<int64_t> idx = IntValues(ind);
    const int64_t nnz = ind.dim_size(0);
    DFG_OP_REQUIRES_OK(ctx, ValidateSparseIndices({idx, nnz, rank}, shape));
    const int64_t n = shape[0];
    const std::vector<int64_t> inner(shape.begin() + 1, shape.end());
    Tensor handles(tensorflow::DT_INT64, TensorShape({n}));
    int64_t* h = handles.flat<int64_t>().data();
    // Entries are sorted, so each batch row is one run of entries. Rows with
    // entries get their handles first, then the empty ones (TensorFlow's
    // order).
    std::vector<bool> seen(n, false);
    for (int64_t i = 0; i < nnz;) {
      const int64_t b = idx[i * rank];
      int64_t end = i;
      while (end < nnz && idx[end * rank] == b) ++end;
      Tensor oi(tensorflow::DT_INT64, TensorShape({end - i, rank - 1}));
      Tensor ov(vals.dtype(), TensorShape({end - i}));
      for (int64_t k = i; k < end; ++k) {
        for (int64_t d = 1; d < rank; ++d) {
          oi.flat<int64_t>()[(k - i) * (rank - 1) + d - 1] = idx[k * rank + d];
        }
      }
      CopyElements(vals, i, &ov, 0, end - i);
      h[b] = (*map)->Add({std::move(oi), std::move(ov), inner});
      seen[b] = true;
      i = end;
    }
    for (int64_t b = 0; b < n; ++b) {
      if (seen[b]) continue;
      h[b] =
          (*map)->Add({Tensor(tensorflow::DT_INT64, TensorShape({0, rank - 1})),
                       Tensor(vals.dtype(), TensorShape({0})), inner});
    }
    ctx->set_output(0, std::move(handles));
  }
};

class TakeManySparseFromTensorsMapOp : public MapKernel {
 public:
  explicit TakeManySparseFromTensorsMapOp(OpKernelConstruction* ctx)
      : MapKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto map = GetMap(ctx, false);
    DFG_OP_REQUIRES_OK(ctx, map.status());
    const Tensor& handles = ctx->input(0);
    DFG_OP_REQUIRES(ctx, handles.dims() == 1,
                    InvalidArgument("sparse_handles should be a vector but "
                                    "received shape {}",
                                    handles.shape().DebugString()));
    const int64_t n = handles.dim_size(0);
    DFG_OP_REQUIRES(ctx, n > 0,
                    InvalidArgument("Must have at least 1 serialized "
                                    "SparseTensor, but input matrix has 0 "
                                    "rows"));
    std::vector<SparseTensorsMap::Entry> sts;
    DFG_OP_REQUIRES_OK(ctx, (*map)->Take(IntValues(handles), &sts));
    DFG_OP_REQUIRES_OK(ctx, Stack(ctx, sts));
  }

 private:
  Status Stack(OpKernelContext* ctx,
               const std::vector<SparseTensorsMap::Entry>& sts) const {
    const int64_t rank = static_cast<int64_t>(sts[0].shape.size());
    std::vector<int64_t> shape(rank + 1, 0);
    shape[0] = static_cast<int64_t>(sts.size());
    int64_t total = 0;
    for (size_t i = 0; i < sts.size(); ++i) {
      const auto& st = sts[i];
      if (st.values.dtype() != dtype_) {
        return InvalidArgument(
            "Requested SparseTensor of type {} but SparseTensor[{}].values."
            "dtype() == {}",
            DataTypeString(dtype_), i, DataTypeString(st.values.dtype()));
      }
      const int64_t r = static_cast<int64_t>(st.shape.size());
      if (r != rank) {
        return InvalidArgument(
            "Inconsistent rank across SparseTensors: rank prior to "
            "SparseTensor[{}] was: {} but rank of SparseTensor[{}] is: {}",
            i, rank + 1, i, r + 1);
      }
      total += st.values.NumElements();
      for (int64_t d = 0; d < rank; ++d) {
        shape[d + 1] = std::max(shape[d + 1], st.shape[d]);
      }
    }
    Tensor *ind = nullptr, *vals = nullptr;
    DFG_RETURN_IF_ERROR(
        AllocSparse(ctx, 0, total, rank + 1, shape, &ind, &vals));
    int64_t* o = ind->flat<int64_t>().data();
    int64_t offset = 0;
    for (size_t i = 0; i < sts.size(); ++i) {
      const int64_t m = sts[i].values.NumElements();
      const int64_t* src = sts[i].indices.flat<int64_t>().data();
      for (int64_t k = 0; k < m; ++k) {
        *o++ = static_cast<int64_t>(i);
        for (int64_t d = 0; d < rank; ++d) *o++ = src[k * rank + d];
      }
      CopyElements(sts[i].values, 0, vals, offset, m);
      offset += m;
    }
    return Status::Ok();
  }
  DataType dtype_ = tensorflow::DT_INVALID;
};

}  // namespace

void RegisterSparseTensorsMapKernels(KernelRegistry* r) {
  r->Register<AddSparseToTensorsMapOp>("AddSparseToTensorsMap");
  r->Register<AddManySparseToTensorsMapOp>("AddManySparseToTensorsMap");
  r->Register<TakeManySparseFromTensorsMapOp>("TakeManySparseFromTensorsMap");
}

}  // namespace dfg
