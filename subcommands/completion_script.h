// Shell completion for dfg, generated from the command-line parser itself.
//
// Each option says what its value is (a file, a directory, NAME=FILE, one of
// a few words, a SavedModel signature key) through the hints below, where
// the option is defined; the choices of an option checked by CLI::IsMember
// are read from that validator. `dfg completion bash|zsh` walks the CLI11 App
// tree and writes a script from what it finds, so the scripts cannot drift
// from the flags. A hint is stored on the option as a CLI11 validator that
// accepts every value and adds nothing to --help.
#ifndef DFG_SUBCOMMANDS_COMPLETION_SCRIPT_H_
#define DFG_SUBCOMMANDS_COMPLETION_SCRIPT_H_

#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace dfg {

enum class ValueKind {
  kFlag,          // takes no value
  kText,          // a value nothing can be offered for (a name, a number)
  kFile,          // a file name (a SavedModel directory counts as one)
  kDirectory,     // a directory name
  kAssignFile,    // NAME=FILE: a file name after the '='
  kAtFile,        // a value, or @FILE: a file name after the '@'
  kChoice,        // one of `choices`
  kSignature,     // a signature key of the SavedModel given as INPUT
  kMetaGraphTag,  // a tag of INPUT's meta graphs (it also picks kSignature's)
  kFeed,          // KEY=FILE: an input key of INPUT, then a file (or zeros...)
  kFetch,         // an output key of INPUT
};

struct ValueHint {
  ValueKind kind = ValueKind::kText;
  std::vector<std::string> choices;  // kChoice
};

// Each marks `option`'s value and returns `option`, so they wrap add_option:
//   HintFile(sub->add_option("--trace", flags->trace, "..."));
CLI::Option* HintFile(CLI::Option* option);
CLI::Option* HintDirectory(CLI::Option* option);
CLI::Option* HintAssignFile(CLI::Option* option);
CLI::Option* HintAtFile(CLI::Option* option);
CLI::Option* HintSignature(CLI::Option* option);
CLI::Option* HintMetaGraphTag(CLI::Option* option);
// --feed and --fetch of a step: the keys of the signature on the command line
// (--signature, else the default one), or the graph's placeholders and
// unconsumed outputs.
CLI::Option* HintFeed(CLI::Option* option);
CLI::Option* HintFetch(CLI::Option* option);
// For a value checked elsewhere than by CLI::IsMember (whose choices are
// read from the validator without a hint).
CLI::Option* HintChoices(CLI::Option* option,
                         const std::vector<std::string>& choices);

// What `option` takes: kFlag for a flag, the hint if it has one, kChoice
// for a CLI::IsMember check, else kText.
ValueHint GetValueHint(CLI::Option& option);

// The completion scripts for the command line rooted at `root` (the `dfg`
// App with every subcommand registered). Options and subcommands in no group
// (CLI11's hidden ones) are left out.
std::string BashCompletionScript(CLI::App& root);
std::string ZshCompletionScript(CLI::App& root);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_COMPLETION_SCRIPT_H_
