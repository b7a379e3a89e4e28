// The mutable lookup tables (TensorFlow's core/kernels/lookup_table_op.h:
// MutableHashTableOfScalars, MutableHashTableOfTensors, MutableDenseHash-
// Table) and the factory every table-constructing kernel of lookup_ops.cc
// makes its table with.
//
// One implementation serves all three: a hash map from key to a run of
// value_shape.num_elements() values, read under a shared lock and written
// under an exclusive one (Find may run beside Insert). The dense table adds
// its two reserved keys, which may not be inserted, found or removed.
// Export lists entries sorted by key; TensorFlow's order is its hash map's
// (and the dense table's whole bucket array), so only the set is the same.
#include <algorithm>
#include <optional>
#include <shared_mutex>
#include <unordered_map>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/lookup_table.h"

namespace dfg {
namespace {

template <typename K, typename V>
class MutableTable : public LookupTable {
 public:
  MutableTable(DataType key_dtype, DataType value_dtype, TensorShape shape,
               std::optional<std::pair<K, K>> reserved)
      : LookupTable(key_dtype, value_dtype),
        value_shape_(std::move(shape)),
        width_(value_shape_.num_elements()),
        reserved_(std::move(reserved)) {
    MarkInitialized();
  }

  TensorShape value_shape() const override { return value_shape_; }

  int64_t size() const override {
    std::shared_lock lock(mu_);
    return static_cast<int64_t>(map_.size());
  }

  void Export(Tensor* keys, Tensor* values) const override {
    std::shared_lock lock(mu_);
    std::vector<const typename Map::value_type*> entries;
    for (const auto& e : map_) entries.push_back(&e);
    std::sort(entries.begin(), entries.end(),
              [](auto* a, auto* b) { return a->first < b->first; });
    const int64_t n = static_cast<int64_t>(entries.size());
    // The dense table's layout is TensorFlow's: keys [n, 1], values
    // [n, value size] (its buckets, here only the full ones).
    TensorShape kshape({n}), vshape({n});
    if (reserved_) kshape.AddDim(1);
    if (reserved_ && value_shape_.dims() == 0) vshape.AddDim(1);
    for (int64_t d : value_shape_.dim_sizes()) vshape.AddDim(d);
    *keys = Tensor(key_dtype(), kshape);
    *values = Tensor(value_dtype(), vshape);
    auto k = keys->flat<K>();
    auto v = values->flat<V>();
    for (int64_t i = 0; i < n; ++i) {
      k[i] = entries[i]->first;
      std::copy(entries[i]->second.begin(), entries[i]->second.end(),
                v.begin() + i * width_);
    }
  }

  Status Insert(const Tensor& keys, const Tensor& values) override {
    DFG_RETURN_IF_ERROR(CheckKeyAndValueTensors(keys, values));
    DFG_RETURN_IF_ERROR(CheckReserved(keys));
    std::unique_lock lock(mu_);
    Put(keys, values);
    return Status::Ok();
  }

  Status Remove(const Tensor& keys) override {
    if (keys.dtype() != key_dtype()) {
      return InvalidArgument("Key must be type {} but got {}",
                             static_cast<int>(key_dtype()),
                             static_cast<int>(keys.dtype()));
    }
    DFG_RETURN_IF_ERROR(CheckReserved(keys));
    std::unique_lock lock(mu_);
    for (const K& k : keys.flat<K>()) map_.erase(k);
    return Status::Ok();
  }

  // The dense table imports TensorFlow's bucket arrays (what its Export
  // and checkpoints hold): slots holding a reserved key are empty.
  Status Import(const Tensor& keys, const Tensor& values) override {
    if (reserved_) {
      DFG_RETURN_IF_ERROR(CheckBuckets(keys, values));
    } else {
      DFG_RETURN_IF_ERROR(CheckKeyAndValueTensors(keys, values));
      DFG_RETURN_IF_ERROR(CheckReserved(keys));
    }
    std::unique_lock lock(mu_);
    map_.clear();
    Put(keys, values, /*skip_reserved=*/true);
    return Status::Ok();
  }

 protected:
  void DoFind(const Tensor& keys, const Tensor& default_value,
              Tensor* out) const override {
    auto k = keys.flat<K>();
    auto d = default_value.flat<V>();
    auto o = out->flat<V>();
    const bool per_key = d.size() != static_cast<size_t>(width_) ||
                         (k.size() == 1 && d.size() == 1);
    std::shared_lock lock(mu_);
    for (size_t i = 0; i < k.size(); ++i) {
      auto it = map_.find(k[i]);
      if (it != map_.end()) {
        std::copy(it->second.begin(), it->second.end(), o.begin() + i * width_);
      } else {
        const V* src = per_key ? d.data() + i * width_ : d.data();
        std::copy(src, src + width_, o.begin() + i * width_);
      }
    }
  }

  Status DoInsert(const Tensor& keys, const Tensor& values) override {
    std::unique_lock lock(mu_);
    Put(keys, values);
    return Status::Ok();
  }

 private:
  // vector<bool> is no container of bools: bools are kept as bytes.
  using Stored = std::conditional_t<std::is_same_v<V, bool>, uint8_t, V>;
  using Map = std::unordered_map<K, std::vector<Stored>>;

