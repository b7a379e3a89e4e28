#!/usr/bin/env bash
# check_deb.sh BUILD_DIR SOURCE_DIR VERSION: `cpack -G DEB` makes
# dfg_VERSION_ARCH.deb whose Depends (from dpkg-shlibdeps) names only runtime
# packages, with the fields set, holding exactly dfg's installed files.
set -uo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
version=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/dfg-deb.XXXXXX")
trap 'rm -rf "$out"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

if ! log=$(cd "$out" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" 2>&1); then
  echo "$log" >&2
  echo "FAIL: cpack -G DEB" >&2
  exit 1
fi
deb=$out/dfg_${version}_$(dpkg --print-architecture).deb
if [[ ! -f $deb ]]; then
  echo "FAIL: no $(basename "$deb"); cpack made: $(cd "$out" && ls ./*.deb 2>/dev/null)" >&2
  exit 1
fi
echo "built $(basename "$deb") ($(stat -c %s "$deb") bytes)"

field() { dpkg-deb -f "$deb" "$1"; }
depends=$(field Depends)
echo "Depends: $depends"
[[ -n $depends ]] || fail "no Depends field"
[[ $depends == *libc6* ]] || fail "Depends lacks libc6 (dpkg-shlibdeps did not run?)"
# DecodeJxl opens libjxl at run time: packaging/install.cmake names its package.
[[ $depends == *libjxl* ]] || fail "Depends lacks libjxl (opened, not linked)"
for dep in $(echo "$depends" | tr ',|' '\n\n' | awk '{print $1}'); do
  [[ $dep == *-dev ]] && fail "Depends names a development package: $dep"
done
[[ $(field Package) == dfg ]] || fail "Package is '$(field Package)'"
[[ $(field Version) == "$version" ]] || fail "Version is '$(field Version)'"
[[ $(field Section) == devel ]] || fail "Section is '$(field Section)'"
[[ $(field Maintainer) == *@* ]] || fail "Maintainer is '$(field Maintainer)'"
synopsis=$(field Description | head -1)
[[ -n $synopsis && ${#synopsis} -lt 80 ]] || fail "Description synopsis: '$synopsis'"
[[ $(field Description | sed -n 2p) == *"dfg reimplements"* ]] ||
  fail "no extended Description"

# apt can satisfy Depends from the archive (a simulation; needs apt's lists).
if [[ $(apt-cache policy libc6 2>/dev/null) == *"Candidate: "[0-9]* ]]; then
  apt-get install -s "$deb" >"$out/apt.log" 2>&1 ||
    fail "apt-get install -s $(basename "$deb"): $(tail -5 "$out/apt.log")"
else
  echo "note: apt has no package lists here; apt-get install -s not tried"
fi

expected=(./usr/bin/dfg ./usr/share/bash-completion/completions/dfg
          ./usr/share/zsh/site-functions/_dfg)
for page in "$source_dir"/man/man1/dfg*.1; do
  expected+=("./usr/share/man/man1/$(basename "$page")")
done
[[ -f $source_dir/LICENSE ]] && expected+=(./usr/share/doc/dfg/LICENSE)
diff <(printf '%s\n' "${expected[@]}" | sort) \
     <(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sort) ||
  fail "package files differ from the expected list (< expected, > packaged)"

if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "deb: all checks passed"
