#include "lib/kernels/file_policy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "lib/kernels/op_kernel.h"

namespace dfg {
namespace {

thread_local const FilePolicy* current_policy = nullptr;

Status Denied(std::string message) {
  return Status(Code::kPermissionDenied, std::move(message));
}

// realpath(3) of an existing path; nullopt when it does not exist.
std::optional<std::string> RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return std::nullopt;
  return std::string(buf);
}

bool Within(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir ||
         (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
          path[dir.size()] == '/');
}

}  // namespace

StatusOr<std::string> FilePolicy::Resolve(const std::string& path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  if (ec) return Denied(fmt::format("cannot resolve '{}'", path));
  // Split into components; find the longest prefix that exists.
  std::vector<std::string> parts;
  for (const auto& p : abs) {
    std::string s = p.string();
    if (s.empty() || s == "/" || s == ".") continue;
    parts.push_back(s);
  }
  size_t existing = parts.size();
  std::string resolved;
  for (;; --existing) {
    std::string prefix = "/";
    for (size_t i = 0; i < existing; ++i) {
      if (i > 0) prefix += "/";
      prefix += parts[i];
    }
    if (auto real = RealPath(prefix)) {
      resolved = *real;
      break;
    }
    if (existing == 0) return Denied(fmt::format("cannot resolve '{}'", path));
  }
  // The part that does not exist yet: a ".." there would climb out of a
  // directory that a later create_directories makes, unseen by realpath.
  for (size_t i = existing; i < parts.size(); ++i) {
    if (parts[i] == "..") {
      return Denied(fmt::format("'{}' has '..' after its existing part '{}'",
                                path, resolved));
    }
    if (resolved != "/") resolved += "/";
    resolved += parts[i];
  }
  return resolved;
}

StatusOr<std::shared_ptr<const FilePolicy>> FilePolicy::Create(
    const std::vector<std::string>& dirs, std::string hint) {
  std::vector<std::string> allowed;
  for (const std::string& d : dirs) {
    struct stat st;
    auto real = RealPath(d);
    if (!real || ::stat(real->c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return InvalidArgument("--allow-path '{}' is not an existing directory",
                             d);
    }
    allowed.push_back(*real);
  }
  return std::shared_ptr<const FilePolicy>(
      new FilePolicy(std::move(allowed), std::move(hint)));
}

Status FilePolicy::Check(std::string_view op, const std::string& path) const {
  auto resolved = Resolve(path);
  std::string why;
  if (!resolved.ok()) {
    why = std::string(resolved.status().message());
  } else {
    for (const std::string& dir : allowed_) {
      if (Within(*resolved, dir)) return Status::Ok();
    }
    why = allowed_.empty()
              ? "no directory is allowed to graphs from clients"
              : fmt::format("'{}' is outside the allowed directories ({})",
                            *resolved, fmt::join(allowed_, ", "));
  }
  return Denied(fmt::format("{}: access to '{}' is refused: {}; {}", op, path,
                            why, hint_));
}

Status CheckPath(const OpKernelContext& ctx, const std::string& path) {
  return current_policy == nullptr
             ? Status::Ok()
             : current_policy->Check(ctx.op_kernel().type_string(), path);
}

Status CheckPath(const OpKernelConstruction& ctx, const std::string& path) {
  return current_policy == nullptr
             ? Status::Ok()
             : current_policy->Check(ctx.def().op(), path);
}

ScopedFilePolicy::ScopedFilePolicy(const FilePolicy* policy)
    : previous_(current_policy) {
  current_policy = policy;
}

ScopedFilePolicy::~ScopedFilePolicy() { current_policy = previous_; }

}  // namespace dfg
