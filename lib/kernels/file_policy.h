// Which filesystem paths kernels may touch. A `dfg server` runs graphs that
// arrive over the network, and TensorFlow's file ops (SaveV2, RestoreV2,
// MergeV2Checkpoints, ReadFile, WriteFile, MatchingFiles, the text-file table
// initializers, ...) would otherwise read and write anything the server's
// user can. A FilePolicy confines them to the directories the operator names
// (`dfg server --allow-path DIR`); with none, every path is refused.
//
// Kernels never see the policy itself: every kernel that reads, writes,
// lists or deletes a path calls CheckPath(*ctx, path) first (with its
// OpKernelContext, or its OpKernelConstruction for a path in an attr) and
// returns its error. The executor puts its ExecutorOptions::file_policy in
// force on the thread that builds its kernels and on each thread while it
// computes nodes (ScopedFilePolicy), so CheckPath must be called on the
// thread running Compute (or the constructor), never from an intra-op
// worker. No policy in force (local `dfg run`: the user's own files)
// allows everything.
//
// A path is resolved before it is compared: made absolute, then the longest
// prefix that exists is resolved with realpath (so symlinks are followed
// where they point), and the rest must not contain "..". The resolved path
// must be an allowed directory or lie beneath one. What the check cannot
// see: a symlink created after the check and before the open (no graph op
// creates symlinks; the operator's own processes could).
#ifndef DFG_LIB_KERNELS_FILE_POLICY_H_
#define DFG_LIB_KERNELS_FILE_POLICY_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"

namespace dfg {

class OpKernelConstruction;
class OpKernelContext;

class FilePolicy {
 public:
  // Allows the directories `dirs` (each resolved now) and what is beneath
  // them; `dirs` empty refuses every path. `hint` ends the refusal message
  // (what the operator can do, e.g. "allow it with dfg server --allow-path
  // DIR"). Errors: a directory that does not exist or is not a directory
  // (kInvalidArgument).
  static StatusOr<std::shared_ptr<const FilePolicy>> Create(
      const std::vector<std::string>& dirs, std::string hint);

  // OK when `path` resolves inside an allowed directory. Else
  // kPermissionDenied "<op>: access to '<path>' is refused: ...<hint>".
  Status Check(std::string_view op, const std::string& path) const;

  // Resolves `path` as Check does: absolute, the existing prefix through
  // realpath, no ".." after it. Errors: kPermissionDenied for a ".." that
  // cannot be resolved.
  static StatusOr<std::string> Resolve(const std::string& path);

  const std::vector<std::string>& allowed() const { return allowed_; }

 private:
  FilePolicy(std::vector<std::string> allowed, std::string hint)
      : allowed_(std::move(allowed)), hint_(std::move(hint)) {}
  std::vector<std::string> allowed_;  // resolved, no trailing '/'
  std::string hint_;
};

// The kernel-side check: OK when no policy is in force on this thread,
// else FilePolicy::Check with the kernel's op.
Status CheckPath(const OpKernelContext& ctx, const std::string& path);
Status CheckPath(const OpKernelConstruction& ctx, const std::string& path);

// Puts `policy` (Not owned; null: any path) in force on this thread until
// destroyed, then restores the one before (executors nest: a function call
// runs an executor inside a kernel).
class ScopedFilePolicy {
 public:
  explicit ScopedFilePolicy(const FilePolicy* policy);
  ~ScopedFilePolicy();
  ScopedFilePolicy(const ScopedFilePolicy&) = delete;
  ScopedFilePolicy& operator=(const ScopedFilePolicy&) = delete;

 private:
  const FilePolicy* previous_;
};

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_FILE_POLICY_H_
