"""Image resize ops beyond bilinear/nearest/bicubic and the resize gradients
(ResizeArea, ScaleAndTranslate(+Grad), Resize{Bilinear,NearestNeighbor,
Bicubic}Grad)."""
import numpy as np

from op_case import OpCase, data

_REAL = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64,
         np.float16, np.float32, np.float64, "bfloat16")
_KERNELS = ("lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle",
            "keyscubic", "mitchellcubic")


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _np_dtype(dtype):
    if dtype == "bfloat16":
        return _tf().bfloat16.as_numpy_dtype
    return np.dtype(dtype)


def _name(op, dtype, shape, variant=""):
    dname = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    base = f"{op}/{dname}{list(shape)}".replace(" ", "")
    return base + (f"/{variant}" if variant else "")


def _image(name, dtype, shape):
    """Pixel values: small integers for integer types, [-3, 3] floats."""
    dt = _np_dtype(dtype)
    if np.dtype(dt).kind in "iu":
        return data(name, dt, shape, "pos")
    return data(name, np.float32, shape, "small").astype(dt)


def _input(dtype, shape, name):
    """A placeholder of `dtype`; bfloat16 (which .npy feeds cannot carry) as a
    float32 placeholder cast in the graph. Returns (feed key, op input)."""
    tf = _tf()
    if dtype == "bfloat16":
        p = tf.compat.v1.placeholder(tf.float32, shape, name=name)
        return p, tf.cast(p, tf.bfloat16)
    p = tf.compat.v1.placeholder(_np_dtype(dtype), shape, name=name)
    return p, p


def _feed(dtype, value):
    return value.astype(np.float32) if dtype == "bfloat16" else value


def _fetch(y):
    tf = _tf()
    return tf.cast(y, tf.float32) if y.dtype == tf.bfloat16 else y


def _rtol(dtype):
    return 1e-2 if dtype in (np.float16, "bfloat16") else None


def _resize_area(dtype, shape, size, align=False, variant="", error=None):
    name = _name("ResizeArea", dtype, shape, variant)

    def build():
        tf = _tf()
        p, x = _input(dtype, None if error else shape, "x")
        y = tf.raw_ops.ResizeArea(images=x, size=size, align_corners=align, name="y")
        return [y], {p: _feed(dtype, _image(name, dtype, shape))}
    return OpCase(name, ["ResizeArea"], build, rtol=_rtol(dtype), expect_error=error)


def _scale_translate(dtype, shape, size, scale, shift, kernel="lanczos3",
                     antialias=True, variant="", error=None):
    name = _name("ScaleAndTranslate", dtype, shape, variant)

    def build():
        tf = _tf()
        p, x = _input(dtype, None if error else shape, "x")
        y = tf.raw_ops.ScaleAndTranslate(
            images=x, size=size, scale=np.array(scale, np.float32),
            translation=np.array(shift, np.float32), kernel_type=kernel,
            antialias=antialias, name="y")
        return [y], {p: _feed(dtype, _image(name, dtype, shape))}
    return OpCase(name, ["ScaleAndTranslate"], build, rtol=_rtol(dtype),
                  atol=1e-5, expect_error=error)


def _scale_translate_grad(grad_shape, orig_shape, scale, shift, kernel,
                          antialias=True, variant=""):
    name = _name("ScaleAndTranslateGrad", np.float32, grad_shape, variant)

    def build():
        tf = _tf()
        g = tf.compat.v1.placeholder(tf.float32, grad_shape, name="g")
        o = tf.compat.v1.placeholder(tf.float32, orig_shape, name="o")
        y = tf.raw_ops.ScaleAndTranslateGrad(
            grads=g, original_image=o, scale=np.array(scale, np.float32),
            translation=np.array(shift, np.float32), kernel_type=kernel,
            antialias=antialias, name="y")
        return [y], {g: data(name + "/g", np.float32, grad_shape),
                     o: data(name + "/o", np.float32, orig_shape)}
    return OpCase(name, ["ScaleAndTranslateGrad"], build, atol=1e-5)


def _resize_grad(op, dtype, grad_shape, orig_shape, align=False, half=False,
                 variant="", error=None):
    name = _name(op, dtype, grad_shape, variant)

    def build():
        tf = _tf()
        g = tf.compat.v1.placeholder(tf.float32, grad_shape, name="g")
        p, o = _input(dtype, orig_shape, "o")
        y = getattr(tf.raw_ops, op)(grads=g, original_image=o, align_corners=align,
                                    half_pixel_centers=half, name="y")
        return [_fetch(y)], {g: data(name + "/g", np.float32, grad_shape),
                             p: _feed(dtype, np.zeros(orig_shape, _np_dtype(dtype)))}
    return OpCase(name, [op], build, rtol=_rtol(dtype), atol=1e-5, expect_error=error)


def _nearest_grad(dtype, shape, size, align=False, half=False, variant="", error=None):
    name = _name("ResizeNearestNeighborGrad", dtype, shape, variant)

    def build():
        tf = _tf()
        p, g = _input(dtype, shape, "g")
        y = tf.raw_ops.ResizeNearestNeighborGrad(
            grads=g, size=size, align_corners=align, half_pixel_centers=half, name="y")
        return [_fetch(y)], {p: _feed(dtype, _image(name, dtype, shape))}
    return OpCase(name, ["ResizeNearestNeighborGrad"], build, rtol=_rtol(dtype),
                  expect_error=error)


