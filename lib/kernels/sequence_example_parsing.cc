// FastParseSequenceExample's two passes over the serialized protos, with
// protobuf's CodedInputStream as TensorFlow reads them (tags, limits, packed
// and unpacked lists).
#include "lib/kernels/sequence_example_parsing.h"

#include <google/protobuf/io/coded_stream.h>

#include <cstring>
#include <map>
#include <optional>
#include <string_view>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

using google::protobuf::io::CodedInputStream;
using tensorflow::DT_FLOAT;
using tensorflow::DT_INT32;
using tensorflow::DT_INT64;
using tensorflow::DT_STRING;

// "[2,?]" for dims that may hold -1 (no TensorShape for those).
std::string ShapeString(const std::vector<int64_t>& dims) {
  TensorShapeProto p;
  for (int64_t d : dims) p.add_dim()->set_size(d);
  return PartialShapeDebugString(p);
}

constexpr uint32_t Delimited(uint32_t tag) { return (tag << 3) | 2; }

enum class Kind { kSparse, kDense, kRagged };

// One requested feature's bytes in every example, and its sizes.
struct Protos {
  Kind kind = Kind::kDense;
  DataType dtype = DT_FLOAT;
  std::vector<std::string_view> protos;
  std::vector<bool> present;
  size_t length = 0;  // sparse/ragged: total values; dense: max per example
  size_t rows = 0;    // ragged feature lists: total rows
};
using ProtosMap = std::map<std::string_view, Protos>;

std::string NameOf(std::span<const std::string> names, size_t i) {
  return names.empty() ? "<unknown>" : names[i];
}

bool ReadString(CodedInputStream& s, std::string_view* out) {
  uint32_t n;
  if (!s.ReadVarint32(&n)) return false;
  const void* p;
  int size;
  if (n == 0) {
    *out = {};
    return true;
  }
  if (!s.GetDirectBufferPointer(&p, &size) || static_cast<uint32_t>(size) < n)
    return false;
  *out = std::string_view(static_cast<const char*>(p), n);
  return s.Skip(n);
}

bool SkipUnknownField(CodedInputStream& s) {
  uint32_t v32;
  uint64_t v64;
  switch (s.ReadTag() & 7) {
    case 0:
      return s.ReadVarint64(&v64);
    case 1:
      return s.ReadLittleEndian64(&v64);
    case 2:
      return s.ReadVarint32(&v32) && s.Skip(v32);
    case 5:
      return s.ReadLittleEndian32(&v32);
    default:
      return false;
  }
}

// Appends the values of one Feature (its oneof tag next on `s`) of `dtype`
// to `out` (any of the three may be null: count only); -1 on a type
// mismatch or bad bytes.
int ParseValues(CodedInputStream& s, DataType dtype,
                std::vector<std::string>* bytes, std::vector<float>* floats,
                std::vector<int64_t>* ints) {
  const uint32_t tag = dtype == DT_STRING ? 1 : dtype == DT_FLOAT ? 2 : 3;
  uint32_t length;
  if (!s.ExpectTag(Delimited(tag)) || !s.ReadVarint32(&length)) return -1;
  if (length == 0) return 0;
  int n = 0;
  const auto limit = s.PushLimit(length);
  const void* peek;
  int size;
  const uint8_t first = s.GetDirectBufferPointer(&peek, &size)
                            ? *static_cast<const uint8_t*>(peek)
                            : 0;
  const bool packed = first == Delimited(1) && dtype != DT_STRING;
  uint32_t packed_length = 0;
  std::optional<CodedInputStream::Limit> packed_limit;
  if (packed) {
    if (!s.ExpectTag(Delimited(1)) || !s.ReadVarint32(&packed_length))
      return -1;
    packed_limit = s.PushLimit(packed_length);
  } else if (dtype == DT_FLOAT && first != ((1 << 3) | 5)) {
    return -1;
  } else if (dtype == DT_INT64 && first != (1 << 3)) {
    return -1;
  }
  while (!s.ExpectAtEnd()) {
    if (dtype == DT_STRING) {
      std::string_view v;
      if (!s.ExpectTag(Delimited(1)) || !ReadString(s, &v)) return -1;
      if (bytes) bytes->emplace_back(v);
    } else if (dtype == DT_FLOAT) {
      uint32_t v;
      if (!packed && !s.ExpectTag((1 << 3) | 5)) return -1;
      if (!s.ReadLittleEndian32(&v)) return -1;
      float f;
      std::memcpy(&f, &v, 4);
      if (floats) floats->push_back(f);
    } else {
      uint64_t v;
      if (!packed && !s.ExpectTag(1 << 3)) return -1;
      if (!s.ReadVarint64(&v)) return -1;
      if (ints) ints->push_back(static_cast<int64_t>(v));
    }
    ++n;
  }
  if (packed_limit) s.PopLimit(*packed_limit);
  s.PopLimit(limit);
  return n;
}

