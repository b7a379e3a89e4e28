// Status and StatusOr: how every lib/ function reports failure.
//
// A Status is OK or carries a canonical code (TensorFlow's names, so that a
// message reads like TensorFlow's: "InvalidArgument: ...") and a message.
// StatusOr<T> holds either a value or a non-OK Status. Exceptions never cross
// a lib/ API; DFG_RETURN_IF_ERROR / DFG_ASSIGN_OR_RETURN propagate errors and
// DFG_CHECK aborts on a broken invariant.
#ifndef DFG_LIB_BASE_STATUS_H_
#define DFG_LIB_BASE_STATUS_H_

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace dfg {

enum class Code {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
};

// TensorFlow's spelling of a code, e.g. "InvalidArgument".
const char* CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(Code code, std::string message);

  static Status Ok() { return Status(); }

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  const std::string& message() const;

  // "InvalidArgument: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is `prefix` + message (same code).
  Status WithPrefix(const std::string& prefix) const;

  void IgnoreError() const {}

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.message() == b.message();
  }

 private:
  struct Rep {
    Code code;
    std::string message;
  };
  std::shared_ptr<const Rep> rep_;  // null when OK; cheap to copy
};

#define DFG_DEFINE_STATUS_FACTORY(Name)                                        \
  template <typename... Args>                                                  \
  Status Name(fmt::format_string<Args...> f, Args&&... args) {                 \
    return Status(Code::k##Name, fmt::format(f, std::forward<Args>(args)...)); \
  }
DFG_DEFINE_STATUS_FACTORY(Cancelled)
DFG_DEFINE_STATUS_FACTORY(Unknown)
DFG_DEFINE_STATUS_FACTORY(InvalidArgument)
DFG_DEFINE_STATUS_FACTORY(DeadlineExceeded)
DFG_DEFINE_STATUS_FACTORY(NotFound)
DFG_DEFINE_STATUS_FACTORY(AlreadyExists)
DFG_DEFINE_STATUS_FACTORY(ResourceExhausted)
DFG_DEFINE_STATUS_FACTORY(FailedPrecondition)
DFG_DEFINE_STATUS_FACTORY(Aborted)
DFG_DEFINE_STATUS_FACTORY(OutOfRange)
DFG_DEFINE_STATUS_FACTORY(Unimplemented)
DFG_DEFINE_STATUS_FACTORY(Internal)
DFG_DEFINE_STATUS_FACTORY(Unavailable)
DFG_DEFINE_STATUS_FACTORY(DataLoss)
#undef DFG_DEFINE_STATUS_FACTORY

[[noreturn]] void CheckFailed(const char* file, int line, const char* cond,
                              const std::string& message);

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const Status& status) : status_(status) {  // NOLINT: implicit
    if (status_.ok()) CheckFailed(__FILE__, __LINE__, "!status.ok()", "");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & {
    CheckOk();
    return *value_;
  }
  const T& value() const& {
    CheckOk();
    return *value_;
  }
  T&& value() && {
    CheckOk();
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  void CheckOk() const {
    if (!status_.ok())
      CheckFailed(__FILE__, __LINE__, "ok()", status_.ToString());
  }
  Status status_;
  std::optional<T> value_;
};

}  // namespace dfg

#define DFG_CONCAT_INNER_(a, b) a##b
#define DFG_CONCAT_(a, b) DFG_CONCAT_INNER_(a, b)

#define DFG_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::dfg::Status dfg_status_ = (expr);        \
    if (!dfg_status_.ok()) return dfg_status_; \
  } while (0)

#define DFG_ASSIGN_OR_RETURN(lhs, expr) \
  DFG_ASSIGN_OR_RETURN_IMPL_(DFG_CONCAT_(dfg_statusor_, __LINE__), lhs, expr)
#define DFG_ASSIGN_OR_RETURN_IMPL_(var, lhs, expr) \
  auto var = (expr);                               \
  if (!var.ok()) return var.status();              \
  lhs = std::move(var).value()

#define DFG_CHECK(cond)                                             \
  do {                                                              \
    if (!(cond)) ::dfg::CheckFailed(__FILE__, __LINE__, #cond, ""); \
  } while (0)
#define DFG_CHECK_MSG(cond, msg)                                       \
  do {                                                                 \
    if (!(cond)) ::dfg::CheckFailed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

#endif  // DFG_LIB_BASE_STATUS_H_
