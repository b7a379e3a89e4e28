"""Quantization ops: fake quantization (QAT graphs), QuantizeAndDequantize,
requantization. Quantized tensors (qint8, quint8, qint32) cannot be fed or
fetched as .npy files: a case feeds their integers as int8/uint8/int32 and
Bitcasts them in the graph, and Bitcasts quantized results back."""
import itertools
import zlib

import numpy as np

from op_case import OpCase, data

_PLAIN = {"qint8": np.int8, "quint8": np.uint8, "qint32": np.int32}


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _ph(feeds, name, value, dtype=np.float32, shape="exact"):
    """A placeholder fed `value`; shape None (unknown) lets a case feed
    shapes the op's shape function would refuse at graph build time."""
    tf = _tf()
    value = np.asarray(value, dtype)
    p = tf.compat.v1.placeholder(dtype, value.shape if shape == "exact" else shape,
                                 name=name)
    feeds[p] = value
    return p


def _q(feeds, name, value, qtype, shape="exact"):
    """A quantized tensor of `qtype` ("qint32"...) holding the integers."""
    tf = _tf()
    return tf.bitcast(_ph(feeds, name, value, _PLAIN[qtype], shape), getattr(tf, qtype))


def _plain(t):
    """A quantized result as its integers (fetchable)."""
    tf = _tf()
    return tf.bitcast(t, tf.as_dtype(_PLAIN[t.dtype.name]))


def _outs(result):
    """An op's outputs as a list (one tensor or a tuple of them)."""
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _case(name, ops, body, **kw):
    def build():
        feeds = {}
        return body(feeds), feeds
    return OpCase(name, ops, build, **kw)


# ---- FakeQuant* --------------------------------------------------------------

_FQ_VARIANTS = [  # (suffix, min, max, num_bits, narrow_range)
    ("", -6.0, 6.0, 8, False),
    ("/bits4", -1.3, 2.7, 4, False),
    ("/narrow", -2.5, 3.1, 8, True),
    ("/min_pos", 0.5, 3.0, 8, False),
    ("/max_neg", -3.0, -0.25, 7, False),
    ("/bits16", -1000.0, 1.0, 16, False),
    ("/zero_range", 0.0, 0.0, 8, False),
]


def _fq_inputs(name, shape, scale=4.0):
    return data(name, np.float32, shape) * np.float32(scale)


def _fake_quant_args():
    tf = _tf()
    for shape in [(3, 4), (0,), (2, 3, 5)]:
        for suffix, lo, hi, bits, narrow in _FQ_VARIANTS:
            if (shape != (3, 4) and suffix) or suffix == "/zero_range":
                continue
            name = f"FakeQuantWithMinMaxArgs/f32{list(shape)}{suffix}".replace(" ", "")
            yield _case(name, ["FakeQuantWithMinMaxArgs"], lambda f, name=name, shape=shape,
                        lo=lo, hi=hi, bits=bits, narrow=narrow: [
                tf.raw_ops.FakeQuantWithMinMaxArgs(
                    inputs=_ph(f, "x", _fq_inputs(name, shape, 1000.0 if bits == 16 else 4.0)),
                    min=lo, max=hi, num_bits=bits, narrow_range=narrow)])
            gname = name.replace("Args/", "ArgsGradient/")
            yield _case(gname, ["FakeQuantWithMinMaxArgsGradient"], lambda f, name=gname,
                        shape=shape, lo=lo, hi=hi, bits=bits, narrow=narrow: [
                tf.raw_ops.FakeQuantWithMinMaxArgsGradient(
                    gradients=_ph(f, "g", data(name + "/g", np.float32, shape)),
                    inputs=_ph(f, "x", _fq_inputs(name, shape)),
                    min=lo, max=hi, num_bits=bits, narrow_range=narrow)])
    yield _case("FakeQuantWithMinMaxArgs/error_min_max", ["FakeQuantWithMinMaxArgs"],
                lambda f: [tf.raw_ops.FakeQuantWithMinMaxArgs(
                    inputs=_ph(f, "x", [1.0]), min=1.5, max=1.0)],
                expect_error="min has to be smaller than max, was: 1.5 >= 1")
    yield _case("FakeQuantWithMinMaxArgs/error_bits", ["FakeQuantWithMinMaxArgs"],
                lambda f: [tf.raw_ops.FakeQuantWithMinMaxArgs(
                    inputs=_ph(f, "x", [1.0]), num_bits=17)],
                expect_error="num_bits must be between 2 and 16, inclusive")
    yield _case("FakeQuantWithMinMaxArgsGradient/error_size",
                ["FakeQuantWithMinMaxArgsGradient"],
                lambda f: [tf.raw_ops.FakeQuantWithMinMaxArgsGradient(
                    gradients=_ph(f, "g", [1.0, 2.0], shape=None),
                    inputs=_ph(f, "x", [1.0], shape=None))],
                expect_error="must have the same size and shape.  Input 0: \\[2\\] != input 1: "
                             "\\[1\\]")


def _fake_quant_vars():
    tf = _tf()
    for suffix, lo, hi, bits, narrow in _FQ_VARIANTS:
        for shape in [(3, 4)] + ([(0, 2)] if not suffix else []):
            name = f"FakeQuantWithMinMaxVars/f32{list(shape)}{suffix}".replace(" ", "")
            scale = 1000.0 if bits == 16 else 4.0
            yield _case(name, ["FakeQuantWithMinMaxVars"], lambda f, name=name, shape=shape,
                        lo=lo, hi=hi, bits=bits, narrow=narrow, scale=scale: [
                tf.raw_ops.FakeQuantWithMinMaxVars(
                    inputs=_ph(f, "x", _fq_inputs(name, shape, scale)),
                    min=_ph(f, "lo", lo), max=_ph(f, "hi", hi),
                    num_bits=bits, narrow_range=narrow)])
            gname = name.replace("Vars/", "VarsGradient/")
            yield _case(gname, ["FakeQuantWithMinMaxVarsGradient"], lambda f, name=gname,
                        shape=shape, lo=lo, hi=hi, bits=bits, narrow=narrow: list(
                tf.raw_ops.FakeQuantWithMinMaxVarsGradient(
                    gradients=_ph(f, "g", data(name + "/g", np.float32, shape)),
                    inputs=_ph(f, "x", _fq_inputs(name, shape)),
                    min=_ph(f, "lo", lo), max=_ph(f, "hi", hi),
                    num_bits=bits, narrow_range=narrow)))
    for op in ["FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsGradient"]:
        def body(f, op=op):
            args = dict(inputs=_ph(f, "x", [1.0, 2.0]), min=_ph(f, "lo", [-1.0], shape=None),
                        max=_ph(f, "hi", 1.0, shape=None))
            if op.endswith("Gradient"):
                args["gradients"] = _ph(f, "g", [1.0, 2.0])
            return _outs(getattr(tf.raw_ops, op)(**args))
        yield _case(f"{op}/error_rank", [op], body,
                    expect_error="`min` must be rank 0 but is rank 1")