def _resize_cases():
    for dtype in _REAL:
        yield _resize_area(dtype, (2, 5, 7, 3), [3, 4])
        yield _scale_translate(dtype, (1, 6, 5, 2), [4, 9], [4 / 6, 9 / 5], [0, 0])
    yield _resize_area(np.float32, (1, 4, 6, 2), [7, 9], variant="up")
    yield _resize_area(np.float32, (1, 5, 5, 1), [3, 2], align=True, variant="align")
    yield _resize_area(np.float32, (0, 4, 4, 3), [2, 2], variant="empty")
    yield _resize_area(np.float32, (1, 4, 4, 3), [0, 2], variant="zero_size",
                       error="output dimensions must be positive")
    yield _resize_area(np.float32, (4, 4, 3), [2, 2], variant="rank3",
                       error="input must be 4-dimensional")
    for kernel in _KERNELS:
        for antialias in (True, False):
            v = f"{kernel}/{'aa' if antialias else 'noaa'}"
            yield _scale_translate(np.float32, (2, 9, 8, 3), [4, 5], [4 / 9, 5 / 8],
                                   [0, 0], kernel, antialias, variant=v + "/down")
            yield _scale_translate(np.float32, (1, 4, 5, 2), [9, 7], [9 / 4, 7 / 5],
                                   [0.5, -1.25], kernel, antialias, variant=v + "/up")
            yield _scale_translate_grad((2, 4, 5, 3), (2, 9, 8, 3), [4 / 9, 5 / 8],
                                        [0, 0], kernel, antialias, variant=v + "/down")
            yield _scale_translate_grad((1, 9, 7, 2), (1, 4, 5, 2), [9 / 4, 7 / 5],
                                        [0.5, -1.25], kernel, antialias, variant=v + "/up")
    yield _scale_translate(np.float32, (1, 4, 4, 1), [3, 3], [0, 1], [0, 0],
                           variant="zero_scale", error="Scale must be greater than zero")
    yield _scale_translate(np.float32, (1, 4, 4, 1), [3, 3], [1, 1], [0, 0],
                           kernel="cubic", variant="bad_kernel",
                           error="Unrecognized kernel type: cubic")
    yield _scale_translate(np.float32, (0, 4, 4, 1), [3, 3], [1, 1], [0, 0],
                           variant="empty")


def _grad_cases():
    for op, dtypes in [("ResizeBilinearGrad", (np.float32, np.float64, np.float16, "bfloat16")),
                       ("ResizeBicubicGrad", (np.float32, np.float64))]:
        for dtype in dtypes:
            yield _resize_grad(op, dtype, (2, 7, 9, 3), (2, 4, 5, 3))
        for align, half, v in [(True, False, "align"), (False, True, "half")]:
            yield _resize_grad(op, np.float32, (1, 7, 9, 2), (1, 4, 5, 2), align, half, v)
            yield _resize_grad(op, np.float32, (1, 3, 2, 2), (1, 6, 5, 2), align, half,
                               v + "/down")
        yield _resize_grad(op, np.float32, (0, 3, 3, 2), (0, 4, 4, 2), variant="empty")
        yield _resize_grad(op, np.float32, (1, 3, 3, 2), (1, 4, 4, 2), True, True,
                           "both", error="If half_pixel_centers is True, align_corners")
        yield _resize_grad(op, np.float32, (1, 3, 3, 2), (1, 0, 4, 2), variant="zero_orig",
                           error="original dimensions must be positive")
    for dtype in (np.uint8, np.int8, np.int32, np.float16, np.float32, np.float64, "bfloat16"):
        yield _nearest_grad(dtype, (2, 7, 9, 3), [4, 5])
    for align, half, v in [(True, False, "align"), (False, True, "half"), (True, True, "both")]:
        yield _nearest_grad(np.float32, (1, 7, 9, 2), [4, 5], align, half, v)
        yield _nearest_grad(np.float32, (1, 3, 2, 2), [6, 5], align, half, v + "/down")
    yield _nearest_grad(np.float32, (1, 3, 3, 1), [0, 2], variant="zero",
                        error="shape_t's elements must be positive")


def cases():
    yield from _resize_cases()
    yield from _grad_cases()


# ---- FFTs and complex element ops ------------------------------------------
# The oracle compares complex fetches exactly, so complex results are fetched
# as Real and Imag (float, compared within tolerance); complex inputs are
# built from two float placeholders with Complex.

_CPLX = {np.complex64: np.float32, np.complex128: np.float64}


def _tol(real_dtype):
    return (1e-5, 1e-5) if real_dtype == np.float32 else (1e-10, 1e-10)


def _complex_input(name, cdtype, shape, known=True):
    tf = _tf()
    rdt = _CPLX[cdtype]
    re = tf.compat.v1.placeholder(rdt, shape if known else None, name="re")
    im = tf.compat.v1.placeholder(rdt, shape if known else None, name="im")
    x = tf.raw_ops.Complex(real=re, imag=im, Tout=cdtype)
    return x, {re: data(name + "/re", rdt, shape), im: data(name + "/im", rdt, shape)}


def _split(y):
    tf = _tf()
    if y.dtype.is_complex:
        return [tf.raw_ops.Real(input=y, Tout=y.dtype.real_dtype),
                tf.raw_ops.Imag(input=y, Tout=y.dtype.real_dtype)]
    return [y]


def _fft(op, cdtype, shape, fft_length=None, variant="", error=None):
    real_in = op.startswith("RFFT")
    name = _name(op, cdtype, shape, variant)
    rdt = _CPLX[cdtype]
    rtol, atol = _tol(rdt)
    ops = [op] + (["Real", "Imag"] if not op.startswith("IRFFT") else []) + \
        (["Complex"] if not real_in else [])

    def build():
        tf = _tf()
        if real_in:
            x = tf.compat.v1.placeholder(rdt, None if error else shape, name="x")
            feeds = {x: data(name, rdt, shape)}
        else:
            x, feeds = _complex_input(name, cdtype, shape, known=not error)
        kwargs = {}
        if fft_length is not None:
            kwargs["fft_length"] = np.array(fft_length, np.int32)
            kwargs["Treal" if op.startswith("IRFFT") else "Tcomplex"] = \
                rdt if op.startswith("IRFFT") else cdtype
        y = getattr(tf.raw_ops, op)(input=x, name="y", **kwargs)
        return _split(y), feeds
    return OpCase(name, ops, build, rtol=rtol, atol=atol, expect_error=error)


def _complex_part(op, cdtype, shape):
    name = _name(op, cdtype, shape)
    rdt = _CPLX[cdtype]

    def build():
        tf = _tf()
        x, feeds = _complex_input(name, cdtype, shape)
        if op == "Conj":
            y = tf.raw_ops.Conj(input=x, name="y")
        elif op == "ComplexAbs":
            y = tf.raw_ops.ComplexAbs(x=x, Tout=rdt, name="y")
        else:
            y = getattr(tf.raw_ops, op)(input=x, Tout=rdt, name="y")
        return _split(y), feeds
    return OpCase(name, [op, "Complex"], build)


