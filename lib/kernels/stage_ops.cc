// Staging areas (TensorFlow's stage_op.cc and map_stage_op.cc): Stage,
// Unstage, StagePeek, StageSize, StageClear, and the keyed MapStage and
// OrderedMapStage families (Stage, Unstage, UnstageNoKey, Peek, Size,
// IncompleteSize, Clear).
//
// A staging area is a ResourceMgr resource named by the node's container and
// shared_name attrs (the node's name when shared_name is empty), made on
// first use with the node's capacity and memory_limit, and lives as long as
// the session. As in TensorFlow, a put into a full area and a get from an
// empty one (or of a key not yet staged) block until another op makes room
// or stages the value; graphs order them with control dependencies.
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include "lib/kernels/container_info.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

using Tuple = std::vector<Tensor>;

size_t TupleBytes(const Tuple& tuple) {
  size_t bytes = 0;
  for (const Tensor& t : tuple) bytes += t.TotalBytes();
  return bytes;
}

Status MemoryLimitError(size_t bytes, size_t limit) {
  return ResourceExhausted(
      "Attempted to insert tensors with combined size of '{}' bytes into "
      "Staging Area with a memory limit of '{}'.",
      bytes, limit);
}

// The queue of Stage/Unstage.
class StagingArea : public ResourceBase {
 public:
  static constexpr char kTypeName[] = "N10tensorflow12_GLOBAL__N_16BufferE";

  StagingArea(size_t capacity, size_t memory_limit)
      : capacity_(capacity), memory_limit_(memory_limit) {}
  std::string DebugString() const override { return "StagingArea"; }

  Status Put(Tuple tuple) {
    std::unique_lock<std::mutex> lock(mu_);
    const size_t bytes = TupleBytes(tuple);
    if (memory_limit_ > 0 && bytes > memory_limit_) {
      return MemoryLimitError(bytes, memory_limit_);
    }
    if (bounded()) {
      full_.wait(lock, [&] {
        return (memory_limit_ == 0 || bytes + bytes_ <= memory_limit_) &&
               (capacity_ == 0 || buf_.size() < capacity_);
      });
    }
    bytes_ += bytes;
    buf_.push_back(std::move(tuple));
    lock.unlock();
    not_empty_.notify_all();
    return Status::Ok();
  }
  Tuple Get() {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return !buf_.empty(); });
    Tuple tuple = std::move(buf_.front());
    buf_.pop_front();
    bytes_ -= TupleBytes(tuple);
    lock.unlock();
    full_.notify_all();
    return tuple;
  }
  Tuple Peek(size_t index) {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return index < buf_.size(); });
    return buf_[index];
  }
  size_t Size() {
    std::lock_guard<std::mutex> lock(mu_);
    return buf_.size();
  }
  void Clear() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      buf_.clear();
      bytes_ = 0;
    }
    full_.notify_all();
  }

 private:
  bool bounded() const { return capacity_ > 0 || memory_limit_ > 0; }

  const size_t capacity_, memory_limit_;
  std::mutex mu_;
  std::condition_variable not_empty_, full_;
  std::deque<Tuple> buf_;  // guarded by mu_
  size_t bytes_ = 0;       // guarded by mu_
};

// The attrs that make a node's staging area.
class StagingKernel : public OpKernel {
 public:
  explicit StagingKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("capacity", &capacity_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("memory_limit", &memory_limit_));
  }

 protected:
  // The node's resource R, made by `make` on first use.
  template <typename R, typename Make>
  StatusOr<std::shared_ptr<R>> GetResource(OpKernelContext* ctx,
                                           const char* type_name,
                                           const Make& make) const {
    ResourceMgr* rm = ctx->resource_manager();
    if (rm == nullptr) return Internal("No resource manager.");
    DFG_ASSIGN_OR_RETURN(ContainerInfo info,
                         GetContainerInfo(*this, *rm, true));
    DFG_ASSIGN_OR_RETURN(auto r,
                         rm->LookupOrCreateResource(
                             info.container, type_name, info.name,
                             [&]() -> StatusOr<std::shared_ptr<ResourceBase>> {
                               return std::shared_ptr<ResourceBase>(make());
                             }));
    auto typed = std::dynamic_pointer_cast<R>(r);
    if (typed == nullptr) {
      return Internal("Resource {}/{} is not a {}", info.container, info.name,
                      type_name);
    }
    return typed;
  }

  int64_t capacity_ = 0, memory_limit_ = 0;
};

