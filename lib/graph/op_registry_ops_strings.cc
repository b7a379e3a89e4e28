// Op table: string hashing, n-grams, bincounts, ragged-to-dense conversions
// and the mutable lookup tables (TensorFlow's core/ops/{string,math,
// ragged_conversion,lookup}_ops.cc) — what Keras' TextVectorization,
// StringLookup/IntegerLookup, Hashing and CategoryEncoding layers emit.
//
// Kernels: CPU only.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

OpBuilder CpuOp(std::string name) {
  OpBuilder op = Op(std::move(name));
  op.Kernels("CPU");
  return op;
}

void RegisterHashing(OpTable& t) {
  t.Add(CpuOp("StringToHashBucketStrong")
            .Input("input: string")
            .Output("output: int64")
            .Attr("num_buckets: int >= 1")
            .Attr("key: list(int)"));
  t.Add(CpuOp("StringToHashBucket")
            .Input("string_tensor: string")
            .Output("output: int64")
            .Attr("num_buckets: int >= 1"));
  t.Add(CpuOp("Fingerprint")
            .Input("data: T")
            .Input("method: string")
            .Output("fingerprint: uint8")
            .Attr("T: type"));
  t.Add(CpuOp("_TensorToHashBucketFast")
            .Input("input: T")
            .Output("output: int64")
            .Attr("T: {int8, uint8, int16, uint16, int32, uint32, int64, "
                  "uint64}")
            .Attr("num_buckets: int >= 1"));
  t.Add(CpuOp("StringNGrams")
            .Input("data: string")
            .Input("data_splits: Tsplits")
            .Output("ngrams: string")
            .Output("ngrams_splits: Tsplits")
            .Attr("separator: string")
            .Attr("ngram_widths: list(int) >= 0")
            .Attr("left_pad: string")
            .Attr("right_pad: string")
            .Attr("pad_width: int")
            .Attr("preserve_short_sequences: bool")
            .Attr("Tsplits: {int32, int64} = DT_INT64"));
}

void RegisterTextOps(OpTable& t) {
  t.Add(CpuOp("UnsortedSegmentJoin")
            .Input("inputs: string")
            .Input("segment_ids: Tindices")
            .Input("num_segments: Tnumsegments")
            .Output("output: string")
            .Attr("separator: string = ''")
            .Attr("Tindices: {int32, int64}")
            .Attr("Tnumsegments: {int32, int64} = DT_INT32"));
  t.Add(CpuOp("WriteFile")
            .Input("filename: string")
            .Input("contents: string")
            .Stateful());
}

void RegisterUnicode(OpTable& t) {
  const char* kErrors = "errors: {'strict', 'replace', 'ignore'} = 'replace'";
  const char* kOutEncoding =
      "output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}";
  for (const char* name : {"UnicodeDecode", "UnicodeDecodeWithOffsets"}) {
    OpBuilder op = CpuOp(name)
                       .Input("input: string")
                       .Output("row_splits: Tsplits")
                       .Output("char_values: int32");
    if (std::string(name).ends_with("Offsets")) {
      op.Output("char_to_byte_starts: int64");
    }
    t.Add(op.Attr("input_encoding: string")
              .Attr(kErrors)
              .Attr("replacement_char: int = 65533")
              .Attr("replace_control_characters: bool = false")
              .Attr("Tsplits: {int32, int64} = DT_INT64"));
  }
  t.Add(CpuOp("UnicodeEncode")
            .Input("input_values: int32")
            .Input("input_splits: Tsplits")
            .Output("output: string")
            .Attr("errors: {'ignore', 'replace', 'strict'} = 'replace'")
            .Attr(kOutEncoding)
            .Attr("replacement_char: int = 65533")
            .Attr("Tsplits: {int32, int64} = DT_INT64"));
  t.Add(CpuOp("UnicodeTranscode")
            .Input("input: string")
            .Output("output: string")
            .Attr("input_encoding: string")
            .Attr(kOutEncoding)
            .Attr(kErrors)
            .Attr("replacement_char: int = 65533")
            .Attr("replace_control_characters: bool = false"));
  t.Add(CpuOp("UnicodeScript").Input("input: int32").Output("output: int32"));
}

void RegisterSummaries(OpTable& t) {
  t.Add(CpuOp("TensorSummary")
            .Input("tensor: T")
            .Output("summary: string")
            .Attr("T: type")
            .Attr("description: string = ''")
            .Attr("labels: list(string) = []")
            .Attr("display_name: string = ''"));
  t.Add(CpuOp("TensorSummaryV2")
            .Input("tag: string")
            .Input("tensor: T")
            .Input("serialized_summary_metadata: string")
            .Output("summary: string")
            .Attr("T: type"));
  t.Add(CpuOp("AudioSummary")
            .Input("tag: string")
            .Input("tensor: float")
            .Output("summary: string")
            .Attr("sample_rate: float")
            .Attr("max_outputs: int >= 1 = 3"));
  t.Add(CpuOp("AudioSummaryV2")
            .Input("tag: string")
            .Input("tensor: float")
            .Input("sample_rate: float")
            .Output("summary: string")
            .Attr("max_outputs: int >= 1 = 3"));
}

