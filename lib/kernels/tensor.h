// Tensor: a dtype, a shape and a reference-counted, 64-byte-aligned buffer.
//
// Copying a Tensor is cheap (no allocation for rank <= 6, one atomic
// increment); copies share the buffer, so writing through one copy is seen by
// the others. Kernels write only into tensors they allocated (or were allowed
// to forward, see OpKernelContext). DT_STRING elements are std::string,
// DT_RESOURCE elements are ResourceHandle (element_types.h); both are
// constructed and destroyed with the buffer. Numeric buffers are NOT zeroed
// on allocation. Freed blocks of 256 KiB and more are kept (up to 1 GiB in
// all) and reused for the same size, so that big tensors of a repeated step
// do not page-fault in again.
//
// A Tensor is "initialized" when it has a buffer (or zero elements); the
// default Tensor and Tensor(dtype) are not (a VariableV2 before Assign).
#ifndef DFG_LIB_KERNELS_TENSOR_H_
#define DFG_LIB_KERNELS_TENSOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/types.h"
#include "lib/kernels/element_types.h"
#include "lib/proto/tensor.pb.h"
#include "lib/proto/tensor_shape.pb.h"

namespace dfg {

using tensorflow::TensorProto;
using tensorflow::TensorShapeProto;

// A fully defined shape: int64 dims, each >= 0. Default: a scalar.
class TensorShape {
 public:
  TensorShape() = default;
  TensorShape(std::initializer_list<int64_t> dims);
  explicit TensorShape(std::span<const int64_t> dims);
  TensorShape(const TensorShape& other);
  TensorShape& operator=(const TensorShape& other);
  ~TensorShape();

  // Errors (kInvalidArgument): unknown rank or dims ("Shape [?,3] is not
  // fully defined"), negative dims, more than 2^63-1 elements.
  static StatusOr<TensorShape> FromProto(const TensorShapeProto& proto);
  // True when every dim is >= 0 and the product does not overflow.
  static bool IsValid(std::span<const int64_t> dims);
  void AsProto(TensorShapeProto* proto) const;

  int dims() const { return rank_; }
  int64_t dim_size(int i) const { return data()[i]; }
  std::span<const int64_t> dim_sizes() const { return {data(), size_t(rank_)}; }
  int64_t num_elements() const { return num_elements_; }

  void AddDim(int64_t size);
  void InsertDim(int d, int64_t size);
  void RemoveDim(int d);
  void set_dim(int d, int64_t size);

  // "[2,3]", "[]" for a scalar.
  std::string DebugString() const;

  bool IsSameSize(const TensorShape& other) const;
  friend bool operator==(const TensorShape& a, const TensorShape& b) {
    return a.IsSameSize(b);
  }
  friend bool operator!=(const TensorShape& a, const TensorShape& b) {
    return !a.IsSameSize(b);
  }

 private:
  static constexpr int kInline = 6;
  const int64_t* data() const { return rank_ <= kInline ? inline_ : heap_; }
  int64_t* data() { return rank_ <= kInline ? inline_ : heap_; }
  void Assign(std::span<const int64_t> dims);
  void Recompute();

  union {
    int64_t inline_[kInline];
    int64_t* heap_;  // owned when rank_ > kInline
  };
  int32_t rank_ = 0;
  int64_t num_elements_ = 1;
};

// "[2,?,3]" for a (possibly partial) TensorShapeProto; "<unknown>" for
// unknown rank.
std::string PartialShapeDebugString(const TensorShapeProto& proto);

// The shared storage of a Tensor. Allocated in one 64-byte-aligned block.
class TensorBuffer {
 public:
  // Allocates `num_elements` elements of `dtype` (IsSupportedTensorType);
  // nullptr when out of memory.
  static TensorBuffer* Allocate(DataType dtype, int64_t num_elements);

  void* data() const { return data_; }
  size_t size_bytes() const { return bytes_; }
  int64_t num_elements() const { return num_elements_; }

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref();
  bool RefCountIsOne() const {
    return refs_.load(std::memory_order_acquire) == 1;
  }

 private:
  TensorBuffer() = default;
  std::atomic<int32_t> refs_{1};
  DataType dtype_ = tensorflow::DT_INVALID;
  int64_t num_elements_ = 0;
  size_t bytes_ = 0;
  void* data_ = nullptr;
};

class Tensor {
 public:
  // Uninitialized DT_INVALID scalar.
  Tensor() = default;
  // Uninitialized tensor of `dtype` (no buffer), shape [].
  explicit Tensor(DataType dtype);
  // Allocates a buffer. `dtype` must be IsSupportedTensorType; a failed
  // allocation throws TensorAllocationError (memory_budget.h).
  Tensor(DataType dtype, const TensorShape& shape);
  // Allocates a buffer; errors: kInvalidArgument for an unsupported dtype,
  // kResourceExhausted "OOM when allocating tensor with shape[2,3] and type
  // float on cpu".
  static StatusOr<Tensor> TryAllocate(DataType dtype, const TensorShape& shape);

