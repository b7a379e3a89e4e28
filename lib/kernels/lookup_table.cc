// HashTable<K, V>: an std::unordered_map filled once, read without a lock
// afterwards (the initialized flag is released after the last insert).
#include "lib/kernels/lookup_table.h"

#include <algorithm>
#include <unordered_map>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// Values as TensorFlow's StrCat prints them in messages (bool as 1/0).
template <typename T>
std::string Show(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else {
    return fmt::format("{}", v);
  }
}

template <typename K, typename V>
class HashTable : public LookupTable {
 public:
  using LookupTable::LookupTable;

  int64_t size() const override {
    return is_initialized() ? static_cast<int64_t>(table_.size()) : 0;
  }

  void Export(Tensor* keys, Tensor* values) const override {
    std::vector<const std::pair<const K, V>*> entries;
    if (is_initialized()) {
      for (const auto& e : table_) entries.push_back(&e);
    }
    std::sort(entries.begin(), entries.end(),
              [](auto* a, auto* b) { return a->first < b->first; });
    const int64_t n = static_cast<int64_t>(entries.size());
    *keys = Tensor(key_dtype(), TensorShape({n}));
    *values = Tensor(value_dtype(), TensorShape({n}));
    for (int64_t i = 0; i < n; ++i) {
      keys->flat<K>()[i] = entries[i]->first;
      values->flat<V>()[i] = entries[i]->second;
    }
  }

 protected:
  void DoFind(const Tensor& keys, const Tensor& default_value,
              Tensor* out) const override {
    auto k = keys.flat<K>();
    auto d = default_value.flat<V>();
    auto o = out->flat<V>();
    const bool scalar_default = d.size() == 1;
    for (size_t i = 0; i < k.size(); ++i) {
      auto it = table_.find(k[i]);
      o[i] = it != table_.end() ? it->second : d[scalar_default ? 0 : i];
    }
  }

  Status DoInsert(const Tensor& keys, const Tensor& values) override {
    auto k = keys.flat<K>();
    auto v = values.flat<V>();
    table_.reserve(table_.size() + k.size());
    for (size_t i = 0; i < k.size(); ++i) {
      auto [it, inserted] = table_.try_emplace(k[i], v[i]);
      if (!inserted && !(it->second == v[i])) {
        return FailedPrecondition(
            "HashTable has different value for same key. Key {} has {} and "
            "trying to add value {}",
            Show(k[i]), Show(it->second), Show(v[i]));
      }
    }
    return Status::Ok();
  }

 private:
  std::unordered_map<K, V> table_;
};

using KeyTypes = TypeList<int32_t, int64_t, std::string>;
using ValueTypes = TypeList<bool, int32_t, int64_t, float, double, std::string>;

// The pairs TensorFlow registers HashTable kernels for (minus variant).
bool IsRegisteredPair(DataType k, DataType v) {
  using tensorflow::DT_BOOL;
  using tensorflow::DT_INT32;
  using tensorflow::DT_INT64;
  using tensorflow::DT_STRING;
  if (k == DT_STRING) return true;
  if (v == DT_BOOL) return false;
  if (k == DT_INT32) return v != DT_INT64;
  return k == DT_INT64;
}

std::string ShapeText(const TensorShape& s) { return s.DebugString(); }

}  // namespace

std::string LookupTable::DebugString() const {
  return fmt::format("A lookup table of {} -> {}", DataTypeString(key_dtype_),
                     DataTypeString(value_dtype_));
}

Status LookupTable::CheckKeyAndValueTensors(const Tensor& keys,
                                            const Tensor& values) const {
  if (keys.dtype() != key_dtype_) {
    return InvalidArgument("Key must be type {} but got {}",
                           static_cast<int>(key_dtype_),
                           static_cast<int>(keys.dtype()));
  }
  if (values.dtype() != value_dtype_) {
    return InvalidArgument("Value must be type {} but got {}",
                           static_cast<int>(value_dtype_),
                           static_cast<int>(values.dtype()));
  }
  TensorShape want = keys.shape();
  for (int64_t d : value_shape().dim_sizes()) want.AddDim(d);
  if (values.shape() != want) {
    return InvalidArgument("Expected shape {} for value, got {}",
                           ShapeText(want), ShapeText(values.shape()));
  }
  return Status::Ok();
}

Status LookupTable::Find(const Tensor& keys, const Tensor& default_value,
                         Tensor* out) const {
  if (!is_initialized()) return FailedPrecondition("Table not initialized.");
  if (keys.dtype() != key_dtype_) {
    return InvalidArgument("Key must be type {} but got {}",
                           static_cast<int>(key_dtype_),
                           static_cast<int>(keys.dtype()));
  }
  if (default_value.dtype() != value_dtype_) {
    return InvalidArgument("Value must be type {} but got {}",
                           static_cast<int>(value_dtype_),
                           static_cast<int>(default_value.dtype()));
  }
  TensorShape full = keys.shape();
  for (int64_t d : value_shape().dim_sizes()) full.AddDim(d);
  if (default_value.shape() != value_shape() && default_value.shape() != full) {
    return InvalidArgument("Expected shape {} or {} for default value, got {}",
                           ShapeText(value_shape()), ShapeText(full),
                           ShapeText(default_value.shape()));
  }
  DoFind(keys, default_value, out);
  return Status::Ok();
}

Status LookupTable::Initialize(const Tensor& keys, const Tensor& values) {
  DFG_RETURN_IF_ERROR(CheckKeyAndValueTensors(keys, values));
  std::lock_guard<std::mutex> lock(mu_);
  if (is_initialized()) {
    if (keys.NumElements() != size()) {
      return FailedPrecondition(
          "Table was already initialized with different data.");
    }
    return Status::Ok();
  }
  DFG_RETURN_IF_ERROR(DoInsert(keys, values));
  initialized_.store(true, std::memory_order_release);
  return Status::Ok();
}

Status LookupTable::Insert(const Tensor&, const Tensor&) {
  return Unimplemented(
      "Insert not supported by InitializableLookupTable implementations");
}

Status LookupTable::Remove(const Tensor&) {
  return Unimplemented(
      "Remove not supported by InitializableLookupTable implementations");
}

StatusOr<std::shared_ptr<LookupTable>> LookupTable::MakeHashTable(
    DataType key_dtype, DataType value_dtype) {
  std::shared_ptr<LookupTable> table;
  if (IsRegisteredPair(key_dtype, value_dtype)) {
    Dispatch(KeyTypes(), key_dtype, [&](auto k) {
      Dispatch(ValueTypes(), value_dtype, [&](auto v) {
        table = std::make_shared<HashTable<decltype(k), decltype(v)>>(
            key_dtype, value_dtype);
      });
    });
  }
  if (table == nullptr) {
    return InvalidArgument("HashTable does not support {} -> {}",
                           DataTypeString(key_dtype),
                           DataTypeString(value_dtype));
  }
  return table;
}

}  // namespace dfg
