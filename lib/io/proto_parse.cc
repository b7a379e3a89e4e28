#include "lib/io/proto_parse.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/common.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <climits>

#include "lib/graph/proto_log.h"

namespace dfg::io_internal {
namespace {

namespace pb = google::protobuf;

using ScopedLogCapture = ScopedProtobufLogCapture;

class TextErrorCollector : public pb::io::ErrorCollector {
 public:
  void AddError(int line, pb::io::ColumnNumber column,
                const std::string& message) override {
    if (!error_.empty()) return;
    std::string text = message;
    // The tokenizer's "got: <token>" has no token at the end of the input.
    std::string_view got = "got: ";
    if (text.size() >= got.size() &&
        text.compare(text.size() - got.size(), got.size(), got) == 0) {
      text += "the end of the input (is the file cut short?)";
    }
    error_ =
        line >= 0 ? fmt::format("{}:{}: {}", line + 1, column + 1, text) : text;
  }
  void AddWarning(int line, pb::io::ColumnNumber column,
                  const std::string& message) override {
    warnings_.push_back(
        fmt::format("{}:{}: {}", line + 1, column + 1, message));
  }
  const std::string& error() const { return error_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::string error_;
  std::vector<std::string> warnings_;
};

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

// Text and JSON parsers let escapes such as "\377" put invalid UTF-8 into a
// proto3 string field, which the binary parser (and so TensorFlow) rejects:
// checked here, so that whatever reads can be written in every form.
Status CheckUtf8(const pb::Message& message) {
  const pb::Reflection* reflection = message.GetReflection();
  std::vector<const pb::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const pb::FieldDescriptor* field : fields) {
    // Only proto3 strings: the binary parser does not check proto2 ones
    // (GraphDebugInfo).
    if (field->type() == pb::FieldDescriptor::TYPE_STRING &&
        field->file()->syntax() == pb::FileDescriptor::SYNTAX_PROTO3) {
      int n = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
      for (int i = 0; i < n; ++i) {
        std::string scratch;
        const std::string& value =
            field->is_repeated()
                ? reflection->GetRepeatedStringReference(message, field, i,
                                                         &scratch)
                : reflection->GetStringReference(message, field, &scratch);
        if (!pb::internal::IsStructurallyValidUTF8(
                value.data(), static_cast<int>(value.size()))) {
          return InvalidArgument("string field '{}' contains invalid UTF-8",
                                 field->full_name());
        }
      }
    } else if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
      int n = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
      for (int i = 0; i < n; ++i) {
        DFG_RETURN_IF_ERROR(
            CheckUtf8(field->is_repeated()
                          ? reflection->GetRepeatedMessage(message, field, i)
                          : reflection->GetMessage(message, field)));
      }
    }
  }
  return Status::Ok();
}

// One line: protobuf's JSON errors carry a newline and a caret picture.
std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

bool LooksLikeText(std::string_view bytes) {
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && !IsSpace(ch)) || c == 0x7f) return false;
  }
  return true;
}

std::string_view StripBom(std::string_view bytes) {
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") bytes.remove_prefix(3);
  return bytes;
}

char FirstNonSpace(std::string_view bytes) {
  for (char c : bytes) {
    if (!IsSpace(c)) return c;
  }
  return '\0';
}

std::string FirstTextFieldName(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (IsSpace(text[i])) {
      ++i;
    } else if (text[i] == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else {
      break;
    }
  }
  size_t start = i;
  while (
      i < text.size() &&
      (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
    ++i;
  }
  return std::string(text.substr(start, i - start));
}

Status ParseBinary(std::string_view bytes, pb::Message* message) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return InvalidArgument("{} bytes is more than protobuf's 2 GB limit",
                           bytes.size());
  }
  ScopedLogCapture capture;
  pb::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                 static_cast<int>(bytes.size()));
  input.SetTotalBytesLimit(INT_MAX);
  bool ok = message->ParseFromCodedStream(&input) &&
            input.ConsumedEntireMessage() &&
            input.CurrentPosition() == static_cast<int>(bytes.size());
  if (ok) return Status::Ok();
  if (!capture.text().empty()) {
    return InvalidArgument("binary {} parse failed: {}",
                           message->GetDescriptor()->full_name(),
                           OneLine(capture.text()));
  }
  // Protobuf says nothing when its recursion limit stops it.
  return InvalidArgument(
      "binary {} parse failed (truncated, malformed or nested more than {} "
      "messages deep)",
      message->GetDescriptor()->full_name(),
      pb::io::CodedInputStream::GetDefaultRecursionLimit());
}

bool MergeNested(std::string_view bytes, pb::Message* message, int depth) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return false;
  ScopedLogCapture capture;
  pb::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                 static_cast<int>(bytes.size()));
  input.SetTotalBytesLimit(INT_MAX);
  input.SetRecursionLimit(pb::io::CodedInputStream::GetDefaultRecursionLimit() -
                          depth);
  return message->MergeFromCodedStream(&input) &&
         input.ConsumedEntireMessage() &&
         input.CurrentPosition() == static_cast<int>(bytes.size());
}

