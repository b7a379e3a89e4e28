// Op table: parsing, decoding, audio and TF1 checkpoint ops — CSV records,
// raw and compressed bytes, serialized tensors and JSON Examples, WAV audio
// and its spectrogram and MFCC features, GIF decoding, JPEG encoding at a
// quality given as a tensor, Timestamp (TensorFlow's core/ops/
// {parsing,audio,io,image,logging}_ops.cc).
//
// Kernels: all CPU-only.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

void RegisterDecodeOps(OpTable& t) {
  t.Add(Op("DecodeCSV")
            .Input("records: string")
            .Input("record_defaults: OUT_TYPE")
            .Output("output: OUT_TYPE")
            .Attr("OUT_TYPE: list({float, double, int32, int64, string}) >= 1")
            .Attr("field_delim: string = ','")
            .Attr("use_quote_delim: bool = true")
            .Attr("na_value: string = ''")
            .Attr("select_cols: list(int) = []")
            .Kernels("CPU"));
  t.Add(Op("DecodeRaw")
            .Input("bytes: string")
            .Output("output: out_type")
            .Attr("out_type: {half, float, double, int32, uint16, uint8, "
                  "int16, int8, int64, complex64, complex128, bool, bfloat16}")
            .Attr("little_endian: bool = true")
            .Kernels("CPU"));
  t.Add(Op("DecodePaddedRaw")
            .Input("input_bytes: string")
            .Input("fixed_length: int32")
            .Output("output: out_type")
            .Attr("out_type: {half, float, double, int32, uint16, uint8, "
                  "int16, int8, int64, bfloat16}")
            .Attr("little_endian: bool = true")
            .Kernels("CPU"));
  t.Add(Op("DecodeCompressed")
            .Input("bytes: string")
            .Output("output: string")
            .Attr("compression_type: string = ''")
            .Kernels("CPU"));
  t.Add(Op("DecodeJSONExample")
            .Input("json_examples: string")
            .Output("binary_examples: string")
            .Kernels("CPU"));
  t.Add(Op("ParseTensor")
            .Input("serialized: string")
            .Output("output: out_type")
            .Attr("out_type: type")
            .Kernels("CPU"));
  t.Add(Op("SerializeTensor")
            .Input("tensor: T")
            .Output("serialized: string")
            .Attr("T: type")
            .Kernels("CPU"));
}

void RegisterSequenceExampleOps(OpTable& t) {
  t.Add(
      Op("ParseSequenceExampleV2")
          .Input("serialized: string")
          .Input("debug_name: string")
          .Input("context_sparse_keys: string")
          .Input("context_dense_keys: string")
          .Input("context_ragged_keys: string")
          .Input("feature_list_sparse_keys: string")
          .Input("feature_list_dense_keys: string")
          .Input("feature_list_ragged_keys: string")
          .Input("feature_list_dense_missing_assumed_empty: bool")
          .Input("context_dense_defaults: Tcontext_dense")
          .Output("context_sparse_indices: Ncontext_sparse * int64")
          .Output("context_sparse_values: context_sparse_types")
          .Output("context_sparse_shapes: Ncontext_sparse * int64")
          .Output("context_dense_values: Tcontext_dense")
          .Output("context_ragged_values: context_ragged_value_types")
          .Output("context_ragged_row_splits: context_ragged_split_types")
          .Output("feature_list_sparse_indices: Nfeature_list_sparse * int64")
          .Output("feature_list_sparse_values: feature_list_sparse_types")
          .Output("feature_list_sparse_shapes: Nfeature_list_sparse * int64")
          .Output("feature_list_dense_values: feature_list_dense_types")
          .Output("feature_list_dense_lengths: Nfeature_list_dense * int64")
          .Output("feature_list_ragged_values: feature_list_ragged_value_types")
          .Output("feature_list_ragged_outer_splits: "
                  "feature_list_ragged_split_types")
          .Output("feature_list_ragged_inner_splits: "
                  "feature_list_ragged_split_types")
          .Attr("Ncontext_sparse: int >= 0 = 0")
          .Attr("Tcontext_dense: list({float, int64, string}) >= 0 = []")
          .Attr("context_sparse_types: list({float, int64, string}) >= 0 = []")
          .Attr("context_ragged_value_types: list({float, int64, string}) >= 0 "
                "= []")
          .Attr("context_ragged_split_types: list({int32, int64}) >= 0 = []")
          .Attr("context_dense_shapes: list(shape) >= 0 = []")
          .Attr("Nfeature_list_sparse: int >= 0 = 0")
          .Attr("Nfeature_list_dense: int >= 0 = 0")
          .Attr("feature_list_dense_types: list({float, int64, string}) >= 0 "
                "= []")
          .Attr("feature_list_sparse_types: list({float, int64, string}) >= 0 "
                "= []")
          .Attr("feature_list_ragged_value_types: list({float, int64, "
                "string}) >= 0 = []")
          .Attr("feature_list_ragged_split_types: list({int32, int64}) >= 0 "
                "= []")
          .Attr("feature_list_dense_shapes: list(shape) >= 0 = []")
          .Kernels("CPU"));
}

