// Lookup tables, the resources behind HashTable(V2) and its Find/Import/
// Export/Size/Initialize kernels (TensorFlow's lookup::LookupInterface,
// InitializableLookupTable and HashTable, core/kernels/lookup_table_op.h),
// and the mutable tables (MutableHashTable, MutableHashTableOfTensors,
// MutableDenseHashTable: hash_table_ops.cc) that also Insert and Remove.
//
// A HashTable is filled once (InitializeTable, InitializeTableFromTextFile,
// LookupTableImport) and is immutable afterwards; Find before that fails with
// "Table not initialized.". Keys are int32, int64 or string, values bool,
// int32, int64, float, double or string, scalars each.
#ifndef DFG_LIB_KERNELS_LOOKUP_TABLE_H_
#define DFG_LIB_KERNELS_LOOKUP_TABLE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "lib/base/status.h"
#include "lib/kernels/op_kernel.h"
#include "lib/kernels/resource_mgr.h"
#include "lib/kernels/tensor.h"

namespace dfg {

class LookupTable : public ResourceBase {
 public:
  // TensorFlow's type name of table handles (lookup::LookupInterface).
  static constexpr char kTypeName[] = "N10tensorflow6lookup15LookupInterfaceE";

  LookupTable(DataType key_dtype, DataType value_dtype)
      : key_dtype_(key_dtype), value_dtype_(value_dtype) {}

  DataType key_dtype() const { return key_dtype_; }
  DataType value_dtype() const { return value_dtype_; }
  bool is_initialized() const {
    return initialized_.load(std::memory_order_acquire);
  }
  std::string DebugString() const override;

  // Entries (0 until initialized).
  virtual int64_t size() const = 0;

  // The shape of one value: scalar except for the tables of tensors.
  virtual TensorShape value_shape() const { return TensorShape(); }

  // Mutable tables: sets each key's value (Insert), drops keys (Remove);
  // Import replaces all entries. The immutable HashTable's Import is
  // Initialize, and it has no Insert or Remove (kUnimplemented).
  virtual Status Insert(const Tensor& keys, const Tensor& values);
  virtual Status Remove(const Tensor& keys);
  virtual Status Import(const Tensor& keys, const Tensor& values) {
    return Initialize(keys, values);
  }

  // `out` (allocated by the caller: keys' shape, value dtype) = the value of
  // each key, else `default_value` (a scalar, or one per key). Errors:
  // kFailedPrecondition "Table not initialized.", kInvalidArgument for
  // dtypes and shapes (TensorFlow's CheckFindArguments).
  Status Find(const Tensor& keys, const Tensor& default_value,
              Tensor* out) const;

  // TensorFlow's InitializableLookupTable::Initialize over (keys, values)
  // of matching shapes: an initialized table accepts the same number of
  // entries again (no-op) and rejects any other ("Table was already
  // initialized with different data."). A key given two different values:
  // kFailedPrecondition "HashTable has different value for same key. ...".
  Status Initialize(const Tensor& keys, const Tensor& values);

  // Every entry, sorted by key (TensorFlow's order is the hash map's).
  virtual void Export(Tensor* keys, Tensor* values) const = 0;

  // TensorFlow's CheckKeyAndValueTensorsForInsert: dtypes ("Key must be type
  // 9 but got 3", numbers as TensorFlow prints them) and "Expected shape
  // [2] for value, got [3]".
  Status CheckKeyAndValueTensors(const Tensor& keys,
                                 const Tensor& values) const;

  // A HashTable for the dtype pair; kInvalidArgument for an unsupported one.
  static StatusOr<std::shared_ptr<LookupTable>> MakeHashTable(
      DataType key_dtype, DataType value_dtype);

 protected:
  virtual void DoFind(const Tensor& keys, const Tensor& default_value,
                      Tensor* out) const = 0;
  // Inserts every pair (called once, under the initialization lock).
  virtual Status DoInsert(const Tensor& keys, const Tensor& values) = 0;
  // Mutable tables are usable from the start.
  void MarkInitialized() {
    initialized_.store(true, std::memory_order_release);
  }

 private:
  DataType key_dtype_;
  DataType value_dtype_;
  std::mutex mu_;  // serializes initialization
  std::atomic<bool> initialized_{false};
};

// Makes the table of a table-constructing kernel (HashTable, MutableHash-
// Table..., their V2 and Anonymous forms), from its attrs and, for the dense
// table, its empty_key/deleted_key inputs (hash_table_ops.cc).
using TableFactory =
    std::function<StatusOr<std::shared_ptr<LookupTable>>(OpKernelContext*)>;
// Errors (kInvalidArgument): an unsupported dtype pair or a bad attr.
StatusOr<TableFactory> MakeTableFactory(OpKernelConstruction* ctx);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_LOOKUP_TABLE_H_
