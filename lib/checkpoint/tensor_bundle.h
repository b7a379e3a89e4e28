// TensorBundle checkpoints (TensorFlow's V2 checkpoint format), read and
// written. A bundle PREFIX is
//   PREFIX.index                    a leveldb table (snappy-compressed
//                                   blocks, masked CRC32C per block): the
//                                   BundleHeaderProto under the empty key,
//                                   then one BundleEntryProto per tensor key
//   PREFIX.data-00000-of-0000N      the tensors' bytes, back to back
// A numeric tensor is stored as its raw little-endian elements; a string
// tensor as the varint64 lengths of all elements, a masked CRC32C of the
// lengths (each as uint32, or uint64 above 4 GiB) and then the bytes. Each
// entry holds the masked CRC32C of what it covers, checked on every read.
//
// This library knows tensors as bytes + dtype + shape, not kernels or
// sessions. It is the only code that includes leveldb's headers.
//
// Errors name the file and the tensor key; TensorFlow's wording where it has
// one: kNotFound "Key <k> not found in checkpoint <prefix>", kDataLoss
// "... Checksum does not match: stored ... vs. calculated on the restored
// bytes ...", "Unable to read file (<file>). Perhaps the file is corrupt or
// was produced by a newer version of TensorFlow with format changes (...)".
#ifndef DFG_LIB_CHECKPOINT_TENSOR_BUNDLE_H_
#define DFG_LIB_CHECKPOINT_TENSOR_BUNDLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/types.h"
#include "lib/proto/tensor_bundle.pb.h"

namespace dfg {

// "PREFIX.index".
std::string MetaFilename(std::string_view prefix);
// "PREFIX.data-00002-of-00005" (shard 2 of 5).
std::string DataFilename(std::string_view prefix, int shard, int num_shards);

struct BundleEntryInfo {
  std::string key;
  DataType dtype = tensorflow::DT_INVALID;
  std::vector<int64_t> shape;
  int64_t size_bytes = 0;  // stored bytes (the entry's `size`)
  bool sliced = false;     // a partitioned tensor: its pieces hold the data
};

// A slice of a tensor (TensorFlow's TensorSlice): per dimension a start
// and a length, length -1 meaning the whole dimension.
struct SliceSpec {
  std::vector<int64_t> start;
  std::vector<int64_t> length;

  // True when every extent is the whole dimension of `full_shape`.
  bool IsFull(const std::vector<int64_t>& full_shape) const;
  // The slice's shape within `full_shape`.
  std::vector<int64_t> Shape(const std::vector<int64_t>& full_shape) const;
  // The TensorSliceProto; a whole-dimension extent has no fields.
  tensorflow::TensorSliceProto ToProto() const;
  static SliceSpec FromProto(const tensorflow::TensorSliceProto& proto);
};

// The key a partitioned tensor's piece is stored under: TensorFlow's
// EncodeTensorNameSlice (OrderedCode of 0, the name, the rank, then each
// extent's start and length as signed numbers).
std::string EncodeTensorNameSlice(std::string_view name,
                                  const SliceSpec& slice);

class BundleReader {
 public:
  // Reads PREFIX.index whole and checks it: the table, the header (format
  // version, little-endian data) and every entry (parseable, valid shape,
  // shard in range). Data shards are opened when first read. Errors:
  // kNotFound for a missing index, kDataLoss for a corrupt one, naming it.
  static StatusOr<std::unique_ptr<BundleReader>> Open(
      const std::string& prefix);
  // The same over bytes in memory (tests, fuzzing): `index` is the .index
  // file, `shards[i]` data shard i; `prefix` only names them in messages.
  static StatusOr<std::unique_ptr<BundleReader>> OpenInMemory(
      const std::string& prefix, std::string index,
      std::vector<std::string> shards);
  ~BundleReader();
  BundleReader(const BundleReader&) = delete;
  BundleReader& operator=(const BundleReader&) = delete;

