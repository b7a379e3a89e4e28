// Whole leveldb tables (the SSTable format of TensorFlow's checkpoint
// files) read into and written from key/value lists: the container of TF1's
// V1 checkpoints, whose contents the V1 Save/Restore kernels give meaning.
#ifndef DFG_LIB_CHECKPOINT_SSTABLE_H_
#define DFG_LIB_CHECKPOINT_SSTABLE_H_

#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"

namespace dfg {

using SSTableEntries = std::vector<std::pair<std::string, std::string>>;

// Every entry of the table file at `path`, in key order. Errors: the file's
// read errors (kNotFound...) and kDataLoss "Unable to read file (<path>).
// Perhaps the file is corrupt or was produced by a newer version of
// TensorFlow with format changes (...)".
StatusOr<SSTableEntries> ReadSSTable(const std::string& path);

// Writes `entries` (keys strictly increasing) to `path`.
Status WriteSSTable(const std::string& path, const SSTableEntries& entries);

}  // namespace dfg

#endif  // DFG_LIB_CHECKPOINT_SSTABLE_H_