void RegisterImageSummary(OpTable& t) {
  t.Add(CpuOp("ImageSummary")
            .Input("tag: string")
            .Input("tensor: T")
            .Output("summary: string")
            .Attr("max_images: int >= 1 = 3")
            .Attr("T: {uint8, float, half, double} = DT_FLOAT")
            .Attr("bad_color: tensor = { dtype: DT_UINT8 tensor_shape { dim { "
                  "size: 4 } } int_val: 255 int_val: 0 int_val: 0 int_val: "
                  "255 }"));
}

void RegisterBincounts(OpTable& t) {
  const char* kT = "T: {int32, int64, float, double}";
  t.Add(CpuOp("Bincount")
            .Input("arr: int32")
            .Input("size: int32")
            .Input("weights: T")
            .Output("bins: T")
            .Attr(kT));
  t.Add(CpuOp("DenseBincount")
            .Input("input: Tidx")
            .Input("size: Tidx")
            .Input("weights: T")
            .Output("output: T")
            .Attr("Tidx: {int32, int64}")
            .Attr(kT)
            .Attr("binary_output: bool = false"));
  t.Add(CpuOp("RaggedBincount")
            .Input("splits: int64")
            .Input("values: Tidx")
            .Input("size: Tidx")
            .Input("weights: T")
            .Output("output: T")
            .Attr("Tidx: {int32, int64}")
            .Attr(kT)
            .Attr("binary_output: bool = false"));
  t.Add(CpuOp("SparseBincount")
            .Input("indices: int64")
            .Input("values: Tidx")
            .Input("dense_shape: int64")
            .Input("size: Tidx")
            .Input("weights: T")
            .Output("output: T")
            .Attr("Tidx: {int32, int64}")
            .Attr(kT)
            .Attr("binary_output: bool = false"));
}

void RegisterRaggedConversions(OpTable& t) {
  t.Add(CpuOp("RaggedTensorToTensor")
            .Input("shape: Tshape")
            .Input("values: T")
            .Input("default_value: T")
            .Input("row_partition_tensors: num_row_partition_tensors * Tindex")
            .Output("result: T")
            .Attr("T: type")
            .Attr("Tindex: {int64, int32}")
            .Attr("Tshape: {int64, int32}")
            .Attr("num_row_partition_tensors: int >= 1")
            .Attr("row_partition_types: list(string)"));
  t.Add(CpuOp("RaggedTensorToSparse")
            .Input("rt_nested_splits: RAGGED_RANK * Tsplits")
            .Input("rt_dense_values: T")
            .Output("sparse_indices: int64")
            .Output("sparse_values: T")
            .Output("sparse_dense_shape: int64")
            .Attr("RAGGED_RANK: int >= 1")
            .Attr("T: type")
            .Attr("Tsplits: {int32, int64} = DT_INT64"));
}

// The common attrs of a table constructor; `named` adds the sharing attrs
// the anonymous forms lack.
OpBuilder TableCtor(const std::string& name, bool named, bool of_tensors) {
  OpBuilder op = CpuOp(name);
  if (name.find("Anonymous") == std::string::npos) {
    op.Output(name.ends_with("V2") ? "table_handle: resource"
                                   : "table_handle: Ref(string)");
  } else {
    op.Output("table_handle: resource");
  }
  if (named) {
    op.Attr("container: string = ''")
        .Attr("shared_name: string = ''")
        .Attr("use_node_name_sharing: bool = false");
  }
  op.Attr("key_dtype: type").Attr("value_dtype: type");
  if (of_tensors) op.Attr("value_shape: shape = {}");
  op.Stateful();
  return op;
}

void RegisterMutableTables(OpTable& t) {
  for (const char* v : {"", "V2"}) {
    const std::string s = v;
    t.Add(TableCtor("MutableHashTable" + s, true, false));
    t.Add(TableCtor("MutableHashTableOfTensors" + s, true, true));
    OpBuilder dense = TableCtor("MutableDenseHashTable" + s, true, true);
    dense.Input("empty_key: key_dtype");
    if (!s.empty()) dense.Input("deleted_key: key_dtype");
    t.Add(dense.Attr("initial_num_buckets: int = 131072")
              .Attr("max_load_factor: float = 0.8"));
    OpBuilder insert = CpuOp("LookupTableInsert" + s);
    insert
        .Input(s.empty() ? "table_handle: Ref(string)"
                         : "table_handle: resource")
        .Input("keys: Tin")
        .Input("values: Tout")
        .Attr("Tin: type")
        .Attr("Tout: type");
    if (!s.empty()) insert.Stateful();  // as TensorFlow: the V2 op only
    t.Add(insert);
  }
  t.Add(TableCtor("AnonymousHashTable", false, false));
  t.Add(TableCtor("AnonymousMutableHashTable", false, false));
  t.Add(TableCtor("AnonymousMutableHashTableOfTensors", false, true));
  t.Add(TableCtor("AnonymousMutableDenseHashTable", false, true)
            .Input("empty_key: key_dtype")
            .Input("deleted_key: key_dtype")
            .Attr("initial_num_buckets: int = 131072")
            .Attr("max_load_factor: float = 0.8"));
  t.Add(CpuOp("LookupTableRemoveV2")
            .Input("table_handle: resource")
            .Input("keys: Tin")
            .Attr("Tin: type")
            .Stateful());
}

}  // namespace

void RegisterStringOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterHashing(t);
  RegisterTextOps(t);
  RegisterUnicode(t);
  RegisterSummaries(t);
  RegisterImageSummary(t);
  RegisterBincounts(t);
  RegisterRaggedConversions(t);
  RegisterMutableTables(t);
}

}  // namespace dfg
