"""The Unicode ops of the string family: UnicodeDecode(WithOffsets),
UnicodeEncode, UnicodeTranscode, UnicodeScript."""
import numpy as np

from op_case import OpCase

TEXT = ["hello", "", "héllo wörld", "日本語", "a\x01b\x1fc", "emoji 🎉!"]
BAD_UTF8 = [b"ok", b"\xff\xfeab", b"a\xc3", b"\xe6\x97", b"x\xed\xa0\x80y",
            b"\xf4\x90\x80\x80", b"\xc0\xaf"]


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _decode(strings, tag, offsets=False, tsplits=np.int64, encoding="UTF-8", error=None,
            **attrs):
    op = "UnicodeDecodeWithOffsets" if offsets else "UnicodeDecode"
    name = f"{op}/{np.dtype(tsplits).name}/{encoding}/{tag}" + "".join(
        f"/{k}={v}" for k, v in attrs.items())

    def build():
        tf = _tf()
        x = tf.constant(strings, tf.string)
        r = getattr(tf.raw_ops, op)(input=x, input_encoding=encoding, Tsplits=tsplits, **attrs)
        return list(r), {}
    return OpCase(name, [op], build, expect_error=error)


def _encoded(encoding):
    codec = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be",
             "ISO-8859-1": "latin-1"}[encoding]
    return [s.encode(codec, errors="replace") for s in TEXT if encoding != "ISO-8859-1"
            or all(ord(c) < 256 for c in s)]


def _decode_cases():
    out = []
    for offsets in (False, True):
        # TensorFlow's WithOffsets kernel with int32 splits aborts the process
        # (it writes the int64 offsets as int32): not a case.
        for t in (np.int64,) if offsets else (np.int32, np.int64):
            out.append(_decode(TEXT, "text", offsets, t))
        for enc in ("UTF-16-BE", "UTF-32-BE", "ISO-8859-1"):
            out.append(_decode(_encoded(enc), "text", offsets, encoding=enc))
        for errors in ("replace", "ignore"):
            out.append(_decode(BAD_UTF8, "bad", offsets, errors=errors))
        out += [_decode(BAD_UTF8, "bad", offsets, errors="replace", replacement_char=63),
                _decode(TEXT, "control", offsets, replace_control_characters=True),
                _decode(TEXT, "control", offsets, replace_control_characters=True,
                        errors="ignore"),
                _decode(BAD_UTF8, "bad", offsets, errors="strict",
                        error="Invalid formatting on input string"),
                _decode([[b"ab", b"c"], [b"", b"\xc3\xa9"]], "matrix", offsets)]
    out += [_decode(TEXT, "bad_encoding", encoding="NO-SUCH-ENCODING",
                    error="Could not create converter for input encoding: NO-SUCH-ENCODING"),
            _decode(TEXT, "bad_replacement", replacement_char=0x110000,
                    error="replacement_char out of unicode codepoint range")]
    return out


def _encode(values, splits, encoding, tag, tsplits=np.int64, error=None, **attrs):
    name = f"UnicodeEncode/{np.dtype(tsplits).name}/{encoding}/{tag}" + "".join(
        f"/{k}={v}" for k, v in attrs.items())

    def build():
        tf = _tf()
        v = tf.compat.v1.placeholder(tf.int32, (len(values),), name="values")
        s = tf.compat.v1.placeholder(tsplits, (len(splits),), name="splits")
        y = tf.raw_ops.UnicodeEncode(input_values=v, input_splits=s, output_encoding=encoding,
                                     **attrs)
        return [y], {v: np.array(values, np.int32), s: np.array(splits, tsplits)}
    return OpCase(name, ["UnicodeEncode"], build, expect_error=error)


def _encode_cases():
    # (no U+0000 last in a string: `dfg run`'s .npy strings lose trailing NULs)
    cps = [104, 233, 0x65E5, 0, 0x1F389, 65, 0xD800, 66]
    bad = [65, -1, 0x110000, 0xDFFF, 66]
    out = []
    for enc in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
        for t in (np.int32, np.int64):
            out.append(_encode(cps, [0, 2, 2, 5, 8], enc, "text", t))
        for errors in ("replace", "ignore"):
            out.append(_encode(bad, [0, 5], enc, "bad", errors=errors))
    out += [_encode(bad, [0, 5], "UTF-8", "bad", errors="replace", replacement_char=63),
            _encode(bad, [0, 5], "UTF-8", "bad", errors="strict",
                    error="Code point is out of range for Unicode, or is a surrogate")]
    return out


def _transcode(strings, tag, input_encoding, output_encoding, error=None, **attrs):
    name = f"UnicodeTranscode/{input_encoding}->{output_encoding}/{tag}" + "".join(
        f"/{k}={v}" for k, v in attrs.items())

    def build():
        tf = _tf()
        x = tf.constant(strings, tf.string)
        y = tf.raw_ops.UnicodeTranscode(input=x, input_encoding=input_encoding,
                                        output_encoding=output_encoding, **attrs)
        return [y], {}
    return OpCase(name, ["UnicodeTranscode"], build, expect_error=error)


def _transcode_cases():
    out = []
    for src in ("UTF-8", "UTF-16-BE", "ISO-8859-1"):
        for dst in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
            out.append(_transcode(_encoded(src), "text", src, dst))
    for errors in ("replace", "ignore"):
        out.append(_transcode(BAD_UTF8, "bad", "UTF-8", "UTF-8", errors=errors))
    out += [_transcode(np.array([TEXT[:3], TEXT[3:]], object), "matrix", "UTF-8", "UTF-16-BE",
                       replace_control_characters=True),
            _transcode(BAD_UTF8, "bad", "UTF-8", "UTF-8", errors="strict",
                       error="Invalid formatting on input string")]
    return out


def _script_cases():
    def build():
        tf = _tf()
        x = tf.compat.v1.placeholder(tf.int32, (12,), name="x")
        v = np.array([65, 0x3B1, 0x5D0, 0x627, 0x4E00, 0x3042, 0x30A2, 0xAC00, 0x0E01, 48, -1,
                      0x110000], np.int32)
        return [tf.raw_ops.UnicodeScript(input=x)], {x: v}
    return [OpCase("UnicodeScript/int32[12]", ["UnicodeScript"], build)]


def cases():
    yield from _decode_cases()
    yield from _encode_cases()
    yield from _transcode_cases()
    yield from _script_cases()
