// Constant buffers and what kernels derive from them.
//
// A Const kernel's value is never written while the kernel lives: it keeps a
// reference to its buffer, so no kernel may forward the buffer into an output
// and write it in place (that needs the only reference), and nothing else
// writes into it. Const kernels register their buffer here for their
// lifetime; a kernel that turns an input into a costly derived form (oneDNN's
// reordered convolution weights, a packed GEMM operand) can then keep that
// form attached to the buffer and use it on the next step, instead of
// recomputing it on every call. Attachments are dropped when the last Const
// holding the buffer unregisters it, so a later buffer at the same address
// never sees them.
//
// Variables are not registered: their buffers may be written in place.
#ifndef DFG_LIB_KERNELS_CONST_BUFFERS_H_
#define DFG_LIB_KERNELS_CONST_BUFFERS_H_

#include <cstdint>
#include <memory>

namespace dfg {

// Registers / unregisters the buffer starting at `data` (counted: a buffer
// registered twice stays registered until unregistered twice). Null `data`
// (an empty tensor) is ignored. Thread-safe.
void RegisterConstBuffer(const void* data);
void UnregisterConstBuffer(const void* data);

// Whether `data` is the start of a registered constant buffer.
bool IsConstBuffer(const void* data);

// The value attached under `key` to the constant buffer at `data`: null when
// `data` is not registered or nothing is attached under `key`. Keys are
// chosen by the users (one per kind of derived form, see kConstKey*).
std::shared_ptr<void> FindConstDerived(const void* data, uint64_t key);
// Attaches `value` under `key` (replacing what was there); does nothing when
// `data` is not a registered constant buffer.
void AttachConstDerived(const void* data, uint64_t key,
                        std::shared_ptr<void> value);

// Keys in use.
inline constexpr uint64_t kConstKeyOneDnnConvWeights = 1;

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_CONST_BUFFERS_H_