// The values of one feature, in whichever vector its dtype uses.
struct Values {
  std::vector<std::string> bytes;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  int Parse(CodedInputStream& s, DataType dtype) {
    return ParseValues(s, dtype, &bytes, &floats, &ints);
  }
  void PadTo(DataType dtype, size_t n) {
    if (dtype == DT_STRING) bytes.resize(n);
    if (dtype == DT_FLOAT) floats.resize(n, 0.0f);
    if (dtype == DT_INT64) ints.resize(n, 0);
  }
  Tensor ToTensor(DataType dtype, TensorShape shape) const {
    Tensor t(dtype, shape);
    if (dtype == DT_STRING)
      std::copy(bytes.begin(), bytes.end(), t.flat<std::string>().begin());
    if (dtype == DT_FLOAT)
      std::copy(floats.begin(), floats.end(), t.flat<float>().begin());
    if (dtype == DT_INT64)
      std::copy(ints.begin(), ints.end(), t.flat<int64_t>().begin());
    return t;
  }
};

// A feature list: for each row (a Feature), calls row(stream) positioned at
// the Feature's contents, or row(nullptr) for an empty Feature.
template <typename Fn>
Status ForEachRow(std::string_view proto, const std::string& error, Fn&& row) {
  CodedInputStream s(reinterpret_cast<const uint8_t*>(proto.data()),
                     static_cast<int>(proto.size()));
  size_t index = 0;
  while (!s.ExpectAtEnd()) {
    uint32_t n;
    if (!s.ExpectTag(Delimited(1)) || !s.ReadVarint32(&n)) {
      return InvalidArgument("{}", error);
    }
    const auto limit = s.PushLimit(n);
    DFG_RETURN_IF_ERROR(row(n > 0 ? &s : nullptr, index, n));
    if (!s.Skip(s.BytesUntilLimit())) return InvalidArgument("{}", error);
    s.PopLimit(limit);
    ++index;
  }
  return Status::Ok();
}

Status Extract(std::span<const std::string> serialized,
               std::span<const std::string> names, ProtosMap* context,
               ProtosMap* lists) {
  for (size_t d = 0; d < serialized.size(); ++d) {
    const std::string& ex = serialized[d];
    CodedInputStream s(reinterpret_cast<const uint8_t*>(ex.data()),
                       static_cast<int>(ex.size()));
    const Status bad = InvalidArgument(
        "Invalid protocol message input, example id: {}", NameOf(names, d));
    while (!s.ExpectAtEnd()) {
      ProtosMap* features = nullptr;
      if (s.ExpectTag(Delimited(1))) {
        features = context;
      } else if (s.ExpectTag(Delimited(2))) {
        features = lists;
      } else if (!SkipUnknownField(s)) {
        return bad;
      }
      if (features == nullptr) continue;
      uint32_t length;
      if (!s.ReadVarint32(&length)) return bad;
      const auto limit = s.PushLimit(length);
      while (!s.ExpectAtEnd()) {
        uint32_t entry;
        std::string_view key, value;
        if (!s.ExpectTag(Delimited(1)) || !s.ReadVarint32(&entry)) return bad;
        const auto entry_limit = s.PushLimit(entry);
        if (!s.ExpectTag(Delimited(1)) || !ReadString(s, &key) ||
            !s.ExpectTag(Delimited(2)) || !ReadString(s, &value) ||
            !s.ExpectAtEnd()) {
          return bad;
        }
        s.PopLimit(entry_limit);
        auto it = features->find(key);
        if (it != features->end()) {
          it->second.protos[d] = value;
          it->second.present[d] = true;
        }
      }
      s.PopLimit(limit);
    }
  }
  return Status::Ok();
}

