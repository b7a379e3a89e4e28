#include "lib/io/npy.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_set>

#include "lib/io/npy_header.h"
#include "lib/io/zip.h"

namespace dfg {
namespace {

using io_internal::NpyDescr;
using io_internal::NpyHeader;

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kMaxHeaderSize = 1 << 20;

template <typename... Args>
Status Bad(std::string_view name, fmt::format_string<Args...> f,
           Args&&... args) {
  return InvalidArgument("{}: {}", name,
                         fmt::format(f, std::forward<Args>(args)...));
}

// Multiplies with an overflow check (false on overflow or negative).
bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  if (a < 0 || b < 0) return false;
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) return false;
  *out = a * b;
  return true;
}

void SwapBytes(std::string* data, size_t unit) {
  if (unit <= 1) return;
  for (size_t at = 0; at + unit <= data->size(); at += unit) {
    std::reverse(data->begin() + at, data->begin() + at + unit);
  }
}

// Permutes `count` items of a column-major array of `shape` into row-major
// order; get(src_index, dst_index) moves one item.
template <typename Move>
void FortranToC(const std::vector<int64_t>& shape, int64_t count, Move move) {
  size_t rank = shape.size();
  std::vector<int64_t> stride(rank, 1), index(rank, 0);
  for (size_t k = 1; k < rank; ++k) stride[k] = stride[k - 1] * shape[k - 1];
  int64_t src = 0;
  for (int64_t dst = 0; dst < count; ++dst) {
    move(src, dst);
    // Advance the row-major multi-index (last dimension fastest).
    for (size_t k = rank; k-- > 0;) {
      src += stride[k];
      if (++index[k] < shape[k]) break;
      src -= stride[k] * shape[k];
      index[k] = 0;
    }
  }
}

bool AppendUtf8(uint32_t cp, std::string* out) {
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
  return true;
}

// UTF-8 to code points; nullopt on invalid UTF-8.
std::optional<std::vector<uint32_t>> DecodeUtf8(std::string_view text) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<uint8_t>(text[i]);
    int extra = c < 0x80         ? 0
                : (c >> 5) == 6  ? 1
                : (c >> 4) == 14 ? 2
                : (c >> 3) == 30 ? 3
                                 : -1;
    if (extra < 0 || text.size() - i <= static_cast<size_t>(extra)) {
      return std::nullopt;
    }
    uint32_t cp = extra == 0 ? c : c & (0x3f >> extra);
    for (int k = 1; k <= extra; ++k) {
      auto cc = static_cast<uint8_t>(text[i + k]);
      if ((cc & 0xc0) != 0x80) return std::nullopt;
      cp = (cp << 6) | (cc & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return std::nullopt;
    }
    out.push_back(cp);
    i += extra + 1;
  }
  return out;
}

Status DecodeStrings(const NpyDescr& descr, std::string_view data,
                     int64_t count, std::string_view name,
                     std::vector<std::string>* out) {
  out->resize(count);
  for (int64_t i = 0; i < count; ++i) {
    std::string_view item = data.substr(i * descr.itemsize, descr.itemsize);
    std::string& s = (*out)[i];
    if (descr.kind == 'S') {
      size_t end = item.find_last_not_of('\0');
      s = end == std::string_view::npos ? ""
                                        : std::string(item.substr(0, end + 1));
      continue;
    }
    std::vector<uint32_t> units;
    for (size_t at = 0; at + 4 <= item.size(); at += 4) {
      uint32_t cp = 0;
      for (int b = 0; b < 4; ++b) {
        int shift = descr.big_endian ? 8 * (3 - b) : 8 * b;
        cp |= static_cast<uint32_t>(static_cast<uint8_t>(item[at + b]))
              << shift;
      }
      units.push_back(cp);
    }
    while (!units.empty() && units.back() == 0) units.pop_back();
    for (uint32_t cp : units) {
      if (!AppendUtf8(cp, &s)) {
        return Bad(name, "element {} holds an invalid unicode code point {:#x}",
                   i, cp);
      }
    }
  }
  return Status::Ok();
}

// Fixed-width '<U' (UTF-32) when every string is UTF-8, else '|S' bytes.
void EncodeStrings(const std::vector<std::string>& strings, std::string* descr,
                   std::string* body) {
  std::vector<std::vector<uint32_t>> decoded;
  size_t width = 1;
  for (const std::string& s : strings) {
    auto code_points = DecodeUtf8(s);
    if (!code_points) {
      decoded.clear();
      break;
    }
    width = std::max(width, code_points->size());
    decoded.push_back(std::move(*code_points));
  }
  if (decoded.size() == strings.size()) {
    *descr = fmt::format("<U{}", width);
    body->reserve(width * 4 * strings.size());
    for (const auto& code_points : decoded) {
      for (size_t i = 0; i < width; ++i) {
        uint32_t cp = i < code_points.size() ? code_points[i] : 0;
        for (int b = 0; b < 4; ++b)
          body->push_back(static_cast<char>(cp >> (8 * b)));
      }
    }
    return;
  }
  width = 1;
  for (const std::string& s : strings) width = std::max(width, s.size());
  *descr = fmt::format("|S{}", width);
  for (const std::string& s : strings) {
    *body += s;
    body->append(width - s.size(), '\0');
  }
}

}  // namespace

