// The kernels of tensor_list_ext_ops.cc, stateless_random_ops.cc and the
// sparse/ragged files on a few hand-checked inputs, so that a machine
// without TensorFlow still tests them. Random values are TensorFlow 2.21's
// for the same seeds (tf.raw_ops); the TF oracle's ops section checks them
// all more broadly.
#include "lib/kernels/kernel_test_util.h"
#include "lib/kernels/variant.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::KernelRun;
using testing::MakeTensor;
using testing::Render;
using testing::RunKernel;

std::string Attr(const std::string& key, const std::string& value) {
  return "attr { key: '" + key + "' value { " + value + " } } ";
}

KernelRun Run(const std::string& op, const std::string& attrs,
              std::initializer_list<Tensor> in) {
  KernelRun r = RunKernel("name: 'n' op: '" + op + "' " + attrs, in);
  INFO(r.status.ToString());
  return r;
}

TEST_CASE("TensorListSplit and TensorListConcatV2 round-trip", "[sparse]") {
  const std::string elem = Attr("element_dtype", "type: DT_FLOAT") +
                           Attr("shape_type", "type: DT_INT32");
  KernelRun split = Run(
      "TensorListSplit", elem,
      {MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
       MakeTensor<int32_t>({2}, {-1, 2}), MakeTensor<int64_t>({3}, {2, 0, 1})});
  REQUIRE(split.status.ok());
  KernelRun concat = Run("TensorListConcatV2", elem,
                         {split.out(0), MakeTensor<int32_t>({2}, {-1, 2}),
                          MakeTensor<int64_t>({0}, {})});
  REQUIRE(concat.status.ok());
  CHECK(Flat<float>(concat.out(0)) == "[3,2] 1 2 3 4 5 6");
  CHECK(Flat<int64_t>(concat.out(1)) == "[3] 2 0 1");
  KernelRun gather =
      Run("TensorListGather", Attr("element_dtype", "type: DT_FLOAT"),
          {split.out(0), MakeTensor<int32_t>({1}, {5}),
           MakeTensor<int32_t>({2}, {-1, 2})});
  CHECK_THAT(gather.status.message(),
             Catch::Matchers::Contains("Trying to gather element 5"));
}

TEST_CASE("Stateless random ops match TensorFlow's numbers", "[sparse]") {
  const Tensor seed = MakeTensor<int64_t>({2}, {1, 2});
  const std::string f32 = Attr("dtype", "type: DT_FLOAT") +
                          Attr("T", "type: DT_INT32") +
                          Attr("Tseed", "type: DT_INT64");
  KernelRun u =
      Run("StatelessRandomUniform", f32, {MakeTensor<int32_t>({1}, {5}), seed});
  REQUIRE(u.status.ok());
  CHECK(Flat<float>(u.out(0)) ==
        "[5] 0.8440604 0.19204533 0.9962232 0.1603874 0.27199018");
  KernelRun kc = Run("StatelessRandomGetKeyCounter",
                     Attr("Tseed", "type: DT_INT64"), {seed});
  REQUIRE(kc.status.ok());
  CHECK(Flat<uint64_t>(kc.out(0)) == "[1] 10413732777507651514");
  CHECK(Flat<uint64_t>(kc.out(1)) == "[2] 0 17830669156045600267");
  KernelRun n =
      Run("StatelessRandomNormalV2",
          Attr("dtype", "type: DT_DOUBLE") + Attr("Tshape", "type: DT_INT32"),
          {MakeTensor<int32_t>({1}, {3}), kc.out(0), kc.out(1),
           Tensor::Scalar<int32_t>(1)});
  REQUIRE(n.status.ok());
  CHECK(Flat<double>(n.out(0)) ==
        "[3] -0.1423118100189212 0.7406072461585091 -1.469047669443883");
  KernelRun i =
      Run("StatelessRandomUniformInt",
          Attr("dtype", "type: DT_INT32") + Attr("T", "type: DT_INT32") +
              Attr("Tseed", "type: DT_INT64"),
          {MakeTensor<int32_t>({1}, {6}), seed, Tensor::Scalar<int32_t>(-5),
           Tensor::Scalar<int32_t>(100)});
  REQUIRE(i.status.ok());
  CHECK(Flat<int32_t>(i.out(0)) == "[6] 35 24 49 79 17 50");
  KernelRun bad =
      Run("StatelessRandomNormalV2",
          Attr("dtype", "type: DT_FLOAT") + Attr("Tshape", "type: DT_INT32"),
          {MakeTensor<int32_t>({1}, {3}), kc.out(0), kc.out(1),
           Tensor::Scalar<int32_t>(2)});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("Unsupported algorithm id: 2"));
}

