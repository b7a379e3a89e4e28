// Internal to lib/io: the part of the ZIP format that .npz files use.
// Reading: stored and deflated members, zip64 sizes and offsets, CRC-32
// checked, every length checked against the buffer. Writing: stored members,
// zip64 records where a size or offset needs them, fixed timestamps so that
// the output is deterministic.
#ifndef DFG_LIB_IO_ZIP_H_
#define DFG_LIB_IO_ZIP_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/base/status.h"

namespace dfg::io_internal {

// One member as the central directory describes it, not yet extracted.
struct ZipEntry {
  std::string name;
  uint64_t size = 0;  // uncompressed, as declared
  uint16_t flags = 0;
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t compressed_size = 0;
  uint64_t local_offset = 0;
  uint64_t data_start = 0;  // after the local header
};

// The central directory in file order, checked before anything is inflated,
// so that a few hundred kilobytes cannot claim gigabytes: errors
// (kInvalidArgument) name `display_name`: no end-of-central-directory
// record, truncated records or local headers, two members of one name,
// members whose bytes overlap (one deflate stream behind many entries), a
// declared size deflate cannot reach from the compressed one.
StatusOr<std::vector<ZipEntry>> ListZip(std::string_view bytes,
                                        std::string_view display_name);

// The data of `entry` (from ListZip over the same `bytes`): all of it, CRC-32
// and size checked; or, with `limit` below the declared size, only the first
// `limit` bytes (to read a header before committing the memory). Errors:
// encryption, compression methods other than stored/deflate, CRC mismatch,
// corrupt deflate data.
StatusOr<std::string> ExtractZip(std::string_view bytes, const ZipEntry& entry,
                                 std::string_view display_name,
                                 uint64_t limit = UINT64_MAX);

// A ZIP archive of `members` (name, data), stored without compression.
std::string WriteZip(
    const std::vector<std::pair<std::string, std::string_view>>& members);

}  // namespace dfg::io_internal

#endif  // DFG_LIB_IO_ZIP_H_
