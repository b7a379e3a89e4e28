#include "lib/io/zip.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace dfg::io_internal {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndOfCentralDir = 0x06054b50;
constexpr uint32_t kZip64EndOfCentralDir = 0x06064b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint32_t kMax32 = 0xffffffffu;
constexpr uint16_t kMax16 = 0xffffu;
// Deflate cannot expand data by more than about 1032:1.
constexpr uint64_t kMaxDeflateRatio = 1032;

uint64_t Le(std::string_view bytes, size_t at, int size) {
  uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[at + i]);
  }
  return value;
}

void PutLe(std::string* out, uint64_t value, int size) {
  for (int i = 0; i < size; ++i) {
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

uint32_t Crc32(std::string_view data) {
  return static_cast<uint32_t>(
      crc32_z(0, reinterpret_cast<const Bytef*>(data.data()), data.size()));
}

// Raw deflate (no zlib header) into `size` bytes; with `whole`, the stream
// must end exactly there, else its first `size` bytes are enough.
bool Inflate(std::string_view packed, uint64_t size, bool whole,
             std::string* out) {
  out->resize(size);
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return false;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.next_out = reinterpret_cast<Bytef*>(out->data());
  uint64_t in_left = packed.size(), out_left = size;
  int rc = Z_OK;
  while (rc == Z_OK && (whole || out_left > 0)) {
    // zlib counts in uInt: at most 1 GiB at a time.
    uInt in_chunk = static_cast<uInt>(std::min<uint64_t>(in_left, 1u << 30));
    uInt out_chunk = static_cast<uInt>(std::min<uint64_t>(out_left, 1u << 30));
    z.avail_in = in_chunk;
    z.avail_out = out_chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    in_left -= in_chunk - z.avail_in;
    out_left -= out_chunk - z.avail_out;
  }
  inflateEnd(&z);
  if (!whole) return out_left == 0 && (rc == Z_OK || rc == Z_STREAM_END);
  return rc == Z_STREAM_END && out_left == 0;
}

using Entry = ZipEntry;

class ZipReader {
 public:
  ZipReader(std::string_view bytes, std::string_view name)
      : bytes_(bytes), name_(name) {}

  StatusOr<std::vector<Entry>> List();
  StatusOr<std::string> Extract(const Entry& entry, uint64_t limit);

 private:
  template <typename... Args>
  Status Error(fmt::format_string<Args...> f, Args&&... args) {
    return InvalidArgument("{}: {}", name_,
                           fmt::format(f, std::forward<Args>(args)...));
  }
  bool Has(uint64_t at, uint64_t size) const {
    return at <= bytes_.size() && size <= bytes_.size() - at;
  }
  Status FindCentralDirectory(uint64_t* offset, uint64_t* count);
  Status ReadEntry(uint64_t* at, Entry* entry);
  Status ApplyZip64Extra(std::string_view extra, Entry* entry);
  Status FindData(Entry* entry);
  Status CheckUnique(std::vector<Entry> entries);

  std::string_view bytes_;
  std::string_view name_;
};

Status ZipReader::FindCentralDirectory(uint64_t* offset, uint64_t* count) {
  if (bytes_.size() < 22) return Error("not a zip file (too short)");
  size_t lowest = bytes_.size() >= 22 + 65535 ? bytes_.size() - 22 - 65535 : 0;
  size_t eocd = std::string_view::npos;
  for (size_t at = bytes_.size() - 22 + 1; at-- > lowest;) {
    if (Le(bytes_, at, 4) == kEndOfCentralDir &&
        Le(bytes_, at + 20, 2) <= bytes_.size() - at - 22) {
      eocd = at;
      break;
    }
  }
  if (eocd == std::string_view::npos) {
    return Error("not a zip file (no end of central directory record)");
  }
  *count = Le(bytes_, eocd + 10, 2);
  *offset = Le(bytes_, eocd + 16, 4);
  uint64_t size = Le(bytes_, eocd + 12, 4);
  if (*count != kMax16 && *offset != kMax32 && size != kMax32)
    return Status::Ok();
  // Zip64: the locator sits just before the end record.
  if (eocd < 20 || Le(bytes_, eocd - 20, 4) != kZip64Locator) {
    return Error("zip64 end of central directory locator missing");
  }
  uint64_t record = Le(bytes_, eocd - 20 + 8, 8);
  if (!Has(record, 56) || Le(bytes_, record, 4) != kZip64EndOfCentralDir) {
    return Error("zip64 end of central directory record missing");
  }
  *count = Le(bytes_, record + 32, 8);
  *offset = Le(bytes_, record + 48, 8);
  return Status::Ok();
}

Status ZipReader::ApplyZip64Extra(std::string_view extra, Entry* entry) {
  size_t at = 0;
  while (at + 4 <= extra.size()) {
    uint16_t id = static_cast<uint16_t>(Le(extra, at, 2));
    uint16_t size = static_cast<uint16_t>(Le(extra, at + 2, 2));
    if (at + 4 + size > extra.size()) break;
    if (id == kZip64ExtraId) {
      std::string_view data = extra.substr(at + 4, size);
      size_t pos = 0;
      for (uint64_t* field :
           {&entry->size, &entry->compressed_size, &entry->local_offset}) {
        if (*field != kMax32) continue;
        if (pos + 8 > data.size()) {
          return Error("member '{}': zip64 extra field too short", entry->name);
        }
        *field = Le(data, pos, 8);
        pos += 8;
      }
      return Status::Ok();
    }
    at += 4 + size;
  }
  return Status::Ok();
}

Status ZipReader::ReadEntry(uint64_t* at, Entry* entry) {
  if (!Has(*at, 46) || Le(bytes_, *at, 4) != kCentralHeader) {
    return Error("central directory entry at byte {} is missing or truncated",
                 *at);
  }
  entry->flags = static_cast<uint16_t>(Le(bytes_, *at + 8, 2));
  entry->method = static_cast<uint16_t>(Le(bytes_, *at + 10, 2));
  entry->crc = static_cast<uint32_t>(Le(bytes_, *at + 16, 4));
  entry->compressed_size = Le(bytes_, *at + 20, 4);
  entry->size = Le(bytes_, *at + 24, 4);
  uint64_t name_size = Le(bytes_, *at + 28, 2);
  uint64_t extra_size = Le(bytes_, *at + 30, 2);
  uint64_t comment_size = Le(bytes_, *at + 32, 2);
  entry->local_offset = Le(bytes_, *at + 42, 4);
  if (!Has(*at + 46, name_size + extra_size + comment_size)) {
    return Error("central directory entry at byte {} is truncated", *at);
  }
  entry->name = std::string(bytes_.substr(*at + 46, name_size));
  DFG_RETURN_IF_ERROR(
      ApplyZip64Extra(bytes_.substr(*at + 46 + name_size, extra_size), entry));
  *at += 46 + name_size + extra_size + comment_size;
  return Status::Ok();
}

// The data's offset, from the local header (its name and extra field may
// differ in length from the central directory's), and its bounds.
Status ZipReader::FindData(Entry* entry) {
  uint64_t at = entry->local_offset;
  if (!Has(at, 30) || Le(bytes_, at, 4) != kLocalHeader) {
    return Error("member '{}': local header missing or truncated", entry->name);
  }
  entry->data_start = at + 30 + Le(bytes_, at + 26, 2) + Le(bytes_, at + 28, 2);
  if (!Has(entry->data_start, entry->compressed_size)) {
    return Error("member '{}' is truncated ({} bytes of data expected)",
                 entry->name, entry->compressed_size);
  }
  if (entry->method == 8 &&
      entry->size > entry->compressed_size * kMaxDeflateRatio + 1024) {
    return Error("member '{}' claims {} bytes from {} deflated bytes",
                 entry->name, entry->size, entry->compressed_size);
  }
  return Status::Ok();
}

// No two members share a name or a byte: with the sizes checked against
// deflate's ratio, what the archive inflates to is then bounded by its own
// size, whatever its directory claims.
Status ZipReader::CheckUnique(std::vector<Entry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  for (size_t i = 1; i < entries.size(); ++i) {
    if (entries[i].name == entries[i - 1].name) {
      return Error("two members named '{}'", entries[i].name);
    }
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) {
                     return a.local_offset < b.local_offset;
                   });
  for (size_t i = 1; i < entries.size(); ++i) {
    const Entry& prev = entries[i - 1];
    if (entries[i].local_offset < prev.data_start + prev.compressed_size) {
      return Error("members '{}' and '{}' overlap", prev.name, entries[i].name);
    }
  }
  return Status::Ok();
}

StatusOr<std::string> ZipReader::Extract(const Entry& entry, uint64_t limit) {
  if (entry.flags & 1) return Error("member '{}' is encrypted", entry.name);
  std::string_view packed =
      bytes_.substr(entry.data_start, entry.compressed_size);
  const bool whole = limit >= entry.size;
  std::string data;
  if (entry.method == 0) {
    if (entry.compressed_size != entry.size) {
      return Error("member '{}': stored sizes differ", entry.name);
    }
    data = std::string(packed.substr(0, whole ? entry.size : limit));
  } else if (entry.method == 8) {
    if (!Inflate(packed, whole ? entry.size : limit, whole, &data)) {
      return Error("member '{}': deflate data is corrupt or sizes differ",
                   entry.name);
    }
  } else {
    return Error(
        "member '{}' uses compression method {} (only stored and "
        "deflate are supported)",
        entry.name, entry.method);
  }
  if (whole && Crc32(data) != entry.crc) {
    return Error("member '{}': CRC-32 mismatch (corrupt file)", entry.name);
  }
  return data;
}

StatusOr<std::vector<Entry>> ZipReader::List() {
  uint64_t at = 0, count = 0;
  DFG_RETURN_IF_ERROR(FindCentralDirectory(&at, &count));
  if (count > bytes_.size() / 46) {
    return Error("central directory claims {} members", count);
  }
  std::vector<Entry> entries(count);
  for (Entry& entry : entries) {
    DFG_RETURN_IF_ERROR(ReadEntry(&at, &entry));
    DFG_RETURN_IF_ERROR(FindData(&entry));
  }
  DFG_RETURN_IF_ERROR(CheckUnique(entries));
  return entries;
}

}  // namespace

