// Rendezvous key building and parsing, as TensorFlow's Rendezvous::CreateKey
// and ParseKey.
#include "lib/kernels/rendezvous_interface.h"

#include <fmt/format.h>

#include "lib/graph/device_name.h"

namespace dfg {

std::string CreateKey(std::string_view send_device, uint64_t incarnation,
                      std::string_view recv_device,
                      std::string_view tensor_name, FrameAndIter frame_iter) {
  return fmt::format("{};{:016x};{};{};{}:{}", send_device, incarnation,
                     recv_device, tensor_name, frame_iter.frame_id,
                     frame_iter.iter_id);
}

ParsedKey& ParsedKey::operator=(const ParsedKey& other) {
  buf_ = other.buf_;
  src_ = other.src_;
  dst_ = other.dst_;
  edge_ = other.edge_;
  src_incarnation_ = other.src_incarnation_;
  return *this;
}

namespace {

bool ParseHex64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return false;
    }
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  *out = v;
  return true;
}

}  // namespace

Status ParseKey(std::string_view key, ParsedKey* out) {
  out->buf_.assign(key.data(), key.size());
  std::string_view rest(out->buf_);
  std::string_view parts[5];
  uint32_t offsets[5];
  for (int i = 0; i < 5; ++i) {  // TF's ConsumeNextPart
    offsets[i] = static_cast<uint32_t>(rest.data() - out->buf_.data());
    const size_t semi = rest.find(';');
    parts[i] = rest.substr(0, semi);
    rest.remove_prefix(semi == std::string_view::npos ? rest.size() : semi + 1);
  }
  ParsedDeviceName src, dst;
  uint64_t incarnation = 0;
  const bool ok = rest.empty() && !parts[4].empty() &&
                  ParseFullName(parts[0], &src) &&
                  ParseHex64(parts[1], &incarnation) &&
                  ParseFullName(parts[2], &dst) && !parts[3].empty();
  if (!ok) return InvalidArgument("Invalid  rendezvous key: {}", key);
  out->src_ = {offsets[0], static_cast<uint32_t>(parts[0].size())};
  out->dst_ = {offsets[2], static_cast<uint32_t>(parts[2].size())};
  out->edge_ = {offsets[3], static_cast<uint32_t>(parts[3].size())};
  out->src_incarnation_ = incarnation;
  return Status::Ok();
}

}  // namespace dfg
