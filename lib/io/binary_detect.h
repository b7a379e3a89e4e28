// Internal to lib/io: telling a binary GraphDef from a MetaGraphDef and a
// SavedModel before parsing. The three parse as each other loosely (protobuf
// keeps what it does not recognise as unknown fields), so the decision is
// made on the wire structure: which fields appear with which wire types, and
// whether the repeated NodeDefs look like nodes (a name and an op name).
#ifndef DFG_LIB_IO_BINARY_DETECT_H_
#define DFG_LIB_IO_BINARY_DETECT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dfg::io_internal {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLen = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

struct WireField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t varint = 0;       // kVarint (and the raw value of fixed types)
  std::string_view payload;  // kLen
  size_t offset = 0;         // where the tag starts, from the buffer start
};

// Reads one message level of protobuf wire format. Groups are reported as
// malformed: no message of the GraphDef family uses them.
class WireReader {
 public:
  // `base` is added to offsets, so nested readers report file positions.
  explicit WireReader(std::string_view data, size_t base = 0)
      : data_(data), base_(base) {}

  // The next field; false at the end or on malformed input (see error()).
  bool Next(WireField* field);
  bool ok() const { return error_.empty(); }
  // "byte 123: ..." or empty.
  const std::string& error() const { return error_; }

 private:
  bool ReadVarint(uint64_t* value);
  bool Fail(size_t at, const char* what);

  std::string_view data_;
  size_t base_;
  size_t pos_ = 0;
  std::string error_;
};

enum class BinaryKind { kGraphDef, kMetaGraphDef, kSavedModel };

// The most plausible message type for `bytes`. When none fits, kGraphDef (the
// caller then parses and validates it as one, and reports `*why_not_graph`).
// `why_not_graph` receives why the bytes are not GraphDef-shaped (may be null).
BinaryKind DetectBinaryKind(std::string_view bytes, std::string* why_not_graph);

// True for a plausible op or function name: non-empty, printable ASCII
// without spaces or quotes.
bool IsPlausibleOpName(std::string_view op);

}  // namespace dfg::io_internal

#endif  // DFG_LIB_IO_BINARY_DETECT_H_