Status ContextLengths(std::span<const std::string> names, ProtosMap& map) {
  for (auto& [key, f] : map) {
    for (size_t d = 0; d < f.protos.size(); ++d) {
      if (f.protos[d].empty()) continue;
      CodedInputStream s(reinterpret_cast<const uint8_t*>(f.protos[d].data()),
                         static_cast<int>(f.protos[d].size()));
      const int n = ParseValues(s, f.dtype, nullptr, nullptr, nullptr);
      if (n < 0) {
        return InvalidArgument(
            "Name: {}, Context feature: {}.  Data types don't match. Expected "
            "type: {}",
            NameOf(names, d), key, DataTypeString(f.dtype));
      }
      f.length =
          f.kind == Kind::kDense ? std::max<size_t>(f.length, n) : f.length + n;
    }
  }
  return Status::Ok();
}

Status ListLengths(std::span<const std::string> names, ProtosMap& map) {
  for (auto& entry : map) {
    // Named references, not a structured binding: Clang before 16 cannot
    // capture a binding in the lambda below.
    const auto& key = entry.first;
    auto& f = entry.second;
    for (size_t d = 0; d < f.protos.size(); ++d) {
      if (f.protos[d].empty()) continue;
      size_t elements = 0, rows = 0;
      const std::string error = fmt::format(
          "Error in sequence feature {} in example {}", key, NameOf(names, d));
      DFG_RETURN_IF_ERROR(ForEachRow(
          f.protos[d], error,
          [&](CodedInputStream* s, size_t index, uint32_t n) -> Status {
            ++rows;
            if (s == nullptr) return Status::Ok();
            if (n == 1) return InvalidArgument("{}", error);
            const int k = ParseValues(*s, f.dtype, nullptr, nullptr, nullptr);
            if (k < 0) {
              return InvalidArgument(
                  "Name: {}, Feature list: {}, Index: {}.  Data types don't "
                  "match. Expected type: {}",
                  NameOf(names, d), key, index, DataTypeString(f.dtype));
            }
            elements += k;
            return Status::Ok();
          }));
      if (f.kind == Kind::kDense) {
        f.length = std::max(f.length, elements);
      } else {
        f.length += elements;
        f.rows += rows;
      }
    }
  }
  return Status::Ok();
}

Tensor Splits(DataType dtype, const std::vector<int64_t>& v, bool scalar) {
  Tensor t(dtype, scalar ? TensorShape() : TensorShape({int64_t(v.size())}));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (dtype == DT_INT32)
      t.flat<int32_t>()[i] = static_cast<int32_t>(v[i]);
    else
      t.flat<int64_t>()[i] = v[i];
  }
  return t;
}

Tensor IntTensor(std::vector<int64_t> dims, const std::vector<int64_t>& v) {
  Tensor t(DT_INT64, TensorShape(std::span<const int64_t>(dims)));
  std::copy(v.begin(), v.end(), t.flat<int64_t>().begin());
  return t;
}

CodedInputStream Stream(std::string_view p) {
  return CodedInputStream(reinterpret_cast<const uint8_t*>(p.data()),
                          static_cast<int>(p.size()));
}

TensorShape Shape(bool batch, int64_t b, std::vector<int64_t> rest) {
  if (batch) rest.insert(rest.begin(), b);
  return TensorShape(std::span<const int64_t>(rest));
}

