// Whole-file reads and atomic writes (the file parts of graph_io.h).
#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <istream>

#include "lib/base/file.h"
#include "lib/base/temp_files.h"
#include "lib/io/graph_io.h"
#include "lib/io/graph_read.h"
#include "lib/io/graph_text.h"

namespace dfg {
namespace {

std::string ErrnoText(int error) { return std::strerror(error); }

Status ReadStream(std::istream& in, std::string* out) {
  out->clear();
  char buffer[1 << 16];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
    out->append(buffer, static_cast<size_t>(in.gcount()));
    if (!in) break;
  }
  if (in.bad()) return Unavailable("<stdin>: read failed");
  return Status::Ok();
}

// The process umask, without changing it (umask(2) would, for a moment, for
// every thread).
mode_t CurrentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) {
      return static_cast<mode_t>(std::strtol(line.c_str() + 6, nullptr, 8));
    }
  }
  return 022;
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      int error = errno;
      return Unavailable("{}: write failed: {}", path, ErrnoText(error));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

// Devices and pipes (-o /dev/null, -o /dev/stdout) cannot be replaced by a
// rename; they are written in place.
Status WriteInPlace(const std::string& path, std::string_view data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    return Unavailable("{}: cannot open for writing: {}", path,
                       ErrnoText(error));
  }
  Status status = WriteAll(fd, data, path);
  if (::close(fd) != 0 && status.ok()) {
    int error = errno;
    status = Unavailable("{}: write failed: {}", path, ErrnoText(error));
  }
  return status;
}

}  // namespace

StatusOr<std::string> ReadFileToString(const std::string& path,
                                       std::istream& in) {
  if (path != "-") return ReadFileToString(path);
  std::string out;
  DFG_RETURN_IF_ERROR(ReadStream(in, &out));
  return out;
}

namespace io_internal {

std::string ExportDirOf(const std::string& file) {
  size_t slash = file.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : file.substr(0, slash);
}

std::string DisplayName(const std::string& path) {
  return path == "-" ? "<stdin>" : path;
}

StatusOr<std::string> ReadGraphBytes(const std::string& path,
                                     std::istream& in) {
  struct stat st;
  if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      st.st_size > INT_MAX) {
    return InvalidArgument(
        "{}: {} bytes is more than protobuf's 2 GB limit for a GraphDef", path,
        static_cast<int64_t>(st.st_size));
  }
  return ReadFileToString(path, in);
}

}  // namespace io_internal

StatusOr<std::string> ResolveGraphPath(const std::string& path) {
  struct stat st;
  if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return path;
  }
  std::string dir = path;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  for (const char* name : {"saved_model.pb", "saved_model.pbtxt"}) {
    std::string file = dir + "/" + name;
    if (::stat(file.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) return file;
  }
  return InvalidArgument(
      "{}: is a directory without saved_model.pb or saved_model.pbtxt (not "
      "a SavedModel)",
      path);
}

namespace {

void SetExportDir(const std::string& file, LoadedGraph* loaded) {
  if (file != "-" && loaded->container == GraphContainer::kSavedModel) {
    size_t slash = file.rfind('/');
    loaded->export_dir =
        slash == std::string::npos ? "." : file.substr(0, slash);
    if (loaded->export_dir.empty()) loaded->export_dir = "/";
  }
}

// Where a write to `path` goes: a symlink's target (as `cp` and shell
// redirection write through it, rather than replacing the link by a
// regular file), else `path` itself.
std::string WriteTarget(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return path;  // dangling: replace the link
  std::string target = resolved;
  std::free(resolved);
  return target;
}

// The mode of the written file: an existing file's own (a 0600 file stays
// private), else what the umask gives a new one.
mode_t FileMode(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return st.st_mode & 07777;
  return 0666 & ~CurrentUmask();
}

// The set that WriteAtomically hands its temporary files to instead of
// renaming them, on this thread.
thread_local OutputFileSet* active_set = nullptr;

// Writes through a temporary file in the same directory and a rename, so
// that the file is whole or absent; `write` fills the open descriptor. The
// temporary file is removed on failure, and on a fatal signal meanwhile.
Status WriteAtomically(const std::string& display_path,
                       const std::function<Status(int fd)>& write) {
  const std::string path = WriteTarget(display_path);
  const std::string& name = display_path;
  std::string temp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    int error = errno;
    return Unavailable("{}: cannot create a temporary file beside it: {}", name,
                       ErrnoText(error));
  }
  int slot = RegisterTempFile(temp);
  Status status = write(fd);
  if (status.ok() && ::fchmod(fd, FileMode(path)) != 0) {
    int error = errno;
    status = Unavailable("{}: chmod failed: {}", name, ErrnoText(error));
  }
  if (status.ok() && ::fsync(fd) != 0) {
    int error = errno;
    status = Unavailable("{}: write failed: {}", name, ErrnoText(error));
  }
  if (::close(fd) != 0 && status.ok()) {
    int error = errno;
    status = Unavailable("{}: write failed: {}", name, ErrnoText(error));
  }
  if (status.ok() && active_set != nullptr) {
    active_set->Add(temp, path, name, slot);
    return status;
  }
  if (status.ok() && std::rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    status = Unavailable("{}: cannot rename the temporary file into place: {}",
                         name, ErrnoText(error));
  }
  if (!status.ok()) ::unlink(temp.c_str());
  UnregisterTempFile(slot);
  return status;
}

