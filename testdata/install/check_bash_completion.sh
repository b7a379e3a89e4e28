#!/usr/bin/env bash
# Run by check_install.sh with $prefix (the install prefix, its bin/ first on
# PATH) and $source_dir: drives the installed bash completion the way bash
# does (COMP_LINE, COMP_POINT, COMP_WORDS, COMP_CWORD, then the function
# `complete -p dfg` names) and checks COMPREPLY.
set -u
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
cd "$source_dir" || exit 1

source "$prefix/share/bash-completion/completions/dfg"
registered=$(complete -p dfg) || fail "complete -p dfg: nothing registered"
[[ $registered == 'complete -F _dfg dfg' ]] || fail "complete -p dfg gave '$registered'"
function=${registered#complete -F }
function=${function%% *}

# complete LINE [nosplit]: COMPREPLY, sorted, one a line, with the cursor at
# the end of LINE. COMP_WORDS splits at '=' and ':' as bash does with its
# default COMP_WORDBREAKS, unless nosplit.
complete_line() {
  local line=$1 mode=${2:-split} bword
  COMP_LINE=$line
  COMP_POINT=${#line}
  read -ra COMP_WORDS <<<"$line"
  [[ $line == *' ' ]] && COMP_WORDS+=('')
  if [[ $mode == split ]]; then
    bword=${COMP_WORDS[-1]}
    if [[ $bword == *[=:] ]]; then
      COMP_WORDS[-1]=${bword: -1}
    elif [[ $bword == *[=:]* ]]; then
      COMP_WORDS[-1]=${bword##*[=:]}
    fi
  fi
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  "$function" dfg "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  ((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}" | sort
}

# expect LINE WORDS... [-- nosplit]: the completions are exactly WORDS.
expect() {
  local line=$1 mode=split
  shift
  if [[ ${*: -1} == nosplit ]]; then
    mode=nosplit
    set -- "${@:1:$#-1}"
  fi
  local want got
  want=$( (($# == 0)) || printf '%s\n' "$@" | sort)
  got=$(complete_line "$line" "$mode")
  if [[ $got == "$want" ]]; then
    echo "ok: '$line<TAB>' -> $(echo $got)"
  else
    fail "'$line<TAB>' ($mode) gave [$(echo $got)], want [$(echo $want)]"
  fi
}

expect 'dfg ru' run
expect 'dfg --v' --version
expect 'dfg run --tim' --timeout-ms
expect 'dfg dot --cluster ' auto device scope none
expect 'dfg dot --rankdir=' TB LR
expect 'dfg dot --rankdir=' --rankdir=TB --rankdir=LR nosplit
expect 'dfg dot -f ' dot svg png pdf
expect 'dfg prune -f p' pbtxt pb
expect 'dfg partition --by ' device worker
expect 'dfg completion ' bash zsh
expect 'dfg info testdata/models/assign_saved' testdata/models/assign_saved_model.pb
expect 'dfg prune testdata/models/mlp.pbtxt --fetch ' # a tensor name: nothing
expect 'dfg run --output-dir testdata/mod' testdata/models
expect 'dfg run --feed x=testdata/models/mlp_in' testdata/models/mlp_input.npy
expect 'dfg run --feed x=testdata/models/mlp_in' x=testdata/models/mlp_input.npy nosplit
expect 'dfg place --devices @testdata/models/mlp_in' @testdata/models/mlp_input.npy
expect 'dfg place --devices cpu:' # a device name: nothing
expect 'dfg run -o' # run has no -o
expect 'dfg info testdata/models/assign_saved_model.pb --meta-graph-tag ' serve
expect 'dfg info --meta-graph-tag=' # no model yet: nothing
expect 'dfg completion --list' # hidden

# Every subcommand is offered, and each offers exactly the options its
# --help lists.
subcommands=$(dfg --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
expect 'dfg ' $subcommands
[[ $subcommands == *completion* ]] || fail "dfg --help lists no subcommands"
for sub in $subcommands; do
  # The option lines of every group (CLI11: a "Group:" line, then lines
  # like "  -o,--output TEXT  ...", then a blank line), not the positionals
  # nor the footer's prose.
  name='(-[A-Za-z0-9]|--[-A-Za-z0-9]+)'
  options=$(dfg "$sub" --help |
    awk '/^[^ ].*:$/ {group = $0 != "Positionals:" && $0 != "Subcommands:"; next}
         /^$/ {group = 0}
         group' |
    grep -oE "^  +$name(,$name)*( |\$)" | tr ',' '\n' | tr -d ' ')
  expect "dfg $sub -" $options
done

# The signature keys of the model on the line. Needs run's --signature
# (the savedmodel work), defined as HintSignature(sub->add_option(...)).
expect 'dfg run --sig' --signature
expect 'dfg run testdata/models/assign_saved_model.pb --signature ' serving_default
expect 'dfg run --meta-graph-tag serve testdata/models/assign_saved_model.pb --signature s' serving_default
expect 'dfg run --signature ' # no model yet: nothing
expect 'dfg freeze testdata/models/assign_saved_model.pb --signature ' serving_default

# --feed and --fetch: the keys of the signature on the line (--signature,
# else serving_default), or a plain graph's placeholders and outputs; after
# --feed KEY=, a file or a made input.
expect 'dfg run testdata/models/assign_saved_model.pb --feed ' X= nosplit
expect 'dfg run testdata/models/assign_saved_model.pb --fetch ' output
expect 'dfg run testdata/savedmodels/affine --signature square --feed ' input= nosplit
expect 'dfg run testdata/savedmodels/affine --signature=square --fetch s' squared
expect 'dfg run testdata/models/mlp.pbtxt --feed ' x= nosplit
expect 'dfg run testdata/models/mlp.pbtxt --feed x=ra' random
expect 'dfg run --fetch ' # no model yet: nothing

# A SavedModel directory from ../shared, with five signatures.
half_plus_two=../shared/savedmodels/tfserving__saved_model_half_plus_two_cpu/00000123
if [[ -d $half_plus_two ]]; then
  expect "dfg run $half_plus_two --signature " classify_x_to_y regress_x2_to_y3 \
    regress_x_to_y regress_x_to_y2 serving_default
  expect "dfg freeze $half_plus_two --signature=regress_x_" \
    regress_x_to_y regress_x_to_y2
  expect "dfg info $half_plus_two --meta-graph-tag " serve
  # A TF2 SavedModel: its init-op signature is not one to run.
  times_three=../shared/savedmodels/tfjs__times_three_float
  expect "dfg run $times_three --signature " serving_default
  expect "dfg run $times_three --fetch " output_0
elif [[ ${DFG_REQUIRE_SHARED-} == 1 ]]; then
  fail "$half_plus_two is missing (DFG_REQUIRE_SHARED=1)"
else
  echo "note: $half_plus_two is absent; SavedModel directory checks skipped"
fi

if ((failures > 0)); then
  echo "$failures bash completion check(s) failed" >&2
  exit 1
fi
