#include "lib/graph/proto_log.h"

#include <google/protobuf/stubs/common.h>
#include <google/protobuf/stubs/logging.h>

#include <mutex>

namespace dfg {
namespace {

namespace pb = google::protobuf;

thread_local std::string* tls_log_capture = nullptr;
pb::LogHandler* previous_log_handler = nullptr;

void CapturingLogHandler(pb::LogLevel level, const char* filename, int line,
                         const std::string& message) {
  if (tls_log_capture != nullptr && level != pb::LOGLEVEL_FATAL) {
    if (tls_log_capture->empty()) *tls_log_capture = message;
    return;
  }
  if (previous_log_handler != nullptr) {
    previous_log_handler(level, filename, line, message);
  }
}

}  // namespace

ScopedProtobufLogCapture::ScopedProtobufLogCapture() : outer_(tls_log_capture) {
  static std::once_flag once;
  std::call_once(once, [] {
    previous_log_handler = pb::SetLogHandler(&CapturingLogHandler);
  });
  tls_log_capture = &text_;
}

ScopedProtobufLogCapture::~ScopedProtobufLogCapture() {
  tls_log_capture = outer_;
}

}  // namespace dfg