// Serializes `graph` in `format` (kPb or kPbtxt) into `fd` through a
// buffer, with SerializeGraph's options.
Status WriteGraphToFd(int fd, const tensorflow::GraphDef& graph,
                      GraphFormat format, const std::string& path) {
  namespace pb = google::protobuf;
  pb::io::FileOutputStream file(fd, 1 << 20);
  bool ok = true;
  if (format == GraphFormat::kPb) {
    size_t size = graph.ByteSizeLong();
    if (size > static_cast<size_t>(INT_MAX)) {
      return InvalidArgument(
          "the graph needs {} bytes in binary form, more than protobuf's 2 GB "
          "limit",
          size);
    }
    pb::io::CodedOutputStream coded(&file);
    coded.SetSerializationDeterministic(true);  // map entries sorted by key
    graph.SerializeWithCachedSizes(&coded);
    coded.Trim();
    ok = !coded.HadError() && coded.ByteCount() == static_cast<int64_t>(size);
  } else {
    ok = PrintGraphText(graph, &file);  // as SerializeGraph
  }
  ok = file.Flush() && ok;
  if (file.GetErrno() != 0) {
    return Unavailable("{}: write failed: {}", path,
                       ErrnoText(file.GetErrno()));
  }
  if (!ok) {
    return Internal("{} serialization failed",
                    format == GraphFormat::kPb ? "binary" : "text");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<LoadedGraph> ReadGraph(const std::string& path, std::istream& in,
                                const ReadOptions& options) {
  DFG_ASSIGN_OR_RETURN(std::string file, ResolveGraphPath(path));
  DFG_ASSIGN_OR_RETURN(std::string bytes,
                       io_internal::ReadGraphBytes(file, in));
  DFG_ASSIGN_OR_RETURN(
      LoadedGraph loaded,
      ParseGraph(bytes, io_internal::DisplayName(file), options));
  SetExportDir(file, &loaded);
  return loaded;
}

StatusOr<GraphInput> ReadGraphInput(const std::string& path, std::istream& in) {
  GraphInput input;
  DFG_ASSIGN_OR_RETURN(input.file, ResolveGraphPath(path));
  DFG_ASSIGN_OR_RETURN(input.bytes,
                       io_internal::ReadGraphBytes(input.file, in));
  return input;
}

StatusOr<tensorflow::GraphDef*> ParseGraphOnArena(
    GraphInput input, const ReadOptions& options,
    google::protobuf::Arena* arena, LoadedGraph* info) {
  auto* graph =
      google::protobuf::Arena::CreateMessage<tensorflow::GraphDef>(arena);
  *info = LoadedGraph();
  Status parsed = io_internal::ParseGraphInto(
      input.bytes, io_internal::DisplayName(input.file), options, graph, info);
  if (!parsed.ok()) {
    // Without an arena the message is the caller's only on success.
    if (arena == nullptr) delete graph;
    return parsed;
  }
  SetExportDir(input.file, info);
  return graph;
}

StatusOr<tensorflow::GraphDef*> ReadGraphOnArena(const std::string& path,
                                                 std::istream& in,
                                                 const ReadOptions& options,
                                                 google::protobuf::Arena* arena,
                                                 LoadedGraph* info) {
  DFG_ASSIGN_OR_RETURN(GraphInput input, ReadGraphInput(path, in));
  return ParseGraphOnArena(std::move(input), options, arena, info);
}

google::protobuf::ArenaOptions BigGraphArenaOptions() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 1 << 12;
  options.max_block_size = 1 << 20;
  return options;
}

Status WriteGraphFile(const std::string& path,
                      const tensorflow::GraphDef& graph, GraphFormat format) {
  struct stat st;
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    return InvalidArgument("{}: is a directory, not a file", path);
  }
  if (format == GraphFormat::kJson || format == GraphFormat::kDot ||
      (exists && !S_ISREG(st.st_mode))) {
    DFG_ASSIGN_OR_RETURN(std::string data, SerializeGraph(graph, format));
    return WriteFileAtomically(path, data);
  }
  return WriteAtomically(
      path, [&](int fd) { return WriteGraphToFd(fd, graph, format, path); });
}

