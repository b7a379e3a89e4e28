// The kernels of sparse_ext_ops*.cc and tensor_map_ops.cc on a few inputs
// whose results TensorFlow 2.21 gave (tf.raw_ops), so that a machine
// without TensorFlow still checks the hashes bit for bit; the TF oracle's
// ops section (op_cases/sparse_ext.py, tensor_map.py) checks them broadly.
#include "lib/kernels/kernel_test_util.h"
#include "lib/kernels/variant.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::KernelRun;
using testing::MakeTensor;
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

Tensor Strings(std::vector<int64_t> dims, std::vector<std::string> v) {
  return MakeTensor<std::string>(std::move(dims), v);
}

TEST_CASE("SparseCross hashes dense columns with FingerprintCat64",
          "[sparse_ext]") {
  KernelRun r = Run(
      "SparseCross",
      Attr("N", "i: 0") + Attr("hashed_output", "b: true") +
          Attr("num_buckets", "i: 0") + Attr("hash_key", "i: 956888297470") +
          Attr("sparse_types", "list { }") +
          Attr("dense_types", "list { type: DT_STRING type: DT_INT64 }") +
          Attr("out_type", "type: DT_INT64") +
          Attr("internal_type", "type: DT_INT64"),
      {Strings({2, 1}, {"a", "b"}), MakeTensor<int64_t>({2, 1}, {1, 2})});
  REQUIRE(r.status.ok());
  CHECK(Flat<int64_t>(r.out(0)) == "[2,2] 0 0 1 0");
  CHECK(Flat<int64_t>(r.out(1)) == "[2] 2928842892298887678 85918459618309357");
  CHECK(Flat<int64_t>(r.out(2)) == "[2] 2 1");
}

TEST_CASE("SparseCrossHashed fingerprints 4 bytes of a sparse int64",
          "[sparse_ext]") {
  KernelRun r =
      Run("SparseCrossHashed",
          Attr("N", "i: 1") + Attr("sparse_types", "list { type: DT_INT64 }") +
              Attr("dense_types", "list { }"),
          {MakeTensor<int64_t>({3, 2}, {0, 0, 0, 1, 2, 0}),
           MakeTensor<int64_t>({3}, {3, -7, 123456789012}),
           MakeTensor<int64_t>({2}, {3, 2}), Tensor::Scalar<int64_t>(0),
           Tensor::Scalar<bool>(false), MakeTensor<int64_t>({2}, {17, -3})});
  REQUIRE(r.status.ok());
  CHECK(Flat<int64_t>(r.out(1)) ==
        "[3] 2681491882390849628 7243699054097421056 2749463954704707069");
  CHECK(Flat<int64_t>(r.out(2)) == "[2] 3 2");
}

TEST_CASE("SparseCrossV2 joins features with the separator", "[sparse_ext]") {
  KernelRun r = Run(
      "SparseCrossV2",
      Attr("N", "i: 1") + Attr("sparse_types", "list { type: DT_INT64 }") +
          Attr("dense_types", "list { type: DT_STRING }"),
      {MakeTensor<int64_t>({3, 2}, {0, 0, 0, 1, 1, 0}),
       MakeTensor<int64_t>({3}, {4, 5, 6}), MakeTensor<int64_t>({2}, {2, 2}),
       Strings({2, 1}, {"x", "y"}), Tensor::Scalar<std::string>("--")});
  REQUIRE(r.status.ok());
  CHECK(Flat<std::string>(r.out(1)) == "[3] 4--x 5--x 6--y");
  CHECK(Flat<int64_t>(r.out(0)) == "[3,2] 0 0 0 1 1 0");
}

TEST_CASE("RaggedCross buckets hashed crosses of ragged and dense inputs",
          "[sparse_ext]") {
  KernelRun r =
      Run("RaggedCross",
          Attr("Nsparse", "i: 0") + Attr("input_order", "s: 'RD'") +
              Attr("hashed_output", "b: true") + Attr("num_buckets", "i: 100") +
              Attr("hash_key", "i: 1") +
              Attr("ragged_values_types", "list { type: DT_INT64 }") +
              Attr("ragged_splits_types", "list { type: DT_INT32 }") +
              Attr("sparse_values_types", "list { }") +
              Attr("dense_types", "list { type: DT_STRING }") +
              Attr("out_values_type", "type: DT_INT64") +
              Attr("out_row_splits_type", "type: DT_INT32"),
          {MakeTensor<int64_t>({3}, {5, 6, 7}),
           MakeTensor<int32_t>({3}, {0, 2, 3}), Strings({2, 1}, {"x", "y"})});
  REQUIRE(r.status.ok());
  CHECK(Flat<int64_t>(r.out(0)) == "[3] 64 35 15");
  CHECK(Flat<int32_t>(r.out(1)) == "[3] 0 2 3");
}

