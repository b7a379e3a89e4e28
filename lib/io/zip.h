// Internal to lib/io: the part of the ZIP format that .npz files use.
// Reading: stored and deflated members, zip64 sizes and offsets, CRC-32
// checked, every length checked against the buffer. Writing: stored members,
// zip64 records where a size or offset needs them, fixed timestamps so that
// the output is deterministic.
#ifndef DFG_LIB_IO_ZIP_H_
#define DFG_LIB_IO_ZIP_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/base/status.h"

namespace dfg::io_internal {

struct ZipMember {
  std::string name;
  std::string data;  // uncompressed
};

// Members in central-directory order. Errors (kInvalidArgument) name
// `display_name`: no end-of-central-directory record, truncated records,
// encryption, compression methods other than stored/deflate, CRC mismatch,
// sizes that do not match.
StatusOr<std::vector<ZipMember>> ReadZip(std::string_view bytes,
                                         std::string_view display_name);

// A ZIP archive of `members` (name, data), stored without compression.
std::string WriteZip(
    const std::vector<std::pair<std::string, std::string_view>>& members);

}  // namespace dfg::io_internal

#endif  // DFG_LIB_IO_ZIP_H_