Status WriteFileStreamed(
    const std::string& path,
    const std::function<Status(const ChunkWriter& write)>& produce) {
  struct stat st;
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    return InvalidArgument("{}: is a directory, not a file", path);
  }
  auto to_fd = [&](int fd) {
    return produce(
        [&](std::string_view chunk) { return WriteAll(fd, chunk, path); });
  };
  if (!exists || S_ISREG(st.st_mode)) return WriteAtomically(path, to_fd);
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    return Unavailable("{}: cannot open for writing: {}", path,
                       ErrnoText(error));
  }
  Status status = to_fd(fd);
  if (::close(fd) != 0 && status.ok()) {
    int error = errno;
    status = Unavailable("{}: write failed: {}", path, ErrnoText(error));
  }
  return status;
}

namespace {

// protobuf's output stream over a ChunkWriter; the first error is kept.
class ChunkStream : public google::protobuf::io::CopyingOutputStream {
 public:
  explicit ChunkStream(const ChunkWriter& write) : write_(write) {}
  bool Write(const void* buffer, int size) override {
    if (!status_.ok()) return false;
    status_ = write_(std::string_view(static_cast<const char*>(buffer),
                                      static_cast<size_t>(size)));
    return status_.ok();
  }
  const Status& status() const { return status_; }

 private:
  const ChunkWriter& write_;
  Status status_;
};

}  // namespace

Status WriteGraphTextStreamed(const NodeSource& nodes,
                              const tensorflow::GraphDef& rest,
                              const ChunkWriter& write) {
  ChunkStream chunks(write);
  Status status;
  {
    google::protobuf::io::CopyingOutputStreamAdaptor out(&chunks, 1 << 20);
    status = PrintGraphTextStreamed(nodes, rest, &out);
    if (!out.Flush() && status.ok()) status = chunks.status();
  }
  if (!chunks.status().ok()) return chunks.status();
  return status;
}

Status WriteFileAtomically(const std::string& path, std::string_view data) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return InvalidArgument("{}: is a directory, not a file", path);
    }
    if (!S_ISREG(st.st_mode)) return WriteInPlace(path, data);
  }
  return WriteAtomically(path,
                         [&](int fd) { return WriteAll(fd, data, path); });
}

OutputFileSet::OutputFileSet() : outer_(active_set) { active_set = this; }

OutputFileSet::~OutputFileSet() {
  active_set = outer_;
  Discard(0);
}

void OutputFileSet::Add(const std::string& temp, const std::string& path,
                        const std::string& name, int slot) {
  pending_.push_back(Pending{temp, path, name, slot});
}

void OutputFileSet::Discard(size_t from) {
  for (size_t i = from; i < pending_.size(); ++i) {
    ::unlink(pending_[i].temp.c_str());
    UnregisterTempFile(pending_[i].slot);
  }
  pending_.clear();
}

Status OutputFileSet::Commit() {
  active_set = outer_;
  for (size_t i = 0; i < pending_.size(); ++i) {
    const Pending& file = pending_[i];
    if (std::rename(file.temp.c_str(), file.path.c_str()) != 0) {
      int error = errno;
      Discard(i);
      return Unavailable("{}: cannot rename the temporary file into place: {}",
                         file.name, ErrnoText(error));
    }
    UnregisterTempFile(file.slot);
  }
  pending_.clear();
  return Status::Ok();
}

}  // namespace dfg
