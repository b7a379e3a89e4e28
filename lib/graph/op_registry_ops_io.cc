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
  t.Add(Op("EncodeJpegVariableQuality")
            .Input("images: uint8")
            .Input("quality: int32")
            .Output("contents: string")
            .Kernels("CPU"));
}

void RegisterTimeOps(OpTable& t) {
  t.Add(Op("Timestamp").Output("ts: double").Stateful().Kernels("CPU"));
}

}  // namespace

void RegisterIoOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterDecodeOps(t);
  RegisterAudioOps(t);
  RegisterImageOps(t);
  RegisterTimeOps(t);
}

}  // namespace dfg
