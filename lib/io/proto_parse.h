// Internal to lib/io: the three protobuf encodings as small functions with
// readable errors, for graph_io.cc to choose among.
#ifndef DFG_LIB_IO_PROTO_PARSE_H_
#define DFG_LIB_IO_PROTO_PARSE_H_

#include <google/protobuf/message.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/base/status.h"

namespace dfg::io_internal {

// True when `bytes` could be protobuf text or JSON: no control characters
// other than whitespace. (Every binary GraphDef with a node has one: the tag
// byte 0x12 of NodeDef.op.)
bool LooksLikeText(std::string_view bytes);

// `bytes` without a UTF-8 byte order mark.
std::string_view StripBom(std::string_view bytes);

// The first non-whitespace character, or '\0'.
char FirstNonSpace(std::string_view bytes);

// The first top-level field name of a text proto ("node", "meta_graphs"),
// skipping whitespace and # comments; empty if there is none.
std::string FirstTextFieldName(std::string_view text);

// Binary wire format through a CodedInputStream whose total-bytes limit is
// raised to protobuf's 2 GB maximum. The error (without the file name)
// carries what protobuf logged, e.g. invalid UTF-8 in a string field.
Status ParseBinary(std::string_view bytes, google::protobuf::Message* message);

// Merges `bytes` into `message` as protobuf would when `message` sits
// `depth` levels below the top of a larger message (same recursion budget).
// True on success; for validating one field of a big message at a time.
bool MergeNested(std::string_view bytes, google::protobuf::Message* message,
                 int depth);

// Text format. Errors are "LINE:COL: message" (1-based). With
// `allow_unknown_in` non-empty, unknown fields are skipped when they appear
// directly in a message of one of these full names, and rejected elsewhere.
Status ParseText(std::string_view text, google::protobuf::Message* message,
                 const std::vector<std::string>& allow_unknown_in = {});

// Protobuf's JSON mapping: lowerCamelCase and proto field names are both
// accepted.
Status ParseJson(std::string_view json, google::protobuf::Message* message,
                 bool ignore_unknown_fields = false);

// The members of a JSON object, key and raw value text, without parsing the
// values (they are handed to ParseJson). Errors when `json` is no object.
StatusOr<std::vector<std::pair<std::string, std::string_view>>>
JsonObjectMembers(std::string_view json);

}  // namespace dfg::io_internal

#endif  // DFG_LIB_IO_PROTO_PARSE_H_
