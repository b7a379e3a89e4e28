"""Audio ops: WAV decoding and encoding, the spectrogram and MFCC features of
the speech-commands models."""
import struct

import numpy as np

from op_case import OpCase, data


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _wav(samples, rate=16000, extra=b"", fmt_size=16, bits=16):
    """16-bit PCM WAV bytes of int16 `samples` [frames, channels]."""
    frames, channels = samples.shape
    body = samples.astype("<i2").tobytes()
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * 2 * channels,
                      2 * channels, bits) + (b"\0\0" if fmt_size == 18 else b"")
    chunks = (extra + b"fmt " + struct.pack("<I", fmt_size) + fmt +
              b"data" + struct.pack("<I", len(body)) + body)
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks


def _pcm(name, frames, channels):
    return (data(name, np.float32, (frames, channels), "unit") * 32767).astype(np.int16)


def _const(v):
    tf = _tf()
    return tf.constant(v, tf.string)


def _decode_cases():
    tf = _tf()
    out = []
    for frames, channels in [(10, 1), (7, 2), (0, 1)]:
        for dc, ds in [(-1, -1), (1, 4), (3, 12)]:
            name = f"DecodeWav/{frames}x{channels}/channels={dc},samples={ds}"
            wav = _wav(_pcm(name, frames, channels))
            out.append(OpCase(name, ["DecodeWav"], lambda w=wav, c=dc, s=ds: (list(
                tf.raw_ops.DecodeWav(contents=_const(w), desired_channels=c,
                                     desired_samples=s)), {})))
    junk = _wav(_pcm("junk", 5, 1), rate=8000, extra=b"JUNK\x04\0\0\0abcd", fmt_size=18)
    out.append(OpCase("DecodeWav/junk_fmt18", ["DecodeWav"], lambda: (list(
        tf.raw_ops.DecodeWav(contents=_const(junk))), {})))
    trailing = _wav(_pcm("tail", 3, 1)) + b"LIST\x02\0\0\0xy"
    out.append(OpCase("DecodeWav/trailing_chunk", ["DecodeWav"], lambda: (list(
        tf.raw_ops.DecodeWav(contents=_const(trailing))), {})))
    for name, contents, error in [
            ("not_riff", b"RIFX" + b"\0" * 40, "Header mismatch: Expected RIFF but found RIFX"),
            ("short", b"RIFF", "Data too short when trying to read string"),
            ("bits8", _wav(_pcm("b8", 2, 1), bits=8), "Can only read 16-bit WAV files, but received 8"),
            ("no_data", _wav(_pcm("nd", 2, 1))[:36], "No data chunk found in WAV"),
            ("field", b"RIFF\0\0\0\0WAVExxxx", "Unexpected field xxxx")]:
        out.append(OpCase(f"DecodeWav/{name}", ["DecodeWav"], lambda c=contents: (list(
            tf.raw_ops.DecodeWav(contents=_const(c))), {}), expect_error=error))
    out.append(OpCase("DecodeWav/not_scalar", ["DecodeWav"], lambda: (list(
        tf.raw_ops.DecodeWav(contents=tf.compat.v1.placeholder_with_default(
            tf.reshape(_const(_wav(_pcm("ns", 2, 1))), [1]), None))), {}),
        expect_error=r"contents must be scalar, got shape \[1\]"))
    return out


def _encode_cases():
    tf = _tf()
    out = []
    for shape in [(10, 1), (6, 3), (0, 2)]:
        name = f"EncodeWav/float32{list(shape)}".replace(" ", "")
        v = data(name, np.float32, shape, "small") / 2  # some beyond [-1, 1]

        def build(v=v):
            a = tf.compat.v1.placeholder(tf.float32, v.shape, name="a")
            return [tf.raw_ops.EncodeWav(audio=a, sample_rate=44100)], {a: v}
        out.append(OpCase(name, ["EncodeWav"], build))
    out.append(OpCase("EncodeWav/roundtrip", ["EncodeWav", "DecodeWav"], lambda: (list(
        tf.raw_ops.DecodeWav(contents=tf.raw_ops.EncodeWav(
            audio=tf.constant(data("rt", np.float32, (9, 2), "unit")), sample_rate=8000))), {})))
    for name, shape, rate, error in [
            ("no_channels", (3, 0), 8000, r"num_channels must be in \(0, 2\^16\), got: 0"),
            ("zero_rate", (3, 1), 0, r"sample_rate must be in \(0, 2\^32\), got: 0")]:
        def build(shape=shape, rate=rate):
            a = tf.compat.v1.placeholder(tf.float32, shape, name="a")
            return [tf.raw_ops.EncodeWav(audio=a, sample_rate=rate)], {a: np.zeros(shape, np.float32)}
        out.append(OpCase(f"EncodeWav/{name}", ["EncodeWav"], build, expect_error=error))
    return out


