"""Text conversions of the string family: AsString, StringToNumber,
Encode/DecodeBase64, Substr, ReduceJoin, UnsortedSegmentJoin, StringSplit,
StringFormat and the file ops (strings.py has hashing, splitting, bincounts
and tables)."""
import os
import tempfile

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


def _simple(name, ops, make, error=None):
    """A case whose graph `make(tf)` builds from constants alone."""
    def build():
        out = make(_tf())
        return (list(out) if isinstance(out, (list, tuple)) else [out]), {}
    return OpCase(name, ops, build, expect_error=error)


GRID = [["a", "b", "c"], ["d", "e", "f"]]


def _join_cases():
    rj = lambda idx, **kw: lambda tf: tf.raw_ops.ReduceJoin(  # noqa: E731
        inputs=tf.constant(GRID), reduction_indices=idx() if callable(idx) else idx, **kw)
    out = [_simple("ReduceJoin/none", ["ReduceJoin"], rj([], separator="-")),
           _simple("ReduceJoin/axis0", ["ReduceJoin"], rj([0], separator="-")),
           _simple("ReduceJoin/axis1_scalar", ["ReduceJoin"], rj(1)),
           _simple("ReduceJoin/both_keep", ["ReduceJoin"],
                   rj([-1, 0], separator=", ", keep_dims=True)),
           _simple("ReduceJoin/axis0_keep", ["ReduceJoin"], rj([0], keep_dims=True)),
           _simple("ReduceJoin/3d", ["ReduceJoin"], lambda tf: tf.raw_ops.ReduceJoin(
               inputs=tf.reshape(tf.constant([str(i) for i in range(24)]), [2, 3, 4]),
               reduction_indices=[2, 0], separator="."))]
    out += [_simple("ReduceJoin/empty", ["ReduceJoin"], lambda tf: tf.raw_ops.ReduceJoin(
                inputs=tf.zeros((2, 0), tf.string), reduction_indices=[1])),
            _simple("ReduceJoin/bad_axis", ["ReduceJoin"], rj(lambda: _fed_axis(2)),
                    error="Invalid reduction dimension 2 for input with 2 dimension"),
            _simple("ReduceJoin/duplicate", ["ReduceJoin"], rj(lambda: _fed_axis([1, 1])),
                    error="Duplicate reduction dimension 1")]
    usj = lambda ids, n, x=("a", "b", "c", "d"), t=np.int32: lambda tf: (  # noqa: E731
        tf.raw_ops.UnsortedSegmentJoin(inputs=tf.constant(x), segment_ids=tf.constant(ids, t),
                                       num_segments=_fed_axis(n), separator=","))
    for t in (np.int32, np.int64):
        out.append(_simple(f"UnsortedSegmentJoin/{np.dtype(t).name}", ["UnsortedSegmentJoin"],
                           usj([1, 0, 1, 1], 3, t=t)))
    out += [_simple("UnsortedSegmentJoin/matrix", ["UnsortedSegmentJoin"],
                    usj([1, 0], 2, x=[["a", "b"], ["c", "d"]])),
            _simple("UnsortedSegmentJoin/negative_id", ["UnsortedSegmentJoin"],
                    usj([1, 0, 1, -1], 3), error="segment_ids are not allowed to exceed"),
            _simple("UnsortedSegmentJoin/negative_count", ["UnsortedSegmentJoin"],
                    usj([0, 0, 0, 0], -1), error="Number of segments must be non-negative")]
    ss = lambda strings, d, skip: lambda tf: tf.raw_ops.StringSplit(  # noqa: E731
        input=tf.constant(strings, tf.string), delimiter=d, skip_empty=skip)
    for skip in (True, False):
        out += [_simple(f"StringSplit/any_of/skip={skip}", ["StringSplit"],
                        ss(["a,b;;c", "", ";x", ",,"], ",;", skip)),
                _simple(f"StringSplit/bytes/skip={skip}", ["StringSplit"],
                        ss(["abc", "", "xy"], "", skip))]
    out.append(_simple("StringSplit/empty", ["StringSplit"], ss(np.zeros((0,), object), " ",
                                                               True)))
    return out


