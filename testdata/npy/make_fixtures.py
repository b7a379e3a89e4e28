#!/usr/bin/python3
"""Writes the .npy/.npz fixtures of lib/io/npy_test.cc with numpy.

Run from anywhere with Debian's python3 (python3-numpy):
    /usr/bin/python3 testdata/npy/make_fixtures.py
The output is deterministic: fixed values, fixed zip timestamps.
"""
import os
import struct
import zipfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def save(name, array, version=None):
    with open(path(name), "wb") as f:
        if version is None:
            np.save(f, array)
        else:
            # np.save picks the oldest version that fits; force one.
            np.lib.format.write_array(f, array, version=version)


def fixed_zip(name, members, compression, force_zip64=False):
    """Like np.savez, with a fixed timestamp so the bytes never change."""
    with zipfile.ZipFile(path(name), "w", compression=compression) as z:
        for key, array in members:
            info = zipfile.ZipInfo(key + ".npy", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = compression
            with z.open(info, "w", force_zip64=force_zip64) as f:
                np.lib.format.write_array(f, np.asanyarray(array))


def handmade_zip64(name, key, array):
    """A stored zip whose sizes, offsets and end records all use zip64."""
    import io
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array)
    data = buf.getvalue()
    fname = (key + ".npy").encode()
    crc = zlib.crc32(data) & 0xFFFFFFFF
    out = bytearray()
    local_extra = struct.pack("<HHQQ", 1, 16, len(data), len(data))
    out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0x21, crc,
                       0xFFFFFFFF, 0xFFFFFFFF, len(fname), len(local_extra))
    out += fname + local_extra + data
    cd_offset = len(out)
    central_extra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), 0)
    out += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x032D, 45, 0, 0, 0,
                       0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(fname),
                       len(central_extra), 0, 0, 0, 0o100644 << 16, 0xFFFFFFFF)
    out += fname + central_extra
    cd_size = len(out) - cd_offset
    record = len(out)
    out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x032D, 45, 0, 0, 1, 1,
                       cd_size, cd_offset)
    out += struct.pack("<IIQI", 0x07064B50, 0, record, 1)
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF,
                       0xFFFFFFFF, 0xFFFFFFFF, 0)
    with open(path(name), "wb") as f:
        f.write(bytes(out))


def main():
    m23 = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    save("f32_2x3.npy", m23)
    save("f64_big_endian.npy", np.array([1.5, -2.25, 3e300], dtype=">f8"))
    save("i32_fortran_2x3x2.npy",
         np.asfortranarray(np.arange(12, dtype=np.int32).reshape(2, 3, 2)))
    save("i16_big_endian_fortran.npy",
         np.asfortranarray(np.arange(6, dtype=">i2").reshape(3, 2)))
    save("u16_v2.npy", np.array([1, 65535], dtype=np.uint16), version=(2, 0))
    save("bool_scalar.npy", np.array(True))
    save("f16.npy", np.array([1.0, -0.5, 65504.0], dtype=np.float16))
    save("c64.npy", np.array([1 + 2j, -3.5j], dtype=np.complex64))
    save("c128_big_endian.npy", np.array([1 + 2j], dtype=">c16"))
    save("u64.npy", np.array([2**64 - 1, 7], dtype=np.uint64))
    save("bytes_S.npy", np.array([b"ab", b"", b"xyz"]))
    save("unicode_U_v3.npy", np.array(["h\u00e9", "\u65e5\u672c", "\U0001F600"]),
         version=(3, 0))
    save("unicode_U_big_endian.npy",
         np.array(["ok", "\u00fc"]).astype(">U2"))
    save("empty_0x3.npy", np.zeros((0, 3), dtype=np.int64))
    with open(path("object.npy"), "wb") as f:
        np.lib.format.write_array(f, np.array([None, 1], dtype=object),
                                  allow_pickle=True)
    fixed_zip("stored.npz", [("a", m23), ("b", np.array([1, 2], np.int64))],
              zipfile.ZIP_STORED)
    fixed_zip("deflated.npz", [("x", np.arange(100, dtype=np.float64)),
                               ("names", np.array(["p", "q"]))],
              zipfile.ZIP_DEFLATED)
    fixed_zip("zip64_local.npz", [("z", np.array([3, 4], np.int8))],
              zipfile.ZIP_STORED, force_zip64=True)
    handmade_zip64("zip64_full.npz", "w", np.array([[1.0, 2.0]], np.float32))


if __name__ == "__main__":
    main()
