// leveldb tables (the SSTable format of PREFIX.index) through leveldb's
// public Table / TableBuilder API, behind an interface free of leveldb's
// headers. Internal to lib/checkpoint.
#ifndef DFG_LIB_CHECKPOINT_TABLE_FILE_H_
#define DFG_LIB_CHECKPOINT_TABLE_FILE_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/base/status.h"

namespace dfg::checkpoint_internal {

// Calls fn(key, value) for every entry of the table held in `contents`, in
// key order, checking every block's checksum; stops at fn's first error.
// Errors: kDataLoss "Unable to read file (<name>). Perhaps the file is
// corrupt or was produced by a newer version of TensorFlow with format
// changes (<leveldb's reason>)".
Status ForEachTableEntry(
    const std::string& name, const std::string& contents,
    const std::function<Status(std::string_view, std::string_view)>& fn);

// Writes a table of `entries` (keys strictly increasing) to `path` with
// snappy-compressed blocks, as TensorFlow writes an index.
Status WriteTable(
    const std::string& path,
    const std::vector<std::pair<std::string, std::string>>& entries);

// "Unable to read file (<name>). Perhaps the file is corrupt or was produced
// by a newer version of TensorFlow with format changes (<detail>)".
Status CorruptFileError(const std::string& name, std::string_view detail);

// An errno as a Status naming `path`: "<path>; <strerror>".
Status IoError(const std::string& path, int err);

// The whole file at `path` (lib/base's reader), its errors in TensorFlow's
// wording and codes (IoError), as TensorFlow's BundleReader reports them.
StatusOr<std::string> ReadCheckpointFile(const std::string& path);

}  // namespace dfg::checkpoint_internal

#endif  // DFG_LIB_CHECKPOINT_TABLE_FILE_H_
