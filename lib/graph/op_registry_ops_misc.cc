// Op table: strings, checkpoint I/O, logging and summaries, random numbers,
// training updates and the TPU ops of the corpus (TensorFlow's core/ops/
// {string,io,logging,random,training,tpu_*}_ops.cc).
//
// Kernels: string ops, checkpoint I/O, Print and summaries are CPU-only;
// random ops and training updates also have GPU kernels.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

OpBuilder StringOp(const char* name) {
  OpBuilder op = Op(name);
  op.Kernels("CPU");
  return op;
}

void RegisterStrings(OpTable& t) {
  t.Add(StringOp("StringJoin")
            .Input("inputs: N * string")
            .Output("output: string")
            .Attr("N: int >= 0")
            .Attr("separator: string = ''"));
  t.Add(StringOp("StringSplit")
            .Input("input: string")
            .Input("delimiter: string")
            .Output("indices: int64")
            .Output("values: string")
            .Output("shape: int64")
            .Attr("skip_empty: bool = true"));
  t.Add(StringOp("StringSplitV2")
            .Input("input: string")
            .Input("sep: string")
            .Output("indices: int64")
            .Output("values: string")
            .Output("shape: int64")
            .Attr("maxsplit: int = -1"));
  t.Add(StringOp("Substr")
            .Input("input: string")
            .Input("pos: T")
            .Input("len: T")
            .Output("output: string")
            .Attr("T: {int32, int64}")
            .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"));
  t.Add(StringOp("StringToNumber")
            .Input("string_tensor: string")
            .Output("output: out_type")
            .Attr("out_type: {float, double, int32, int64, uint32, uint64} = "
                  "DT_FLOAT"));
  t.Add(StringOp("AsString")
            .Input("input: T")
            .Output("output: string")
            .Attr("T: {realnumbertype, complex64, complex128, bool, variant, "
                  "string}")
            .Attr("precision: int = -1")
            .Attr("scientific: bool = false")
            .Attr("shortest: bool = false")
            .Attr("width: int = -1")
            .Attr("fill: string = ''"));
  t.Add(StringOp("RegexReplace")
            .Input("input: string")
            .Input("pattern: string")
            .Input("rewrite: string")
            .Output("output: string")
            .Attr("replace_global: bool = true"));
  t.Add(StringOp("StaticRegexReplace")
            .Input("input: string")
            .Output("output: string")
            .Attr("pattern: string")
            .Attr("rewrite: string")
            .Attr("replace_global: bool = true"));
  t.Add(StringOp("RegexFullMatch")
            .Input("input: string")
            .Input("pattern: string")
            .Output("output: bool"));
  t.Add(StringOp("StaticRegexFullMatch")
            .Input("input: string")
            .Output("output: bool")
            .Attr("pattern: string"));
  t.Add(StringOp("StringLength")
            .Input("input: string")
            .Output("output: int32")
            .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"));
  t.Add(StringOp("StringFormat")
            .Input("inputs: T")
            .Output("output: string")
            .Attr("T: list(type) >= 0")
            .Attr("template: string = '%s'")
            .Attr("placeholder: string = '%s'")
            .Attr("summarize: int = 3"));
  t.Add(
      StringOp("StringStrip").Input("input: string").Output("output: string"));
  for (const char* name : {"StringLower", "StringUpper"})
    t.Add(StringOp(name)
              .Input("input: string")
              .Output("output: string")
              .Attr("encoding: string = ''"));
  t.Add(StringOp("ReduceJoin")
            .Input("inputs: string")
            .Input("reduction_indices: int32")
            .Output("output: string")
            .Attr("keep_dims: bool = false")
            .Attr("separator: string = ''"));
  t.Add(
      StringOp("DecodeBase64").Input("input: string").Output("output: string"));
  t.Add(StringOp("EncodeBase64")
            .Input("input: string")
            .Output("output: string")
            .Attr("pad: bool = false"));
  t.Add(StringOp("StringToHashBucketFast")
            .Input("input: string")
            .Output("output: int64")
            .Attr("num_buckets: int >= 1"));
}

void RegisterCheckpointIo(OpTable& t) {
  t.Add(StringOp("SaveV2")
            .Input("prefix: string")
            .Input("tensor_names: string")
            .Input("shape_and_slices: string")
            .Input("tensors: dtypes")
            .Attr("dtypes: list(type)")
            .Stateful());
  t.Add(StringOp("RestoreV2")
            .Input("prefix: string")
            .Input("tensor_names: string")
            .Input("shape_and_slices: string")
            .Output("tensors: dtypes")
            .Attr("dtypes: list(type)")
            .Stateful());
  t.Add(StringOp("MergeV2Checkpoints")
            .Input("checkpoint_prefixes: string")
            .Input("destination_prefix: string")
            .Attr("delete_old_dirs: bool = true")
            .Attr("allow_missing_files: bool = false")
            .Stateful());
  t.Add(StringOp("Save")
            .Input("filename: string")
            .Input("tensor_names: string")
            .Input("data: T")
            .Attr("T: list(type)")
            .Stateful());
  t.Add(StringOp("SaveSlices")
            .Input("filename: string")
            .Input("tensor_names: string")
            .Input("shapes_and_slices: string")
            .Input("data: T")
            .Attr("T: list(type)")
            .Stateful());
  t.Add(StringOp("Restore")
            .Input("file_pattern: string")
            .Input("tensor_name: string")
            .Output("tensor: dt")
            .Attr("dt: type")
            .Attr("preferred_shard: int = -1")
            .Stateful());
  t.Add(StringOp("RestoreSlice")
            .Input("file_pattern: string")
            .Input("tensor_name: string")
            .Input("shape_and_slice: string")
            .Output("tensor: dt")
            .Attr("dt: type")
            .Attr("preferred_shard: int = -1")
            .Stateful());
  t.Add(StringOp("ShardedFilename")
            .Input("basename: string")
            .Input("shard: int32")
            .Input("num_shards: int32")
            .Output("filename: string"));
  t.Add(StringOp("ShardedFilespec")
            .Input("basename: string")
            .Input("num_shards: int32")
            .Output("filename: string"));
  t.Add(StringOp("MatchingFiles")
            .Input("pattern: string")
            .Output("filenames: string"));
  t.Add(StringOp("ReadFile")
            .Input("filename: string")
            .Output("contents: string"));
}

void RegisterLogging(OpTable& t) {
  t.Add(Op("Assert")
            .Input("condition: bool")
            .Input("data: T")
            .Attr("T: list(type)")
            .Attr("summarize: int = 3")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "condition", "data"));
  t.Add(StringOp("Print")
            .Input("input: T")
            .Input("data: U")
            .Output("output: T")
            .Attr("T: type")
            .Attr("U: list(type) >= 0")
            .Attr("message: string = ''")
            .Attr("first_n: int = -1")
            .Attr("summarize: int = 3")
            .Stateful());
  t.Add(StringOp("PrintV2")
            .Input("input: string")
            .Attr("output_stream: string = 'stderr'")
            .Attr("end: string = '\\n'")
            .Stateful());
  t.Add(StringOp("ScalarSummary")
            .Input("tags: string")
            .Input("values: T")
            .Output("summary: string")
            .Attr("T: realnumbertype"));
  t.Add(StringOp("HistogramSummary")
            .Input("tag: string")
            .Input("values: T")
            .Output("summary: string")
            .Attr("T: realnumbertype = DT_FLOAT"));
  t.Add(StringOp("MergeSummary")
            .Input("inputs: N * string")
            .Output("summary: string")
            .Attr("N: int >= 1"));
}

void RegisterRandom(OpTable& t) {
  for (const char* name :
       {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    t.Add(Op(name)
              .Input("shape: T")
              .Output("output: dtype")
              .Attr("seed: int = 0")
              .Attr("seed2: int = 0")
              .Attr("dtype: {half, bfloat16, float, double}")
              .Attr("T: {int32, int64}")
              .Stateful()
              .Kernels("CPU", "GPU")
              .HostMemory("GPU", "shape"));
  }
  t.Add(Op("RandomUniformInt")
            .Input("shape: T")
            .Input("minval: Tout")
            .Input("maxval: Tout")
            .Output("output: Tout")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Attr("Tout: {int32, int64}")
            .Attr("T: {int32, int64}")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "shape", "minval", "maxval"));
  t.Add(Op("Multinomial")
            .Input("logits: T")
            .Input("num_samples: int32")
            .Output("output: output_dtype")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Attr("T: realnumbertype")
            .Attr("output_dtype: {int32, int64} = DT_INT64")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "num_samples"));
}

