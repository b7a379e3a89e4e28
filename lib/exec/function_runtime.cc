#include "lib/exec/function_runtime.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <map>
#include <utility>

#include "lib/exec/call_frame.h"
#include "lib/graph/graph_import.h"
#include "lib/graph/op_registry.h"
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

StatusOr<const FunctionRuntime::Instance*> FunctionRuntime::GetInstance(
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
  auto instance = std::make_unique<Instance>();
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

Status FunctionRuntime::Call(const NameAttrList& fn, const StepServices& step,
                             std::vector<Tensor> args,
                             std::vector<Tensor>* rets) {
  DFG_ASSIGN_OR_RETURN(const Instance* instance, GetInstance(fn));
  CallFrame frame(instance->arg_types, instance->ret_types);
  DFG_RETURN_IF_ERROR(frame.SetArgs(std::move(args)));
  Executor::Args run;
  run.step_id = step.step_id;
  run.rendezvous = step.rendezvous;
  run.call_frame = &frame;
  run.resource_mgr = step.resource_mgr;
  run.cancelled = step.cancelled;
  run.intra_op_pool = step.intra_op_pool;
  DFG_RETURN_IF_ERROR(instance->executor->Run(run));
  return frame.ConsumeRetvals(rets);
}

}  // namespace dfg