def _fake_quant_per_channel():
    tf = _tf()
    mins = np.array([-6.0, -1.3, 0.5, -3.0, 0.0], np.float32)  # [0, 0]: zeros
    maxs = np.array([6.0, 2.7, 3.0, -0.25, 0.0], np.float32)
    for shape in [(5,), (3, 5), (2, 2, 3, 5), (0, 5)]:
        for bits, narrow in [(8, False), (5, True)]:
            suffix = "" if bits == 8 else "/bits5_narrow"
            name = f"FakeQuantWithMinMaxVarsPerChannel/f32{list(shape)}{suffix}".replace(" ", "")
            yield _case(name, ["FakeQuantWithMinMaxVarsPerChannel"],
                        lambda f, name=name, shape=shape, bits=bits, narrow=narrow: [
                tf.raw_ops.FakeQuantWithMinMaxVarsPerChannel(
                    inputs=_ph(f, "x", _fq_inputs(name, shape)), min=_ph(f, "lo", mins),
                    max=_ph(f, "hi", maxs), num_bits=bits, narrow_range=narrow)])
            gname = name.replace("PerChannel/", "PerChannelGradient/")
            yield _case(gname, ["FakeQuantWithMinMaxVarsPerChannelGradient"],
                        lambda f, name=gname, shape=shape, bits=bits, narrow=narrow: list(
                tf.raw_ops.FakeQuantWithMinMaxVarsPerChannelGradient(
                    gradients=_ph(f, "g", data(name + "/g", np.float32, shape)),
                    inputs=_ph(f, "x", _fq_inputs(name, shape)), min=_ph(f, "lo", mins),
                    max=_ph(f, "hi", maxs), num_bits=bits, narrow_range=narrow)))
    for op in ["FakeQuantWithMinMaxVarsPerChannel",
               "FakeQuantWithMinMaxVarsPerChannelGradient"]:
        for variant, lo, err in [("size", [-1.0], "min has incorrect size, expected 2 was 1"),
                                 ("rank", [[-1.0, -2.0]], "`min` must be rank 1 but is rank 2")]:
            def body(f, op=op, lo=lo):
                args = dict(inputs=_ph(f, "x", [[1.0, 2.0]]), min=_ph(f, "lo", lo, shape=None),
                            max=_ph(f, "hi", [1.0, 2.0], shape=None))
                if op.endswith("Gradient"):
                    args["gradients"] = _ph(f, "g", [[1.0, 2.0]])
                return _outs(getattr(tf.raw_ops, op)(**args))
            yield _case(f"{op}/error_{variant}", [op], body, expect_error=err)


# ---- QuantizeAndDequantize* ------------------------------------------------------

_QDQ_VARIANTS = [  # (suffix, attrs)
    ("", {}),
    ("/unsigned", {"signed_input": False}),
    ("/bits4_half_up", {"num_bits": 4, "round_mode": "HALF_UP"}),
    ("/narrow", {"narrow_range": True}),
    ("/range_given", {"range_given": True}),
    ("/range_given_unsigned_narrow", {"range_given": True, "signed_input": False,
                                      "narrow_range": True, "num_bits": 3}),
]


def _qdq_v2_v4():
    tf = _tf()
    for op in ["QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"]:
        for dtype in [np.float32, np.float64]:
            dn = np.dtype(dtype).name
            for suffix, attrs in _QDQ_VARIANTS:
                for shape, axis in [((3, 4), -1), ((0,), -1), ((2, 3, 4), 1)]:
                    if shape != (3, 4) and suffix not in ("", "/range_given"):
                        continue
                    depth = shape[axis] if axis >= 0 else None
                    name = f"{op}/{dn}{list(shape)}{suffix}".replace(" ", "")
                    if axis >= 0:
                        name += f"/axis{axis}"

                    def body(f, op=op, dtype=dtype, name=name, shape=shape, axis=axis,
                             depth=depth, attrs=attrs):
                        lo = np.linspace(-2.5, -0.5, depth or 1).astype(dtype)
                        hi = np.linspace(0.75, 3.0, depth or 1).astype(dtype)
                        if depth is None:
                            lo, hi = lo[0], hi[0]
                        return [getattr(tf.raw_ops, op)(
                            input=_ph(f, "x", data(name, dtype, shape) * 2, dtype),
                            input_min=_ph(f, "lo", lo, dtype), input_max=_ph(f, "hi", hi, dtype),
                            axis=axis, **attrs)]
                    if axis >= 0 and attrs.get("range_given"):
                        # TensorFlow 2.21 refuses any per-channel given range
                        # in V2/V4 (scalars first, then rank 1 with an axis).
                        yield _case(name, [op], body,
                                    expect_error="input_min must be a scalar.")
                    else:
                        yield _case(name, [op], body)
        yield _case(f"{op}/error_range", [op], lambda f, op=op: [getattr(tf.raw_ops, op)(
            input=_ph(f, "x", [1.0]), input_min=_ph(f, "lo", 1.0), input_max=_ph(f, "hi", 0.0),
            range_given=True)], expect_error="Invalid range: input_min 1 > input_max 0")
        yield _case(f"{op}/error_bits", [op], lambda f, op=op: [getattr(tf.raw_ops, op)(
            input=_ph(f, "x", [1.0]), input_min=_ph(f, "lo", 0.0), input_max=_ph(f, "hi", 1.0),
            num_bits=63, signed_input=False)],
            expect_error="num_bits is out of range: 63 with signed_input_ 0")
        yield _case(f"{op}/error_axis_scalar_range", [op], lambda f, op=op: [
            getattr(tf.raw_ops, op)(
                input=_ph(f, "x", [[1.0, 2.0]], shape=None), input_min=_ph(f, "lo", 0.0, shape=None),
                input_max=_ph(f, "hi", 1.0, shape=None), range_given=True, axis=1)],
            expect_error="Shape must be rank 1 for input_min_tensor when the axis is specified")
        yield _case(f"{op}/error_axis_rank", [op], lambda f, op=op: [getattr(tf.raw_ops, op)(
            input=_ph(f, "x", [1.0], shape=None), input_min=_ph(f, "lo", [0.0], shape=None),
            input_max=_ph(f, "hi", [1.0], shape=None), axis=2)],
            expect_error="Shape must be at least rank 3 but is rank 1")


