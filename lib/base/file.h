// Reading a whole file: the one reader every layer uses (graphs, checkpoint
// indexes, cluster and ClusterSpec files, TLS keys), so a missing or
// unreadable file is reported in one wording wherever it is named.
#ifndef DFG_LIB_BASE_FILE_H_
#define DFG_LIB_BASE_FILE_H_

#include <string>

#include "lib/base/status.h"

namespace dfg {

// The bytes of the file at `path` ("-" is a file name here; standard input is
// lib/io's business). Errors name the path first, "<path>: <why>":
//   kNotFound "<path>: <strerror>" when the file cannot be opened (missing,
//     not permitted, ...);
//   kInvalidArgument "<path>: is a directory, not a file";
//   kUnavailable "<path>: read failed: <strerror>".
// On failure, *error_number (when given) is the errno of the failed call
// (EISDIR for a directory), for callers that report I/O errors in another
// wording (the checkpoint reader speaks TensorFlow's "<path>; <strerror>").
StatusOr<std::string> ReadFileToString(const std::string& path,
                                       int* error_number = nullptr);

}  // namespace dfg

#endif  // DFG_LIB_BASE_FILE_H_
