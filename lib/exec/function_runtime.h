// Library functions at run time (TensorFlow's FunctionLibraryRuntime,
// trimmed): a FunctionDef instantiated with a call's attrs becomes a graph
// of _Arg → body → _Retval nodes, which an executor runs on the calling
// thread for If/Case/While/PartitionedCall and calls by op name.
//
// A call of an instantiated function allocates nothing of its own: the args
// are read in place, the results are written straight into the caller's
// vector, and the executor's step state is reused from call to call.
#ifndef DFG_LIB_EXEC_FUNCTION_RUNTIME_H_
#define DFG_LIB_EXEC_FUNCTION_RUNTIME_H_

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/base/status.h"
#include "lib/exec/executor.h"
#include "lib/graph/function_instantiate.h"
#include "lib/kernels/function_interface.h"
#include "lib/proto/function.pb.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

// While an observed step (--stats, --trace) computes a node on this thread,
// the functions that node calls report their nodes to the step's observer,
// named under the node ("call/loop/mul", as TensorFlow's step stats name a
// function body's nodes). The executor sets it around such a node's
// Compute; function calls run on the calling thread, so a thread-local
// reaches them without a field in every kernel's StepServices.
class ObservedCallScope {
 public:
  ObservedCallScope(ExecutionObserver* observer, const Node* node,
                    const std::string& device);
  ~ObservedCallScope();
  ObservedCallScope(const ObservedCallScope&) = delete;
  ObservedCallScope& operator=(const ObservedCallScope&) = delete;

  ExecutionObserver* observer() const { return observer_; }
  const Node* node() const { return node_; }
  const std::string& device() const { return device_; }
  // The scope of the innermost node computing on this thread, or null.
  static const ObservedCallScope* Current();

 private:
  ExecutionObserver* observer_;
  const Node* node_;
  const std::string& device_;
  const ObservedCallScope* outer_;
};

class FunctionRuntime : public FunctionCallInterface {
 public:
  // `options` are the calling executor's (device, device type); nested
  // executors share `library`.
  FunctionRuntime(std::shared_ptr<const tensorflow::FunctionDefLibrary> library,
                  ExecutorOptions options);
  ~FunctionRuntime() override;

  StatusOr<FunctionHandle> Instantiate(
      const tensorflow::NameAttrList& fn) override;
  Status Run(FunctionHandle fn, const StepServices& step,
             std::span<const Tensor> args, std::vector<Tensor>* rets) override;

 private:
  std::shared_ptr<const tensorflow::FunctionDefLibrary> library_;
  ExecutorOptions options_;
  std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<FunctionInstance>> instances_;
};

}  // namespace dfg

#endif  // DFG_LIB_EXEC_FUNCTION_RUNTIME_H_
