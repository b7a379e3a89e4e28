// SaveV2 / RestoreV2 / MergeV2Checkpoints / ShardedFilename / StringJoin.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "lib/checkpoint/checkpoint_test_util.h"
#include "lib/kernels/bench_pool.h"
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using checkpoint_testing::SavedModelsDir;
using testing::KernelRun;
using testing::MakeTensor;
using testing::Render;
using testing::RunKernel;

struct ScopedDir {
  ScopedDir() {
    static int counter = 0;
    path = (fs::temp_directory_path() /
            fmt::format("dfg_save_restore_{}_{}", ::getpid(), counter++))
               .string();
    fs::create_directories(path);
  }
  ~ScopedDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string path;
};

std::string TypeList(const std::vector<std::string>& types) {
  std::string out;
  for (const auto& t : types) out += " type: " + t;
  return out;
}

std::string SaveNode(const std::vector<std::string>& types) {
  return "name: 'save' op: 'SaveV2' attr { key: 'dtypes' value { list {" +
         TypeList(types) + " } } }";
}

std::string RestoreNode(const std::vector<std::string>& types) {
  return "name: 'restore' op: 'RestoreV2' attr { key: 'dtypes' value { list "
         "{" +
         TypeList(types) + " } } }";
}

Tensor Strings(const std::vector<std::string>& v) {
  return Tensor::Vector<std::string>(v);
}

TEST_CASE("RestoreV2 reads the real TensorFlow checkpoints", "[kernels]") {
  auto dir = SavedModelsDir();
  if (!dir) {
    WARN("no ../shared/savedmodels: RestoreV2 real checkpoint test skipped");
    return;
  }
  std::string tf1 = *dir +
                    "/tfserving__saved_model_half_plus_two_cpu/00000123/"
                    "variables/variables";
  KernelRun run = RunKernel(
      RestoreNode({"DT_FLOAT", "DT_FLOAT", "DT_FLOAT", "DT_FLOAT", "DT_FLOAT"}),
      {Tensor::Scalar<std::string>(tf1), Strings({"c2", "a", "b", "c", "a2"}),
       Strings({"", "", "", "", ""})});
  INFO(run.status.ToString());
  REQUIRE(run.status.ok());
  CHECK(Render(run.out(0)) == "float [] 3");
  CHECK(Render(run.out(1)) == "float [] 0.5");
  CHECK(Render(run.out(2)) == "float [] 2");
  CHECK(Render(run.out(3)) == "float [] 3");
  CHECK(Render(run.out(4)) == "float [] 0.5");

  std::string tf2 = *dir + "/tfjs__times_three_float/variables/variables";
  KernelRun run2 = RunKernel(RestoreNode({"DT_FLOAT", "DT_STRING"}),
                             {Tensor::Scalar<std::string>(tf2),
                              Strings({"v/.ATTRIBUTES/VARIABLE_VALUE",
                                       "_CHECKPOINTABLE_OBJECT_GRAPH"}),
                              Strings({"", ""})});
  INFO(run2.status.ToString());
  REQUIRE(run2.status.ok());
  CHECK(Render(run2.out(0)) == "float [] 3");
  CHECK(run2.out(1).dtype() == tensorflow::DT_STRING);
  CHECK(run2.out(1).dims() == 0);
}

