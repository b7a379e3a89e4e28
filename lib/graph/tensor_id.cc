#include "lib/graph/tensor_id.h"

#include <climits>
#include <cstdint>

#include "lib/graph/types.h"

namespace dfg {

std::string TensorId::ToString() const {
  if (index == kControlSlot) return InputString(node, index);
  return node + ":" + std::to_string(index);
}

// Right to left, as TensorFlow does: a run of trailing digits preceded by a
// ':' that is not the first character is an output index; otherwise a leading
// '^' marks a control input; otherwise the whole string is the node name.
TensorIdView ParseTensorNameView(std::string_view name) {
  size_t p = name.size();
  uint64_t index = 0;
  uint64_t mul = 1;  // stops growing once beyond int range
  bool saturated = false;
  // Never consume the first character (TF's `p > base`).
  while (p > 1 && name[p - 1] >= '0' && name[p - 1] <= '9') {
    uint64_t digit = static_cast<uint64_t>(name[p - 1] - '0');
    if (digit != 0) {
      if (mul > INT_MAX) saturated = true;
      if (!saturated) index += digit * mul;
      if (index > INT_MAX) saturated = true;
    }
    if (mul <= INT_MAX) mul *= 10;
    --p;
  }
  bool has_digits = p < name.size();
  if (has_digits && p > 1 && name[p - 1] == ':') {
    // TensorFlow wraps around on absurd indices; dfg saturates so that the
    // index can never turn into the control slot.
    int i = saturated ? INT_MAX : static_cast<int>(index);
    return TensorIdView{name.substr(0, p - 1), i};
  }
  if (!name.empty() && name[0] == '^') {
    return TensorIdView{name.substr(1), kControlSlot};
  }
  return TensorIdView{name, 0};
}

TensorId ParseTensorName(std::string_view name) {
  TensorIdView view = ParseTensorNameView(name);
  return TensorId{std::string(view.node), view.index};
}

bool TensorIndexOverflows(std::string_view name) {
  TensorIdView view = ParseTensorNameView(name);
  if (view.index != INT_MAX) return false;
  std::string_view digits = name.substr(view.node.size() + 1);
  while (digits.size() > 1 && digits[0] == '0') digits.remove_prefix(1);
  constexpr std::string_view kMax = "2147483647";
  return digits.size() > kMax.size() ||
         (digits.size() == kMax.size() && digits > kMax);
}

std::string InputString(std::string_view node, int index) {
  std::string out;
  out.reserve(node.size() + 12);
  if (index == kControlSlot) out += '^';
  out += node;
  if (index > 0) {
    out += ':';
    out += std::to_string(index);
  }
  return out;
}

}  // namespace dfg
