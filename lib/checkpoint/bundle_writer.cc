// BundleWriter and MergeBundles.
//
// The writer streams values into a temporary data file through an 8 MiB
// buffer, checksumming the bytes it copied; Finish writes the index to a
// temporary file and renames both into place, the index last, so that a
// reader never sees an index whose data is missing.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <unordered_map>

#include "lib/base/temp_files.h"
#include "lib/checkpoint/crc32c.h"
#include "lib/checkpoint/table_file.h"
#include "lib/checkpoint/tensor_bundle.h"

namespace dfg {

using tensorflow::BundleEntryProto;
using tensorflow::BundleHeaderProto;
using namespace checkpoint_internal;  // NOLINT

namespace {

constexpr size_t kWriteBuffer = 8 << 20;

std::string TempSuffix() {
  static std::mt19937_64 rng{std::random_device{}()};
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  return ".tempstate" + std::to_string(rng());
}

Status WriteAll(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return IoError(path, errno);
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

Status Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return IoError(from, errno).WithPrefix("renaming to " + to + ": ");
  }
  return Status::Ok();
}

std::string Dirname(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir;
}

BundleHeaderProto MakeHeader(int num_shards) {
  BundleHeaderProto header;
  header.set_num_shards(num_shards);
  header.set_endianness(BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(1);
  header.mutable_version()->set_min_consumer(0);
  return header;
}

void PutVarint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

}  // namespace

BundleWriter::BundleWriter(std::string prefix) : prefix_(std::move(prefix)) {
  std::string dir = Dirname(prefix_);
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      status_ = IoError(dir, ec.value());
      return;
    }
  }
  data_tmp_ = DataFilename(prefix_, 0, 1) + TempSuffix();
  index_tmp_ = MetaFilename(prefix_) + TempSuffix();
  data_slot_ = RegisterTempFile(data_tmp_);
  index_slot_ = RegisterTempFile(index_tmp_);
  fd_ =
      ::open(data_tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) status_ = IoError(data_tmp_, errno);
  buffer_.reserve(kWriteBuffer);
}

BundleWriter::~BundleWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!finished_) RemoveTempFiles();
  UnregisterTempFile(data_slot_);
  UnregisterTempFile(index_slot_);
}

void BundleWriter::RemoveTempFiles() {
  if (!data_tmp_.empty()) ::unlink(data_tmp_.c_str());
  if (!index_tmp_.empty()) ::unlink(index_tmp_.c_str());
}

Status BundleWriter::Flush() {
  Status s = WriteAll(fd_, buffer_.data(), buffer_.size(), data_tmp_);
  buffer_.clear();
  return s;
}

Status BundleWriter::Append(const void* data, size_t n, uint32_t* crc) {
  // Checksums the bytes as copied into the buffer (big values in chunks).
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    if (buffer_.size() == kWriteBuffer) DFG_RETURN_IF_ERROR(Flush());
    size_t chunk = std::min(n, kWriteBuffer - buffer_.size());
    size_t at = buffer_.size();
    buffer_.append(p, chunk);
    if (crc) *crc = crc32c::Extend(*crc, buffer_.data() + at, chunk);
    p += chunk;
    n -= chunk;
  }
  return Status::Ok();
}

Status BundleWriter::AddEntry(std::string_view key, DataType dtype,
                              const std::vector<int64_t>& shape,
                              BundleEntryProto** entry) {
  if (!status_.ok()) return status_;
  if (finished_) return FailedPrecondition("BundleWriter is closed");
  if (key.empty()) {
    return InvalidArgument("{}: a tensor key must not be empty",
                           MetaFilename(prefix_));
  }
  auto [it, inserted] = entries_.try_emplace(std::string(key));
  if (!inserted) return InvalidArgument("Adding duplicate key: {}", key);
  BundleEntryProto& e = it->second;
  e.set_dtype(dtype);
  // A scalar's shape is written as an empty message, as TensorFlow does.
  tensorflow::TensorShapeProto* proto_shape = e.mutable_shape();
  for (int64_t d : shape) proto_shape->add_dim()->set_size(d);
  e.set_shard_id(0);
  e.set_offset(size_);
  *entry = &e;
  return Status::Ok();
}