void RegisterTraining(OpTable& t) {
  t.Add(Op("ApplyGradientDescent")
            .Input("var: Ref(T)")
            .Input("alpha: T")
            .Input("delta: T")
            .Output("out: Ref(T)")
            .Attr("T: numbertype")
            .Attr("use_locking: bool = false")
            .Kernels("CPU", "GPU"));
  t.Add(Op("ResourceApplyGradientDescent")
            .Input("var: resource")
            .Input("alpha: T")
            .Input("delta: T")
            .Attr("T: numbertype")
            .Attr("use_locking: bool = false")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "var")
            .Stateful());
  t.Add(Op("ApplyAdam")
            .Input("var: Ref(T)")
            .Input("m: Ref(T)")
            .Input("v: Ref(T)")
            .Input("beta1_power: T")
            .Input("beta2_power: T")
            .Input("lr: T")
            .Input("beta1: T")
            .Input("beta2: T")
            .Input("epsilon: T")
            .Input("grad: T")
            .Output("out: Ref(T)")
            .Attr("T: numbertype")
            .Attr("use_locking: bool = false")
            .Attr("use_nesterov: bool = false")
            .Kernels("CPU", "GPU"));
  t.Add(Op("ApplyRMSProp")
            .Input("var: Ref(T)")
            .Input("ms: Ref(T)")
            .Input("mom: Ref(T)")
            .Input("lr: T")
            .Input("rho: T")
            .Input("momentum: T")
            .Input("epsilon: T")
            .Input("grad: T")
            .Output("out: Ref(T)")
            .Attr("T: numbertype")
            .Attr("use_locking: bool = false")
            .Kernels("CPU", "GPU"));
}

// TPU ops of the corpus: the compile op runs on the host CPU, the execute op
// only on a TPU.
void RegisterTpu(OpTable& t) {
  t.Add(Op("_TPUCompileMlir")
            .Input("dynamic_shapes: NumDynamicShapes * int64")
            .Output("compilation_status: string")
            .Output("program: num_computations * string")
            .Attr("num_computations: int >= 0")
            .Attr("mlir_module: string = ''")
            .Attr("metadata: string")
            .Attr("NumDynamicShapes: int >= 0")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("TPUExecute")
            .Input("args: Targs")
            .Input("key: string")
            .Output("results: Tresults")
            .Attr("Targs: list(type) >= 0")
            .Attr("Tresults: list(type) >= 0")
            .Stateful()
            .DistributedCommunication()
            .Kernels("TPU"));
}

}  // namespace

void RegisterMiscOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterStrings(t);
  RegisterCheckpointIo(t);
  RegisterLogging(t);
  RegisterRandom(t);
  RegisterTraining(t);
  RegisterTpu(t);
}

}  // namespace dfg
