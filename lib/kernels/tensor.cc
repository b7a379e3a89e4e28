// TensorShape, TensorBuffer and the value semantics of Tensor.
#include "lib/kernels/tensor.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include "lib/kernels/memory_budget.h"
#include "lib/kernels/variant.h"

namespace dfg {

// ---------------------------------------------------------------------------
// TensorShape

TensorShape::TensorShape(std::initializer_list<int64_t> dims) {
  Assign(std::span<const int64_t>(dims.begin(), dims.size()));
}

TensorShape::TensorShape(std::span<const int64_t> dims) { Assign(dims); }

// Copies of inline shapes (rank <= kInline, nearly all) are a fixed-size
// copy: tensors are copied and moved on every executor edge.
TensorShape::TensorShape(const TensorShape& other) {
  if (other.rank_ <= kInline) {
    std::memcpy(inline_, other.inline_, sizeof(inline_));
    rank_ = other.rank_;
    num_elements_ = other.num_elements_;
    return;
  }
  Assign(other.dim_sizes());
}

TensorShape& TensorShape::operator=(const TensorShape& other) {
  if (this == &other) return *this;
  if (rank_ <= kInline && other.rank_ <= kInline) {
    std::memcpy(inline_, other.inline_, sizeof(inline_));
    rank_ = other.rank_;
    num_elements_ = other.num_elements_;
    return *this;
  }
  Assign(other.dim_sizes());
  return *this;
}

TensorShape::~TensorShape() {
  if (rank_ > kInline) delete[] heap_;
}

void TensorShape::Assign(std::span<const int64_t> dims) {
  const int new_rank = static_cast<int>(dims.size());
  if (rank_ > kInline && new_rank <= kInline) {
    delete[] heap_;
  }
  if (new_rank > kInline) {
    int64_t* storage = new int64_t[new_rank];
    std::memcpy(storage, dims.data(), new_rank * sizeof(int64_t));
    if (rank_ > kInline) delete[] heap_;
    heap_ = storage;
  } else if (new_rank > 0) {
    std::memmove(inline_, dims.data(), new_rank * sizeof(int64_t));
  }
  rank_ = new_rank;
  Recompute();
}

void TensorShape::Recompute() {
  int64_t n = 1;
  for (int64_t d : dim_sizes()) n *= d;
  num_elements_ = n;
}

bool TensorShape::IsValid(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return false;
    if (d != 0 && n > INT64_MAX / d) return false;
    n *= d;
  }
  return true;
}

StatusOr<TensorShape> TensorShape::FromProto(const TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    return InvalidArgument("Shape {} is not fully defined",
                           PartialShapeDebugString(proto));
  }
  std::vector<int64_t> dims;
  dims.reserve(proto.dim_size());
  for (const auto& d : proto.dim()) {
    if (d.size() < 0) {
      return InvalidArgument("Shape {} is not fully defined",
                             PartialShapeDebugString(proto));
    }
    dims.push_back(d.size());
  }
  if (!IsValid(dims)) {
    return InvalidArgument("Shape {} has too many elements",
                           PartialShapeDebugString(proto));
  }
  return TensorShape(std::span<const int64_t>(dims));
}

void TensorShape::AsProto(TensorShapeProto* proto) const {
  proto->Clear();
  for (int64_t d : dim_sizes()) proto->add_dim()->set_size(d);
}

void TensorShape::AddDim(int64_t size) { InsertDim(rank_, size); }

void TensorShape::InsertDim(int d, int64_t size) {
  std::vector<int64_t> dims(dim_sizes().begin(), dim_sizes().end());
  dims.insert(dims.begin() + d, size);
  Assign(dims);
}

void TensorShape::RemoveDim(int d) {
  std::vector<int64_t> dims(dim_sizes().begin(), dim_sizes().end());
  dims.erase(dims.begin() + d);
  Assign(dims);
}

void TensorShape::set_dim(int d, int64_t size) {
  data()[d] = size;
  Recompute();
}

