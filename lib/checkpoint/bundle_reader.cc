// BundleReader: the index is read whole and checked at Open (it is small:
// one short proto per tensor); values are read on demand with pread()s
// straight into the caller's buffer (no intermediate copy), checksummed
// piece by piece as they arrive.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>

#include "lib/checkpoint/crc32c.h"
#include "lib/checkpoint/table_file.h"
#include "lib/checkpoint/tensor_bundle.h"

namespace dfg {

using tensorflow::BundleEntryProto;
using tensorflow::BundleHeaderProto;
using namespace checkpoint_internal;  // NOLINT

namespace {

// The format version this code reads and writes (TensorFlow's
// kTensorBundleVersion / kTensorBundleMinProducer).
constexpr int kBundleVersion = 1;
constexpr int kBundleMinProducer = 0;

// TensorFlow's CheckVersions for a checkpoint.
Status CheckVersion(const tensorflow::VersionDef& v, const std::string& file) {
  if (v.producer() < kBundleMinProducer) {
    return FailedPrecondition(
        "{}: Checkpoint producer version {} below min producer {} supported "
        "by dfg. Please regenerate your checkpoint.",
        file, v.producer(), kBundleMinProducer);
  }
  if (v.min_consumer() > kBundleVersion) {
    return FailedPrecondition(
        "{}: Checkpoint min consumer version {} above current version {} for "
        "dfg. Please upgrade dfg.",
        file, v.min_consumer(), kBundleVersion);
  }
  for (int bad : v.bad_consumers()) {
    if (bad == kBundleVersion) {
      return FailedPrecondition(
          "{}: Checkpoint disallows consumer version {}. Please upgrade dfg: "
          "this version is likely buggy.",
          file, bad);
    }
  }
  return Status::Ok();
}

// Elements of a stored shape; nullopt for an invalid one (unknown rank,
// negative dims, overflow).
std::optional<int64_t> NumElements(const tensorflow::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return std::nullopt;
  int64_t n = 1;
  for (const auto& d : shape.dim()) {
    if (d.size() < 0) return std::nullopt;
    if (d.size() != 0 && n > std::numeric_limits<int64_t>::max() / d.size()) {
      return std::nullopt;
    }
    n *= d.size();
  }
  return n;
}

bool GetVarint64(const char** p, const char* end, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && *p < end; shift += 7) {
    uint64_t byte = static_cast<unsigned char>(*(*p)++);
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

}  // namespace

std::string MetaFilename(std::string_view prefix) {
  return std::string(prefix) + ".index";
}

std::string DataFilename(std::string_view prefix, int shard, int num_shards) {
  return fmt::format("{}.data-{:05d}-of-{:05d}", prefix, shard, num_shards);
}

struct BundleReader::Shard {
  std::string name;
  int fd = -1;
  int64_t size = 0;
  const std::string* memory = nullptr;  // in-memory bundles
  std::string owned;
  ~Shard() {
    if (fd >= 0) ::close(fd);
  }
};

BundleReader::~BundleReader() = default;

StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(
    const std::string& prefix) {
  std::unique_ptr<BundleReader> reader(new BundleReader());
  reader->prefix_ = prefix;
  reader->index_name_ = MetaFilename(prefix);
  DFG_ASSIGN_OR_RETURN(std::string index,
                       ReadCheckpointFile(reader->index_name_));
  return Parse(std::move(reader), index);
}

StatusOr<std::unique_ptr<BundleReader>> BundleReader::OpenInMemory(
    const std::string& prefix, std::string index,
    std::vector<std::string> shards) {
  std::unique_ptr<BundleReader> reader(new BundleReader());
  reader->prefix_ = prefix;
  reader->index_name_ = MetaFilename(prefix);
  reader->in_memory_ = true;
  DFG_ASSIGN_OR_RETURN(reader, Parse(std::move(reader), index));
  for (size_t i = 0; i < reader->shards_.size() && i < shards.size(); ++i) {
    auto shard = std::make_unique<Shard>();
    shard->name =
        DataFilename(prefix, static_cast<int>(i), reader->num_shards_);
    shard->owned = std::move(shards[i]);
    shard->memory = &shard->owned;
    shard->size = static_cast<int64_t>(shard->owned.size());
    reader->shards_[i] = std::move(shard);
  }
  return reader;
}

Status BundleReader::ParseHeader(std::string_view key, std::string_view value) {
  const std::string& file = index_name_;
  if (!key.empty()) {
    return CorruptFileError(file, "failed to seek to header entry");
  }
  BundleHeaderProto header;
  if (!header.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
    return CorruptFileError(file, "unable to parse header");
  }
  num_shards_ = header.num_shards();
  if (num_shards_ < 1 || num_shards_ > 99999) {
    return CorruptFileError(file,
                            fmt::format("bad num_shards {}", num_shards_));
  }
  if (header.endianness() != BundleHeaderProto::LITTLE) {
    return Unimplemented(
        "{}: the checkpoint's data is big-endian; dfg reads little-endian "
        "checkpoints only",
        file);
  }
  return CheckVersion(header.version(), file);
}

Status BundleReader::ParseEntry(std::string_view key, std::string_view value) {
  const std::string& file = index_name_;
  BundleEntryProto entry;
  if (!entry.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
    return DataLoss("Entry for key {} not parseable. (in {})", key, file);
  }
  if (!NumElements(entry.shape())) {
    return DataLoss("Invalid tensor shape: {} {} (in {})", key,
                    entry.shape().ShortDebugString(), file);
  }
  if (entry.slices_size() == 0 &&
      (entry.shard_id() < 0 || entry.shard_id() >= num_shards_ ||
       entry.offset() < 0 || entry.size() < 0 ||
       entry.offset() > std::numeric_limits<int64_t>::max() - entry.size())) {
    return DataLoss(
        "{}: bad location of tensor '{}': shard {} of {}, offset {}, size {}",
        file, key, entry.shard_id(), num_shards_, entry.offset(), entry.size());
  }
  BundleEntryInfo info;
  info.key = std::string(key);
  info.dtype = entry.dtype();
  for (const auto& d : entry.shape().dim()) info.shape.push_back(d.size());
  info.size_bytes = entry.size();
  info.sliced = entry.slices_size() > 0;
  keys_.push_back(info.key);
  infos_.push_back(std::move(info));
  entries_.push_back(std::move(entry));
  return Status::Ok();
}

StatusOr<std::unique_ptr<BundleReader>> BundleReader::Parse(
    std::unique_ptr<BundleReader> reader, const std::string& index) {
  BundleReader& r = *reader;
  bool seen_header = false;
  DFG_RETURN_IF_ERROR(ForEachTableEntry(
      r.index_name_, index,
      [&](std::string_view key, std::string_view value) -> Status {
        if (seen_header) return r.ParseEntry(key, value);
        seen_header = true;
        return r.ParseHeader(key, value);
      }));
  if (!seen_header) {
    return CorruptFileError(r.index_name_, "failed to seek to header entry");
  }
  r.shards_.resize(static_cast<size_t>(r.num_shards_));
  return reader;
}

StatusOr<const BundleEntryProto*> BundleReader::Find(
    std::string_view key) const {
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
  if (it == keys_.end() || *it != key) {
    return NotFound("Key {} not found in checkpoint {}", key, prefix_);
  }
  return &entries_[static_cast<size_t>(it - keys_.begin())];
}

StatusOr<BundleEntryInfo> BundleReader::Lookup(std::string_view key) const {
  DFG_ASSIGN_OR_RETURN(const BundleEntryProto* entry, Find(key));
  return infos_[static_cast<size_t>(entry - entries_.data())];
}

StatusOr<BundleEntryProto> BundleReader::LookupProto(
    std::string_view key) const {
  DFG_ASSIGN_OR_RETURN(const BundleEntryProto* entry, Find(key));
  return *entry;
}

StatusOr<BundleReader::Shard*> BundleReader::GetShard(int id) {
  std::lock_guard<std::mutex> lock(shards_mu_);
  std::unique_ptr<Shard>& slot = shards_[static_cast<size_t>(id)];
  if (slot) return slot.get();
  std::string name = DataFilename(prefix_, id, num_shards_);
  if (in_memory_) return IoError(name, ENOENT);
  int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(name, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return IoError(name, err);
  }
  slot = std::make_unique<Shard>();
  slot->name = std::move(name);
  slot->fd = fd;
  slot->size = st.st_size;
  return slot.get();
}

StatusOr<BundleReader::Shard*> BundleReader::CheckEntry(
    std::string_view key, const BundleEntryProto& entry) {
  if (entry.slices_size() > 0) {
    return Unimplemented(
        "{}: tensor '{}' is partitioned into {} slices; dfg does not read "
        "partitioned tensors",
        index_name_, key, entry.slices_size());
  }
  int64_t n = *NumElements(entry.shape());
  if (entry.dtype() == tensorflow::DT_STRING) {
    // At least one varint byte per element (TensorFlow's lower bound).
    if (entry.size() < n) {
      return DataLoss(
          "Invalid size in bundle entry: key {}; stored size {}; expected "
          "size is at least {} (in {})",
          key, entry.size(), n, index_name_);
    }
  } else {
    size_t elem = DataTypeSize(entry.dtype());
    if (elem == 0) {
      return Unimplemented(
          "{}: tensor '{}' has dtype {}, which dfg cannot read", index_name_,
          key, DataTypeString(entry.dtype()));
    }
    const int64_t e = static_cast<int64_t>(elem);
    if (n > std::numeric_limits<int64_t>::max() / e || entry.size() != n * e) {
      return DataLoss(
          "Invalid size in bundle entry: key {}; stored size {}; expected "
          "size {} ({} elements of {} bytes) (in {})",
          key, entry.size(),
          n > std::numeric_limits<int64_t>::max() / e ? std::string("> 2^63")
                                                      : std::to_string(n * e),
          n, elem, index_name_);
    }
  }
  auto opened = GetShard(entry.shard_id());
  if (!opened.ok()) {
    return Status(opened.status().code(),
                  fmt::format("{} (reading tensor '{}')",
                              opened.status().message(), key));
  }
  Shard* shard = *opened;
  if (entry.offset() + entry.size() > shard->size) {
    return DataLoss(
        "{}: tensor '{}' lies at bytes [{}, {}) but the file has {} bytes "
        "(truncated?)",
        shard->name, key, entry.offset(), entry.offset() + entry.size(),
        shard->size);
  }
  return shard;
}

Status BundleReader::CheckReadable(std::string_view key) {
  DFG_ASSIGN_OR_RETURN(const BundleEntryProto* entry, Find(key));
  return CheckEntry(key, *entry).status();
}

Status BundleReader::ReadBytes(Shard* shard, std::string_view key,
                               int64_t offset, size_t n, void* dst) {
  if (shard->memory != nullptr) {
    std::memcpy(dst, shard->memory->data() + offset, n);
    return Status::Ok();
  }
  char* p = static_cast<char*>(dst);
  while (n > 0) {
    ssize_t r = ::pread(shard->fd, p, n, offset);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      return IoError(shard->name, errno)
          .WithPrefix(fmt::format("reading tensor '{}': ", key));
    }
    if (r == 0) {
      return DataLoss("{}: tensor '{}': unexpected end of file at offset {}",
                      shard->name, key, offset);
    }
    p += r;
    offset += r;
    n -= static_cast<size_t>(r);
  }
  return Status::Ok();
}

Status BundleReader::ChecksumError(std::string_view key,
                                   const BundleEntryProto& entry,
                                   uint32_t actual) const {
  return DataLoss(
      "TensorBundle at {} shard {} ({} bytes): Checksum does not match: "
      "stored {:08} vs. calculated on the restored bytes {} (tensor '{}' in "
      "{})",
      prefix_, entry.shard_id(), entry.size(), crc32c::Unmask(entry.crc32c()),
      actual, key, DataFilename(prefix_, entry.shard_id(), num_shards_));
}

// Pieces of a read: each is checksummed right after it arrives, while it
// is still in the core's cache (1 MiB of L2 here), so the data crosses the
// memory bus once, as a plain read() does.
constexpr size_t kPieceBytes = 256 << 10;

Status BundleReader::ReadBytesChecksummed(Shard* shard, std::string_view key,
                                          int64_t offset, size_t n, char* dst,
                                          uint32_t* crc) {
  while (n > 0) {
    const size_t piece = std::min(n, kPieceBytes);
    DFG_RETURN_IF_ERROR(ReadBytes(shard, key, offset, piece, dst));
    *crc = crc32c::Extend(*crc, dst, piece);
    dst += piece;
    offset += static_cast<int64_t>(piece);
    n -= piece;
  }
  return Status::Ok();
}

StatusOr<BundleReader::Shard*> BundleReader::CheckNumeric(
    std::string_view key, const BundleEntryProto& entry, size_t nbytes) {
  if (entry.dtype() == tensorflow::DT_STRING) {
    return InvalidArgument(
        "{}: tensor '{}' holds strings: read it with "
        "ReadStrings",
        index_name_, key);
  }
  DFG_ASSIGN_OR_RETURN(Shard * shard, CheckEntry(key, entry));
  if (nbytes != static_cast<size_t>(entry.size())) {
    return InvalidArgument(
        "{}: tensor '{}' has {} bytes but the destination has {}", index_name_,
        key, entry.size(), nbytes);
  }
  return shard;
}

Status BundleReader::ReadInto(std::string_view key, void* dst, size_t nbytes) {
  DFG_ASSIGN_OR_RETURN(const BundleEntryProto* entry, Find(key));
  DFG_ASSIGN_OR_RETURN(Shard * shard, CheckNumeric(key, *entry, nbytes));
  uint32_t actual = 0;
  DFG_RETURN_IF_ERROR(ReadBytesChecksummed(shard, key, entry->offset(), nbytes,
                                           static_cast<char*>(dst), &actual));
  if (crc32c::Unmask(entry->crc32c()) != actual) {
    return ChecksumError(key, *entry, actual);
  }
  return Status::Ok();
}

StatusOr<uint32_t> BundleReader::ReadRangeInto(std::string_view key, void* dst,
                                               size_t nbytes, size_t begin,
                                               size_t end) {
  DFG_ASSIGN_OR_RETURN(const BundleEntryProto* entry, Find(key));
  DFG_ASSIGN_OR_RETURN(Shard * shard, CheckNumeric(key, *entry, nbytes));
  if (begin > end || end > nbytes) {
    return InvalidArgument("{}: tensor '{}': range [{}, {}) of {} bytes",
                           index_name_, key, begin, end, nbytes);
  }
  uint32_t crc = 0;
  DFG_RETURN_IF_ERROR(ReadBytesChecksummed(
      shard, key, entry->offset() + static_cast<int64_t>(begin), end - begin,
      static_cast<char*>(dst) + begin, &crc));
  return crc;
}

Status BundleReader::VerifyChecksum(std::string_view key, uint32_t crc) const {
  DFG_ASSIGN_OR_RETURN(const BundleEntryProto* entry, Find(key));
  if (crc32c::Unmask(entry->crc32c()) != crc) {
    return ChecksumError(key, *entry, crc);
  }
  return Status::Ok();
}

StatusOr<std::vector<std::string>> BundleReader::ReadStrings(
    std::string_view key) {
  DFG_ASSIGN_OR_RETURN(const BundleEntryProto* entry, Find(key));
  if (entry->dtype() != tensorflow::DT_STRING) {
    return InvalidArgument("{}: tensor '{}' has dtype {}, not string",
                           index_name_, key, DataTypeString(entry->dtype()));
  }
  DFG_ASSIGN_OR_RETURN(Shard * shard, CheckEntry(key, *entry));
  const size_t n = static_cast<size_t>(*NumElements(entry->shape()));
  std::vector<std::string> values(n);
  if (entry->size() == 0) return values;  // n == 0 (CheckEntry's bound)
  std::string bytes(static_cast<size_t>(entry->size()), '\0');
  DFG_RETURN_IF_ERROR(
      ReadBytes(shard, key, entry->offset(), bytes.size(), bytes.data()));
  const std::string file =
      DataFilename(prefix_, entry->shard_id(), num_shards_);
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  std::vector<uint64_t> lengths(n);
  uint32_t crc = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!GetVarint64(&p, end, &lengths[i])) {
      return DataLoss("{}: tensor '{}': bad string length {} of {}", file, key,
                      i, n);
    }
    // Lengths are checksummed as uint32 (uint64 above 4 GiB), in memory
    // order, as TensorFlow does for old checkpoints' sake.
    if (lengths[i] <= 0xffffffffu) {
      uint32_t len32 = static_cast<uint32_t>(lengths[i]);
      crc = crc32c::Extend(crc, &len32, sizeof(len32));
    } else {
      crc = crc32c::Extend(crc, &lengths[i], sizeof(uint64_t));
    }
  }
  uint32_t raw_length_crc = 0;
  if (end - p < 4) {
    return DataLoss("{}: tensor '{}': the string lengths run past the entry",
                    file, key);
  }
  std::memcpy(&raw_length_crc, p, 4);
  p += 4;
  if (crc32c::Unmask(raw_length_crc) != crc) {
    return DataLoss(
        "The length checksum does not match: expected {:08} but actual is "
        "{:08} (tensor '{}' in {})",
        crc32c::Unmask(raw_length_crc), crc, key, file);
  }
  crc = crc32c::Extend(crc, &raw_length_crc, 4);
  for (size_t i = 0; i < n; ++i) {
    if (lengths[i] > static_cast<uint64_t>(end - p)) {
      return DataLoss("{}: tensor '{}': string {} of {} runs past the entry",
                      file, key, i, n);
    }
    values[i].assign(p, static_cast<size_t>(lengths[i]));
    crc = crc32c::Extend(crc, p, static_cast<size_t>(lengths[i]));
    p += lengths[i];
  }
  if (crc32c::Unmask(entry->crc32c()) != crc) {
    return ChecksumError(key, *entry, crc);
  }
  if (p != end) {
    return DataLoss("{}: tensor '{}': {} bytes after the strings", file, key,
                    end - p);
  }
  return values;
}

}  // namespace dfg
