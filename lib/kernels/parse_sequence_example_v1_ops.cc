// ParseSequenceExample (keys as attrs, a batch or one example) and
// ParseSingleSequenceExample (keys as scalar inputs, one example)
// (TensorFlow's core/kernels/example_parsing_ops.cc), on the engine of
// sequence_example_parsing.h. TensorFlow parses ParseSingleSequenceExample
// with the full protobuf parser; its checks that word errors differently from
// the fast path (an unparsable proto, a missing required context feature, a
// context type mismatch, a wrong dense value count) run here first on the
// parsed SequenceExample, with its texts.
#include <algorithm>
#include <set>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/sequence_example_parsing.h"
#include "lib/proto/example.pb.h"

namespace dfg {
namespace {

using tensorflow::DT_FLOAT;
using tensorflow::DT_INT64;
using tensorflow::DT_STRING;

// "[2,?]" for dims that may hold -1 (no TensorShape for those).
std::string ShapeString(const std::vector<int64_t>& dims) {
  TensorShapeProto p;
  for (int64_t d : dims) p.add_dim()->set_size(d);
  return PartialShapeDebugString(p);
}

std::vector<int64_t> Dims(const TensorShapeProto& p) {
  std::vector<int64_t> d;
  for (const auto& dim : p.dim()) d.push_back(dim.size());
  return d;
}

// The attrs both ops share.
struct Attrs {
  std::vector<DataType> cs_types, cd_types, fs_types, fd_types;
  std::vector<TensorShapeProto> cd_shapes, fd_shapes;

  Status Init(OpKernelConstruction* ctx) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("context_sparse_types", &cs_types));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("Tcontext_dense", &cd_types));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("context_dense_shapes", &cd_shapes));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("feature_list_sparse_types", &fs_types));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("feature_list_dense_types", &fd_types));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("feature_list_dense_shapes", &fd_shapes));
    if (cd_shapes.size() != cd_types.size() ||
        fd_shapes.size() != fd_types.size()) {
      return InvalidArgument("dense shapes and types differ in length");
    }
    return Status::Ok();
  }

  // Checks the defaults (inputs first..) and builds both configs.
  Status Make(OpKernelContext* ctx, int first_default,
              const std::vector<std::string> keys[4],
              const std::set<std::string>& missing_ok, Config* context,
              Config* lists) const {
    for (size_t d = 0; d < cd_types.size(); ++d) {
      const Tensor& def = ctx->input(first_default + d);
      // Compared as dims: a shape attr may hold -1, which no TensorShape
      // holds.
      const std::vector<int64_t> want = Dims(cd_shapes[d]);
      const auto have = def.shape().dim_sizes();
      if (def.NumElements() > 0 &&
          !std::equal(have.begin(), have.end(), want.begin(), want.end())) {
        return InvalidArgument(
            "default_value[{}].shape() == {} != context_dense_shapes[{}] == {}",
            d, def.shape().DebugString(), d, VectorString(want));
      }
      context->dense.push_back(
          {keys[1][d], cd_types[d], DT_INT64, Dims(cd_shapes[d]), def});
    }
    for (size_t d = 0; d < cs_types.size(); ++d) {
      context->sparse.push_back({keys[0][d], cs_types[d]});
    }
    for (size_t d = 0; d < fs_types.size(); ++d) {
      lists->sparse.push_back({keys[2][d], fs_types[d]});
    }
    for (size_t d = 0; d < fd_types.size(); ++d) {
      FeatureSpec spec{keys[3][d], fd_types[d], DT_INT64, Dims(fd_shapes[d])};
      spec.missing_ok = missing_ok.count(keys[3][d]) > 0;
      lists->dense.push_back(std::move(spec));
    }
    return Status::Ok();
  }
};