// Sets outputs [first, ...) to `tuple`, which must fill them.
void EmitTuple(OpKernelContext* ctx, Tuple tuple, int first = 0) {
  const size_t want = ctx->num_outputs() - first;
  DFG_OP_REQUIRES(
      ctx, tuple.size() == want,
      InvalidArgument("Mismatch stage/unstage: {} vs. {}", tuple.size(), want));
  for (size_t i = 0; i < tuple.size(); ++i) {
    ctx->set_output(first + i, std::move(tuple[i]));
  }
}

enum class AreaOp { kStage, kUnstage, kPeek, kSize, kClear };

template <AreaOp kOp>
class StagingAreaOp : public StagingKernel {
 public:
  using StagingKernel::StagingKernel;
  void Compute(OpKernelContext* ctx) override {
    auto area = GetResource<StagingArea>(ctx, StagingArea::kTypeName, [this] {
      return std::make_shared<StagingArea>(capacity_, memory_limit_);
    });
    DFG_OP_REQUIRES_OK(ctx, area.status());
    StagingArea& a = **area;
    if constexpr (kOp == AreaOp::kStage) {
      Tuple tuple;
      for (int i = 0; i < ctx->num_inputs(); ++i) {
        tuple.push_back(ctx->input(i));
      }
      DFG_OP_REQUIRES_OK(ctx, a.Put(std::move(tuple)));
    } else if constexpr (kOp == AreaOp::kUnstage) {
      EmitTuple(ctx, a.Get());
    } else if constexpr (kOp == AreaOp::kPeek) {
      const Tensor& index = ctx->input(0);
      DFG_OP_REQUIRES(ctx, index.dims() == 0,
                      InvalidArgument("index must be scalar"));
      EmitTuple(ctx, a.Peek(static_cast<size_t>(
                         static_cast<int64_t>(index.scalar<int32_t>()))));
    } else if constexpr (kOp == AreaOp::kSize) {
      ctx->set_output(0,
                      Tensor::Scalar<int32_t>(static_cast<int32_t>(a.Size())));
    } else {
      a.Clear();
    }
  }
};

// The keyed areas of MapStage (unordered: hash order, as TensorFlow's
// std::unordered_map iterates) and OrderedMapStage (key order). A put whose
// indices name only some of the dtypes waits in the incomplete set until
// the rest of the key's values arrive.
template <bool kOrdered>
class StagingMap : public ResourceBase {
 public:
  using OptionalTuple = std::vector<std::optional<Tensor>>;
  using Map = std::conditional_t<kOrdered, std::map<int64_t, OptionalTuple>,
                                 std::unordered_map<int64_t, OptionalTuple>>;
  static constexpr const char* kTypeName =
      kOrdered ? "StagingMap<true>" : "StagingMap<false>";

  StagingMap(std::vector<DataType> dtypes, size_t capacity, size_t memory_limit)
      : dtypes_(std::move(dtypes)),
        capacity_(capacity),
        memory_limit_(memory_limit) {}
  std::string DebugString() const override { return "StagingMap"; }

