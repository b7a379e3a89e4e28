#include "lib/kernels/kernel_registry.h"

#include <memory>
#include <vector>

#include "lib/kernels/kernel_test_util.h"
#include "lib/kernels/rendezvous_interface.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

NodeDef Node(const std::string& text) {
  return testing::ParseTextProto<NodeDef>(text);
}

TEST_CASE("the registry finds kernels by op and dtype", "[kernels]") {
  const KernelRegistry& r = KernelRegistry::Global();
  CHECK(r.HasKernel(Node("name: 'a' op: 'Identity' attr { key: 'T' value { "
                         "type: DT_FLOAT } }"),
                    "CPU"));
  CHECK_FALSE(r.HasKernel(Node("name: 'a' op: 'Identity'"), "GPU"));
  CHECK(r.HasKernel(Node("name: 'a' op: 'Add' attr { key: 'T' value { type: "
                         "DT_STRING } }"),
                    "CPU"));
  CHECK_FALSE(r.HasKernel(Node("name: 'a' op: 'AddV2' attr { key: 'T' value "
                               "{ type: DT_STRING } }"),
                          "CPU"));
  const auto names = r.OpNames("CPU");
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::count(names.begin(), names.end(), "MatMul") == 1);
}

TEST_CASE("an op without a kernel is reported with TensorFlow's wording",
          "[kernels]") {
  const NodeDef n =
      Node("name: 'x' op: 'AddV2' attr { key: 'T' value { type: DT_BOOL } }");
  auto k = KernelRegistry::Global().CreateKernel(
      n, "CPU", {tensorflow::DT_BOOL, tensorflow::DT_BOOL},
      {tensorflow::DT_BOOL});
  REQUIRE_FALSE(k.ok());
  CHECK(k.status().code() == Code::kInvalidArgument);
  CHECK_THAT(k.status().message(),
             Contains("No OpKernel was registered to support Op 'AddV2' used "
                      "by {{node x}} with these attrs: [T=DT_BOOL]"));
  CHECK_THAT(k.status().message(), Contains("device='CPU'; T in [DT_FLOAT"));
  auto unknown = KernelRegistry::Global().CreateKernel(
      Node("name: 'y' op: 'NoSuchOp'"), "CPU", {}, {});
  CHECK_THAT(unknown.status().message(), Contains("<no registered kernels>"));
}

TEST_CASE("a kernel copies its definition unless told it outlives it",
          "[kernels]") {
  const std::vector<DataType> types = {tensorflow::DT_FLOAT};
  auto copied = std::make_unique<NodeDef>(
      Node("name: 'a' op: 'Identity' attr { key: 'T' value { type: DT_FLOAT "
           "} }"));
  auto in = std::make_unique<std::vector<DataType>>(types);
  auto out = std::make_unique<std::vector<DataType>>(types);
  auto k = KernelRegistry::Global().CreateKernel(*copied, "CPU", *in, *out);
  REQUIRE(k.ok());
  // The copies live on after what they were made from (AddressSanitizer
  // reports a kernel that kept references).
  copied.reset();
  in.reset();
  out.reset();
  CHECK((*k)->name() == "a");
  CHECK((*k)->type_string() == "Identity");
  CHECK((*k)->output_types() == types);
  CHECK((*k)->input_type(0) == tensorflow::DT_FLOAT);

  // An executor's graph outlives its kernels: they refer to its NodeDefs
  // and dtype vectors instead of holding a second copy of each.
  const NodeDef shared = Node(
      "name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} "
      "float_val: 2 } } }");
  const std::vector<DataType> none;
  auto b =
      KernelRegistry::Global().CreateKernel(shared, "CPU", none, types, true);
  REQUIRE(b.ok());
  CHECK(&(*b)->def() == &shared);
  CHECK(&(*b)->output_types() == &types);
  CHECK(&(*b)->input_types() == &none);
  // Const strips its value from a copy of its own only.
  CHECK(shared.attr().contains("value"));
  REQUIRE((*b)->const_tensor() != nullptr);
  CHECK((*b)->const_tensor()->scalar<float>() == 2.0f);
}

TEST_CASE("kernel construction errors name the node", "[kernels]") {
  auto run = testing::RunKernel(
      "name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} "
      "int_val: 1 } } }",
      {});
  CHECK(run.status.code() == Code::kInvalidArgument);
  CHECK(run.status.message() ==
        "Type mismatch between value "
        "(int32) and dtype (float)\n\t [[{{node c}}]]");
}

TEST_CASE("rendezvous keys follow TensorFlow's format", "[kernels]") {
  const std::string key =
      CreateKey("/job:a/replica:0/task:0/cpu:0", 1,
                "/job:a/replica:0/task:0/cpu:1", "edge_1_A1", {0, 0});
  CHECK(key ==
        "/job:a/replica:0/task:0/cpu:0;0000000000000001;"
        "/job:a/replica:0/task:0/cpu:1;edge_1_A1;0:0");
  ParsedKey parsed;
  REQUIRE(ParseKey(key, &parsed).ok());
  ParsedKey copy = parsed;  // views must follow the copy
  CHECK(copy.src_device() == "/job:a/replica:0/task:0/cpu:0");
  CHECK(copy.dst_device() == "/job:a/replica:0/task:0/cpu:1");
  CHECK(copy.edge_name() == "edge_1_A1");
  CHECK(copy.src_incarnation() == 1);
  CHECK(CreateKey("/cpu:0", 0xabc, "/cpu:1", "t", {7, 3}) ==
        "/cpu:0;0000000000000abc;/cpu:1;t;7:3");
  for (const char* bad : {"a;b", "/cpu:0;zz;/cpu:1;t;0:0",
                          "/cpu:0;1;/cpu:1;;0:0", "/cpu:0;1;/cpu:1;t;0:0;x"}) {
    Status s = ParseKey(bad, &parsed);
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK(s.message() == std::string("Invalid  rendezvous key: ") + bad);
  }
}

TEST_CASE("AttachNodeDef appends the node as TensorFlow does", "[kernels]") {
  NodeDef n;
  n.set_name("dense/MatMul");
  CHECK(AttachNodeDef(InvalidArgument("boom"), n).message() ==
        "boom\n\t [[{{node dense/MatMul}}]]");
  CHECK(AttachNodeDef(Status::Ok(), n).ok());
}

}  // namespace
}  // namespace dfg
