"""GIF, WebP and JPEG XL decoding (GIF frames composed as TensorFlow composes them)
and JPEG encoding at a quality given as a tensor."""
import base64
import struct

import numpy as np

from op_case import OpCase, data


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _lzw(pixels, min_size):
    """GIF LZW data of `pixels` (color indices): a clear code often enough
    that the code width never grows (a valid, uncompressed-sized stream)."""
    clear, end = 1 << min_size, (1 << min_size) + 1
    width = min_size + 1
    codes = []
    run = (1 << min_size) - 3 if min_size > 2 else 1
    for i, p in enumerate(pixels):
        if i % run == 0:
            codes.append(clear)
        codes.append(int(p))
    codes.append(end)
    acc = bits = 0
    out = bytearray()
    for c in codes:
        acc |= c << bits
        bits += width
        while bits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            bits -= 8
    if bits:
        out.append(acc & 0xFF)
    blocks = bytearray([min_size])
    for i in range(0, len(out), 255):
        chunk = out[i:i + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b"\0")


def _palette(n, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (n, 3)).astype(np.uint8)


def _gif(width, height, frames, global_colors=8):
    """frames: (left, top, w, h, indices, transparent or None, local palette
    or None)."""
    bits = max(1, int(np.ceil(np.log2(global_colors))))
    out = bytearray(b"GIF89a" + struct.pack("<HHBBB", width, height,
                                            0x80 | (bits - 1), 0, 0))
    out += _palette(1 << bits, 1).tobytes()
    for left, top, w, h, idx, transparent, local in frames:
        if transparent is not None:
            out += b"\x21\xf9\x04" + bytes([1, 0, 0, transparent, 0])
        flags = 0
        if local is not None:
            lbits = max(1, int(np.ceil(np.log2(len(local)))))
            flags = 0x80 | (lbits - 1)
        out += b"\x2c" + struct.pack("<HHHHB", left, top, w, h, flags)
        if local is not None:
            out += np.resize(local, ((1 << lbits), 3)).astype(np.uint8).tobytes()
        out += _lzw(np.asarray(idx).reshape(-1), max(2, bits))
    return bytes(out + b"\x3b")


def _gif_cases():
    tf = _tf()
    rng = np.random.default_rng(7)
    full = rng.integers(0, 8, (3, 5))
    part = rng.integers(0, 8, (2, 2))
    gifs = {
        "single": _gif(5, 3, [(0, 0, 5, 3, full, None, None)]),
        "animated": _gif(5, 3, [
            (0, 0, 5, 3, full, None, None),
            (1, 1, 2, 2, part, 3, None),
            (0, 0, 5, 3, rng.integers(0, 4, (3, 5)), None, _palette(4, 9))]),
        "partial_first": _gif(4, 4, [(1, 1, 3, 2, rng.integers(0, 8, (2, 3)), 2, None)]),
        "transparent_first": _gif(3, 2, [(0, 0, 3, 2, [[0, 5, 5], [1, 5, 2]], 5, None)]),
    }
    out = [OpCase(f"DecodeGif/{name}", ["DecodeGif"],
                  lambda g=g: ([tf.raw_ops.DecodeGif(contents=tf.constant(g))], {}))
           for name, g in gifs.items()]
    jpeg = tf.io.encode_jpeg(data("jpeg", np.uint8, (5, 4, 3))).numpy()
    out.append(OpCase("DecodeGif/jpeg", ["DecodeGif"],
                      lambda: ([tf.raw_ops.DecodeGif(contents=tf.constant(jpeg))], {})))
    jpeg_gray = tf.io.encode_jpeg(data("jpeg_gray", np.uint8, (3, 7, 1))).numpy()
    out.append(OpCase("DecodeGif/jpeg_gray", ["DecodeGif"],
                      lambda: ([tf.raw_ops.DecodeGif(contents=tf.constant(jpeg_gray))], {})))
    for name, contents, error in [
            ("unknown", b"xyz", "Unknown image file format"),
            ("empty", b"", "Input is empty."),
            ("truncated", gifs["single"][:20], r"Invalid GIF data \(size 20\), ")]:
        out.append(OpCase(f"DecodeGif/{name}", ["DecodeGif"],
                          lambda c=contents: ([tf.raw_ops.DecodeGif(contents=tf.constant(c))], {}),
                          expect_error=error))
    return out


