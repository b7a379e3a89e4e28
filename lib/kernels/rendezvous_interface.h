// The rendezvous as the _Send/_Recv kernels see it (TF-SEMANTICS.md §4.5),
// and TensorFlow's key format. lib/exec implements the local rendezvous (and
// a remote one may implement the same interface).
//
// Key: "<send_device>;<incarnation: 16 lowercase hex>;<recv_device>;
//       <tensor_name>;<frame_id>:<iter_id>", root frame/iteration "0:0".
#ifndef DFG_LIB_KERNELS_RENDEZVOUS_INTERFACE_H_
#define DFG_LIB_KERNELS_RENDEZVOUS_INTERFACE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"

namespace dfg {

// The executor's frame and iteration of a node instance: 0, 0 at the root.
// frame_id identifies a frame instance (TF uses a hash of its name).
struct FrameAndIter {
  uint64_t frame_id = 0;
  int64_t iter_id = 0;
};

// Rendezvous::CreateKey. Device strings are used verbatim.
std::string CreateKey(std::string_view send_device, uint64_t incarnation,
                      std::string_view recv_device,
                      std::string_view tensor_name, FrameAndIter frame_iter);

// A parsed key. Copyable; the views point into the object's own copy.
class ParsedKey {
 public:
  ParsedKey() = default;
  ParsedKey(const ParsedKey& other) { *this = other; }
  ParsedKey& operator=(const ParsedKey& other);

  const std::string& FullKey() const { return buf_; }
  std::string_view src_device() const { return Part(src_); }
  uint64_t src_incarnation() const { return src_incarnation_; }
  std::string_view dst_device() const { return Part(dst_); }
  std::string_view edge_name() const { return Part(edge_); }

 private:
  friend Status ParseKey(std::string_view key, ParsedKey* out);
  struct Range {
    uint32_t begin = 0, size = 0;
  };
  std::string_view Part(Range r) const {
    return std::string_view(buf_).substr(r.begin, r.size);
  }
  std::string buf_;
  Range src_, dst_, edge_;
  uint64_t src_incarnation_ = 0;
};

// Rendezvous::ParseKey: 5 ';'-separated parts; parts 0 and 2 must parse as
// device names, part 1 as hex uint64, part 3 must be non-empty. Error
// (kInvalidArgument): "Invalid  rendezvous key: <key>" (two spaces, as TF).
Status ParseKey(std::string_view key, ParsedKey* out);

class RendezvousInterface {
 public:
  // Called once, with the value or an error; may run on the sender's thread
  // (inside Send) or on the caller's thread (inside RecvAsync).
  using DoneCallback = std::function<void(const Status& status,
                                          const Tensor& value, bool is_dead)>;

  virtual ~RendezvousInterface() = default;

  // Never blocks. A second Send on a key not yet consumed:
  // kAborted "Duplicated send: <key>". After StartAbort: the abort status.
  virtual Status Send(const ParsedKey& key, const Tensor& value,
                      bool is_dead) = 0;
  // Calls `done` when the matching Send has happened (or at once if it
  // already has); with the abort status if the rendezvous is aborted.
  virtual void RecvAsync(const ParsedKey& key, DoneCallback done) = 0;
  // Fails every pending and future RecvAsync with `status` (not OK).
  virtual void StartAbort(const Status& status) = 0;
};

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_RENDEZVOUS_INTERFACE_H_
