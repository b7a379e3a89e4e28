// TensorList kernels: lists as immutable DT_VARIANT scalars. Expected values
// follow TensorFlow 2.21's tf.raw_ops on the same inputs (unset elements read
// as zeros of the element shape; a "modified" list leaves its input alone).
#include "lib/kernels/kernel_test_util.h"
#include "lib/kernels/variant.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::KernelRun;
using testing::MakeTensor;
using testing::Render;
using testing::RunKernel;

const char kElem[] = "attr { key: 'element_dtype' value { type: DT_FLOAT } } ";
const char kShapeType[] =
    "attr { key: 'shape_type' value { type: DT_INT32 } } ";

std::string Node(const std::string& op, const std::string& extra = "") {
  return "name: 'l' op: '" + op + "' " + kElem + extra;
}

Tensor Run1(const std::string& node, std::initializer_list<Tensor> in,
            int out = 0) {
  KernelRun r = RunKernel(node, in);
  INFO(r.status.ToString());
  REQUIRE(r.status.ok());
  return r.out(out);
}

const Tensor kUnknown = Tensor::Scalar<int32_t>(-1);

TEST_CASE("TensorListReserve, SetItem, GetItem and Stack", "[train]") {
  const Tensor list =
      Run1(Node("TensorListReserve", kShapeType),
           {MakeTensor<int32_t>({2}, {2, 2}), Tensor::Scalar<int32_t>(3)});
  CHECK(list.dtype() == tensorflow::DT_VARIANT);
  CHECK(list.SummarizeValue() == "TensorList");
  const Tensor item = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  const Tensor set =
      Run1(Node("TensorListSetItem"), {list, Tensor::Scalar<int32_t>(0), item});
  CHECK(Render(Run1(Node("TensorListGetItem"),
                    {set, Tensor::Scalar<int32_t>(0), kUnknown})) ==
        "float [2,2] [[1 2]\n [3 4]]");
  // Unset elements read as zeros of the element shape.
  CHECK(Render(Run1(Node("TensorListGetItem"),
                    {set, Tensor::Scalar<int32_t>(2), kUnknown})) ==
        "float [2,2] [[0 0]\n [0 0]]");
  CHECK(Render(Run1(Node("TensorListStack",
                         "attr { key: 'num_elements' value { i: -1 } }"),
                    {set, kUnknown})) ==
        "float [3,2,2] [[[1 2]\n  [3 4]]\n\n [[0 0]\n  [0 0]]\n\n [[0 0]\n  "
        "[0 0]]]");
  // The input list is unchanged.
  CHECK(Render(Run1(Node("TensorListGetItem"),
                    {list, Tensor::Scalar<int32_t>(0), kUnknown})) ==
        "float [2,2] [[0 0]\n [0 0]]");

  KernelRun out = RunKernel(Node("TensorListSetItem"),
                            {list, Tensor::Scalar<int32_t>(3), item});
  CHECK_THAT(out.status.message(),
             Catch::Matchers::Contains(
                 "Trying to modify element 3 in a list with 3 elements."));
  KernelRun shape = RunKernel(
      Node("TensorListSetItem"),
      {list, Tensor::Scalar<int32_t>(0), MakeTensor<float>({3}, {1, 2, 3})});
  CHECK_THAT(shape.status.message(),
             Catch::Matchers::Contains("incompatible shape"));
  KernelRun dtype = RunKernel(
      "name: 'l' op: 'TensorListGetItem' attr { key: 'element_dtype' value { "
      "type: DT_INT32 } }",
      {list, Tensor::Scalar<int32_t>(0), kUnknown});
  CHECK_THAT(dtype.status.message(),
             Catch::Matchers::Contains("Invalid data types; op elements int32 "
                                       "but list elements float"));
  KernelRun not_list = RunKernel(Node("TensorListGetItem"),
                                 {item, Tensor::Scalar<int32_t>(0), kUnknown});
  CHECK_FALSE(not_list.status.ok());
}

