#!/usr/bin/env bash
# check_install.sh BUILD_DIR SOURCE_DIR: `cmake --install` into a temporary
# prefix puts exactly bin/dfg, the man pages, the completion scripts and the
# licence there; `man -w` finds the pages; the installed bash completion
# loads and completes subcommands, flags, choices, files and signature keys;
# the zsh script parses and registers with compinit.
set -uo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
prefix=$(mktemp -d "${TMPDIR:-/tmp}/dfg-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

cmake --install "$build" --prefix "$prefix" >/dev/null || {
  echo "FAIL: cmake --install" >&2
  exit 1
}

# Exactly these files.
expected=(bin/dfg share/bash-completion/completions/dfg
          share/zsh/site-functions/_dfg)
for page in "$source_dir"/man/man1/dfg*.1; do
  expected+=("share/man/man1/$(basename "$page")")
done
[[ -f $source_dir/LICENSE ]] && expected+=(share/doc/dfg/LICENSE)
diff <(printf '%s\n' "${expected[@]}" | sort) \
     <(cd "$prefix" && find . -type f -o -type l | sed 's|^\./||' | sort) ||
  fail "installed files differ from the expected list (< expected, > installed)"
[[ -x $prefix/bin/dfg ]] || fail "bin/dfg is not executable"

# The installed scripts are what the installed dfg prints.
cmp -s "$prefix/share/bash-completion/completions/dfg" \
  <("$prefix/bin/dfg" completion bash) || fail "bash script differs from 'dfg completion bash'"
cmp -s "$prefix/share/zsh/site-functions/_dfg" \
  <("$prefix/bin/dfg" completion zsh) || fail "zsh script differs from 'dfg completion zsh'"

# man finds the pages through MANPATH.
for page in dfg dfg-run dfg-completion; do
  found=$(MANPATH=$prefix/share/man man -w "$page" 2>&1)
  [[ $found == "$prefix/share/man/man1/$page.1" ]] ||
    fail "MANPATH=... man -w $page gave '$found'"
done

# Bash: the installed file registers _dfg for dfg, and completes.
PATH=$prefix/bin:$PATH prefix=$prefix source_dir=$source_dir \
  bash --norc --noprofile "$source_dir/testdata/install/check_bash_completion.sh" ||
  fail "bash completion (above)"

# Zsh, when it is there: the script parses, and compinit picks it up from
# $fpath for the dfg command.
if command -v zsh >/dev/null; then
  zsh -n "$prefix/share/zsh/site-functions/_dfg" || fail "zsh -n _dfg"
  home=$(mktemp -d)
  got=$(HOME=$home ZDOTDIR=$home zsh -f -c "
    fpath=('$prefix/share/zsh/site-functions' \$fpath)
    autoload -Uz compinit && compinit -u -d '$home/zcompdump'
    print -r -- \"\${_comps[dfg]}\"
    source '$prefix/share/zsh/site-functions/_dfg'
    _dfg_kind dot --rankdir" 2>&1)
  rm -rf "$home"
  [[ $got == $'_dfg\nchoice TB LR' ]] || fail "zsh compinit/_dfg_kind gave '$got'"
  # What zsh offers, typed into an interactive zsh.
  zexpect() {
    local line=$1 want got
    shift
    want=$(printf '%s\n' "$@" | sort)
    got=$(cd "$source_dir" && PATH=$prefix/bin:$PATH timeout 20 zsh -f \
      "$source_dir/testdata/install/zsh_complete.zsh" \
      "$prefix/share/zsh/site-functions" "$line" | grep . | sort -u)
    if [[ $got == "$want" ]]; then
      echo "ok (zsh): '$line<TAB>' -> $(echo $got)"
    else
      fail "zsh: '$line<TAB>' gave [$(echo $got)], want [$(echo $want)]"
    fi
  }
  zexpect 'dfg ru' run
  zexpect 'dfg dot --rankdir ' LR TB
  zexpect 'dfg dot --cluster=' auto device none scope
  zexpect 'dfg run --feed x=testdata/models/mlp_in' mlp_input.npy
  zexpect 'dfg run --tim' --timeout-ms
  zexpect 'dfg partition --devices @testdata/models/mlp_in' mlp_input.npy
  zexpect 'dfg completion ' bash zsh
  zexpect 'dfg info testdata/models/assign_saved_model.pb --meta-graph-tag=' serve
  zexpect 'dfg run --sig' --signature
  zexpect 'dfg run testdata/models/assign_saved_model.pb --signature ' serving_default
else
  echo "note: zsh is not installed; the zsh script was not checked"
fi

if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "install: all checks passed"
