// Constant folding (Grappler's ConstantFolding, the folding part): a node
// whose data inputs all come from Const nodes is computed once, here, with
// dfg's own CPU kernel, and replaced by Const nodes holding its outputs.
// TensorFlow's rules kept: a single-output node becomes a Const of the same
// name and device; the outputs of a multi-output node become
// "ConstantFolding/<name>-<port>" Consts and its consumers read those; the
// new Consts keep the node's control inputs and its inputs' control inputs;
// nothing stateful, no control-flow op, no preserved node, no output of
// over 10 MiB (kMaxConstantSize), no ref, resource or variant output.
#include <fmt/format.h>

#include <deque>

#include "lib/graph/op_registry.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/types.h"
#include "lib/kernels/file_policy.h"
#include "lib/kernels/kernel_registry.h"
#include "lib/kernels/op_kernel.h"
#include "lib/optimize/pass.h"

namespace dfg::optimize {
namespace {

constexpr size_t kMaxConstantBytes = 10 * 1024 * 1024;

bool IsConst(const NodeDef& n) {
  return n.op() == "Const" || n.op() == "HostConst";
}

// Ops whose value is not a function of their inputs' values alone, or that
// TensorFlow never folds.
bool NeverFolded(std::string_view op) {
  static const auto* ops =
      new std::unordered_set<std::string_view>{"Enter",
                                               "RefEnter",
                                               "Exit",
                                               "RefExit",
                                               "Merge",
                                               "RefMerge",
                                               "Switch",
                                               "RefSwitch",
                                               "NextIteration",
                                               "RefNextIteration",
                                               "LoopCond",
                                               "ControlTrigger",
                                               "NoOp",
                                               "Identity",
                                               "IdentityN",
                                               "Snapshot",
                                               "StopGradient",
                                               "PreventGradient",
                                               "Print",
                                               "PrintV2",
                                               "Assert",
                                               "CheckNumerics",
                                               "PlaceholderWithDefault",
                                               "FakeParam",
                                               "_Arg",
                                               "_Retval",
                                               "Const",
                                               "HostConst",
                                               "While",
                                               "StatelessWhile",
                                               "If",
                                               "StatelessIf",
                                               "Case",
                                               "StatelessCase",
                                               "PartitionedCall",
                                               "StatefulPartitionedCall",
                                               "SymbolicGradient",
                                               "RemoteCall",
                                               "_ParallelConcatStart",
                                               "OptionalNone",
                                               "Timestamp"};
  return ops->contains(op);
}

bool Foldable(DataType t) {
  DataType base = BaseType(t);
  return !IsRefType(t) && base != tensorflow::DT_RESOURCE &&
         base != tensorflow::DT_VARIANT;
}

class Folder {
 public:
  explicit Folder(PassContext& ctx) : ctx_(ctx), g_(ctx.graph()) {}

  Status Run() {
    // Folding a node can make its consumers foldable: a queue of
    // candidates, seeded with every data consumer of a Const in node order
    // (a node with a data input from anything else is no candidate), so
    // that a big graph with few constants is not searched node by node.
    const GraphIndex& index = ctx_.Index();
    std::deque<int> queue;
    std::vector<bool> queued(g_.node_size(), false);
    for (int p = 0; p < g_.node_size(); ++p) {
      if (!IsConst(g_.node(p))) continue;
      for (const Use& u : index.AllDataUses(p)) queued[u.node] = true;
    }
    for (int i = 0; i < g_.node_size(); ++i) {
      if (queued[i]) queue.push_back(i);
    }
    std::vector<bool> dead(g_.node_size(), false);
    while (!queue.empty()) {
      int i = queue.front();
      queue.pop_front();
      queued[i] = false;
      if (dead[i] || !Candidate(i, index)) continue;
      std::vector<Tensor> outputs;
      if (!Evaluate(g_.node(i), index, &outputs)) continue;
      std::vector<int> consumers;
      Replace(i, outputs, index, &consumers);
      for (int c : consumers) {
        if (!queued[c]) queue.push_back(c), queued[c] = true;
      }
    }
    return Status::Ok();
  }

 private:
  bool Candidate(int i, const GraphIndex& index) const {
    const NodeDef& n = g_.node(i);
    if (NeverFolded(n.op()) || ctx_.IsPreserved(n)) return false;
    int data_inputs = 0;
    for (const std::string& in : n.input()) {
      if (in[0] == '^') continue;
      ++data_inputs;
      int p = index.Find(ParseTensorNameView(in).node);
      if (p < 0 || !IsConst(g_.node(p))) return false;
    }
    return data_inputs > 0;
  }