Status ContextDense(const FeatureSpec& c, const Protos& f, bool batch,
                    std::span<const std::string> names, Tensor* out) {
  // A shape with an unknown dim is TensorFlow's failed AsTensorShape: it
  // then expects a scalar's 1 element and fails the same way.
  int64_t count = 1;
  bool known = true;
  for (int64_t d : c.shape) count *= d, known &= d >= 0;
  if (!known) count = 1;
  if (!known || f.length != static_cast<size_t>(count)) {
    return InvalidArgument(
        "Inconsistent max number of elements for feature {}: expected {}, but "
        "found {}",
        c.key, count, f.length);
  }
  Values v;
  for (size_t e = 0; e < f.protos.size(); ++e) {
    const size_t before = v.bytes.size() + v.floats.size() + v.ints.size();
    if (!f.present[e]) {
      if (c.def.NumElements() == 0) {
        return InvalidArgument(
            "Feature: {} (data type: {}) is required but could not be found.",
            c.key, DataTypeString(c.dtype));
      }
      Tensor copy = c.def;
      if (c.dtype == DT_STRING)
        for (auto& x : copy.flat<std::string>()) v.bytes.push_back(x);
      if (c.dtype == DT_FLOAT)
        for (float x : copy.flat<float>()) v.floats.push_back(x);
      if (c.dtype == DT_INT64)
        for (int64_t x : copy.flat<int64_t>()) v.ints.push_back(x);
    } else if (!f.protos[e].empty()) {
      CodedInputStream s = Stream(f.protos[e]);
      v.Parse(s, c.dtype);
    }
    const size_t added =
        v.bytes.size() + v.floats.size() + v.ints.size() - before;
    if (added != f.length) {
      return InvalidArgument("Unexpected number of elements in example {}",
                             NameOf(names, e));
    }
  }
  *out = v.ToTensor(c.dtype, Shape(batch, f.protos.size(), c.shape));
  return Status::Ok();
}

void ContextSparse(const FeatureSpec& c, const Protos& f, bool batch,
                   Outputs* out) {
  Values v;
  std::vector<int64_t> idx;
  size_t max_cols = 0;
  for (size_t e = 0; e < f.protos.size(); ++e) {
    if (f.protos[e].empty()) continue;
    CodedInputStream s = Stream(f.protos[e]);
    const int n = std::max(0, v.Parse(s, c.dtype));
    max_cols = std::max<size_t>(max_cols, n);
    for (int i = 0; i < n; ++i) {
      if (batch) idx.push_back(e);
      idx.push_back(i);
    }
  }
  const int64_t n = f.length, w = batch ? 2 : 1;
  out->sparse_indices.push_back(IntTensor({n, w}, idx));
  out->sparse_values.push_back(v.ToTensor(c.dtype, TensorShape({n})));
  out->sparse_shapes.push_back(
      batch ? IntTensor({2}, {int64_t(f.protos.size()), int64_t(max_cols)})
            : IntTensor({1}, {int64_t(max_cols)}));
}

void ContextRagged(const FeatureSpec& c, const Protos& f, bool batch,
                   Outputs* out) {
  Values v;
  std::vector<int64_t> splits = {0};
  for (size_t e = 0; e < f.protos.size(); ++e) {
    if (!f.protos[e].empty()) {
      CodedInputStream s = Stream(f.protos[e]);
      v.Parse(s, c.dtype);
    }
    splits.push_back(v.bytes.size() + v.floats.size() + v.ints.size());
  }
  out->ragged_values.push_back(
      v.ToTensor(c.dtype, TensorShape({int64_t(f.length)})));
  // A scalar input gets a scalar splits tensor, which TensorFlow leaves
  // unset; dfg writes 0.
  out->ragged_outer.push_back(Splits(c.splits, splits, !batch));
}

