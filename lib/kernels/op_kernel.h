// The kernel interface the executor drives (TensorFlow's OpKernel,
// AsyncOpKernel, OpKernelConstruction and OpKernelContext, trimmed).
//
// A kernel is built once per node (KernelRegistry::CreateKernel) and then
// computed once per step (and per loop iteration), possibly concurrently from
// several threads: Compute must not mutate the kernel.
//
// Per execution the executor fills an OpKernelContext::Params on its stack
// (pointers to its own input values and output slots, the step's services),
// constructs an OpKernelContext over it (no allocation), calls Compute, then
// reads ctx.status() and the outputs. The contract with the executor:
//  - Dead nodes are not computed, except _Send/_HostSend/_Recv/_HostRecv,
//    which are computed with Params::is_input_dead = true.
//  - Inputs whose kernel input type is not a ref are passed as values: if the
//    producer gave a ref (VariableV2 → Identity), the executor dereferences it
//    first with DerefRefInput below (copy under the mutex; uninitialized →
//    "Attempting to use uninitialized value <input>").
//  - Outputs: the kernel sets each output once through set_output /
//    set_output_ref / allocate_output. Only Switch (one port) and the dead
//    paths of _Recv/Merge may leave outputs unset; the executor checks the
//    rest ("Missing <i>-th output from {{node n}}", type mismatches).
//  - Errors: the kernel calls SetStatus / DFG_OP_REQUIRES with a plain
//    message; the executor adds the node with AttachNodeDef, giving
//    TensorFlow's "<msg>\n\t [[{{node n}}]]".
#ifndef DFG_LIB_KERNELS_OP_KERNEL_H_
#define DFG_LIB_KERNELS_OP_KERNEL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/types.h"
#include "lib/kernels/call_frame_interface.h"
#include "lib/kernels/function_interface.h"
#include "lib/kernels/intra_op_pool.h"
#include "lib/kernels/rendezvous_interface.h"
#include "lib/kernels/resource_mgr.h"
#include "lib/kernels/tensor.h"
#include "lib/proto/node_def.pb.h"

namespace dfg {

using tensorflow::NodeDef;

class AsyncOpKernel;
class OpKernelContext;

// Construction-time view of a node: its NodeDef, its resolved input/output
// dtypes, attr access. A kernel constructor that finds bad attrs calls
// SetStatus (or DFG_OP_REQUIRES) and returns; CreateKernel then fails with
// "<msg>\n\t [[{{node n}}]]" (TensorFlow's executor logs "Executor failed
// to create kernel." and returns the error without that prefix).
class OpKernelConstruction {
 public:
  OpKernelConstruction(const NodeDef* def, std::string_view device_type,
                       const std::vector<DataType>* input_types,
                       const std::vector<DataType>* output_types);

  const NodeDef& def() const { return *def_; }
  std::string_view device_type() const { return device_type_; }
  int num_inputs() const { return static_cast<int>(input_types_->size()); }
  int num_outputs() const { return static_cast<int>(output_types_->size()); }
  DataType input_type(int i) const { return (*input_types_)[i]; }
  DataType output_type(int i) const { return (*output_types_)[i]; }
  const std::vector<DataType>& input_types() const { return *input_types_; }
  const std::vector<DataType>& output_types() const { return *output_types_; }

  // The NodeDef and the dtype vectors outlive the kernel (an executor's
  // graph, which it keeps as long as its kernels): the kernel refers to
  // them instead of keeping copies. Off by default.
  void set_definition_outlives_kernel(bool outlives) {
    definition_outlives_kernel_ = outlives;
  }
  bool definition_outlives_kernel() const {
    return definition_outlives_kernel_;
  }

  // Reads attr `name`, falling back to the OpDef default when the NodeDef
  // lacks it. Supported T: int64_t, int32_t, float, bool, std::string,
  // DataType, TensorShapeProto, TensorProto, std::vector<int64_t>,
  // std::vector<int32_t>, std::vector<DataType>, std::vector<std::string>.
  // Errors, TF's wording: kNotFound "No attr named '<name>' in NodeDef:",
  // kInvalidArgument "AttrValue had value with type '<t>' when '<u>'
  // expected".
  template <typename T>
  Status GetAttr(std::string_view name, T* value) const;
  bool HasAttr(std::string_view name) const;

  void SetStatus(const Status& s) {
    if (status_.ok()) status_ = s;
  }
  const Status& status() const { return status_; }