void Emit(OpKernelContext* ctx, Outputs& c, Outputs& l, bool lengths) {
  int o = 0;
  auto emit = [&](std::vector<Tensor>& ts) {
    for (Tensor& t : ts) ctx->set_output(o++, std::move(t));
  };
  emit(c.sparse_indices), emit(c.sparse_values), emit(c.sparse_shapes);
  emit(c.dense_values);
  emit(l.sparse_indices), emit(l.sparse_values), emit(l.sparse_shapes);
  emit(l.dense_values);
  if (lengths) emit(l.dense_lengths);
}

class ParseSequenceExampleOp : public OpKernel {
 public:
  explicit ParseSequenceExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(true);
    DFG_OP_REQUIRES_OK(ctx, attrs_.Init(ctx));
    const char* names[4] = {"context_sparse_keys", "context_dense_keys",
                            "feature_list_sparse_keys",
                            "feature_list_dense_keys"};
    for (int i = 0; i < 4; ++i) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr(names[i], &keys_[i]));
    }
    std::vector<std::string> missing;
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->GetAttr("feature_list_dense_missing_assumed_empty", &missing));
    missing_ok_.insert(missing.begin(), missing.end());
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    DFG_OP_REQUIRES(ctx, serialized.dims() <= 1,
                    InvalidArgument("Expected serialized to be a scalar or "
                                    "vector, got shape: {}",
                                    serialized.shape().DebugString()));
    Config context, lists;
    DFG_OP_REQUIRES_OK(
        ctx, attrs_.Make(ctx, 2, keys_, missing_ok_, &context, &lists));
    auto ser = serialized.flat<std::string>();
    auto nm = ctx->input(1).flat<std::string>();
    Outputs c, l;
    DFG_OP_REQUIRES_OK(ctx,
                       ParseSequenceExamples(
                           context, lists,
                           std::span<const std::string>(ser.data(), ser.size()),
                           std::span<const std::string>(nm.data(), nm.size()),
                           serialized.dims() == 1, &c, &l));
    Emit(ctx, c, l, /*lengths=*/true);
  }

 private:
  Attrs attrs_;
  std::vector<std::string> keys_[4];
  std::set<std::string> missing_ok_;
};

bool KindMatches(const tensorflow::Feature& f, DataType dtype) {
  switch (f.kind_case()) {
    case tensorflow::Feature::kBytesList:
      return dtype == DT_STRING;
    case tensorflow::Feature::kFloatList:
      return dtype == DT_FLOAT;
    case tensorflow::Feature::kInt64List:
      return dtype == DT_INT64;
    default:
      return true;
  }
}

int ValueCount(const tensorflow::Feature& f) {
  return f.bytes_list().value_size() + f.float_list().value_size() +
         f.int64_list().value_size();
}

// ParseSingleSequenceExample's own checks on the parsed proto.
Status CheckSingle(const std::string& serialized, const std::string& name,
                   const Config& context) {
  tensorflow::SequenceExample ex;
  if (!ex.ParseFromString(serialized)) {
    return InvalidArgument("Could not parse example input, value: '{}'",
                           serialized);
  }
  const auto& dict = ex.context().feature();
  for (const FeatureSpec& c : context.dense) {
    auto it = dict.find(c.key);
    if (it == dict.end()) {
      if (c.def.NumElements() == 0) {
        return InvalidArgument(
            "Name: {}, Context feature '{}' is required but could not be "
            "found.",
            name, c.key);
      }
      continue;
    }
    if (!KindMatches(it->second, c.dtype)) {
      return InvalidArgument(
          "Name: {}, Context feature: {}.  Data types don't match. Expected "
          "type: {}  Feature is: {}",
          name, c.key, DataTypeString(c.dtype), it->second.DebugString());
    }
    int64_t want = 1;
    for (int64_t d : c.shape) want *= d;
    if (ValueCount(it->second) != want) {
      const char* type = c.dtype == DT_STRING  ? "bytes"
                         : c.dtype == DT_FLOAT ? "float"
                                               : "int64";
      return InvalidArgument(
          "Name: {}, Key: {}, Index: 0.  Number of {} values != expected.  "
          "values size: {} but output shape: {}",
          name, c.key, type, ValueCount(it->second), ShapeString(c.shape));
    }
  }
  for (const FeatureSpec& c : context.sparse) {
    auto it = dict.find(c.key);
    if (it != dict.end() && !KindMatches(it->second, c.dtype)) {
      return InvalidArgument(
          "Name: {}, Context feature: {}.  Data types don't match. Expected "
          "type: {}  Feature is: {}",
          name, c.key, DataTypeString(c.dtype), it->second.DebugString());
    }
  }
  return Status::Ok();
}