def _qdq_v3():
    tf = _tf()
    for dtype in [np.float32, np.float64]:
        dn = np.dtype(dtype).name
        for suffix, bits, attrs, shape, axis in [
                ("", 8, {}, (3, 4), -1), ("/bits5", 5, {"signed_input": False}, (3, 4), -1),
                ("/no_range", 6, {"range_given": False}, (3, 4), -1),
                ("/axis0", 8, {}, (3, 4), 0), ("", 8, {}, (0, 4), -1)]:
            name = f"QuantizeAndDequantizeV3/{dn}{list(shape)}{suffix}".replace(" ", "")

            def body(f, dtype=dtype, name=name, bits=bits, attrs=attrs, shape=shape, axis=axis):
                lo = np.float64(-1.5) if axis < 0 else np.linspace(-2, -1, shape[axis])
                hi = np.float64(2.25) if axis < 0 else np.linspace(1, 3, shape[axis])
                return [tf.raw_ops.QuantizeAndDequantizeV3(
                    input=_ph(f, "x", data(name, dtype, shape) * 2, dtype),
                    input_min=_ph(f, "lo", lo, dtype), input_max=_ph(f, "hi", hi, dtype),
                    num_bits=_ph(f, "bits", bits, np.int32), axis=axis, **attrs)]
            yield _case(name, ["QuantizeAndDequantizeV3"], body)
    yield _case("QuantizeAndDequantizeV3/error_axis_size", ["QuantizeAndDequantizeV3"],
                lambda f: [tf.raw_ops.QuantizeAndDequantizeV3(
                    input=_ph(f, "x", np.ones([2, 3, 4]), shape=None),
                    input_min=_ph(f, "lo", [-1.0], shape=None),
                    input_max=_ph(f, "hi", [1.0, 1.0, 1.0], shape=None),
                    num_bits=_ph(f, "bits", 8, np.int32), axis=1)],
                expect_error="input_min_tensor has incorrect size, was 1 expected 3 to match dim 1 "
                             r"of the input \[1\]")
    yield _case("QuantizeAndDequantizeV3/error_axis_rank", ["QuantizeAndDequantizeV3"],
                lambda f: [tf.raw_ops.QuantizeAndDequantizeV3(
                    input=_ph(f, "x", np.ones([2, 3, 4]), shape=None),
                    input_min=_ph(f, "lo", [[-1.0, -1.0, -1.0]], shape=None),
                    input_max=_ph(f, "hi", [[1.0, 1.0, 1.0]], shape=None),
                    num_bits=_ph(f, "bits", 8, np.int32), axis=1)],
                expect_error="Shape must be rank 1 for input_min_tensor when the axis is specified")
    yield _case("QuantizeAndDequantizeV3/error_bits", ["QuantizeAndDequantizeV3"],
                lambda f: [tf.raw_ops.QuantizeAndDequantizeV3(
                    input=_ph(f, "x", [1.0]), input_min=_ph(f, "lo", 0.0),
                    input_max=_ph(f, "hi", 1.0), num_bits=_ph(f, "bits", 0, np.int32))],
                expect_error="num_bits is out of range: 0 with `signed_input_` 1")
    yield _case("QuantizeAndDequantizeV3/error_bits_shape", ["QuantizeAndDequantizeV3"],
                lambda f: [tf.raw_ops.QuantizeAndDequantizeV3(
                    input=_ph(f, "x", [1.0]), input_min=_ph(f, "lo", 0.0),
                    input_max=_ph(f, "hi", 1.0),
                    num_bits=_ph(f, "bits", [8], np.int32, shape=None))],
                expect_error="The `num_bits` tensor should be a scalar. Got dimensions: 1")


def _as_v1(input_min, input_max, range_given, producer=21):
    """Rewrites the graph's QuantizeAndDequantizeV2 node into the deprecated
    QuantizeAndDequantize (the range in attrs) at a producer before 22."""
    def edit(graph_def):
        for node in graph_def.node:
            if node.op != "QuantizeAndDequantizeV2":
                continue
            node.op = "QuantizeAndDequantize"
            del node.input[1:]
            for attr in ["round_mode", "narrow_range", "axis"]:
                del node.attr[attr]
            node.attr["input_min"].f = input_min
            node.attr["input_max"].f = input_max
            node.attr["range_given"].b = range_given
        graph_def.versions.producer = producer
    return edit


def _qdq_v1():
    tf = _tf()
    for dtype in [np.float32, np.float64]:
        dn = np.dtype(dtype).name
        for suffix, lo, hi, given in [("", 0.0, 0.0, False), ("/range_given", -1.5, 2.0, True)]:
            name = f"QuantizeAndDequantize/{dn}[3,4]{suffix}"
            yield OpCase(name, ["QuantizeAndDequantize"], _v1_build(tf, name, dtype),
                         edit=_as_v1(lo, hi, given))
    yield OpCase("QuantizeAndDequantize/error_range", ["QuantizeAndDequantize"],
                 _v1_build(tf, "QuantizeAndDequantize/error_range", np.float32),
                 edit=_as_v1(2.0, 1.0, True), expect_error="Invalid range: input_min 2 > input_max 1")
    yield OpCase("QuantizeAndDequantize/deprecated", ["QuantizeAndDequantize"],
                 _v1_build(tf, "QuantizeAndDequantize/deprecated", np.float32),
                 edit=_as_v1(0.0, 0.0, False, producer=22),
                 expect_error="Op QuantizeAndDequantize is not available in GraphDef version 22. "
                              "It has been removed in version 22. Replaced by "
                              "QuantizeAndDequantizeV2.")


def _v1_build(tf, name, dtype):
    def build():
        f = {}
        return [tf.raw_ops.QuantizeAndDequantizeV2(
            input=_ph(f, "x", data(name, dtype, (3, 4)) * 2, dtype),
            input_min=tf.constant(0, dtype), input_max=tf.constant(0, dtype))], f
    return build


def _qdq_v4_grad():
    tf = _tf()
    for dtype in [np.float32, np.float64]:
        dn = np.dtype(dtype).name
        for shape, axis in [((3, 4), -1), ((2, 3, 4), 1), ((0, 3), -1)]:
            name = f"QuantizeAndDequantizeV4Grad/{dn}{list(shape)}" + (
                f"/axis{axis}" if axis >= 0 else "")
            name = name.replace(" ", "")

            def body(f, dtype=dtype, name=name, shape=shape, axis=axis):
                lo = dtype(-0.5) if axis < 0 else np.linspace(-1, 0, shape[axis])
                hi = dtype(0.75) if axis < 0 else np.linspace(0.2, 1.5, shape[axis])
                return list(tf.raw_ops.QuantizeAndDequantizeV4Grad(
                    gradients=_ph(f, "g", data(name + "/g", dtype, shape), dtype),
                    input=_ph(f, "x", data(name, dtype, shape), dtype),
                    input_min=_ph(f, "lo", lo, dtype), input_max=_ph(f, "hi", hi, dtype),
                    axis=axis))
            yield _case(name, ["QuantizeAndDequantizeV4Grad"], body)
    yield _case("QuantizeAndDequantizeV4Grad/error_size", ["QuantizeAndDequantizeV4Grad"],
                lambda f: list(tf.raw_ops.QuantizeAndDequantizeV4Grad(
                    gradients=_ph(f, "g", [1.0, 2.0], shape=None),
                    input=_ph(f, "x", [1.0, 2.0], shape=None),
                    input_min=_ph(f, "lo", [0.0], shape=None),
                    input_max=_ph(f, "hi", [1.0, 2.0], shape=None), axis=0)),
                expect_error="min has incorrect size, expected 2 was 1")


# ---- Requantization --------------------------------------------------------------

def _acc(name, shape):
    """int32 accumulator values over most of the int32 range."""
    return (data(name, np.float64, shape) * 4e8).astype(np.int32)


