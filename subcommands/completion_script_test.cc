#include "subcommands/completion_script.h"

#include <CLI/CLI.hpp>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

// A small command line shaped like dfg's: `tool sub [INPUT] [options]`.
struct Tool {
  CLI::App app{"a tool", "tool"};
  std::string input, output, format, mode, text, dir, feed, devices, signature,
      tag, key, fetch;
  bool flag = false;
  CLI::App* sub = nullptr;

  explicit Tool(bool hints) {
    sub = app.add_subcommand("sub", "does things");
    CLI::Option* o = sub->add_option("input", input, "the input");
    if (hints) HintFile(o);
    o = sub->add_option("-o,--output", output, "where [it] goes");
    if (hints) HintFile(o);
    o = sub->add_option("-f,--format", format, "pbtxt|pb");
    if (hints) HintChoices(o, {"pbtxt", "pb"});
    sub->add_option("--mode", mode, "a mode")
        ->check(CLI::IsMember({"fast", "slow"}));
    sub->add_option("--text", text, "anything");
    o = sub->add_option("--dir", dir, "a directory");
    if (hints) HintDirectory(o);
    o = sub->add_option("--feed", feed, "NAME=FILE");
    if (hints) HintAssignFile(o);
    o = sub->add_option("--devices", devices, "devices or @FILE");
    if (hints) HintAtFile(o);
    o = sub->add_option("--signature", signature, "a key");
    if (hints) HintSignature(o);
    o = sub->add_option("--tag", tag, "a tag");
    if (hints) HintMetaGraphTag(o);
    o = sub->add_option("--key", key, "KEY=FILE");
    if (hints) HintFeed(o);
    o = sub->add_option("--fetch", fetch, "an output key");
    if (hints) HintFetch(o);
    sub->add_flag("--flag", flag, "a flag");
    sub->add_option("--hidden", text, "not shown")->group("");
  }
  ValueHint Hint(const std::string& name) {
    return GetValueHint(*sub->get_option(name));
  }
};

TEST_CASE("a value hint says what an option takes", "[completion]") {
  Tool tool(/*hints=*/true);
  CHECK(tool.Hint("input").kind == ValueKind::kFile);
  CHECK(tool.Hint("--output").kind == ValueKind::kFile);
  CHECK(tool.Hint("--dir").kind == ValueKind::kDirectory);
  CHECK(tool.Hint("--feed").kind == ValueKind::kAssignFile);
  CHECK(tool.Hint("--devices").kind == ValueKind::kAtFile);
  CHECK(tool.Hint("--signature").kind == ValueKind::kSignature);
  CHECK(tool.Hint("--tag").kind == ValueKind::kMetaGraphTag);
  CHECK(tool.Hint("--key").kind == ValueKind::kFeed);
  CHECK(tool.Hint("--fetch").kind == ValueKind::kFetch);
  CHECK(tool.Hint("--flag").kind == ValueKind::kFlag);
  CHECK(tool.Hint("--text").kind == ValueKind::kText);
  ValueHint format = tool.Hint("--format");
  CHECK(format.kind == ValueKind::kChoice);
  CHECK(format.choices == std::vector<std::string>{"pbtxt", "pb"});
  // Without a hint, the choices come from the CLI::IsMember check.
  ValueHint mode = tool.Hint("--mode");
  CHECK(mode.kind == ValueKind::kChoice);
  CHECK(mode.choices == std::vector<std::string>{"fast", "slow"});
}

TEST_CASE("value hints change neither --help nor what is accepted",
          "[completion]") {
  Tool with(/*hints=*/true), without(/*hints=*/false);
  CHECK(with.sub->help() == without.sub->help());
  CHECK(with.app.help() == without.app.help());
  // CLI11 takes a vector of arguments last first.
  with.app.parse(std::vector<std::string>{"x=y.npy", "--feed", "anything",
                                          "--format", "sub"});
  CHECK(with.format == "anything");
  CHECK(with.feed == "x=y.npy");
}

TEST_CASE("the bash script knows every option, value and choice",
          "[completion]") {
  Tool tool(/*hints=*/true);
  std::string bash = BashCompletionScript(tool.app);
  CHECK_THAT(bash, Contains("'sub -o'|'sub --output') echo file ;;"));
  CHECK_THAT(bash, Contains("'sub --mode') echo choice 'fast' 'slow' ;;"));
  CHECK_THAT(bash, Contains("'sub --format') echo choice 'pbtxt' 'pb' ;;"));
  CHECK_THAT(bash, Contains("'sub --feed') echo assign-file ;;"));
  CHECK_THAT(bash, Contains("'sub --signature') echo signature ;;"));
  CHECK_THAT(bash, Contains("'sub --key') echo feed ;;"));
  CHECK_THAT(bash, Contains("'sub --fetch') echo fetch ;;"));
  CHECK_THAT(bash, Contains("'sub --flag') echo flag ;;"));
  CHECK_THAT(bash, Contains("'sub 1') echo file ;;"));
  CHECK_THAT(bash, Contains("_dfg_subcommands='sub'"));
  CHECK_THAT(bash, Contains("complete -F _dfg dfg"));
  CHECK_THAT(bash, !Contains("--hidden"));
}

TEST_CASE("the zsh script has an _arguments spec per option", "[completion]") {
  Tool tool(/*hints=*/true);
  std::string zsh = ZshCompletionScript(tool.app);
  CHECK(zsh.rfind("#compdef dfg\n", 0) == 0);
  CHECK_THAT(zsh, Contains("'(-o --output)--output=[where \\[it\\] "
                           "goes]:output:_files'"));
  CHECK_THAT(zsh, Contains("'(--mode)--mode=[a mode]:mode:(fast slow)'"));
  CHECK_THAT(zsh, Contains("'(--dir)--dir=[a directory]:dir:_files -/'"));
  CHECK_THAT(zsh, Contains(":signature:_dfg_signatures'"));
  CHECK_THAT(zsh, Contains(":tag:_dfg_tags'"));
  CHECK_THAT(zsh, Contains(":key:_dfg_feed'"));
  CHECK_THAT(zsh, Contains(":fetch:_dfg_fetch'"));
  CHECK_THAT(zsh, Contains("'(--flag)--flag[a flag]'"));
  CHECK_THAT(zsh, Contains("'1:input:_files'"));
  CHECK_THAT(zsh, Contains("'sub:does things'"));
  CHECK_THAT(zsh, !Contains("--hidden"));
}

}  // namespace
}  // namespace dfg
