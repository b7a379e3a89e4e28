"""Array ops of the scatter family's helpers: reversals, rolls, partitions,
in-place row updates, bitcasts, data-format maps and pass-through ops."""
import numpy as np

from op_cases.scatter_array import I32 as _I32, case as _case, strings as _strings
from op_cases.scatter_array import tf_module as _tf, values as _values

_ARRAY_DTYPES = ("float32", "float64", "int32", "int64", "float16", "bfloat16", "uint8",
                 "bool", "string", "complex64")


def _array_case(op, variant, fn, values, **kw):
    return _case(f"{op}/{variant}", [op], fn, values, **kw)


def _reorder_cases():
    tf = _tf()
    r = tf.raw_ops
    for dt in _ARRAY_DTYPES:
        x = _values(f"Reverse/{dt}", dt, (2, 3, 4))
        yield _array_case("Reverse", f"{dt}[2,3,4]", lambda t, d: r.Reverse(tensor=t, dims=d),
                          {"x": x, "dims": np.array([True, False, True])})
        yield _array_case("Roll", f"{dt}[2,3,4]",
                          lambda t, s, a: r.Roll(input=t, shift=s, axis=a),
                          {"x": x, "shift": np.array([1, -5, 2], _I32),
                           "axis": np.array([2, 1, -1], _I32)})
        yield _array_case("ReverseSequence", f"{dt}[2,3,4]",
                          lambda t, s: r.ReverseSequence(input=t, seq_lengths=s, seq_dim=2,
                                                         batch_dim=0),
                          {"x": x, "len": np.array([3, 0], np.int64)})
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    yield _array_case("Reverse", "float32[]", lambda t, d: r.Reverse(tensor=t, dims=d),
                      {"x": np.float32(2), "dims": np.zeros([0], np.bool_)})
    yield _array_case("Reverse", "float32[0,3]", lambda t, d: r.Reverse(tensor=t, dims=d),
                      {"x": np.zeros([0, 3], np.float32), "dims": np.array([True, True])},
                      expect_error="Invalid input first dimension. Found 0.")
    yield _array_case("Reverse", "float32[3,0]", lambda t, d: r.Reverse(tensor=t, dims=d),
                      {"x": np.zeros([3, 0], np.float32), "dims": np.array([True, True])})
    yield _array_case("Reverse", "float32/dims_count", lambda t, d: r.Reverse(tensor=t, dims=d),
                      {"x": x, "dims": np.array([True])},
                      expect_error="'dims' must have the same number of values as 'input' has "
                                   "dimensions. 'input' has 2'dims' has 1 values")
    yield _array_case("Roll", "float32[0,3]", lambda t, s, a: r.Roll(input=t, shift=s, axis=a),
                      {"x": np.zeros([0, 3], np.float32), "s": np.int64(2), "a": np.int64(1)})
    for variant, s, a, err in [("scalar", 1, 0, None), ("size", [1, 2], [0], "shift and axis must "
                               "have the same size"), ("axis", 1, 2, "axis 2 is out of range"),
                               ("negaxis", 1, -3, "axis -1 is out of range")]:
        yield _array_case("Roll", f"float32/{variant}",
                          lambda t, s_, a_: r.Roll(input=t, shift=s_, axis=a_),
                          {"x": x, "s": np.array(s, _I32), "a": np.array(a, _I32)},
                          expect_error=err)
    for variant, lens, seq, batch, err in [
            ("t", [1, 3], 1, 0, None), ("batch1", [2, 1, 2], 0, 1, None),
            ("same", [1, 2], 1, 1, "batch_dim == seq_dim == 1"),
            ("seq_rank", [1, 2], 2, 0, r"seq_dim must be < input rank \( 2 vs. 2\)"),
            ("count", [1, 2, 3], 1, 0, r"Length of seq_lengths != input.dims\(0\), \(3 vs. 2\)"),
            ("negative", [1, -2], 1, 0, r"seq_lens\(1\) < 0"),
            ("long", [1, 4], 1, 0, r"seq_lens\(1\) > input.dims\(1\)")]:
        yield _array_case("ReverseSequence", f"float32/{variant}",
                          lambda t, s_, sd=seq, bd=batch: r.ReverseSequence(
                              input=t, seq_lengths=s_, seq_dim=sd, batch_dim=bd),
                          {"x": x, "len": np.array(lens, _I32)}, expect_error=err)
    for dt in ("float32", "float64", "int32", "complex64", "complex128"):
        xs = _values(f"ConjugateTranspose/{dt}", dt, (2, 3, 4))
        yield _array_case("ConjugateTranspose", f"{dt}[2,3,4]",
                          lambda t, p: r.ConjugateTranspose(x=t, perm=p),
                          {"x": xs, "perm": np.array([2, 0, 1], _I32)})
    yield _array_case("ConjugateTranspose", "complex64/identity",
                      lambda t, p: r.ConjugateTranspose(x=t, perm=p),
                      {"x": _values("cti", "complex64", (2, 3)), "perm": np.array([0, 1], _I32)})
    for dt in ("float32", "float64", "int32", "int64", "uint8", "float16"):
        xs = _values(f"NthElement/{dt}", dt, (3, 5))
        for n, rev in ((0, False), (2, True), (4, False)):
            yield _array_case("NthElement", f"{dt}[3,5]/{n}{'r' if rev else ''}",
                              lambda t, n_, rv=rev: r.NthElement(input=t, n=n_, reverse=rv),
                              {"x": xs, "n": np.int32(n)})
    for variant, xs, n, err in [("rank0", np.float32(1), 0, "Input must be at least rank 1"),
                                ("big", x, 3, "Input must have last dimension > n = 3"),
                                ("negative", x, -1, "n must be non-negative but is -1")]:
        yield _array_case("NthElement", f"float32/{variant}", lambda t, n_: r.NthElement(
            input=t, n=n_), {"x": xs, "n": np.int32(n)}, expect_error=err)
    for mode in ("REFLECT", "SYMMETRIC"):
        for dt in ("float32", "float64", "int32", "complex64"):
            g = _values(f"MirrorPadGrad/{dt}", dt, (5, 6))
            if dt == "complex64":  # compared exactly: sums of small integers
                g = np.round(g * 2).astype(np.complex64)
            yield _array_case("MirrorPadGrad", f"{dt}[5,6]/{mode}",
                              lambda t, p, m=mode: r.MirrorPadGrad(input=t, paddings=p, mode=m),
                              {"g": g, "p": np.array([[1, 1], [2, 0]], _I32)})
    yield _array_case("MirrorPadGrad", "float32/total",
                      lambda t, p: r.MirrorPadGrad(input=t, paddings=p, mode="REFLECT"),
                      {"g": np.ones([4, 5], np.float32), "p": np.array([[3, 3], [0, 0]], _I32)},
                      expect_error="Total paddings must be less than the input dimension size: "
                                   "6 was not less than 4")


