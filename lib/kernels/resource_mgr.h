// Variables that live across steps: TensorFlow's ResourceMgr reduced to the
// one resource kind dfg runs, `Var`. Keyed by (container, name); the session
// owns one ResourceMgr per device and hands it to every step.
//
// VariableV2 (ref variables) and VarHandleOp/AssignVariableOp/ReadVariableOp
// (resource variables) both store their value in a Var.
#ifndef DFG_LIB_KERNELS_RESOURCE_MGR_H_
#define DFG_LIB_KERNELS_RESOURCE_MGR_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "lib/base/status.h"
#include "lib/graph/types.h"
#include "lib/kernels/tensor.h"

namespace dfg {

// A variable: its value and the mutex ref kernels (Assign, Identity on a ref)
// take while reading or writing it. `tensor` is uninitialized (no buffer)
// until the first assignment; `is_initialized` says so explicitly (resource
// variables).
class Var {
 public:
  explicit Var(DataType dtype) : tensor_(dtype) {}

  std::mutex* mu() { return &mu_; }
  Tensor* tensor() { return &tensor_; }  // guarded by mu()
  bool is_initialized = false;           // guarded by mu()

 private:
  std::mutex mu_;
  Tensor tensor_;
};

class ResourceMgr {
 public:
  // Where resources go when a node's `container` attr is empty.
  explicit ResourceMgr(std::string default_container = "localhost")
      : default_container_(std::move(default_container)) {}

  const std::string& default_container() const { return default_container_; }

  // The Var (container, name); created with `dtype` if absent. Thread-safe.
  // An existing Var of another dtype: kInvalidArgument (TF's "Trying to
  // share variable <name>, but specified dtype <dt> and found dtype <dt>.").
  StatusOr<std::shared_ptr<Var>> LookupOrCreate(const std::string& container,
                                                const std::string& name,
                                                DataType dtype);
  // kNotFound "Resource <container>/<name>/N10tensorflow3VarE does not
  // exist." (TF's wording) when absent.
  StatusOr<std::shared_ptr<Var>> Lookup(const std::string& container,
                                        const std::string& name) const;
  // Removes every resource of `container` (missing container: no-op).
  void Cleanup(const std::string& container);

 private:
  std::string default_container_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Var>> vars_;
};

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_RESOURCE_MGR_H_
