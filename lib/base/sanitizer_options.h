// The sanitizers' default options for dfg's executables. Included once by
// each main file (the dfg binary's and the tests' Catch2 main): the runtime
// reads these before the environment's ASAN_OPTIONS, which can override them.
//
// handle_sigill=1: with -fsanitize-undefined-trap-on-error (DFG_UBSAN_TRAP,
// on by default) a failed UBSan check executes an illegal instruction at the
// checked line; AddressSanitizer then reports it with the stack, as it
// reports a bad access.
#ifndef DFG_LIB_BASE_SANITIZER_OPTIONS_H_
#define DFG_LIB_BASE_SANITIZER_OPTIONS_H_

#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "handle_sigill=1"; }
#endif

#endif  // DFG_LIB_BASE_SANITIZER_OPTIONS_H_
