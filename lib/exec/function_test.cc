// Library functions at run time: instantiation of a FunctionDef, and the
// functional ops (If, Case, While, PartitionedCall, calls by op name) run
// through a Session.
#include <functional>

#include "lib/exec/function_runtime.h"
#include "lib/exec/session.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

GraphDef Parse(const std::string& text) {
  return testing::ParseTextProto<GraphDef>(text);
}

// Runs `def`, feeding scalar float x (when given), fetching `fetches`.
Status RunGraph(const std::string& text,
                const std::vector<std::pair<std::string, Tensor>>& feeds,
                const std::vector<std::string>& fetches,
                std::vector<Tensor>* out) {
  SessionOptions options;
  options.inter_op_threads = 2;
  auto session = Session::Create(Parse(text), options);
  if (!session.ok()) return session.status();
  return (*session)->Run(feeds, fetches, {}, out);
}

// A polymorphic function: times_two(x: T) -> y: T = x + x, with a body
// input spelled "node:out_arg:index".
const char kLibrary[] = R"pb(
  library {
    function {
      signature {
        name: "times_two"
        input_arg { name: "x" type_attr: "T" }
        output_arg { name: "y" type_attr: "T" }
        attr { name: "T" type: "type" }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "x"
        input: "x"
        attr {
          key: "T"
          value { placeholder: "T" }
        }
      }
      ret { key: "y" value: "add:z:0" }
    }
    function {
      signature {
        name: "negate"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "neg"
        op: "Neg"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "neg:y:0" }
    }
    function {
      signature {
        name: "less_than_100"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        output_arg { name: "c" type: DT_BOOL }
      }
      node_def {
        name: "limit"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 100
            }
          }
        }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "i"
        input: "limit:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "c" value: "less:z:0" }
    }
    function {
      signature {
        name: "step"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "acc_next" type: DT_FLOAT }
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 1
            }
          }
        }
      }
      node_def {
        name: "inc"
        op: "AddV2"
        input: "i"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "twice"
        op: "times_two"
        input: "acc"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "i_next" value: "inc:z:0" }
      ret { key: "acc_next" value: "twice:y:0" }
    }
  }
)pb";

std::string WithLibrary(const std::string& nodes) { return nodes + kLibrary; }

const std::string kPlaceholderX = testing::PlaceholderText("x", "DT_FLOAT");

TEST_CASE("a function body is instantiated with _Arg and _Retval nodes",
          "[exec][function]") {
  GraphDef def = Parse(kLibrary);
  google::protobuf::Map<std::string, tensorflow::AttrValue> attrs;
  attrs["T"].set_type(tensorflow::DT_INT32);
  auto body =
      InstantiateFunction(def.library().function(0), attrs, def.library());
  REQUIRE(body.ok());
  REQUIRE(body->node_size() == 3);
  CHECK(body->node(0).name() == "x");
  CHECK(body->node(0).op() == "_Arg");
  CHECK(body->node(0).attr().at("T").type() == tensorflow::DT_INT32);
  CHECK(body->node(1).attr().at("T").type() == tensorflow::DT_INT32);
  CHECK(body->node(1).input(0) == "x");
  CHECK(body->node(2).name() == "y_RetVal");
  CHECK(body->node(2).op() == "_Retval");
  CHECK(body->node(2).input(0) == "add:0");

  attrs.clear();
  auto missing =
      InstantiateFunction(def.library().function(0), attrs, def.library());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == Code::kNotFound);
  CHECK_THAT(missing.status().message(), Contains("Attr T is not found"));
}

TEST_CASE("a body input that names nothing is an error naming it",
          "[exec][function]") {
  GraphDef def = Parse(kLibrary);
  tensorflow::FunctionDef f = def.library().function(1);
  f.mutable_node_def(0)->set_input(0, "nope:y:0");
  auto body = InstantiateFunction(f, {}, def.library());
  REQUIRE_FALSE(body.ok());
  CHECK_THAT(body.status().message(), Contains("input nope:y:0 is not found"));
}

