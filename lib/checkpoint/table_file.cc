// The only leveldb code of dfg: a RandomAccessFile over bytes in memory for
// Table::Open, a WritableFile over a file descriptor for TableBuilder.
#include "lib/checkpoint/table_file.h"

#include <fcntl.h>
#include <leveldb/comparator.h>
#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "lib/base/file.h"

namespace dfg::checkpoint_internal {
namespace {

// A table held in memory: reads are slices of it (no copy).
class MemoryFile : public leveldb::RandomAccessFile {
 public:
  explicit MemoryFile(const std::string& contents) : contents_(contents) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* /*scratch*/) const override {
    if (offset > contents_.size()) {
      *result = leveldb::Slice();
      return leveldb::Status::OK();  // leveldb reports the short read
    }
    size_t available = contents_.size() - offset;
    *result = leveldb::Slice(contents_.data() + offset,
                             n < available ? n : available);
    return leveldb::Status::OK();
  }

 private:
  const std::string& contents_;  // Not owned.
};

class FdFile : public leveldb::WritableFile {
 public:
  FdFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~FdFile() override {
    if (fd_ >= 0) ::close(fd_);
  }
  leveldb::Status Append(const leveldb::Slice& data) override {
    const char* p = data.data();
    size_t n = data.size();
    while (n > 0) {
      ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return leveldb::Status::IOError(path_, std::strerror(errno));
      p += w;
      n -= static_cast<size_t>(w);
    }
    return leveldb::Status::OK();
  }
  leveldb::Status Close() override {
    int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && ::close(fd) != 0) {
      return leveldb::Status::IOError(path_, std::strerror(errno));
    }
    return leveldb::Status::OK();
  }
  leveldb::Status Flush() override { return leveldb::Status::OK(); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }

 private:
  int fd_;
  std::string path_;
};

bool DecodeVarint64(const char** p, const char* end, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift <= 63 && *p < end; shift += 7) {
    uint64_t byte = static_cast<unsigned char>(*(*p)++);
    *v |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// leveldb allocates a block's buffer before reading it, trusting the size in
// its handle; the footer's two handles carry no checksum, so a corrupt
// footer could ask for terabytes. Checks that they lie inside the file.
// (Handles inside the index block are covered by its checksum.)
bool FooterHandlesFit(const std::string& contents) {
  constexpr size_t kFooterSize = 48;  // 2 handles (<= 40 bytes) + magic
  constexpr uint64_t kTrailer = 5;    // block type + crc32c
  if (contents.size() < kFooterSize) return true;  // leveldb says "too short"
  const char* p = contents.data() + contents.size() - kFooterSize;
  const char* end = contents.data() + contents.size() - 8;
  for (int h = 0; h < 2; ++h) {
    uint64_t offset = 0, size = 0;
    if (!DecodeVarint64(&p, end, &offset) || !DecodeVarint64(&p, end, &size)) {
      return true;  // leveldb reports the bad handle
    }
    if (offset > contents.size() || size > contents.size() - offset ||
        size + kTrailer > contents.size() - offset) {
      return false;
    }
  }
  return true;
}

}  // namespace

Status CorruptFileError(const std::string& name, std::string_view detail) {
  return DataLoss(
      "Unable to read file ({}). Perhaps the file is corrupt or was produced "
      "by a newer version of TensorFlow with format changes ({})",
      name, detail);
}

Status IoError(const std::string& path, int err) {
  std::string text = fmt::format("{}; {}", path, std::strerror(err));
  if (err == ENOENT) return Status(Code::kNotFound, text);
  if (err == EACCES || err == EPERM) {
    return Status(Code::kPermissionDenied, text);
  }
  return Status(Code::kUnknown, text);
}

StatusOr<std::string> ReadCheckpointFile(const std::string& path) {
  int error = 0;
  StatusOr<std::string> bytes = ReadFileToString(path, &error);
  if (!bytes.ok() && error != 0) return IoError(path, error);
  return bytes;
}

namespace {
Status ForEachEntry(
    const std::string& name, const std::string& contents,
    const std::function<Status(std::string_view, std::string_view)>& fn);
}  // namespace

Status ForEachTableEntry(
    const std::string& name, const std::string& contents,
    const std::function<Status(std::string_view, std::string_view)>& fn) {
  if (!FooterHandlesFit(contents)) {
    return CorruptFileError(name,
                            "a block handle of the footer points past "
                            "the end of the file");
  }
  try {
    return ForEachEntry(name, contents, fn);
  } catch (const std::bad_alloc&) {
    // A block size that passed the checks above but cannot be allocated.
    return CorruptFileError(name, "a block is too big to read");
  }
}

namespace {

Status ForEachEntry(
    const std::string& name, const std::string& contents,
    const std::function<Status(std::string_view, std::string_view)>& fn) {
  MemoryFile file(contents);
  leveldb::Options options;
  options.paranoid_checks = true;  // check the index block's checksum too
  leveldb::Table* raw = nullptr;
  leveldb::Status s =
      leveldb::Table::Open(options, &file, contents.size(), &raw);
  if (!s.ok()) return CorruptFileError(name, s.ToString());
  std::unique_ptr<leveldb::Table> table(raw);
  leveldb::ReadOptions read_options;
  read_options.verify_checksums = true;
  read_options.fill_cache = false;
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read_options));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    leveldb::Slice k = it->key(), v = it->value();
    DFG_RETURN_IF_ERROR(fn(std::string_view(k.data(), k.size()),
                           std::string_view(v.data(), v.size())));
  }
  if (!it->status().ok()) {
    return CorruptFileError(name, it->status().ToString());
  }
  return Status::Ok();
}

}  // namespace

Status WriteTable(
    const std::string& path,
    const std::vector<std::pair<std::string, std::string>>& entries) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(path, errno);
  FdFile file(fd, path);
  leveldb::Options options;
  options.compression = leveldb::kSnappyCompression;
  options.block_size = 256 << 10;  // TensorFlow's table block size
  leveldb::Status s;
  {
    leveldb::TableBuilder builder(options, &file);
    for (const auto& [key, value] : entries) builder.Add(key, value);
    s = builder.Finish();
  }
  if (s.ok()) s = file.Close();
  if (!s.ok()) return Unknown("{}: writing the table: {}", path, s.ToString());
  return Status::Ok();
}

}  // namespace dfg::checkpoint_internal