def _spectrogram_cases():
    tf = _tf()
    out = []
    for samples, channels, window, stride, squared in [
            (100, 1, 16, 8, False), (130, 2, 25, 10, True), (64, 1, 64, 1, False),
            (10, 1, 16, 4, False), (257, 1, 100, 33, False)]:
        name = (f"AudioSpectrogram/{samples}x{channels}/window={window},stride={stride},"
                f"squared={squared}")
        x = data(name, np.float32, (samples, channels), "unit")

        def build(x=x, w=window, s=stride, sq=squared):
            a = tf.compat.v1.placeholder(tf.float32, x.shape, name="a")
            return [tf.raw_ops.AudioSpectrogram(input=a, window_size=w, stride=s,
                                                magnitude_squared=sq)], {a: x}
        out.append(OpCase(name, ["AudioSpectrogram"], build, rtol=1e-5, atol=1e-5))
    return out


def _mfcc_cases():
    tf = _tf()
    out = []
    for name, samples, window, stride, rate, attrs in [
            ("default", 16000, 480, 160, 16000, {}),
            ("small", 800, 64, 32, 8000, dict(filterbank_channel_count=20,
                                               dct_coefficient_count=10,
                                               upper_frequency_limit=3000.0,
                                               lower_frequency_limit=100.0)),
            ("two_channels", 400, 128, 64, 16000, dict(dct_coefficient_count=40))]:
        cname = f"Mfcc/{name}"
        x = data(cname, np.float32, (samples, 2 if "two" in name else 1), "unit")

        def build(x=x, w=window, s=stride, r=rate, attrs=attrs):
            a = tf.compat.v1.placeholder(tf.float32, x.shape, name="a")
            spec = tf.raw_ops.AudioSpectrogram(input=a, window_size=w, stride=s,
                                               magnitude_squared=True)
            return [tf.raw_ops.Mfcc(spectrogram=spec, sample_rate=r, **attrs)], {a: x}
        out.append(OpCase(cname, ["Mfcc", "AudioSpectrogram"], build, rtol=1e-4, atol=1e-4))
    out.append(OpCase("Mfcc/too_many_coefficients", ["Mfcc"], lambda: ([tf.raw_ops.Mfcc(
        spectrogram=tf.ones([1, 2, 33]), sample_rate=16000, dct_coefficient_count=41)], {}),
        expect_error="Mfcc initialization failed for channel count 33, sample rate 16000 "
                     "and filterbank_channel_count 40"))
    out.append(OpCase("Mfcc/short_spectrum", ["Mfcc"], lambda: ([tf.raw_ops.Mfcc(
        spectrogram=tf.ones([1, 2, 3]) * 4.0, sample_rate=16000,
        filterbank_channel_count=2, dct_coefficient_count=2)], {})))
    return out


def _speech_pipeline():
    """DecodeWav -> AudioSpectrogram -> Mfcc, as the speech-commands graph."""
    tf = _tf()
    wav = _wav(_pcm("speech", 4000, 1))

    def build():
        audio, rate = tf.raw_ops.DecodeWav(contents=_const(wav), desired_channels=1,
                                           desired_samples=4000)
        spec = tf.raw_ops.AudioSpectrogram(input=audio, window_size=480, stride=160,
                                           magnitude_squared=True)
        return [tf.raw_ops.Mfcc(spectrogram=spec, sample_rate=rate,
                                dct_coefficient_count=40)], {}
    return OpCase("Mfcc/speech_pipeline", ["DecodeWav", "AudioSpectrogram", "Mfcc"], build,
                  rtol=1e-4, atol=1e-4)


def _to_audio_summary_v1(rate, producer):
    """An `edit`: AudioSummaryV2 (sample_rate an input) as the deprecated
    AudioSummary (sample_rate an attr) in a GraphDef of `producer`."""
    def edit(graph_def):
        for node in graph_def.node:
            if node.op == "AudioSummaryV2":
                node.op = "AudioSummary"
                del node.input[2]
                node.attr["sample_rate"].f = rate
        graph_def.versions.producer = producer
    return edit


def _audio_summary_cases():
    tf = _tf()
    out = []
    for shape, max_outputs in [((2, 50), 3), ((3, 40, 2), 2), ((0, 10), 1)]:
        name = f"AudioSummary/{list(shape)}/max={max_outputs}".replace(" ", "")
        v = data(name, np.float32, shape, "unit") * 1.2

        def build(v=v, m=max_outputs):
            x = tf.compat.v1.placeholder(tf.float32, None, name="x")
            y = tf.raw_ops.AudioSummaryV2(tag="au", tensor=x, sample_rate=8000.0,
                                          max_outputs=m)
            # Base64: `dfg run`'s .npy strings would lose trailing zero bytes.
            return [tf.raw_ops.EncodeBase64(input=y)], {x: v}
        out.append(OpCase(name, ["AudioSummary"], build,
                          edit=_to_audio_summary_v1(8000.0, 14)))
    out.append(OpCase("AudioSummary/producer15", ["AudioSummary"], lambda: ([
        tf.raw_ops.AudioSummaryV2(tag="au", tensor=tf.zeros([1, 4]), sample_rate=8000.0)], {}),
        edit=_to_audio_summary_v1(8000.0, 15),
        expect_error="Op AudioSummary is not available in GraphDef version 15"))
    return out


def cases():
    yield from _decode_cases()
    yield from _encode_cases()
    yield from _spectrogram_cases()
    yield from _mfcc_cases()
    yield _speech_pipeline()
    yield from _audio_summary_cases()
