// The remapper's layer-norm fusion: the subgraph Keras' LayerNormalization
// writes (with TensorFlow's `_output_shapes`) becomes one _MklLayerNorm, and
// only when the rewrite is exact. Values: the fused and the plain graph of a
// constant x folded by constant folding (the same kernels `dfg run` uses);
// TensorFlow's own values are the oracle's business (savedmodel section:
// k_normalization, k_attention).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lib/kernels/tensor.h"
#include "lib/optimize/optimize.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

// The variations of the pattern a test asks for.
struct Spec {
  int rank = 3;           // x's rank, in `_output_shapes`
  bool shapes = true;     // write `_output_shapes`
  int axis = -1;          // the moments' reduction axis
  bool keep_dims = true;  // of both Means
  bool stop_gradient = true;
  bool gamma = true, beta = true;
  int gamma_rank = 3;         // [1, ..., 1, C]
  bool tf_form = false;       // beta - mean * inv (tf.nn.batch_normalization)
  bool mean_fetched = false;  // the mean also read outside the pattern
  std::string x_op = "Const";
};

constexpr int kDepth = 4;

std::string Shapes(const Spec& s, bool reduced) {
  if (!s.shapes) return "";
  std::string dims;
  for (int d = 0; d < s.rank; ++d) {
    int size = d + 1 < s.rank ? (d == 0 ? -1 : 3) : (reduced ? 1 : kDepth);
    dims += "dim { size: " + std::to_string(size) + " } ";
  }
  return " attr { key: \"_output_shapes\" value { list { shape { " + dims +
         "} } } }";
}

std::string Node(const std::string& name, const std::string& op,
                 const std::vector<std::string>& in,
                 const std::string& extra = "") {
  std::string s = "node { name: \"" + name + "\" op: \"" + op + "\"";
  for (const std::string& i : in) s += " input: \"" + i + "\"";
  return s + " attr { key: \"T\" value { type: DT_FLOAT } }" + extra + " }\n";
}

std::string FloatConst(const std::string& name, const std::vector<int>& dims,
                       const std::vector<float>& values) {
  std::string shape, vals;
  for (int d : dims) shape += "dim { size: " + std::to_string(d) + " } ";
  for (float v : values) vals += "float_val: " + std::to_string(v) + " ";
  return "node { name: \"" + name +
         "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
         "attr { key: \"value\" value { tensor { dtype: DT_FLOAT "
         "tensor_shape { " +
         shape + "} " + vals + "} } } }\n";
}

// x: [2, 3, C] (or [6, C]) values; y = LayerNorm(x) as Keras writes it.
GraphDef LayerNormGraph(const Spec& s) {
  std::vector<int> xdims = s.rank == 3 ? std::vector<int>{2, 3, kDepth}
                                       : std::vector<int>{6, kDepth};
  std::vector<float> xs;
  for (int i = 0; i < 6 * kDepth; ++i) xs.push_back(std::sin(i * 0.7f) * 3);
  std::string t = FloatConst("x", xdims, xs);
  if (s.x_op == "Placeholder") {
    t = "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" "
        "value { type: DT_FLOAT } }" +
        Shapes(s, false) + " }\n";
  }
  const std::string keep =
      " attr { key: \"keep_dims\" value { b: " +
      std::string(s.keep_dims ? "true" : "false") +
      " } } attr { key: \"Tidx\" value { type: DT_INT32 } }";
  t += testing::ScalarConstText("axis", "DT_INT32",
                                "int_val: " + std::to_string(s.axis));
  t += testing::ScalarConstText("eps", "DT_FLOAT", "float_val: 0.001");
  std::vector<int> gdims(s.gamma_rank, 1);
  gdims.back() = kDepth;
  t += FloatConst("gamma", gdims, {0.5f, 1.5f, -2, 1});
  t += FloatConst("beta", gdims, {0.25f, 0, -1, 3});
  t += Node("mean", "Mean", {"x", "axis"}, keep + Shapes(s, true));
  if (s.stop_gradient)
    t += Node("sg", "StopGradient", {"mean"}, Shapes(s, true));
  t += Node("sqd", "SquaredDifference", {"x", s.stop_gradient ? "sg" : "mean"},
            Shapes(s, false));
  t += Node("var", "Mean", {"sqd", "axis"}, keep + Shapes(s, true));
  t += Node("add", "AddV2", {"var", "eps"});
  t += Node("rsqrt", "Rsqrt", {"add"});
  std::string inv = "rsqrt";
  if (s.gamma) {
    t += Node("mul", "Mul", {"rsqrt", "gamma"});
    inv = "mul";
  }
  t += Node("mul_2", "Mul", {"x", inv});
  std::string shift;
  if (s.tf_form) {
    t += Node("mul_1", "Mul", {"mean", inv});
    t += Node("sub", "Sub", {"beta", "mul_1"});
    shift = "sub";
  } else {
    t += Node("neg", "Neg", {"mean"});
    t += Node("mul_1", "Mul", {"neg", inv});
    shift = "mul_1";
    if (s.beta) {
      t += Node("add_1", "AddV2", {"mul_1", "beta"});
      shift = "add_1";
    }
  }
  t += Node("y", "AddV2", {"mul_2", shift});
  t += Node("out", "_Retval", {"y"}, " attr { key: \"index\" value { i: 0 } }");
  if (s.mean_fetched) {
    t += Node("out_mean", "_Retval", {"mean"},
              " attr { key: \"index\" value { i: 1 } }");
  }
  return testing::ParseTextProto<GraphDef>(t);
}