TEST_CASE("A TensorList crosses a TensorProto as TensorFlow encodes it",
          "[train]") {
  const Tensor list =
      Run1(Node("TensorListReserve", kShapeType),
           {MakeTensor<int32_t>({2}, {2, -1}), Tensor::Scalar<int32_t>(3)});
  const Tensor set = Run1(
      Node("TensorListSetItem"),
      {list, Tensor::Scalar<int32_t>(1), MakeTensor<float>({2, 1}, {5, 6})});
  TensorProto typed;
  set.ToProto(&typed, false);
  REQUIRE(typed.variant_val_size() == 1);
  const auto& data = typed.variant_val(0);
  CHECK(data.type_name() == "tensorflow::TensorList");
  REQUIRE(data.tensors_size() == 1);
  CHECK(data.tensors(0).float_val_size() == 2);
  // Unset count 2, indices 0 and 2, DT_FLOAT, max_num_elements -1 (ten
  // bytes), then TensorShapeProto {dim {size: 2} dim {size: -1}}.
  const std::string metadata(
      "\x02\x00\x02\x01"
      "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
      "\x12\x02\x08\x02\x12\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
      31);
  CHECK(data.metadata() == metadata);

  TensorProto content;
  set.ToProto(&content, true);
  CHECK(content.variant_val_size() == 0);
  CHECK_FALSE(content.tensor_content().empty());
  for (const TensorProto* p : {&typed, &content}) {
    StatusOr<Tensor> back = Tensor::FromProto(*p);
    INFO(back.status().ToString());
    REQUIRE(back.ok());
    CHECK(Render(Run1(Node("TensorListStack",
                           "attr { key: 'num_elements' value { i: -1 } }"),
                      {*back, MakeTensor<int32_t>({2}, {2, 1})})) ==
          "float [3,2,1] [[[0]\n  [0]]\n\n [[5]\n  [6]]\n\n [[0]\n  [0]]]");
  }

  TensorProto bad = typed;
  bad.mutable_variant_val(0)->set_type_name("tensorflow::Other");
  CHECK_THAT(
      Tensor::FromProto(bad).status().message(),
      Catch::Matchers::Contains("Could not decode variant with type_name: "
                                "\"tensorflow::Other\""));
  bad = typed;
  bad.mutable_variant_val(0)->set_metadata("\x05");  // 5 unset, no indices
  CHECK(Tensor::FromProto(bad).status().code() == Code::kInvalidArgument);
  bad = content;
  bad.set_tensor_content(content.tensor_content() + "x");
  CHECK(Tensor::FromProto(bad).status().code() == Code::kInvalidArgument);
}

TEST_CASE("EmptyTensorList, PushBack, PopBack, Length, ElementShape",
          "[train]") {
  const Tensor empty =
      Run1(Node("EmptyTensorList", kShapeType),
           {MakeTensor<int32_t>({1}, {-1}), Tensor::Scalar<int32_t>(2)});
  KernelRun pop_empty = RunKernel(Node("TensorListPopBack"), {empty, kUnknown});
  CHECK_THAT(pop_empty.status.message(),
             Catch::Matchers::Contains("Trying to pop from an empty list."));
  KernelRun stack_empty = RunKernel(
      Node("TensorListStack", "attr { key: 'num_elements' value { i: -1 } }"),
      {empty, kUnknown});
  CHECK_THAT(stack_empty.status.message(),
             Catch::Matchers::Contains("Tried to stack elements of an empty "
                                       "list with non-fully-defined "
                                       "element_shape: [?]"));
  Tensor l = empty;
  for (float v : {1.f, 2.f}) {
    l = Run1(Node("TensorListPushBack"), {l, MakeTensor<float>({2}, {v, v})});
  }
  KernelRun full = RunKernel(Node("TensorListPushBack"),
                             {l, MakeTensor<float>({2}, {3, 3})});
  CHECK_THAT(full.status.message(),
             Catch::Matchers::Contains("Tried to push item into a full list"));
  CHECK(Render(Run1("name: 'n' op: 'TensorListLength'", {l})) == "int32 [] 2");
  CHECK(Render(Run1(
            std::string("name: 'n' op: 'TensorListElementShape' ") + kShapeType,
            {l})) == "int32 [1] [-1]");
  KernelRun pop = RunKernel(Node("TensorListPopBack"), {l, kUnknown});
  REQUIRE(pop.status.ok());
  CHECK(Render(pop.out(1)) == "float [2] [2 2]");
  CHECK(Render(Run1("name: 'n' op: 'TensorListLength'", {pop.out(0)})) ==
        "int32 [] 1");
}

