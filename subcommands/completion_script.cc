#include "subcommands/completion_script.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <string_view>

#include "lib/base/strings.h"
#include "subcommands/completion_model.h"

namespace dfg {
namespace {

// Hints are validators named kHintPrefix + the kind's word (+ " " + the
// choices for kChoice); they accept everything and have no description.
constexpr std::string_view kHintPrefix = "dfg-complete:";

struct KindWord {
  ValueKind kind;
  const char* word;  // the word the scripts use
};
constexpr KindWord kKindWords[] = {
    {ValueKind::kFlag, "flag"},
    {ValueKind::kText, "text"},
    {ValueKind::kFile, "file"},
    {ValueKind::kDirectory, "dir"},
    {ValueKind::kAssignFile, "assign-file"},
    {ValueKind::kAtFile, "at-file"},
    {ValueKind::kChoice, "choice"},
    {ValueKind::kSignature, "signature"},
    {ValueKind::kMetaGraphTag, "tag"},
    {ValueKind::kFeed, "feed"},
    {ValueKind::kFetch, "fetch"},
};

const char* KindWordOf(ValueKind kind) {
  for (const KindWord& k : kKindWords) {
    if (k.kind == kind) return k.word;
  }
  return "text";
}

CLI::Option* AddHint(CLI::Option* option, ValueKind kind,
                     const std::vector<std::string>& choices = {}) {
  std::string name = std::string(kHintPrefix) + KindWordOf(kind);
  for (const std::string& choice : choices) name += " " + choice;
  option->check(CLI::Validator([](std::string&) { return std::string(); },
                               /*validator_desc=*/"", name));
  return option;
}

// "{a,b,c}", the description of a CLI::IsMember check, as its words.
bool ParseMemberSet(const std::string& description,
                    std::vector<std::string>* choices) {
  if (description.size() < 2 || description.front() != '{' ||
      description.back() != '}') {
    return false;
  }
  *choices = StrSplit(description.substr(1, description.size() - 2), ',',
                      /*skip_empty=*/true);
  return !choices->empty();
}

}  // namespace

CLI::Option* HintFile(CLI::Option* o) { return AddHint(o, ValueKind::kFile); }
CLI::Option* HintDirectory(CLI::Option* o) {
  return AddHint(o, ValueKind::kDirectory);
}
CLI::Option* HintAssignFile(CLI::Option* o) {
  return AddHint(o, ValueKind::kAssignFile);
}
CLI::Option* HintAtFile(CLI::Option* o) {
  return AddHint(o, ValueKind::kAtFile);
}
CLI::Option* HintFeed(CLI::Option* o) { return AddHint(o, ValueKind::kFeed); }
CLI::Option* HintFetch(CLI::Option* o) { return AddHint(o, ValueKind::kFetch); }
CLI::Option* HintSignature(CLI::Option* o) {
  return AddHint(o, ValueKind::kSignature);
}
CLI::Option* HintMetaGraphTag(CLI::Option* o) {
  return AddHint(o, ValueKind::kMetaGraphTag);
}
CLI::Option* HintChoices(CLI::Option* o,
                         const std::vector<std::string>& choices) {
  return AddHint(o, ValueKind::kChoice, choices);
}

ValueHint GetValueHint(CLI::Option& option) {
  ValueHint hint;
  if (option.get_expected_max() == 0) {
    hint.kind = ValueKind::kFlag;
    return hint;
  }
  ValueHint member;
  for (int i = 0;; ++i) {
    CLI::Validator* validator = nullptr;
    try {
      validator = option.get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      break;
    }
    const std::string& name = validator->get_name();
    if (StartsWith(name, kHintPrefix)) {
      std::vector<std::string> words =
          StrSplit(name.substr(kHintPrefix.size()), ' ', /*skip_empty=*/true);
      for (const KindWord& k : kKindWords) {
        if (!words.empty() && words[0] == k.word) hint.kind = k.kind;
      }
      if (!words.empty()) words.erase(words.begin());
      hint.choices = std::move(words);
      return hint;
    }
    if (member.choices.empty() &&
        ParseMemberSet(validator->get_description(), &member.choices)) {
      member.kind = ValueKind::kChoice;
    }
  }
  return member.choices.empty() ? hint : member;
}

namespace {

CommandSpec SpecOf(CLI::App& app, std::string name) {
  CommandSpec spec;
  spec.name = std::move(name);
  spec.description = app.get_description();
  for (CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    OptionSpec o;
    o.description = option->get_description();
    o.hint = GetValueHint(*option);
    o.repeatable = option->get_expected_max() > 1;
    if (option->get_positional()) {
      o.names.push_back(option->get_name());
      spec.positionals.push_back(std::move(o));
      continue;
    }
    for (const std::string& s : option->get_snames())
      o.names.push_back("-" + s);
    for (const std::string& l : option->get_lnames()) {
      o.names.push_back("--" + l);
    }
    spec.options.push_back(std::move(o));
  }
  return spec;
}

std::string KindLine(const ValueHint& hint) {
  std::string line = KindWordOf(hint.kind);
  for (const std::string& choice : hint.choices) {
    line += " " + ShellQuote(choice);
  }
  return line;
}

}  // namespace

std::vector<CommandSpec> Commands(CLI::App& root) {
  std::vector<CommandSpec> commands = {SpecOf(root, "")};
  for (CLI::App* sub : root.get_subcommands({})) {
    if (sub->get_group().empty()) continue;  // hidden
    commands.push_back(SpecOf(*sub, sub->get_name()));
  }
  return commands;
}

std::string ShellQuote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c == '\n' ? ' ' : c;
    }
  }
  return out + "'";
}

std::string KindFunction(const std::vector<CommandSpec>& commands) {
  std::string out =
      "# _dfg_kind SUB OPTION: what OPTION of SUB takes (flag, text, file, "
      "dir,\n# assign-file, at-file, signature, tag, feed, fetch, or choice "
      "WORD...); "
      "status 1 "
      "when SUB has no\n# such option. `_dfg_kind SUB N`: what SUB's Nth "
      "positional argument is.\n_dfg_kind() {\n  case \"$1 $2\" in\n";
  for (const CommandSpec& c : commands) {
    for (const OptionSpec& o : c.options) {
      std::vector<std::string> patterns;
      for (const std::string& n : o.names)
        patterns.push_back(ShellQuote(c.name + " " + n));
      out += fmt::format("    {}) echo {} ;;\n", fmt::join(patterns, "|"),
                         KindLine(o.hint));
    }
    for (size_t i = 0; i < c.positionals.size(); ++i) {
      out += fmt::format("    {}) echo {} ;;\n",
                         ShellQuote(fmt::format("{} {}", c.name, i + 1)),
                         KindLine(c.positionals[i].hint));
    }
  }
  return out + "    *) return 1 ;;\n  esac\n}\n";
}

}  // namespace dfg
