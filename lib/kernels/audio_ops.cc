// Audio ops: DecodeWav, EncodeWav, AudioSpectrogram and Mfcc (TensorFlow's
// core/lib/wav/wav_io.cc and core/kernels/{decode_wav,encode_wav,
// spectrogram,mfcc}_op.cc with spectrogram.cc, mfcc.cc,
// mfcc_mel_filterbank.cc, mfcc_dct.cc): 16-bit PCM WAV in and out, the
// Hann-windowed power spectrogram and the HTK-style mel cepstrum the
// speech-commands models run, in double precision as TensorFlow computes them.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

using tensorflow::DT_FLOAT;

// A little-endian reader over the WAV bytes with TensorFlow's offset checks.
class WavReader {
 public:
  explicit WavReader(const std::string& data) : data_(data) {}

  Status Skip(int64_t n) {
    if (n < 0)
      return InvalidArgument("Negative increment is not allowed: {}", n);
    if (offset_ + n > static_cast<int64_t>(data_.size())) {
      return InvalidArgument("Data too short when trying to read string");
    }
    offset_ += n;
    return Status::Ok();
  }
  Status ReadString(int n, std::string* out) {
    const int64_t start = offset_;
    DFG_RETURN_IF_ERROR(Skip(n));
    *out = data_.substr(start, n);
    return Status::Ok();
  }
  Status Expect(const std::string& text) {
    std::string found;
    DFG_RETURN_IF_ERROR(ReadString(static_cast<int>(text.size()), &found));
    if (found != text) {
      return InvalidArgument("Header mismatch: Expected {} but found {}", text,
                             found);
    }
    return Status::Ok();
  }
  template <typename T>
  Status Read(T* value) {
    const int64_t start = offset_;
    DFG_RETURN_IF_ERROR(Skip(sizeof(T)));
    std::memcpy(value, data_.data() + start, sizeof(T));
    return Status::Ok();
  }
  int64_t offset() const { return offset_; }
  void Advance(int64_t n) { offset_ += n; }
  bool AtEnd() const { return offset_ >= static_cast<int64_t>(data_.size()); }

 private:
  const std::string& data_;
  int64_t offset_ = 0;
};

struct Wav {
  std::vector<float> samples;  // interleaved
  uint32_t frames = 0;
  uint16_t channels = 0;
  uint32_t rate = 0;
};

bool IsSkippableChunk(const std::string& id) {
  for (const char* s :
       {"JUNK", "bext", "iXML", "qlty", "mext", "levl", "link", "axml"}) {
    if (id == s) return true;
  }
  return false;
}

// The "fmt " chunk's body (after its id): PCM, 16 bits, consistent sizes.
Status ReadFormat(WavReader& r, Wav* wav, uint16_t* frame_bytes) {
  uint32_t size = 0, bytes_per_second = 0;
  uint16_t format = 0, bits = 0;
  DFG_RETURN_IF_ERROR(r.Read(&size));
  if (size != 16 && size != 18) {
    return InvalidArgument(
        "Bad format chunk size for WAV: Expected 16 or 18, but got{}", size);
  }
  DFG_RETURN_IF_ERROR(r.Read(&format));
  if (format != 1) {
    return InvalidArgument(
        "Bad audio format for WAV: Expected 1 (PCM), but got{}", format);
  }
  DFG_RETURN_IF_ERROR(r.Read(&wav->channels));
  if (wav->channels < 1) {
    return InvalidArgument(
        "Bad number of channels for WAV: Expected at least 1, but got {}",
        wav->channels);
  }
  DFG_RETURN_IF_ERROR(r.Read(&wav->rate));
  DFG_RETURN_IF_ERROR(r.Read(&bytes_per_second));
  DFG_RETURN_IF_ERROR(r.Read(frame_bytes));
  DFG_RETURN_IF_ERROR(r.Read(&bits));
  if (bits != 16) {
    return InvalidArgument("Can only read 16-bit WAV files, but received {}",
                           bits);
  }
  const uint32_t expected_frame = (bits * wav->channels + 7) / 8;
  if (*frame_bytes != expected_frame) {
    return InvalidArgument(
        "Bad bytes per sample in WAV header: Expected {} but got {}",
        expected_frame, *frame_bytes);
  }
  const uint32_t expected_rate = *frame_bytes * wav->rate;
  if (bytes_per_second != expected_rate) {
    return InvalidArgument(
        "Bad bytes per second in WAV header: Expected {} but got {} "
        "(sample_rate={}, bytes_per_sample={})",
        expected_rate, bytes_per_second, wav->rate, *frame_bytes);
  }
  if (size == 18) r.Advance(2);
  return Status::Ok();
}