// The attrs ParseSequenceExample and ParseSingleSequenceExample share.
OpBuilder& SequenceExampleV1Attrs(OpBuilder& op) {
  return op.Attr("Ncontext_sparse: int >= 0 = 0")
      .Attr("Ncontext_dense: int >= 0 = 0")
      .Attr("Nfeature_list_sparse: int >= 0 = 0")
      .Attr("Nfeature_list_dense: int >= 0 = 0")
      .Attr("context_sparse_types: list({float, int64, string}) >= 0 = []")
      .Attr("Tcontext_dense: list({float, int64, string}) >= 0 = []")
      .Attr("feature_list_dense_types: list({float, int64, string}) >= 0 = []")
      .Attr("context_dense_shapes: list(shape) >= 0 = []")
      .Attr("feature_list_sparse_types: list({float, int64, string}) >= 0 = []")
      .Attr("feature_list_dense_shapes: list(shape) >= 0 = []")
      .Output("context_sparse_indices: Ncontext_sparse * int64")
      .Output("context_sparse_values: context_sparse_types")
      .Output("context_sparse_shapes: Ncontext_sparse * int64")
      .Output("context_dense_values: Tcontext_dense")
      .Output("feature_list_sparse_indices: Nfeature_list_sparse * int64")
      .Output("feature_list_sparse_values: feature_list_sparse_types")
      .Output("feature_list_sparse_shapes: Nfeature_list_sparse * int64")
      .Output("feature_list_dense_values: feature_list_dense_types")
      .Kernels("CPU");
}

void RegisterSequenceExampleV1Ops(OpTable& t) {
  OpBuilder batch = Op("ParseSequenceExample");
  batch.Input("serialized: string")
      .Input("debug_name: string")
      .Input("context_dense_defaults: Tcontext_dense")
      .Attr("feature_list_dense_missing_assumed_empty: list(string) >= 0")
      .Attr("context_sparse_keys: list(string) >= 0")
      .Attr("context_dense_keys: list(string) >= 0")
      .Attr("feature_list_sparse_keys: list(string) >= 0")
      .Attr("feature_list_dense_keys: list(string) >= 0");
  SequenceExampleV1Attrs(batch).Output(
      "feature_list_dense_lengths: Nfeature_list_dense * int64");
  t.Add(batch);
  OpBuilder single = Op("ParseSingleSequenceExample");
  single.Input("serialized: string")
      .Input("feature_list_dense_missing_assumed_empty: string")
      .Input("context_sparse_keys: Ncontext_sparse * string")
      .Input("context_dense_keys: Ncontext_dense * string")
      .Input("feature_list_sparse_keys: Nfeature_list_sparse * string")
      .Input("feature_list_dense_keys: Nfeature_list_dense * string")
      .Input("context_dense_defaults: Tcontext_dense")
      .Input("debug_name: string");
  t.Add(SequenceExampleV1Attrs(single));
}

