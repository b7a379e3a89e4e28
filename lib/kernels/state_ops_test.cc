// TF1 stateful containers: the staging areas (Stage, MapStage,
// OrderedMapStage families) and the conditional accumulators, run as the
// nodes of one session (one ResourceMgr).
#include <cmath>
#include <limits>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::Flat;
using testing::KernelRun;
using testing::KernelTester;
using testing::MakeTensor;

class Session {
 public:
  KernelRun Run(const std::string& node, std::initializer_list<Tensor> in) {
    auto t = KernelTester::Create(node);
    if (!t.ok()) return KernelRun{t.status(), {}};
    (*t)->services().resource_mgr = &rm_;
    return (*t)->Run(in);
  }

 private:
  ResourceMgr rm_;
};

// A staging node of `op` on the area "area"; `types` the dtypes list.
std::string Node(const std::string& op, const std::string& types,
                 const std::string& extra = "") {
  return "name: 'n' op: '" + op +
         "' attr { key: 'shared_name' value { s: 'area' } } attr { key: "
         "'dtypes' value { list { " +
         types + " } } } " + extra;
}

Tensor Ints(std::vector<int32_t> v) {
  return MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v);
}

TEST_CASE("Stage and Unstage pass tuples first in, first out", "[kernels]") {
  Session s;
  const std::string types = "type: DT_FLOAT type: DT_INT32";
  for (float f : {1.5f, 2.5f}) {
    REQUIRE(
        s.Run(Node("Stage", types), {Tensor::Scalar<float>(f), Ints({1, 2})})
            .status.ok());
  }
  KernelRun size = s.Run(Node("StageSize", ""), {});
  REQUIRE(size.status.ok());
  CHECK(size.out(0).scalar<int32_t>() == 2);
  KernelRun peek =
      s.Run(Node("StagePeek", types), {Tensor::Scalar<int32_t>(1)});
  REQUIRE(peek.status.ok());
  CHECK(peek.out(0).scalar<float>() == 2.5f);
  KernelRun un = s.Run(Node("Unstage", types), {});
  REQUIRE(un.status.ok());
  CHECK(un.out(0).scalar<float>() == 1.5f);
  CHECK(Flat<int32_t>(un.out(1)) == "[2] 1 2");
  REQUIRE(s.Run(Node("StageClear", ""), {}).status.ok());
  CHECK(s.Run(Node("StageSize", ""), {}).out(0).scalar<int32_t>() == 0);
}

TEST_CASE("Unstage of fewer dtypes than staged fails", "[kernels]") {
  Session s;
  REQUIRE(s.Run(Node("Stage", "type: DT_FLOAT type: DT_FLOAT"),
                {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)})
              .status.ok());
  KernelRun un = s.Run(Node("Unstage", "type: DT_FLOAT"), {});
  CHECK_THAT(un.status.message(), Contains("Mismatch stage/unstage: 2 vs. 1"));
}

TEST_CASE("a staged tuple over the memory limit is refused", "[kernels]") {
  Session s;
  KernelRun r = s.Run(Node("Stage", "type: DT_FLOAT",
                           "attr { key: 'memory_limit' value { i: 8 } }"),
                      {MakeTensor<float>({3}, {1, 2, 3})});
  CHECK(r.status.code() == Code::kResourceExhausted);
  CHECK_THAT(r.status.message(), Contains("combined size of '12' bytes"));
}

TEST_CASE("an ordered map stages keys and unstages the smallest first",
          "[kernels]") {
  Session s;
  const std::string fake =
      "attr { key: 'fake_dtypes' value { list { type: "
      "DT_FLOAT } } }";
  for (int64_t key : {7, 3, 5}) {
    REQUIRE(s.Run(Node("OrderedMapStage", "type: DT_FLOAT", fake),
                  {Tensor::Scalar<int64_t>(key), Ints({0}),
                   Tensor::Scalar<float>(key * 10.0f)})
                .status.ok());
  }
  CHECK(s.Run(Node("OrderedMapSize", ""), {}).out(0).scalar<int32_t>() == 3);
  KernelRun peek = s.Run(Node("OrderedMapPeek", "type: DT_FLOAT"),
                         {Tensor::Scalar<int64_t>(5), Ints({0})});
  REQUIRE(peek.status.ok());
  CHECK(peek.out(0).scalar<float>() == 50.0f);
  KernelRun first =
      s.Run(Node("OrderedMapUnstageNoKey", "type: DT_FLOAT"), {Ints({0})});
  REQUIRE(first.status.ok());
  CHECK(first.out(0).scalar<int64_t>() == 3);
  CHECK(first.out(1).scalar<float>() == 30.0f);
  KernelRun seven = s.Run(Node("OrderedMapUnstage", "type: DT_FLOAT"),
                          {Tensor::Scalar<int64_t>(7), Ints({0})});
  REQUIRE(seven.status.ok());
  CHECK(seven.out(0).scalar<float>() == 70.0f);
  CHECK(s.Run(Node("OrderedMapSize", ""), {}).out(0).scalar<int32_t>() == 1);
}

