#include "lib/base/strings.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

namespace dfg {

std::vector<std::string> StrSplit(std::string_view text, char sep,
                                  bool skip_empty) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = text.find(sep, start);
    std::string_view piece = text.substr(start, pos == std::string_view::npos
                                                    ? std::string_view::npos
                                                    : pos - start);
    if (!skip_empty || !piece.empty()) out.emplace_back(piece);
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.substr(text.size() - suffix.size()) == suffix;
}

std::optional<int64_t> ParseInt64(std::string_view text) {
  if (text.empty()) return std::nullopt;
  int64_t value = 0;
  auto [ptr, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return std::nullopt;
  return value;
}

int EditDistance(std::string_view a, std::string_view b, int cap) {
  if (a.size() > b.size()) std::swap(a, b);
  if (static_cast<int64_t>(b.size()) - static_cast<int64_t>(a.size()) > cap) {
    return cap + 1;
  }
  std::vector<int> row(a.size() + 1);
  for (size_t i = 0; i <= a.size(); ++i) row[i] = static_cast<int>(i);
  for (size_t j = 1; j <= b.size(); ++j) {
    int diag = row[0];
    row[0] = static_cast<int>(j);
    int row_min = row[0];
    for (size_t i = 1; i <= a.size(); ++i) {
      int next = std::min(
          {row[i] + 1, row[i - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = row[i];
      row[i] = next;
      row_min = std::min(row_min, next);
    }
    if (row_min > cap) return cap + 1;
  }
  return std::min(row[a.size()], cap + 1);
}

std::optional<std::string> NearestName(
    std::string_view name, const std::vector<std::string>& candidates) {
  int limit = std::max<int>(2, static_cast<int>(name.size()) / 3);
  int best = limit + 1;
  const std::string* found = nullptr;
  for (const std::string& c : candidates) {
    int d = EditDistance(name, c, best - 1);
    if (d < best) {
      best = d;
      found = &c;
      if (d == 0) break;
    }
  }
  if (found == nullptr) return std::nullopt;
  return *found;
}

std::string DidYouMean(std::string_view name,
                       const std::vector<std::string>& candidates) {
  auto near = NearestName(name, candidates);
  if (!near) return "";
  return fmt::format(" (did you mean '{}'?)", *near);
}

std::string SanitizeFileName(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

namespace {

// \n \r \t \\ \" (and \' with `escape_single_quote`); other bytes outside
// printable ASCII as \ooo, or \xhh with `hex`; with `utf8_safe`, bytes
// >= 0x80 stay as they are.
std::string Escape(std::string_view text, bool hex, bool escape_single_quote,
                   bool utf8_safe = false) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        if (c == '\'' && escape_single_quote) {
          out += "\\'";
        } else if (c < 0x20 || c == 0x7f || (c > 0x7f && !utf8_safe)) {
          out += hex ? fmt::format("\\x{:02x}", c) : fmt::format("\\{:03o}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

}  // namespace

std::string CEscape(std::string_view text) {
  return Escape(text, /*hex=*/false, /*escape_single_quote=*/true);
}

std::string Utf8SafeCEscape(std::string_view text) {
  return Escape(text, /*hex=*/false, /*escape_single_quote=*/true,
                /*utf8_safe=*/true);
}

std::string QuoteHexEscaped(std::string_view text) {
  return "\"" + Escape(text, /*hex=*/true, /*escape_single_quote=*/false) +
         "\"";
}

}  // namespace dfg
