// The kernel test harness and its fakes.
#include "lib/kernels/kernel_test_util.h"

#include <google/protobuf/text_format.h>

#include "lib/graph/op_registry.h"

namespace dfg::testing {

std::string Render(const Tensor& t) {
  return DataTypeString(t.dtype()) + " " + t.shape().DebugString() + " " +
         t.SummarizeValue(-1);
}

Status FakeCallFrame::GetArg(int index, Tensor* value) const {
  if (index < 0 || static_cast<size_t>(index) >= args_.size()) {
    return InvalidArgument("GetArg {} is not within [0, {})", index,
                           args_.size());
  }
  *value = args_[index];
  return Status::Ok();
}

Status FakeCallFrame::SetRetval(int index, const Tensor& value) {
  if (index < 0 || static_cast<size_t>(index) >= retvals_.size()) {
    return InvalidArgument("SetRetval {} is not within [0, {})", index,
                           retvals_.size());
  }
  if (retvals_[index].has_value()) {
    return Internal("Retval[{}] has already been set.", index);
  }
  retvals_[index] = value;
  return Status::Ok();
}

Status FakeRendezvous::Send(const ParsedKey& key, const Tensor& value,
                            bool is_dead) {
  std::vector<DoneCallback> waiters;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_.ok()) return abort_;
    sent_keys_.push_back(key.FullKey());
    auto it = waiting_.find(key.FullKey());
    if (it == waiting_.end()) {
      if (ready_.count(key.FullKey())) {
        return Aborted("Duplicated send: {}", key.FullKey());
      }
      ready_[key.FullKey()] = Item{value, is_dead};
      return Status::Ok();
    }
    waiters = std::move(it->second);
    waiting_.erase(it);
  }
  for (auto& w : waiters) w(Status::Ok(), value, is_dead);
  return Status::Ok();
}

void FakeRendezvous::RecvAsync(const ParsedKey& key, DoneCallback done) {
  Status status;
  Item item;
  {
    std::lock_guard<std::mutex> lock(mu_);
    status = abort_;
    if (status.ok()) {
      auto it = ready_.find(key.FullKey());
      if (it == ready_.end()) {
        waiting_[key.FullKey()].push_back(std::move(done));
        return;
      }
      item = it->second;
      ready_.erase(it);
    }
  }
  done(status, item.value, item.is_dead);
}

void FakeRendezvous::StartAbort(const Status& status) {
  std::map<std::string, std::vector<DoneCallback>> waiting;
  {
    std::lock_guard<std::mutex> lock(mu_);
    abort_ = status;
    waiting.swap(waiting_);
  }
  for (auto& [key, callbacks] : waiting) {
    for (auto& cb : callbacks) cb(status, Tensor(), false);
  }
}

std::vector<std::string> FakeRendezvous::sent_keys() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sent_keys_;
}

const Tensor& KernelRun::out(int i) const {
  DFG_CHECK_MSG(status.ok(), status.ToString());
  DFG_CHECK(i >= 0 && static_cast<size_t>(i) < outputs.size());
  DFG_CHECK(outputs[i].has_value && !outputs[i].is_ref());
  return outputs[i].value;
}

StatusOr<std::unique_ptr<KernelTester>> KernelTester::Create(
    std::string_view node_text) {
  auto tester = std::unique_ptr<KernelTester>(new KernelTester());
  if (!google::protobuf::TextFormat::ParseFromString(std::string(node_text),
                                                     &tester->def_)) {
    return InvalidArgument("cannot parse NodeDef: {}", node_text);
  }
  const OpInfo* info = OpRegistry::Global().Find(tester->def_.op());
  if (info == nullptr) return NotFound("unknown op {}", tester->def_.op());
  AddDefaultsToNodeDef(info->def, &tester->def_);
  std::vector<DataType> in, out;
  DFG_RETURN_IF_ERROR(InOutTypesForNode(tester->def_, info->def, &in, &out));
  DFG_ASSIGN_OR_RETURN(tester->kernel_, KernelRegistry::Global().CreateKernel(
                                            tester->def_, kDeviceCpu, in, out));
  tester->services_.resource_mgr = &tester->resource_mgr_;
  tester->services_.rendezvous = &tester->rendezvous_;
  return tester;
}

KernelRun KernelTester::RunValues(const std::vector<TensorValue>& inputs,
                                  bool is_input_dead, FrameAndIter frame_iter) {
  KernelRun run;
  DFG_CHECK(static_cast<int>(inputs.size()) == kernel_->num_inputs());
  run.outputs.resize(kernel_->num_outputs());
  OpKernelContext::Params params;
  params.op_kernel = kernel_.get();
  params.inputs = inputs.data();
  params.outputs = run.outputs.data();
  params.is_input_dead = is_input_dead;
  params.frame_iter = frame_iter;
  params.step = &services_;
  OpKernelContext ctx(&params);
  if (AsyncOpKernel* async = kernel_->AsAsync()) {
    async->Compute(&ctx);  // waits for done
  } else {
    kernel_->Compute(&ctx);
  }
  run.status = ctx.status();
  return run;
}

KernelRun KernelTester::Run(const std::vector<std::optional<Tensor>>& inputs) {
  std::deque<Tensor> storage;
  std::vector<TensorValue> values;
  for (const auto& in : inputs) {
    TensorValue v;
    if (in.has_value()) {
      storage.push_back(*in);
      v.tensor = &storage.back();
    }
    values.push_back(v);
  }
  return RunValues(values);
}

KernelRun KernelTester::Run(std::initializer_list<Tensor> inputs) {
  std::vector<std::optional<Tensor>> in(inputs.begin(), inputs.end());
  return Run(in);
}

KernelRun RunKernel(std::string_view node_text,
                    std::initializer_list<Tensor> inputs) {
  auto tester = KernelTester::Create(node_text);
  if (!tester.ok()) {
    KernelRun run;
    run.status = tester.status();
    return run;
  }
  return (*tester)->Run(inputs);
}

}  // namespace dfg::testing
