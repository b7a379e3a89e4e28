// Const, Placeholder, control flow, variables, Send/Recv, _Arg/_Retval.
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::FakeCallFrame;
using testing::KernelRun;
using testing::KernelTester;
using testing::MakeTensor;
using testing::Render;
using testing::RunKernel;

std::unique_ptr<KernelTester> Make(const std::string& text) {
  auto t = KernelTester::Create(text);
  DFG_CHECK_MSG(t.ok(), t.status().ToString());
  return std::move(t).value();
}

TEST_CASE("Const outputs its value and exposes it", "[kernels]") {
  auto t = Make(
      "name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { "
      "dim { size: 3 } } int_val: 4 } } }");
  CHECK_FALSE(t->kernel().is_expensive());
  REQUIRE(t->kernel().const_tensor() != nullptr);
  CHECK(Render(t->Run({}).out(0)) == "int32 [3] [4 4 4]");
  CHECK(t->kernel().def().attr().count("value") == 0);
}

TEST_CASE("an unfed Placeholder names itself, dtype and shape", "[kernels]") {
  auto run = RunKernel(
      "name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'shape' value { shape { dim { size: -1 } dim "
      "{ size: 3 } } } }",
      {});
  CHECK(run.status.code() == Code::kInvalidArgument);
  CHECK(run.status.message() ==
        "You must feed a value for placeholder tensor 'x' with dtype float and "
        "shape [?,3]");
  auto scalar = RunKernel(
      "name: 'y' op: 'Placeholder' attr { key: 'dtype' value { type: "
      "DT_INT32 } } attr { key: 'shape' value { shape { } } }",
      {});
  CHECK(scalar.status.message() ==
        "You must feed a value for placeholder tensor 'y' with dtype int32");
  auto unknown = RunKernel(
      "name: 'z' op: 'Placeholder' attr { key: 'dtype' value { type: "
      "DT_BOOL } }",
      {});
  CHECK(unknown.status.message() ==
        "You must feed a value for placeholder tensor 'z' with dtype bool");
}

TEST_CASE("forwarding kernels share their input", "[kernels]") {
  const Tensor x = MakeTensor<float>({2}, {1, 2});
  for (const char* op : {"Identity", "StopGradient", "PreventGradient",
                         "PlaceholderWithDefault"}) {
    const std::string type_attr =
        std::string(op) == "PlaceholderWithDefault" ? "dtype" : "T";
    auto t = Make(std::string("name: 'i' op: '") + op + "' attr { key: '" +
                  type_attr + "' value { type: DT_FLOAT } }" +
                  (type_attr == "dtype"
                       ? " attr { key: 'shape' value { shape { unknown_rank: "
                         "true } } }"
                       : ""));
    CHECK_FALSE(t->kernel().is_expensive());
    CHECK(t->Run({x}).out(0).SharesBufferWith(x));
  }
  auto snap = RunKernel(
      "name: 's' op: 'Snapshot' attr { key: 'T' value { type: DT_FLOAT } }",
      {x});
  CHECK_FALSE(snap.out(0).SharesBufferWith(x));
  CHECK(Render(snap.out(0)) == "float [2] [1 2]");
  auto n = RunKernel(
      "name: 'n' op: 'IdentityN' attr { key: 'T' value { list { type: "
      "DT_FLOAT type: DT_INT32 } } }",
      {x, Tensor::Scalar<int32_t>(3)});
  CHECK(Render(n.out(1)) == "int32 [] 3");
}

TEST_CASE("Switch sets only the selected port", "[kernels]") {
  auto t =
      Make("name: 's' op: 'Switch' attr { key: 'T' value { type: DT_FLOAT } }");
  const Tensor x = Tensor::Scalar<float>(5);
  auto on = t->Run({x, Tensor::Scalar<bool>(true)});
  CHECK_FALSE(on.outputs[0].has_value);
  CHECK(Render(on.out(1)) == "float [] 5");
  auto off = t->Run({x, Tensor::Scalar<bool>(false)});
  CHECK(Render(off.out(0)) == "float [] 5");
  CHECK_FALSE(off.outputs[1].has_value);
  auto bad = t->Run({x, MakeTensor<bool>({2}, {true, false})});
  CHECK(bad.status.message() ==
        "The second input must be a scalar, but it has shape [2]");
}

