// ReadFileToString with read(2): one allocation sized from fstat for a
// regular file, growing for pipes and devices that report no size.
#include "lib/base/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dfg {
namespace {

Status ReadFd(int fd, const std::string& path, size_t size_hint,
              std::string* out, int* error_number) {
  out->clear();
  out->resize(size_hint > 0 ? size_hint : 1 << 16);
  size_t filled = 0;
  while (true) {
    if (filled == out->size()) out->resize(out->size() * 2);
    ssize_t n = ::read(fd, out->data() + filled, out->size() - filled);
    if (n < 0) {
      if (errno == EINTR) continue;
      int error = errno;
      if (error_number != nullptr) *error_number = error;
      return Unavailable("{}: read failed: {}", path, std::strerror(error));
    }
    if (n == 0) break;
    filled += static_cast<size_t>(n);
  }
  out->resize(filled);
  return Status::Ok();
}

}  // namespace

StatusOr<std::string> ReadFileToString(const std::string& path,
                                       int* error_number) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    if (error_number != nullptr) *error_number = error;
    return NotFound("{}: {}", path, std::strerror(error));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    int error = S_ISDIR(st.st_mode) ? EISDIR : errno;
    ::close(fd);
    if (error_number != nullptr) *error_number = error;
    return InvalidArgument("{}: is a directory, not a file", path);
  }
  // One byte more than the size, so that the read that sees end of file
  // does not have to grow the string.
  size_t hint = S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) + 1 : 0;
  std::string out;
  Status status = ReadFd(fd, path, hint, &out, error_number);
  ::close(fd);
  if (!status.ok()) return status;
  return out;
}

}  // namespace dfg