TEST_CASE("a map key completes when all its indices are staged", "[kernels]") {
  Session s;
  const std::string types = "type: DT_FLOAT type: DT_INT32";
  const std::string one =
      "attr { key: 'fake_dtypes' value { list { type: "
      "DT_INT32 } } }";
  REQUIRE(
      s.Run(Node("MapStage", types, one),
            {Tensor::Scalar<int64_t>(4), Ints({1}), Tensor::Scalar<int32_t>(9)})
          .status.ok());
  CHECK(s.Run(Node("MapIncompleteSize", ""), {}).out(0).scalar<int32_t>() == 1);
  CHECK(s.Run(Node("MapSize", ""), {}).out(0).scalar<int32_t>() == 0);
  KernelRun again = s.Run(
      Node("MapStage", types, one),
      {Tensor::Scalar<int64_t>(4), Ints({1}), Tensor::Scalar<int32_t>(8)});
  CHECK_THAT(again.status.message(),
             Contains("The tensor for index '1' for key '4' was already "
                      "initialized '2'."));
  const std::string f =
      "attr { key: 'fake_dtypes' value { list { type: "
      "DT_FLOAT } } }";
  REQUIRE(
      s.Run(Node("MapStage", types, f), {Tensor::Scalar<int64_t>(4), Ints({0}),
                                         Tensor::Scalar<float>(0.5f)})
          .status.ok());
  CHECK(s.Run(Node("MapSize", ""), {}).out(0).scalar<int32_t>() == 1);
  KernelRun un = s.Run(Node("MapUnstage", "type: DT_INT32"),
                       {Tensor::Scalar<int64_t>(4), Ints({1})});
  REQUIRE(un.status.ok());
  CHECK(un.out(0).scalar<int32_t>() == 9);
  KernelRun gone = s.Run(Node("MapPeek", "type: DT_INT32"),
                         {Tensor::Scalar<int64_t>(4), Ints({1})});
  CHECK_THAT(gone.status.message(),
             Contains("Tensor at index '1' for key '4' has already been "
                      "removed."));
  KernelRun unordered = s.Run(Node("MapPeek", "type: DT_INT32 type: DT_FLOAT"),
                              {Tensor::Scalar<int64_t>(4), Ints({1, 0})});
  CHECK_THAT(unordered.status.message(),
             Contains("Indices are not strictly ordered"));
}

std::string AccNode(const std::string& op, const std::string& extra = "") {
  return "name: 'n' op: '" + op +
         "' attr { key: 'dtype' value { type: DT_FLOAT } } " + extra;
}

TEST_CASE("an accumulator averages the fresh gradients it was given",
          "[kernels]") {
  Session s;
  KernelRun made = s.Run(AccNode("ResourceConditionalAccumulator",
                                 "attr { key: 'shape' value { shape { dim { "
                                 "size: 2 } } } } attr { key: "
                                 "'shared_name' value { s: 'acc' } }"),
                         {});
  REQUIRE(made.status.ok());
  const Tensor h = made.out(0);
  auto apply = [&](int64_t step, std::vector<float> g) {
    const int64_t n = static_cast<int64_t>(g.size());
    return s.Run(AccNode("ResourceAccumulatorApplyGradient"),
                 {h, Tensor::Scalar<int64_t>(step), MakeTensor<float>({n}, g)});
  };
  REQUIRE(apply(0, {1, 2}).status.ok());
  REQUIRE(s.Run("name: 'n' op: 'ResourceAccumulatorSetGlobalStep'",
                {h, Tensor::Scalar<int64_t>(2)})
              .status.ok());
  REQUIRE(apply(1, {100, 100}).status.ok());  // stale: dropped
  REQUIRE(apply(2, {3, 6}).status.ok());
  KernelRun num =
      s.Run("name: 'n' op: 'ResourceAccumulatorNumAccumulated'", {h});
  REQUIRE(num.status.ok());
  CHECK(num.out(0).scalar<int32_t>() == 2);
  KernelRun take = s.Run(AccNode("ResourceAccumulatorTakeGradient"),
                         {h, Tensor::Scalar<int32_t>(2)});
  REQUIRE(take.status.ok());
  CHECK(Flat<float>(take.out(0)) == "[2] 2 4");
  CHECK_THAT(apply(3, {1, 2, 3}).status.message(),
             Contains("Shape mismatch: expected [2], got [3]"));
  CHECK_THAT(s.Run(AccNode("ResourceAccumulatorTakeGradient"),
                   {h, Tensor::Scalar<int32_t>(0)})
                 .status.message(),
             Contains("num_required must be positive, but was 0"));
}