def _requantize():
    tf = _tf()
    for out in ["quint8", "qint8"]:
        for suffix, ranges in [("", (-1.0, 1.0, -0.5, 0.75)), ("/wide", (-300.0, 250.0, -2.0, 1.0)),
                               ("/zero_out", (-1.0, 1.0, 0.0, 0.0))]:
            for shape in [(3, 5), (0,)]:
                if shape == (0,) and suffix:
                    continue
                name = f"Requantize/qint32{list(shape)}_{out}{suffix}".replace(" ", "")
                a, b, c, d = ranges
                yield _case(name, ["Requantize"], lambda f, name=name, shape=shape, out=out,
                            a=a, b=b, c=c, d=d: _fetch_q(tf.raw_ops.Requantize(
                                input=_q(f, "x", _acc(name, shape), "qint32"),
                                input_min=_ph(f, "a", a), input_max=_ph(f, "b", b),
                                requested_output_min=_ph(f, "c", c),
                                requested_output_max=_ph(f, "d", d),
                                out_type=getattr(tf, out))))
    for variant, c, d, err in [("min", 1.0, 2.0, "requested_output_min must be <= 0, but got 1"),
                               ("max", -1.0, -2.0, "requested_output_max must be >= "
                                                   "requested_output_min, but got -2 and -1")]:
        yield _case(f"Requantize/error_{variant}", ["Requantize"], lambda f, c=c, d=d: _fetch_q(
            tf.raw_ops.Requantize(input=_q(f, "x", [1, 2], "qint32"), input_min=_ph(f, "a", -1.0),
                                  input_max=_ph(f, "b", 1.0), requested_output_min=_ph(f, "c", c),
                                  requested_output_max=_ph(f, "d", d), out_type=tf.quint8)),
            expect_error=err)
    yield _case("Requantize/error_rank", ["Requantize"], lambda f: _fetch_q(
        tf.raw_ops.Requantize(input=_q(f, "x", [1, 2], "qint32"),
                              input_min=_ph(f, "a", [-1.0], shape=None),
                              input_max=_ph(f, "b", 1.0), requested_output_min=_ph(f, "c", -1.0),
                              requested_output_max=_ph(f, "d", 1.0), out_type=tf.quint8)),
        expect_error="`input_min` must be rank 0 but is rank 1")


def _fetch_q(outputs):
    return [_plain(outputs[0])] + list(outputs[1:])


def _ranges():
    tf = _tf()
    for suffix, shape, lo, hi in [("", (3, 5), -10.0, 10.0), ("/pos", (4,), -1.0, 2.0),
                                  ("", (0,), -1.0, 1.0)]:
        name = f"RequantizationRange/qint32{list(shape)}{suffix}".replace(" ", "")
        vals = np.abs(_acc(name, shape)) if suffix else _acc(name, shape)
        yield _case(name, ["RequantizationRange"], lambda f, vals=vals, lo=lo, hi=hi: list(
            tf.raw_ops.RequantizationRange(input=_q(f, "x", vals, "qint32"),
                                           input_min=_ph(f, "a", lo), input_max=_ph(f, "b", hi))))
        dname = name.replace("RequantizationRange/", "QuantizeDownAndShrinkRange/")
        yield _case(dname, ["QuantizeDownAndShrinkRange"], lambda f, vals=vals, lo=lo, hi=hi:
                    _fetch_q(tf.raw_ops.QuantizeDownAndShrinkRange(
                        input=_q(f, "x", vals, "qint32"), input_min=_ph(f, "a", lo),
                        input_max=_ph(f, "b", hi), out_type=tf.quint8)))
    yield _case("RequantizationRange/error_empty", ["RequantizationRange"], lambda f: list(
        tf.raw_ops.RequantizationRange(input=_q(f, "x", [1], "qint32"),
                                       input_min=_ph(f, "a", np.zeros([0]), shape=None),
                                       input_max=_ph(f, "b", 1.0))),
        expect_error="Input min must not be empty.")
    yield _case("QuantizeDownAndShrinkRange/error_rank", ["QuantizeDownAndShrinkRange"],
                lambda f: _fetch_q(tf.raw_ops.QuantizeDownAndShrinkRange(
                    input=_q(f, "x", [1], "qint32"), input_min=_ph(f, "a", [0.0], shape=None),
                    input_max=_ph(f, "b", 1.0), out_type=tf.quint8)),
                expect_error="`input_min` must be rank 0 but is rank 1")


def _per_channel():
    tf = _tf()
    mins = np.array([-3.0, -0.5, -12.0], np.float32)
    maxs = np.array([2.0, 0.75, 10.0], np.float32)
    for out, req in [("quint8", (0.0, 6.0)), ("qint8", (-3.0, 3.0))]:
        for shape in [(2, 2, 2, 3), (1, 1, 2, 2, 3)]:
            name = f"RequantizePerChannel/qint32{list(shape)}_{out}".replace(" ", "")
            kw = {} if len(shape) == 4 else {
                "expect_error": "Current RequantizePerChannel operatorsupports 4D tensors only."}
            yield _case(name, ["RequantizePerChannel"], lambda f, name=name, shape=shape,
                        out=out, req=req: _fetch_q(tf.raw_ops.RequantizePerChannel(
                            input=_q(f, "x", _acc(name, shape), "qint32"),
                            input_min=_ph(f, "a", mins), input_max=_ph(f, "b", maxs),
                            requested_output_min=_ph(f, "c", req[0]),
                            requested_output_max=_ph(f, "d", req[1]),
                            out_type=getattr(tf, out))), **kw)
    yield _case("RequantizePerChannel/error_qint8_min", ["RequantizePerChannel"],
                lambda f: _fetch_q(tf.raw_ops.RequantizePerChannel(
                    input=_q(f, "x", np.zeros([1, 1, 1, 3]), "qint32"),
                    input_min=_ph(f, "a", mins), input_max=_ph(f, "b", maxs),
                    requested_output_min=_ph(f, "c", 0.0), requested_output_max=_ph(f, "d", 1.0),
                    out_type=tf.qint8)),
                expect_error="If out_type is QINT8, requested_output_max must be non negative")
    for suffix, clip, pos in [("", 1e9, False), ("/clip", 0.5, False), ("/pos", 1e9, True)]:
        name = f"RequantizationRangePerChannel/qint32[2,2,2,3]{suffix}"
        vals = _acc(name, (2, 2, 2, 3))
        if pos:
            vals = np.abs(vals)
        yield _case(name, ["RequantizationRangePerChannel"], lambda f, vals=vals, clip=clip: list(
            tf.raw_ops.RequantizationRangePerChannel(
                input=_q(f, "x", vals, "qint32"), input_min=_ph(f, "a", mins),
                input_max=_ph(f, "b", maxs), clip_value_max=clip)))
    yield _case("RequantizationRangePerChannel/error_rank", ["RequantizationRangePerChannel"],
                lambda f: list(tf.raw_ops.RequantizationRangePerChannel(
                    input=_q(f, "x", np.ones([2, 3]), "qint32"), input_min=_ph(f, "a", mins),
                    input_max=_ph(f, "b", maxs), clip_value_max=6.0)),
                expect_error="input must be in NHWC format")


# ---- Quantized inference ops (TF1 quantized graphs) ------------------------------

def _qdata(name, qtype, shape):
    if qtype == "qint32":
        return _acc(name, shape)
    info = np.iinfo(_PLAIN[qtype])
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return rng.integers(info.min, info.max + 1, shape).astype(_PLAIN[qtype])


