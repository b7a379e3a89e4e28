// TensorMap kernels (tf.raw_ops.EmptyTensorMap, TensorMapInsert/Lookup/
// Erase/HasKey/Size/StackKeys): a scalar DT_VARIANT holding an immutable map
// from tensor keys to tensors. Keys are equal as TensorFlow's TensorKey
// compares them: same dtype, same shape, same bytes (same strings). An op
// that changes a map outputs a new one, so every tensor holding the old map
// still sees it (TensorFlow copies the map unless it can forward its input).
//
// TensorMapStackKeys stacks the keys in insertion order; TensorFlow's order
// is its hash map's, which no caller can rely on.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/base/strings.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/variant.h"

namespace dfg {
namespace {

// The bytes that identify a key: dtype, shape, then the raw element bytes
// (strings each with their length).
std::string KeyBytes(const Tensor& key) {
  std::string s = std::to_string(static_cast<int>(key.dtype())) + ":" +
                  key.shape().DebugString() + ":";
  if (key.dtype() == tensorflow::DT_STRING) {
    for (const std::string& e : key.flat<std::string>()) {
      s += std::to_string(e.size()) + ":" + e;
    }
  } else {
    s.append(static_cast<const char*>(key.data()), key.TotalBytes());
  }
  return s;
}

// The key as TensorFlow's messages print it (SummarizeValue(100); strings
// escaped, unquoted).
std::string KeyText(const Tensor& key) {
  if (key.dtype() != tensorflow::DT_STRING) return key.SummarizeValue(100);
  std::string s;
  const auto f = key.flat<std::string>();
  for (size_t i = 0; i < f.size() && i < 100; ++i) {
    if (i > 0) s += " ";
    s += Utf8SafeCEscape(f[i]);
  }
  // TensorFlow prints up to rank 1 without brackets.
  if (f.size() > 100) s += "...";
  return key.dims() <= 1 ? s : "[" + s + "]";
}

class TensorMap : public VariantValue {
 public:
  std::string TypeName() const override { return "tensorflow::TensorMap"; }
  std::string DebugString() const override { return "TensorMap"; }

  struct Entry {
    Tensor key, value;
  };
  std::vector<Entry> entries;                     // insertion order
  std::unordered_map<std::string, size_t> index;  // KeyBytes -> entry

  const Entry* Find(const Tensor& key) const {
    auto it = index.find(KeyBytes(key));
    return it == index.end() ? nullptr : &entries[it->second];
  }
};

Status GetMapInput(OpKernelContext* ctx, const TensorMap** map) {
  const Tensor& t = ctx->input(0);
  if (t.dims() != 0) {
    return InvalidArgument("Input map must be a scalar. Saw: {}",
                           t.shape().DebugString());
  }
  const Variant& v = t.flat<Variant>()[0];
  *map = v.get<TensorMap>();
  if (*map == nullptr) {
    return InvalidArgument("Input handle is not a map. Saw: '{}'",
                           v.DebugString());
  }
  return Status::Ok();
}

void SetMapOutput(OpKernelContext* ctx, std::shared_ptr<TensorMap> map) {
  Tensor t(tensorflow::DT_VARIANT, TensorShape());
  t.scalar<Variant>().value = std::move(map);
  ctx->set_output(0, std::move(t));
}

class EmptyTensorMapOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    SetMapOutput(ctx, std::make_shared<TensorMap>());
  }
};

class TensorMapSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorMap* map = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetMapInput(ctx, &map));
    ctx->set_output(
        0, Tensor::Scalar<int32_t>(static_cast<int32_t>(map->entries.size())));
  }
};

class TensorMapHasKeyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorMap* map = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetMapInput(ctx, &map));
    ctx->set_output(0,
                    Tensor::Scalar<bool>(map->Find(ctx->input(1)) != nullptr));
  }
};

class TensorMapLookupOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorMap* map = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetMapInput(ctx, &map));
    const Tensor& key = ctx->input(1);
    const TensorMap::Entry* e = map->Find(key);
    DFG_OP_REQUIRES(ctx, e != nullptr,
                    InvalidArgument("Trying to lookup non-existent key. Could "
                                    "not find key \"{}\".",
                                    KeyText(key)));
    ctx->set_output(0, e->value);
  }
};

class TensorMapInsertOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorMap* map = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetMapInput(ctx, &map));
    auto out = std::make_shared<TensorMap>(*map);
    const Tensor& key = ctx->input(1);
    std::string bytes = KeyBytes(key);
    auto it = out->index.find(bytes);
    if (it != out->index.end()) {
      out->entries[it->second].value = ctx->input(2);
    } else {
      out->index.emplace(std::move(bytes), out->entries.size());
      out->entries.push_back({key, ctx->input(2)});
    }
    SetMapOutput(ctx, std::move(out));
  }
};

class TensorMapEraseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorMap* map = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetMapInput(ctx, &map));
    const Tensor& key = ctx->input(1);
    DFG_OP_REQUIRES(ctx, map->Find(key) != nullptr,
                    InvalidArgument("Trying to erase non-existent item. Could "
                                    "not find key \"{}\".",
                                    KeyText(key)));
    const std::string bytes = KeyBytes(key);
    auto out = std::make_shared<TensorMap>();
    for (const TensorMap::Entry& e : map->entries) {
      std::string b = KeyBytes(e.key);
      if (b == bytes) continue;
      out->index.emplace(std::move(b), out->entries.size());
      out->entries.push_back(e);
    }
    SetMapOutput(ctx, std::move(out));
  }
};

class TensorMapStackKeysOp : public OpKernel {
 public:
  explicit TensorMapStackKeysOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("key_dtype", &key_dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorMap* map = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetMapInput(ctx, &map));
    DFG_OP_REQUIRES(ctx, !map->entries.empty(),
                    InvalidArgument("TensorMapStackKeys cannot be called on "
                                    "empty map."));
    const TensorShape key_shape = map->entries[0].key.shape();
    TensorShape shape = key_shape;
    shape.InsertDim(0, static_cast<int64_t>(map->entries.size()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = key_shape.num_elements();
    for (size_t i = 0; i < map->entries.size(); ++i) {
      const Tensor& k = map->entries[i].key;
      DFG_OP_REQUIRES(ctx, k.dtype() == key_dtype_,
                      InvalidArgument("Key does not match requested dtype."));
      DFG_OP_REQUIRES(ctx, k.shape() == key_shape,
                      InvalidArgument("Keys must all have the same shape."));
      CopyElements(k, 0, out, static_cast<int64_t>(i) * n, n);
    }
  }

 private:
  DataType key_dtype_ = tensorflow::DT_INVALID;
};

}  // namespace

void RegisterTensorMapKernels(KernelRegistry* r) {
  r->Register<EmptyTensorMapOp>("EmptyTensorMap");
  r->Register<TensorMapSizeOp>("TensorMapSize");
  r->Register<TensorMapHasKeyOp>("TensorMapHasKey");
  r->Register<TensorMapLookupOp>("TensorMapLookup");
  r->Register<TensorMapInsertOp>("TensorMapInsert");
  r->Register<TensorMapEraseOp>("TensorMapErase");
  r->Register<TensorMapStackKeysOp>("TensorMapStackKeys");
}

}  // namespace dfg