def _fed_axis(v):
    """`v` hidden from TensorFlow's shape functions, so that the kernels judge
    it (call inside the graph)."""
    tf = _tf()
    return tf.compat.v1.placeholder_with_default(tf.constant(v), shape=None)


def _format(name, inputs, error=None, **attrs):
    return _simple(f"StringFormat/{name}", ["StringFormat"],
                   lambda tf: tf.raw_ops.StringFormat(inputs=inputs(tf), **attrs),
                   error=error)


def _format_cases():
    return [
        _format("mixed", lambda tf: [tf.constant([[1, 2, 3], [4, 5, 6]]),
                                     tf.constant(["a\"b\n", "c\\d", "é"]), tf.constant(1.5),
                                     tf.constant(np.arange(20.))],
                template="x={} y={} z={} w={}", placeholder="{}"),
        _format("floats", lambda tf: [
            tf.constant(np.array([0.1, 1 / 3, 1e20, -0.0, 1e8, np.nan, -np.inf], np.float32)),
            tf.constant(np.array([0.1, 1 / 3, 2.5e-300], np.float64)),
            tf.constant(np.array([1.5, 0.1], np.float16))], template="{} {} {}",
            placeholder="{}"),
        _format("bool_uint8", lambda tf: [tf.constant([True, False]),
                                          tf.constant(np.array([3, 250], np.uint8))],
                template="{}|{}", placeholder="{}"),
        _format("summarize2", lambda tf: [tf.constant(np.arange(20).reshape(4, 5))],
                template="{}", placeholder="{}", summarize=2),
        _format("summarize1_3d", lambda tf: [tf.constant(np.arange(60).reshape(3, 4, 5))],
                template="{}", placeholder="{}", summarize=1),
        _format("all", lambda tf: [tf.constant(np.arange(20).reshape(4, 5))],
                template="<{}>", placeholder="{}", summarize=-1),
        _format("empty", lambda tf: [tf.constant(np.zeros((0, 3)))], template="{}",
                placeholder="{}"),
        _format("default_placeholder", lambda tf: [tf.constant(7), tf.constant("s")],
                template="a%sb%s"),
        _format("no_inputs", lambda tf: [], template="plain")]


def _file_cases():
    root = os.path.join(tempfile.gettempdir(), "dfg_oracle_string_files")
    os.makedirs(os.path.join(root, "d"), exist_ok=True)
    for f in ("a.txt", "b.txt", "c.dat", "d/e.txt"):
        with open(os.path.join(root, f), "w", encoding="utf-8") as fh:
            fh.write(f"contents of {f}\n")

    def write_read(tf):
        path = os.path.join(root, "new", "sub", "w.bin")
        w = tf.raw_ops.WriteFile(filename=path, contents="\x00bytes\xff")
        with tf.control_dependencies([w]):
            return tf.raw_ops.ReadFile(filename=path)

    mf = lambda p: lambda tf: tf.raw_ops.MatchingFiles(pattern=p)  # noqa: E731
    return [
        _simple("ReadFile/text", ["ReadFile"],
                lambda tf: tf.raw_ops.ReadFile(filename=os.path.join(root, "a.txt"))),
        _simple("ReadFile/missing", ["ReadFile"],
                lambda tf: tf.raw_ops.ReadFile(filename=os.path.join(root, "nope")),
                error="nope; No such file or directory"),
        _simple("WriteFile/then_read", ["WriteFile", "ReadFile"], write_read),
        _simple("MatchingFiles/star", ["MatchingFiles"], mf(os.path.join(root, "*.txt"))),
        _simple("MatchingFiles/list", ["MatchingFiles"],
                mf([os.path.join(root, "?.dat"), os.path.join(root, "*/*.txt")])),
        _simple("MatchingFiles/none", ["MatchingFiles"], mf(os.path.join(root, "*.none")))]


def cases():
    yield from _join_cases()
    yield from _format_cases()
    yield from _file_cases()
    yield from _as_string_cases()
    yield from _number_cases()
    yield from _base64_cases()
    yield from _substr_cases()