TEST_CASE("SaveV2 then RestoreV2 round-trips every dtype", "[kernels]") {
  ScopedDir tmp;
  std::string prefix = tmp.path + "/sub/model.ckpt";
  std::vector<Tensor> values = {
      MakeTensor<float>({2, 2}, {1.5f, -2, 3, 4}),
      MakeTensor<double>({3}, {1e300, -0.0, 7}),
      MakeTensor<int8_t>({2}, {-128, 127}),
      MakeTensor<uint8_t>({2}, {0, 255}),
      MakeTensor<int16_t>({1}, {-30000}),
      MakeTensor<uint16_t>({1}, {65535}),
      MakeTensor<int32_t>({}, {42}),
      MakeTensor<uint32_t>({1}, {4000000000u}),
      MakeTensor<int64_t>({2}, {int64_t{1} << 62, -1}),
      MakeTensor<uint64_t>({1}, {~uint64_t{0}}),
      MakeTensor<bool>({3}, {true, false, true}),
      MakeTensor<Half>({2}, {FloatToHalf(0.5f), FloatToHalf(-8)}),
      MakeTensor<BFloat16>({1}, {FloatToBFloat16(3.0f)}),
      MakeTensor<std::complex<float>>({1}, {{1.0f, -2.0f}}),
      MakeTensor<std::complex<double>>({1}, {{0.25, 4.0}}),
      MakeTensor<std::string>({2, 1}, {"hello", std::string("\0x", 2)}),
      MakeTensor<float>({0, 3}, {}),
      MakeTensor<std::string>({}, {""}),
  };
  std::vector<std::string> types, names, specs;
  for (size_t i = 0; i < values.size(); ++i) {
    types.push_back("DT_" + [&] {
      std::string s = DataTypeString(values[i].dtype());
      for (char& c : s) c = static_cast<char>(std::toupper(c));
      return s;
    }());
    names.push_back(fmt::format("t{:02d}", i));
    specs.push_back("");
  }
  std::vector<std::optional<Tensor>> inputs = {
      Tensor::Scalar<std::string>(prefix), Strings(names), Strings(specs)};
  for (const Tensor& v : values) inputs.push_back(v);
  auto saver = testing::KernelTester::Create(SaveNode(types));
  REQUIRE(saver.ok());
  KernelRun saved = (*saver)->Run(inputs);
  INFO(saved.status.ToString());
  REQUIRE(saved.status.ok());
  CHECK(fs::exists(prefix + ".index"));

  // Restore in reverse order: outputs follow tensor_names, not file order.
  std::vector<std::string> rtypes(types.rbegin(), types.rend());
  std::vector<std::string> rnames(names.rbegin(), names.rend());
  KernelRun restored = RunKernel(
      RestoreNode(rtypes),
      {Tensor::Scalar<std::string>(prefix), Strings(rnames), Strings(specs)});
  INFO(restored.status.ToString());
  REQUIRE(restored.status.ok());
  for (size_t i = 0; i < values.size(); ++i) {
    INFO(names[i]);
    CHECK(Render(restored.out(static_cast<int>(values.size() - 1 - i))) ==
          Render(values[i]));
  }
}

TEST_CASE("RestoreV2 reads big tensors in ranges on the intra-op pool",
          "[kernels]") {
  ScopedDir tmp;
  std::string prefix = tmp.path + "/ckpt";
  // 12 MiB + 4 bytes: two ranges of kRestoreRangeBytes and a short one.
  const int64_t n = 3 * (int64_t{1} << 20) + 1;
  Tensor big(tensorflow::DT_FLOAT, TensorShape({n}));
  auto flat = big.flat<float>();
  for (int64_t i = 0; i < n; ++i) flat[i] = static_cast<float>(i % 1000003);
  auto saver =
      testing::KernelTester::Create(SaveNode({"DT_FLOAT", "DT_STRING"}));
  REQUIRE(saver.ok());
  REQUIRE(
      (*saver)
          ->Run({Tensor::Scalar<std::string>(prefix), Strings({"big", "words"}),
                 Strings({"", ""}), big, Strings({"a", "bc"})})
          .status.ok());
  BenchPool pool(2);
  auto restore = [&] {
    auto tester =
        testing::KernelTester::Create(RestoreNode({"DT_STRING", "DT_FLOAT"}));
    DFG_CHECK(tester.ok());
    (*tester)->services().intra_op_pool = &pool;
    return (*tester)->Run({Tensor::Scalar<std::string>(prefix),
                           Strings({"words", "big"}), Strings({"", ""})});
  };
  KernelRun run = restore();
  INFO(run.status.ToString());
  REQUIRE(run.status.ok());
  CHECK(Render(run.out(0)) == "string [2] [\"a\" \"bc\"]");
  REQUIRE(run.out(1).NumElements() == n);
  CHECK(std::memcmp(run.out(1).data(), big.data(), big.TotalBytes()) == 0);

  // A byte of the second range flipped: the joined checksum catches it.
  std::string data = prefix + ".data-00000-of-00001";
  std::string bytes = testing::ReadFileOrDie(data);
  bytes[(size_t{9} << 20) + 3] ^= 0x40;
  checkpoint_testing::WriteBytes(data, bytes);
  KernelRun bad = restore();
  CHECK(bad.status.code() == Code::kDataLoss);
  CHECK_THAT(bad.status.message(), Contains("Checksum does not match"));
  CHECK_THAT(bad.status.message(), Contains("tensor 'big' in " + data));
}

