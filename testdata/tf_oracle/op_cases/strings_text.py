"""Text conversions of the string family: AsString, StringToNumber,
Encode/DecodeBase64, Substr (strings.py has hashing, splitting, bincounts and
tables)."""
import numpy as np

from op_case import OpCase, data


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _as_string(dtype, tag="", error=None, **attrs):
    dname = np.dtype(dtype).name if dtype is not object else "string"
    name = f"AsString/{dname}" + "".join(f"/{k}={v}" for k, v in attrs.items()) + tag

    def build():
        tf = _tf()
        if dtype is object:
            x = tf.constant(["ab", "", "héllo", "a longer one"], tf.string)
            feeds = {}
        else:
            v = data(name, dtype, (2, 3))
            if np.dtype(dtype).kind == "f":
                v = v.astype(np.float64)
                v[0, :3] = [np.nan, -np.inf, 1e20]
                v = v.astype(dtype)
            x = tf.compat.v1.placeholder(dtype, (2, 3), name="x")
            feeds = {x: v}
        return [tf.raw_ops.AsString(input=x, **attrs)], feeds
    return OpCase(name, ["AsString"], build, expect_error=error)


def _as_string_cases():
    out = []
    for dt in (np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64,
               np.uint8, np.uint16, np.uint32, np.uint64, np.bool_, np.complex64,
               np.complex128, object):
        out.append(_as_string(dt))
        out.append(_as_string(dt, width=6))
    for dt in (np.float32, np.float64, np.complex64):
        out += [_as_string(dt, precision=3), _as_string(dt, shortest=True),
                _as_string(dt, scientific=True, precision=2, width=12, fill=" "),
                _as_string(dt, shortest=True, precision=4, fill="+"),
                _as_string(dt, width=10, fill="0", precision=1),
                _as_string(dt, width=10, fill="-"), _as_string(dt, fill="#")]
    out += [_as_string(np.int64, width=8, fill="0"), _as_string(np.int32, fill="+"),
            _as_string(object, width=8, fill="-", precision=2),
            _as_string(np.int32, precision=2, error="precision not supported for datatype int32"),
            _as_string(np.uint8, shortest=True,
                       error="scientific and shortest format not supported for datatype uint8"),
            _as_string(np.float32, fill="ab", error="Fill string must be one or fewer characters"),
            _as_string(np.float32, scientific=True, shortest=True,
                       error="Cannot select both scientific and shortest notation"),
            _as_string(np.float32, fill="x", width=3, error="Fill argument not supported: \"x\"")]
    return out


NUMBERS = ["1.5", "  3", "0x10", "1e3", "nan", "-inf", "3 ", "+4", "Infinity", "-0", "1e40",
           "4294967296", "-1", "9223372036854775808", "1.", ".5", "NaN", "1e-50", "0.1",
           "3.4028236e38", "007", "-2147483648", "2147483647", "-9223372036854775808",
           "18446744073709551615"]


def _to_number(dtype, strings, tag="", error=None):
    name = f"StringToNumber/{np.dtype(dtype).name}{tag}"

    def build():
        tf = _tf()
        x = tf.constant(strings, tf.string)
        return [tf.raw_ops.StringToNumber(string_tensor=x, out_type=dtype)], {}
    return OpCase(name, ["StringToNumber"], build, expect_error=error)


def _number_cases():
    ok = {
        np.float32: NUMBERS, np.float64: NUMBERS,
        np.int32: ["  3", "3 ", "+4", "-0", "-1", "007", "-2147483648", "2147483647"],
        np.int64: ["  3", "+4", "-0", "4294967296", "-9223372036854775808", "007"],
        np.uint32: ["  3", "+4", "4294967295", "007"],
        np.uint64: ["3", "+4", "9223372036854775808", "18446744073709551615"],
    }
    out = [_to_number(dt, v) for dt, v in ok.items()]
    bad = {np.float32: ["abc", "", " ", "1_0", "1,5", "1.5f", "+-1"],
           np.int32: ["2147483648", "1.5", "0x10", "1e3", ""],
           np.int64: ["9223372036854775808", "nan"],
           np.uint32: ["-0", "-1", "4294967296"],
           np.uint64: ["18446744073709551616", "-1"]}
    for dt, strings in bad.items():
        for s in strings:
            out.append(_to_number(dt, ["1", s], tag=f"/bad={s!r}",
                                  error="StringToNumberOp could not correctly convert string"))
    out.append(_to_number(np.float32, np.zeros((0,), object).tolist(), tag="/empty"))
    return out


