// Save, SaveSlices, Restore and RestoreSlice: TF1's V1 checkpoint format
// (TensorFlow's core/kernels/save_op.cc, restore_op.cc,
// save_restore_tensor.cc with util/tensor_slice_writer.cc,
// tensor_slice_reader.cc and saved_tensor_slice_util.cc). A V1 checkpoint is
// one table file per shard: under the empty key a SavedTensorSlices holding
// every tensor's name, shape, dtype and stored slices; under
// OrderedCode(0, name, rank, start_0, length_0, ...) one slice's values in a
// TensorProto's typed fields. Restore reads every file matching its pattern
// and assembles the requested slice from the stored ones.
#include <glob.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "lib/checkpoint/sstable.h"
#include "lib/kernels/file_policy.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/save_restore_util.h"
#include "lib/proto/saved_tensor_slice.pb.h"

namespace dfg {
namespace {

using tensorflow::DT_STRING;
using tensorflow::SavedTensorSlices;
using tensorflow::TensorSliceProto;

// TensorFlow's OrderedCode::WriteNumIncreasing: a length byte, then the
// value's significant bytes, big-endian.
void WriteNumIncreasing(std::string* out, uint64_t v) {
  std::string bytes;
  for (; v > 0; v >>= 8) bytes.insert(bytes.begin(), static_cast<char>(v));
  out->push_back(static_cast<char>(bytes.size()));
  *out += bytes;
}

// OrderedCode::WriteString: 0x00 and 0xff escaped, then 0x00 0x01.
void WriteString(std::string* out, const std::string& s) {
  for (char c : s) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xff');
    if (c == '\xff') out->push_back('\0');
  }
  out->append("\x00\x01", 2);
}

// OrderedCode::WriteSignedNumIncreasing: the sign-extended value's low
// `len` bytes with a unary length header in the top bits.
void WriteSignedNumIncreasing(std::string* out, int64_t v) {
  const uint64_t x = v < 0 ? ~static_cast<uint64_t>(v) : v;
  if (x < 64) {
    out->push_back(static_cast<char>(0x80 ^ static_cast<uint8_t>(v)));
    return;
  }
  int bits = 0;
  while ((x >> bits) != 0) ++bits;
  const int len = std::min(bits / 7 + 1, 10);
  static const uint8_t kHeader[11][2] = {
      {0, 0},    {0x80, 0}, {0xc0, 0}, {0xe0, 0},    {0xf0, 0},   {0xf8, 0},
      {0xfc, 0}, {0xfe, 0}, {0xff, 0}, {0xff, 0x80}, {0xff, 0xc0}};
  uint8_t buf[10];
  std::fill(buf, buf + 2, v < 0 ? 0xff : 0x00);
  for (int i = 0; i < 8; ++i)
    buf[2 + i] = static_cast<uint8_t>(v >> (56 - 8 * i));
  uint8_t* begin = buf + 10 - len;
  begin[0] ^= kHeader[len][0];
  begin[1] ^= kHeader[len][1];
  out->append(reinterpret_cast<const char*>(begin), len);
}

// A slice as (start, length) per dimension; length -1: the whole dimension.
struct Slice {
  std::vector<int64_t> start, length;

  static Slice Full(int rank) {
    return {std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, -1)};
  }
  static Slice FromProto(const TensorSliceProto& p) {
    Slice s;
    for (const auto& e : p.extent()) {
      s.start.push_back(e.start());
      s.length.push_back(e.has_length_case() ? e.length() : -1);
    }
    return s;
  }
  void ToProto(TensorSliceProto* p) const {
    for (size_t d = 0; d < start.size(); ++d) {
      auto* e = p->add_extent();
      if (length[d] == -1) continue;  // the whole dimension: no fields
      e->set_start(start[d]);
      e->set_length(length[d]);
    }
  }
  // Resolved against `shape`: [begin, end) of dimension d.
  int64_t Begin(int d) const { return length[d] == -1 ? 0 : start[d]; }
  int64_t End(int d, const TensorShape& shape) const {
    return length[d] == -1 ? shape.dim_size(d) : start[d] + length[d];
  }
};

std::string SliceKey(const std::string& name, const Slice& slice) {
  std::string key;
  WriteNumIncreasing(&key, 0);
  WriteString(&key, name);
  WriteNumIncreasing(&key, slice.start.size());
  for (size_t d = 0; d < slice.start.size(); ++d) {
    WriteSignedNumIncreasing(&key, slice.length[d] == -1 ? 0 : slice.start[d]);
    WriteSignedNumIncreasing(&key, slice.length[d]);
  }
  return key;
}