# 5x3 images written by libwebp 1.2.4 (WebPEncode{Lossless,}{RGB,RGBA}).
WEBP = {
    "lossless_rgba": "UklGRkIAAABXRUJQVlA4TDUAAAAvBIAAEHcgJEj+Lyba3DARUyMQIMRSZbYHoTfuMlDQSFLzvdC14AkteEILwiL6H2vLufn+AAA=",
    "lossless_rgb": "UklGRjoAAABXRUJQVlA4TC0AAAAvBIAAAHcgJEj+LyYavTARUzP/GW2goJGk5nuha8ETWvCEFoRF9D/WlnPz/QEA",
    "lossy_rgb": "UklGRloAAABXRUJQVlA4IE4AAABwAQCdASoFAAMAAUAmJbACdAGIQAD+8BgXDfR+rP/E1OXln/3/tOA+vf+H3//3GW+e9w3JXHgv+c26P1N/1ivzb/mza/1N/+IEFDngAAA=",
    "lossy_rgba": "UklGRoQAAABXRUJQVlA4WAoAAAAQAAAABAAAAgAAQUxQSBAAAAAAZP//ZP//ZP//ZP//ZP//VlA4IE4AAABwAQCdASoFAAMAAUAmJbACdAGIQAD+8BgXDfR+rP/E1OXln3//s87j/Pf8mrv/9GBfffGRt1/n/+c26P1N/nQfxf/Nm1/qb/8QIKHPAAA=",
}


def _webp_cases():
    tf = _tf()
    out = []
    for name, b64 in WEBP.items():
        contents = base64.b64decode(b64)
        alpha = name.endswith("rgba")
        for channels in (0, 4 if alpha else 3):
            out.append(OpCase(f"DecodeWebP/{name}/channels={channels}", ["DecodeWebP"],
                              lambda c=contents, ch=channels: ([tf.raw_ops.DecodeWebP(
                                  contents=tf.constant(c), channels=ch)], {})))
    rgb = base64.b64decode(WEBP["lossy_rgb"])
    jpeg = tf.io.encode_jpeg(data("webp_jpeg", np.uint8, (4, 3, 3))).numpy()
    out.append(OpCase("DecodeWebP/jpeg", ["DecodeWebP"], lambda: ([tf.raw_ops.DecodeWebP(
        contents=tf.constant(jpeg))], {})))
    for name, contents, channels, error in [
            ("wrong_channels", rgb, 4, "Number of channels requested does not match input"),
            ("one_channel", rgb, 1, "WebP only supports 3 or 4 channels"),
            ("header", rgb[:20], 0, "Failed to decode WebP header."),
            ("truncated", rgb[:40], 0, "Failed to decode WebP image."),
            ("unknown", b"xyz", 0, "Unknown image file format")]:
        out.append(OpCase(f"DecodeWebP/{name}", ["DecodeWebP"],
                          lambda c=contents, ch=channels: ([tf.raw_ops.DecodeWebP(
                              contents=tf.constant(c), channels=ch)], {}),
                          expect_error=error))
    return out


# Images written by libjxl 0.7 (JxlEncoder; lossless but the last).
JXL = {
    "rgb": "/woQUBAJCAIBALgASxiTjoODFEqCzBsA+qkDiIH/FvLvv1lZskrNypIlBf3DAPQ/AI4YQP/o3wCgfw==",
    "rgba": "/woYELASCAgQABgBSxiTjoODhCNUL8DXH0A8MJRdQxmor1D6GshA+gqlr1BOoX88APp/ADyA/i+BB9A//fMA+mf0XUPZdSAD6SuUvkIZaCB9AQ==",
    "gray": "/woIAAqAoLgRCAIBAGAASxiLFVJcFXFj7fSDdBeyThMR0ZUX2c0A",
    "lossy": "/wpBBgASiAIA2AEbYRcAgAqVUcYNXs71fPmhw2LaxnWGttq2sCRRZBybpBM4JIlFYOMMhJlhAJg5CY/WEiqkQA5gV7xT5F2M8S7GIxUqACCIBGr8KYjOovHTtRGdHGWGtDAITCZxt1NwJUlyvD3G4GpGJ9TyozMw8zhvl9HsA5oD",
}


