#!/usr/bin/env bash
# Fails when a Catch2 test name would not survive catch_discover_tests as one
# CTest test: CMake splits the listed names at ';', an unbalanced '[' or ']'
# joins every name up to the next bracket into one list element (one CTest
# test of dozens of names), Catch2 reads '\' in a name as an escape, and a
# name starting with '-' as an option ("-o x" writes the report to file x).
#
#   catch_test_names.sh TEST_BINARY...
set -euo pipefail
status=0
for binary in "$@"; do
  bad=$("$binary" --list-test-names-only | grep -e '[][;\\]' -e '^-' || true)
  if [ -n "$bad" ]; then
    echo "$(basename "$binary"): rename (no ';', '[', ']' or '\\', no leading '-'):" >&2
    echo "$bad" | sed 's/^/  /' >&2
    status=1
  fi
done
exit $status