def _complex_bcast(rdt):
    name = _name("Complex", rdt, (2, 3), "bcast")

    def build():
        tf = _tf()
        re = tf.compat.v1.placeholder(rdt, (2, 3), name="re")
        im = tf.compat.v1.placeholder(rdt, (3,), name="im")
        y = tf.raw_ops.Complex(real=re, imag=im,
                               Tout=tf.complex64 if rdt == np.float32 else tf.complex128)
        return _split(y), {re: data(name + "/re", rdt, (2, 3)), im: data(name + "/im", rdt, (3,))}
    return OpCase(name, ["Complex", "Real", "Imag"], build)


def _fft_cases():
    for cdtype in (np.complex64, np.complex128):
        for op in ("FFT", "IFFT"):
            for shape in [(3, 8), (2, 7), (12,), (0, 4)]:
                yield _fft(op, cdtype, shape)
            yield _fft(op + "2D", cdtype, (2, 4, 6))
            yield _fft(op + "2D", cdtype, (5, 3))
            yield _fft(op + "3D", cdtype, (2, 3, 4, 5))
        for suffix, shape, lengths in [("", (3, 10), [[10], [8], [7]]),
                                       ("2D", (2, 6, 8), [[6, 8], [5, 7]]),
                                       ("3D", (2, 4, 5, 6), [[4, 5, 6], [3, 4, 5]])]:
            for length in lengths:
                v = "len" + "x".join(map(str, length))
                yield _fft("RFFT" + suffix, cdtype, shape, length, v)
            half = list(shape[:-1]) + [shape[-1] // 2 + 1]
            for length in lengths:
                if all(h >= n for h, n in zip(half[len(half) - len(length):-1], length[:-1])) \
                        and half[-1] >= length[-1] // 2 + 1:
                    v = "len" + "x".join(map(str, length))
                    yield _fft("IRFFT" + suffix, cdtype, tuple(half[:-1]) + (half[-1] + 1,),
                               length, v)
        yield _fft("RFFT", cdtype, (3, 4), [8], "short", error="must have length of at least 8")
        yield _fft("IRFFT", cdtype, (3, 4), [10], "short",
                   error="must have length of at least 6")
        yield _fft("RFFT", cdtype, (0, 4), [4], "empty")
        yield _fft("FFT2D", cdtype, (4,), variant="rank1",
                   error="Input must have rank of at least 2")
        for op in ("Real", "Imag", "Angle", "ComplexAbs", "Conj"):
            yield _complex_part(op, cdtype, (3, 5))
            yield _complex_part(op, cdtype, (0, 2))
    for rdt in (np.float32, np.float64):
        yield _complex_bcast(rdt)


_prev_cases = cases


def cases():  # noqa: F811
    yield from _prev_cases()
    yield from _fft_cases()


# ---- Colour ops and bounding boxes -----------------------------------------

def _color(op, dtype, shape, arg=None, variant="", error=None, domain="unit"):
    name = _name(op, dtype, shape, variant)

    def build():
        tf = _tf()
        p, x = _input(dtype, None if error else shape, "x")
        v = data(name, np.float32, shape, domain)
        if op in ("RGBToHSV", "HSVToRGB") and not error:
            v = np.abs(v)  # colours and HSV triples in [0, 1)
        kwargs = {}
        if op == "AdjustHue":
            kwargs["delta"] = np.float32(arg)
        elif op == "AdjustSaturation":
            kwargs["scale"] = np.float32(arg)
        elif op == "AdjustContrastv2":
            kwargs["contrast_factor"] = np.float32(arg)
        y = getattr(tf.raw_ops, op)(images=x, name="y", **kwargs)
        return [_fetch(y)], {p: _feed(dtype, v.astype(_np_dtype(dtype)))}
    return OpCase(name, [op], build, rtol=_rtol(dtype), atol=1e-6 if not _rtol(dtype) else 1e-2,
                  expect_error=error)


def _draw(dtype, shape, boxes, colors=None, variant="", error=None):
    op = "DrawBoundingBoxes" if colors is None else "DrawBoundingBoxesV2"
    name = _name(op, dtype, shape, variant)

    def build():
        tf = _tf()
        p, x = _input(dtype, None if error else shape, "x")
        b = np.array(boxes, np.float32)
        if colors is None:
            y = tf.raw_ops.DrawBoundingBoxes(images=x, boxes=b, name="y")
        else:
            y = tf.raw_ops.DrawBoundingBoxesV2(images=x, boxes=b,
                                               colors=np.array(colors, np.float32), name="y")
        return [y], {p: _feed(dtype, data(name, np.float32, shape, "unit").astype(_np_dtype(dtype)))}
    return OpCase(name, [op], build, expect_error=error)


def _color_cases():
    for op in ("RGBToHSV", "HSVToRGB"):
        for dtype in (np.float32, np.float64, np.float16, "bfloat16"):
            yield _color(op, dtype, (2, 4, 5, 3))
        yield _color(op, np.float32, (7, 3), variant="rank2")
        yield _color(op, np.float32, (0, 3), variant="empty")
        yield _color(op, np.float32, (4, 2), variant="two_channels",
                     error="input must have 3 channels but input only has 2 channels")
    for delta in (0.2, -0.7, 1.4):
        yield _color("AdjustHue", np.float32, (2, 4, 5, 3), delta, variant=f"d{delta}")
    for scale in (0.3, 1.7):
        yield _color("AdjustSaturation", np.float32, (2, 4, 5, 3), scale, variant=f"s{scale}")
    for op in ("AdjustHue", "AdjustSaturation"):
        yield _color(op, np.float32, (0, 4, 3), 0.5, variant="empty")
        yield _color(op, np.float32, (4, 3), 0.5, variant="rank2",
                     error="input must be at least 3-D")
        yield _color(op, np.float32, (2, 4, 2), 0.5, variant="two_channels",
                     error="input must have 3 channels but instead has 2 channels")
    for factor, shape in [(1.8, (2, 5, 7, 3)), (0.4, (3, 3, 2)), (2.0, (1, 33, 17, 5))]:
        yield _color("AdjustContrastv2", np.float32, shape, factor, variant=f"f{factor}",
                     domain="any")
    yield _color("AdjustContrastv2", np.float32, (0, 4, 4, 3), 1.5, variant="empty")
    yield _color("AdjustContrastv2", np.float32, (4, 3), 1.5, variant="rank2",
                 error="input must be at least 3-D")
    boxes = [[[0.1, 0.2, 0.6, 0.9], [0.5, -0.2, 1.3, 0.5], [0.7, 0.7, 0.2, 0.9]],
             [[0.0, 0.0, 1.0, 1.0], [1.5, 0.1, 2.0, 0.2], [0.3, 0.3, 0.3, 0.3]]]
    for depth in (1, 3, 4):
        for dtype in (np.float32, np.float16):
            yield _draw(dtype, (2, 8, 9, depth), boxes)
        yield _draw(np.float32, (2, 8, 9, depth), boxes,
                    [[0.1, 0.2, 0.3, 0.4], [0.9, 0.8, 0.7, 0.6]], variant="colors")
    yield _draw(np.float32, (2, 8, 9, 3), boxes, np.zeros((0, 3)), variant="no_colors")
    yield _draw(np.float32, (2, 8, 9, 2), boxes, variant="depth2",
                error="Channel depth should be either 1")
    yield _draw(np.float32, (1, 8, 9, 3), boxes, variant="batch",
                error="The batch sizes should be the same")


_prev_cases2 = cases


def cases():  # noqa: F811
    yield from _prev_cases2()
    yield from _color_cases()


# ---- Image codecs ------------------------------------------------------------
# Encoded inputs are made by TensorFlow in a graph of their own and put into
# the case's graph as string constants.

def _smooth_image(name, shape, dtype=np.uint8):
    """A smooth gradient with some noise: what JPEG is made for."""
    h, w, c = shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    base = np.stack([(x * 7 + y * 3 + 40 * k) % 256 for k in range(c)], axis=-1)
    noise = data(name + "/noise", np.float64, shape, "small") * 6
    top = 65535 if dtype == np.uint16 else 255
    return np.clip(base * (top / 255) + noise * (top / 255), 0, top).astype(dtype)


def _encoded(kind, image, **kwargs):
    tf = _tf()
    with tf.Graph().as_default():
        op = tf.io.encode_jpeg if kind == "jpeg" else tf.io.encode_png
        with tf.compat.v1.Session() as sess:
            return sess.run(op(tf.constant(image), **kwargs))


def _decode(op, contents, variant, error=None, fetch=None, **attrs):
    name = f"{op}/{variant}"

    def build():
        tf = _tf()
        c = tf.constant(contents, dtype=tf.string)
        args = dict(attrs)
        crop = args.pop("crop_window", None)
        if crop is not None:
            y = tf.raw_ops.DecodeAndCropJpeg(contents=c, crop_window=np.array(crop, np.int32),
                                             name="y", **args)
        else:
            y = getattr(tf.raw_ops, op)(contents=c, name="y", **args)
        return [fetch(y) if fetch else y], {}
    return OpCase(name, [op], build, expect_error=error)


def _encode(op, image, variant, roundtrip=False, error=None, **attrs):
    name = f"{op}/{variant}"

    def build():
        tf = _tf()
        x = tf.compat.v1.placeholder(image.dtype, image.shape, name="x")
        y = getattr(tf.raw_ops, op)(image=x, name="y", **attrs)
        if roundtrip:
            back = tf.raw_ops.DecodeImage(contents=y, channels=image.shape[-1],
                                          dtype=tf.as_dtype(image.dtype))
            return [back], {x: image}
        return [y], {x: image}
    return OpCase(name, [op], build, expect_error=error)


def _bmp(image, top_down=False):
    """An uncompressed BMP of a [h, w, c] uint8 image (c = 1, 3 or 4)."""
    import struct  # pylint: disable=import-outside-toplevel
    h, w, c = image.shape
    row = (w * c + 3) // 4 * 4
    body = bytearray()
    order = [0] if c == 1 else ([2, 1, 0] if c == 3 else [2, 1, 0, 3])
    for y in (range(h) if top_down else range(h - 1, -1, -1)):
        line = image[y][:, order].tobytes()
        body += line + bytes(row - len(line))
    header = struct.pack("<2sIHHI", b"BM", 54 + len(body), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, 8 * c, 0,
                       len(body), 2835, 2835, 0, 0)
    return header + info + bytes(body)


def _codec_cases():
    rgb = _smooth_image("rgb", (37, 45, 3))
    gray = _smooth_image("gray", (20, 17, 1))
    jpeg = _encoded("jpeg", rgb, quality=90)
    jpeg444 = _encoded("jpeg", rgb, quality=80, chroma_downsampling=False)
    jpeg_gray = _encoded("jpeg", gray)
    jpeg_prog = _encoded("jpeg", rgb, progressive=True)
    for ch in (0, 1, 3):
        yield _decode("DecodeJpeg", jpeg, f"420/c{ch}", channels=ch)
        yield _decode("DecodeJpeg", jpeg_gray, f"gray/c{ch}", channels=ch)
    for ratio in (2, 4, 8):
        yield _decode("DecodeJpeg", jpeg, f"420/ratio{ratio}", ratio=ratio)
    yield _decode("DecodeJpeg", jpeg, "420/no_fancy", fancy_upscaling=False)
    yield _decode("DecodeJpeg", jpeg, "420/accurate", dct_method="INTEGER_ACCURATE")
    yield _decode("DecodeJpeg", jpeg444, "444", dct_method="INTEGER_FAST")
    yield _decode("DecodeJpeg", jpeg_prog, "progressive")
    yield _decode("DecodeJpeg", jpeg[: len(jpeg) * 2 // 3], "truncated/recover",
                  try_recover_truncated=True)
    yield _decode("DecodeJpeg", jpeg[: len(jpeg) * 2 // 3], "truncated/fraction",
                  acceptable_fraction=0.2)
    yield _decode("DecodeJpeg", jpeg[: len(jpeg) * 2 // 3], "truncated",
                  error="Invalid JPEG data or crop window")
    yield _decode("DecodeJpeg", jpeg, "c4", channels=4, error="JPEG does not support 4 channels")
    yield _decode("DecodeJpeg", b"not an image", "unknown",
                  error="Unknown image file format")
    for window in ([0, 0, 37, 45], [3, 5, 20, 17], [10, 9, 1, 30], [16, 16, 8, 8]):
        v = "x".join(map(str, window))
        yield _decode("DecodeAndCropJpeg", jpeg, f"crop{v}", crop_window=window)
    yield _decode("DecodeAndCropJpeg", jpeg444, "444/crop", crop_window=[4, 3, 30, 21])
    yield _decode("DecodeAndCropJpeg", jpeg, "bad_window", crop_window=[30, 0, 10, 10],
                  error="Invalid JPEG data or crop window")
    for out in ("int32", "int64"):
        yield _decode("ExtractJpegShape", jpeg, out, output_type=out)
    yield _decode("ExtractJpegShape", jpeg_gray, "gray")
    rgba = _smooth_image("rgba", (13, 11, 4))
    rgb16 = _smooth_image("rgb16", (9, 14, 3), np.uint16)
    pngs = {"rgb": _encoded("png", rgb), "gray": _encoded("png", gray),
            "rgba": _encoded("png", rgba), "rgb16": _encoded("png", rgb16)}
    for kind, contents in pngs.items():
        for ch in (0, 1, 3, 4):
            yield _decode("DecodePng", contents, f"{kind}/c{ch}", channels=ch)
        yield _decode("DecodePng", contents, f"{kind}/u16", dtype="uint16")
    yield _decode("DecodePng", pngs["rgb"][:200], "truncated", error="Invalid PNG")
    for kind, contents in [("png", pngs["rgba"]), ("png16", pngs["rgb16"]), ("jpeg", jpeg)]:
        for dtype in ("uint8", "uint16", "float32"):
            yield _decode("DecodeImage", contents, f"{kind}/{dtype}", dtype=dtype)
        yield _decode("DecodeImage", contents, f"{kind}/c1", channels=1)
    bmps = {"rgb": _bmp(_smooth_image("bmp3", (5, 7, 3))),
            "rgba": _bmp(_smooth_image("bmp4", (6, 3, 4))),
            "topdown": _bmp(_smooth_image("bmp3t", (4, 9, 3)), top_down=True)}
    for kind, contents in bmps.items():
        yield _decode("DecodeBmp", contents, kind)
        # (TensorFlow sizes its conversion buffer by the signed height, so a
        # top-down BMP as float aborts it: bottom-up ones only.)
        if kind != "topdown":
            yield _decode("DecodeImage", contents, f"bmp/{kind}/float32", dtype="float32")
    yield _decode("DecodeBmp", bmps["rgb"], "c4", channels=4)
    yield _decode("DecodeBmp", bmps["rgba"], "c3", channels=3)
    yield _decode("DecodeBmp", _bmp(_smooth_image("bmp1", (3, 6, 1))), "gray")
    yield _decode("DecodeBmp", _bmp(_smooth_image("bmp1", (3, 6, 1))), "gray/c3", channels=3)
    yield _decode("DecodeBmp", bmps["rgb"], "c1", channels=1,
                  error="`channels` must be 0, 3 or 4 for BMP, but got 1")
    yield _decode("DecodeBmp", bmps["rgb"][:60], "truncated",
                  error="Input size should match \\(header_size")
    yield _decode("DecodePng", bmps["rgb"], "bmp", error="Trying to decode BMP format")
    for name, image in [("rgb", rgb), ("gray", gray), ("rgba", rgba), ("rgb16", rgb16)]:
        yield _encode("EncodePng", image, name)
        yield _encode("EncodePng", image, name + "/roundtrip", roundtrip=True)
    yield _encode("EncodePng", rgb, "level9", compression=9)
    yield _encode("EncodePng", rgb, "level0", compression=0)
    for variant, attrs in [("default", {}), ("q50", {"quality": 50}),
                           ("progressive", {"progressive": True}),
                           ("optimize", {"optimize_size": True}),
                           ("444", {"chroma_downsampling": False}),
                           ("cm", {"density_unit": "cm", "x_density": 72, "y_density": 96}),
                           ("xmp", {"xmp_metadata": "<x:xmpmeta>dfg</x:xmpmeta>"}),
                           ("rgb", {"format": "rgb"})]:
        yield _encode("EncodeJpeg", rgb, variant, **attrs)
    yield _encode("EncodeJpeg", gray, "gray")
    yield _encode("EncodeJpeg", gray, "gray_as_rgb", format="rgb",
                  error="format rgb expects 3 channels")
    yield _encode("EncodeJpeg", rgba, "rgba", error="image must have 1 or 3 channels")


_prev_cases3 = cases


def cases():  # noqa: F811
    yield from _prev_cases3()
    yield from _codec_cases()


# ---- NonMaxSuppression V1, V2, WithOverlaps ----------------------------------

def _boxes(name, n):
    corners = data(name + "/c", np.float32, (n, 2), "unit")
    sizes = np.abs(data(name + "/s", np.float32, (n, 2), "unit")) + 0.05
    boxes = np.concatenate([corners, corners + sizes], axis=1)
    boxes[::5] = boxes[::5][:, [2, 3, 0, 1]]  # some with flipped corners
    return boxes


def _nms(op, n, max_out, threshold, dtype=np.float32, variant="", error=None,
         score_threshold=0.0, shapes=None):
    name = _name(op, dtype, (n, 4), variant)

    def build():
        tf = _tf()
        boxes = _boxes(name, n)
        scores = np.round(np.abs(data(name + "/sc", np.float32, (n,), "unit")), 1)
        overlaps = op == "NonMaxSuppressionWithOverlaps"
        bshape, sshape = shapes or (((n, n) if overlaps else (n, 4)), (n,))
        b = tf.compat.v1.placeholder(dtype if op != "NonMaxSuppressionWithOverlaps" else np.float32,
                                     None if error else bshape, name="b")
        s = tf.compat.v1.placeholder(dtype, None if error else sshape, name="s")
        if op == "NonMaxSuppression":
            y = tf.raw_ops.NonMaxSuppression(boxes=b, scores=s, max_output_size=max_out,
                                             iou_threshold=threshold, name="y")
        elif op == "NonMaxSuppressionV2":
            y = tf.raw_ops.NonMaxSuppressionV2(boxes=b, scores=s, max_output_size=max_out,
                                               iou_threshold=np.array(threshold, dtype),
                                               name="y")
        else:
            y = tf.raw_ops.NonMaxSuppressionWithOverlaps(
                overlaps=b, scores=s, max_output_size=max_out,
                overlap_threshold=np.float32(threshold),
                score_threshold=np.float32(score_threshold), name="y")
            ov = np.abs(data(name + "/ov", np.float32, (n, n), "unit"))
            boxes = (ov + ov.T) / 2
        feed_b = boxes if shapes is None else np.zeros(bshape, np.float32)
        feed_s = scores if shapes is None else np.zeros(sshape, np.float32)
        return [y], {b: feed_b.astype(b.dtype.as_numpy_dtype),
                     s: feed_s.astype(dtype)}
    return OpCase(name, [op], build, expect_error=error)


def _nms_cases():
    for op in ("NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionWithOverlaps"):
        for max_out, thr in [(5, 0.5), (20, 0.3), (0, 0.5), (20, 1.0)]:
            yield _nms(op, 12, max_out, thr, variant=f"max{max_out}/t{thr}")
        yield _nms(op, 0, 5, 0.5, variant="empty")
    yield _nms("NonMaxSuppressionV2", 12, 6, 0.4, np.float16, variant="t0.4")
    yield _nms("NonMaxSuppressionWithOverlaps", 12, 20, 0.5, variant="score0.3",
               score_threshold=0.3)
    yield _nms("NonMaxSuppression", 12, 5, 1.5, variant="bad_iou",
               error="iou_threshold must be in \\[0, 1\\]")
    yield _nms("NonMaxSuppressionV2", 12, 5, 0.5, variant="scores_mismatch",
               shapes=((12, 4), (11,)), error="scores has incompatible shape")
    yield _nms("NonMaxSuppressionV2", 12, 5, 0.5, variant="boxes_cols",
               shapes=((12, 3), (12,)), error="boxes must have 4 columns")
    yield _nms("NonMaxSuppressionWithOverlaps", 12, 5, 0.5, variant="not_square",
               shapes=((12, 11), (12,)), error="overlaps must be square")


_prev_cases4 = cases


def cases():  # noqa: F811
    yield from _prev_cases4()
    yield from _nms_cases()


# ---- ImageProjectiveTransform, CropAndResize gradients -------------------------

_TRANSFORMS = np.array([[0.9, -0.3, 1.2, 0.25, 1.1, -0.8, 0.01, -0.02],
                        [1.0, 0.0, -2.5, 0.0, 1.0, 3.0, 0.0, 0.0],
                        [-1.0, 0.0, 6.0, 0.0, 1.2, -4.0, 0.0, 0.0]], np.float32)


def _projective(op, dtype, interp, mode, out_hw=(7, 8), transforms=_TRANSFORMS,
                fill=0.5, variant="", error=None, shape=(3, 6, 7, 2)):
    name = _name(op, dtype, shape, variant or f"{interp}/{mode}")

    def build():
        tf = _tf()
        p, x = _input(dtype, None if error else shape, "x")
        kwargs = dict(images=x, transforms=transforms, output_shape=np.array(out_hw, np.int32),
                      interpolation=interp, fill_mode=mode, name="y")
        if op == "ImageProjectiveTransformV3":
            kwargs["fill_value"] = np.float32(fill)
        y = getattr(tf.raw_ops, op)(**kwargs)
        return [_fetch(y)], {p: _feed(dtype, _image(name, dtype, shape))}
    return OpCase(name, [op], build, rtol=_rtol(dtype), expect_error=error)


_CROP_BOXES = np.array([[0.1, 0.2, 0.7, 0.9], [-0.2, 0.3, 0.5, 1.2], [0.5, 0.5, 0.5, 0.5],
                        [0.9, 0.8, 0.2, 0.1]], np.float32)


def _crop_grad(op, dtype, crop=(4, 5), method="bilinear", variant="", error=None,
               box_ind=(0, 1, 1, 0)):
    name = _name(op, dtype, (4,) + tuple(crop), variant or method)
    image_shape = (2, 6, 7, 3)

    def build():
        tf = _tf()
        g = tf.compat.v1.placeholder(tf.float32, (4,) + tuple(crop) + (3,), name="g")
        feeds = {g: data(name + "/g", np.float32, (4,) + tuple(crop) + (3,))}
        bi = np.array(box_ind, np.int32)
        if op == "CropAndResizeGradImage":
            y = tf.raw_ops.CropAndResizeGradImage(
                grads=g, boxes=_CROP_BOXES, box_ind=bi,
                image_size=np.array(image_shape, np.int32), T=dtype, method=method, name="y")
        else:
            p, img = _input(dtype, image_shape, "img")
            feeds[p] = _feed(dtype, _image(name + "/img", dtype, image_shape))
            y = tf.raw_ops.CropAndResizeGradBoxes(grads=g, image=img, boxes=_CROP_BOXES,
                                                  box_ind=bi, method=method, name="y")
        return [_fetch(y)], feeds
    return OpCase(name, [op], build, rtol=_rtol(dtype) or 1e-5, atol=1e-4,
                  expect_error=error)


def _transform_cases():
    for op in ("ImageProjectiveTransformV2", "ImageProjectiveTransformV3"):
        for interp in ("NEAREST", "BILINEAR"):
            for mode in ("REFLECT", "WRAP", "CONSTANT", "NEAREST"):
                yield _projective(op, np.float32, interp, mode)
        for dtype in (np.uint8, np.int32, np.int64, np.float16, np.float64, "bfloat16"):
            yield _projective(op, dtype, "BILINEAR", "CONSTANT")
        yield _projective(op, np.float32, "BILINEAR", "REFLECT", transforms=_TRANSFORMS[:1],
                          variant="shared", out_hw=(5, 11))
        yield _projective(op, np.float32, "NEAREST", "CONSTANT", variant="bad_transform",
                          transforms=_TRANSFORMS[:2],
                          error="Input transform should be num_images x 8 or 1 x 8")
    for dtype in (np.float32, np.float64, np.float16):
        for method in ("bilinear", "nearest"):
            yield _crop_grad("CropAndResizeGradImage", dtype, method=method)
    yield _crop_grad("CropAndResizeGradImage", np.float32, crop=(1, 1), variant="1x1")
    yield _crop_grad("CropAndResizeGradImage", np.float32, variant="bad_index",
                     box_ind=(0, 2, 1, 0), error="box_index has values outside")
    for dtype in (np.uint8, np.uint16, np.int8, np.int16, np.int32, np.int64, np.float16,
                  np.float32, np.float64):
        yield _crop_grad("CropAndResizeGradBoxes", dtype)
    yield _crop_grad("CropAndResizeGradBoxes", np.float32, crop=(1, 1), variant="1x1")


_prev_cases5 = cases


def cases():  # noqa: F811
    yield from _prev_cases5()
    yield from _transform_cases()


# ---- Activation gradients, FusedBatchNormGrad ---------------------------------

def _act_grad(op, dtype, shape=(3, 5), variant="", error=None, **attrs):
    name = _name(op, dtype, shape, variant)

    def build():
        tf = _tf()
        pg, g = _input(dtype, None if error else shape, "g")
        pa, a = _input(dtype, None, "a")
        second = "outputs" if op in ("EluGrad", "SeluGrad") else "features"
        y = getattr(tf.raw_ops, op)(gradients=g, name="y", **{second: a}, **attrs)
        a_shape = (2, 5) if error else shape
        a_val = data(name + "/a", np.float32, a_shape, "small")
        if op == "EluGrad":
            a_val = np.maximum(a_val, -0.99)
        return [_fetch(y)], {pg: _feed(dtype, data(name + "/g", np.float32, shape)
                                       .astype(_np_dtype(dtype))),
                             pa: _feed(dtype, a_val.astype(_np_dtype(dtype)))}
    return OpCase(name, [op], build, rtol=_rtol(dtype), atol=1e-3 if _rtol(dtype) else None,
                  expect_error=error)


def _lrn_grad(dtype, variant, shape=(2, 3, 4, 7), **attrs):
    name = _name("LRNGrad", dtype, shape, variant)

    def build():
        tf = _tf()
        px, x = _input(dtype, shape, "x")
        pg, g = _input(dtype, shape, "g")
        fwd = tf.raw_ops.LRN(input=x, **attrs)
        y = tf.raw_ops.LRNGrad(input_grads=g, input_image=x, output_image=fwd, name="y", **attrs)
        return [y], {px: data(name + "/x", np.float32, shape).astype(_np_dtype(dtype)),
                     pg: data(name + "/g", np.float32, shape).astype(_np_dtype(dtype))}
    return OpCase(name, ["LRNGrad"], build, rtol=1e-4, atol=1e-5)


def _bn_grad(op, dtype, shape, fmt="NHWC", training=True, variant=""):
    name = _name(op, dtype, shape, variant or f"{fmt}/{'train' if training else 'infer'}")
    c = shape[1] if fmt.startswith("NC") else shape[-1]

    def build():
        tf = _tf()
        px, x = _input(dtype, shape, "x")
        pd, dy = _input(dtype, shape, "dy")
        scale = data(name + "/scale", np.float32, (c,), "pos")
        offset = data(name + "/offset", np.float32, (c,))
        feeds = {px: _feed(dtype, data(name + "/x", np.float32, shape).astype(_np_dtype(dtype))),
                 pd: _feed(dtype, data(name + "/dy", np.float32, shape).astype(_np_dtype(dtype)))}
        if training:
            fwd = tf.raw_ops.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=[], variance=[],
                                              epsilon=1e-3, data_format=fmt, is_training=True)
            r1, r2, r3 = fwd[3], fwd[4], fwd[5]
        else:
            r1 = tf.constant(data(name + "/mean", np.float32, (c,)))
            r2 = tf.constant(data(name + "/var", np.float32, (c,), "pos"))
            r3 = tf.constant(np.zeros((c,), np.float32))
        if op == "FusedBatchNormGradV3":
            outs = tf.raw_ops.FusedBatchNormGradV3(
                y_backprop=dy, x=x, scale=scale, reserve_space_1=r1, reserve_space_2=r2,
                reserve_space_3=r3, epsilon=1e-3, data_format=fmt, is_training=training,
                name="y")
        else:
            outs = getattr(tf.raw_ops, op)(
                y_backprop=dy, x=x, scale=scale, reserve_space_1=r1, reserve_space_2=r2,
                epsilon=1e-3, data_format=fmt, is_training=training, name="y")
        return [_fetch(outs[0]), outs[1], outs[2]], feeds
    rtol = 2e-2 if dtype in (np.float16, "bfloat16") else 1e-4
    return OpCase(name, [op], build, rtol=rtol, atol=rtol)


def _nn_grad_cases():
    for op in ("EluGrad", "SeluGrad", "SoftplusGrad", "SoftsignGrad", "LeakyReluGrad"):
        for dtype in (np.float32, np.float64, np.float16, "bfloat16"):
            yield _act_grad(op, dtype)
        yield _act_grad(op, np.float32, (0, 3), variant="empty")
        yield _act_grad(op, np.float32, variant="mismatch", error="must have the same size")
    yield _act_grad("LeakyReluGrad", np.float32, variant="alpha0.5", alpha=0.5)
    for dtype, attrs, v in [(np.float32, {}, "default"),
                            (np.float32, dict(depth_radius=2, bias=0.5, alpha=0.3, beta=0.75),
                             "r2"),
                            (np.float16, dict(depth_radius=1, bias=2.0, alpha=0.1, beta=0.5),
                             "r1")]:
        yield _lrn_grad(dtype, v, **attrs)
    for op in ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"):
        for fmt, shape in [("NHWC", (2, 3, 4, 5)), ("NCHW", (2, 5, 3, 4))]:
            yield _bn_grad(op, np.float32, shape, fmt)
        yield _bn_grad(op, np.float32, (2, 3, 4, 5), "NHWC", training=False)
        if op != "FusedBatchNormGrad":
            for dtype in (np.float16, "bfloat16"):
                yield _bn_grad(op, dtype, (2, 3, 4, 5), "NHWC")
    yield _bn_grad("FusedBatchNormGradV3", np.float32, (2, 3, 2, 4, 5), "NDHWC")
    yield _bn_grad("FusedBatchNormGradV3", np.float32, (2, 5, 3, 2, 4), "NCDHW")
    yield _bn_grad("FusedBatchNormGradV3", np.float32, (0, 3, 4, 5), "NHWC", variant="empty")


_prev_cases6 = cases


def cases():  # noqa: F811
    yield from _prev_cases6()
    yield from _nn_grad_cases()


# ---- DepthwiseConv2dNative gradients ----------------------------------------

def _dw_grad(op, dtype, in_shape=(2, 7, 8, 3), f_shape=(3, 3, 3, 2), stride=1,
             padding="SAME", explicit=(), variant="", error=None, dy_shape=None):
    name = _name(op, dtype, in_shape, variant or f"s{stride}/{padding}")

    def build():
        tf = _tf()
        strides = [1, stride, stride, 1]
        pads = list(explicit)
        fwd_in = tf.zeros(in_shape, _np_dtype(dtype))
        fwd_f = tf.zeros(f_shape, _np_dtype(dtype))
        shape = dy_shape or tf.raw_ops.DepthwiseConv2dNative(
            input=fwd_in, filter=fwd_f, strides=strides, padding=padding,
            explicit_paddings=pads).shape.as_list()
        pd, dy = _input(dtype, None if error else shape, "dy")
        feeds = {pd: _feed(dtype, data(name + "/dy", np.float32, shape).astype(_np_dtype(dtype)))}
        if op == "DepthwiseConv2dNativeBackpropInput":
            pf, f = _input(dtype, f_shape, "f")
            feeds[pf] = _feed(dtype, data(name + "/f", np.float32, f_shape).astype(_np_dtype(dtype)))
            y = tf.raw_ops.DepthwiseConv2dNativeBackpropInput(
                input_sizes=np.array(in_shape, np.int32), filter=f, out_backprop=dy,
                strides=strides, padding=padding, explicit_paddings=pads, name="y")
        else:
            px, x = _input(dtype, in_shape, "x")
            feeds[px] = _feed(dtype, data(name + "/x", np.float32, in_shape).astype(_np_dtype(dtype)))
            y = tf.raw_ops.DepthwiseConv2dNativeBackpropFilter(
                input=x, filter_sizes=np.array(f_shape, np.int32), out_backprop=dy,
                strides=strides, padding=padding, explicit_paddings=pads, name="y")
        return [_fetch(y)], feeds
    rtol = 2e-2 if dtype in (np.float16, "bfloat16") else (1e-12 if dtype == np.float64 else 1e-5)
    return OpCase(name, [op], build, rtol=rtol, atol=rtol * 10, expect_error=error)


def _dw_cases():
    for op in ("DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"):
        for stride, padding in [(1, "SAME"), (2, "SAME"), (1, "VALID"), (2, "VALID")]:
            yield _dw_grad(op, np.float32, stride=stride, padding=padding)
        yield _dw_grad(op, np.float32, stride=2, padding="EXPLICIT",
                       explicit=(0, 0, 1, 2, 2, 0, 0, 0))
        # Half input gradients land within one half-ulp of TensorFlow's but
        # not always on it (its packet accumulation order), which the
        # oracle's fixed half tolerance does not allow: float64 and the half
        # filter gradient only.
        dtypes = (np.float64,) if op.endswith("Input") else (np.float64, np.float16)
        for dtype in dtypes:
            yield _dw_grad(op, dtype, stride=2)
        if op == "DepthwiseConv2dNativeBackpropInput":
            # (TensorFlow leaves the filter gradient of an empty batch unwritten.)
            yield _dw_grad(op, np.float32, in_shape=(0, 5, 5, 3), variant="empty")
        yield _dw_grad(op, np.float32, variant="bad_rows", dy_shape=[2, 6, 8, 6],
                       error="Number of rows of out_backprop doesn't match computed")


_prev_cases7 = cases


def cases():  # noqa: F811
    yield from _prev_cases7()
    yield from _dw_cases()


# ---- Pad folded into convolutions (dfg optimize's padfusion) ---------------

def _pad_conv_case():
    """Keras's ZeroPadding2D before 'valid' convolutions: dfg run folds each
    Pad into the convolution's EXPLICIT padding (a depthwise one, and a
    Conv2D that the remapper then fuses with its bias and Relu); TensorFlow
    runs the graph as written."""
    name = "Pad/float32[2,9,9,8]/into_convolutions"

    def build():
        tf = _tf()
        px, x = _input(np.float32, (2, 9, 9, 8), "x")
        pw, w = _input(np.float32, (3, 3, 8, 1), "w")
        pf, f = _input(np.float32, (3, 3, 8, 5), "f")
        pb, b = _input(np.float32, (5,), "b")
        dw = tf.raw_ops.DepthwiseConv2dNative(
            input=tf.pad(x, [[0, 0], [0, 1], [1, 1], [0, 0]]), filter=w,
            strides=[1, 2, 2, 1], padding="VALID")
        conv = tf.raw_ops.Conv2D(
            input=tf.pad(dw, [[0, 0], [2, 1], [1, 0], [0, 0]]), filter=f,
            strides=[1, 1, 1, 1], padding="VALID")
        y = tf.nn.relu(tf.nn.bias_add(conv, b), name="y")
        feeds = {p: data(f"{name}/{p.name[0]}", np.float32, p.shape.as_list())
                 for p in (px, pw, pf, pb)}
        return [y], feeds
    return OpCase(name, ["Pad", "DepthwiseConv2dNative", "Conv2D"], build)


_prev_cases8 = cases


def cases():  # noqa: F811
    yield from _prev_cases8()
    yield _pad_conv_case()