  Status Put(int64_t key, const std::vector<int32_t>& indices, Tuple tuple) {
    std::unique_lock<std::mutex> lock(mu_);
    DFG_RETURN_IF_ERROR(CheckOrdering(indices));
    // TensorFlow's byte count of a tuple being put is the size of its last
    // tensor; removals subtract the whole tuple.
    const size_t bytes = tuple.empty() ? 0 : tuple.back().TotalBytes();
    if (memory_limit_ > 0 && bytes > memory_limit_) {
      return MemoryLimitError(bytes, memory_limit_);
    }
    const bool complete = indices.size() == dtypes_.size();
    full_.wait(lock, [&] {
      return !(memory_limit_ > 0 && bytes + bytes_ > memory_limit_) &&
             (!complete || !(capacity_ > 0 && map_.size() >= capacity_));
    });
    if (complete) {
      OptionalTuple values(tuple.begin(), tuple.end());
      map_.insert({key, std::move(values)});
      bytes_ += bytes;
      not_empty_.notify_all();
      return Status::Ok();
    }
    auto it = incomplete_.find(key);
    const bool fresh = it == incomplete_.end();
    OptionalTuple scratch(dtypes_.size());
    OptionalTuple& present = fresh ? scratch : it->second;
    for (size_t i = 0; i < indices.size(); ++i) {
      DFG_RETURN_IF_ERROR(CheckIndex(key, indices[i]));
      if (!fresh && present[indices[i]].has_value()) {
        return InvalidArgument(
            "The tensor for index '{}' for key '{}' was already initialized "
            "'{}'.",
            indices[i], key, dtypes_.size());
      }
      present[indices[i]] = std::move(tuple[i]);
    }
    bytes_ += bytes;
    if (fresh) {
      incomplete_.insert({key, std::move(scratch)});
    } else if (std::all_of(present.begin(), present.end(),
                           [](const auto& v) { return v.has_value(); })) {
      map_.insert({key, std::move(it->second)});
      incomplete_.erase(it);
      not_empty_.notify_all();
    }
    return Status::Ok();
  }

  // The values at `indices` of `key` (the first key when null, which is
  // set), removed unless `peek`; a key whose values are all taken leaves.
  Status Take(int64_t* key, bool any_key, const std::vector<int32_t>& indices,
              bool peek, Tuple* out) {
    std::unique_lock<std::mutex> lock(mu_);
    DFG_RETURN_IF_ERROR(CheckOrdering(indices));
    typename Map::iterator it;
    not_empty_.wait(lock, [&] {
      it = any_key ? map_.begin() : map_.find(*key);
      return it != map_.end();
    });
    *key = it->first;
    for (int32_t index : indices) {
      DFG_RETURN_IF_ERROR(CheckIndex(*key, index));
      std::optional<Tensor>& v = it->second[index];
      if (!v.has_value()) {
        return InvalidArgument(
            "Tensor at index '{}' for key '{}' has already been removed.",
            index, *key);
      }
      out->push_back(*v);
      if (!peek) v.reset();
    }
    bytes_ -= TupleBytes(*out);
    if (peek) return Status::Ok();
    if (std::none_of(it->second.begin(), it->second.end(),
                     [](const auto& v) { return v.has_value(); })) {
      map_.erase(it);
    }
    lock.unlock();
    full_.notify_all();
    return Status::Ok();
  }

  size_t Size(bool incomplete) {
    std::lock_guard<std::mutex> lock(mu_);
    return incomplete ? incomplete_.size() : map_.size();
  }
  void Clear() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      map_.clear();
      incomplete_.clear();
      bytes_ = 0;
    }
    full_.notify_all();
  }

 private:
  Status CheckIndex(int64_t key, int32_t index) const {
    if (static_cast<size_t>(static_cast<int64_t>(index)) >= dtypes_.size()) {
      return InvalidArgument("Index '{}' for key '{}' was out of bounds '{}'.",
                             static_cast<size_t>(static_cast<int64_t>(index)),
                             key, dtypes_.size());
    }
    return Status::Ok();
  }
  static Status CheckOrdering(const std::vector<int32_t>& indices) {
    if (indices.empty()) return InvalidArgument("Indices are empty");
    for (size_t i = 0; i + 1 < indices.size(); ++i) {
      if (indices[i] >= indices[i + 1]) {
        return InvalidArgument("Indices are not strictly ordered");
      }
    }
    return Status::Ok();
  }

  const std::vector<DataType> dtypes_;
  const size_t capacity_, memory_limit_;
  std::mutex mu_;
  std::condition_variable not_empty_, full_;
  Map map_;                                                // guarded by mu_
  std::unordered_map<int64_t, OptionalTuple> incomplete_;  // guarded by mu_
  size_t bytes_ = 0;                                       // guarded by mu_
};

enum class MapOp {
  kStage,
  kUnstage,
  kUnstageNoKey,
  kPeek,
  kSize,
  kIncomplete,
  kClear
};

