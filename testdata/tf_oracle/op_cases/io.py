"""Parsing and decoding ops over string tensors: CSV records, raw and
compressed bytes, serialized tensors and JSON Examples; Print, PrintV2 and
Timestamp."""
import gzip
import struct
import zlib

import numpy as np

from op_case import OpCase, data


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _const(values, shape=None):
    tf = _tf()
    return tf.constant(np.array(values, dtype=object), tf.string, shape=shape)


def _case(name, op, fn, error=None, **kw):
    def build():
        out = fn()
        return (out if isinstance(out, list) else [out]), {}
    return OpCase(f"{op}/{name}", [op], build, expect_error=error, **kw)


CSV_RECORDS = ['1,2.5,"a,b",7', ' 3 ,-1e3,plain,', '"4",inf,"q""uote",9',
               '5,,x,10', '6,1e40,,11', '+7,0x1p3,y,-0', '8, -1e-50 ,z,007',
               '9,nAn,w,+12', '10,.5,v,13']


def _csv_cases():
    tf = _tf()

    def decode(records, defaults, **attrs):
        return lambda: tf.raw_ops.DecodeCSV(records=_const(records),
                                            record_defaults=defaults, **attrs)
    d4 = lambda: [tf.constant([0], tf.int32), tf.constant([-1.0], tf.float32),
                  tf.constant(["dflt"]), tf.constant([42], tf.int64)]
    d4d = lambda: [tf.constant([0], tf.int64), tf.constant([-1.0], tf.float64),
                   tf.constant(["dflt"]), tf.constant([42], tf.int32)]
    out = [
        _case("mixed", "DecodeCSV", lambda: decode(CSV_RECORDS, d4())()),
        _case("mixed_f64_i64", "DecodeCSV", lambda: decode(CSV_RECORDS, d4d())()),
        _case("shape[2,2]", "DecodeCSV", lambda: tf.raw_ops.DecodeCSV(
            records=_const([["1;x", "2;y"], ["3;z", ";w"]]),
            record_defaults=[tf.constant([7]), tf.constant([], tf.string)],
            field_delim=";")),
        _case("empty", "DecodeCSV", lambda: decode([], d4())()),
        _case("no_quote", "DecodeCSV", lambda: decode(
            ['a"b,"c', 'x,y'], [tf.constant([""]), tf.constant([""])],
            use_quote_delim=False)()),
        _case("na_value", "DecodeCSV", lambda: decode(
            ["NA,1", "2,NA"], [tf.constant([-1]), tf.constant([-2.0])],
            na_value="NA")()),
        _case("select_cols", "DecodeCSV", lambda: decode(
            ["1,2,3,4", "5,6,7,8"], [tf.constant([0]), tf.constant([""])],
            select_cols=[1, 3])()),
        _case("scalar", "DecodeCSV", lambda: tf.raw_ops.DecodeCSV(
            records=tf.constant("1,\r\n2"),
            record_defaults=[tf.constant(0), tf.constant(0)])),
        _case("required", "DecodeCSV", lambda: decode(
            ["1,", "2,3"], [tf.constant([0]), tf.constant([], tf.int32)])(),
              error="Field 1 is required but missing in record 0!"),
        _case("bad_int", "DecodeCSV", lambda: decode(
            ["1.5"], [tf.constant([0])])(),
              error="Field 0 in record 0 is not a valid int32: 1.5"),
        _case("bad_float", "DecodeCSV", lambda: decode(
            ["1e"], [tf.constant([0.0])])(),
              error="Field 0 in record 0 is not a valid float: 1e"),
        _case("count", "DecodeCSV", lambda: decode(
            ["1,2,3"], [tf.constant([0]), tf.constant([0])])(),
              error="Expect 2 fields but have 3 in record 0"),
        _case("bad_quote", "DecodeCSV", lambda: decode(
            ['"ab"c,1'], [tf.constant([""]), tf.constant([0])])(),
              error="Quote inside a string has to be escaped by another quote"),
        _case("unquoted_quote", "DecodeCSV", lambda: decode(
            ['ab"c,1'], [tf.constant([""]), tf.constant([0])])(),
              error="Unquoted fields cannot have quotes/CRLFs inside"),
        _fed_defaults_case(),
        _case("delim", "DecodeCSV", lambda: decode(
            ["1"], [tf.constant([0])], field_delim="ab")(),
              error="field_delim should be only 1 char"),
    ]
    return out