Status BundleWriter::Add(std::string_view key, DataType dtype,
                         const std::vector<int64_t>& shape, const void* data,
                         size_t nbytes) {
  size_t elem = DataTypeSize(dtype);
  if (elem == 0) {
    return InvalidArgument("{}: cannot save tensor '{}' of dtype {}",
                           MetaFilename(prefix_), key, DataTypeString(dtype));
  }
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  if (n * elem != nbytes) {
    return InvalidArgument(
        "{}: tensor '{}' has {} bytes, its shape and dtype need {}",
        MetaFilename(prefix_), key, nbytes, n * elem);
  }
  BundleEntryProto* entry = nullptr;
  DFG_RETURN_IF_ERROR(AddEntry(key, dtype, shape, &entry));
  uint32_t crc = 0;
  status_ = Append(data, nbytes, &crc);
  DFG_RETURN_IF_ERROR(status_);
  entry->set_size(static_cast<int64_t>(nbytes));
  entry->set_crc32c(crc32c::Mask(crc));
  size_ += static_cast<int64_t>(nbytes);
  return Status::Ok();
}

Status BundleWriter::AddStrings(std::string_view key,
                                const std::vector<int64_t>& shape,
                                const std::vector<std::string>& values) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  if (n != values.size()) {
    return InvalidArgument("{}: tensor '{}' has {} strings, its shape needs {}",
                           MetaFilename(prefix_), key, values.size(), n);
  }
  BundleEntryProto* entry = nullptr;
  DFG_RETURN_IF_ERROR(AddEntry(key, tensorflow::DT_STRING, shape, &entry));
  // [varint64 lengths][masked crc of the lengths][bytes]; the entry's crc
  // covers the lengths (as uint32, or uint64 above 4 GiB), the stored
  // length checksum and the bytes.
  std::string lengths;
  uint32_t crc = 0;
  for (const std::string& v : values) {
    uint64_t len = v.size();
    PutVarint64(&lengths, len);
    if (len <= 0xffffffffu) {
      uint32_t len32 = static_cast<uint32_t>(len);
      crc = crc32c::Extend(crc, &len32, sizeof(len32));
    } else {
      crc = crc32c::Extend(crc, &len, sizeof(len));
    }
  }
  uint32_t length_crc = crc32c::Mask(crc);
  crc = crc32c::Extend(crc, &length_crc, sizeof(length_crc));
  size_t bytes = lengths.size() + sizeof(length_crc);
  status_ = Append(lengths.data(), lengths.size(), nullptr);
  if (status_.ok()) status_ = Append(&length_crc, sizeof(length_crc), nullptr);
  for (const std::string& v : values) {
    if (!status_.ok()) break;
    status_ = Append(v.data(), v.size(), &crc);
    bytes += v.size();
  }
  DFG_RETURN_IF_ERROR(status_);
  entry->set_size(static_cast<int64_t>(bytes));
  entry->set_crc32c(crc32c::Mask(crc));
  size_ += static_cast<int64_t>(bytes);
  return Status::Ok();
}

Status BundleWriter::Finish() {
  if (!status_.ok()) return status_;
  if (finished_) return FailedPrecondition("BundleWriter is closed");
  status_ = Flush();
  if (status_.ok() && ::close(fd_) != 0) status_ = IoError(data_tmp_, errno);
  fd_ = -1;
  DFG_RETURN_IF_ERROR(status_);
  std::vector<std::pair<std::string, std::string>> table;
  table.emplace_back("", MakeHeader(1).SerializeAsString());
  for (const auto& [key, entry] : entries_) {
    table.emplace_back(key, entry.SerializeAsString());
  }
  status_ = WriteTable(index_tmp_, table);
  if (status_.ok()) status_ = Rename(data_tmp_, DataFilename(prefix_, 0, 1));
  if (status_.ok()) status_ = Rename(index_tmp_, MetaFilename(prefix_));
  DFG_RETURN_IF_ERROR(status_);
  finished_ = true;
  return Status::Ok();
}

// --- MergeBundles ---------------------------------------------------------

