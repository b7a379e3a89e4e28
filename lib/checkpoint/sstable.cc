// The public face of table_file.h's leveldb tables.
#include "lib/checkpoint/sstable.h"

#include "lib/checkpoint/table_file.h"

namespace dfg {

StatusOr<SSTableEntries> ReadSSTable(const std::string& path) {
  DFG_ASSIGN_OR_RETURN(std::string contents,
                       checkpoint_internal::ReadCheckpointFile(path));
  SSTableEntries entries;
  DFG_RETURN_IF_ERROR(checkpoint_internal::ForEachTableEntry(
      path, contents, [&](std::string_view key, std::string_view value) {
        entries.emplace_back(std::string(key), std::string(value));
        return Status::Ok();
      }));
  return entries;
}

Status WriteSSTable(const std::string& path, const SSTableEntries& entries) {
  return checkpoint_internal::WriteTable(path, entries);
}

}  // namespace dfg