  const std::string& prefix() const { return prefix_; }
  int num_shards() const { return num_shards_; }
  // Every entry but the header, sorted by key (slices of partitioned
  // tensors included, as TensorFlow lists them).
  const std::vector<BundleEntryInfo>& Entries() const { return infos_; }
  // kNotFound "Key <key> not found in checkpoint <prefix>".
  StatusOr<BundleEntryInfo> Lookup(std::string_view key) const;
  // The stored proto of `key` (kNotFound as Lookup).
  StatusOr<tensorflow::BundleEntryProto> LookupProto(
      std::string_view key) const;

  // Checks, without reading the value, what ReadInto/ReadStrings check
  // before reading: not sliced, a readable dtype, a stored size that fits
  // the shape, and bytes that lie inside the data shard (opening it).
  // Callers that allocate from the stored shape call this first.
  Status CheckReadable(std::string_view key);

  // Reads a numeric tensor's bytes straight into dst (exactly size_bytes
  // bytes: nbytes must equal it), checksumming each piece as it arrives
  // (while it is in cache), and checks the checksum. Thread-safe. Errors:
  // kNotFound (key, shard file), kInvalidArgument (string dtype, nbytes),
  // kDataLoss (size, truncated shard, checksum), kUnimplemented
  // (partitioned tensor).
  Status ReadInto(std::string_view key, void* dst, size_t nbytes);
  // Reads bytes [begin, end) of a numeric tensor's value into dst + begin
  // (dst holds the whole value: nbytes must be its size) and returns their
  // CRC32C, unchecked. A restore splits a big tensor into ranges read on
  // several threads, joins the ranges' checksums in order with
  // crc32c::Combine and checks the whole with VerifyChecksum. Thread-safe.
  // Errors as ReadInto, and kInvalidArgument for a range outside [0, nbytes].
  StatusOr<uint32_t> ReadRangeInto(std::string_view key, void* dst,
                                   size_t nbytes, size_t begin, size_t end);
  // kDataLoss "... Checksum does not match ..." unless `crc` is the CRC32C
  // of `key`'s stored value; kNotFound for an unknown key.
  Status VerifyChecksum(std::string_view key, uint32_t crc) const;
  // Reads a DT_STRING tensor's elements (row-major). Thread-safe.
  StatusOr<std::vector<std::string>> ReadStrings(std::string_view key);
  // Reads `slice` of numeric tensor `key` into dst (row-major, the slice's
  // shape), whether the tensor is stored whole or partitioned; pieces are
  // read whole and their overlap with `slice` copied. Errors as ReadInto,
  // and kInvalidArgument "Does not have sufficient slices for partitioned
  // tensor <key> to restore in slice_spec: ..." when the stored pieces do
  // not cover `slice`.
  Status ReadSlice(std::string_view key, const SliceSpec& slice, void* dst,
                   size_t nbytes);

 private:
  struct Shard;
  BundleReader() = default;
  static StatusOr<std::unique_ptr<BundleReader>> Parse(
      std::unique_ptr<BundleReader> reader, const std::string& index);
  // The header (the table's first entry) and each later entry.
  Status ParseHeader(std::string_view key, std::string_view value);
  Status ParseEntry(std::string_view key, std::string_view value);
  // Entry of key (kNotFound).
  StatusOr<const tensorflow::BundleEntryProto*> Find(
      std::string_view key) const;
  // The shard's size; opens its file on first use.
  StatusOr<Shard*> GetShard(int id);
  // Shared checks of a read: returns the shard holding the bytes.
  StatusOr<Shard*> CheckEntry(std::string_view key,
                              const tensorflow::BundleEntryProto& entry);
  // Reads [offset, offset + n) of a shard into dst.
  Status ReadBytes(Shard* shard, std::string_view key, int64_t offset, size_t n,
                   void* dst);
  // ReadBytes in pieces that fit the cache, extending *crc over each piece
  // right after it is read.
  Status ReadBytesChecksummed(Shard* shard, std::string_view key,
                              int64_t offset, size_t n, char* dst,
                              uint32_t* crc);
  // The checks of ReadInto / ReadRangeInto: returns the shard.
  StatusOr<Shard*> CheckNumeric(std::string_view key,
                                const tensorflow::BundleEntryProto& entry,
                                size_t nbytes);
  Status ChecksumError(std::string_view key,
                       const tensorflow::BundleEntryProto& entry,
                       uint32_t actual) const;