StatusOr<std::vector<ZipEntry>> ListZip(std::string_view bytes,
                                        std::string_view display_name) {
  return ZipReader(bytes, display_name).List();
}

StatusOr<std::string> ExtractZip(std::string_view bytes, const ZipEntry& entry,
                                 std::string_view display_name,
                                 uint64_t limit) {
  return ZipReader(bytes, display_name).Extract(entry, limit);
}

namespace {

constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01

// The fields a local header shares with its central directory entry, from
// "version needed" to the name length.
void PutCommonFields(std::string* out, uint16_t version, uint32_t crc,
                     uint64_t size, bool zip64, size_t name_size) {
  PutLe(out, version, 2);
  PutLe(out, 0, 2);  // flags
  PutLe(out, 0, 2);  // method: stored
  PutLe(out, 0, 2);  // time
  PutLe(out, kDosDate, 2);
  PutLe(out, crc, 4);
  PutLe(out, zip64 ? kMax32 : size, 4);  // compressed
  PutLe(out, zip64 ? kMax32 : size, 4);  // uncompressed
  PutLe(out, name_size, 2);
}

void PutEndRecords(std::string* out, uint64_t count, uint64_t central_offset,
                   uint64_t central_size) {
  bool zip64 =
      count >= kMax16 || central_offset >= kMax32 || central_size >= kMax32;
  if (zip64) {
    uint64_t record = out->size();
    PutLe(out, kZip64EndOfCentralDir, 4);
    PutLe(out, 44, 8);  // size of the rest of this record
    PutLe(out, (3 << 8) | 45, 2);
    PutLe(out, 45, 2);
    PutLe(out, 0, 4);  // this disk
    PutLe(out, 0, 4);  // disk with the central directory
    PutLe(out, count, 8);
    PutLe(out, count, 8);
    PutLe(out, central_size, 8);
    PutLe(out, central_offset, 8);
    PutLe(out, kZip64Locator, 4);
    PutLe(out, 0, 4);
    PutLe(out, record, 8);
    PutLe(out, 1, 4);  // disks
  }
  PutLe(out, kEndOfCentralDir, 4);
  PutLe(out, 0, 2);
  PutLe(out, 0, 2);
  PutLe(out, zip64 ? kMax16 : count, 2);
  PutLe(out, zip64 ? kMax16 : count, 2);
  PutLe(out, zip64 ? kMax32 : central_size, 4);
  PutLe(out, zip64 ? kMax32 : central_offset, 4);
  PutLe(out, 0, 2);  // comment
}

}  // namespace