TEST_CASE("Merge outputs the live input and its index", "[kernels]") {
  auto t = Make(
      "name: 'm' op: 'Merge' attr { key: 'T' value { type: DT_INT32 } } attr "
      "{ key: 'N' value { i: 3 } }");
  auto run = t->Run(std::vector<std::optional<Tensor>>{
      std::nullopt, Tensor::Scalar<int32_t>(7), std::nullopt});
  CHECK(Render(run.out(0)) == "int32 [] 7");
  CHECK(Render(run.out(1)) == "int32 [] 1");
  auto two = t->Run(std::vector<std::optional<Tensor>>{
      Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(2), std::nullopt});
  CHECK(two.status.code() == Code::kInternal);
  CHECK(two.status.message() ==
        "Merge can not have more than one valid input.");
}

TEST_CASE("frame kernels forward their input", "[kernels]") {
  const Tensor x = Tensor::Scalar<float>(1);
  for (const char* op : {"Enter", "Exit", "NextIteration"}) {
    std::string text = std::string("name: 'f' op: '") + op +
                       "' attr { key: 'T' value { type: DT_FLOAT } }";
    if (std::string(op) == "Enter") {
      text += " attr { key: 'frame_name' value { s: 'w' } }";
    }
    auto t = Make(text);
    CHECK_FALSE(t->kernel().is_expensive());
    CHECK(t->Run({x}).out(0).SharesBufferWith(x));
  }
  auto loop =
      RunKernel("name: 'l' op: 'LoopCond'", {Tensor::Scalar<bool>(true)});
  CHECK(Render(loop.out(0)) == "bool [] True");
  CHECK(RunKernel("name: 't' op: 'ControlTrigger'", {}).status.ok());
}

TEST_CASE("VariableV2 and Assign share a ref'd tensor", "[kernels]") {
  auto var = Make(
      "name: 'v' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT "
      "} } attr { key: 'shape' value { shape { dim { size: 2 } } } }");
  KernelRun out = var->RunValues({});
  REQUIRE(out.status.ok());
  REQUIRE(out.outputs[0].is_ref());
  Tensor* ref = out.outputs[0].ref;
  std::mutex* mu = out.outputs[0].ref_mu;
  CHECK_FALSE(ref->IsInitialized());
  CHECK(ref->shape().DebugString() == "[2]");

  // Reading it before Assign: the executor's deref check.
  auto read = Make(
      "name: 'r' op: 'Identity' input: 'v' attr { key: 'T' value { type: "
      "DT_FLOAT } }");
  Tensor value;
  Status s = DerefRefInput(read->kernel(), 0, TensorValue{ref, mu}, &value);
  CHECK(s.code() == Code::kFailedPrecondition);
  CHECK(s.message() == "Attempting to use uninitialized value v");

  auto assign = Make(
      "name: 'a' op: 'Assign' input: 'v' input: 'c' attr { key: 'T' value { "
      "type: DT_FLOAT } }");
  CHECK(assign->kernel().allows_uninitialized_input());
  Tensor rhs = MakeTensor<float>({2}, {3, 4});
  KernelRun a = assign->RunValues({TensorValue{ref, mu}, TensorValue{&rhs}});
  REQUIRE(a.status.ok());
  CHECK(a.outputs[0].ref == ref);
  REQUIRE(DerefRefInput(read->kernel(), 0, TensorValue{ref, mu}, &value).ok());
  CHECK(Render(value) == "float [2] [3 4]");

  // The same variable again, from the resource manager.
  assign->services().resource_mgr = &var->resource_mgr();
  CHECK(var->RunValues({}).outputs[0].ref == ref);
  Tensor wrong = MakeTensor<float>({3}, {1, 2, 3});
  KernelRun bad =
      assign->RunValues({TensorValue{ref, mu}, TensorValue{&wrong}});
  CHECK(bad.status.message() ==
        "Assign requires shapes of both tensors to match. lhs shape= [2] rhs "
        "shape= [3]");
}