TEST_CASE("TensorListFromTensor splits the first dim", "[train]") {
  const Tensor l = Run1(
      std::string("name: 'l' op: 'TensorListFromTensor' ") + kElem + kShapeType,
      {MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}), kUnknown});
  CHECK(Render(Run1(Node("TensorListGetItem"),
                    {l, Tensor::Scalar<int32_t>(1), kUnknown})) ==
        "float [2] [3 4]");
  KernelRun wrong_count = RunKernel(
      Node("TensorListStack", "attr { key: 'num_elements' value { i: 2 } }"),
      {l, kUnknown});
  CHECK_THAT(wrong_count.status.message(),
             Catch::Matchers::Contains("Operation expected a list with 2 "
                                       "elements but got a list with 3 "
                                       "elements."));
  KernelRun scalar = RunKernel(
      std::string("name: 'l' op: 'TensorListFromTensor' ") + kElem + kShapeType,
      {Tensor::Scalar<float>(1), kUnknown});
  CHECK_THAT(scalar.status.message(),
             Catch::Matchers::Contains("Tensor must be at least a vector"));
}

TEST_CASE(
    "AddN and ZerosLike of lists: element by element, unset elements "
    "take the other list's",
    "[train]") {
  const std::string from =
      std::string("name: 'l' op: 'TensorListFromTensor' ") + kElem + kShapeType;
  const Tensor a =
      Run1(from, {MakeTensor<float>({2, 2}, {1, 2, 3, 4}), kUnknown});
  const Tensor reserved =
      Run1(Node("TensorListReserve", kShapeType),
           {MakeTensor<int32_t>({1}, {2}), Tensor::Scalar<int32_t>(2)});
  const Tensor b = Run1(
      Node("TensorListSetItem"),
      {reserved, Tensor::Scalar<int32_t>(1), MakeTensor<float>({2}, {10, 20})});
  const std::string variant = "attr { key: 'T' value { type: DT_VARIANT } } ";
  const std::string add_n =
      "name: 's' op: 'AddN' attr { key: 'N' value { i: 2 } } " + variant;
  const std::string stack =
      Node("TensorListStack", "attr { key: 'num_elements' value { i: -1 } }");
  const Tensor sum = Run1(add_n, {a, b});
  CHECK(Render(Run1(stack, {sum, kUnknown})) ==
        "float [2,2] [[ 1  2]\n [13 24]]");
  const Tensor zeros = Run1("name: 'z' op: 'ZerosLike' " + variant, {a});
  CHECK(Render(Run1(stack, {zeros, kUnknown})) ==
        "float [2,2] [[0 0]\n [0 0]]");

  const Tensor longer =
      Run1(Node("TensorListPushBack"), {a, MakeTensor<float>({2}, {5, 6})});
  KernelRun lengths = RunKernel(add_n, {a, longer});
  CHECK_THAT(
      lengths.status.message(),
      Catch::Matchers::Contains("Trying to add two lists of tensors with "
                                "different lengths. One is 2 and the "
                                "other is 3"));
}

}  // namespace
}  // namespace dfg