std::string TensorShape::DebugString() const {
  std::string out = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i > 0) out += ',';
    out += std::to_string(dim_size(i));
  }
  out += ']';
  return out;
}

bool TensorShape::IsSameSize(const TensorShape& other) const {
  if (rank_ != other.rank_) return false;
  for (int i = 0; i < rank_; ++i) {
    if (dim_size(i) != other.dim_size(i)) return false;
  }
  return true;
}

std::string PartialShapeDebugString(const TensorShapeProto& proto) {
  if (proto.unknown_rank()) return "<unknown>";
  std::string out = "[";
  for (int i = 0; i < proto.dim_size(); ++i) {
    if (i > 0) out += ',';
    const int64_t d = proto.dim(i).size();
    out += d < 0 ? std::string("?") : std::to_string(d);
  }
  out += ']';
  return out;
}

// ---------------------------------------------------------------------------
// TensorBuffer

namespace {

constexpr size_t kAlign = 64;
constexpr size_t kHeader = 64;  // TensorBuffer lives in the first 64 bytes

size_t ElementSize(DataType dtype) {
  if (dtype == tensorflow::DT_VARIANT) return sizeof(Variant);
  size_t size = 0;
  VisitElementType(dtype, [&](auto v) { size = sizeof(v); });
  return size;
}

bool IsNonTrivial(DataType dtype) {
  return dtype == tensorflow::DT_STRING || dtype == tensorflow::DT_RESOURCE ||
         dtype == tensorflow::DT_VARIANT;
}

template <typename T>
void ConstructAll(void* data, int64_t n) {
  T* p = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) new (p + i) T();
}

template <typename T>
void DestroyAll(void* data, int64_t n) {
  T* p = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) p[i].~T();
}

// Large blocks are kept for reuse: a fresh multi-megabyte allocation is a
// new mmap whose pages fault in on first touch, which costs more than the
// element-wise work on them. Exact sizes recur from step to step.
class BlockCache {
 public:
  static constexpr size_t kMinBytes = 256 << 10;
  static constexpr size_t kMaxCachedBytes = size_t{1} << 30;

  void* Get(size_t size) {
    if (size < kMinBytes) return nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(size);
    if (it == free_.end()) return nullptr;
    void* block = it->second;
    free_.erase(it);
    cached_ -= size;
    return block;
  }
  // False: the caller frees the block.
  bool Put(void* block, size_t size) {
    if (size < kMinBytes) return false;
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_ + size > kMaxCachedBytes) return false;
    free_.emplace(size, block);
    cached_ += size;
    return true;
  }
  void Clear() {
    std::multimap<size_t, void*> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      blocks.swap(free_);
      cached_ = 0;
    }
    for (auto& [size, block] : blocks) std::free(block);
  }

 private:
  std::mutex mu_;
  std::multimap<size_t, void*> free_;
  size_t cached_ = 0;
};

// Small blocks are recycled per thread: glibc's aligned allocation splits
// and coalesces chunks on every call (the largest cost of a step of tiny
// nodes, such as a loop body run once per iteration), and the same sizes
// recur node after node. A freed block goes to the freeing thread's list of
// its size (64-byte classes up to kMaxBytes, a few blocks each); the rest go
// back to malloc. Trivially destructible, so that it outlives every other
// thread_local; a closer frees the lists at thread exit.
struct SmallBlocks {
  static constexpr size_t kMaxBytes = 4096;
  static constexpr int kClasses = kMaxBytes / kAlign;
  static constexpr int kPerClass = 8;
  void* blocks[kClasses][kPerClass];
  uint8_t count[kClasses];
  bool registered;
  bool closed;
};
thread_local SmallBlocks small_blocks;  // zero-initialized

struct SmallBlocksCloser {
  ~SmallBlocksCloser() {
    SmallBlocks& s = small_blocks;
    for (int c = 0; c < SmallBlocks::kClasses; ++c) {
      for (int i = 0; i < s.count[c]; ++i) std::free(s.blocks[c][i]);
      s.count[c] = 0;
    }
    s.closed = true;
  }
};