template <bool kOrdered, MapOp kOp>
class StagingMapOp : public StagingKernel {
 public:
  explicit StagingMapOp(OpKernelConstruction* ctx) : StagingKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtypes", &dtypes_));
  }
  void Compute(OpKernelContext* ctx) override {
    using M = StagingMap<kOrdered>;
    auto map = GetResource<M>(ctx, M::kTypeName, [this] {
      return std::make_shared<M>(dtypes_, capacity_, memory_limit_);
    });
    DFG_OP_REQUIRES_OK(ctx, map.status());
    M& m = **map;
    if constexpr (kOp == MapOp::kSize || kOp == MapOp::kIncomplete) {
      ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(
                             m.Size(kOp == MapOp::kIncomplete))));
      return;
    } else if constexpr (kOp == MapOp::kClear) {
      m.Clear();
      return;
    }
    constexpr bool kNoKey = kOp == MapOp::kUnstageNoKey;
    int64_t key = 0;
    if constexpr (!kNoKey) {
      const Tensor& k = ctx->input(0);
      if constexpr (kOp == MapOp::kStage) {
        DFG_OP_REQUIRES(ctx, k.NumElements() > 0,
                        InvalidArgument("key must not be empty"));
        DFG_OP_REQUIRES(ctx, k.NumElements() == 1,
                        InvalidArgument("key must be an int64 scalar, got "
                                        "tensor with shape: {}",
                                        k.shape().DebugString()));
      }
      key = k.flat<int64_t>()[0];
    }
    const Tensor& it = ctx->input(kNoKey ? 0 : 1);
    std::span<const int32_t> flat = it.flat<int32_t>();
    std::vector<int32_t> indices(flat.begin(), flat.end());
    if constexpr (kOp == MapOp::kStage) {
      Tuple tuple;
      for (int i = 2; i < ctx->num_inputs(); ++i)
        tuple.push_back(ctx->input(i));
      DFG_OP_REQUIRES_OK(ctx, m.Put(key, indices, std::move(tuple)));
      return;
    }
    Tuple tuple;
    DFG_OP_REQUIRES_OK(
        ctx, m.Take(&key, kNoKey, indices, kOp == MapOp::kPeek, &tuple));
    if (kNoKey) ctx->set_output(0, Tensor::Scalar<int64_t>(key));
    DFG_OP_REQUIRES(ctx, tuple.size() == indices.size(),
                    InvalidArgument("output/indices size mismatch: {} vs. {}",
                                    tuple.size(), indices.size()));
    for (size_t i = 0; i < tuple.size(); ++i) {
      ctx->set_output((kNoKey ? 1 : 0) + i, std::move(tuple[i]));
    }
  }

 private:
  std::vector<DataType> dtypes_;
};

template <bool kOrdered>
void RegisterMapStage(KernelRegistry* r, const std::string& prefix) {
  r->Register<StagingMapOp<kOrdered, MapOp::kStage>>(prefix + "Stage");
  r->Register<StagingMapOp<kOrdered, MapOp::kUnstage>>(prefix + "Unstage");
  r->Register<StagingMapOp<kOrdered, MapOp::kUnstageNoKey>>(prefix +
                                                            "UnstageNoKey");
  r->Register<StagingMapOp<kOrdered, MapOp::kPeek>>(prefix + "Peek");
  r->Register<StagingMapOp<kOrdered, MapOp::kSize>>(prefix + "Size");
  r->Register<StagingMapOp<kOrdered, MapOp::kIncomplete>>(prefix +
                                                          "IncompleteSize");
  r->Register<StagingMapOp<kOrdered, MapOp::kClear>>(prefix + "Clear");
}

}  // namespace

void RegisterAccumulatorKernels(KernelRegistry* r);
void RegisterMiscStateKernels(KernelRegistry* r);
void RegisterInternalKernels(KernelRegistry* r);

void RegisterStateKernels(KernelRegistry* r) {
  RegisterAccumulatorKernels(r);
  RegisterMiscStateKernels(r);
  RegisterInternalKernels(r);
  r->Register<StagingAreaOp<AreaOp::kStage>>("Stage");
  r->Register<StagingAreaOp<AreaOp::kUnstage>>("Unstage");
  r->Register<StagingAreaOp<AreaOp::kPeek>>("StagePeek");
  r->Register<StagingAreaOp<AreaOp::kSize>>("StageSize");
  r->Register<StagingAreaOp<AreaOp::kClear>>("StageClear");
  RegisterMapStage<false>(r, "Map");
  RegisterMapStage<true>(r, "OrderedMap");
}

}  // namespace dfg