void RegisterAudioOps(OpTable& t) {
  t.Add(Op("DecodeWav")
            .Input("contents: string")
            .Output("audio: float")
            .Output("sample_rate: int32")
            .Attr("desired_channels: int = -1")
            .Attr("desired_samples: int = -1")
            .Kernels("CPU"));
  t.Add(Op("EncodeWav")
            .Input("audio: float")
            .Input("sample_rate: int32")
            .Output("contents: string")
            .Kernels("CPU"));
  t.Add(Op("AudioSpectrogram")
            .Input("input: float")
            .Output("spectrogram: float")
            .Attr("window_size: int")
            .Attr("stride: int")
            .Attr("magnitude_squared: bool = false")
            .Kernels("CPU"));
  t.Add(Op("Mfcc")
            .Input("spectrogram: float")
            .Input("sample_rate: int32")
            .Output("output: float")
            .Attr("upper_frequency_limit: float = 4000")
            .Attr("lower_frequency_limit: float = 20")
            .Attr("filterbank_channel_count: int = 40")
            .Attr("dct_coefficient_count: int = 13")
            .Kernels("CPU"));
}

void RegisterImageOps(OpTable& t) {
  t.Add(Op("DecodeGif")
            .Input("contents: string")
            .Output("image: uint8")
            .Kernels("CPU"));
  t.Add(Op("DecodeWebP")
            .Input("contents: string")
            .Output("image: dtype")
            .Attr("channels: int = 0")
            .Attr("dtype: {uint8} = DT_UINT8")
            .Kernels("CPU"));
  t.Add(Op("DecodeJxl")
            .Input("contents: string")
            .Output("image: dtype")
            .Attr("channels: int = 0")
            .Attr("dtype: {uint8} = DT_UINT8")
            .Kernels("CPU"));
  t.Add(Op("EncodeJpegVariableQuality")
            .Input("images: uint8")
            .Input("quality: int32")
            .Output("contents: string")
            .Kernels("CPU"));
}

void RegisterCheckpointRemapOps(OpTable& t) {
  t.Add(Op("GenerateVocabRemapping")
            .Input("new_vocab_file: string")
            .Input("old_vocab_file: string")
            .Output("remapping: int64")
            .Output("num_present: int32")
            .Attr("new_vocab_offset: int >= 0")
            .Attr("num_new_vocab: int >= 0")
            .Attr("old_vocab_size: int >= -1 = -1")
            .Kernels("CPU"));
  t.Add(Op("LoadAndRemapMatrix")
            .Input("ckpt_path: string")
            .Input("old_tensor_name: string")
            .Input("row_remapping: int64")
            .Input("col_remapping: int64")
            .Input("initializing_values: float")
            .Output("output_matrix: float")
            .Attr("num_rows: int >= 0")
            .Attr("num_cols: int >= 1")
            .Attr("max_rows_in_memory: int = -1")
            .Stateful()
            .Kernels("CPU"));
}

void RegisterProtoOps(OpTable& t) {
  t.Add(Op("DecodeProtoV2")
            .Input("bytes: string")
            .Output("sizes: int32")
            .Output("values: output_types")
            .Attr("message_type: string")
            .Attr("field_names: list(string)")
            .Attr("output_types: list(type) >= 0")
            .Attr("descriptor_source: string = 'local://'")
            .Attr("message_format: string = 'binary'")
            .Attr("sanitize: bool = false")
            .Kernels("CPU"));
  t.Add(Op("EncodeProto")
            .Input("sizes: int32")
            .Input("values: Tinput_types")
            .Output("bytes: string")
            .Attr("field_names: list(string)")
            .Attr("message_type: string")
            .Attr("descriptor_source: string = 'local://'")
            .Attr("Tinput_types: list(type)")
            .Kernels("CPU"));
}

void RegisterTimeOps(OpTable& t) {
  t.Add(Op("Timestamp").Output("ts: double").Stateful().Kernels("CPU"));
}

}  // namespace

void RegisterIoOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterDecodeOps(t);
  RegisterSequenceExampleOps(t);
  RegisterSequenceExampleV1Ops(t);
  RegisterAudioOps(t);
  RegisterImageOps(t);
  RegisterCheckpointRemapOps(t);
  RegisterProtoOps(t);
  RegisterTimeOps(t);
}

}  // namespace dfg
