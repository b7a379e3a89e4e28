#include "lib/exec/function_runtime.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <map>
#include <optional>
#include <utility>

#include "lib/graph/graph_import.h"
#include "lib/graph/op_registry.h"
#include "lib/kernels/call_frame_interface.h"
#include "lib/kernels/op_kernel.h"

namespace dfg {
namespace {

using tensorflow::AttrValue;
using tensorflow::FunctionDef;
using tensorflow::GraphDef;
using tensorflow::NameAttrList;

// The instance cache's key: the function's name and its attrs, sorted and
// serialized deterministically.
std::string AttrKey(const NameAttrList& fn) {
  std::string key = fn.name();
  std::map<std::string, const AttrValue*> sorted;
  for (const auto& [name, value] : fn.attr()) sorted[name] = &value;
  for (const auto& [name, value] : sorted) {
    std::string bytes;
    {
      google::protobuf::io::StringOutputStream stream(&bytes);
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded.SetSerializationDeterministic(true);
      value->SerializeToCodedStream(&coded);
    }
    key += '\0' + name + '\0' + bytes;
  }
  return key;
}

}  // namespace

struct FunctionInstance {
  std::unique_ptr<Executor> executor;
  std::vector<DataType> arg_types;
  std::vector<DataType> ret_types;
};

namespace {

// The call frame of one call: the caller's args, read in place, and its
// result vector, written in place. A Tensor without a dtype marks a result
// not yet set (a result always has its declared dtype). Each _Retval index
// is written by one node of the instantiated body, so no lock is needed.
class ArgsFrame : public CallFrameInterface {
 public:
  ArgsFrame(const FunctionInstance& fn, std::span<const Tensor> args,
            std::vector<Tensor>* rets)
      : fn_(fn), args_(args), rets_(rets) {}

  size_t num_args() const override { return args_.size(); }
  size_t num_retvals() const override { return rets_->size(); }
  Status GetArg(int index, Tensor* value) const override {
    if (index < 0 || static_cast<size_t>(index) >= args_.size()) {
      return InvalidArgument("GetArg {} is not within [0, {})", index,
                             args_.size());
    }
    *value = args_[index];
    return Status::Ok();
  }
  Status SetRetval(int index, const Tensor& value) override {
    if (index < 0 || static_cast<size_t>(index) >= rets_->size()) {
      return InvalidArgument("SetRetval {} is not within [0, {})", index,
                             rets_->size());
    }
    if (value.dtype() != fn_.ret_types[index]) {
      return InvalidArgument("Expects ret[{}] to be {}, but {} is provided.",
                             index, DataTypeString(fn_.ret_types[index]),
                             DataTypeString(value.dtype()));
    }
    Tensor& slot = (*rets_)[index];
    if (slot.dtype() != tensorflow::DT_INVALID) {
      return Internal("Retval[{}] has already been set.", index);
    }
    slot = value;
    return Status::Ok();
  }

 private:
  const FunctionInstance& fn_;
  std::span<const Tensor> args_;
  std::vector<Tensor>* rets_;  // Not owned.
};

}  // namespace

namespace {

thread_local const ObservedCallScope* current_call_scope = nullptr;

// Hands a function body's records on to the step's observer, named under
// the calling node (and its callers, as the records pass up the scopes).
class CallObserver : public ExecutionObserver {
 public:
  explicit CallObserver(const ObservedCallScope& caller) : caller_(caller) {}
  void NodeDone(const NodeExecRecord& record) override {
    NodeExecRecord named = record;
    const std::string& name = caller_.node()->name();
    named.call_path =
        record.call_path.empty() ? name : name + "/" + record.call_path;
    named.call_device = caller_.device();
    caller_.observer()->NodeDone(named);
  }