TEST_CASE("RestoreV2 reports TensorFlow's errors", "[kernels]") {
  ScopedDir tmp;
  std::string prefix = tmp.path + "/ckpt";
  auto saver = testing::KernelTester::Create(SaveNode({"DT_FLOAT"}));
  REQUIRE(saver.ok());
  REQUIRE(
      (*saver)
          ->Run({Tensor::Scalar<std::string>(prefix), Strings({"w"}),
                 Strings({""}), MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})})
          .status.ok());
  auto restore = [&](const std::string& type, const std::string& name,
                     const std::string& spec, const std::string& p) {
    return RunKernel(RestoreNode({type}), {Tensor::Scalar<std::string>(p),
                                           Strings({name}), Strings({spec})});
  };
  KernelRun missing_key = restore("DT_FLOAT", "v", "", prefix);
  CHECK(missing_key.status.code() == Code::kNotFound);
  CHECK_THAT(missing_key.status.message(),
             Contains("Key v not found in checkpoint " + prefix));

  KernelRun wrong_dtype = restore("DT_INT32", "w", "", prefix);
  CHECK(wrong_dtype.status.code() == Code::kInvalidArgument);
  CHECK_THAT(wrong_dtype.status.message(),
             Contains("tensor_name = w; expected dtype int32 does not equal "
                      "original dtype float"));

  KernelRun wrong_shape = restore("DT_FLOAT", "w", "3 2 -:-", prefix);
  CHECK(wrong_shape.status.code() == Code::kInvalidArgument);
  CHECK_THAT(wrong_shape.status.message(),
             Contains("does not match the shape stored in checkpoint: [2,3]"));

  KernelRun no_file = restore("DT_FLOAT", "w", "", tmp.path + "/none");
  CHECK(no_file.status.code() == Code::kNotFound);
  CHECK_THAT(no_file.status.message(),
             Contains("Unsuccessful TensorSliceReader constructor: Failed to "
                      "find any matching files for " +
                      tmp.path + "/none"));

  KernelRun count = RunKernel(
      RestoreNode({"DT_FLOAT", "DT_FLOAT"}),
      {Tensor::Scalar<std::string>(prefix), Strings({"w"}), Strings({""})});
  CHECK_THAT(count.status.message(),
             Contains("Got 1 tensor names, but 2 expected dtypes."));

  // A slice of a tensor stored whole.
  KernelRun slice = restore("DT_FLOAT", "w", "2 3 1,1:0,2", prefix);
  INFO(slice.status.ToString());
  REQUIRE(slice.status.ok());
  CHECK(Render(slice.out(0)) == "float [1,2] [[4 5]]");
  KernelRun full = restore("DT_FLOAT", "w", "2 3 -:-", prefix);
  REQUIRE(full.status.ok());
  CHECK(Render(full.out(0)) == "float [2,3] [[1 2 3]\n [4 5 6]]");
}

TEST_CASE("SaveV2 of slices and RestoreV2 of slices across the pieces",
          "[kernels]") {
  ScopedDir tmp;
  std::string prefix = tmp.path + "/ckpt";
  // A [2,3] float tensor saved as two row pieces by one SaveV2.
  auto saver =
      testing::KernelTester::Create(SaveNode({"DT_FLOAT", "DT_FLOAT"}));
  REQUIRE(saver.ok());
  KernelRun saved =
      (*saver)->Run({Tensor::Scalar<std::string>(prefix), Strings({"w", "w"}),
                     Strings({"2 3 0,1:-", "2 3 1,1:-"}),
                     MakeTensor<float>({1, 3}, {1, 2, 3}),
                     MakeTensor<float>({1, 3}, {4, 5, 6})});
  INFO(saved.status.ToString());
  REQUIRE(saved.status.ok());
  auto restore = [&](const std::string& spec) {
    return RunKernel(
        RestoreNode({"DT_FLOAT"}),
        {Tensor::Scalar<std::string>(prefix), Strings({"w"}), Strings({spec})});
  };
  KernelRun whole = restore("");
  INFO(whole.status.ToString());
  REQUIRE(whole.status.ok());
  CHECK(Render(whole.out(0)) == "float [2,3] [[1 2 3]\n [4 5 6]]");
  KernelRun column = restore("2 3 -:2,1");
  REQUIRE(column.status.ok());
  CHECK(Render(column.out(0)) == "float [2,1] [[3]\n [6]]");

  KernelRun mismatch =
      (*saver)->Run({Tensor::Scalar<std::string>(prefix), Strings({"w", "x"}),
                     Strings({"2 3 0,1:-", ""}),
                     MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                     MakeTensor<float>({1}, {1})});
  CHECK(mismatch.status.code() == Code::kInvalidArgument);
  CHECK_THAT(mismatch.status.message(),
             Contains("Slice in shape_and_slice specification does not match "
                      "the shape of the tensor to  save: 2 3 0,1:-"));
  KernelRun bad_spec = restore("2 3 zz");
  CHECK(bad_spec.status.code() == Code::kInvalidArgument);
}