TEST_CASE("PartitionedCall runs its function", "[exec][function]") {
  std::string g = WithLibrary(std::string(kPlaceholderX) + R"pb(
    node {
      name: "call"
      op: "StatefulPartitionedCall"
      input: "x"
      attr {
        key: "Tin"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "Tout"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "f"
        value {
          func {
            name: "times_two"
            attr {
              key: "T"
              value { type: DT_FLOAT }
            }
          }
        }
      }
    }
  )pb");
  std::vector<Tensor> out;
  Status s = RunGraph(g, {{"x", Tensor::Scalar<float>(3)}}, {"call"}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(out[0].scalar<float>() == 6);
}

TEST_CASE("a node whose op is a library function calls it",
          "[exec][function]") {
  std::string g = WithLibrary(std::string(kPlaceholderX) + R"pb(
    node {
      name: "call"
      op: "times_two"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb");
  std::vector<Tensor> out;
  Status s = RunGraph(g, {{"x", Tensor::Scalar<float>(-4)}}, {"call"}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(out[0].scalar<float>() == -8);
}

std::string IfGraph(const std::string& cond_dtype) {
  return WithLibrary(std::string(kPlaceholderX) + R"pb(
                       node { name: "c" op: "Placeholder"
                              attr { key: "dtype"
                                     value { type:)pb" +
                     cond_dtype + R"pb(}
                                       }
    }
    node {
      name: "if"
      op: "StatelessIf"
      input: "c"
      input: "x"
      attr {
        key: "Tcond"
        value { type: )pb" +
                     cond_dtype + R"pb(}
                                       }
      attr {
        key: "Tin"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "Tout"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "then_branch"
        value {
          func {
            name: "times_two"
            attr {
              key: "T"
              value { type: DT_FLOAT }
            }
          }
        }
      }
      attr {
        key: "else_branch"
        value { func { name: "negate" } }
      }
    }
  )pb");
}

TEST_CASE("If runs the branch its condition picks", "[exec][function]") {
  std::vector<Tensor> out;
  REQUIRE(RunGraph(IfGraph("DT_BOOL"),
                   {{"c", Tensor::Scalar<bool>(true)},
                    {"x", Tensor::Scalar<float>(5)}},
                   {"if"}, &out)
              .ok());
  CHECK(out[0].scalar<float>() == 10);
  REQUIRE(RunGraph(IfGraph("DT_BOOL"),
                   {{"c", Tensor::Scalar<bool>(false)},
                    {"x", Tensor::Scalar<float>(5)}},
                   {"if"}, &out)
              .ok());
  CHECK(out[0].scalar<float>() == -5);
  // A non-scalar condition is true when it has elements.
  REQUIRE(RunGraph(IfGraph("DT_INT32"),
                   {{"c", Tensor::Vector<int32_t>({0})},
                    {"x", Tensor::Scalar<float>(5)}},
                   {"if"}, &out)
              .ok());
  CHECK(out[0].scalar<float>() == 10);
  REQUIRE(RunGraph(IfGraph("DT_INT32"),
                   {{"c", Tensor::Scalar<int32_t>(0)},
                    {"x", Tensor::Scalar<float>(5)}},
                   {"if"}, &out)
              .ok());
  CHECK(out[0].scalar<float>() == -5);
}

TEST_CASE("While iterates its body until the condition is false",
          "[exec][function]") {
  std::string g = WithLibrary(
      std::string(kPlaceholderX) +
      testing::ScalarConstText("zero", "DT_INT32", "int_val: 90") + R"pb(
        node {
          name: "loop"
          op: "While"
          input: "zero"
          input: "x"
          attr {
            key: "T"
            value { list { type: DT_INT32 type: DT_FLOAT } }
          }
          attr {
            key: "cond"
            value { func { name: "less_than_100" } }
          }
          attr {
            key: "body"
            value { func { name: "step" } }
          }
        }
      )pb");
  std::vector<Tensor> out;
  Status s = RunGraph(g, {{"x", Tensor::Scalar<float>(1)}},
                      {"loop:0", "loop:1"}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(out[0].scalar<int32_t>() == 100);
  CHECK(out[1].scalar<float>() == 1024);
}

TEST_CASE("calling a function the library lacks names it", "[exec][function]") {
  std::string g = WithLibrary(
      std::string(kPlaceholderX) +
      testing::CallNodeText("call", "PartitionedCall", {"x"}, {"DT_FLOAT"},
                            {"DT_FLOAT"}, "no_such_function"));
  std::vector<Tensor> out;
  Status s = RunGraph(g, {{"x", Tensor::Scalar<float>(1)}}, {"call"}, &out);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(),
             Contains("Function no_such_function is not defined."));
  CHECK_THAT(s.message(), Contains("{{node call}}"));
}

// A library of `n` functions f0..f{n-1} of one float: f{i} calls `callee(i)`
// by op name ("" ends the chain with an Identity).
std::string ChainLibrary(int n, const std::function<std::string(int)>& callee) {
  std::string lib = "library {\n";
  for (int i = 0; i < n; ++i) {
    std::string called = callee(i);
    std::string body =
        called.empty()
            ? "node_def { name: 'c' op: 'Identity' input: 'a' attr { key: 'T' "
              "value { type: DT_FLOAT } } } ret { key: 'b' value: "
              "'c:output:0' }"
            : "node_def { name: 'c' op: '" + called +
                  "' input: 'a' } ret { key: 'b' value: 'c:b:0' }";
    lib += "function { signature { name: 'f" + std::to_string(i) +
           "' input_arg { name: 'a' type: DT_FLOAT } output_arg { name: 'b' "
           "type: DT_FLOAT } } " +
           body + " }\n";
  }
  return lib + "}\n";
}

Status RunChain(const std::string& library, bool optimize,
                std::vector<Tensor>* out) {
  SessionOptions options;
  options.optimize = optimize;
  auto session = Session::Create(
      Parse(kPlaceholderX + "node { name: 'y' op: 'f0' input: 'x' }\n" +
            library),
      options);
  if (!session.ok()) return session.status();
  return (*session)->Run({{"x", Tensor::Scalar<float>(3)}}, {"y"}, {}, out);
}

TEST_CASE("a function that calls itself is refused with TensorFlow's message",
          "[exec][function]") {
  std::string lib = ChainLibrary(1, [](int) { return "f0"; });
  for (bool optimize : {false, true}) {
    std::vector<Tensor> out;
    Status s = RunChain(lib, optimize, &out);
    INFO(s.ToString());
    CHECK(s.code() == Code::kUnimplemented);
    CHECK_THAT(s.message(),
               Contains("Recursive function calls are not supported. Node "
                        "{{node c}} inside the body of {{function_node f0}} "
                        "calls function {{function_node f0}} which is "
                        "already present in the call stack"));
  }
}

TEST_CASE("mutually recursive functions are refused, naming the cycle",
          "[exec][function]") {
  // f0 -> f1 -> f2 -> f1: f0 is not recursive, f1 and f2 are.
  std::string lib = ChainLibrary(
      3, [](int i) { return i == 2 ? "f1" : "f" + std::to_string(i + 1); });
  std::vector<Tensor> out;
  Status s = RunChain(lib, false, &out);
  INFO(s.ToString());
  CHECK(s.code() == Code::kUnimplemented);
  CHECK_THAT(s.message(), Contains("inside the body of {{function_node f2}} "
                                   "calls function {{function_node f1}}"));
  CHECK_THAT(s.message(), Contains("Function {{function_node f1}} contains "
                                   "node {{node c}}"));
}

TEST_CASE("a chain of 1000 nested functions runs, deeper than the limit fails",
          "[exec][function]") {
  auto next = [](int n) {
    return [n](int i) { return i + 1 < n ? "f" + std::to_string(i + 1) : ""; };
  };
  std::vector<Tensor> out;
  Status s = RunChain(ChainLibrary(1000, next(1000)), false, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(out[0].scalar<float>() == 3);
  // Deeper than any thread's stack allows (or than the limit).
  const int too_deep = FunctionRuntime::kMaxCallDepth + 10;
  s = RunChain(ChainLibrary(too_deep, next(too_deep)), false, &out);
  CHECK(s.code() == Code::kResourceExhausted);
  CHECK_THAT(s.message(), Contains("would overflow the thread's stack"));
}

}  // namespace
}  // namespace dfg