void* GetSmallBlock(size_t size) {
  if (size > SmallBlocks::kMaxBytes) return nullptr;
  SmallBlocks& s = small_blocks;
  const size_t c = size / kAlign - 1;
  return s.count[c] > 0 ? s.blocks[c][--s.count[c]] : nullptr;
}

// False: the caller frees the block.
bool PutSmallBlock(void* block, size_t size) {
  if (size > SmallBlocks::kMaxBytes) return false;
  SmallBlocks& s = small_blocks;
  if (s.closed) return false;
  if (!s.registered) {
    s.registered = true;
    static thread_local SmallBlocksCloser closer;
    (void)closer;
  }
  const size_t c = size / kAlign - 1;
  if (s.count[c] == SmallBlocks::kPerClass) return false;
  s.blocks[c][s.count[c]++] = block;
  return true;
}

BlockCache& Cache() {
  static BlockCache* const cache = new BlockCache();  // never destroyed
  return *cache;
}

// The budget a buffer is charged to lives in its block's header, after the
// TensorBuffer object (the header has room to spare).
constexpr size_t kBudgetOffset = kHeader - sizeof(MemoryBudget*);
MemoryBudget*& BudgetSlot(TensorBuffer* buf) {
  return *reinterpret_cast<MemoryBudget**>(reinterpret_cast<char*>(buf) +
                                           kBudgetOffset);
}

size_t BlockSize(size_t bytes) {
  return (kHeader + bytes + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

TensorBuffer* TensorBuffer::Allocate(DataType dtype, int64_t num_elements) {
  static_assert(sizeof(TensorBuffer) <= kBudgetOffset);
  const size_t elem = ElementSize(dtype);
  DFG_CHECK_MSG(elem > 0, "unsupported tensor dtype " + DataTypeString(dtype));
  if (num_elements < 0 ||
      static_cast<uint64_t>(num_elements) > (SIZE_MAX / 2 - kHeader) / elem) {
    return nullptr;
  }
  const size_t bytes = elem * static_cast<size_t>(num_elements);
  const size_t total = BlockSize(bytes);
  MemoryBudget* budget = MemoryBudget::Current();
  if (budget != nullptr && !budget->Charge(bytes)) return nullptr;
  void* block = GetSmallBlock(total);
  if (block == nullptr) block = Cache().Get(total);
  if (block == nullptr) block = std::aligned_alloc(kAlign, total);
  if (block == nullptr) {
    if (budget != nullptr) budget->Credit(bytes);
    return nullptr;
  }
  auto* buf = new (block) TensorBuffer();
  BudgetSlot(buf) = budget;
  buf->dtype_ = dtype;
  buf->num_elements_ = num_elements;
  buf->bytes_ = bytes;
  buf->data_ = static_cast<char*>(block) + kHeader;
  if (dtype == tensorflow::DT_STRING) {
    ConstructAll<std::string>(buf->data_, num_elements);
  } else if (dtype == tensorflow::DT_RESOURCE) {
    ConstructAll<ResourceHandle>(buf->data_, num_elements);
  } else if (dtype == tensorflow::DT_VARIANT) {
    ConstructAll<Variant>(buf->data_, num_elements);
  }
  return buf;
}

void TensorBuffer::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (IsNonTrivial(dtype_)) {
    if (dtype_ == tensorflow::DT_STRING) {
      DestroyAll<std::string>(data_, num_elements_);
    } else if (dtype_ == tensorflow::DT_VARIANT) {
      DestroyAll<Variant>(data_, num_elements_);
    } else {
      DestroyAll<ResourceHandle>(data_, num_elements_);
    }
  }
  const size_t total = BlockSize(bytes_);
  if (MemoryBudget* budget = BudgetSlot(this)) budget->Credit(bytes_);
  this->~TensorBuffer();
  if (!PutSmallBlock(this, total) && !Cache().Put(this, total)) {
    std::free(this);
  }
}

void ReleaseCachedTensorMemory() { Cache().Clear(); }

// ---------------------------------------------------------------------------
// Tensor

Tensor::Tensor(DataType dtype) : dtype_(dtype) {}

Tensor::Tensor(DataType dtype, const TensorShape& shape)
    : dtype_(dtype), shape_(shape) {
  buf_ = TensorBuffer::Allocate(dtype, shape.num_elements());
  if (buf_ == nullptr) {
    throw TensorAllocationError(fmt::format(
        "OOM when allocating tensor with shape{} and type {} on cpu",
        shape.DebugString(), DataTypeString(dtype)));
  }
}

StatusOr<Tensor> Tensor::TryAllocate(DataType dtype, const TensorShape& shape) {
  if (!IsSupportedTensorType(dtype) && dtype != tensorflow::DT_VARIANT) {
    return InvalidArgument("tensors of dtype {} are not supported",
                           DataTypeString(dtype));
  }
  Tensor t(dtype);
  t.shape_ = shape;
  t.buf_ = TensorBuffer::Allocate(dtype, shape.num_elements());
  if (t.buf_ == nullptr) {
    return ResourceExhausted(
        "OOM when allocating tensor with shape{} and type {} on cpu",
        shape.DebugString(), DataTypeString(dtype));
  }
  return t;
}

Tensor::Tensor(const Tensor& other)
    : dtype_(other.dtype_), shape_(other.shape_), buf_(other.buf_) {
  if (buf_) buf_->Ref();
}

Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_), shape_(other.shape_), buf_(other.buf_) {
  other.buf_ = nullptr;
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (other.buf_) other.buf_->Ref();
  if (buf_) buf_->Unref();
  buf_ = other.buf_;
  dtype_ = other.dtype_;
  shape_ = other.shape_;
  return *this;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this == &other) return *this;
  if (buf_) buf_->Unref();
  buf_ = other.buf_;
  other.buf_ = nullptr;
  dtype_ = other.dtype_;
  shape_ = other.shape_;
  return *this;
}