Status ParseText(std::string_view text, pb::Message* message,
                 const std::vector<std::string>& allow_unknown_in) {
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    return InvalidArgument("{} bytes is more than protobuf's 2 GB limit",
                           text.size());
  }
  ScopedLogCapture capture;
  TextErrorCollector errors;
  pb::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(!allow_unknown_in.empty());
  // The text parser recurses once per nested message and has no limit of
  // its own: a file nested 100,000 deep overflows the stack. The binary
  // parser's limit keeps every text that reads also readable once written
  // in binary.
  parser.SetRecursionLimit(
      pb::io::CodedInputStream::GetDefaultRecursionLimit());
  pb::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  if (!parser.Parse(&input, message)) {
    if (!errors.error().empty()) return InvalidArgument("{}", errors.error());
    return InvalidArgument("text parse failed{}",
                           capture.text().empty() ? "" : ": " + capture.text());
  }
  // Skipped unknown fields come back as warnings naming their message type:
  // `Message type "tensorflow.MetaGraphDef" has no field named "saver_def".`
  // Other warnings (a deprecated field such as GraphDef's `version`, which
  // old TensorFlow wrote) are no reason to refuse the text.
  for (const std::string& warning : errors.warnings()) {
    if (warning.find("has no field named") == std::string::npos) continue;
    bool allowed = false;
    for (const std::string& type : allow_unknown_in) {
      if (warning.find("\"" + type + "\"") != std::string::npos) allowed = true;
    }
    if (!allowed) return InvalidArgument("{}", warning);
  }
  return CheckUtf8(*message);
}

Status ParseJson(std::string_view json, pb::Message* message,
                 bool ignore_unknown_fields) {
  ScopedLogCapture capture;
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = ignore_unknown_fields;
  auto status = pb::util::JsonStringToMessage(
      pb::StringPiece(json.data(), json.size()), message, options);
  if (status.ok()) return CheckUtf8(*message);
  return InvalidArgument("{}", OneLine(std::string(status.message())));
}

namespace {

// Skips a JSON string starting at json[*pos] == '"'.
bool SkipString(std::string_view json, size_t* pos) {
  for (size_t i = *pos + 1; i < json.size(); ++i) {
    if (json[i] == '\\') {
      ++i;
    } else if (json[i] == '"') {
      *pos = i + 1;
      return true;
    }
  }
  return false;
}

// Skips one JSON value (not validated: protobuf's parser does that).
bool SkipValue(std::string_view json, size_t* pos) {
  int depth = 0;
  size_t i = *pos;
  while (i < json.size()) {
    char c = json[i];
    if (c == '"') {
      if (!SkipString(json, &i)) return false;
      if (depth == 0) break;
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) break;
      if (--depth == 0) {
        ++i;
        break;
      }
    } else if (depth == 0 && (c == ',' || IsSpace(c))) {
      break;
    }
    ++i;
  }
  if (depth != 0 || i == *pos) return false;
  *pos = i;
  return true;
}

void SkipSpaces(std::string_view json, size_t* pos) {
  while (*pos < json.size() && IsSpace(json[*pos])) ++*pos;
}

}  // namespace

StatusOr<std::vector<std::pair<std::string, std::string_view>>>
JsonObjectMembers(std::string_view json) {
  std::vector<std::pair<std::string, std::string_view>> members;
  size_t pos = 0;
  SkipSpaces(json, &pos);
  if (pos >= json.size() || json[pos] != '{') {
    return InvalidArgument("byte {}: expected a JSON object", pos);
  }
  ++pos;
  SkipSpaces(json, &pos);
  if (pos < json.size() && json[pos] == '}') return members;
  while (true) {
    SkipSpaces(json, &pos);
    size_t key_start = pos;
    if (pos >= json.size() || json[pos] != '"' || !SkipString(json, &pos)) {
      return InvalidArgument("byte {}: expected a member name", key_start);
    }
    std::string key(json.substr(key_start + 1, pos - key_start - 2));
    SkipSpaces(json, &pos);
    if (pos >= json.size() || json[pos] != ':') {
      return InvalidArgument("byte {}: expected ':' after \"{}\"", pos, key);
    }
    ++pos;
    SkipSpaces(json, &pos);
    size_t value_start = pos;
    if (!SkipValue(json, &pos)) {
      return InvalidArgument("byte {}: malformed value of \"{}\"", value_start,
                             key);
    }
    members.emplace_back(std::move(key),
                         json.substr(value_start, pos - value_start));
    SkipSpaces(json, &pos);
    if (pos < json.size() && json[pos] == ',') {
      ++pos;
      continue;
    }
    if (pos < json.size() && json[pos] == '}') break;
    return InvalidArgument("byte {}: expected ',' or '}}'", pos);
  }
  return members;
}

}  // namespace dfg::io_internal
