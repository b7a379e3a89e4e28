#include "lib/io/binary_detect.h"

#include <fmt/format.h>

namespace dfg::io_internal {

bool IsPlausibleOpName(std::string_view op) {
  if (op.empty() || op.size() > 1024) return false;
  for (char c : op) {
    if (c <= ' ' || c > '~' || c == '"' || c == '\'' || c == '\\') return false;
  }
  return true;
}

namespace {

bool Why(std::string* why, std::string text) {
  if (why != nullptr && why->empty()) *why = std::move(text);
  return false;
}

// Scans every field; `check` returns false to reject.
template <typename Check>
bool ForEachField(std::string_view msg, size_t base, std::string* why,
                  Check check) {
  WireReader reader(msg, base);
  WireField field;
  while (reader.Next(&field)) {
    if (!check(field)) return false;
  }
  if (!reader.ok()) return Why(why, reader.error());
  return true;
}

size_t PayloadOffset(std::string_view outer, size_t outer_base,
                     const WireField& f) {
  return outer_base + static_cast<size_t>(f.payload.data() - outer.data());
}

bool Unexpected(std::string* why, const WireField& f, const char* message) {
  return Why(
      why, fmt::format("byte {}: field {} (wire type {}) is not part "
                       "of a {}",
                       f.offset, f.number, static_cast<int>(f.type), message));
}

// NodeDef: 1 name, 2 op, 3 input, 4 device, 5 attr, 6 debug info, 7 type;
// all length-delimited; op must look like an op name. Higher field numbers
// are let through (fields a newer TensorFlow may add).
bool IsNodeDefShaped(std::string_view msg, size_t base, int index,
                     std::string* why) {
  std::string_view op;
  bool fields_ok = ForEachField(msg, base, why, [&](const WireField& f) {
    if (f.number > 7) return true;  // a newer TensorFlow's field
    if (f.type != WireType::kLen) return Unexpected(why, f, "NodeDef");
    if (f.number == 2) op = f.payload;
    return true;
  });
  if (!fields_ok) return false;
  if (!IsPlausibleOpName(op)) {
    return Why(why, fmt::format("byte {}: node {} has no plausible op name",
                                base, index));
  }
  return true;
}

// FunctionDefLibrary: 1 function, 2 gradient, 3 registered_gradients; each
// FunctionDef: 1 signature, 3 node_def, 4 ret, 5 attr, 6 control_ret,
// 7 arg_attr, 8 resource_arg_unique_id (2 is reserved).
bool IsLibraryShaped(std::string_view msg, size_t base, std::string* why) {
  return ForEachField(msg, base, why, [&](const WireField& f) {
    if (f.number > 3 || f.type != WireType::kLen) {
      return Unexpected(why, f, "FunctionDefLibrary");
    }
    if (f.number != 1) return true;
    return ForEachField(
        f.payload, PayloadOffset(msg, base, f), why, [&](const WireField& g) {
          if (g.number == 2 || g.number > 8 || g.type != WireType::kLen) {
            return Unexpected(why, g, "FunctionDef");
          }
          return true;
        });
  });
}

// VersionDef: 1 producer, 2 min_consumer, 3 bad_consumers (packed or not).
bool IsVersionsShaped(std::string_view msg, size_t base, std::string* why) {
  return ForEachField(msg, base, why, [&](const WireField& f) {
    bool ok = (f.number <= 2 && f.type == WireType::kVarint) ||
              (f.number == 3 &&
               (f.type == WireType::kVarint || f.type == WireType::kLen));
    return ok || Unexpected(why, f, "VersionDef");
  });
}

// GraphDef: 1 node, 2 library, 3 version (varint), 4 versions, 5 debug_info.
bool IsGraphDefShaped(std::string_view msg, size_t base, std::string* why) {
  int index = 0;
  return ForEachField(msg, base, why, [&](const WireField& f) {
    size_t at = PayloadOffset(msg, base, f);
    switch (f.number) {
      case 1:
        return f.type == WireType::kLen
                   ? IsNodeDefShaped(f.payload, at, index++, why)
                   : Unexpected(why, f, "GraphDef");
      case 2:
        return f.type == WireType::kLen ? IsLibraryShaped(f.payload, at, why)
                                        : Unexpected(why, f, "GraphDef");
      case 3:
        return f.type == WireType::kVarint || Unexpected(why, f, "GraphDef");
      case 4:
        return f.type == WireType::kLen ? IsVersionsShaped(f.payload, at, why)
                                        : Unexpected(why, f, "GraphDef");
      case 5:
        return f.type == WireType::kLen || Unexpected(why, f, "GraphDef");
      default:
        return Unexpected(why, f, "GraphDef");
    }
  });
}

// MetaGraphDef: fields 1-7 are all messages; 2 (graph_def) must be present
// and GraphDef-shaped.
bool IsMetaGraphDefShaped(std::string_view msg, size_t base) {
  bool has_graph = false;
  bool ok = ForEachField(msg, base, nullptr, [&](const WireField& f) {
    if (f.number > 7 || f.type != WireType::kLen) return false;
    if (f.number != 2) return true;
    has_graph = true;
    return IsGraphDefShaped(f.payload, PayloadOffset(msg, base, f), nullptr);
  });
  return ok && has_graph;
}

// SavedModel: 1 saved_model_schema_version (varint), 2 meta_graphs.
bool IsSavedModelShaped(std::string_view msg) {
  int meta_graphs = 0;
  bool ok = ForEachField(msg, 0, nullptr, [&](const WireField& f) {
    if (f.number == 1 && f.type == WireType::kVarint) return true;
    if (f.number != 2 || f.type != WireType::kLen) return false;
    ++meta_graphs;
    return IsMetaGraphDefShaped(f.payload, PayloadOffset(msg, 0, f));
  });
  return ok && meta_graphs > 0;
}

}  // namespace

BinaryKind DetectBinaryKind(std::string_view bytes,
                            std::string* why_not_graph) {
  std::string why;
  // A SavedModel's field 1 is a varint, which no GraphDef has, and its meta
  // graphs' field 2 is a GraphDef, which no FunctionDefLibrary looks like:
  // testing it first cannot take a GraphDef for one.
  if (IsSavedModelShaped(bytes)) return BinaryKind::kSavedModel;
  if (IsGraphDefShaped(bytes, 0, &why)) return BinaryKind::kGraphDef;
  if (IsMetaGraphDefShaped(bytes, 0)) return BinaryKind::kMetaGraphDef;
  if (why_not_graph != nullptr) *why_not_graph = why;
  return BinaryKind::kGraphDef;
}

}  // namespace dfg::io_internal