// TensorFlow's DecodeLin16WaveAsFloatVector.
Status DecodeWavBytes(const std::string& data, Wav* wav) {
  WavReader r(data);
  uint32_t file_size = 0;
  DFG_RETURN_IF_ERROR(r.Expect("RIFF"));
  DFG_RETURN_IF_ERROR(r.Read(&file_size));
  DFG_RETURN_IF_ERROR(r.Expect("WAVE"));
  std::string id;
  DFG_RETURN_IF_ERROR(r.ReadString(4, &id));
  while (id != "fmt ") {
    if (!IsSkippableChunk(id))
      return InvalidArgument("Unexpected field {}", id);
    uint32_t size = 0;
    DFG_RETURN_IF_ERROR(r.Read(&size));
    DFG_RETURN_IF_ERROR(r.Skip(size));
    DFG_RETURN_IF_ERROR(r.ReadString(4, &id));
  }
  uint16_t frame_bytes = 0;
  DFG_RETURN_IF_ERROR(ReadFormat(r, wav, &frame_bytes));
  bool found = false;
  while (!r.AtEnd()) {
    uint32_t size = 0;
    DFG_RETURN_IF_ERROR(r.ReadString(4, &id));
    DFG_RETURN_IF_ERROR(r.Read(&size));
    if (size > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
      return InvalidArgument(
          "WAV data chunk '{}' is too large: {} bytes, but the limit is {}", id,
          size, std::numeric_limits<int32_t>::max());
    }
    if (id != "data") {
      r.Advance(size);
      continue;
    }
    if (found) return InvalidArgument("More than one data chunk found in WAV");
    found = true;
    wav->frames = size / frame_bytes;
    // 64 bits: a bogus header cannot wrap the count below the data read.
    const uint64_t count = uint64_t{wav->frames} * wav->channels;
    const int64_t start = r.offset();
    DFG_RETURN_IF_ERROR(r.Skip(2 * static_cast<int64_t>(count)));
    wav->samples.resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      int16_t v;
      std::memcpy(&v, data.data() + start + 2 * i, 2);
      wav->samples[i] = v * (1.0f / 32768);
    }
  }
  if (!found) return InvalidArgument("No data chunk found in WAV");
  return Status::Ok();
}

class DecodeWavOp : public OpKernel {
 public:
  explicit DecodeWavOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("desired_channels", &channels_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("desired_samples", &samples_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 0,
                    InvalidArgument("contents must be scalar, got shape {}",
                                    in.shape().DebugString()));
    Wav wav;
    DFG_OP_REQUIRES_OK(ctx, DecodeWavBytes(in.scalar<std::string>(), &wav));
    DFG_OP_REQUIRES(
        ctx, channels_ >= -1,
        InvalidArgument("desired_channels must be >= -1, got {}", channels_));
    DFG_OP_REQUIRES(
        ctx, samples_ >= -1,
        InvalidArgument("desired_samples must be >= -1, got {}", samples_));
    const int32_t frames = samples_ == -1 ? wav.frames : samples_;
    const int32_t channels = channels_ == -1 ? wav.channels : channels_;
    DFG_OP_REQUIRES(
        ctx, frames >= 0,
        InvalidArgument("Output sample count must be >= 0, got {}", frames));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {frames, channels}, &out));
    auto o = out->flat<float>();
    for (int64_t s = 0; s < frames; ++s) {
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t src = std::min<int64_t>(c, wav.channels - 1);
        o[s * channels + c] =
            s < wav.frames ? wav.samples[s * wav.channels + src] : 0.0f;
      }
    }
    ctx->set_output(1, Tensor::Scalar<int32_t>(static_cast<int32_t>(wav.rate)));
  }

 private:
  int32_t channels_ = -1;
  int32_t samples_ = -1;
};

void PutLe(std::string& s, size_t at, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s[at + i] = static_cast<char>(v >> (8 * i));
}

class EncodeWavOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& audio = ctx->input(0);
    DFG_OP_REQUIRES(ctx, audio.dims() == 2,
                    InvalidArgument("audio must be 2-dimensional{}",
                                    audio.shape().DebugString()));
    const Tensor& rate_t = ctx->input(1);
    DFG_OP_REQUIRES(ctx, rate_t.dims() == 0,
                    InvalidArgument("Input sample_rate should be a scalar "
                                    "tensor, got {} instead.",
                                    rate_t.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, audio.NumElements() < std::numeric_limits<int32_t>::max(),
        InvalidArgument("Cannot encode audio with >= max int32 elements"));
    // TensorFlow passes the int32 rate and channel count as size_t.
    const size_t rate =
        static_cast<size_t>(static_cast<int64_t>(rate_t.scalar<int32_t>()));
    const size_t channels = static_cast<size_t>(
        static_cast<int64_t>(static_cast<int32_t>(audio.dim_size(1))));
    const size_t frames = static_cast<size_t>(audio.dim_size(0));
    DFG_OP_REQUIRES(
        ctx, rate != 0 && rate <= 0xffffffffu,
        InvalidArgument("sample_rate must be in (0, 2^32), got: {}", rate));
    DFG_OP_REQUIRES(
        ctx, channels != 0 && channels <= 0xffffu,
        InvalidArgument("num_channels must be in (0, 2^16), got: {}",
                        channels));
    const size_t samples = frames * channels;
    const size_t file_size = 44 + 2 * samples;
    DFG_OP_REQUIRES(ctx, file_size <= 0xffffffffu,
                    InvalidArgument("Provided channels and frames cannot be "
                                    "encoded as a WAV."));
    std::string s(file_size, '\0');
    std::memcpy(&s[0], "RIFF", 4);
    PutLe(s, 4, file_size - 8, 4);
    std::memcpy(&s[8], "WAVEfmt ", 8);
    PutLe(s, 16, 16, 4);
    PutLe(s, 20, 1, 2);
    PutLe(s, 22, channels, 2);
    PutLe(s, 24, rate, 4);
    PutLe(s, 28, rate * 2 * channels, 4);
    PutLe(s, 32, 2 * channels, 2);
    PutLe(s, 34, 16, 2);
    std::memcpy(&s[36], "data", 4);
    PutLe(s, 40, 2 * samples, 4);
    auto a = audio.flat<float>();
    for (size_t i = 0; i < samples; ++i) {
      const float v =
          std::min(std::max(std::round(a[i] * 32768.0f), -32768.0f), 32767.0f);
      PutLe(s, 44 + 2 * i, static_cast<uint16_t>(static_cast<int16_t>(v)), 2);
    }
    ctx->set_output(0, Tensor::Scalar<std::string>(std::move(s)));
  }
};

// In-place radix-2 FFT of `a` (size a power of two), forward direction.
void Fft(std::vector<std::complex<double>>& a) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const double pi = std::atan(1.0) * 4;
  for (size_t len = 2; len <= n; len <<= 1) {
    for (size_t k = 0; k < len / 2; ++k) {
      const std::complex<double> w = std::polar(1.0, -2 * pi * k / len);
      for (size_t i = 0; i < n; i += len) {
        const std::complex<double> u = a[i + k], v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
    }
  }
}

class AudioSpectrogramOp : public OpKernel {
 public:
  explicit AudioSpectrogramOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("window_size", &window_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("stride", &stride_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("magnitude_squared", &squared_));
    DFG_OP_REQUIRES(
        ctx, window_ > 1,
        InvalidArgument("window_size must be > 1, got {}", window_));
    DFG_OP_REQUIRES(ctx, stride_ > 0,
                    InvalidArgument("stride must be > 0, got {}", stride_));
    const double pi = std::atan(1.0) * 4;
    for (int i = 0; i < window_; ++i) {
      hann_.push_back(0.5 - 0.5 * std::cos((2 * pi * i) / window_));
    }
    while (fft_length_ < window_) fft_length_ <<= 1;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 2,
                    InvalidArgument("input must be 2-dimensional{}",
                                    in.shape().DebugString()));
    const int64_t samples = in.dim_size(0), channels = in.dim_size(1);
    const int64_t bins = fft_length_ / 2 + 1;
    const int64_t rows =
        samples < window_ ? 0 : 1 + (samples - window_) / stride_;
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, {channels, rows, bins}, &out));
    auto x = in.flat<float>();
    auto o = out->flat<float>();
    std::vector<std::complex<double>> buf(fft_length_);
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t r = 0; r < rows; ++r) {
        std::fill(buf.begin(), buf.end(), 0.0);
        for (int j = 0; j < window_; ++j) {
          buf[j] = static_cast<double>(x[(r * stride_ + j) * channels + c]) *
                   hann_[j];
        }
        Fft(buf);
        float* row = &o[(c * rows + r) * bins];
        for (int64_t k = 0; k < bins; ++k) {
          const double re = buf[k].real(), im = buf[k].imag();
          const float power = static_cast<float>(re * re + im * im);
          row[k] = squared_ ? power : std::sqrt(power);
        }
      }
    }
  }

 private:
  int32_t window_ = 0;
  int32_t stride_ = 0;
  bool squared_ = false;
  std::vector<double> hann_;
  int64_t fft_length_ = 1;
};

// TensorFlow's MfccMelFilterbank: for each FFT bin in [start, end], the
// channel whose triangle's right side it is on (-1: only the first
// channel's left side) and its weight on that side.
struct MelFilterbank {
  int channels = 0;
  int start = 0, end = 0;
  std::vector<int> band;
  std::vector<double> weight;

  static double Mel(double hz) { return 1127.0 * std::log1p(hz / 700.0); }

