// Protobuf wire format, one message level at a time, without a schema: how
// lib/io tells a GraphDef from a MetaGraphDef and how the place stage reads
// a big binary GraphDef's nodes as views into the file's bytes.
#ifndef DFG_LIB_GRAPH_WIRE_READER_H_
#define DFG_LIB_GRAPH_WIRE_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dfg {

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
  size_t end = 0;            // one past the field, from the buffer start
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

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_WIRE_READER_H_
