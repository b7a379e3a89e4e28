#include "lib/kernels/save_restore_util.h"

#include <cstring>

#include "lib/base/strings.h"
#include "lib/checkpoint/crc32c.h"

namespace dfg {

bool ShapeAndSlice::IsFull() const {
  for (size_t d = 0; d < start.size(); ++d) {
    if (start[d] != 0 || length[d] != full_shape.dim_size(static_cast<int>(d)))
      return false;
  }
  return true;
}

TensorShape ShapeAndSlice::SliceShape() const {
  return TensorShape(std::span<const int64_t>(length));
}

StatusOr<ShapeAndSlice> ParseShapeAndSlice(const std::string& spec) {
  std::vector<std::string> parts = StrSplit(spec, ' ', true);
  if (parts.size() < 2) {
    return InvalidArgument(
        "Need least two elements in shape_and_slice specification: {}", spec);
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    auto d = ParseInt64(parts[i]);
    if (!d || *d < 0) {
      return InvalidArgument("Non numerical dimension in shape_and_slice: {}",
                             spec);
    }
    dims.push_back(*d);
  }
  if (!TensorShape::IsValid(dims)) {
    return InvalidArgument("Invalid shape in shape_and_slice: {}", spec);
  }
  ShapeAndSlice out;
  out.full_shape = TensorShape(std::span<const int64_t>(dims));
  std::vector<std::string> extents = StrSplit(parts.back(), ':', false);
  if (extents.size() != dims.size()) {
    return InvalidArgument(
        "Expected {} dimensions in the slice of shape_and_slice, got {}: {}",
        dims.size(), extents.size(), spec);
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    if (extents[d] == "-") {
      out.start.push_back(0);
      out.length.push_back(dims[d]);
      continue;
    }
    std::vector<std::string> se = StrSplit(extents[d], ',', false);
    int64_t start = -1, length = -2;
    if (se.size() == 2) {
      start = ParseInt64(se[0]).value_or(-1);
      length = ParseInt64(se[1]).value_or(-2);
    }
    if (start < 0 || length < -1) {
      return InvalidArgument(
          "Expected a pair of numbers or '-' but got '{}': string = {}",
          extents[d], spec);
    }
    if (length == -1) length = dims[d] - start;
    if (start > dims[d] || length < 0 || length > dims[d] - start) {
      return InvalidArgument(
          "Extent in dimension {} out of bounds: shape {}, slice {}", d,
          out.full_shape.DebugString(), spec);
    }
    out.start.push_back(start);
    out.length.push_back(length);
  }
  return out;
}

namespace {

// Calls fn(src_offset, dst_offset, count) (in elements) for each innermost
// run of the slice.
template <typename Fn>
void ForEachRun(const ShapeAndSlice& slice, Fn&& fn) {
  const int rank = slice.full_shape.dims();
  if (rank == 0) {
    fn(0, 0, 1);
    return;
  }
  if (slice.SliceShape().num_elements() == 0) return;
  std::vector<int64_t> stride(rank, 1);
  for (int d = rank - 2; d >= 0; --d) {
    stride[d] = stride[d + 1] * slice.full_shape.dim_size(d + 1);
  }
  const int64_t run = slice.length[rank - 1];
  std::vector<int64_t> idx(rank, 0);  // over the outer dims of the slice
  int64_t dst = 0;
  while (true) {
    int64_t src = slice.start[rank - 1];
    for (int d = 0; d + 1 < rank; ++d)
      src += (slice.start[d] + idx[d]) * stride[d];
    fn(src, dst, run);
    dst += run;
    int d = rank - 2;
    while (d >= 0 && ++idx[d] == slice.length[d]) idx[d--] = 0;
    if (d < 0) return;
  }
}

}  // namespace

void CopySlice(const Tensor& whole, const ShapeAndSlice& slice, Tensor* out) {
  if (whole.dtype() == tensorflow::DT_STRING) {
    auto src = whole.flat<std::string>();
    auto dst = out->flat<std::string>();
    ForEachRun(slice, [&](int64_t s, int64_t d, int64_t n) {
      for (int64_t k = 0; k < n; ++k) dst[d + k] = src[s + k];
    });
    return;
  }
  const size_t elem = DataTypeSize(whole.dtype());
  const char* src = static_cast<const char*>(whole.data());
  char* dst = static_cast<char*>(out->data());
  ForEachRun(slice, [&](int64_t s, int64_t d, int64_t n) {
    std::memcpy(dst + d * elem, src + s * elem, n * elem);
  });
}

StatusOr<TensorShape> ShapeFromDims(const std::vector<int64_t>& dims,
                                    const std::string& key,
                                    const std::string& prefix) {
  if (!TensorShape::IsValid(dims)) {
    return DataLoss("Invalid tensor shape: {} in checkpoint {}", key, prefix);
  }
  return TensorShape(std::span<const int64_t>(dims));
}

Status ReadIntoTensor(BundleReader& reader, const BundleEntryInfo& info,
                      Tensor* out) {
  if (info.dtype == tensorflow::DT_STRING) {
    DFG_ASSIGN_OR_RETURN(std::vector<std::string> values,
                         reader.ReadStrings(info.key));
    auto flat = out->flat<std::string>();
    if (values.size() != flat.size()) {
      return Internal("tensor '{}': {} strings for {} elements", info.key,
                      values.size(), flat.size());
    }
    for (size_t k = 0; k < values.size(); ++k) flat[k] = std::move(values[k]);
    return Status::Ok();
  }
  return reader.ReadInto(info.key, out->data(), out->TotalBytes());
}

namespace {

// A piece of a restore: bytes [begin, end) of reads[read] (a string
// tensor is one piece, [0, 0)).
struct ReadRange {
  size_t read;
  size_t begin;
  size_t end;
};

std::vector<ReadRange> SplitReads(const std::vector<TensorRead>& reads) {
  std::vector<ReadRange> ranges;
  for (size_t i = 0; i < reads.size(); ++i) {
    const size_t size = static_cast<size_t>(reads[i].info.size_bytes);
    if (reads[i].info.dtype == tensorflow::DT_STRING || size == 0) {
      ranges.push_back({i, 0, 0});
      continue;
    }
    for (size_t b = 0; b < size; b += kRestoreRangeBytes) {
      ranges.push_back({i, b, std::min(size, b + kRestoreRangeBytes)});
    }
  }
  return ranges;
}

}  // namespace

Status ReadTensors(BundleReader& reader, const std::vector<TensorRead>& reads,
                   ThreadPoolInterface* pool) {
  const std::vector<ReadRange> ranges = SplitReads(reads);
  std::vector<Status> status(ranges.size());
  std::vector<uint32_t> crcs(ranges.size(), 0);
  int64_t bytes = 0;
  for (const TensorRead& r : reads) bytes += r.info.size_bytes;
  const int64_t cost =
      ranges.empty() ? 0 : bytes / static_cast<int64_t>(ranges.size());
  ParallelFor(pool, static_cast<int64_t>(ranges.size()), cost,
              [&](int64_t begin, int64_t end) {
                for (int64_t k = begin; k < end; ++k) {
                  const ReadRange& range = ranges[k];
                  const TensorRead& r = reads[range.read];
                  if (r.info.dtype == tensorflow::DT_STRING) {
                    status[k] = ReadIntoTensor(reader, r.info, r.out);
                    continue;
                  }
                  StatusOr<uint32_t> crc = reader.ReadRangeInto(
                      r.info.key, r.out->data(), r.out->TotalBytes(),
                      range.begin, range.end);
                  if (crc.ok()) {
                    crcs[k] = *crc;
                  } else {
                    status[k] = crc.status();
                  }
                }
              });
  // Ranges of one tensor are consecutive: join their checksums in order.
  for (size_t k = 0; k < ranges.size();) {
    const TensorRead& r = reads[ranges[k].read];
    uint32_t crc = 0;
    size_t next = k;
    for (; next < ranges.size() && ranges[next].read == ranges[k].read;
         ++next) {
      DFG_RETURN_IF_ERROR(status[next]);
      crc = crc32c::Combine(crc, crcs[next],
                            ranges[next].end - ranges[next].begin);
    }
    if (r.info.dtype != tensorflow::DT_STRING) {
      DFG_RETURN_IF_ERROR(reader.VerifyChecksum(r.info.key, crc));
    }
    k = next;
  }
  return Status::Ok();
}

}  // namespace dfg