TEST_CASE("MergeV2Checkpoints merges sharded saves", "[kernels]") {
  ScopedDir tmp;
  std::vector<std::string> parts;
  for (int shard = 0; shard < 2; ++shard) {
    KernelRun name =
        RunKernel("name: 'n' op: 'ShardedFilename'",
                  {Tensor::Scalar<std::string>(tmp.path + "/tmp/part"),
                   Tensor::Scalar<int32_t>(shard), Tensor::Scalar<int32_t>(2)});
    REQUIRE(name.status.ok());
    parts.push_back(name.out(0).scalar<std::string>());
    auto saver = testing::KernelTester::Create(SaveNode({"DT_INT32"}));
    REQUIRE(saver.ok());
    REQUIRE((*saver)
                ->Run({Tensor::Scalar<std::string>(parts.back()),
                       Strings({fmt::format("v{}", shard)}), Strings({""}),
                       Tensor::Scalar<int32_t>(shard + 10)})
                .status.ok());
  }
  CHECK(parts[1] == tmp.path + "/tmp/part-00001-of-00002");
  std::string final_prefix = tmp.path + "/model";
  KernelRun merged =
      RunKernel("name: 'm' op: 'MergeV2Checkpoints'",
                {Strings(parts), Tensor::Scalar<std::string>(final_prefix)});
  INFO(merged.status.ToString());
  REQUIRE(merged.status.ok());
  CHECK_FALSE(fs::exists(tmp.path + "/tmp"));  // delete_old_dirs defaults on
  KernelRun restored = RunKernel(RestoreNode({"DT_INT32", "DT_INT32"}),
                                 {Tensor::Scalar<std::string>(final_prefix),
                                  Strings({"v1", "v0"}), Strings({"", ""})});
  REQUIRE(restored.status.ok());
  CHECK(Render(restored.out(0)) == "int32 [] 11");
  CHECK(Render(restored.out(1)) == "int32 [] 10");

  KernelRun spec =
      RunKernel("name: 's' op: 'ShardedFilespec'",
                {Tensor::Scalar<std::string>("b"), Tensor::Scalar<int32_t>(3)});
  REQUIRE(spec.status.ok());
  CHECK(spec.out(0).scalar<std::string>() == "b-?\?\?\?\?-of-00003");
  KernelRun bad = RunKernel("name: 'n' op: 'ShardedFilename'",
                            {Strings({"a", "b"}), Tensor::Scalar<int32_t>(0),
                             Tensor::Scalar<int32_t>(1)});
  CHECK_THAT(bad.status.message(),
             Contains("basename must be a scalar, got shape [2]"));
}

TEST_CASE("StringJoin joins element-wise and broadcasts scalars", "[kernels]") {
  KernelRun run = RunKernel(
      "name: 'j' op: 'StringJoin' attr { key: 'N' value { i: 3 } } attr { "
      "key: 'separator' value { s: '/' } }",
      {Strings({"a", "b"}), Tensor::Scalar<std::string>("x"),
       Strings({"1", "2"})});
  REQUIRE(run.status.ok());
  CHECK(Render(run.out(0)) == "string [2] [\"a/x/1\" \"b/x/2\"]");
  KernelRun bad =
      RunKernel("name: 'j' op: 'StringJoin' attr { key: 'N' value { i: 2 } }",
                {Strings({"a", "b"}), Strings({"c"})});
  CHECK(bad.status.code() == Code::kInvalidArgument);
  CHECK_THAT(bad.status.message(), Contains("Input shapes do not match"));
}

}  // namespace
}  // namespace dfg