namespace {

struct MergeState {
  int num_shards = 0;
  bool seen_first = false;
  BundleHeaderProto::Endianness endianness = BundleHeaderProto::LITTLE;
  std::string version;  // serialized VersionDef of the first bundle
  std::map<std::string, BundleEntryProto> entries;
  // Old data file -> shard id in the merged bundle, in order of first use.
  std::vector<std::string> data_files;
  std::unordered_map<std::string, int> shard_ids;
};

Status MergeOne(const std::string& prefix, MergeState* m) {
  const std::string file = MetaFilename(prefix);
  DFG_ASSIGN_OR_RETURN(std::string index, ReadCheckpointFile(file));
  bool seen_header = false;
  int num_shards = 0;
  return ForEachTableEntry(
      file, index, [&](std::string_view key, std::string_view value) -> Status {
        if (!seen_header) {
          BundleHeaderProto header;
          if (!key.empty() ||
              !header.ParseFromArray(value.data(),
                                     static_cast<int>(value.size()))) {
            return CorruptFileError(file, "unable to parse header");
          }
          seen_header = true;
          num_shards = header.num_shards();
          m->num_shards += num_shards;
          std::string version = header.version().SerializeAsString();
          if (!m->seen_first) {
            m->seen_first = true;
            m->endianness = header.endianness();
            m->version = version;
          } else if (m->endianness != header.endianness()) {
            return InvalidArgument(
                "Merging bundles with conflicting endianness; inputs "
                "corrupted? ({})",
                file);
          } else if (m->version != version) {
            return InvalidArgument(
                "Merging bundles with different format versions: {} differs "
                "from the first bundle's",
                file);
          }
          return Status::Ok();
        }
        std::string k(key);
        auto existing = m->entries.find(k);
        if (existing != m->entries.end() && existing->second.slices().empty()) {
          return InvalidArgument(
              "Duplicate tensor keyed by {} encountered, when merging "
              "prefix: {}",
              key, prefix);
        }
        BundleEntryProto entry;
        if (!entry.ParseFromArray(value.data(),
                                  static_cast<int>(value.size()))) {
          return DataLoss("Entry for key {} not parseable. (in {})", key, file);
        }
        if (existing != m->entries.end()) {
          // Another piece of a partitioned tensor: merge the slice lists.
          if (entry.slices().empty()) {
            return Internal(
                "Duplicate tensor keyed by {}; attempting to merge in a "
                "non-slice bundle entry ({})",
                key, file);
          }
          for (const auto& slice : entry.slices()) {
            *existing->second.add_slices() = slice;
          }
          return Status::Ok();
        }
        if (entry.slices().empty()) {
          std::string data = DataFilename(prefix, entry.shard_id(), num_shards);
          auto [it, inserted] = m->shard_ids.try_emplace(
              data, static_cast<int>(m->data_files.size()));
          if (inserted) m->data_files.push_back(data);
          entry.set_shard_id(it->second);
        }
        m->entries.emplace(std::move(k), std::move(entry));
        return Status::Ok();
      });
}

}  // namespace

Status MergeBundles(const std::vector<std::string>& prefixes,
                    const std::string& merged_prefix,
                    const MergeOptions& options) {
  MergeState merge;
  std::string merged_dir = Dirname(merged_prefix);
  if (!merged_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(merged_dir, ec);
    if (ec) return IoError(merged_dir, ec.value());
  }
  std::vector<std::string> merged;
  for (const std::string& prefix : prefixes) {
    if (options.allow_missing_files &&
        !std::filesystem::exists(MetaFilename(prefix))) {
      continue;
    }
    DFG_RETURN_IF_ERROR(MergeOne(prefix, &merge));
    merged.push_back(prefix);
  }
  if (merged.empty()) {
    return InvalidArgument(
        "Expected at least one checkpoint to merge into {}, found none",
        merged_prefix);
  }
  // The merged bundle's data files are exactly the ones its entries use, so
  // the header counts those (TensorFlow sums the inputs' num_shards, which
  // differs only when an input bundle has a data file without tensors).
  const int total = static_cast<int>(merge.data_files.size());
  for (size_t id = 0; id < merge.data_files.size(); ++id) {
    DFG_RETURN_IF_ERROR(
        Rename(merge.data_files[id],
               DataFilename(merged_prefix, static_cast<int>(id), total)));
  }
  BundleHeaderProto header = MakeHeader(total > 0 ? total : 1);
  header.set_endianness(merge.endianness);
  header.mutable_version()->ParseFromString(merge.version);
  std::vector<std::pair<std::string, std::string>> table;
  table.emplace_back("", header.SerializeAsString());
  for (const auto& [key, entry] : merge.entries) {
    table.emplace_back(key, entry.SerializeAsString());
  }
  std::string tmp = MetaFilename(merged_prefix) + TempSuffix();
  Status s = WriteTable(tmp, table);
  if (s.ok()) s = Rename(tmp, MetaFilename(merged_prefix));
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  for (const std::string& prefix : merged) {
    if (MetaFilename(prefix) != MetaFilename(merged_prefix)) {
      ::unlink(MetaFilename(prefix).c_str());
    }
  }
  if (options.delete_old_dirs) {
    for (const std::string& prefix : merged) {
      std::string dir = Dirname(prefix);
      if (dir.empty() || dir == merged_dir) continue;
      ::rmdir(dir.c_str());  // best effort: only if empty, as TensorFlow
    }
  }
  return Status::Ok();
}

Status MergeBundles(const std::vector<std::string>& prefixes,
                    const std::string& merged_prefix, bool delete_old_dirs) {
  MergeOptions options;
  options.delete_old_dirs = delete_old_dirs;
  return MergeBundles(prefixes, merged_prefix, options);
}

}  // namespace dfg