TEST_CASE("resource variables are assigned and read by handle", "[kernels]") {
  auto handle = Make(
      "name: 'h' op: 'VarHandleOp' attr { key: 'dtype' value { type: "
      "DT_INT32 } } attr { key: 'shape' value { shape { } } } attr { key: "
      "'shared_name' value { s: 'w' } }");
  Tensor h = handle->Run({}).out(0);
  CHECK(h.flat<ResourceHandle>()[0].container == "localhost");
  CHECK(h.flat<ResourceHandle>()[0].name == "w");
  auto read = Make(
      "name: 'r' op: 'ReadVariableOp' attr { key: 'dtype' value { type: "
      "DT_INT32 } }");
  read->services().resource_mgr = &handle->resource_mgr();
  auto missing = read->Run({h});
  CHECK(missing.status.code() == Code::kFailedPrecondition);
  CHECK_THAT(missing.status.message(),
             Contains("Could not find variable w. This could mean that the "
                      "variable has been deleted."));
  auto assign = Make(
      "name: 'a' op: 'AssignVariableOp' attr { key: 'dtype' value { type: "
      "DT_INT32 } }");
  assign->services().resource_mgr = &handle->resource_mgr();
  REQUIRE(assign->Run({h, Tensor::Scalar<int32_t>(42)}).status.ok());
  CHECK(Render(read->Run({h}).out(0)) == "int32 [] 42");
  auto wrong = assign->Run({h, Tensor::Scalar<float>(1)});
  CHECK(wrong.status.message() ==
        "Variable and value dtypes don't match; respectively, int32 and float");
}

TEST_CASE("_Send and _Recv meet in the rendezvous", "[kernels]") {
  const std::string attrs =
      "attr { key: 'tensor_name' value { s: 'edge_1_a' } } attr { key: "
      "'send_device' value { s: '/job:a/replica:0/task:0/device:CPU:0' } } "
      "attr { key: 'recv_device' value { s: "
      "'/job:a/replica:0/task:0/device:CPU:1' } } attr { key: "
      "'send_device_incarnation' value { i: 1 } }";
  auto send = Make(
      "name: 's' op: '_Send' attr { key: 'T' value { type: "
      "DT_FLOAT } } " +
      attrs);
  auto recv = Make(
      "name: 'r' op: '_Recv' attr { key: 'tensor_type' value { "
      "type: DT_FLOAT } } " +
      attrs);
  REQUIRE(recv->kernel().AsAsync() != nullptr);
  recv->services().rendezvous = &send->rendezvous();
  Tensor x = Tensor::Scalar<float>(2.5f);
  REQUIRE(send->RunValues({TensorValue{&x}}).status.ok());
  CHECK(send->rendezvous().sent_keys()[0] ==
        "/job:a/replica:0/task:0/device:CPU:0;0000000000000001;"
        "/job:a/replica:0/task:0/device:CPU:1;edge_1_a;0:0");
  CHECK(Render(recv->RunValues({}).out(0)) == "float [] 2.5");

  // Inside a frame the key ends with frame:iteration; deadness crosses.
  REQUIRE(send->RunValues({TensorValue{}}, true, {5, 2}).status.ok());
  CHECK_THAT(send->rendezvous().sent_keys()[1], Contains(";edge_1_a;5:2"));
  KernelRun dead = recv->RunValues({}, false, {5, 2});
  CHECK(dead.status.ok());
  CHECK_FALSE(dead.outputs[0].has_value);

  Tensor i = Tensor::Scalar<int32_t>(1);
  REQUIRE(send->RunValues({TensorValue{&i}}).status.ok());
  KernelRun wrong = recv->RunValues({});
  CHECK(wrong.status.code() == Code::kInternal);

  send->rendezvous().StartAbort(Aborted("stop"));
  CHECK(recv->RunValues({}).status.code() == Code::kAborted);
}

TEST_CASE("_Arg and _Retval go through the call frame", "[kernels]") {
  FakeCallFrame frame({Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(2)},
                      1);
  auto arg = Make(
      "name: 'a' op: '_Arg' attr { key: 'T' value { type: DT_INT32 } } attr "
      "{ key: 'index' value { i: 1 } }");
  arg->set_call_frame(&frame);
  CHECK(Render(arg->Run({}).out(0)) == "int32 [] 2");
  auto wrong = Make(
      "name: 'a' op: '_Arg' attr { key: 'T' value { type: DT_INT32 } } attr "
      "{ key: 'index' value { i: 0 } }");
  wrong->set_call_frame(&frame);
  CHECK(wrong->Run({}).status.message() ==
        "Type mismatch: actual float vs. expect int32");
  auto ret = Make(
      "name: 'r' op: '_Retval' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'index' value { i: 0 } }");
  ret->set_call_frame(&frame);
  REQUIRE(ret->Run({Tensor::Scalar<float>(3)}).status.ok());
  CHECK(Render(*frame.retval(0)) == "float [] 3");
  CHECK(ret->Run({Tensor::Scalar<float>(3)}).status.message() ==
        "Retval[0] has already been set.");
}

}  // namespace
}  // namespace dfg