  std::string prefix_;
  std::string index_name_;
  int num_shards_ = 0;
  bool in_memory_ = false;
  std::vector<std::string> keys_;  // sorted
  std::vector<tensorflow::BundleEntryProto> entries_;
  std::vector<BundleEntryInfo> infos_;
  std::mutex shards_mu_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

class BundleWriter {
 public:
  // Writes PREFIX.data-00000-of-00001.tempstate<random> as tensors are
  // added and, at Finish, the index likewise; then renames both into place
  // (the index last), as TensorFlow does. The prefix's directory is created
  // if missing. A writer destroyed before a successful Finish removes its
  // temporary files, so a failed save leaves nothing behind.
  explicit BundleWriter(std::string prefix);
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // The first error (creating the directory or the data file), or OK.
  const Status& status() const { return status_; }

  // A numeric tensor: nbytes must be the shape's elements times the dtype's
  // size. Errors: kInvalidArgument "Adding duplicate key: <key>", an empty
  // key, a string or unsupported dtype, a size mismatch; I/O errors.
  Status Add(std::string_view key, DataType dtype,
             const std::vector<int64_t>& shape, const void* data,
             size_t nbytes);
  // A DT_STRING tensor (values.size() = the shape's elements).
  Status AddStrings(std::string_view key, const std::vector<int64_t>& shape,
                    const std::vector<std::string>& values);
  // Declares that a piece `slice` of partitioned tensor `key` (of
  // `full_shape`) follows, and returns the key to Add / AddStrings its
  // values under (EncodeTensorNameSlice). A full slice is the tensor
  // itself: returns `key`. kInvalidArgument for a slice that does not fit
  // the shape or a dtype/shape that differs from the earlier pieces'.
  StatusOr<std::string> AddSliceEntry(std::string_view key, DataType dtype,
                                      const std::vector<int64_t>& full_shape,
                                      const SliceSpec& slice);
  // Writes the data file and the index and renames them into place. Errors:
  // the first error of an earlier call, I/O errors naming the file.
  Status Finish();

 private:
  Status AddEntry(std::string_view key, DataType dtype,
                  const std::vector<int64_t>& shape,
                  tensorflow::BundleEntryProto** entry);
  Status Append(const void* data, size_t n, uint32_t* crc);
  Status Flush();
  void RemoveTempFiles();

  std::string prefix_;
  std::string data_tmp_;
  std::string index_tmp_;
  int data_slot_ = -1;  // temp_files.h registrations, for a fatal signal
  int index_slot_ = -1;
  int fd_ = -1;
  std::string buffer_;  // pending data bytes (flushed at 8 MiB)
  int64_t size_ = 0;    // data bytes added so far
  bool finished_ = false;
  Status status_;
  std::map<std::string, tensorflow::BundleEntryProto> entries_;
};

struct MergeOptions {
  // MergeV2Checkpoints' attrs: remove each input prefix's directory (when
  // it is not the merged prefix's) after the merge; merge as long as at
  // least one input index exists.
  bool delete_old_dirs = false;
  bool allow_missing_files = false;
};

// MergeV2Checkpoints: merges the bundles of `prefixes` into one bundle at
// `merged_prefix` (their data files are renamed, the merged index written,
// the old indexes deleted). Errors as TensorFlow's: kInvalidArgument
// "Duplicate tensor keyed by <k> encountered, when merging prefix: <p>",
// conflicting endianness or versions; kNotFound for a missing index.
Status MergeBundles(const std::vector<std::string>& prefixes,
                    const std::string& merged_prefix,
                    const MergeOptions& options);
Status MergeBundles(const std::vector<std::string>& prefixes,
                    const std::string& merged_prefix, bool delete_old_dirs);

}  // namespace dfg

#endif  // DFG_LIB_CHECKPOINT_TENSOR_BUNDLE_H_