  // TensorFlow's dense table keeps keys as [buckets, 1] and values as
  // [buckets, value size]: an import must come in that layout.
  Status CheckBuckets(const Tensor& keys, const Tensor& values) const {
    if (keys.dtype() != key_dtype() || values.dtype() != value_dtype()) {
      return CheckKeyAndValueTensors(keys, values);
    }
    std::vector<int64_t> want;
    for (int d = 0; d + 1 < keys.dims(); ++d) want.push_back(keys.dim_size(d));
    if (value_shape_.dims() == 0) want.push_back(1);
    for (int64_t d : value_shape_.dim_sizes()) want.push_back(d);
    const TensorShape expected{std::span<const int64_t>(want)};
    if (values.shape() != expected) {
      return InvalidArgument("Expected shape {} for value, got {}",
                             expected.DebugString(),
                             values.shape().DebugString());
    }
    return Status::Ok();
  }

  Status CheckReserved(const Tensor& keys) const {
    if (!reserved_) return Status::Ok();
    for (const K& k : keys.flat<K>()) {
      if (k == reserved_->first) {
        return InvalidArgument(
            "Using the empty_key as a table key is not allowed");
      }
      if (k == reserved_->second) {
        return InvalidArgument(
            "Using the deleted_key as a table key is not allowed");
      }
    }
    return Status::Ok();
  }

  void Put(const Tensor& keys, const Tensor& values,
           bool skip_reserved = false) {
    auto k = keys.flat<K>();
    auto v = values.flat<V>();
    for (size_t i = 0; i < k.size(); ++i) {
      if (skip_reserved && reserved_ &&
          (k[i] == reserved_->first || k[i] == reserved_->second)) {
        continue;
      }
      map_[k[i]].assign(v.begin() + i * width_, v.begin() + (i + 1) * width_);
    }
  }

  TensorShape value_shape_;
  int64_t width_;
  std::optional<std::pair<K, K>> reserved_;  // dense: empty, deleted keys
  mutable std::shared_mutex mu_;
  Map map_;  // guarded by mu_
};

using KeyTypes = TypeList<int32_t, int64_t, std::string>;
using ValueTypes = TypeList<bool, int32_t, int64_t, float, double, std::string>;

struct TableSpec {
  DataType key, value;
  TensorShape value_shape;
  bool dense = false;
  bool legacy_dense = false;  // MutableDenseHashTable: no deleted_key input
};

StatusOr<std::shared_ptr<LookupTable>> MakeMutable(const TableSpec& spec,
                                                   OpKernelContext* ctx) {
  std::shared_ptr<LookupTable> table;
  Status status;
  Dispatch(KeyTypes(), spec.key, [&](auto k) {
    using K = decltype(k);
    std::optional<std::pair<K, K>> reserved;
    if (spec.dense) {
      const Tensor& empty = ctx->input(0);
      if (empty.NumElements() != 1) {
        status = InvalidArgument("Expected key shape [] got {}",
                                 empty.shape().DebugString());
        return;
      }
      // TensorFlow's kernel serves both forms and reads deleted_key by
      // name, which the legacy op does not have: it always fails.
      if (spec.legacy_dense) {
        status = InvalidArgument("Unknown input name: deleted_key");
        return;
      }
      const K deleted = ctx->input(1).flat<K>()[0];
      if (deleted == empty.flat<K>()[0]) {
        status = InvalidArgument("Empty and deleted keys cannot be equal");
        return;
      }
      reserved.emplace(empty.flat<K>()[0], deleted);
    }
    Dispatch(ValueTypes(), spec.value, [&](auto v) {
      table = std::make_shared<MutableTable<K, decltype(v)>>(
          spec.key, spec.value, spec.value_shape, reserved);
    });
  });
  DFG_RETURN_IF_ERROR(status);
  if (table == nullptr) {
    return InvalidArgument("MutableHashTable does not support {} -> {}",
                           DataTypeString(spec.key),
                           DataTypeString(spec.value));
  }
  return table;
}

}  // namespace

StatusOr<TableFactory> MakeTableFactory(OpKernelConstruction* ctx) {
  TableSpec spec;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("key_dtype", &spec.key));
  DFG_RETURN_IF_ERROR(ctx->GetAttr("value_dtype", &spec.value));
  const std::string& op = ctx->def().op();
  if (op.find("Mutable") == std::string::npos) {
    DFG_RETURN_IF_ERROR(
        LookupTable::MakeHashTable(spec.key, spec.value).status());
    return TableFactory([spec](OpKernelContext*) {
      return LookupTable::MakeHashTable(spec.key, spec.value);
    });
  }
  if (op.find("OfTensors") != std::string::npos ||
      op.find("Dense") != std::string::npos) {
    TensorShapeProto proto;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("value_shape", &proto));
    DFG_ASSIGN_OR_RETURN(spec.value_shape, TensorShape::FromProto(proto));
  }
  spec.dense = op.find("Dense") != std::string::npos;
  spec.legacy_dense = op == "MutableDenseHashTable";
  return TableFactory(
      [spec](OpKernelContext* c) { return MakeMutable(spec, c); });
}

}  // namespace dfg
