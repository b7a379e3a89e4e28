// The dfg binary: a shim over DfgMain.
#include <unistd.h>

#include <iostream>

#include "cli/dfg_main.h"
#include "lib/base/sanitizer_options.h"  // once per executable
#include "lib/base/temp_files.h"
#include "lib/kernels/blas_threads.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  dfg::UseSingleThreadedBlas();
  dfg::InstallTempFileCleanup();  // no .tmp- files left by a kill
  dfg::Io io;
  io.in = &std::cin;
  io.out = &std::cout;
  io.err = &std::cerr;
  io.stdin_is_terminal = isatty(STDIN_FILENO) != 0;
  io.stdout_is_terminal = isatty(STDOUT_FILENO) != 0;
  io.stderr_is_terminal = isatty(STDERR_FILENO) != 0;
  io.exits_after = true;  // returns from main right after
  int code = dfg::DfgMain(argc, argv, io);
  std::cout.flush();
  return code;
}