Tensor::~Tensor() {
  if (buf_) buf_->Unref();
}

size_t Tensor::TotalBytes() const {
  if (IsNonTrivial(dtype_)) return 0;
  return ElementSize(dtype_) * static_cast<size_t>(NumElements());
}

void Tensor::set_shape_uninitialized(const TensorShape& shape) {
  DFG_CHECK(buf_ == nullptr);
  shape_ = shape;
}

bool Tensor::CopyFrom(const Tensor& other, const TensorShape& shape) {
  if (other.NumElements() != shape.num_elements()) return false;
  *this = other;
  shape_ = shape;
  return true;
}

Tensor Tensor::DeepCopy() const {
  if (buf_ == nullptr) {
    Tensor t(dtype_);
    t.shape_ = shape_;
    return t;
  }
  Tensor t(dtype_, shape_);
  if (dtype_ == tensorflow::DT_STRING) {
    auto src = flat<std::string>();
    auto dst = t.flat<std::string>();
    for (size_t i = 0; i < src.size(); ++i) dst[i] = src[i];
  } else if (dtype_ == tensorflow::DT_RESOURCE) {
    auto src = flat<ResourceHandle>();
    auto dst = t.flat<ResourceHandle>();
    for (size_t i = 0; i < src.size(); ++i) dst[i] = src[i];
  } else if (dtype_ == tensorflow::DT_VARIANT) {
    auto src = flat<Variant>();
    auto dst = t.flat<Variant>();
    for (size_t i = 0; i < src.size(); ++i) dst[i] = src[i];
  } else if (TotalBytes() > 0) {
    std::memcpy(t.data(), data(), TotalBytes());
  }
  return t;
}

void Tensor::TypeMismatch(DataType expected) const {
  CheckFailed(__FILE__, __LINE__, "dtype() == expected",
              "tensor of " + DataTypeString(dtype_) + " accessed as " +
                  DataTypeString(expected));
}

void Tensor::NotOneElement() const {
  CheckFailed(__FILE__, __LINE__, "NumElements() == 1",
              "scalar access to a tensor of shape " + shape_.DebugString());
}

}  // namespace dfg