int64_t NpyArray::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (!CheckedMul(n, d, &n)) return -1;
  }
  return n;
}

namespace {

// The header dict of a .npy file and where its data starts.
StatusOr<NpyHeader> ReadHeader(std::string_view bytes, std::string_view name,
                               size_t* data_start) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) {
    return Bad(name, "not a .npy file (bad magic)");
  }
  int major = static_cast<uint8_t>(bytes[6]);
  int minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return Bad(name, "unsupported .npy format version {}.{}", major, minor);
  }
  // 1.0: 16-bit header length; 2.0 and 3.0 (UTF-8 header): 32-bit.
  size_t prefix = major == 1 ? 10 : 12;
  if (bytes.size() < prefix) return Bad(name, "truncated .npy header");
  size_t header_size = 0;
  for (size_t i = 0; i < prefix - 8; ++i) {
    header_size |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i]))
                   << (8 * i);
  }
  if (header_size > kMaxHeaderSize) {
    return Bad(name, "header of {} bytes is larger than the {} byte limit",
               header_size, kMaxHeaderSize);
  }
  if (bytes.size() - prefix < header_size) {
    return Bad(name, "truncated .npy header ({} bytes expected)", header_size);
  }
  *data_start = prefix + header_size;
  return io_internal::ParseNpyHeader(bytes.substr(prefix, header_size), name);
}

}  // namespace

StatusOr<NpyArray> ParseNpy(std::string_view bytes,
                            std::string_view display_name) {
  std::string_view name = display_name;
  size_t data_start = 0;
  DFG_ASSIGN_OR_RETURN(NpyHeader header, ReadHeader(bytes, name, &data_start));
  NpyArray array;
  array.dtype = header.descr.dtype;
  array.shape = header.shape;
  int64_t count = array.num_elements(), size = 0;
  if (count < 0 || !CheckedMul(count, header.descr.itemsize, &size)) {
    return Bad(name, "shape is too large");
  }
  std::string_view data = bytes.substr(data_start);
  if (static_cast<uint64_t>(size) != data.size()) {
    return Bad(name, "has {} bytes of data; dtype and shape need {}",
               data.size(), size);
  }
  if (array.dtype == tensorflow::DT_STRING) {
    std::vector<std::string> strings;
    DFG_RETURN_IF_ERROR(
        DecodeStrings(header.descr, data, count, name, &strings));
    if (!header.fortran_order) {
      array.strings = std::move(strings);
    } else {
      array.strings.resize(count);
      FortranToC(array.shape, count, [&](int64_t src, int64_t dst) {
        array.strings[dst] = std::move(strings[src]);
      });
    }
    return array;
  }
  std::string raw(data);
  if (header.descr.big_endian) SwapBytes(&raw, header.descr.swap_unit);
  if (array.dtype == tensorflow::DT_BOOL) {
    for (char& c : raw) c = c != 0 ? 1 : 0;
  }
  if (!header.fortran_order || array.shape.size() < 2) {
    array.data = std::move(raw);
  } else {
    size_t item = header.descr.itemsize;
    array.data.resize(raw.size());
    FortranToC(array.shape, count, [&](int64_t src, int64_t dst) {
      std::memcpy(&array.data[dst * item], &raw[src * item], item);
    });
  }
  return array;
}