Status ListDense(const FeatureSpec& c, const Protos& f, bool batch,
                 std::span<const std::string> names, Outputs* out) {
  int64_t row = 1;
  for (int64_t d : c.shape) row *= d;
  // A dim of -1 (an unknown shape) makes `row` negative: TensorFlow cannot
  // make a TensorShape of it and reports the same error.
  if (row <= 0 || f.length % row != 0) {
    TensorShapeProto total;
    total.add_dim()->set_size(-1);
    for (int64_t d : c.shape) total.add_dim()->set_size(d);
    return InvalidArgument(
        "Feature list '{}' has an unexpected number of values.  Total values "
        "size: {} is not consistent with output shape: {}",
        c.key, f.length, PartialShapeDebugString(total));
  }
  const int64_t max_rows = f.length / row;
  Values v;
  std::vector<int64_t> lengths;
  for (size_t e = 0; e < f.protos.size(); ++e) {
    if (!f.present[e] && !c.missing_ok) {
      return InvalidArgument(
          "Name: {}, Feature list '{}' is required but could not be found.  "
          "Did you mean to include it in "
          "feature_list_dense_missing_assumed_empty or "
          "feature_list_dense_defaults?",
          NameOf(names, e), c.key);
    }
    const size_t start = e * f.length;
    size_t rows = 0;
    const std::string error = fmt::format(
        "Error in sequence feature {} in example {}", c.key, NameOf(names, e));
    DFG_RETURN_IF_ERROR(ForEachRow(
        f.protos[e], error,
        [&](CodedInputStream* s, size_t index, uint32_t n) -> Status {
          const int k = s != nullptr && n > 2 ? v.Parse(*s, c.dtype) : 0;
          if (k != row) {
            return InvalidArgument(
                "Name: {}, Key: {}, Index: {}.  Number of values != expected.  "
                "values size: {} but output shape: {}",
                NameOf(names, e), c.key, index, k, ShapeString(c.shape));
          }
          ++rows;
          return Status::Ok();
        }));
    lengths.push_back(rows);
    v.PadTo(c.dtype, start + f.length);
  }
  std::vector<int64_t> dims = c.shape;
  dims.insert(dims.begin(), max_rows);
  out->dense_values.push_back(
      v.ToTensor(c.dtype, Shape(batch, f.protos.size(), dims)));
  out->dense_lengths.push_back(
      batch ? IntTensor({int64_t(lengths.size())}, lengths)
            : IntTensor({}, lengths));
  return Status::Ok();
}

Status ListSparseOrRagged(const FeatureSpec& c, const Protos& f, bool batch,
                          bool ragged, std::span<const std::string> names,
                          Outputs* out) {
  Values v;
  std::vector<int64_t> idx, inner = {0}, outer = {0};
  size_t max_rows = 0, max_cols = 0;
  for (size_t e = 0; e < f.protos.size(); ++e) {
    size_t rows = 0;
    if (!f.protos[e].empty()) {
      const std::string error =
          fmt::format("Error in sequence feature {} in example {}", c.key,
                      NameOf(names, e));
      DFG_RETURN_IF_ERROR(ForEachRow(
          f.protos[e], error,
          [&](CodedInputStream* s, size_t index, uint32_t n) -> Status {
            const int k = s != nullptr && n > 2 ? v.Parse(*s, c.dtype) : 0;
            max_cols = std::max<size_t>(max_cols, k);
            for (int i = 0; i < k; ++i) {
              if (batch) idx.push_back(e);
              idx.push_back(index);
              idx.push_back(i);
            }
            inner.push_back(inner.back() + k);
            ++rows;
            return Status::Ok();
          }));
      max_rows = std::max(max_rows, rows);
    }
    outer.push_back(outer.back() + rows);
  }
  const int64_t n = f.length;
  if (ragged) {
    out->ragged_values.push_back(v.ToTensor(c.dtype, TensorShape({n})));
    out->ragged_outer.push_back(Splits(c.splits, outer, !batch));
    out->ragged_inner.push_back(Splits(c.splits, inner, false));
    return Status::Ok();
  }
  out->sparse_indices.push_back(IntTensor({n, batch ? 3 : 2}, idx));
  out->sparse_values.push_back(v.ToTensor(c.dtype, TensorShape({n})));
  out->sparse_shapes.push_back(
      batch ? IntTensor({3}, {int64_t(f.protos.size()), int64_t(max_rows),
                              int64_t(max_cols)})
            : IntTensor({2}, {int64_t(max_rows), int64_t(max_cols)}));
  return Status::Ok();
}