 private:
  const NodeDef* def_;  // Not owned.
  std::string_view device_type_;
  const std::vector<DataType>* input_types_;   // Not owned.
  const std::vector<DataType>* output_types_;  // Not owned.
  bool definition_outlives_kernel_ = false;
  Status status_;
};

class OpKernel {
 public:
  // Copies the NodeDef and the dtypes out of `ctx`, or refers to them when
  // they outlive the kernel (OpKernelConstruction::
  // set_definition_outlives_kernel: a million-node graph's kernels then do
  // not hold a second copy of every NodeDef, and a kernel stays a few cache
  // lines that the executor's walk touches).
  explicit OpKernel(OpKernelConstruction* ctx);
  virtual ~OpKernel();
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  // Synchronous kernels compute here. Async kernels implement ComputeAsync.
  virtual void Compute(OpKernelContext* ctx) = 0;
  // Non-null for AsyncOpKernel (_Recv, _HostRecv).
  virtual AsyncOpKernel* AsAsync() { return nullptr; }
  // False for kernels cheap enough to run inline on the executor's thread
  // (forwarding, control flow, constants, scalar bookkeeping).
  bool is_expensive() const { return expensive_; }
  // Const: the value, for executors that skip computing constants. Else null.
  virtual const Tensor* const_tensor() const { return nullptr; }
  // Assign and friends accept an uninitialized ref input (the executor skips
  // the "uninitialized value" check for them).
  bool allows_uninitialized_input() const { return allows_uninitialized_; }

  const NodeDef& def() const { return *def_; }
  const std::string& name() const { return def_->name(); }
  const std::string& type_string() const { return def_->op(); }
  int num_inputs() const { return static_cast<int>(input_types_->size()); }
  int num_outputs() const { return static_cast<int>(output_types_->size()); }
  DataType input_type(int i) const { return (*input_types_)[i]; }
  DataType output_type(int i) const { return (*output_types_)[i]; }
  const std::vector<DataType>& input_types() const { return *input_types_; }
  const std::vector<DataType>& output_types() const { return *output_types_; }
  // The NodeDef's i-th input string ("v", "x:1"), or "" past the end.
  const std::string& requested_input(int i) const;

 protected:
  void set_is_expensive(bool expensive) { expensive_ = expensive; }
  // Drops a bulky attr (Const's value) from the kernel's copy of the
  // NodeDef; a definition the kernel refers to is left as it is.
  void StripAttr(const std::string& name) {
    if (owned_ != nullptr) owned_->def.mutable_attr()->erase(name);
  }
  void set_allows_uninitialized_input(bool allows) {
    allows_uninitialized_ = allows;
  }

 private:
  // The copies, when the definition does not outlive the kernel.
  struct Owned {
    NodeDef def;
    std::vector<DataType> input_types;
    std::vector<DataType> output_types;
  };
  std::unique_ptr<Owned> owned_;
  const NodeDef* def_;                         // owned_'s or not owned
  const std::vector<DataType>* input_types_;   // owned_'s or not owned
  const std::vector<DataType>* output_types_;  // owned_'s or not owned
  bool expensive_ = true;
  bool allows_uninitialized_ = false;
};

class AsyncOpKernel : public OpKernel {
 public:
  using DoneCallback = std::function<void()>;
  using OpKernel::OpKernel;

  // Must eventually call `done` exactly once (possibly on another thread,
  // possibly before returning). The context (and its Params, inputs and
  // outputs) must stay alive until then.
  virtual void ComputeAsync(OpKernelContext* ctx, DoneCallback done) = 0;

  AsyncOpKernel* AsAsync() final { return this; }
  // Runs ComputeAsync and waits. Executors should call ComputeAsync.
  void Compute(OpKernelContext* ctx) final;
};

// An input value as the executor holds it: a tensor, or a ref to a variable's
// tensor with its mutex.
struct TensorValue {
  Tensor* tensor = nullptr;  // Not owned; null: no value (see has_input)
  std::mutex* mutex_if_ref = nullptr;  // Not owned; non-null for a ref

  bool is_ref() const { return mutex_if_ref != nullptr; }
};

// An output slot the executor provides and reads back after Compute.
struct OpOutput {
  Tensor value;                  // set_output / allocate_output
  Tensor* ref = nullptr;         // set_output_ref (Not owned.)
  std::mutex* ref_mu = nullptr;  // set_output_ref (Not owned.)
  bool has_value = false;        // false: the port produces no value (dead)

  bool is_ref() const { return ref != nullptr; }
  void Clear() {
    value = Tensor();
    ref = nullptr;
    ref_mu = nullptr;
    has_value = false;
  }
};

// Services that live for one step (one Session::Run), shared by all nodes.
struct StepServices {
  int64_t step_id = 0;
  RendezvousInterface* rendezvous = nullptr;     // Not owned; for _Send/_Recv
  CallFrameInterface* call_frame = nullptr;      // Not owned; for _Arg/_Retval
  ResourceMgr* resource_mgr = nullptr;           // Not owned; for variables
  const std::atomic<bool>* cancelled = nullptr;  // Not owned; may be null
  ThreadPoolInterface* intra_op_pool = nullptr;  // Not owned; may be null
  // Not owned; null when the graph has no function library.
  FunctionCallInterface* functions = nullptr;
};

class OpKernelContext {
 public:
  struct Params {
    const OpKernel* op_kernel = nullptr;  // Not owned.
    // op_kernel->num_inputs() values. Not owned.
    const TensorValue* inputs = nullptr;
    // op_kernel->num_outputs() slots, each Clear()ed. Not owned.
    OpOutput* outputs = nullptr;
    // Only _Send/_Recv-family nodes are computed while dead.
    bool is_input_dead = false;
    FrameAndIter frame_iter;
    const StepServices* step = nullptr;  // Not owned; must be set.
    // When true, a kernel may write its output into the buffer of a non-ref
    // input whose Tensor is the buffer's only owner (RefCountIsOne). The
    // executor must then give each consumer its own Tensor copy, and must
    // not hand out the input's value after Compute (only destroy it).
    bool allow_input_forwarding = false;
  };