  Tensor(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor();

  // A scalar of T's dtype holding `value`.
  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape());
    t.scalar<T>() = std::move(value);
    return t;
  }
  // A 1-D tensor with `values`.
  template <typename T>
  static Tensor Vector(const std::vector<T>& values) {
    Tensor t(DataTypeToEnum<T>::value,
             TensorShape({static_cast<int64_t>(values.size())}));
    auto f = t.flat<T>();
    for (size_t i = 0; i < values.size(); ++i) f[i] = values[i];
    return t;
  }

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int i) const { return shape_.dim_size(i); }
  int64_t NumElements() const { return shape_.num_elements(); }
  bool IsInitialized() const {
    return buf_ != nullptr ||
           (dtype_ != tensorflow::DT_INVALID && shape_.num_elements() == 0);
  }
  // Bytes of the elements (0 for string/resource: not fixed-size).
  size_t TotalBytes() const;

  // Typed views. DFG_CHECK that DataTypeToEnum<T> == dtype().
  template <typename T>
  std::span<T> flat() {
    CheckType(DataTypeToEnum<T>::value);
    return {static_cast<T*>(data()), static_cast<size_t>(NumElements())};
  }
  template <typename T>
  std::span<const T> flat() const {
    CheckType(DataTypeToEnum<T>::value);
    return {static_cast<const T*>(data()), static_cast<size_t>(NumElements())};
  }
  // The single element of a 1-element tensor (any rank).
  template <typename T>
  T& scalar() {
    CheckType(DataTypeToEnum<T>::value);
    CheckOneElement();
    return *static_cast<T*>(data());
  }
  template <typename T>
  const T& scalar() const {
    CheckType(DataTypeToEnum<T>::value);
    CheckOneElement();
    return *static_cast<const T*>(data());
  }
  // Raw element storage (nullptr when uninitialized or empty).
  void* data() const { return buf_ ? buf_->data() : nullptr; }

  // Sets the shape of a tensor without a buffer (a variable's declared shape
  // before its first assignment). DFG_CHECK: no buffer.
  void set_shape_uninitialized(const TensorShape& shape);

  // Shares the buffer with a different shape of the same number of elements;
  // false (and no change) if the counts differ.
  bool CopyFrom(const Tensor& other, const TensorShape& shape);
  // A tensor with its own copy of the elements.
  Tensor DeepCopy() const;
  bool SharesBufferWith(const Tensor& other) const {
    return buf_ != nullptr && buf_ == other.buf_;
  }
  // True when this Tensor is the only owner of its buffer (so a kernel may
  // write into it in place).
  bool RefCountIsOne() const {
    return buf_ != nullptr && buf_->RefCountIsOne();
  }

  // TF-SEMANTICS §6.4. Errors (kInvalidArgument): unknown/unsupported dtype,
  // invalid shape, tensor_content size not num_elements * element size,
  // malformed string content. DT_VARIANT and float8/int4: kUnimplemented.
  static StatusOr<Tensor> FromProto(const TensorProto& proto);
  // Numeric types as tensor_content (use_tensor_content) or typed *_val
  // fields; strings and resources always as typed fields.
  void ToProto(TensorProto* proto, bool use_tensor_content = true) const;

  // NumPy-like text of at most `max_entries` elements (-1: all), e.g.
  // "[[1 2 3]\n [4 5 6]]", "[1 2 3...]" when truncated, "7" for a scalar,
  // strings quoted ("hi" with C escapes). Uninitialized: "<uninitialized>".
  std::string SummarizeValue(int64_t max_entries = 10) const;
  // "Tensor<type: float shape: [2] values: [1 2]>".
  std::string DebugString(int64_t max_entries = 3) const;

 private:
  void CheckType(DataType expected) const {
    if (dtype_ != expected) [[unlikely]]
      TypeMismatch(expected);
  }
  void CheckOneElement() const {
    if (NumElements() != 1 || buf_ == nullptr) [[unlikely]]
      NotOneElement();
  }
  [[noreturn]] void TypeMismatch(DataType expected) const;
  [[noreturn]] void NotOneElement() const;

  DataType dtype_ = tensorflow::DT_INVALID;
  TensorShape shape_;
  TensorBuffer* buf_ = nullptr;  // Owned reference.
};

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_TENSOR_H_
