// Test harness for kernels: builds the kernel of a text-format NodeDef (types
// resolved through the op registry, defaults filled in) and runs it once on
// given inputs, with fake step services (call frame, rendezvous, resources).
#ifndef DFG_LIB_KERNELS_KERNEL_TEST_UTIL_H_
#define DFG_LIB_KERNELS_KERNEL_TEST_UTIL_H_

#include <fmt/format.h>

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/kernels/kernel_registry.h"
#include "lib/kernels/op_kernel.h"
#include "lib/kernels/tensor.h"

namespace dfg::testing {

// A tensor of T with `dims` and row-major `values`.
template <typename T>
Tensor MakeTensor(std::vector<int64_t> dims, const std::vector<T>& values) {
  Tensor t(DataTypeToEnum<T>::value,
           TensorShape(std::span<const int64_t>(dims)));
  auto f = t.flat<T>();
  DFG_CHECK(f.size() == values.size());
  for (size_t i = 0; i < values.size(); ++i) f[i] = values[i];
  return t;
}

// "float [2,3] [[1 2 3]\n [4 5 6]]": dtype, shape and every value.
std::string Render(const Tensor& t);

// "[2,3] 1 2 3 4 5 6": the shape and the row-major values of a T tensor,
// each as fmt prints it (every digit a float needs to read back).
template <typename T>
std::string Flat(const Tensor& t) {
  std::string s = t.shape().DebugString();
  for (const T& v : t.flat<T>()) s += fmt::format(" {}", v);
  return s;
}

// Call frame over plain vectors.
class FakeCallFrame : public CallFrameInterface {
 public:
  FakeCallFrame(std::vector<Tensor> args, size_t num_retvals)
      : args_(std::move(args)), retvals_(num_retvals) {}
  size_t num_args() const override { return args_.size(); }
  size_t num_retvals() const override { return retvals_.size(); }
  Status GetArg(int index, Tensor* value) const override;
  Status SetRetval(int index, const Tensor& value) override;
  const std::optional<Tensor>& retval(int i) const { return retvals_[i]; }

 private:
  std::vector<Tensor> args_;
  std::vector<std::optional<Tensor>> retvals_;
};

// A minimal local rendezvous: Send stores, RecvAsync completes at once or
// when the Send comes.
class FakeRendezvous : public RendezvousInterface {
 public:
  Status Send(const ParsedKey& key, const Tensor& value, bool is_dead) override;
  void RecvAsync(const ParsedKey& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;
  std::vector<std::string> sent_keys() const;

 private:
  struct Item {
    Tensor value;
    bool is_dead = false;
  };
  mutable std::mutex mu_;
  Status abort_;
  std::map<std::string, Item> ready_;
  std::map<std::string, std::vector<DoneCallback>> waiting_;
  std::vector<std::string> sent_keys_;
};

struct KernelRun {
  Status status;
  std::vector<OpOutput> outputs;
  // Output i's value (DFG_CHECK that it has one and is not a ref).
  const Tensor& out(int i) const;
};

class KernelTester {
 public:
  // Errors: text parse errors, type resolution (InOutTypesForNode), and
  // CreateKernel's errors.
  static StatusOr<std::unique_ptr<KernelTester>> Create(
      std::string_view node_text);

  // Computes once. A null entry of `inputs` is an input without a value.
  KernelRun Run(const std::vector<std::optional<Tensor>>& inputs);
  KernelRun Run(std::initializer_list<Tensor> inputs);
  // Low level: the executor's view (refs, deadness, frame/iteration).
  KernelRun RunValues(const std::vector<TensorValue>& inputs,
                      bool is_input_dead = false, FrameAndIter frame_iter = {});

  OpKernel& kernel() { return *kernel_; }
  StepServices& services() { return services_; }
  ResourceMgr& resource_mgr() { return resource_mgr_; }
  FakeRendezvous& rendezvous() { return rendezvous_; }
  void set_call_frame(FakeCallFrame* frame) { services_.call_frame = frame; }

 private:
  NodeDef def_;
  std::unique_ptr<OpKernel> kernel_;
  ResourceMgr resource_mgr_;
  FakeRendezvous rendezvous_;
  StepServices services_;
};

// Parses `node_text`, creates and runs its kernel on `inputs`; a creation
// error is returned as the run's status.
KernelRun RunKernel(std::string_view node_text,
                    std::initializer_list<Tensor> inputs);

}  // namespace dfg::testing

#endif  // DFG_LIB_KERNELS_KERNEL_TEST_UTIL_H_