const NodeDef* Find(const GraphDef& g, const std::string& name) {
  for (const NodeDef& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

OptimizeReport Optimize(GraphDef* g, std::vector<std::string> passes) {
  OptimizeOptions options;
  options.passes = std::move(passes);
  OptimizeReport report;
  REQUIRE(dfg::Optimize(g, options, &report).ok());
  return report;
}

std::string OpOfY(const Spec& s) {
  GraphDef g = LayerNormGraph(s);
  Optimize(&g, {"remapper"});
  const NodeDef* y = Find(g, "y");
  REQUIRE(y != nullptr);
  return y->op();
}

// y's value: the graph folded, fused first or not.
std::vector<float> FoldedY(const Spec& s, bool fuse) {
  GraphDef g = LayerNormGraph(s);
  if (fuse) Optimize(&g, {"remapper"});
  Optimize(&g, {"constfold"});
  const NodeDef* y = Find(g, "y");
  REQUIRE(y != nullptr);
  REQUIRE(y->op() == "Const");
  StatusOr<Tensor> t = Tensor::FromProto(y->attr().at("value").tensor());
  REQUIRE(t.ok());
  auto f = t->flat<float>();
  return {f.begin(), f.end()};
}

TEST_CASE("Keras LayerNormalization becomes one _MklLayerNorm", "[optimize]") {
  Spec s;
  GraphDef g = LayerNormGraph(s);
  OptimizeReport report = Optimize(&g, {"remapper"});
  const NodeDef* y = Find(g, "y");
  REQUIRE(y != nullptr);
  CHECK(y->op() == "_MklLayerNorm");
  REQUIRE(y->input_size() == 3);
  CHECK(y->input(0) == "x");
  CHECK(y->attr().at("epsilon").f() == Approx(0.001f));
  // gamma and beta [1, 1, C] become 1-D constants beside y.
  CHECK(y->input(1) == "y/scale");
  CHECK(y->input(2) == "y/offset");
  for (const char* gone : {"mean", "sg", "sqd", "var", "add", "rsqrt", "mul",
                           "mul_1", "mul_2", "neg", "add_1"}) {
    CHECK(Find(g, gone) == nullptr);
  }
  REQUIRE(report.rewrites.size() == 1);
  CHECK(report.rewrites[0].pass == "remapper");
  CHECK(report.rewrites[0].why ==
        "layer normalization over the last dimension (epsilon 0.001)");
}

TEST_CASE("the fused layer norm computes what the plain graph computes",
          "[optimize]") {
  for (int variant = 0; variant < 5; ++variant) {
    Spec s;
    // Constant folding never folds a StopGradient (as TensorFlow's).
    s.stop_gradient = false;
    if (variant == 1) s.tf_form = true;
    if (variant == 2) s.gamma = s.beta = false;
    if (variant == 3) s.rank = 2, s.gamma_rank = 1;
    if (variant == 4) s.axis = 2;
    CAPTURE(variant);
    CHECK(OpOfY(s) == "_MklLayerNorm");
    std::vector<float> fused = FoldedY(s, true), plain = FoldedY(s, false);
    REQUIRE(fused.size() == plain.size());
    for (size_t i = 0; i < fused.size(); ++i) {
      CHECK(fused[i] == Approx(plain[i]).margin(1e-5));
    }
  }
}

TEST_CASE("the layer norm fusion leaves patterns it cannot rewrite exactly",
          "[optimize]") {
  Spec s;
  SECTION("the means drop the reduced dimension") { s.keep_dims = false; }
  SECTION("the reduction is not over the last dimension") { s.axis = 1; }
  SECTION("x's rank is unknown") { s.shapes = false; }
  SECTION("x has rank 4") {
    s.rank = 4;
    s.x_op = "Placeholder";
  }
  SECTION("gamma has a higher rank than x") {
    s.rank = 2;
    s.gamma_rank = 3;
  }
  SECTION("the mean is also fetched") { s.mean_fetched = true; }
  CHECK(OpOfY(s) == "AddV2");
}

}  // namespace
}  // namespace dfg