def _select_cases():
    tf = _tf()
    r = tf.raw_ops
    for dt in _ARRAY_DTYPES:
        x = _values(f"DynamicPartition/{dt}", dt, (4, 3))
        yield _array_case("DynamicPartition", f"{dt}[4,3]",
                          lambda t, p: r.DynamicPartition(data=t, partitions=p, num_partitions=3),
                          {"x": x, "p": np.array([2, 0, 2, 2], _I32)})
        yield _array_case("InplaceUpdate", f"{dt}[4,3]",
                          lambda t, i, v: r.InplaceUpdate(x=t, i=i, v=v),
                          {"x": x, "i": np.array([3, 1], _I32),
                           "v": _values(f"InplaceUpdate/{dt}/v", dt, (2, 3))})
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    yield _array_case("DynamicPartition", "float32[2,3]/2d",
                      lambda t, p: r.DynamicPartition(data=t, partitions=p, num_partitions=2),
                      {"x": x, "p": np.array([[0, 1, 1], [1, 0, 1]], _I32)})
    yield _array_case("DynamicPartition", "float32/range",
                      lambda t, p: r.DynamicPartition(data=t, partitions=p, num_partitions=2),
                      {"x": x, "p": np.array([0, 2], _I32)},
                      expect_error=r"partitions\[1\] = 2 is not in \[0, 2\)")
    yield _array_case("DynamicPartition", "float32/prefix",
                      lambda t, p: r.DynamicPartition(data=t, partitions=p, num_partitions=2),
                      {"x": x, "p": np.array([0, 1, 1], _I32)},
                      expect_error=r"data.shape must start with partitions.shape, got "
                                   r"data.shape = \[2,3\], partitions.shape = \[3\]")
    for op in ("InplaceAdd", "InplaceSub"):
        for dt in ("float32", "float64", "int32", "int64", "float16", "complex64"):
            xs = _values(f"{op}/{dt}", dt, (4, 3))
            yield _array_case(op, f"{dt}[4,3]", lambda t, i, v, o=op: getattr(r, o)(x=t, i=i, v=v),
                              {"x": xs, "i": np.array([1, -1, 1, 5], _I32),
                               "v": _values(f"{op}/{dt}/v", dt, (4, 3))})
    for variant, i, v, err in [
            ("ivec", [[0]], np.ones([1, 3], np.float32), r"i must be a vector. \[1,1\]"),
            ("rank", [0], np.ones([3], np.float32),
             r"x and v shape doesn't match \(ranks differ\): \[2,3\] vs. \[3\]"),
            ("dim", [0], np.ones([1, 2], np.float32),
             r"x and v shape doesn't match at index 1 : \[2,3\] vs. \[1,2\]"),
            ("rows", [0, 1], np.ones([1, 3], np.float32),
             r"i and x shape doesn't match at index 0: \[2\] vs. \[1,3\]")]:
        yield _array_case("InplaceAdd", f"float32/{variant}",
                          lambda t, i_, v_: r.InplaceAdd(x=t, i=i_, v=v_),
                          {"x": x, "i": np.array(i, _I32), "v": v}, expect_error=err)
    for dt in ("float32", "int32", "int64", "string", "float16", "uint8"):
        xs = _values(f"ListDiff/{dt}", dt, (12,), "small")
        ys = _values(f"ListDiff/{dt}/y", dt, (5,), "small")
        for idx in ("int32", "int64"):
            yield _array_case("ListDiff", f"{dt}[12]/{idx}",
                              lambda a, b, o=idx: list(r.ListDiff(x=a, y=b, out_idx=o)),
                              {"x": xs, "y": ys})
    yield _array_case("ListDiff", "float32/x2d", lambda a, b: list(r.ListDiff(x=a, y=b)),
                      {"x": x, "y": np.ones([2], np.float32)}, expect_error="x should be a 1D vector.")
    for dt in (np.int32, np.int64):
        for variant, idx, dims, err in [
                ("vector", [0, 5, 23, 7], [2, 3, 4], None), ("scalar", 17, [3, 6], None),
                ("empty", np.zeros([0], dt), [3], "received empty tensor indices"),
                ("dims2d", [1], [[2, 3]], r'The indices can only be 1-D, got "\[1,2\]"'),
                ("zero", [1], [0, 3], "Input dims cannot contain a dim of zero, but dims "
                                      "contains zero at index 0"),
                ("oob", [6], [2, 3], "index is out of bound as with dims")]:
            yield _array_case("UnravelIndex", f"{np.dtype(dt).name}/{variant}",
                              lambda i, d: r.UnravelIndex(indices=i, dims=d),
                              {"i": np.array(idx, dt), "d": np.array(dims, dt)}, expect_error=err)
    for op in ("UniqueWithCounts", "UniqueWithCountsV2"):
        for dt in ("float32", "int32", "int64", "string"):
            xs = _values(f"{op}/{dt}", dt, (10,), "small")
            if op == "UniqueWithCounts":
                fn = lambda a: list(r.UniqueWithCounts(x=a, out_idx=tf.int64))
            else:
                fn = lambda a: list(r.UniqueWithCountsV2(x=a, axis=np.array([0], np.int64)))
            yield _array_case(op, f"{dt}[10]", fn, {"x": xs})
    yield _array_case("UniqueWithCountsV2", "int32[3,4]/axis1",
                      lambda a: list(r.UniqueWithCountsV2(x=a, axis=np.array([1], _I32))),
                      {"x": np.array([[1, 2, 1, 2], [3, 4, 3, 5], [0, 0, 0, 0]], _I32)})