 private:
  const ObservedCallScope& caller_;
};

}  // namespace

ObservedCallScope::ObservedCallScope(ExecutionObserver* observer,
                                     const Node* node,
                                     const std::string& device)
    : observer_(observer),
      node_(node),
      device_(device),
      outer_(current_call_scope) {
  current_call_scope = this;
}

ObservedCallScope::~ObservedCallScope() { current_call_scope = outer_; }

const ObservedCallScope* ObservedCallScope::Current() {
  return current_call_scope;
}

FunctionRuntime::FunctionRuntime(
    std::shared_ptr<const tensorflow::FunctionDefLibrary> library,
    ExecutorOptions options)
    : library_(std::move(library)), options_(std::move(options)) {
  options_.library = library_;
}

FunctionRuntime::~FunctionRuntime() = default;

namespace {

// What a SymbolicGradient call of `call.attr f` runs: f's gradient function
// from the library's GradientDef, with f's attrs (TensorFlow's
// FunctionLibraryRuntime instantiates "SymbolicGradient" the same way, and
// only differentiates f's body when no GradientDef names f: dfg does not).
StatusOr<NameAttrList> GradientFunction(const NameAttrList& call,
                                        const FunctionDefLibrary& library) {
  auto it = call.attr().find("f");
  if (it == call.attr().end() || !it->second.has_func()) {
    return InvalidArgument("SymbolicGradient needs a func attr 'f'");
  }
  const NameAttrList& f = it->second.func();
  for (const auto& grad : library.gradient()) {
    if (grad.function_name() != f.name()) continue;
    NameAttrList g;
    g.set_name(grad.gradient_func());
    *g.mutable_attr() = f.attr();
    return g;
  }
  return Unimplemented(
      "SymbolicGradient of '{}': the library has no GradientDef for it, and "
      "dfg does not build the symbolic gradient of a function body",
      f.name());
}

}  // namespace

StatusOr<FunctionHandle> FunctionRuntime::Instantiate(
    const NameAttrList& call) {
  std::string key = AttrKey(call);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = instances_.find(key);
    if (it != instances_.end()) return it->second.get();
  }
  NameAttrList fn = call;
  if (call.name() == "SymbolicGradient") {
    DFG_ASSIGN_OR_RETURN(fn, GradientFunction(call, *library_));
  }
  const FunctionDef* fdef = nullptr;
  for (const FunctionDef& f : library_->function()) {
    if (f.signature().name() == fn.name()) fdef = &f;
  }
  if (fdef == nullptr) {
    return NotFound("Function {} is not defined.", fn.name());
  }
  DFG_ASSIGN_OR_RETURN(GraphDef body,
                       InstantiateFunction(*fdef, fn.attr(), *library_));
  auto instance = std::make_unique<FunctionInstance>();
  for (const NodeDef& node : body.node()) {
    if (node.op() == "_Arg") {
      instance->arg_types.push_back(node.attr().at("T").type());
    } else if (node.op() == "_Retval") {
      instance->ret_types.push_back(node.attr().at("T").type());
    }
  }
  ImportOptions import;
  import.allow_unknown_ops = false;
  auto graph = ImportGraphDef(std::move(body), import);
  if (!graph.ok()) {
    return Status(graph.status().code(),
                  "Function " + fn.name() + ": " + graph.status().message());
  }
  DFG_ASSIGN_OR_RETURN(instance->executor,
                       Executor::Create(std::move(*graph), options_));
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = instances_.emplace(key, std::move(instance));
  return it->second.get();
}

Status FunctionRuntime::Run(FunctionHandle fn, const StepServices& step,
                            std::span<const Tensor> args,
                            std::vector<Tensor>* rets) {
  const FunctionInstance& instance = *fn;
  if (args.size() != instance.arg_types.size()) {
    return InvalidArgument("Expects {} arguments, but {} is provided",
                           instance.arg_types.size(), args.size());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].dtype() != instance.arg_types[i]) {
      return InvalidArgument("Expects arg[{}] to be {} but {} is provided", i,
                             DataTypeString(instance.arg_types[i]),
                             DataTypeString(args[i].dtype()));
    }
  }
  // The results land in `rets`, its capacity reused from call to call.
  rets->clear();
  rets->resize(instance.ret_types.size());
  ArgsFrame frame(instance, args, rets);
  Executor::Args run;
  run.step_id = step.step_id;
  run.rendezvous = step.rendezvous;
  run.call_frame = &frame;
  run.resource_mgr = step.resource_mgr;
  run.cancelled = step.cancelled;
  run.intra_op_pool = step.intra_op_pool;
  // An observed caller: the body's nodes are observed too. The scope is
  // left for the body's own nodes to set theirs.
  std::optional<CallObserver> observer;
  if (const ObservedCallScope* caller = ObservedCallScope::Current()) {
    observer.emplace(*caller);
    run.observer = &*observer;
  }
  Status s = instance.executor->Run(run);
  if (s.ok()) {
    for (size_t i = 0; i < rets->size(); ++i) {
      if ((*rets)[i].dtype() == tensorflow::DT_INVALID) {
        s = Internal("Retval[{}] does not have value", i);
        break;
      }
    }
  }
  if (!s.ok()) rets->clear();
  return s;
}

}  // namespace dfg