def _base64_cases():
    raw = ["", "a", "ab", "abc", "abcd", "\x00\xff\xfe binary", "hello world?>>"]

    def encode(pad):
        def build():
            tf = _tf()
            x = tf.constant(raw, tf.string)
            return [tf.raw_ops.EncodeBase64(input=x, pad=pad)], {}
        return OpCase(f"EncodeBase64/pad={pad}", ["EncodeBase64"], build)

    def decode(strings, tag, error=None):
        def build():
            tf = _tf()
            x = tf.constant(strings, tf.string)
            return [tf.raw_ops.DecodeBase64(input=x)], {}
        return OpCase(f"DecodeBase64/{tag}", ["DecodeBase64"], build, expect_error=error)
    return [encode(False), encode(True),
            decode(["", "YQ", "YQ==", "YWI", "YWI=", "YWJj", "YWJjZA", "AP_-IGJpbmFyeQ==",
                    "aGVsbG8gd29ybGQ_Pj4"], "valid"),
            decode(["YQ=="], "padded"),
            decode(["Y"], "len1", "Base64 string length cannot be 1 modulo 4"),
            decode(["YW+z"], "plus", "Invalid character found in base64"),
            decode(["YW=z"], "inner_pad", "Invalid character found in base64")]


def _substr(tidx, strings, pos, length, unit="BYTE", tag="", error=None, static=True):
    name = f"Substr/{np.dtype(tidx).name}/{unit}{tag}"

    def build():
        tf = _tf()
        x = tf.constant(strings, tf.string)
        # without static shapes TensorFlow's shape function lets the kernel judge
        p = tf.compat.v1.placeholder(tidx, np.shape(pos) if static else None, name="pos")
        n = tf.compat.v1.placeholder(tidx, np.shape(length) if static else None, name="len")
        y = tf.raw_ops.Substr(input=x, pos=p, len=n, unit=unit)
        return [y], {p: np.array(pos, tidx), n: np.array(length, tidx)}
    return OpCase(name, ["Substr"], build, expect_error=error)


def _substr_cases():
    words = ["hello", "", "héllo wörld", "日本語テキスト"]
    full = ["hello", "ab", "héllo wörld", "日本語テキスト"]
    out = []
    for t in (np.int32, np.int64):
        for unit in ("BYTE", "UTF8_CHAR"):
            out += [_substr(t, words, 0, 3, unit, "/scalar"),
                    _substr(t, words, [0, 0, 1, 2], [2, 5, 4, 3], unit, "/elementwise"),
                    _substr(t, words[:1] + words[2:], [-3, -1, -2], [2, 1, 9], unit,
                            "/negative_pos"),
                    _substr(t, words, 0, -1, unit, "/negative_len"),
                    _substr(t, [full, full[::-1]], [[0], [1]], [[2], [3]], unit,
                            "/broadcast"),
                    _substr(t, [full, full[::-1]], [0, 1, 0, 1], [1, 2, 3, 4], unit,
                            "/broadcast_row"),
                    _substr(t, full, [[0], [1]], [[2], [3]], unit, "/broadcast_input")]
    out += [_substr(np.int32, ["abc"], 4, 1, tag="/pos_too_big",
                    error="pos 4 out of range for string b'abc' at index 0"),
            _substr(np.int32, ["abc"], -4, 1, tag="/pos_too_small",
                    error="pos -4 out of range for string b'abc' at index 0"),
            _substr(np.int32, ["héllo"], 6, 1, "UTF8_CHAR", tag="/pos_too_big",
                    error="pos 6 out of range for string at index 0"),
            _substr(np.int32, ["ab", "cd"], [0, 1], [1], tag="/pos_len_shapes",
                    error="pos and len should have the same shape", static=False),
            _substr(np.int32, [words, words[::-1]], [0, 1, 0, 1], [1, 2, 3, 4], tag="/bad_2d",
                    error="pos 1 out of range for string b'' at index \\(0, 1\\)"),
            _substr(np.int32, ["ab", "cd"], [0, 1, 2], [1, 1, 1], tag="/incompatible",
                    error="Incompatible shapes", static=False),
            _substr(np.int32, ["abc"], 3, 1, tag="/pos_at_end")]
    return out


def cases():
    yield from _as_string_cases()
    yield from _number_cases()
    yield from _base64_cases()
    yield from _substr_cases()
