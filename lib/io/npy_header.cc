#include "lib/io/npy_header.h"

#include <limits>

namespace dfg::io_internal {
namespace {

struct DtypeEntry {
  char kind;
  size_t size;
  DataType dtype;
};

constexpr DtypeEntry kDtypes[] = {
    {'b', 1, tensorflow::DT_BOOL},      {'i', 1, tensorflow::DT_INT8},
    {'i', 2, tensorflow::DT_INT16},     {'i', 4, tensorflow::DT_INT32},
    {'i', 8, tensorflow::DT_INT64},     {'u', 1, tensorflow::DT_UINT8},
    {'u', 2, tensorflow::DT_UINT16},    {'u', 4, tensorflow::DT_UINT32},
    {'u', 8, tensorflow::DT_UINT64},    {'f', 2, tensorflow::DT_HALF},
    {'f', 4, tensorflow::DT_FLOAT},     {'f', 8, tensorflow::DT_DOUBLE},
    {'c', 8, tensorflow::DT_COMPLEX64}, {'c', 16, tensorflow::DT_COMPLEX128},
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view name)
      : text_(text), name_(name) {}

  StatusOr<NpyHeader> Parse();

 private:
  template <typename... Args>
  Status Error(fmt::format_string<Args...> f, Args&&... args) {
    return InvalidArgument("{}: malformed .npy header at column {}: {}", name_,
                           pos_ + 1,
                           fmt::format(f, std::forward<Args>(args)...));
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeWord(std::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  Status ParseString(std::string* out);
  Status ParseShape(std::vector<int64_t>* shape);
  Status ParseDescr(const std::string& descr, NpyDescr* out);

  std::string_view text_;
  std::string_view name_;
  size_t pos_ = 0;
};

Status HeaderParser::ParseString(std::string* out) {
  SkipSpace();
  if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
    return Error("expected a string");
  }
  char quote = text_[pos_++];
  size_t end = text_.find(quote, pos_);
  if (end == std::string_view::npos) return Error("unterminated string");
  std::string_view body = text_.substr(pos_, end - pos_);
  if (body.find_first_of("\\\n") != std::string_view::npos) {
    return Error("unsupported escape in string");
  }
  *out = std::string(body);
  pos_ = end + 1;
  return Status::Ok();
}

Status HeaderParser::ParseShape(std::vector<int64_t>* shape) {
  if (!Consume('(')) return Error("expected a shape tuple");
  shape->clear();
  bool trailing_comma = false;
  while (!Consume(')')) {
    SkipSpace();
    size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      int digit = text_[pos_++] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        return Error("dimension overflows int64");
      }
      value = value * 10 + digit;
    }
    if (pos_ == start) return Error("expected a non-negative dimension");
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long
    shape->push_back(value);
    trailing_comma = Consume(',');
    if (!trailing_comma) {
      if (!Consume(')')) return Error("expected ',' or ')' in shape");
      break;
    }
  }
  if (shape->size() == 1 && !trailing_comma) {
    return Error("a one-element shape needs a trailing comma, as in (3,)");
  }
  return Status::Ok();
}

Status HeaderParser::ParseDescr(const std::string& descr, NpyDescr* out) {
  std::string_view d = descr;
  char order = '|';
  if (!d.empty() &&
      (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) {
    order = d[0];
    d.remove_prefix(1);
  }
  if (d.empty()) return Error("empty dtype descr");
  char kind = d[0];
  d.remove_prefix(1);
  size_t size = 0;
  for (char c : d) {
    if (c < '0' || c > '9' || size > 1u << 30) {
      return Error("unsupported dtype '{}'", descr);
    }
    size = size * 10 + (c - '0');
  }
  if (kind == '?' && d.empty()) kind = 'b', size = 1;
  if (kind == 'a') kind = 'S';
  out->kind = kind;
  out->big_endian = order == '>';
  if (kind == 'O') {
    return InvalidArgument(
        "{}: object arrays (dtype 'O') need pickle and are not supported; "
        "save the array with a fixed dtype",
        name_);
  }
  if (kind == 'S' || kind == 'U') {
    if (size == 0) return Error("string dtype '{}' without a size", descr);
    out->dtype = tensorflow::DT_STRING;
    out->itemsize = kind == 'U' ? size * 4 : size;
    return Status::Ok();
  }
  for (const DtypeEntry& e : kDtypes) {
    if (e.kind == kind && e.size == size) {
      out->dtype = e.dtype;
      out->itemsize = size;
      out->swap_unit = kind == 'c' ? size / 2 : size;
      return Status::Ok();
    }
  }
  return InvalidArgument("{}: unsupported dtype '{}'", name_, descr);
}

StatusOr<NpyHeader> HeaderParser::Parse() {
  NpyHeader header;
  if (!Consume('{')) return Error("expected '{{'");
  std::string descr;
  bool seen_descr = false, seen_order = false, seen_shape = false;
  while (!Consume('}')) {
    std::string key;
    DFG_RETURN_IF_ERROR(ParseString(&key));
    if (!Consume(':')) return Error("expected ':' after '{}'", key);
    bool* seen = key == "descr"           ? &seen_descr
                 : key == "fortran_order" ? &seen_order
                 : key == "shape"         ? &seen_shape
                                          : nullptr;
    if (seen == nullptr) return Error("unknown key '{}'", key);
    if (*seen) return Error("key '{}' appears twice", key);
    *seen = true;
    if (key == "descr") {
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '[') {
        return InvalidArgument(
            "{}: structured dtypes (a list descr) are not supported", name_);
      }
      DFG_RETURN_IF_ERROR(ParseString(&descr));
    } else if (key == "fortran_order") {
      if (ConsumeWord("True")) {
        header.fortran_order = true;
      } else if (!ConsumeWord("False")) {
        return Error("fortran_order must be True or False");
      }
    } else {
      DFG_RETURN_IF_ERROR(ParseShape(&header.shape));
    }
    if (!Consume(',')) {
      if (!Consume('}')) return Error("expected ',' or '}}'");
      break;
    }
  }
  SkipSpace();
  if (pos_ != text_.size()) return Error("unexpected text after '}}'");
  if (!seen_descr || !seen_order || !seen_shape) {
    return InvalidArgument(
        "{}: malformed .npy header: needs 'descr', 'fortran_order' and "
        "'shape'",
        name_);
  }
  DFG_RETURN_IF_ERROR(ParseDescr(descr, &header.descr));
  return header;
}

}  // namespace

StatusOr<NpyHeader> ParseNpyHeader(std::string_view text,
                                   std::string_view name) {
  return HeaderParser(text, name).Parse();
}

std::optional<std::string> NpyDescrFor(DataType dtype) {
  for (const DtypeEntry& e : kDtypes) {
    if (e.dtype == dtype) {
      char order = e.size == 1 ? '|' : '<';
      return fmt::format("{}{}{}", order, e.kind, e.size);
    }
  }
  return std::nullopt;
}

size_t NpyItemSize(DataType dtype) {
  for (const DtypeEntry& e : kDtypes) {
    if (e.dtype == dtype) return e.size;
  }
  return 0;
}

std::string FormatNpyHeader(std::string_view descr,
                            const std::vector<int64_t>& shape) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    dims += fmt::format("{}{}", i == 0 ? "" : ", ", shape[i]);
  }
  if (shape.size() == 1) dims += ",";
  return fmt::format(
      "{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr,
      dims);
}

}  // namespace dfg::io_internal
