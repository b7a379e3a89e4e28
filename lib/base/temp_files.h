// Temporary files that must not outlive the process: the atomic writers
// (lib/io, the checkpoint writer) register a temporary file while it is
// being written and unregister it once it is renamed into place or removed.
// A signal that ends the process (SIGTERM, SIGINT, SIGHUP) removes whatever
// is registered before the process dies, and SIGXFSZ is ignored so that
// passing RLIMIT_FSIZE fails the write (EFBIG), which removes its temporary
// file, instead of killing the process and leaving it behind.
#ifndef DFG_LIB_BASE_TEMP_FILES_H_
#define DFG_LIB_BASE_TEMP_FILES_H_

#include <string>

namespace dfg {

// Registers `path` for removal on a fatal signal; returns a slot for
// UnregisterTempFile, or -1 when all slots are taken or the path is too
// long (the file is then only removed on ordinary failure). Thread-safe.
int RegisterTempFile(const std::string& path);
void UnregisterTempFile(int slot);

// Installs the signal handlers described above, once per process (the dfg
// binary's main; tests that run DfgMain in-process do not). A handler
// installed later for the same signal (the server's graceful stop) replaces
// this one.
void InstallTempFileCleanup();

// Removes every registered file now (what the handler does); for tests.
void RemoveRegisteredTempFiles();

}  // namespace dfg

#endif  // DFG_LIB_BASE_TEMP_FILES_H_