std::string WriteZip(
    const std::vector<std::pair<std::string, std::string_view>>& members) {
  std::string out, central;
  for (const auto& [name, data] : members) {
    uint64_t offset = out.size();
    uint32_t crc = Crc32(data);
    bool zip64 = data.size() >= kMax32 || offset >= kMax32;
    uint16_t version = zip64 ? 45 : 20;
    // Local header; with zip64 both sizes move to the extra field.
    PutLe(&out, kLocalHeader, 4);
    PutCommonFields(&out, version, crc, data.size(), zip64, name.size());
    PutLe(&out, zip64 ? 20 : 0, 2);  // extra length
    out += name;
    if (zip64) {
      PutLe(&out, kZip64ExtraId, 2);
      PutLe(&out, 16, 2);
      PutLe(&out, data.size(), 8);
      PutLe(&out, data.size(), 8);
    }
    out += data;
    // Central directory entry; with zip64 the offset moves too.
    PutLe(&central, kCentralHeader, 4);
    PutLe(&central, (3 << 8) | version, 2);  // made by: Unix
    PutCommonFields(&central, version, crc, data.size(), zip64, name.size());
    PutLe(&central, zip64 ? 28 : 0, 2);  // extra length
    PutLe(&central, 0, 2);               // comment length
    PutLe(&central, 0, 2);               // disk
    PutLe(&central, 0, 2);               // internal attributes
    PutLe(&central, uint64_t{0100644} << 16, 4);
    PutLe(&central, zip64 ? kMax32 : offset, 4);
    central += name;
    if (zip64) {
      PutLe(&central, kZip64ExtraId, 2);
      PutLe(&central, 24, 2);
      PutLe(&central, data.size(), 8);
      PutLe(&central, data.size(), 8);
      PutLe(&central, offset, 8);
    }
  }
  uint64_t central_offset = out.size();
  out += central;
  PutEndRecords(&out, members.size(), central_offset, central.size());
  return out;
}

}  // namespace dfg::io_internal