def _fed_defaults_case():
    """Two defaults for a field: fed, since the shape function refuses a
    constant."""
    tf = _tf()

    def build():
        d = tf.compat.v1.placeholder(tf.int32, [None], name="d")
        y = tf.raw_ops.DecodeCSV(records=_const(["1"]), record_defaults=[d])
        return y, {d: np.array([0, 1], np.int32)}
    return OpCase("DecodeCSV/two_defaults", ["DecodeCSV"], build,
                  expect_error="There should only be 1 default per field but field 0 has 2")


def _as_npy(t):
    """bfloat16 results as float32 (`dfg run` writes .npy files)."""
    tf = _tf()
    return tf.cast(t, tf.float32) if t.dtype == tf.bfloat16 else t


RAW_TYPES = [np.float16, np.float32, np.float64, np.int32, np.uint16, np.uint8,
             np.int16, np.int8, np.int64, np.complex64, np.complex128, np.bool_]


def _raw_bytes(name, dtype, rows, width):
    v = data(name, dtype, (rows, width))
    return [row.tobytes() for row in v]


def _raw_cases():
    tf = _tf()
    out = []
    for dtype in RAW_TYPES + ["bfloat16"]:
        tfd = tf.bfloat16 if dtype == "bfloat16" else tf.as_dtype(dtype)
        npd = np.uint16 if dtype == "bfloat16" else dtype
        for little in (True, False):
            name = f"{tfd.name}[3]/little_endian={little}"
            rows = _raw_bytes(name, npd, 3, 4)
            out.append(_case(name, "DecodeRaw", lambda r=rows, t=tfd, le=little:
                             _as_npy(tf.raw_ops.DecodeRaw(
                                 bytes=_const(r), out_type=t, little_endian=le))))
    out += [
        _case("float32[2,2]", "DecodeRaw", lambda: tf.raw_ops.DecodeRaw(
            bytes=_const([[b"\0\0\x80?", b"\0\0\0@"], [b"abcd", b"efgh"]]),
            out_type=tf.float32)),
        _case("empty_strings", "DecodeRaw", lambda: tf.raw_ops.DecodeRaw(
            bytes=_const([b"", b""]), out_type=tf.int32)),
        _case("no_strings", "DecodeRaw", lambda: tf.raw_ops.DecodeRaw(
            bytes=_const([], shape=[0, 2]), out_type=tf.int32)),
        _case("ragged", "DecodeRaw", lambda: tf.raw_ops.DecodeRaw(
            bytes=_const([b"abcd", b"ab"]), out_type=tf.uint8),
              error="DecodeRaw requires input strings to all be the same size, "
                    "but element 1 has size 4 != 2"),
        _case("not_multiple", "DecodeRaw", lambda: tf.raw_ops.DecodeRaw(
            bytes=_const([b"abcde"]), out_type=tf.int32),
              error="Input to DecodeRaw has length 5 that is not a multiple of 4, "
                    "the size of int32"),
    ]
    for dtype in [np.float32, np.float64, np.int32, np.uint16, np.uint8, np.int16,
                  np.int8, np.int64, "bfloat16"]:
        tfd = tf.bfloat16 if dtype == "bfloat16" else tf.as_dtype(dtype)
        for little in (True, False):
            name = f"{tfd.name}/little_endian={little}"
            size = tfd.size
            strs = [b"", b"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11",
                    b"\xff" * size, bytes(range(40, 40 + 3 * size))]
            out.append(_case(name, "DecodePaddedRaw", lambda s=strs, t=tfd, le=little, n=size:
                             _as_npy(tf.raw_ops.DecodePaddedRaw(
                                 input_bytes=_const(s), fixed_length=2 * n,
                                 out_type=t, little_endian=le))))
    out += [
        _case("empty", "DecodePaddedRaw", lambda: tf.raw_ops.DecodePaddedRaw(
            input_bytes=_const([], shape=[0]), fixed_length=4, out_type=tf.int16)),
        _fed_length_case(),
        _case("zero", "DecodePaddedRaw", lambda: tf.raw_ops.DecodePaddedRaw(
            input_bytes=_const([b"a"]), fixed_length=0, out_type=tf.int32),
              error=r"fixed_length \(0\) must be greater than zero."),
    ]
    return out


