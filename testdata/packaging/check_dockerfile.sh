#!/usr/bin/env bash
# check_dockerfile.sh BUILD_DIR SOURCE_DIR VERSION: packaging/Dockerfile
# builds an image from the .deb `cpack -G DEB` makes, and the image runs dfg
# as a non-root user, reading TF_CONFIG. Needs a container builder that
# works here: docker (with its daemon), podman or buildah. Without one it
# says so and exits 77 (CTest's skip); CI needs none.
set -uo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
version=$3

builder=()
runner=()
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  builder=(docker build) runner=(docker run --rm)
elif command -v podman >/dev/null && podman info >/dev/null 2>&1; then
  builder=(podman build) runner=(podman run --rm)
elif command -v buildah >/dev/null && buildah info >/dev/null 2>&1; then
  builder=(buildah bud)  # builds only; buildah runs no images
else
  echo "skipped: no container builder works here (docker with a running daemon," \
       "podman or buildah); packaging/Dockerfile not built"
  exit 77
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/dfg-image.XXXXXX")
tag=dfg-check:$version-$$
cleanup() {
  [[ ${#runner[@]} -gt 0 ]] && "${runner[0]}" rmi -f "$tag" >/dev/null 2>&1
  rm -rf "$out"
}
trap cleanup EXIT
if ! log=$(cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out/cpack" 2>&1); then
  echo "$log" >&2
  echo "FAIL: cpack -G DEB" >&2
  exit 1
fi
mkdir "$out/context"
cp "$out"/cpack/dfg_"$version"_*.deb "$out/context/" || { echo "FAIL: no .deb" >&2; exit 1; }
echo "building with ${builder[*]}"
if ! "${builder[@]}" -f "$source_dir/packaging/Dockerfile" -t "$tag" "$out/context"; then
  echo "FAIL: ${builder[*]} packaging/Dockerfile" >&2
  exit 1
fi
if [[ ${#runner[@]} -eq 0 ]]; then
  echo "image built (buildah cannot run it: the run checks are skipped)"
  exit 0
fi

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
got=$("${runner[@]}" "$tag" --version 2>&1) || fail "dfg --version in the image: $got"
[[ $got == *"$version"* ]] || fail "dfg --version says '$got', not $version"
uid=$("${runner[@]}" --entrypoint id "$tag" -u 2>&1)
[[ $uid =~ ^[0-9]+$ && $uid != 0 ]] || fail "the image runs as uid '$uid'"
tf_config='{"cluster": {"worker": ["127.0.0.1:2222"]}, "task": {"type": "worker", "index": 0}}'
got=$("${runner[@]}" -e TF_CONFIG="$tf_config" "$tag" server --print-config 2>&1)
[[ $got == *'"listen":"127.0.0.1:2222"'* ]] || fail "dfg server --print-config: $got"
if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "image: all checks passed"
