#include "lib/base/status.h"

#include <cstdio>
#include <cstdlib>

namespace dfg {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kCancelled:
      return "Cancelled";
    case Code::kUnknown:
      return "Unknown";
    case Code::kInvalidArgument:
      return "InvalidArgument";
    case Code::kDeadlineExceeded:
      return "DeadlineExceeded";
    case Code::kNotFound:
      return "NotFound";
    case Code::kAlreadyExists:
      return "AlreadyExists";
    case Code::kPermissionDenied:
      return "PermissionDenied";
    case Code::kResourceExhausted:
      return "ResourceExhausted";
    case Code::kFailedPrecondition:
      return "FailedPrecondition";
    case Code::kAborted:
      return "Aborted";
    case Code::kOutOfRange:
      return "OutOfRange";
    case Code::kUnimplemented:
      return "Unimplemented";
    case Code::kInternal:
      return "Internal";
    case Code::kUnavailable:
      return "Unavailable";
    case Code::kDataLoss:
      return "DataLoss";
  }
  return "Unknown";
}

Status::Status(Code code, std::string message) {
  if (code != Code::kOk) {
    rep_ = std::make_shared<const Rep>(Rep{code, std::move(message)});
  }
}

const std::string& Status::message() const {
  static const std::string* const kEmpty = new std::string();
  return rep_ ? rep_->message : *kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return fmt::format("{}: {}", CodeName(code()), message());
}

Status Status::WithPrefix(const std::string& prefix) const {
  if (ok()) return *this;
  return Status(code(), prefix + message());
}

void CheckFailed(const char* file, int line, const char* cond,
                 const std::string& message) {
  std::fprintf(stderr, "dfg: internal error: %s:%d: check failed: %s %s\n",
               file, line, cond, message.c_str());
  std::abort();
}

}  // namespace dfg
