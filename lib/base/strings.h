// Small string helpers shared by every stage.
#ifndef DFG_LIB_BASE_STRINGS_H_
#define DFG_LIB_BASE_STRINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dfg {

// Splits on `sep`; empty pieces are kept unless `skip_empty`.
std::vector<std::string> StrSplit(std::string_view text, char sep,
                                  bool skip_empty = false);

bool StartsWith(std::string_view text, std::string_view prefix);
bool EndsWith(std::string_view text, std::string_view suffix);

// Parses a whole decimal integer (optional leading '-'); nullopt on anything
// else, including overflow.
std::optional<int64_t> ParseInt64(std::string_view text);

// Levenshtein distance, capped: returns cap + 1 once the distance exceeds cap.
int EditDistance(std::string_view a, std::string_view b, int cap = 1 << 30);

// The candidate closest to `name` by edit distance, if one is close enough to
// be a plausible typo (distance <= max(2, name.size() / 3)); ties go to the
// first candidate in the given order.
std::optional<std::string> NearestName(
    std::string_view name, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" when nothing is near.
std::string DidYouMean(std::string_view name,
                       const std::vector<std::string>& candidates);

// Every character outside [A-Za-z0-9._-] replaced by '_' (file names for
// partitions and fetched tensors).
std::string SanitizeFileName(std::string_view name);

// C-style escaping for messages (non-printable bytes as \ooo).
std::string CEscape(std::string_view text);

// CEscape that keeps bytes >= 0x80 as they are (absl::Utf8SafeCEscape: how
// TensorFlow's Tensor::SummarizeValue prints string elements).
std::string Utf8SafeCEscape(std::string_view text);

// `text` in double quotes, escaped as CEscape does except that other bytes
// are \xhh and a single quote stays as it is (tensor string elements as
// `dfg run` prints them).
std::string QuoteHexEscaped(std::string_view text);

}  // namespace dfg

#endif  // DFG_LIB_BASE_STRINGS_H_