// Copies the intersection of `src` (holding `src_slice` of `shape`) and
// `dst` (holding `dst_slice`) from one to the other, one innermost run at a
// time.
void CopyIntersection(const Tensor& src, const Slice& src_slice, Tensor* dst,
                      const Slice& dst_slice, const TensorShape& shape) {
  const int rank = shape.dims();
  std::vector<int64_t> lo(rank), hi(rank), src_dims(rank), dst_dims(rank);
  for (int d = 0; d < rank; ++d) {
    lo[d] = std::max(src_slice.Begin(d), dst_slice.Begin(d));
    hi[d] = std::min(src_slice.End(d, shape), dst_slice.End(d, shape));
    if (lo[d] >= hi[d]) return;
    src_dims[d] = src_slice.End(d, shape) - src_slice.Begin(d);
    dst_dims[d] = dst_slice.End(d, shape) - dst_slice.Begin(d);
  }
  if (rank == 0) {
    CopyElements(src, 0, dst, 0, 1);
    return;
  }
  std::vector<int64_t> at = lo;
  const int64_t run = hi[rank - 1] - lo[rank - 1];
  while (true) {
    int64_t s = 0, t = 0;
    for (int d = 0; d < rank; ++d) {
      s = s * src_dims[d] + (at[d] - src_slice.Begin(d));
      t = t * dst_dims[d] + (at[d] - dst_slice.Begin(d));
    }
    CopyElements(src, s, dst, t, run);
    int d = rank - 2;
    for (; d >= 0; --d) {
      if (++at[d] < hi[d]) break;
      at[d] = lo[d];
    }
    if (d < 0) return;
  }
}

// The slice of a parsed spec with its "-" extents kept whole (length -1), as
// TensorFlow's TensorSlice keeps them in keys and metas.
Slice SliceOf(const std::string& spec, const ShapeAndSlice& parsed) {
  Slice s{parsed.start, parsed.length};
  std::string_view extents(spec);
  extents.remove_prefix(extents.rfind(' ') + 1);
  for (size_t d = 0; d < s.start.size(); ++d) {
    const size_t colon = extents.find(':');
    if (extents.substr(0, colon) == "-") s.start[d] = 0, s.length[d] = -1;
    extents.remove_prefix(colon == std::string_view::npos ? extents.size()
                                                          : colon + 1);
  }
  return s;
}

bool SupportedType(DataType t) {
  return Dispatch(NumberTypes() + TypeList<bool, std::string>(), t,
                  [](auto) {});
}

// TensorSliceWriter: the tensors' slices collected, then written sorted by
// key with the meta under the empty key.
class SliceWriter {
 public:
  Status Add(const std::string& name, const TensorShape& shape,
             const Slice& slice, const Tensor& data) {
    auto [it, fresh] = metas_.try_emplace(name);
    tensorflow::SavedSliceMeta& meta = it->second;
    if (fresh) {
      meta.set_name(name);
      shape.AsProto(meta.mutable_shape());
      meta.set_type(data.dtype());
    } else if (TensorShape::FromProto(meta.shape()).value() != shape ||
               meta.type() != data.dtype()) {
      return InvalidArgument(
          "Mismatching shapes or types for tensor {}: existing {} {}, trying "
          "to add {} {}",
          name, DataTypeString(meta.type()),
          TensorShape::FromProto(meta.shape()).value().DebugString(),
          DataTypeString(data.dtype()), shape.DebugString());
    }
    const std::string key = SliceKey(name, slice);
    if (data_.count(key)) return Status::Ok();
    slice.ToProto(meta.add_slice());
    SavedTensorSlices sts;
    auto* saved = sts.mutable_data();
    saved->set_name(name);
    slice.ToProto(saved->mutable_slice());
    data.ToProto(saved->mutable_data(), /*use_tensor_content=*/false);
    // TensorFlow stores only the typed values; dtype and shape are in the
    // meta.
    saved->mutable_data()->clear_dtype();
    saved->mutable_data()->clear_tensor_shape();
    data_[key] = sts.SerializeAsString();
    return Status::Ok();
  }

  Status Finish(const std::string& path) {
    SavedTensorSlices head;
    auto* meta = head.mutable_meta();
    for (auto& [name, m] : metas_) *meta->add_tensor() = m;
    meta->mutable_versions()->set_producer(1);  // TF_CHECKPOINT_VERSION
    SSTableEntries entries;
    entries.emplace_back("", head.SerializeAsString());
    for (auto& [key, value] : data_) entries.emplace_back(key, value);
    return WriteSSTable(path, entries);
  }