class ParseSingleSequenceExampleOp : public OpKernel {
 public:
  explicit ParseSingleSequenceExampleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_is_expensive(true);
    DFG_OP_REQUIRES_OK(ctx, attrs_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    // Inputs: serialized, missing_assumed_empty, the four key lists, the
    // defaults, debug_name.
    const size_t counts[4] = {attrs_.cs_types.size(), attrs_.cd_types.size(),
                              attrs_.fs_types.size(), attrs_.fd_types.size()};
    const char* what[4] = {"context_sparse_keys", "context_dense_keys",
                           "feature_list_sparse_keys",
                           "feature_list_dense_keys"};
    std::vector<std::string> keys[4];
    int in = 2;
    for (int k : {0, 1, 2, 3}) {
      for (size_t d = 0; d < counts[k]; ++d, ++in) {
        const Tensor& t = ctx->input(in);
        DFG_OP_REQUIRES(ctx, t.dims() == 0,
                        InvalidArgument("Expected {}[{}] to be a scalar, got "
                                        "shape: {}",
                                        what[k], d, t.shape().DebugString()));
        keys[k].push_back(t.scalar<std::string>());
      }
    }
    const int first_default = in;
    const Tensor& missing = ctx->input(1);
    DFG_OP_REQUIRES(ctx, missing.dims() == 1,
                    InvalidArgument("Expected "
                                    "feature_list_dense_missing_assumed_empty "
                                    "to be a vector, got shape: {}",
                                    missing.shape().DebugString()));
    auto m = missing.flat<std::string>();
    const std::set<std::string> missing_ok(m.begin(), m.end());
    const Tensor& debug = ctx->input(ctx->num_inputs() - 1);
    const bool named = debug.NumElements() > 0;
    DFG_OP_REQUIRES(ctx, !named || debug.dims() == 0,
                    InvalidArgument("Expected debug_name to be a scalar, got "
                                    "shape: {}",
                                    debug.shape().DebugString()));
    const Tensor& serialized = ctx->input(0);
    DFG_OP_REQUIRES(ctx, serialized.dims() == 0,
                    InvalidArgument("Expected serialized to be a scalar, got "
                                    "shape: {}",
                                    serialized.shape().DebugString()));
    Config context, lists;
    DFG_OP_REQUIRES_OK(ctx, attrs_.Make(ctx, first_default, keys, missing_ok,
                                        &context, &lists));
    const std::string name =
        named ? debug.scalar<std::string>() : std::string("<unknown>");
    const std::string& s = serialized.scalar<std::string>();
    DFG_OP_REQUIRES_OK(ctx, CheckSingle(s, name, context));
    Outputs c, l;
    DFG_OP_REQUIRES_OK(
        ctx, ParseSequenceExamples(context, lists,
                                   std::span<const std::string>(&s, 1),
                                   std::span<const std::string>(&name, 1),
                                   /*batch=*/false, &c, &l));
    Emit(ctx, c, l, /*lengths=*/false);
  }

 private:
  Attrs attrs_;
};

}  // namespace

void RegisterParseSequenceExampleV1Kernels(KernelRegistry* r) {
  r->Register<ParseSequenceExampleOp>("ParseSequenceExample");
  r->Register<ParseSingleSequenceExampleOp>("ParseSingleSequenceExample");
}

}  // namespace dfg