TEST_CASE("a TensorArrayV2 names its array by a string handle", "[kernels]") {
  ResourceMgr rm;
  auto run = [&](const std::string& node, std::initializer_list<Tensor> in) {
    auto k = KernelTester::Create(node);
    REQUIRE(k.ok());
    (*k)->services().resource_mgr = &rm;
    (*k)->services().step_id = 3;
    return (*k)->Run(in);
  };
  const std::string f = "attr { key: 'dtype' value { type: DT_FLOAT } } ";
  KernelRun ta =
      run("name: 'ta' op: 'TensorArrayV2' " + f, {Tensor::Scalar<int32_t>(2)});
  REQUIRE(ta.status.ok());
  REQUIRE(ta.outputs.size() == 1);
  const Tensor h = ta.out(0);
  REQUIRE(h.NumElements() == 2);
  CHECK(h.flat<std::string>()[0] == "_tensor_arrays");
  const Tensor flow = Tensor::Scalar<float>(0);
  REQUIRE(run("name: 'w' op: 'TensorArrayWriteV2' attr { key: 'T' value { "
              "type: DT_FLOAT } }",
              {h, Tensor::Scalar<int32_t>(1), Tensor::Scalar<float>(4), flow})
              .status.ok());
  KernelRun read = run("name: 'r' op: 'TensorArrayReadV2' " + f,
                       {h, Tensor::Scalar<int32_t>(1), flow});
  REQUIRE(read.status.ok());
  CHECK(read.out(0).scalar<float>() == 4.0f);
  KernelRun size = run("name: 's' op: 'TensorArraySizeV2'", {h, flow});
  CHECK(size.out(0).scalar<int32_t>() == 2);
}

TEST_CASE("CheckNumericsV2 tells -Inf from +Inf", "[kernels]") {
  const std::string node =
      "name: 'c' op: 'CheckNumericsV2' attr { key: 'T' value { type: "
      "DT_FLOAT } } attr { key: 'message' value { s: 'm' } }";
  const float inf = std::numeric_limits<float>::infinity();
  KernelRun ok = testing::RunKernel(node, {MakeTensor<float>({2}, {1, 2})});
  REQUIRE(ok.status.ok());
  CHECK(Flat<float>(ok.out(0)) == "[2] 1 2");
  KernelRun bad = testing::RunKernel(
      node, {MakeTensor<float>({3}, {inf, -inf, std::nanf("")})});
  CHECK_THAT(bad.status.message(),
             Contains("m : Tensor had -Inf, +Inf, and NaN values"));
}

TEST_CASE("ResourceCountUpTo counts a variable up to its limit", "[kernels]") {
  ResourceMgr rm;
  auto var = rm.LookupOrCreate("c", "v", tensorflow::DT_INT64);
  REQUIRE(var.ok());
  *(*var)->tensor() = Tensor::Scalar<int64_t>(4);
  (*var)->is_initialized = true;
  ResourceHandle h;
  h.container = "c";
  h.name = "v";
  auto count = [&] {
    auto k = KernelTester::Create(
        "name: 'n' op: 'ResourceCountUpTo' attr { key: 'T' value { type: "
        "DT_INT64 } } attr { key: 'limit' value { i: 5 } }");
    REQUIRE(k.ok());
    (*k)->services().resource_mgr = &rm;
    return (*k)->Run({Tensor::Scalar<ResourceHandle>(h)});
  };
  KernelRun first = count();
  REQUIRE(first.status.ok());
  CHECK(first.out(0).scalar<int64_t>() == 4);
  CHECK((*var)->tensor()->scalar<int64_t>() == 5);
  CHECK_THAT(count().status.message(), Contains("Reached limit of 5"));
}

TEST_CASE("DeviceIndex finds CPU among the device names", "[kernels]") {
  KernelRun found = testing::RunKernel(
      "name: 'd' op: 'DeviceIndex' attr { key: 'device_names' value { list { "
      "s: 'GPU' s: 'CPU' } } }",
      {});
  REQUIRE(found.status.ok());
  CHECK(found.out(0).scalar<int32_t>() == 1);
  KernelRun absent = testing::RunKernel(
      "name: 'd' op: 'DeviceIndex' attr { key: 'device_names' value { list { "
      "s: 'TPU' s: 'GPU' s: 'XLA' } } }",
      {});
  CHECK(absent.out(0).scalar<int32_t>() == 3);
}

TEST_CASE("_HostCast casts as Cast does", "[kernels]") {
  KernelRun r = testing::RunKernel(
      "name: 'c' op: '_HostCast' attr { key: 'SrcT' value { type: DT_FLOAT } "
      "} attr { key: 'DstT' value { type: DT_INT32 } }",
      {MakeTensor<float>({3}, {1.5f, -2.5f, 7.9f})});
  REQUIRE(r.status.ok());
  CHECK(Flat<int32_t>(r.out(0)) == "[3] 1 -2 7");
}

}  // namespace
}  // namespace dfg