def _fed_length_case():
    tf = _tf()

    def build():
        n = tf.compat.v1.placeholder(tf.int32, [], name="n")
        y = tf.raw_ops.DecodePaddedRaw(input_bytes=_const([b"a"]), fixed_length=n,
                                       out_type=tf.int32)
        return [y], {n: np.array(6, np.int32)}
    return OpCase("DecodePaddedRaw/not_multiple", ["DecodePaddedRaw"], build,
                  expect_error=r"fixed_length \(6\) must be a multiple of the size "
                               r"of out_type \(4\)")


def _zstd_frame(payload):
    """A zstd frame holding `payload` (< 256 bytes) in one raw block."""
    n = len(payload)
    block = (1 | (n << 3)).to_bytes(3, "little")
    return struct.pack("<I", 0xFD2FB528) + bytes([0x20, n]) + block + payload


def _compressed_cases():
    tf = _tf()
    text = [b"hello hello hello world", b"", bytes(range(256)) * 3]

    def decode(values, kind, shape=None):
        return lambda: tf.raw_ops.DecodeCompressed(
            bytes=_const(values, shape), compression_type=kind)
    two_members = gzip.compress(b"first ") + gzip.compress(b"second")
    return [
        _case("ZLIB", "DecodeCompressed", decode([zlib.compress(t) for t in text], "ZLIB")),
        _case("GZIP", "DecodeCompressed",
              decode([gzip.compress(t, mtime=0) for t in text], "GZIP")),
        _case("GZIP/members", "DecodeCompressed", decode([two_members], "GZIP")),
        _case("NONE[2,1]", "DecodeCompressed",
              decode([[b"\x00raw"], [b"x"]], "", shape=[2, 1])),
        _case("ZSTD", "DecodeCompressed", decode([_zstd_frame(b"zstd data!")], "ZSTD")),
        _case("ZLIB/empty_input", "DecodeCompressed", decode([b""], "ZLIB")),
        _case("ZLIB/truncated", "DecodeCompressed",
              decode([zlib.compress(text[2])[:50]], "ZLIB")),
        _case("ZLIB/garbage", "DecodeCompressed", decode([b"not zlib at all"], "ZLIB"),
              error="inflate\\(\\) failed with error -3: incorrect header check"),
        _case("ZSTD/garbage", "DecodeCompressed", decode([b"xyz"], "ZSTD"),
              error="Failed to determine decompressed size"),
        _case("bad_type", "DecodeCompressed", decode([b"x"], "LZ4"),
              error="Only ZLIB, ZSTD, GZIP or NONE are supported compressions"),
    ]


def _example_json_cases():
    tf = _tf()
    good = ['{"features": {"feature": {"a": {"int64List": {"value": ["1", 2]}}}}}',
            '{"features": {"feature": {"f": {"floatList": {"value": [1.5, -2]}}, '
            '"s": {"bytesList": {"value": ["aGVsbG8="]}}}}}',
            '{}']
    return [
        _case("vector", "DecodeJSONExample",
              lambda: tf.raw_ops.DecodeJSONExample(json_examples=_const(good))),
        _case("parsed", "DecodeJSONExample", lambda: tf.io.parse_example(
            tf.raw_ops.DecodeJSONExample(json_examples=_const(good[:2])),
            {"a": tf.io.VarLenFeature(tf.int64)})["a"].values),
        _case("bad", "DecodeJSONExample", lambda: tf.raw_ops.DecodeJSONExample(
            json_examples=_const(['{"features": 3}'])),
              error="Error while parsing JSON"),
    ]


SERIALIZE_TYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8,
                   np.int16, np.uint16, np.uint32, np.uint64, np.float16,
                   np.complex64, np.complex128, np.bool_, object]


