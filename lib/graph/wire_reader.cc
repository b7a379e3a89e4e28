#include "lib/graph/wire_reader.h"

#include <fmt/format.h>

namespace dfg {

bool WireReader::Fail(size_t at, const char* what) {
  error_ = fmt::format("byte {}: {}", base_ + at, what);
  pos_ = data_.size();
  return false;
}

bool WireReader::ReadVarint(uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size()) return false;
    uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

bool WireReader::Next(WireField* field) {
  if (pos_ >= data_.size()) return false;
  size_t start = pos_;
  uint64_t tag = 0;
  if (!ReadVarint(&tag) || tag > 0xffffffffu) {
    return Fail(start, "malformed field tag (truncated or not protobuf)");
  }
  field->number = static_cast<uint32_t>(tag >> 3);
  field->offset = base_ + start;
  if (field->number == 0) return Fail(start, "field number 0 (not protobuf)");
  switch (tag & 7) {
    case 0:
      field->type = WireType::kVarint;
      if (!ReadVarint(&field->varint)) {
        return Fail(start, "truncated varint (the input ends early)");
      }
      field->end = base_ + pos_;
      return true;
    case 1:
    case 5: {
      size_t size = (tag & 7) == 1 ? 8 : 4;
      field->type = (tag & 7) == 1 ? WireType::kFixed64 : WireType::kFixed32;
      if (data_.size() - pos_ < size) {
        return Fail(start, "truncated fixed-size field (the input ends early)");
      }
      field->varint = 0;
      pos_ += size;
      field->end = base_ + pos_;
      return true;
    }
    case 2: {
      field->type = WireType::kLen;
      uint64_t length = 0;
      if (!ReadVarint(&length)) {
        return Fail(start, "truncated length (the input ends early)");
      }
      if (length > data_.size() - pos_) {
        error_ = fmt::format(
            "byte {}: field {} claims {} bytes but only {} remain (truncated "
            "input?)",
            base_ + start, field->number, length, data_.size() - pos_);
        pos_ = data_.size();
        return false;
      }
      field->payload = data_.substr(pos_, length);
      pos_ += length;
      field->end = base_ + pos_;
      return true;
    }
    default:
      return Fail(start, "group or invalid wire type (not a GraphDef)");
  }
}

}  // namespace dfg