TEST_CASE("DenseCountSparseOutput sums weights per row and value",
          "[sparse_ext]") {
  KernelRun r =
      Run("DenseCountSparseOutput",
          Attr("T", "type: DT_INT32") + Attr("output_type", "type: DT_FLOAT") +
              Attr("binary_output", "b: false"),
          {MakeTensor<int32_t>({2, 3}, {1, 3, 1, 0, 0, 2}),
           MakeTensor<float>({2, 3}, {0.5f, 1, 2, 1, 1, 1})});
  REQUIRE(r.status.ok());
  CHECK(Flat<int64_t>(r.out(0)) == "[4,2] 0 1 0 3 1 0 1 2");
  CHECK(Flat<float>(r.out(1)) == "[4] 2.5 1 2 1");
  CHECK(Flat<int64_t>(r.out(2)) == "[2] 2 4");
  KernelRun neg =
      Run("DenseCountSparseOutput",
          Attr("T", "type: DT_INT32") + Attr("output_type", "type: DT_FLOAT") +
              Attr("binary_output", "b: false"),
          {MakeTensor<int32_t>({2}, {1, -1}), MakeTensor<float>({0}, {})});
  CHECK(neg.status.message() == "Input values must all be non-negative");
}

TEST_CASE("SparseAddGrad routes the sum's gradient to A and B",
          "[sparse_ext]") {
  KernelRun r = Run(
      "SparseAddGrad", Attr("T", "type: DT_FLOAT"),
      {MakeTensor<float>({3}, {1, 2, 3}), MakeTensor<int64_t>({2, 1}, {0, 2}),
       MakeTensor<int64_t>({2, 1}, {1, 2}),
       MakeTensor<int64_t>({3, 1}, {0, 1, 2})});
  REQUIRE(r.status.ok());
  CHECK(Flat<float>(r.out(0)) == "[2] 1 3");
  CHECK(Flat<float>(r.out(1)) == "[2] 2 3");
}

TEST_CASE("SparseSegmentSumGradV2 keeps the rows of the distinct indices",
          "[sparse_ext]") {
  KernelRun r = Run(
      "SparseSegmentSumGradV2", Attr("T", "type: DT_FLOAT"),
      {MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
       MakeTensor<int32_t>({5}, {4, 1, 4, 0, 1}),
       MakeTensor<int32_t>({5}, {0, 0, 1, 2, 2}), Tensor::Scalar<int32_t>(6)});
  REQUIRE(r.status.ok());
  CHECK(Flat<float>(r.out(0)) == "[3,2] 5 6 6 8 4 6");
  CHECK(Flat<int32_t>(r.out(1)) == "[3] 0 1 4");
}

TEST_CASE("TensorMap insert, lookup, erase and size", "[sparse_ext]") {
  const std::string kv = Attr("key_dtype", "type: DT_STRING") +
                         Attr("value_dtype", "type: DT_FLOAT");
  KernelRun empty = Run("EmptyTensorMap", "", {});
  REQUIRE(empty.status.ok());
  KernelRun m1 = Run("TensorMapInsert", kv,
                     {empty.out(0), Tensor::Scalar<std::string>("a"),
                      Tensor::Scalar<float>(1.5f)});
  REQUIRE(m1.status.ok());
  KernelRun m2 = Run("TensorMapInsert", kv,
                     {m1.out(0), Tensor::Scalar<std::string>("b"),
                      Tensor::Scalar<float>(2.5f)});
  REQUIRE(m2.status.ok());
  KernelRun m3 =
      Run("TensorMapErase", kv, {m2.out(0), Tensor::Scalar<std::string>("a")});
  REQUIRE(m3.status.ok());
  CHECK(Flat<int32_t>(Run("TensorMapSize", "", {m2.out(0)}).out(0)) == "[] 2");
  CHECK(Flat<int32_t>(Run("TensorMapSize", "", {m3.out(0)}).out(0)) == "[] 1");
  CHECK(Flat<float>(Run("TensorMapLookup", kv,
                        {m2.out(0), Tensor::Scalar<std::string>("a")})
                        .out(0)) == "[] 1.5");
  KernelRun missing =
      Run("TensorMapLookup", kv, {m3.out(0), Tensor::Scalar<std::string>("a")});
  CHECK(missing.status.message() ==
        "Trying to lookup non-existent key. Could not find key \"a\".");
}