  // Computes node n; false when it cannot or must not be folded.
  bool Evaluate(const NodeDef& n, const GraphIndex& index,
                std::vector<Tensor>* outputs) {
    const OpDef* def = ctx_.ops().LookUpOpDef(n.op());
    if (def == nullptr) return false;
    NodeDef node = n;
    AddDefaultsToNodeDef(*def, &node);
    std::vector<DataType> in_types, out_types;
    if (!InOutTypesForNode(node, *def, &in_types, &out_types).ok()) {
      return false;
    }
    for (DataType t : out_types) {
      if (!Foldable(t)) return false;
    }
    std::deque<Tensor> inputs;
    std::vector<TensorValue> values;
    for (const std::string& in : n.input()) {
      if (in[0] == '^') continue;
      const NodeDef& c = g_.node(index.Find(ParseTensorNameView(in).node));
      auto value = c.attr().find("value");
      if (value == c.attr().end()) return false;
      auto t = Tensor::FromProto(value->second.tensor());
      if (!t.ok()) return false;
      inputs.push_back(std::move(*t));
      values.push_back({&inputs.back(), nullptr});
    }
    // Folding never touches the filesystem: a file op of a constant path
    // runs in the step, where a server's --allow-path applies, and reads
    // the file as it is then.
    static const std::shared_ptr<const FilePolicy> no_files =
        FilePolicy::Create({}, "constant folding leaves it to the step")
            .value();
    ScopedFilePolicy file_policy(no_files.get());
    auto kernel = KernelRegistry::Global().CreateKernel(node, kDeviceCpu,
                                                        in_types, out_types);
    if (!kernel.ok() || (*kernel)->AsAsync() != nullptr) return false;
    std::vector<OpOutput> slots(out_types.size());
    ResourceMgr resources;
    StepServices step;
    step.resource_mgr = &resources;
    OpKernelContext::Params params;
    params.op_kernel = kernel->get();
    params.inputs = values.data();
    params.outputs = slots.data();
    params.step = &step;
    OpKernelContext kctx(&params);
    (*kernel)->Compute(&kctx);
    // An error (a bad shape, say) stays for the step to report, as in
    // TensorFlow, whose folding skips nodes that fail.
    if (!kctx.status().ok()) return false;
    for (OpOutput& s : slots) {
      if (!s.has_value || s.is_ref() ||
          s.value.TotalBytes() > kMaxConstantBytes) {
        return false;
      }
      outputs->push_back(std::move(s.value));
    }
    return !outputs->empty();
  }

  // The control inputs the folded Consts keep: the node's, and those of
  // its (Const) data inputs.
  std::vector<std::string> Controls(const NodeDef& n,
                                    const GraphIndex& index) const {
    std::vector<std::string> controls;
    auto add = [&](const std::string& c) {
      if (std::find(controls.begin(), controls.end(), c) == controls.end()) {
        controls.push_back(c);
      }
    };
    for (const std::string& in : n.input()) {
      if (in[0] == '^') {
        add(in);
        continue;
      }
      const NodeDef& c = g_.node(index.Find(ParseTensorNameView(in).node));
      for (const std::string& cin : c.input()) {
        if (cin[0] == '^') add(cin);
      }
    }
    return controls;
  }

  NodeDef MakeConst(const std::string& name, const NodeDef& from,
                    const Tensor& value,
                    const std::vector<std::string>& controls) const {
    NodeDef c;
    c.set_name(name);
    c.set_device(from.device());
    SetConstValue(&c, value);
    for (const std::string& ctl : controls) c.add_input(ctl);
    return c;
  }

  void Replace(int i, const std::vector<Tensor>& outputs,
               const GraphIndex& index, std::vector<int>* consumers) {
    const NodeDef n = g_.node(i);
    std::vector<std::string> controls = Controls(n, index);
    for (const Use& u : index.AllDataUses(i)) consumers->push_back(u.node);
    if (outputs.size() == 1) {
      *g_.mutable_node(i) = MakeConst(n.name(), n, outputs[0], controls);
      ctx_.Record("constfold", {Describe(n)}, {n.name() + " (Const)"},
                  fmt::format("inputs are constants; value {} {}",
                              DataTypeString(outputs[0].dtype()),
                              outputs[0].shape().DebugString()));
      return;
    }
    // New Consts are appended; indices of existing nodes stay valid.
    std::vector<std::string> made;
    for (size_t port = 0; port < outputs.size(); ++port) {
      const std::vector<Use> uses = index.DataUses(i, static_cast<int>(port));
      if (uses.empty()) continue;
      std::string name = fmt::format("ConstantFolding/{}-{}", n.name(), port);
      *g_.add_node() = MakeConst(name, n, outputs[port], controls);
      Rewire(&g_, uses, name);
      made.push_back(name + " (Const)");
    }
    ctx_.Record("constfold", {Describe(n)}, made,
                "inputs are constants; one Const per used output");
  }

  PassContext& ctx_;
  GraphDef& g_;
};

}  // namespace

Status RunConstantFolding(PassContext& ctx) { return Folder(ctx).Run(); }

}  // namespace dfg::optimize
