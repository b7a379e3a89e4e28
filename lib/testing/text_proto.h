// Test inputs as inline text protos (STYLE.md: "inputs are inline text
// protos"): ParseTextProto<tensorflow::GraphDef>(R"pb(node { ... })pb"), and
// the nodes that test graphs repeat, one call each instead of the fifteen
// lines clang-format lays them out in:
//   ScalarConstText("a", "DT_FLOAT", "float_val: 2") + R"pb(node { ... })pb".
#ifndef DFG_LIB_TESTING_TEXT_PROTO_H_
#define DFG_LIB_TESTING_TEXT_PROTO_H_

#include <google/protobuf/text_format.h>

#include <string>
#include <string_view>
#include <vector>

#include "lib/testing/catch.h"

namespace dfg::testing {

// `text` parsed as a text-format T; the test fails (REQUIRE), showing the
// text, when it does not parse.
template <typename T>
T ParseTextProto(std::string_view text) {
  T message;
  INFO(text);
  REQUIRE(google::protobuf::TextFormat::ParseFromString(std::string(text),
                                                        &message));
  return message;
}

// A scalar Const as text: FIELD { name: "NAME" op: "Const" attr { key:
// "dtype" ... } attr { key: "value" value { tensor { dtype: DTYPE
// tensor_shape {} VALUE } } } }, with VALUE e.g. "float_val: 2"; FIELD is
// "node" in a GraphDef, "node_def" in a FunctionDef.
inline std::string ScalarConstText(std::string_view name,
                                   std::string_view dtype,
                                   std::string_view value,
                                   std::string_view field = "node") {
  const std::string type(dtype);
  return std::string(field) + " { name: \"" + std::string(name) +
         "\" op: \"Const\" attr { key: \"dtype\" value { type: " + type +
         " } } attr { key: \"value\" value { tensor { dtype: " + type +
         " tensor_shape {} " + std::string(value) + " } } } }\n";
}

// A Placeholder as text, with a "shape" attr when SHAPE (the inside of a
// TensorShapeProto, e.g. "dim { size: -1 }" or "unknown_rank: true") is
// given.
inline std::string PlaceholderText(std::string_view name,
                                   std::string_view dtype,
                                   std::string_view shape = "") {
  std::string text = "node { name: \"" + std::string(name) +
                     "\" op: \"Placeholder\" attr { key: \"dtype\" value { "
                     "type: " +
                     std::string(dtype) + " } }";
  if (!shape.empty()) {
    text += " attr { key: \"shape\" value { shape { " + std::string(shape) +
            " } } }";
  }
  return text + " }\n";
}

// A call of function FUNC through OP (PartitionedCall, SymbolicGradient):
// node { name op input... attr Tin attr Tout attr f }, the Tin and Tout
// lists given as dtype names ("DT_FLOAT").
inline std::string CallNodeText(std::string_view name, std::string_view op,
                                const std::vector<std::string>& inputs,
                                const std::vector<std::string>& tin,
                                const std::vector<std::string>& tout,
                                std::string_view func) {
  auto types = [](const std::vector<std::string>& dtypes) {
    std::string list;
    for (const std::string& t : dtypes) list += " type: " + t;
    return list;
  };
  std::string text = "node { name: \"" + std::string(name) + "\" op: \"" +
                     std::string(op) + "\"";
  for (const std::string& input : inputs) text += " input: \"" + input + "\"";
  return text + " attr { key: \"Tin\" value { list {" + types(tin) +
         " } } } attr { key: \"Tout\" value { list {" + types(tout) +
         " } } } attr { key: \"f\" value { func { name: \"" +
         std::string(func) + "\" } } } }\n";
}

}  // namespace dfg::testing

#endif  // DFG_LIB_TESTING_TEXT_PROTO_H_