  explicit OpKernelContext(Params* params) : params_(params) {}

  const OpKernel& op_kernel() const { return *params_->op_kernel; }
  int num_inputs() const { return params_->op_kernel->num_inputs(); }
  int num_outputs() const { return params_->op_kernel->num_outputs(); }

  // Input i. For a ref input: the variable's tensor itself (read it under
  // input_ref_mutex(i)).
  const Tensor& input(int i) const { return *params_->inputs[i].tensor; }
  // False for an input without a value: Merge's dead inputs (the executor
  // passes a null TensorValue::tensor) and the inputs of a dead _Send.
  bool has_input(int i) const { return params_->inputs[i].tensor != nullptr; }
  bool input_is_ref(int i) const { return params_->inputs[i].is_ref(); }
  DataType input_dtype(int i) const { return op_kernel().input_type(i); }
  // Ref inputs only (DFG_CHECK): the variable's tensor and mutex.
  Tensor* mutable_input(int i) const;
  std::mutex* input_ref_mutex(int i) const;
  // True when the whole node is dead (only _Send/_Recv run then).
  bool is_input_dead() const { return params_->is_input_dead; }

  void set_output(int i, const Tensor& t);
  void set_output(int i, Tensor&& t);
  void set_output_ref(int i, std::mutex* mu, Tensor* t);
  // Allocates output i with dtype output_type(i) and sets *out to it.
  // Errors: kResourceExhausted (Tensor::TryAllocate).
  Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  // Reuses the buffer of one of `inputs` when forwarding is allowed and the
  // input is not a ref, has output i's dtype and `shape`'s element count and
  // is its buffer's sole owner; otherwise allocates.
  Status forward_input_or_allocate_output(std::initializer_list<int> inputs,
                                          int i, const TensorShape& shape,
                                          Tensor** out);

  // Keeps the first error.
  void SetStatus(const Status& s) {
    if (!s.ok() && status_.ok()) status_ = s;
  }
  const Status& status() const { return status_; }

  const StepServices& step() const { return *params_->step; }
  RendezvousInterface* rendezvous() const { return step().rendezvous; }
  CallFrameInterface* call_frame() const { return step().call_frame; }
  ResourceMgr* resource_manager() const { return step().resource_mgr; }
  ThreadPoolInterface* intra_op_pool() const { return step().intra_op_pool; }
  FunctionCallInterface* function_library() const { return step().functions; }
  FrameAndIter frame_iter() const { return params_->frame_iter; }
  int64_t step_id() const { return step().step_id; }
  bool is_cancelled() const {
    return step().cancelled != nullptr &&
           step().cancelled->load(std::memory_order_relaxed);
  }

  Params* params() const { return params_; }

 private:
  Params* params_;  // Not owned.
  Status status_;
};

// TensorFlow's AttachDef for a kernel error: "<msg>\n\t [[{{node <name>}}]]"
// (same code). OK stays OK.
Status AttachNodeDef(const Status& s, const NodeDef& def);

// Executor helper: the value of ref input `in` for a kernel that wants a
// value: a copy of the variable's tensor, taken under its mutex. Uninitialized
// variable → kFailedPrecondition "Attempting to use uninitialized value
// <kernel.requested_input(i)>" (unless kernel.allows_uninitialized_input()).
Status DerefRefInput(const OpKernel& kernel, int i, const TensorValue& in,
                     Tensor* out);

// Kernel-side error macros, as TensorFlow's OP_REQUIRES*.
#define DFG_OP_REQUIRES(ctx, cond, status) \
  do {                                     \
    if (!(cond)) {                         \
      (ctx)->SetStatus(status);            \
      return;                              \
    }                                      \
  } while (0)
#define DFG_OP_REQUIRES_OK(ctx, expr)      \
  do {                                     \
    ::dfg::Status dfg_op_status_ = (expr); \
    if (!dfg_op_status_.ok()) {            \
      (ctx)->SetStatus(dfg_op_status_);    \
      return;                              \
    }                                      \
  } while (0)
#define DFG_OP_REQUIRES_ASYNC(ctx, cond, status, done) \
  do {                                                 \
    if (!(cond)) {                                     \
      (ctx)->SetStatus(status);                        \
      (done)();                                        \
      return;                                          \
    }                                                  \
  } while (0)
#define DFG_OP_REQUIRES_OK_ASYNC(ctx, expr, done) \
  do {                                            \
    ::dfg::Status dfg_op_status_ = (expr);        \
    if (!dfg_op_status_.ok()) {                   \
      (ctx)->SetStatus(dfg_op_status_);           \
      (done)();                                   \
      return;                                     \
    }                                             \
  } while (0)

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_OP_KERNEL_H_
