#!/bin/sh
# The sanitizer build reports undefined behaviour: ubsan_trap_probe overflows
# an int, and must stop with AddressSanitizer's report of the trap at the
# line of the addition (not print a wrapped sum and succeed).
#   sh lib/base/ubsan_trap_test.sh build-asan/ubsan_trap_probe
probe=${1:?usage: ubsan_trap_test.sh PROBE}
out=$("$probe" 2>&1) && { echo "FAIL: the overflow ran to the end: $out"; exit 1; }
for want in "AddressSanitizer: ILL" "ubsan_trap_probe.cc:10"; do
  case $out in
    *"$want"*) ;;
    *) echo "FAIL: no '$want' in the report:"; echo "$out"; exit 1 ;;
  esac
done
echo "PASS: the overflow was reported at ubsan_trap_probe.cc:10"