TEST_CASE("SparseSegmentMean, SparseReshape, SparseFillEmptyRows", "[sparse]") {
  const std::string seg = Attr("T", "type: DT_FLOAT") +
                          Attr("Tidx", "type: DT_INT32") +
                          Attr("Tsegmentids", "type: DT_INT32");
  KernelRun mean = Run("SparseSegmentMean", seg,
                       {MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
                        MakeTensor<int32_t>({3}, {0, 2, 1}),
                        MakeTensor<int32_t>({3}, {0, 0, 2})});
  REQUIRE(mean.status.ok());
  CHECK(Flat<float>(mean.out(0)) == "[3,2] 3 4 0 0 3 4");
  KernelRun bad =
      Run("SparseSegmentMean", seg,
          {MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
           MakeTensor<int32_t>({2}, {0, 7}), MakeTensor<int32_t>({2}, {0, 0})});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("Bad: indices[1] == 7 out of range"));

  KernelRun reshape = Run(
      "SparseReshape", "",
      {MakeTensor<int64_t>({2, 2}, {0, 3, 1, 1}),
       MakeTensor<int64_t>({2}, {2, 4}), MakeTensor<int64_t>({2}, {4, -1})});
  REQUIRE(reshape.status.ok());
  CHECK(Flat<int64_t>(reshape.out(0)) == "[2,2] 1 1 2 1");
  CHECK(Flat<int64_t>(reshape.out(1)) == "[2] 4 2");

  KernelRun fill =
      Run("SparseFillEmptyRows", Attr("T", "type: DT_FLOAT"),
          {MakeTensor<int64_t>({2, 2}, {2, 0, 0, 1}),
           MakeTensor<float>({2}, {7, 8}), MakeTensor<int64_t>({2}, {3, 2}),
           Tensor::Scalar<float>(-1)});
  REQUIRE(fill.status.ok());
  CHECK(Flat<int64_t>(fill.out(0)) == "[3,2] 0 1 1 0 2 0");
  CHECK(Flat<float>(fill.out(1)) == "[3] 8 -1 7");
  CHECK(Render(fill.out(2)) == "bool [3] [False  True False]");
  CHECK(Flat<int64_t>(fill.out(3)) == "[2] 2 0");
}

TEST_CASE("SparseTensorDenseMatMul and SparseReduceSum", "[sparse]") {
  KernelRun mm =
      Run("SparseTensorDenseMatMul",
          Attr("T", "type: DT_FLOAT") + Attr("Tindices", "type: DT_INT64") +
              Attr("adjoint_a", "b: false") + Attr("adjoint_b", "b: false"),
          {MakeTensor<int64_t>({2, 2}, {0, 1, 1, 0}),
           MakeTensor<float>({2}, {2, 3}), MakeTensor<int64_t>({2}, {2, 2}),
           MakeTensor<float>({2, 2}, {1, 2, 3, 4})});
  REQUIRE(mm.status.ok());
  CHECK(Flat<float>(mm.out(0)) == "[2,2] 6 8 3 6");
  KernelRun sum =
      Run("SparseReduceSum",
          Attr("T", "type: DT_FLOAT") + Attr("keep_dims", "b: false"),
          {MakeTensor<int64_t>({3, 2}, {0, 1, 1, 0, 1, 1}),
           MakeTensor<float>({3}, {2, 3, 4}), MakeTensor<int64_t>({2}, {2, 2}),
           MakeTensor<int32_t>({1}, {1})});
  REQUIRE(sum.status.ok());
  CHECK(Flat<float>(sum.out(0)) == "[2] 2 7");
}

TEST_CASE("RaggedRange and RaggedGather", "[sparse]") {
  KernelRun range =
      Run("RaggedRange",
          Attr("T", "type: DT_INT32") + Attr("Tsplits", "type: DT_INT64"),
          {MakeTensor<int32_t>({2}, {0, 5}), Tensor::Scalar<int32_t>(3),
           MakeTensor<int32_t>({2}, {1, -1})});
  REQUIRE(range.status.ok());
  CHECK(Flat<int64_t>(range.out(0)) == "[3] 0 3 5");
  CHECK(Flat<int32_t>(range.out(1)) == "[5] 0 1 2 5 4");
  KernelRun gather = Run(
      "RaggedGather",
      Attr("Tvalues", "type: DT_INT32") + Attr("Tindices", "type: DT_INT32") +
          Attr("Tsplits", "type: DT_INT64") +
          Attr("PARAMS_RAGGED_RANK", "i: 1") +
          Attr("OUTPUT_RAGGED_RANK", "i: 1"),
      {range.out(0), range.out(1), MakeTensor<int32_t>({3}, {1, 1, 0})});
  REQUIRE(gather.status.ok());
  CHECK(Flat<int64_t>(gather.out(0)) == "[4] 0 2 4 7");
  CHECK(Flat<int32_t>(gather.out(1)) == "[7] 5 4 5 4 0 1 2");
}

}  // namespace
}  // namespace dfg