// Registers the requested features of one side (context or feature lists)
// with TensorFlow's checks on keys requested twice.
Status AddFeatures(const Config& config, size_t examples, const char* side,
                   ProtosMap* map) {
  auto add = [&](const FeatureSpec& c, Kind kind) -> Status {
    auto [it, fresh] = map->try_emplace(c.key);
    Protos& f = it->second;
    if (!fresh && kind == Kind::kRagged && f.kind == Kind::kSparse) {
      return InvalidArgument("{} feature {} cannot be both ragged and sparse",
                             side, c.key);
    }
    if (!fresh && kind == Kind::kDense && f.kind != Kind::kDense) {
      return InvalidArgument("{} feature {} cannot be both dense and sparse",
                             side, c.key);
    }
    f.kind = kind;
    f.dtype = c.dtype;
    // A context dense feature starts at its default's size.
    const bool context_dense =
        kind == Kind::kDense && std::string_view(side) == "Context";
    f.length = context_dense ? c.def.NumElements() : 0;
    f.protos.assign(examples, {});
    f.present.assign(examples, false);
    return Status::Ok();
  };
  for (const auto& c : config.sparse)
    DFG_RETURN_IF_ERROR(add(c, Kind::kSparse));
  for (const auto& c : config.ragged)
    DFG_RETURN_IF_ERROR(add(c, Kind::kRagged));
  for (const auto& c : config.dense) DFG_RETURN_IF_ERROR(add(c, Kind::kDense));
  return Status::Ok();
}

}  // namespace

Status ParseSequenceExamples(const Config& context, const Config& lists,
                             std::span<const std::string> serialized,
                             std::span<const std::string> names, bool batch,
                             Outputs* ctx_out, Outputs* list_out) {
  if (!names.empty() && names.size() != serialized.size()) {
    return InvalidArgument(
        "example_names must be empty or have the correct number of elements");
  }
  ProtosMap cmap, lmap;
  // The keys in the maps view the configs' strings.
  DFG_RETURN_IF_ERROR(
      AddFeatures(context, serialized.size(), "Context", &cmap));
  DFG_RETURN_IF_ERROR(AddFeatures(lists, serialized.size(), "Sequence", &lmap));
  DFG_RETURN_IF_ERROR(Extract(serialized, names, &cmap, &lmap));
  DFG_RETURN_IF_ERROR(ContextLengths(names, cmap));
  DFG_RETURN_IF_ERROR(ListLengths(names, lmap));
  for (const auto& c : context.dense) {
    ctx_out->dense_values.emplace_back();
    DFG_RETURN_IF_ERROR(ContextDense(c, cmap.at(c.key), batch, names,
                                     &ctx_out->dense_values.back()));
  }
  for (const auto& c : context.sparse) {
    ContextSparse(c, cmap.at(c.key), batch, ctx_out);
  }
  for (const auto& c : context.ragged) {
    ContextRagged(c, cmap.at(c.key), batch, ctx_out);
  }
  for (const auto& c : lists.dense) {
    DFG_RETURN_IF_ERROR(ListDense(c, lmap.at(c.key), batch, names, list_out));
  }
  for (const auto& c : lists.sparse) {
    DFG_RETURN_IF_ERROR(
        ListSparseOrRagged(c, lmap.at(c.key), batch, false, names, list_out));
  }
  for (const auto& c : lists.ragged) {
    DFG_RETURN_IF_ERROR(
        ListSparseOrRagged(c, lmap.at(c.key), batch, true, names, list_out));
  }
  return Status::Ok();
}

}  // namespace dfg