def _quantized_nn():
    tf = _tf()
    for op in ["QuantizedRelu", "QuantizedRelu6"]:
        for qtype, lo, hi in [("quint8", -1.0, 2.0), ("quint8", -3.0, 10.0),
                              ("qint32", -10.0, 10.0), ("qint32", -2.0, 7.5)]:
            name = f"{op}/{qtype}[3,4]/{lo}_{hi}"
            yield _case(name, [op], lambda f, op=op, name=name, qtype=qtype, lo=lo, hi=hi:
                        _fetch_q(getattr(tf.raw_ops, op)(
                            features=_q(f, "x", _qdata(name, qtype, (3, 4)), qtype),
                            min_features=_ph(f, "a", lo), max_features=_ph(f, "b", hi),
                            out_type=getattr(tf, qtype))))
    pools = [((2, 5, 6, 3), [1, 2, 3, 1], [1, 2, 2, 1]), ((1, 4, 4, 1), [1, 3, 3, 1], [1, 1, 1, 1]),
             ((0, 4, 4, 2), [1, 2, 2, 1], [1, 2, 2, 1])]
    for op in ["QuantizedMaxPool", "QuantizedAvgPool"]:
        for padding, qtype, (shape, ksize, strides) in itertools.product(
                ["SAME", "VALID"], ["quint8", "qint8"], pools):
            name = f"{op}/{qtype}{list(shape)}/k{ksize[1]}{ksize[2]}_s{strides[1]}_{padding}"
            name = name.replace(" ", "")
            yield _case(name, [op], lambda f, op=op, name=name, shape=shape, ksize=ksize,
                        strides=strides, padding=padding, qtype=qtype: _fetch_q(
                            getattr(tf.raw_ops, op)(
                                input=_q(f, "x", _qdata(name, qtype, shape), qtype),
                                min_input=_ph(f, "a", -1.0), max_input=_ph(f, "b", 2.0),
                                ksize=ksize, strides=strides, padding=padding)))
        yield _case(f"{op}/error_batch", [op], lambda f, op=op: _fetch_q(getattr(tf.raw_ops, op)(
            input=_q(f, "x", np.zeros([2, 2, 2, 1]), "quint8"), min_input=_ph(f, "a", -1.0),
            max_input=_ph(f, "b", 2.0), ksize=[2, 1, 1, 1], strides=[1, 1, 1, 1],
            padding="VALID")), expect_error="Pooling is not yet supported on the batch dimension.")
    for qtype in ["quint8", "qint8"]:
        for shape, ranges in [((2, 3, 4), (-1.0, 2.0, -0.5, 0.25)), ((5, 4), (0.0, 6.0, -3.0, 3.0)),
                              ((0, 4), (-1.0, 1.0, -1.0, 1.0))]:
            name = f"QuantizedBiasAdd/{qtype}{list(shape)}".replace(" ", "")
            yield _case(name, ["QuantizedBiasAdd"], lambda f, name=name, shape=shape,
                        qtype=qtype, ranges=ranges: _fetch_q(tf.raw_ops.QuantizedBiasAdd(
                            input=_q(f, "x", _qdata(name, qtype, shape), qtype),
                            bias=_q(f, "b", _qdata(name + "/b", qtype, shape[-1:]), qtype),
                            min_input=_ph(f, "a", ranges[0]), max_input=_ph(f, "c", ranges[1]),
                            min_bias=_ph(f, "d", ranges[2]), max_bias=_ph(f, "e", ranges[3]),
                            out_type=tf.qint32)))
    yield _case("QuantizedBiasAdd/error_bias", ["QuantizedBiasAdd"], lambda f: _fetch_q(
        tf.raw_ops.QuantizedBiasAdd(
            input=_q(f, "x", np.zeros([2, 3]), "quint8", None),
            bias=_q(f, "b", np.zeros([2]), "quint8", None),
            min_input=_ph(f, "a", -1.0), max_input=_ph(f, "c", 1.0), min_bias=_ph(f, "d", -1.0),
            max_bias=_ph(f, "e", 1.0), out_type=tf.qint32)),
        expect_error="Must provide as many biases as the last dimension of the input tensor")
    for ta, tb in [(False, False), (True, False), (False, True), (True, True)]:
        name = f"QuantizedMatMul/quint8[3,5]x[5,4]/ta{int(ta)}_tb{int(tb)}"
        a_shape = (5, 3) if ta else (3, 5)
        b_shape = (4, 5) if tb else (5, 4)
        yield _case(name, ["QuantizedMatMul"], lambda f, name=name, a_shape=a_shape,
                    b_shape=b_shape, ta=ta, tb=tb: _fetch_q(tf.raw_ops.QuantizedMatMul(
                        a=_q(f, "a", _qdata(name, "quint8", a_shape), "quint8"),
                        b=_q(f, "b", _qdata(name + "/b", "quint8", b_shape), "quint8"),
                        min_a=_ph(f, "a0", -1.0), max_a=_ph(f, "a1", 2.0),
                        min_b=_ph(f, "b0", -0.3), max_b=_ph(f, "b1", 3.7),
                        transpose_a=ta, transpose_b=tb, Toutput=tf.qint32)))
    yield _case("QuantizedMatMul/error_range", ["QuantizedMatMul"], lambda f: _fetch_q(
        tf.raw_ops.QuantizedMatMul(
            a=_q(f, "a", np.zeros([2, 2]), "quint8"), b=_q(f, "b", np.zeros([2, 2]), "quint8"),
            min_a=_ph(f, "a0", 1.0), max_a=_ph(f, "a1", 1.0), min_b=_ph(f, "b0", -1.0),
            max_b=_ph(f, "b1", 1.0), Toutput=tf.qint32)),
        expect_error="max_a must be larger than min_a.")
    yield _case("QuantizedMatMul/error_shape", ["QuantizedMatMul"], lambda f: _fetch_q(
        tf.raw_ops.QuantizedMatMul(
            a=_q(f, "a", np.zeros([2, 3]), "quint8", None),
            b=_q(f, "b", np.zeros([2, 2]), "quint8", None),
            min_a=_ph(f, "a0", -1.0), max_a=_ph(f, "a1", 1.0), min_b=_ph(f, "b0", -1.0),
            max_b=_ph(f, "b1", 1.0), Toutput=tf.qint32)),
        expect_error=r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,2\]")



def _quantized_conv():
    tf = _tf()
    for shape, fshape, stride, padding in [((2, 5, 6, 3), (3, 2, 3, 4), 1, "SAME"),
                                           ((1, 7, 7, 2), (3, 3, 2, 3), 2, "SAME"),
                                           ((1, 6, 5, 2), (2, 3, 2, 2), 2, "VALID")]:
        name = f"QuantizedConv2D/quint8{list(shape)}x{list(fshape)}/s{stride}_{padding}"
        name = name.replace(" ", "")
        yield _case(name, ["QuantizedConv2D"], lambda f, name=name, shape=shape, fshape=fshape,
                    stride=stride, padding=padding: _fetch_q(tf.raw_ops.QuantizedConv2D(
                        input=_q(f, "x", _qdata(name, "quint8", shape), "quint8"),
                        filter=_q(f, "w", _qdata(name + "/w", "quint8", fshape), "quint8"),
                        min_input=_ph(f, "a", -1.0), max_input=_ph(f, "b", 2.0),
                        min_filter=_ph(f, "c", -0.7), max_filter=_ph(f, "d", 0.4),
                        strides=[1, stride, stride, 1], padding=padding, out_type=tf.qint32)))
    yield _case("QuantizedConv2D/error_depth", ["QuantizedConv2D"], lambda f: _fetch_q(
        tf.raw_ops.QuantizedConv2D(
            input=_q(f, "x", np.zeros([1, 3, 3, 2]), "quint8", None),
            filter=_q(f, "w", np.zeros([1, 1, 3, 1]), "quint8", None),
            min_input=_ph(f, "a", -1.0), max_input=_ph(f, "b", 2.0),
            min_filter=_ph(f, "c", -0.7), max_filter=_ph(f, "d", 0.4),
            strides=[1, 1, 1, 1], padding="SAME", out_type=tf.qint32)),
        expect_error="input and filter must have the same depth: 2 vs 3")



