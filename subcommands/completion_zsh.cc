// `dfg completion zsh`: a #compdef function of _arguments specs over the
// command-line model (completion_model.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>

#include "subcommands/completion_model.h"
#include "subcommands/completion_script.h"

namespace dfg {
namespace {

// The helpers of the zsh script that do not depend on the flags.
constexpr const char* kZshHelpers = R"sh(
# _dfg_saved_model_keys signature|tag|inputs|outputs [COMPADD-ARGS]: the
# signature keys of the SavedModel given as INPUT (the first positional
# argument) in the meta graph --meta-graph-tag picks, the tags of its meta
# graphs, or the names --feed/--fetch take (keys of --signature's signature).
_dfg_saved_model_keys() {
  local what=$1 sub=$words[1] model='' tag='' signature='' pending='' w kind
  local i n=0
  shift
  for ((i = 2; i < CURRENT; i++)); do
    w=$words[i]
    if [[ -n $pending ]]; then
      kind=$(_dfg_kind $sub $pending)
      [[ $kind == tag ]] && tag=$w
      [[ $kind == signature ]] && signature=$w
      pending=''
    elif [[ $w == --*=* ]]; then
      kind=$(_dfg_kind $sub ${w%%=*})
      [[ $kind == tag ]] && tag=${w#*=}
      [[ $kind == signature ]] && signature=${w#*=}
    elif [[ $w == -?* ]]; then
      kind=$(_dfg_kind $sub $w) && [[ $kind != flag ]] && pending=$w
    else
      ((++n == 1)) && model=$w
    fi
  done
  if [[ -z $model ]]; then
    _message "$what (give the SavedModel first)"
    return 1
  fi
  model=${(Q)model}
  model=${model/#\~/$HOME}
  tag=${(Q)tag}
  signature=${(Q)signature}
  local -a args keys expl
  args=(--list-tags ${(q)model})
  [[ $what == signature ]] &&
    args=(--list-signatures ${(q)model} ${tag:+--tag ${(q)tag}})
  [[ $what == inputs || $what == outputs ]] &&
    args=(--list-$what ${(q)model} ${tag:+--tag ${(q)tag}}
      ${signature:+--signature ${(q)signature}})
  keys=(${(f)"$(_call_program $what ${(q)_dfg_command} completion $args \
    2>/dev/null)"})
  _wanted $what expl $what compadd "$@" -a keys
}
_dfg_signatures() { _dfg_saved_model_keys signature }
_dfg_tags() { _dfg_saved_model_keys tag }
_dfg_fetch() { _dfg_saved_model_keys outputs }

# KEY=FILE: an input key (then '='), then a file or a made input.
_dfg_feed() {
  if compset -P '*='; then
    _alternative 'files:file:_files' 'generated:made input:(zeros ones random)'
  else
    _dfg_saved_model_keys inputs -S '='
  fi
}

# NAME=FILE: a file name after the '='.
_dfg_assign_file() {
  if compset -P '*='; then
    _files
  else
    _message 'NAME=FILE'
  fi
}

# A value, or @FILE: a file name after the '@'.
_dfg_at_file() {
  if compset -P '@'; then
    _files
  else
    _message 'a value, or @FILE'
  fi
}
)sh";

// `text` for the inside of an _arguments [description].
std::string ZshDescription(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '[' || c == ']' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string ZshAction(const ValueHint& hint) {
  switch (hint.kind) {
    case ValueKind::kFile:
      return "_files";
    case ValueKind::kDirectory:
      return "_files -/";
    case ValueKind::kAssignFile:
      return "_dfg_assign_file";
    case ValueKind::kAtFile:
      return "_dfg_at_file";
    case ValueKind::kSignature:
      return "_dfg_signatures";
    case ValueKind::kMetaGraphTag:
      return "_dfg_tags";
    case ValueKind::kFeed:
      return "_dfg_feed";
    case ValueKind::kFetch:
      return "_dfg_fetch";
    case ValueKind::kChoice:
      return fmt::format("({})", fmt::join(hint.choices, " "));
    default:
      return " ";
  }
}

// The _arguments specs of `command`'s options and positionals, one a line.
std::string ZshSpecs(const CommandSpec& command, bool root) {
  std::string out;
  for (const OptionSpec& o : command.options) {
    std::string exclusion = root ? "(- *)"
                            : o.repeatable
                                ? "*"
                                : fmt::format("({})", fmt::join(o.names, " "));
    bool flag = o.hint.kind == ValueKind::kFlag;
    std::string message =
        o.names.back().substr(o.names.back().find_first_not_of('-'));
    for (const std::string& name : o.names) {
      std::string spec = exclusion + name +
                         (flag             ? ""
                          : name[1] == '-' ? "="
                                           : "+") +
                         "[" + ZshDescription(o.description) + "]";
      if (!flag) spec += ":" + message + ":" + ZshAction(o.hint);
      out += " \\\n    " + ShellQuote(spec);
    }
  }
  for (size_t i = 0; i < command.positionals.size(); ++i) {
    const OptionSpec& p = command.positionals[i];
    out += " \\\n    " + ShellQuote(fmt::format("{}:{}:{}", i + 1, p.names[0],
                                                ZshAction(p.hint)));
  }
  return out;
}

}  // namespace

std::string ZshCompletionScript(CLI::App& root) {
  std::vector<CommandSpec> commands = Commands(root);
  std::string out =
      "#compdef dfg\n"
      "# zsh completion for dfg, generated by `dfg completion zsh` from "
      "dfg's own\n# option definitions. Enable it by installing it as _dfg "
      "in a directory of\n# $fpath before compinit runs, or with "
      "`source <(dfg completion zsh)`\n# after compinit.\n\n" +
      KindFunction(commands) + kZshHelpers;
  out +=
      "\n_dfg() {\n"
      "  local curcontext=$curcontext state state_descr line ret=1\n"
      "  local _dfg_command=$words[1]\n"
      "  typeset -A opt_args\n"
      "  _arguments -C" +
      ZshSpecs(commands[0], /*root=*/true) +
      " \\\n    '1: :->subcommand' '*:: :->args' && ret=0\n"
      "  case $state in\n"
      "    subcommand)\n"
      "      local -a subcommands\n"
      "      subcommands=(";
  for (size_t i = 1; i < commands.size(); ++i) {
    out += "\n        " +
           ShellQuote(commands[i].name + ":" + commands[i].description);
  }
  out +=
      "\n      )\n"
      "      _describe -t subcommands 'dfg subcommand' subcommands && ret=0 "
      ";;\n"
      "    args)\n"
      "      curcontext=${curcontext%:*:*}:dfg-$words[1]:\n"
      "      case $words[1] in\n";
  for (size_t i = 1; i < commands.size(); ++i) {
    out += fmt::format("        {})\n          _arguments{} && ret=0 ;;\n",
                       ShellQuote(commands[i].name),
                       ZshSpecs(commands[i], /*root=*/false));
  }
  out +=
      "      esac ;;\n"
      "  esac\n"
      "  return ret\n"
      "}\n\n"
      "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
      "  _dfg \"$@\"\n"
      "else\n"
      "  compdef _dfg dfg\n"
      "fi\n";
  return out;
}

}  // namespace dfg
