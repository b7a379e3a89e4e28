// A signed overflow for ubsan_trap_test.sh: with DFG_UBSAN_TRAP the check
// traps on the line of the addition and AddressSanitizer reports it.
#include <cstdio>

#include "lib/base/sanitizer_options.h"  // once per executable

namespace {

int Add(int a, int b) {
  return a + b;  // the overflow (ubsan_trap_test.sh expects this line, 10)
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("%d\n", Add(2147483647, argc));
  return 0;
}