 private:
  std::map<std::string, tensorflow::SavedSliceMeta> metas_;
  std::map<std::string, std::string> data_;
};

class SaveV1Op : public OpKernel {
 public:
  explicit SaveV1Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    slices_ = def().op() == "SaveSlices";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filename = ctx->input(0);
    DFG_OP_REQUIRES(ctx, filename.NumElements() == 1,
                    InvalidArgument("Input 0 (filename) must be a string "
                                    "scalar; got a tensor of {}elements",
                                    filename.NumElements()));
    DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, filename.flat<std::string>()[0]));
    const int fixed = slices_ ? 3 : 2;
    const Tensor& names_t = ctx->input(1);
    const int64_t n = names_t.NumElements();
    if (slices_) {
      DFG_OP_REQUIRES(ctx, ctx->input(2).NumElements() == n,
                      InvalidArgument("Expected {} elements for the tensor "
                                      "shapes and slices but got {}",
                                      n, ctx->input(2).NumElements()));
    }
    DFG_OP_REQUIRES(ctx, ctx->num_inputs() == n + fixed,
                    InvalidArgument("Expected totally {} inputs as input #1 "
                                    "(which is a string tensor of saved "
                                    "names) contains {} names, but received "
                                    "{} inputs",
                                    n + fixed, n, ctx->num_inputs()));
    auto names = names_t.flat<std::string>();
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](int64_t a, int64_t b) { return names[a] < names[b]; });
    SliceWriter writer;
    for (int64_t i : order) {
      const Tensor& input = ctx->input(fixed + i);
      TensorShape shape = input.shape();
      Slice slice = Slice::Full(input.dims());
      const std::string spec =
          slices_ ? ctx->input(2).flat<std::string>()[i] : std::string();
      if (!spec.empty()) {
        StatusOr<ShapeAndSlice> parsed = ParseShapeAndSlice(spec);
        DFG_OP_REQUIRES_OK(ctx, parsed.status());
        DFG_OP_REQUIRES(ctx, parsed->SliceShape() == input.shape(),
                        InvalidArgument("Slice in shape_and_slice "
                                        "specification does not match the "
                                        "shape of the tensor to  save: {}, "
                                        "tensor: {}",
                                        spec, input.shape().DebugString()));
        shape = parsed->full_shape;
        slice = SliceOf(spec, *parsed);
      }
      DFG_OP_REQUIRES(ctx, SupportedType(input.dtype()),
                      Unimplemented("Saving data type {} not yet supported",
                                    DataTypeString(input.dtype())));
      DFG_OP_REQUIRES_OK(ctx, writer.Add(names[i], shape, slice, input));
    }
    DFG_OP_REQUIRES_OK(ctx, writer.Finish(filename.flat<std::string>()[0]));
  }

 private:
  bool slices_ = false;
};

struct StoredTensor {
  TensorShape shape;
  DataType dtype = tensorflow::DT_INVALID;
  std::vector<std::pair<Slice, size_t>> slices;  // and the file holding it
};

// TensorSliceReader over every file matching a pattern.
class SliceReader {
 public:
  // Checks the pattern and each file it matches against the step's file
  // policy (a wildcard such as ".*" can match "..").
  Status Open(const std::string& pattern, const OpKernelContext& ctx) {
    DFG_RETURN_IF_ERROR(CheckPath(ctx, pattern));
    glob_t g{};
    const int rc = glob(pattern.c_str(), 0, nullptr, &g);
    for (size_t i = 0; rc == 0 && i < g.gl_pathc; ++i) {
      files_.push_back(g.gl_pathv[i]);
    }
    globfree(&g);
    if (files_.empty()) {
      return NotFound(
          "Unsuccessful TensorSliceReader constructor: Failed to find any "
          "matching files for {}",
          pattern);
    }
    for (const std::string& f : files_) DFG_RETURN_IF_ERROR(CheckPath(ctx, f));
    for (size_t f = 0; f < files_.size(); ++f) {
      DFG_ASSIGN_OR_RETURN(SSTableEntries entries, ReadSSTable(files_[f]));
      tables_.emplace_back(entries.begin(), entries.end());
      auto head = tables_.back().find("");
      SavedTensorSlices sts;
      if (head == tables_.back().end() || !sts.ParseFromString(head->second)) {
        return DataLoss(
            "Failed to find the saved tensor slices at the beginning of the "
            "checkpoint file: {}",
            files_[f]);
      }
      for (const auto& m : sts.meta().tensor()) {
        StoredTensor& t = tensors_[m.name()];
        DFG_ASSIGN_OR_RETURN(t.shape, TensorShape::FromProto(m.shape()));
        t.dtype = m.type();
        for (const auto& s : m.slice()) {
          if (s.extent_size() != t.shape.dims()) {
            return DataLoss(
                "Corrupted checkpoint file {}: slice of {} with {} "
                "extents for a tensor of rank {}",
                files_[f], m.name(), s.extent_size(), t.shape.dims());
          }
          t.slices.emplace_back(Slice::FromProto(s), f);
        }
      }
    }
    return Status::Ok();
  }

