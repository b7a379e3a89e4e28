// Protobuf reports some parse failures (invalid UTF-8 in a string field) only
// through its log. While a ScopedProtobufLogCapture is alive on a thread, the
// first such message is kept (for an error) instead of being printed.
#ifndef DFG_LIB_GRAPH_PROTO_LOG_H_
#define DFG_LIB_GRAPH_PROTO_LOG_H_

#include <string>

namespace dfg {

class ScopedProtobufLogCapture {
 public:
  ScopedProtobufLogCapture();
  ~ScopedProtobufLogCapture();
  ScopedProtobufLogCapture(const ScopedProtobufLogCapture&) = delete;
  ScopedProtobufLogCapture& operator=(const ScopedProtobufLogCapture&) = delete;
  const std::string& text() const { return text_; }

 private:
  std::string* outer_;
  std::string text_;
};

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_PROTO_LOG_H_