TEST_CASE("CSR matrices: AMD ordering, Cholesky and products as Eigen",
          "[sparse_ext]") {
  const std::string f64 = Attr("type", "type: DT_DOUBLE");
  KernelRun m =
      Run("DenseToCSRSparseMatrix", Attr("T", "type: DT_DOUBLE"),
          {MakeTensor<double>({3, 3}, {4, 1, 0, 1, 3, 0, 0, 0, 2}),
           MakeTensor<int64_t>({5, 2}, {0, 0, 0, 1, 1, 0, 1, 1, 2, 2})});
  REQUIRE(m.status.ok());
  KernelRun perm = Run("SparseMatrixOrderingAMD", "", {m.out(0)});
  REQUIRE(perm.status.ok());
  CHECK(Flat<int32_t>(perm.out(0)) == "[3] 2 0 1");
  KernelRun l = Run("SparseMatrixSparseCholesky", f64, {m.out(0), perm.out(0)});
  REQUIRE(l.status.ok());
  KernelRun lc = Run("CSRSparseMatrixComponents", f64,
                     {l.out(0), Tensor::Scalar<int32_t>(0)});
  REQUIRE(lc.status.ok());
  CHECK(Flat<int32_t>(lc.out(0)) == "[4] 0 1 2 4");
  CHECK(Flat<int32_t>(lc.out(1)) == "[4] 0 1 1 2");
  CHECK(Flat<double>(lc.out(2)) ==
        "[4] 1.4142135623730951 2 0.5 1.6583123951777");
  KernelRun c = Run("SparseMatrixSparseMatMul", f64, {m.out(0), m.out(0)});
  REQUIRE(c.status.ok());
  KernelRun cc = Run("CSRSparseMatrixComponents", f64,
                     {c.out(0), Tensor::Scalar<int32_t>(0)});
  CHECK(Flat<int32_t>(cc.out(0)) == "[4] 0 2 4 5");
  CHECK(Flat<double>(cc.out(2)) == "[5] 17 7 7 10 4");
  KernelRun d =
      Run("SparseMatrixMatMul",
          Attr("T", "type: DT_DOUBLE") + Attr("transpose_output", "b: true"),
          {m.out(0), MakeTensor<double>({3, 1}, {1, 1, 1})});
  REQUIRE(d.status.ok());
  CHECK(Flat<double>(d.out(0)) == "[1,3] 5 4 2");
}

TEST_CASE("AddManySparseToTensorsMap numbers the rows with entries first",
          "[sparse_ext]") {
  const std::string attrs =
      Attr("T", "type: DT_FLOAT") + Attr("shared_name", "s: 'm'");
  KernelRun add =
      Run("AddManySparseToTensorsMap", attrs,
          {MakeTensor<int64_t>({2, 2}, {1, 0, 1, 2}),
           MakeTensor<float>({2}, {1, 2}), MakeTensor<int64_t>({2}, {3, 4})});
  REQUIRE(add.status.ok());
  // Rows with entries are numbered first, then the empty ones.
  CHECK(Flat<int64_t>(add.out(0)) == "[3] 1 0 2");
}

TEST_CASE("CompositeTensorVariant round-trips its components", "[sparse_ext]") {
  const std::string meta = Attr("metadata", "s: '\\n\\002\\010\\r'");
  KernelRun enc = Run("CompositeTensorVariantFromComponents",
                      meta + Attr("Tcomponents", "list { type: DT_INT32 }"),
                      {MakeTensor<int32_t>({2}, {7, 8})});
  REQUIRE(enc.status.ok());
  KernelRun dec =
      Run("CompositeTensorVariantToComponents",
          meta + Attr("Tcomponents", "list { type: DT_INT32 }"), {enc.out(0)});
  REQUIRE(dec.status.ok());
  CHECK(Flat<int32_t>(dec.out(0)) == "[2] 7 8");
  KernelRun bad =
      Run("CompositeTensorVariantToComponents",
          meta + Attr("Tcomponents", "list { type: DT_FLOAT }"), {enc.out(0)});
  CHECK(bad.status.message() ==
        "Tensor component 0 had dtype DT_INT32; expected dtype DT_FLOAT");
}

TEST_CASE("RaggedTensorToVariantGradient zero-fills missing variants",
          "[sparse_ext]") {
  Tensor grads(tensorflow::DT_VARIANT, TensorShape({2}));
  KernelRun r =
      Run("RaggedTensorToVariantGradient",
          Attr("Tvalues", "type: DT_FLOAT") + Attr("Tsplits", "type: DT_INT64"),
          {grads, MakeTensor<int64_t>({3}, {0, 1, 3}),
           MakeTensor<int32_t>({2}, {3, 2})});
  REQUIRE(r.status.ok());
  CHECK(Flat<float>(r.out(0)) == "[3,2] 0 0 0 0 0 0");
}

}  // namespace
}  // namespace dfg