def _quantized_binary():
    tf = _tf()
    for op in ["QuantizedAdd", "QuantizedMul"]:
        for xs, ys in [((3, 4), (3, 4)), ((), (2, 5)), ((2, 5), ()), ((3, 4), (4,)),
                       ((4,), (3, 4)), ((2, 3, 4), (3, 4)), ((3, 1), (3, 4)), ((0, 4), (4,))]:
            if op == "QuantizedMul" and xs == (0, 4):
                continue
            name = f"{op}/quint8{list(xs)}x{list(ys)}".replace(" ", "")
            # An empty "vector" operand: TensorFlow's add refuses it.
            kw = {"expect_error": "Must have some elements to add"} if 0 in xs else {}
            for ranges, suffix in [((-1.0, 2.0, -0.5, 0.25), ""), ((0.0, 6.0, -30.0, 1.0), "/wide")]:
                yield _case(name + suffix, [op], lambda f, op=op, name=name, xs=xs, ys=ys,
                            ranges=ranges: _fetch_q(getattr(tf.raw_ops, op)(
                                x=_q(f, "x", _qdata(name, "quint8", xs), "quint8"),
                                y=_q(f, "y", _qdata(name + "/y", "quint8", ys), "quint8"),
                                min_x=_ph(f, "a", ranges[0]), max_x=_ph(f, "b", ranges[1]),
                                min_y=_ph(f, "c", ranges[2]), max_y=_ph(f, "d", ranges[3]),
                                Toutput=tf.qint32)), **kw)
        for variant, xs, ys, rng, err in [
                ("bcast3", (2, 1, 3), (2, 4, 3), (-1.0, 1.0), "Broadcast between \\[2,1,3\\] and "
                 "\\[2,4,3\\] is not supported yet."),
                ("shapes", (2, 3), (3, 3), (-1.0, 1.0), "Incompatible shapes: \\[2,3\\] vs. \\[3,3\\]"),
                ("range", (2,), (2,), (1.0, 1.0), "max_x must be larger than min_")]:
            yield _case(f"{op}/error_{variant}", [op], lambda f, op=op, xs=xs, ys=ys, rng=rng:
                        _fetch_q(getattr(tf.raw_ops, op)(
                            x=_q(f, "x", np.ones(xs), "quint8", None),
                            y=_q(f, "y", np.ones(ys), "quint8", None),
                            min_x=_ph(f, "a", rng[0]), max_x=_ph(f, "b", rng[1]),
                            min_y=_ph(f, "c", -1.0), max_y=_ph(f, "d", 1.0), Toutput=tf.qint32)),
                        expect_error=err)



def _quantized_concat():
    tf = _tf()
    for qtype in ["quint8", "qint32"]:
        for axis, shapes, ranges in [
                (0, [(2, 3), (1, 3)], [(-1.0, 2.0), (-1.0, 2.0)]),
                (1, [(2, 3), (2, 1), (2, 4)], [(-1.0, 2.0), (-3.0, 1.0), (0.0, 5.0)]),
                (2, [(2, 2, 3), (2, 2, 0)], [(-1.0, 1.0), (-2.0, 2.0)])]:
            name = f"QuantizedConcat/{qtype}/axis{axis}_n{len(shapes)}"

            def body(f, qtype=qtype, axis=axis, shapes=shapes, ranges=ranges, name=name):
                vals = [_q(f, f"x{i}", _qdata(f"{name}/{i}", qtype, s), qtype)
                        for i, s in enumerate(shapes)]
                return _fetch_q(tf.raw_ops.QuantizedConcat(
                    concat_dim=tf.constant(axis), values=vals,
                    input_mins=[_ph(f, f"lo{i}", r[0]) for i, r in enumerate(ranges)],
                    input_maxes=[_ph(f, f"hi{i}", r[1]) for i, r in enumerate(ranges)]))
            yield _case(name, ["QuantizedConcat"], body)
    for qtype in ["quint8", "qint32"]:
        for shape, new in [((2, 3), [3, -1]), ((0, 4), [-1, 2, 2]), ((6,), [1, 2, 3])]:
            name = f"QuantizedReshape/{qtype}{list(shape)}->{new}".replace(" ", "")
            yield _case(name, ["QuantizedReshape"], lambda f, name=name, qtype=qtype,
                        shape=shape, new=new: _fetch_q(tf.raw_ops.QuantizedReshape(
                            tensor=_q(f, "x", _qdata(name, qtype, shape), qtype),
                            shape=tf.constant(new, tf.int64), input_min=_ph(f, "a", -1.5),
                            input_max=_ph(f, "b", 2.5))))
    yield _case("QuantizedReshape/error_size", ["QuantizedReshape"], lambda f: _fetch_q(
        tf.raw_ops.QuantizedReshape(
            tensor=_q(f, "x", np.ones([2, 3]), "quint8", None),
            shape=_ph(f, "s", [4], np.int32, None), input_min=_ph(f, "a", -1.5),
            input_max=_ph(f, "b", 2.5))),
        expect_error="Input to reshape is a tensor with 6 values, but the requested shape has 4")
    yield _case("QuantizedConcat/error_dims", ["QuantizedConcat"], lambda f: _fetch_q(
        tf.raw_ops.QuantizedConcat(
            concat_dim=_ph(f, "d", 0, np.int32),
            values=[_q(f, "x0", np.ones([2, 3]), "quint8", None),
                    _q(f, "x1", np.ones([2, 2]), "quint8", None)],
            input_mins=[_ph(f, "lo0", -1.0), _ph(f, "lo1", -1.0)],
            input_maxes=[_ph(f, "hi0", 1.0), _ph(f, "hi1", 1.0)])),
        expect_error="ConcatOp : Dimensions of inputs should match")



_QRANGE = {"qint8": (-128, 127), "quint8": (0, 255), "qint32": (-(2**31), 2**31 - 1)}