def _tensor_cases():
    tf = _tf()
    out = []
    for dtype in SERIALIZE_TYPES + ["bfloat16"]:
        tfd = tf.bfloat16 if dtype == "bfloat16" else tf.as_dtype(dtype)
        for shape in [(2, 3), (), (0, 2)]:
            name = f"{tfd.name}{list(shape)}".replace(" ", "")
            src = np.float32 if dtype == "bfloat16" else dtype
            value = data(name, src, (int(np.prod(shape)),)).reshape(shape)

            def serialize(v=value, t=tfd):
                return tf.raw_ops.SerializeTensor(tensor=tf.constant(v, t))
            out.append(_case(name, "SerializeTensor", serialize))
            out.append(OpCase(f"ParseTensor/{name}", ["ParseTensor", "SerializeTensor"],
                              lambda s=serialize, t=tfd: ([_as_npy(tf.raw_ops.ParseTensor(
                                  serialized=s(), out_type=t))], {})))
    out += [
        _case("typed_field", "ParseTensor", lambda: tf.raw_ops.ParseTensor(
            serialized=tf.constant(tf.make_tensor_proto(
                [1.5, 2.5], tf.float32).SerializeToString()), out_type=tf.float32)),
        _case("mismatch", "ParseTensor", lambda: tf.raw_ops.ParseTensor(
            serialized=tf.raw_ops.SerializeTensor(tensor=tf.constant([1])),
            out_type=tf.float32),
              error=r"Type mismatch between parsed tensor \(int32\) and dtype \(float\)"),
        _case("not_scalar", "ParseTensor", lambda: tf.raw_ops.ParseTensor(
            serialized=_const([b"", b""]), out_type=tf.float32),
              error=r"Expected `serialized` to be a scalar, got shape: \[2\]"),
        _case("garbage", "ParseTensor", lambda: tf.raw_ops.ParseTensor(
            serialized=tf.constant(b"zzz"), out_type=tf.float32),
              error="Could not parse `serialized` as TensorProto"),
    ]
    return out


def cases():
    yield from _csv_cases()
    yield from _raw_cases()
    yield from _compressed_cases()
    yield from _example_json_cases()
    yield from _tensor_cases()
    yield from _print_cases()


def _print_cases():
    """Print passes its input through (the message goes to stderr); PrintV2
    has no output: a fetch that waits on it shows it ran."""
    tf = _tf()
    out = []
    for dtype, shape in [(np.float32, (2, 3)), (np.int64, (4,)), (object, (2,)),
                         (np.bool_, ()), (np.float64, (0, 2))]:
        name = f"Print/{np.dtype(dtype).name}{list(shape)}".replace(" ", "")
        v = data(name, dtype, (int(np.prod(shape)),)).reshape(shape)

        def build(v=v, dtype=dtype):
            x = tf.constant(v, tf.string if dtype is object else None)
            y = tf.raw_ops.Print(input=x, data=[x, tf.constant([1.5, 2.5])],
                                 message="value: ", first_n=2, summarize=2)
            return [y], {}
        out.append(OpCase(name, ["Print"], build))

    def print_v2(stream, value=None, shape_known=True):
        def build():
            msg = tf.strings.format("x = {}", tf.constant([1, 2, 3])) if value is None else value()
            if not shape_known:
                msg = tf.compat.v1.placeholder_with_default(msg, None)
            op = tf.raw_ops.PrintV2(input=msg, output_stream=stream, end="!\n")
            with tf.control_dependencies([op]):
                y = tf.identity(tf.constant(7))
            return [y], {}
        return build
    out += [
        OpCase("PrintV2/stderr", ["PrintV2"], print_v2("stderr")),
        OpCase("PrintV2/log_info", ["PrintV2"], print_v2("log(info)")),
        OpCase("PrintV2/not_scalar", ["PrintV2"],
               print_v2("stderr", lambda: _const(["a", "b"]), shape_known=False),
               expect_error=r"Input is expected to be scalar, but got \[2\]"),
        OpCase("PrintV2/bad_stream", ["PrintV2"], print_v2("stdnowhere"),
               expect_error="Unknown output stream: stdnowhere, Valid streams are: "
                            r"stdout stderr log\(info\) log\(warning\) log\(error\)"),
        OpCase("Timestamp/now", ["Timestamp"], lambda: ([tf.greater(
            tf.raw_ops.Timestamp(), 1.7e9)], {})),
    ]
    return out