  const StoredTensor* Find(const std::string& name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : &it->second;
  }

  // Fills `out` (holding `want` of the tensor) from the stored slices.
  Status Copy(const std::string& name, const StoredTensor& t, const Slice& want,
              Tensor* out) const {
    for (const auto& [slice, file] : t.slices) {
      auto it = tables_[file].find(SliceKey(name, slice));
      SavedTensorSlices sts;
      if (it == tables_[file].end() || !sts.ParseFromString(it->second)) {
        return InvalidArgument("Error copying slice data");
      }
      TensorProto proto = sts.data().data();
      proto.set_dtype(t.dtype);
      for (int d = 0; d < t.shape.dims(); ++d) {
        proto.mutable_tensor_shape()->add_dim()->set_size(
            slice.End(d, t.shape) - slice.Begin(d));
      }
      StatusOr<Tensor> stored = Tensor::FromProto(proto);
      if (!stored.ok()) return InvalidArgument("Error copying slice data");
      CopyIntersection(*stored, slice, out, want, t.shape);
    }
    return Status::Ok();
  }

 private:
  std::vector<std::string> files_;
  std::vector<std::map<std::string, std::string>> tables_;
  std::map<std::string, StoredTensor> tensors_;
};

class RestoreV1Op : public OpKernel {
 public:
  explicit RestoreV1Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    slice_ = def().op() == "RestoreSlice";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& pattern_t = ctx->input(0);
    DFG_OP_REQUIRES(ctx, pattern_t.NumElements() == 1,
                    InvalidArgument("Input 0 (file_pattern) must be a string "
                                    "scalar; got a tensor of {} elements",
                                    pattern_t.NumElements()));
    const std::string& pattern = pattern_t.flat<std::string>()[0];
    DFG_OP_REQUIRES(ctx, ctx->input(1).NumElements() > 0,
                    InvalidArgument("Input 1 (file_pattern) must be a have at "
                                    "least 1 elements"));
    const std::string& name = ctx->input(1).flat<std::string>()[0];
    SliceReader reader;
    DFG_OP_REQUIRES_OK(ctx, reader.Open(pattern, *ctx));
    const StoredTensor* t = reader.Find(name);
    DFG_OP_REQUIRES(ctx, t != nullptr,
                    NotFound("Tensor name \"{}\" not found in checkpoint "
                             "files {}",
                             name, pattern));
    DFG_OP_REQUIRES(ctx, t->dtype == output_type(0),
                    InvalidArgument("Expected to restore a tensor of type {}, "
                                    "got a tensor of type {} instead: "
                                    "tensor_name = {}",
                                    DataTypeString(output_type(0)),
                                    DataTypeString(t->dtype), name));
    Slice want = Slice::Full(t->shape.dims());
    TensorShape out_shape = t->shape;
    const std::string spec =
        slice_ ? ctx->input(2).flat<std::string>()[0] : std::string();
    if (!spec.empty()) {
      StatusOr<ShapeAndSlice> parsed = ParseShapeAndSlice(spec);
      DFG_OP_REQUIRES_OK(ctx, parsed.status());
      DFG_OP_REQUIRES(ctx, parsed->full_shape == t->shape,
                      InvalidArgument("Shape in shape_and_slice spec does not "
                                      "match the shape in the save file: {}, "
                                      "save file shape: {}",
                                      parsed->full_shape.DebugString(),
                                      t->shape.DebugString()));
      want = SliceOf(spec, *parsed);
      out_shape = parsed->SliceShape();
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    DFG_OP_REQUIRES_OK(ctx, reader.Copy(name, *t, want, out));
  }

 private:
  bool slice_ = false;
};

}  // namespace

void RegisterSaveRestoreV1Kernels(KernelRegistry* r) {
  r->Register<SaveV1Op>("Save");
  r->Register<SaveV1Op>("SaveSlices");
  r->Register<RestoreV1Op>("Restore");
  r->Register<RestoreV1Op>("RestoreSlice");
}

}  // namespace dfg