def _host_const(dtype):
    """A HostConst node (raw_ops has no wrapper for it)."""
    tf = _tf()
    from tensorflow.core.framework import attr_value_pb2  # pylint: disable=import-outside-toplevel
    value = np.array([b"a", b"b"]) if dtype == tf.string else np.array([1, 2], dtype.as_numpy_dtype)
    attrs = {"value": attr_value_pb2.AttrValue(tensor=tf.make_tensor_proto(value)),
             "dtype": attr_value_pb2.AttrValue(type=dtype.as_datatype_enum)}
    return tf.compat.v1.get_default_graph().create_op(
        "HostConst", [], [dtype], attrs=attrs, name="host_const").outputs[0]


def _misc_cases():
    tf = _tf()
    r = tf.raw_ops
    for dt in (np.int32, np.int64):
        for variant, a, b, err in [("t", [2, 1, 3], [4, 1], None), ("empty", [], [3, 1], None),
                                   ("incompatible", [2, 3], [4], r"Incompatible shapes: \[2,3\] "
                                                                 r"vs. \[4\]"),
                                   ("matrix", [[2, 3]], [4], r"In\[0\] must be a vector.\[1,2\]")]:
            yield _array_case("BroadcastArgs", f"{np.dtype(dt).name}/{variant}",
                              lambda x, y: r.BroadcastArgs(s0=x, s1=y),
                              {"a": np.array(a, dt), "b": np.array(b, dt)}, expect_error=err)
    for src, to, shape in [("float32", tf.uint8, (2, 3)), ("uint8", tf.int32, (3, 4)),
                           ("int64", tf.float64, (5,)), ("float16", tf.int16, (2, 2)),
                           ("complex64", tf.int64, (3,)), ("int32", tf.float32, (0, 2)),
                           ("float64", tf.complex128, (2, 2))]:
        yield _array_case("Bitcast", f"{src}{list(shape)}/{to.name}".replace(" ", ""),
                          lambda x, t=to: r.Bitcast(input=x, type=t),
                          {"x": _values(f"Bitcast/{src}", src, shape)})
    yield _array_case("Bitcast", "uint8[2,3]/float32", lambda x: r.Bitcast(input=x, type=tf.float32),
                      {"x": np.zeros([2, 3], np.uint8)}, expect_error="Cannot bitcast from 4 to 1")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for variant, shape, err in [("partial", [None, 3], None), ("unknown", None, None),
                                ("mismatch", [None, 4], r"Shape of tensor \w+ \[2,3\] is not "
                                                        r"compatible with expected shape \[\?,4\]\."),
                                ("rank", [6], "is not compatible with expected shape")]:
        yield _array_case("EnsureShape", f"float32/{variant}",
                          lambda t, s=shape: r.EnsureShape(input=t, shape=s), {"x": x},
                          expect_error=err)
    yield _array_case("EnsureShape", "string[2,2]",
                      lambda t: r.EnsureShape(input=t, shape=[2, 2]),
                      {"x": _strings("es", (2, 2))})
    for dt in (np.int32, np.int64):
        for src, dst in [("NHWC", "NCHW"), ("NCHW", "NHWC"), ("NDHWC", "NCDHW"), ("NHWC", "HWNC")]:
            n = len(src)
            yield _array_case("DataFormatDimMap", f"{np.dtype(dt).name}/{src}_{dst}",
                              lambda t, a=src, b=dst: r.DataFormatDimMap(x=t, src_format=a,
                                                                         dst_format=b),
                              {"x": np.arange(-n, n + 2, dtype=dt).reshape(2, -1)})
            for shape in ((n,), (n - 2,), (n, 2), (n - 2, 2)):
                yield _array_case(
                    "DataFormatVecPermute", f"{np.dtype(dt).name}{list(shape)}/{src}_{dst}"
                    .replace(" ", ""),
                    lambda t, a=src, b=dst: r.DataFormatVecPermute(x=t, src_format=a, dst_format=b),
                    {"x": np.arange(np.prod(shape), dtype=dt).reshape(shape) * 3 + 1})
    yield _array_case("DataFormatDimMap", "int32/not_permutation",
                      lambda t: r.DataFormatDimMap(x=t, src_format="NHWC", dst_format="NCHQ"),
                      {"x": np.array([0], _I32)},
                      expect_error="Destination and source format must determine a permutation, "
                                   "got NHWC and NCHQ")
    for variant, shape, err in [
            ("size3", (3,), r"1D input must be of size 2 or 4, but got shape \[3\]"),
            ("rank3", (4, 2, 1), r"input must be a vector or 2D tensor, but got shape \[4,2,1\]"),
            ("cols", (4, 3), r"Second dimension of 2D input must be of size 2, but got shape "
                             r"\[4,3\]")]:
        yield _array_case("DataFormatVecPermute", f"int32/{variant}",
                          lambda t: r.DataFormatVecPermute(x=t), {"x": np.zeros(shape, _I32)},
                          expect_error=err)
    for dt in (tf.float32, tf.int32, tf.bool, tf.string, tf.float16):
        yield _array_case("Empty", f"{dt.name}[2,3]",
                          lambda s, d=dt: r.Empty(shape=s, dtype=d, init=True),
                          {"s": np.array([2, 3], _I32)})
    yield _array_case("Empty", "float32/negative",
                      lambda s: r.Empty(shape=s, dtype=tf.float32, init=True),
                      {"s": np.array([2, -1], _I32)}, expect_error="Dimension -1 must be >= 0")
    for op in ("GuaranteeConst", "DeepCopy"):
        for dt in ("float32", "int64", "string", "bool"):
            yield _array_case(op, f"{dt}[2,3]", lambda t, o=op: getattr(r, o)(x=t)
                              if o == "DeepCopy" else r.GuaranteeConst(input=t),
                              {"x": _values(f"{op}/{dt}", dt, (2, 3))})
    for variant, v in [("zero", np.float32(0)), ("one", np.float32(-2)), ("int", np.int64(3)),
                       ("empty", np.zeros([0, 2], np.float32)), ("vector", np.zeros([2], _I32)),
                       ("false", np.bool_(False)), ("str", np.array(b"a")),
                       ("emptystr", np.array(b""))]:
        yield _array_case("ToBool", variant, lambda t: r.ToBool(input=t), {"x": v})
    for dt in (tf.float32, tf.int32, tf.string):
        yield _array_case("HostConst", dt.name, lambda t, d=dt: [_host_const(d), t + 1],
                          {"x": np.float32(1)})


def cases():
    yield from _reorder_cases()
    yield from _select_cases()
    yield from _misc_cases()