  bool Init(int length, double rate, int count, double lo, double hi) {
    channels = count;
    if (count < 1 || rate <= 0 || length < 2 || lo < 0 || hi <= lo) {
      return false;
    }
    std::vector<double> center(count + 1);
    const double mel_lo = Mel(lo);
    const double spacing = (Mel(hi) - mel_lo) / (count + 1);
    for (int i = 0; i <= count; ++i) center[i] = mel_lo + spacing * (i + 1);
    const double hz_per_bin = 0.5 * rate / (length - 1);
    start = static_cast<int>(1.5 + lo / hz_per_bin);
    end = static_cast<int>(hi / hz_per_bin);
    band.assign(length, -2);
    weight.assign(length, 0.0);
    int channel = 0;
    for (int i = 0; i < length; ++i) {
      if (i < start || i > end) continue;
      const double mel = Mel(i * hz_per_bin);
      while (channel < count && center[channel] < mel) ++channel;
      band[i] = channel - 1;
      const int b = band[i];
      weight[i] = b >= 0 ? (center[b + 1] - mel) / (center[b + 1] - center[b])
                         : (center[0] - mel) / (center[0] - mel_lo);
    }
    return true;
  }

  // Mel energies of one power spectrum; empty when the spectrum is too
  // short (TensorFlow then logs and leaves its output empty).
  std::vector<double> Apply(const std::vector<double>& spectrum) const {
    if (static_cast<int>(spectrum.size()) <= end) return {};
    std::vector<double> out(channels, 0.0);
    for (int i = start; i <= end; ++i) {
      const double v = std::sqrt(spectrum[i]);
      const double w = v * weight[i];
      if (band[i] >= 0) out[band[i]] += w;
      if (band[i] + 1 < channels) out[band[i] + 1] += v - w;
    }
    return out;
  }
};

class MfccOp : public OpKernel {
 public:
  explicit MfccOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("upper_frequency_limit", &upper_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("lower_frequency_limit", &lower_));
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->GetAttr("filterbank_channel_count", &filters_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dct_coefficient_count", &coeffs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& spec = ctx->input(0);
    DFG_OP_REQUIRES(ctx, spec.dims() == 3,
                    InvalidArgument("spectrogram must be 3-dimensional{}",
                                    spec.shape().DebugString()));
    const Tensor& rate_t = ctx->input(1);
    DFG_OP_REQUIRES(ctx, rate_t.dims() == 0,
                    InvalidArgument("Input sample_rate should be a scalar "
                                    "tensor, got {} instead.",
                                    rate_t.shape().DebugString()));
    const int32_t rate = rate_t.scalar<int32_t>();
    const int bins = static_cast<int>(spec.dim_size(2));
    const int64_t frames = spec.dim_size(0) * spec.dim_size(1);
    MelFilterbank bank;
    const bool ok = bank.Init(bins, rate, filters_, lower_, upper_) &&
                    coeffs_ >= 1 && coeffs_ <= filters_;
    DFG_OP_REQUIRES(ctx, ok,
                    InvalidArgument("Mfcc initialization failed for channel "
                                    "count {}, sample rate {} and "
                                    "filterbank_channel_count {}",
                                    bins, rate, filters_));
    const double pi = std::atan(1.0) * 4;
    const double norm = std::sqrt(2.0 / filters_);
    std::vector<double> cosines(static_cast<size_t>(coeffs_) * filters_);
    for (int i = 0; i < coeffs_; ++i) {
      for (int j = 0; j < filters_; ++j) {
        cosines[i * filters_ + j] =
            norm * std::cos(i * (pi / filters_) * (j + 0.5));
      }
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, {spec.dim_size(0), spec.dim_size(1), coeffs_}, &out));
    auto s = spec.flat<float>();
    auto o = out->flat<float>();
    for (int64_t f = 0; f < frames; ++f) {
      std::vector<double> mel =
          bank.Apply(std::vector<double>(&s[f * bins], &s[f * bins] + bins));
      for (double& v : mel) v = std::log(std::max(v, 1e-12));
      for (int i = 0; i < coeffs_; ++i) {
        double sum = 0.0;
        for (size_t j = 0; j < mel.size(); ++j) {
          sum += cosines[i * filters_ + j] * mel[j];
        }
        o[f * coeffs_ + i] = static_cast<float>(sum);
      }
    }
  }

 private:
  float upper_ = 4000;
  float lower_ = 20;
  int32_t filters_ = 40;
  int32_t coeffs_ = 13;
};

}  // namespace

void RegisterAudioKernels(KernelRegistry* r) {
  r->Register<DecodeWavOp>("DecodeWav");
  r->Register<EncodeWavOp>("EncodeWav");
  r->Register<AudioSpectrogramOp>("AudioSpectrogram");
  r->Register<MfccOp>("Mfcc");
}

}  // namespace dfg