def _jxl_cases():
    tf = _tf()
    out = []
    for name, b64 in JXL.items():
        if name == "lossy":
            continue
        contents = base64.b64decode(b64)
        full = {"rgb": 3, "rgba": 4, "gray": 1}[name]
        for channels in (0, full):
            out.append(OpCase(f"DecodeJxl/{name}/channels={channels}", ["DecodeJxl"],
                              lambda c=contents, ch=channels: ([tf.raw_ops.DecodeJxl(
                                  contents=tf.constant(c), channels=ch)], {})))
    # Lossy (VarDCT) pixels: Debian 12's libjxl 0.7 and TensorFlow's newer
    # libjxl differ by at most 1 in some pixels.
    lossy = base64.b64decode(JXL["lossy"])
    out.append(OpCase("DecodeJxl/lossy/within_1", ["DecodeJxl"], lambda: ([tf.cast(
        tf.raw_ops.DecodeJxl(contents=tf.constant(lossy)), tf.float32)], {}), atol=1.0))
    rgb = base64.b64decode(JXL["rgb"])
    for name, contents, channels, error in [
            ("wrong_channels", rgb, 4, "Number of channels requested does not match input"),
            ("header", b"\xff\x0a", 0, "Failed to decode JXL header"),
            ("truncated", rgb[:10], 0, "Failed to decode JXL image"),
            ("unknown", b"xyz", 0, "Unknown image file format")]:
        out.append(OpCase(f"DecodeJxl/{name}", ["DecodeJxl"],
                          lambda c=contents, ch=channels: ([tf.raw_ops.DecodeJxl(
                              contents=tf.constant(c), channels=ch)], {}),
                          expect_error=error))
    return out


def _gif_in_other_decoders():
    """GIF contents through DecodeImage, DecodePng and DecodeJpeg."""
    tf = _tf()
    rng = np.random.default_rng(11)
    still = _gif(5, 3, [(0, 0, 5, 3, rng.integers(0, 8, (3, 5)), None, None)])
    anim = _gif(5, 3, [(0, 0, 5, 3, rng.integers(0, 8, (3, 5)), None, None),
                       (1, 1, 2, 2, rng.integers(0, 8, (2, 2)), 3, None)])
    out = []
    for name, g in [("still", still), ("animated", anim)]:
        for tag, attrs in [("", {}), ("/no_expand", dict(expand_animations=False)),
                           ("/float32", dict(dtype=tf.float32)),
                           ("/uint16", dict(dtype=tf.uint16)), ("/channels=3", dict(channels=3))]:
            out.append(OpCase(f"DecodeImage/gif_{name}{tag}", ["DecodeImage"],
                              lambda g=g, a=attrs: ([tf.raw_ops.DecodeImage(
                                  contents=tf.constant(g), **a)], {})))
        for op in ("DecodePng", "DecodeJpeg"):
            error = None if name == "still" else (
                "Got 2 frames, but animated gifs can only be decoded by tf.io.decode_gif or "
                "tf.io.decode_image")
            out.append(OpCase(f"{op}/gif_{name}", [op], lambda g=g, op=op: ([getattr(
                tf.raw_ops, op)(contents=tf.constant(g))], {}), expect_error=error))
    out.append(OpCase("DecodeImage/gif_channels=1", ["DecodeImage"], lambda: ([
        tf.raw_ops.DecodeImage(contents=tf.constant(still), channels=1)], {}),
        expect_error="channels must be 0 or 3 for GIF, got 1"))
    out.append(OpCase("DecodeBmp/gif", ["DecodeBmp"], lambda: ([
        tf.raw_ops.DecodeBmp(contents=tf.constant(still))], {}),
        expect_error="Trying to decode GIF format using DecodeBmp op. Use `decode_gif` or "
                     "`decode_image` instead."))
    return out


def _jpeg_cases():
    tf = _tf()
    out = []
    for channels in (1, 3):
        for quality in (0, 50, 95, 100):
            name = f"EncodeJpegVariableQuality/uint8[8,6,{channels}]/quality={quality}"
            image = data(name, np.uint8, (8, 6, channels))

            def build(image=image, quality=quality):
                q = tf.compat.v1.placeholder(tf.int32, [], name="q")
                y = tf.raw_ops.EncodeJpegVariableQuality(images=tf.constant(image), quality=q)
                return [tf.io.decode_jpeg(y), tf.strings.length(y)], {q: np.int32(quality)}
            out.append(OpCase(name, ["EncodeJpegVariableQuality"], build))

    def bad(quality, channels, error):
        def build():
            q = tf.compat.v1.placeholder(tf.int32, [], name="q")
            y = tf.raw_ops.EncodeJpegVariableQuality(
                images=tf.zeros([2, 2, channels], tf.uint8), quality=q)
            return [y], {q: np.int32(quality)}
        return OpCase(f"EncodeJpegVariableQuality/q={quality},c={channels}",
                      ["EncodeJpegVariableQuality"], build, expect_error=error)
    out.append(bad(101, 3, r"quality must be in \[0,100\], got 101"))
    out.append(bad(50, 2, r"image must have 1 or 3 channels, got \[2,2,2\]"))
    return out


def cases():
    yield from _gif_cases()
    yield from _gif_in_other_decoders()
    yield from _webp_cases()
    yield from _jxl_cases()
    yield from _jpeg_cases()
