#include "cli/usage_hints.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string_view>

#include "lib/base/strings.h"

namespace dfg {
namespace {

struct ForeignOption {
  const char* name;  // saved_model_cli's, without dashes
  const char* hint;
};

// saved_model_cli's options (show, run, freeze_model...) that users carry
// over, and what dfg takes instead.
constexpr ForeignOption kSavedModelCliOptions[] = {
    {"dir", "give the SavedModel directory as INPUT, without an option"},
    {"tag_set",
     "use --meta-graph-tag TAG: one tag, which picks the meta graph whose "
     "tags include it (e.g. --meta-graph-tag serve)"},
    {"signature_def", "use --signature KEY"},
    {"inputs",
     "use --feed KEY=FILE.npy or --feed KEY=FILE.npz:ARRAY, one --feed per "
     "input (dfg run)"},
    {"input_exprs",
     "use --feed KEY=LITERAL, a JSON literal such as --feed 'x=[[1,2]]' (dfg "
     "run)"},
    {"input_examples",
     "use --examples KEY=[{FEATURE: [VALUES]}...], feature dicts as "
     "saved_model_cli takes (dfg run)"},
    {"outdir",
     "use --output-dir DIR (dfg run writes each output as DIR/KEY.npy)"},
    {"output_file", "use -o FILE"},
    {"overwrite", "dfg overwrites -o and --output-dir files (atomically)"},
    {"all", "dfg info prints everything saved_model_cli show --all does"},
};

bool IsSubcommand(const CLI::App& app, std::string_view word) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == word) return true;
  }
  return false;
}

// "--tag_set=serve" -> "tag_set"; "" for what is not a long option.
std::string LongOptionName(std::string_view arg) {
  if (arg.size() < 3 || arg.substr(0, 2) != "--") return "";
  arg.remove_prefix(2);
  return std::string(arg.substr(0, arg.find('=')));
}

std::vector<std::string> LongOptionsOf(const CLI::App& sub) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : sub.get_options()) {
    for (const std::string& name : opt->get_lnames()) names.push_back(name);
  }
  return names;
}

}  // namespace

std::string UnknownSubcommandMessage(const CLI::App& app, int argc,
                                     const char* const* argv) {
  if (argc < 2) return "";
  std::string_view word = argv[1];
  if (word.empty() || word[0] == '-' || IsSubcommand(app, word)) return "";
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
  }
  return fmt::format("unknown subcommand '{}'{}", word,
                     DidYouMean(word, names));
}

std::vector<std::string> OptionHints(const CLI::App& sub, int argc,
                                     const char* const* argv) {
  std::vector<std::string> hints;
  std::vector<std::string> own = LongOptionsOf(sub);
  for (int i = 1; i < argc; ++i) {
    std::string name = LongOptionName(argv[i]);
    if (name.empty()) continue;
    if (std::find(own.begin(), own.end(), name) != own.end()) continue;
    std::string underscored = name;
    std::replace(underscored.begin(), underscored.end(), '-', '_');
    std::string hint;
    for (const ForeignOption& f : kSavedModelCliOptions) {
      if (underscored == f.name) hint = f.hint;
    }
    if (hint.empty()) {
      if (auto near = NearestName(name, own)) hint = "use --" + *near;
    }
    if (!hint.empty()) {
      hints.push_back(fmt::format("hint: --{}: {}", name, hint));
    }
  }
  return hints;
}

}  // namespace dfg
