// Assert, AssignAdd/AssignSub (ref and resource), IsVariableInitialized.
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::KernelRun;
using testing::KernelTester;
using testing::MakeTensor;
using testing::Render;

std::string AssertNode(const std::string& types, int summarize = 3) {
  return "name: 'assert' op: 'Assert' attr { key: 'T' value { list { " + types +
         " } } } attr { key: 'summarize' value { i: " +
         std::to_string(summarize) + " } }";
}

TEST_CASE("Assert passes on true and fails with TF's message on false",
          "[kernels]") {
  const std::string node =
      AssertNode("type: DT_STRING type: DT_FLOAT type: DT_INT32");
  const Tensor text = Tensor::Scalar<std::string>("x == y did not hold:");
  const Tensor x = MakeTensor<float>({4}, {1, 0.5f, 1e6f, 0.1f});
  const Tensor y = MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4});
  CHECK(testing::RunKernel(node, {Tensor::Scalar<bool>(true), text, x, y})
            .status.ok());
  auto run =
      testing::RunKernel(node, {Tensor::Scalar<bool>(false), text, x, y});
  CHECK(run.status.code() == Code::kInvalidArgument);
  CHECK(run.status.message() ==
        "assertion failed: [x == y did not hold:] [1 0.5 1e+06...] "
        "[[1 2][3...]...]");
  auto all = testing::RunKernel(AssertNode("type: DT_FLOAT type: DT_INT32", -1),
                                {MakeTensor<bool>({1}, {false}), x, y});
  CHECK(all.status.message() ==
        "assertion failed: [1 0.5 1e+06 0.1] [[1 2][3 4]]");
}

TEST_CASE("Assert escapes strings and wants a scalar condition", "[kernels]") {
  auto run = testing::RunKernel(
      AssertNode("type: DT_STRING"),
      {Tensor::Scalar<bool>(false),
       MakeTensor<std::string>({3}, {"a\nb", "it's", "\xc3\xa9\x01"})});
  // absl::Utf8SafeCEscape: UTF-8 stays, control bytes are octal.
  CHECK(run.status.message() ==
        "assertion failed: [a\\nb it\\'s \xc3\xa9\\001]");
  auto cond =
      testing::RunKernel(AssertNode(""), {MakeTensor<bool>({2}, {true, true})});
  CHECK_THAT(cond.status.message(), Contains("In[0] should be a scalar: [2]"));
}

std::unique_ptr<KernelTester> Make(const std::string& text) {
  auto t = KernelTester::Create(text);
  REQUIRE(t.ok());
  return std::move(*t);
}

TEST_CASE("AssignAdd and AssignSub update a ref variable", "[kernels]") {
  auto var = Make(
      "name: 'v' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT "
      "} } attr { key: 'shape' value { shape { dim { size: 2 } } } }");
  KernelRun out = var->RunValues({});
  Tensor* ref = out.outputs[0].ref;
  std::mutex* mu = out.outputs[0].ref_mu;
  auto is_init = Make(
      "name: 'i' op: 'IsVariableInitialized' attr { key: 'dtype' value { "
      "type: DT_FLOAT } }");
  CHECK(is_init->kernel().allows_uninitialized_input());
  CHECK(Render(is_init->RunValues({TensorValue{ref, mu}}).out(0)) ==
        "bool [] False");
  auto add = Make(
      "name: 'add' op: 'AssignAdd' input: 'v' attr { key: 'T' value { type: "
      "DT_FLOAT } }");
  Tensor one = MakeTensor<float>({2}, {1, 2});
  KernelRun early = add->RunValues({TensorValue{ref, mu}, TensorValue{&one}});
  CHECK(early.status.code() == Code::kFailedPrecondition);
  CHECK_THAT(early.status.message(),
             Contains("Attempting to use uninitialized parameters: v"));
  *ref = MakeTensor<float>({2}, {10, 20});
  CHECK(Render(is_init->RunValues({TensorValue{ref, mu}}).out(0)) ==
        "bool [] True");
  const Tensor before = *ref;  // a reader's copy must not change
  REQUIRE(
      add->RunValues({TensorValue{ref, mu}, TensorValue{&one}}).status.ok());
  CHECK(Render(*ref) == "float [2] [11 22]");
  CHECK(Render(before) == "float [2] [10 20]");
  auto sub = Make(
      "name: 'sub' op: 'AssignSub' input: 'v' attr { key: 'T' value { type: "
      "DT_FLOAT } }");
  KernelRun s = sub->RunValues({TensorValue{ref, mu}, TensorValue{&one}});
  REQUIRE(s.status.ok());
  CHECK(s.outputs[0].ref == ref);
  CHECK(Render(*ref) == "float [2] [10 20]");
  Tensor three = MakeTensor<float>({3}, {1, 2, 3});
  KernelRun bad = sub->RunValues({TensorValue{ref, mu}, TensorValue{&three}});
  CHECK_THAT(bad.status.message(),
             Contains("Parameters and update must be the same size"));
}

TEST_CASE("AssignAddVariableOp and AssignSubVariableOp update by handle",
          "[kernels]") {
  ResourceMgr rm;
  auto run = [&](const std::string& node, std::initializer_list<Tensor> in) {
    auto t = Make(node);
    t->services().resource_mgr = &rm;
    return t->Run(in);
  };
  ResourceHandle handle;
  handle.container = "localhost";
  handle.name = "w";
  const Tensor h = Tensor::Scalar<ResourceHandle>(handle);
  const std::string add =
      "name: 'a' op: 'AssignAddVariableOp' attr { key: 'dtype' value { type: "
      "DT_INT32 } }";
  auto missing = run(add, {h, Tensor::Scalar<int32_t>(1)});
  CHECK(missing.status.code() == Code::kNotFound);
  REQUIRE(run("name: 'set' op: 'AssignVariableOp' attr { key: 'dtype' value "
              "{ type: DT_INT32 } }",
              {h, MakeTensor<int32_t>({2}, {5, 6})})
              .status.ok());
  REQUIRE(run(add, {h, MakeTensor<int32_t>({2}, {1, 1})}).status.ok());
  REQUIRE(run("name: 's' op: 'AssignSubVariableOp' attr { key: 'dtype' "
              "value { type: DT_INT32 } }",
              {h, MakeTensor<int32_t>({2}, {10, 0})})
              .status.ok());
  auto read =
      run("name: 'r' op: 'ReadVariableOp' attr { key: 'dtype' value { type: "
          "DT_INT32 } }",
          {h});
  CHECK(Render(read.out(0)) == "int32 [2] [-4  7]");
  auto shape = run(add, {h, MakeTensor<int32_t>({1}, {1})});
  CHECK_THAT(shape.status.message(),
             Contains("Cannot update variable with shape [2] using a Tensor "
                      "with shape [1], shapes must be equal."));
}

}  // namespace
}  // namespace dfg