def _uniform_params(axis, shape, seed):
    if axis < 0:
        return np.float32(0.037 + 0.01 * seed), np.int32(3 - seed)
    n = shape[axis]
    return (np.linspace(0.02, 0.3, n).astype(np.float32),
            (np.arange(n) - n // 2 + seed).astype(np.int32))


def _uniform():
    tf = _tf()
    for qtype in ["qint8", "quint8", "qint32"]:
        lo, hi = _QRANGE[qtype]
        for axis, shape in [(-1, (3, 4)), (1, (3, 4)), (0, (2, 3, 2)), (-1, (0,))]:
            name = f"UniformQuantize/{qtype}{list(shape)}/axis{axis}".replace(" ", "")
            scales, zps = _uniform_params(axis, shape, 0)
            narrow = lo + 1 if qtype == "qint8" and axis == 1 else lo
            yield _case(name, ["UniformQuantize"], lambda f, name=name, shape=shape, axis=axis,
                        scales=scales, zps=zps, qtype=qtype, lo=narrow, hi=hi: [
                _plain(tf.raw_ops.UniformQuantize(
                    input=_ph(f, "x", data(name, np.float32, shape) * 6),
                    scales=_ph(f, "s", scales), zero_points=_ph(f, "z", zps, np.int32),
                    Tout=getattr(tf, qtype), quantization_axis=axis,
                    quantization_min_val=lo, quantization_max_val=hi))])
            dname = name.replace("UniformQuantize", "UniformDequantize")
            yield _case(dname, ["UniformDequantize"], lambda f, name=dname, shape=shape,
                        axis=axis, scales=scales, zps=zps, qtype=qtype, lo=lo, hi=hi: [
                tf.raw_ops.UniformDequantize(
                    input=_q(f, "x", _qdata(name, qtype, shape), qtype),
                    scales=_ph(f, "s", scales), zero_points=_ph(f, "z", zps, np.int32),
                    Tout=tf.float32, quantization_axis=axis,
                    quantization_min_val=lo, quantization_max_val=hi)])
    yield _case("UniformQuantize/error_shapes", ["UniformQuantize"], lambda f: [_plain(
        tf.raw_ops.UniformQuantize(
            input=_ph(f, "x", np.ones([2, 3]), shape=None),
            scales=_ph(f, "s", [0.1, 0.2], shape=None),
            zero_points=_ph(f, "z", [0, 0], np.int32, shape=None), Tout=tf.qint8,
            quantization_axis=1, quantization_min_val=-128, quantization_max_val=127))],
        expect_error="If quantization_axis is not -1, scales and zero_points must be a tensor "
                     "of rank 1")
    for tin in ["qint32", "qint8"]:
        for in_axis, out_axis in [(-1, -1), (1, -1), (-1, 1), (1, 1)]:
            name = f"UniformRequantize/{tin}[3,4]_qint8/in{in_axis}_out{out_axis}"
            in_s, in_z = _uniform_params(in_axis, (3, 4), 0)
            out_s, out_z = _uniform_params(out_axis, (3, 4), 1)
            if tin == "qint32":
                in_s = (in_s * np.float32(0.001)).astype(np.float32)
                vals = (data(name, np.float64, (3, 4)) * 3e4).astype(np.int32)
            else:
                vals = _qdata(name, tin, (3, 4))
            yield _case(name, ["UniformRequantize"], lambda f, tin=tin, vals=vals,
                        in_axis=in_axis, out_axis=out_axis, in_s=in_s, in_z=in_z,
                        out_s=out_s, out_z=out_z: [_plain(tf.raw_ops.UniformRequantize(
                            input=_q(f, "x", vals, tin), input_scales=_ph(f, "a", in_s),
                            input_zero_points=_ph(f, "b", in_z, np.int32),
                            output_scales=_ph(f, "c", out_s),
                            output_zero_points=_ph(f, "d", out_z, np.int32), Tout=tf.qint8,
                            input_quantization_axis=in_axis,
                            input_quantization_min_val=_QRANGE[tin][0],
                            input_quantization_max_val=_QRANGE[tin][1],
                            output_quantization_axis=out_axis,
                            output_quantization_min_val=-127,
                            output_quantization_max_val=127))])
    yield _case("UniformRequantize/error_scale", ["UniformRequantize"], lambda f: [_plain(
        tf.raw_ops.UniformRequantize(
            input=_q(f, "x", [1, 2], "qint8"), input_scales=_ph(f, "a", -1.0),
            input_zero_points=_ph(f, "b", 0, np.int32), output_scales=_ph(f, "c", 1.0),
            output_zero_points=_ph(f, "d", 0, np.int32), Tout=tf.qint8,
            input_quantization_min_val=-128, input_quantization_max_val=127,
            output_quantization_min_val=-128, output_quantization_max_val=127))],
        expect_error="input/output scales elements must be all positive.")



def _uniform_add_clip():
    tf = _tf()
    combos = [  # (lhs shape, rhs shape, lhs axis, rhs axis, output axis)
        ((3, 4), (3, 4), -1, -1, -1), ((3, 4), (4,), -1, -1, -1), ((), (2, 3), -1, -1, -1),
        ((3, 4), (3, 4), 1, 1, 1), ((3, 4), (4,), 1, 0, 1), ((2, 3), (2, 3), 0, -1, -1)]
    for i, (ls, rs, la, ra, oa) in enumerate(combos):
        name = f"UniformQuantizedAdd/qint32{list(ls)}+{list(rs)}/axes{la}_{ra}_{oa}".replace(" ", "")
        out_shape = np.broadcast_shapes(ls, rs)

        def body(f, name=name, ls=ls, rs=rs, la=la, ra=ra, oa=oa, out_shape=out_shape):
            l_s, l_z = _uniform_params(la, ls, 0)
            r_s, r_z = _uniform_params(ra, rs, 1)
            o_s, o_z = _uniform_params(oa, out_shape, 2)
            return [_plain(tf.raw_ops.UniformQuantizedAdd(
                lhs=_q(f, "l", (data(name, np.float64, ls) * 500).astype(np.int32), "qint32"),
                rhs=_q(f, "r", (data(name + "/r", np.float64, rs) * 500).astype(np.int32),
                       "qint32"),
                lhs_scales=_ph(f, "ls", l_s), lhs_zero_points=_ph(f, "lz", l_z, np.int32),
                rhs_scales=_ph(f, "rs", r_s), rhs_zero_points=_ph(f, "rz", r_z, np.int32),
                output_scales=_ph(f, "os", o_s), output_zero_points=_ph(f, "oz", o_z, np.int32),
                lhs_quantization_axis=la, lhs_quantization_min_val=-(2**31),
                lhs_quantization_max_val=2**31 - 1, rhs_quantization_axis=ra,
                rhs_quantization_min_val=-(2**31), rhs_quantization_max_val=2**31 - 1,
                output_quantization_axis=oa, output_quantization_min_val=-300,
                output_quantization_max_val=250))]
        yield _case(name, ["UniformQuantizedAdd"], body)
    for axis, shape in [(-1, (3, 4)), (1, (3, 4))]:
        name = f"UniformQuantizedClipByValue/qint32{list(shape)}/axis{axis}".replace(" ", "")
        n = 1 if axis < 0 else shape[axis]

        def body(f, name=name, shape=shape, axis=axis, n=n):
            s, z = _uniform_params(axis, shape, 0)
            lo = np.linspace(-200, -50, n).astype(np.int32)
            hi = np.linspace(20, 300, n).astype(np.int32)
            if axis < 0:
                lo, hi = lo[0], hi[0]
            return [_plain(tf.raw_ops.UniformQuantizedClipByValue(
                operand=_q(f, "x", (data(name, np.float64, shape) * 300).astype(np.int32),
                           "qint32"),
                min=_q(f, "lo", lo, "qint32"), max=_q(f, "hi", hi, "qint32"),
                scales=_ph(f, "s", s), zero_points=_ph(f, "z", z, np.int32),
                quantization_axis=axis, quantization_min_val=-(2**31),
                quantization_max_val=2**31 - 1))]
        yield _case(name, ["UniformQuantizedClipByValue"], body)



def _uniform_dot():
    tf = _tf()
    for rhs_axis, out_axis in [(-1, -1), (1, -1), (1, 1)]:
        for lshape, rshape in [((3, 5), (5, 4)), ((0, 5), (5, 4))]:
            name = f"UniformQuantizedDot/qint8{list(lshape)}x{list(rshape)}/rhs{rhs_axis}_out{out_axis}"
            name = name.replace(" ", "")

            def body(f, name=name, lshape=lshape, rshape=rshape, ra=rhs_axis, oa=out_axis):
                r_s, r_z = _uniform_params(ra, rshape, 1)
                o_s, o_z = _uniform_params(oa, (lshape[0], rshape[1]), 2)
                return [_plain(tf.raw_ops.UniformQuantizedDot(
                    lhs=_q(f, "l", _qdata(name, "qint8", lshape), "qint8"),
                    rhs=_q(f, "r", _qdata(name + "/r", "qint8", rshape), "qint8"),
                    lhs_scales=_ph(f, "ls", 0.05), lhs_zero_points=_ph(f, "lz", 2, np.int32),
                    rhs_scales=_ph(f, "rs", r_s), rhs_zero_points=_ph(f, "rz", r_z, np.int32),
                    output_scales=_ph(f, "os", o_s), output_zero_points=_ph(f, "oz", o_z, np.int32),
                    Tout=tf.qint32, lhs_quantization_min_val=-128, lhs_quantization_max_val=127,
                    rhs_quantization_axis=ra, rhs_quantization_min_val=-128,
                    rhs_quantization_max_val=127, output_quantization_axis=oa,
                    output_quantization_min_val=-5000, output_quantization_max_val=5000))]
            yield _case(name, ["UniformQuantizedDot"], body)
            hname = name.replace("UniformQuantizedDot/qint8", "UniformQuantizedDotHybrid/f32")
            if out_axis == 1:
                continue

            def hbody(f, name=hname, lshape=lshape, rshape=rshape, ra=rhs_axis):
                r_s, r_z = _uniform_params(ra, rshape, 1)
                x = data(name, np.float32, lshape) * 3
                if lshape[0]:
                    x[0] = np.abs(x[0])  # a row without negatives
                return [tf.raw_ops.UniformQuantizedDotHybrid(
                    lhs=_ph(f, "l", x),
                    rhs=_q(f, "r", _qdata(name + "/r", "qint8", rshape), "qint8"),
                    rhs_scales=_ph(f, "rs", r_s), rhs_zero_points=_ph(f, "rz", r_z, np.int32),
                    Tout=tf.float32, rhs_quantization_axis=ra, rhs_quantization_min_val=-128,
                    rhs_quantization_max_val=127)]
            yield _case(hname, ["UniformQuantizedDotHybrid"], hbody)



def _quantized_batch_norm():
    tf = _tf()
    for scale_after in [True, False]:
        for shape in [(2, 3, 2, 4), (0, 2, 2, 4)]:
            name = (f"QuantizedBatchNormWithGlobalNormalization/quint8{list(shape)}/"
                    f"scale{int(scale_after)}").replace(" ", "")

            def body(f, name=name, shape=shape, scale_after=scale_after):
                args = {}
                for key, shp, lo, hi in [("t", shape, -2.0, 3.0), ("m", (4,), -1.0, 1.0),
                                         ("v", (4,), 0.0, 4.0), ("beta", (4,), -0.5, 0.5),
                                         ("gamma", (4,), 0.0, 2.0)]:
                    args[key] = _q(f, key, _qdata(f"{name}/{key}", "quint8", shp), "quint8")
                    args[key + "_min"] = _ph(f, key + "_lo", lo)
                    args[key + "_max"] = _ph(f, key + "_hi", hi)
                return _fetch_q(tf.raw_ops.QuantizedBatchNormWithGlobalNormalization(
                    out_type=tf.qint32, variance_epsilon=0.001,
                    scale_after_normalization=scale_after, **args))
            yield _case(name, ["QuantizedBatchNormWithGlobalNormalization"], body)



def _quantized_resize():
    tf = _tf()
    for dtype in ["quint8", "float32"]:
        for size, ac, hp in [((5, 7), False, False), ((5, 7), True, False), ((5, 7), False, True),
                             ((2, 3), False, True), ((3, 4), False, False)]:
            name = (f"QuantizedResizeBilinear/{dtype}[2,3,4,3]->{list(size)}/"
                    f"ac{int(ac)}_hp{int(hp)}").replace(" ", "")

            def body(f, name=name, dtype=dtype, size=size, ac=ac, hp=hp):
                if dtype == "float32":
                    x = _ph(f, "x", data(name, np.float32, (2, 3, 4, 3)))
                else:
                    x = _q(f, "x", _qdata(name, dtype, (2, 3, 4, 3)), dtype)
                outs = tf.raw_ops.QuantizedResizeBilinear(
                    images=x, size=tf.constant(size, tf.int32), min=_ph(f, "a", -1.0),
                    max=_ph(f, "b", 2.0), align_corners=ac, half_pixel_centers=hp)
                return _fetch_q(outs) if dtype != "float32" else list(outs)
            yield _case(name, ["QuantizedResizeBilinear"], body)



def _quantized_instance_norm():
    tf = _tf()
    for shape, given in [((2, 4, 5, 3), False), ((1, 3, 3, 8), False), ((2, 4, 5, 3), True),
                         ((2, 9, 7, 16), False)]:
        name = f"QuantizedInstanceNorm/quint8{list(shape)}/given{int(given)}".replace(" ", "")
        yield _case(name, ["QuantizedInstanceNorm"], lambda f, name=name, shape=shape,
                    given=given: _fetch_q(tf.raw_ops.QuantizedInstanceNorm(
                        x=_q(f, "x", _qdata(name, "quint8", shape), "quint8"),
                        x_min=_ph(f, "a", -1.0), x_max=_ph(f, "b", 3.0),
                        output_range_given=given, given_y_min=-2.0, given_y_max=2.5)))


def cases():
    yield from _fake_quant_args()
    yield from _fake_quant_vars()
    yield from _fake_quant_per_channel()
    yield from _qdq_v2_v4()
    yield from _qdq_v3()
    yield from _qdq_v1()
    yield from _qdq_v4_grad()
    yield from _requantize()
    yield from _ranges()
    yield from _per_channel()
    yield from _quantized_nn()
    yield from _quantized_conv()
    yield from _quantized_binary()
    yield from _quantized_concat()
    yield from _uniform()
    yield from _uniform_add_clip()
    yield from _uniform_dot()
    yield from _quantized_batch_norm()
    yield from _quantized_resize()
    yield from _quantized_instance_norm()