StatusOr<std::string> SerializeNpy(const NpyArray& array) {
  int64_t count = array.num_elements();
  if (count < 0) return InvalidArgument("array shape overflows");
  std::string descr;
  std::string body;
  if (array.dtype == tensorflow::DT_STRING) {
    if (static_cast<int64_t>(array.strings.size()) != count) {
      return InvalidArgument("{} strings for {} elements", array.strings.size(),
                             count);
    }
    EncodeStrings(array.strings, &descr, &body);
  } else {
    auto d = io_internal::NpyDescrFor(array.dtype);
    if (!d) {
      return InvalidArgument("dtype {} has no .npy equivalent",
                             DataTypeString(array.dtype));
    }
    descr = *d;
    size_t item = io_internal::NpyItemSize(array.dtype);
    if (array.data.size() != item * static_cast<uint64_t>(count)) {
      return InvalidArgument("{} bytes of data for {} elements of {} bytes",
                             array.data.size(), count, item);
    }
  }
  std::string header = io_internal::FormatNpyHeader(descr, array.shape);
  // Pad with spaces so that the data starts on a 64-byte boundary; version
  // 2.0 when the header does not fit a 16-bit length.
  auto padded = [&](size_t prefix) {
    return (prefix + header.size() + 1 + 63) / 64 * 64;
  };
  size_t prefix = padded(10) - 10 <= 65535 ? 10 : 12;
  size_t total = padded(prefix);
  header.append(total - prefix - header.size() - 1, ' ');
  header.push_back('\n');
  const std::string& data =
      array.dtype == tensorflow::DT_STRING ? body : array.data;
  std::string out;
  out.reserve(total + data.size());
  out += kMagic;
  out.push_back(static_cast<char>(prefix == 10 ? 1 : 2));
  out.push_back(0);
  for (size_t i = 0; i < prefix - 8; ++i) {
    out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  }
  out += header;
  out += data;
  return out;
}

namespace {

// The most of a member that holds any .npy header: magic, version, length
// and the longest header accepted.
constexpr uint64_t kMaxNpyHead = 12 + kMaxHeaderSize;

// The member's .npy header (`head`: its first bytes) against the size the
// archive declares, before that much memory is spent on inflating it.
Status CheckDeclaredSize(std::string_view head, uint64_t declared,
                         std::string_view name) {
  size_t data_start = 0;
  DFG_ASSIGN_OR_RETURN(NpyHeader header, ReadHeader(head, name, &data_start));
  NpyArray shape_only;
  shape_only.shape = header.shape;
  int64_t count = shape_only.num_elements(), size = 0;
  if (count < 0 || !CheckedMul(count, header.descr.itemsize, &size) ||
      static_cast<uint64_t>(size) != declared - data_start) {
    return Bad(name, "the archive declares {} bytes; the .npy header needs {}",
               declared, data_start + static_cast<uint64_t>(size));
  }
  return Status::Ok();
}

// Member names as np.load gives them, checked before anything is inflated.
StatusOr<std::vector<std::string>> NpzKeys(
    const std::vector<io_internal::ZipEntry>& entries,
    std::string_view display_name) {
  std::vector<std::string> keys;
  std::unordered_set<std::string> seen;
  for (const auto& entry : entries) {
    std::string key = entry.name;
    if (key.size() >= 4 && key.compare(key.size() - 4, 4, ".npy") == 0) {
      key.resize(key.size() - 4);
    }
    if (!seen.insert(key).second) {
      return InvalidArgument("{}: two members named '{}'", display_name, key);
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace

StatusOr<std::vector<std::pair<std::string, NpyArray>>> ParseNpz(
    std::string_view bytes, std::string_view display_name) {
  DFG_ASSIGN_OR_RETURN(auto entries, io_internal::ListZip(bytes, display_name));
  DFG_ASSIGN_OR_RETURN(auto keys, NpzKeys(entries, display_name));
  std::vector<std::pair<std::string, NpyArray>> arrays;
  for (size_t i = 0; i < entries.size(); ++i) {
    const io_internal::ZipEntry& entry = entries[i];
    std::string where = fmt::format("{}:{}", display_name, keys[i]);
    if (entry.size > kMaxNpyHead) {
      DFG_ASSIGN_OR_RETURN(
          std::string head,
          io_internal::ExtractZip(bytes, entry, display_name, kMaxNpyHead));
      DFG_RETURN_IF_ERROR(CheckDeclaredSize(head, entry.size, where));
    }
    DFG_ASSIGN_OR_RETURN(std::string data,
                         io_internal::ExtractZip(bytes, entry, display_name));
    DFG_ASSIGN_OR_RETURN(NpyArray array, ParseNpy(data, where));
    arrays.emplace_back(std::move(keys[i]), std::move(array));
  }
  return arrays;
}

StatusOr<std::string> SerializeNpz(
    const std::vector<std::pair<std::string, NpyArray>>& arrays) {
  std::vector<std::string> files;
  files.reserve(arrays.size());
  for (const auto& [key, array] : arrays) {
    auto npy = SerializeNpy(array);
    if (!npy.ok()) return npy.status().WithPrefix(key + ": ");
    files.push_back(std::move(npy).value());
  }
  std::vector<std::pair<std::string, std::string_view>> members;
  for (size_t i = 0; i < arrays.size(); ++i) {
    members.emplace_back(arrays[i].first + ".npy", files[i]);
  }
  return io_internal::WriteZip(members);
}

}  // namespace dfg
