#!/usr/bin/python3
"""Seed sets for the four libFuzzer targets that reach recursion and memory
limits as well as the ordinary paths: OUT/{graph,npy,checkpoint,request}.

  graph:      the testdata GraphDefs (text and binary), a function calling
              itself, a cycle of two, a 1000-deep call chain, text nested
              past the parser's depth limit, Consts whose shape claims
              2^40 elements or whose tensor_content is short or long.
  npy:        testdata/npy, headers claiming 2^62 elements, a negative or
              overflowing dimension, truncated data, a small zip bomb
              (10 MB of zeros in 10 KB), one deflate stream named by 31
              directory entries, an entry claiming a 4 GB size.
  checkpoint: testdata/checkpoints and the variables of ../shared/savedmodels
              (make_checkpoint_seed.py), each also truncated; bundles
              whose entries claim 2^80 elements, a 2^62 offset, a short
              size, a negative dimension, dtype 9999, 2^31-element slices.
  request:    make_request_seeds.py over the graph seeds, then a RunStep and
              a RunCallable whose feed claims shape [2.5e8] with one value,
              RunGraph sends and a RecvTensorResponse claiming 2^40 elements,
              RegisterGraph of the recursive, cyclic and 1000-deep libraries
              and of Pad/Split/Fill/BroadcastTo with OOM-sized operands.

Each set also takes the files under lib/*/fuzz/seeds/TARGET/ (past
findings kept as seeds). Small on purpose (a few hundred KB): libFuzzer grows the corpus itself.

  lib/io/fuzz/make_hostile_seeds.py --dfg build/dfg OUT
"""
import glob
import io
import os
import shutil
import struct
import subprocess
import sys
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
sys.path.insert(0, os.path.join(ROOT, "lib", "distributed", "fuzz"))
import make_request_seeds  # noqa: E402  (encode, octal)

encode = make_request_seeds.encode
octal = make_request_seeds.octal


def write(out, name, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def fn(name, body_op, args=""):
    """A function of one float argument whose body is one node of body_op."""
    return (f'function {{ signature {{ name: "{name}" input_arg {{ name: "x" '
            f'type: DT_FLOAT }} output_arg {{ name: "y" type: DT_FLOAT }} }} '
            f'node_def {{ name: "n" op: "{body_op}" input: "x" {args}}} '
            f'ret {{ key: "y" value: "n:y:0" }} }} ')


def caller(op):
    return ('node { name: "x" op: "Placeholder" attr { key: "dtype" value { '
            'type: DT_FLOAT } } } '
            f'node {{ name: "call" op: "{op}" input: "x" }} ')


def hostile_graphs():
    """(name, GraphDef text) of graphs that recurse or claim huge memory."""
    chain = "".join(fn(f"f{i}", f"f{i + 1}") for i in range(999))
    chain += fn("f999", "Identity", 'attr { key: "T" value { type: DT_FLOAT } } ')
    const = ('node {{ name: "c" op: "Const" attr {{ key: "dtype" value {{ '
             'type: DT_FLOAT }} }} attr {{ key: "value" value {{ tensor {{ '
             'dtype: DT_FLOAT tensor_shape {{ {dims} }} {vals} }} }} }} }} ')
    huge = "dim { size: 1099511627776 } dim { size: 1099511627776 }"
    i64 = ('node {{ name: "{n}" op: "Const" attr {{ key: "dtype" value {{ '
           'type: DT_INT64 }} }} attr {{ key: "value" value {{ tensor {{ '
           'dtype: DT_INT64 tensor_shape {{ {dims} }} {vals} }} }} }} }} ')
    pad = (const.format(dims="dim { size: 1 }", vals="float_val: 1") +
           i64.format(n="p", dims="dim { size: 1 } dim { size: 2 }",
                      vals="int64_val: 1099511627776") +
           'node { name: "pad" op: "Pad" input: "c" input: "p" attr { key: '
           '"T" value { type: DT_FLOAT } } attr { key: "Tpaddings" value { '
           'type: DT_INT64 } } } ')
    split = (const.format(dims="dim { size: 1 }", vals="float_val: 1") +
             'node { name: "axis" op: "Const" attr { key: "dtype" value { '
             'type: DT_INT32 } } attr { key: "value" value { tensor { dtype: '
             'DT_INT32 tensor_shape {} int_val: 0 } } } } '
             'node { name: "s" op: "Split" input: "axis" input: "c" attr { '
             'key: "T" value { type: DT_FLOAT } } attr { key: "num_split" '
             'value { i: 1000000000 } } } ')
    fill = (i64.format(n="dims", dims="dim { size: 1 }",
                       vals="int64_val: 100000000") +
            'node { name: "v" op: "Const" attr { key: "dtype" value { type: '
            'DT_STRING } } attr { key: "value" value { tensor { dtype: '
            'DT_STRING tensor_shape {} string_val: "abc" } } } } '
            'node { name: "f" op: "Fill" input: "dims" input: "v" attr { key: '
            '"T" value { type: DT_STRING } } attr { key: "index_type" value { '
            'type: DT_INT64 } } } ')
    return [
        ("recursive", caller("f0") + "library { " + fn("f0", "f0") + "}"),
        ("cycle", caller("f0") + "library { " + fn("f0", "f1") +
         fn("f1", "f0") + "}"),
        ("chain1000", caller("f0") + "library { " + chain + "}"),
        ("huge_shape", const.format(dims=huge, vals="float_val: 1")),
        ("short_content", const.format(
            dims="dim { size: 1000 }", vals='tensor_content: "abcd"')),
        ("long_content", const.format(
            dims="dim { size: 1 }", vals='tensor_content: "abcdefgh"')),
        ("pad_oom", pad),
        ("split_1e9", split),
        ("fill_strings", fill),
    ]


def graph_seeds(out):
    os.makedirs(out, exist_ok=True)
    n = 0
    texts = []
    for path in sorted(glob.glob(os.path.join(ROOT, "testdata/models/*.pbtxt"))):
        text = open(path).read()
        name = os.path.basename(path)[:-6]
        if len(text) < 64 * 1024:
            texts.append((name, text))
    texts += hostile_graphs()
    for name, text in texts:
        if len(text) < 64 * 1024:  # chain1000 is seeded in binary only
            write(out, name + ".pbtxt", text)
        try:
            write(out, name + ".pb",
                  encode("GraphDef", text, "lib/proto/graph.proto"))
        except RuntimeError:
            pass  # a graph protoc cannot encode stays text only
    # Text nested past the parser's 100 levels (a func attr in a func attr).
    deep = ('node { name: "d" op: "NoOp" attr { key: "a" value { ' +
            'func { name: "f" attr { key: "a" value { ' * 1000 +
            '} } } ' * 1000 + '} } }')
    write(out, "deep_text.pbtxt", deep)
    return len(os.listdir(out))


def npy_bytes(descr, shape, payload=b""):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, shape)
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
            header.encode() + payload)


def npz(members, compression=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data in members:  # a fixed date: the same bytes every run
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data,
                       compression)
    return buf.getvalue()


def shared_stream_npz(count):
    """count central-directory entries naming one deflate stream (the
    duplicate-name bomb): a local header and data once, then the directory."""
    data = npy_bytes("<f4", "(1000000,)", bytes(4000000))
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    stream = comp.compress(data) + comp.flush()
    crc = zlib.crc32(data)
    name = b"x.npy"
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc,
                        len(stream), len(data), len(name), 0) + name
    body = local + stream
    central = b""
    for _ in range(count):
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8,
                               0, 0, crc, len(stream), len(data), len(name),
                               0, 0, 0, 0, 0, 0) + name
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count,
                      len(central), len(body), 0)
    return body + central + end


def npy_seeds(out):
    os.makedirs(out, exist_ok=True)
    n = 0
    for path in glob.glob(os.path.join(ROOT, "testdata/npy/*.np[yz]")):
        if os.path.getsize(path) < 64 * 1024:
            shutil.copy(path, out)
            n += 1
    f32 = npy_bytes("<f4", "(2, 3)", struct.pack("<6f", *range(6)))
    seeds = {
        "huge.npy": npy_bytes("<f4", "(2147483648, 2147483648)", b"\0" * 8),
        "overflow.npy": npy_bytes("<f8", "(4611686018427387904, 4)"),
        "negative.npy": npy_bytes("<i4", "(-1, 4)", b"\0" * 16),
        "zero_huge.npy": npy_bytes("<f4", "(0, 9223372036854775807)"),
        "truncated.npy": f32[:-5],
        "huge_strings.npy": npy_bytes("<U1000000000", "(1000,)", b"ab"),
        "zip_bomb.npz": npz([("a.npy", npy_bytes("<f4", "(2621440,)",
                                                  bytes(10485760)))]),
        "shared_stream.npz": shared_stream_npz(31),
        "duplicate.npz": npz([("a.npy", f32), ("a.npy", f32)]),
        "huge_member.npz": npz([("h.npy", npy_bytes(
            "<f4", "(1099511627776,)", b"\0" * 4))], zipfile.ZIP_STORED),
        "truncated.npz": npz([("a.npy", f32), ("b.npy", f32)])[:-30],
    }
    # A stored member whose directory entry claims 4 GB.
    claim = bytearray(npz([("a.npy", f32)], zipfile.ZIP_STORED))
    cd = claim.rfind(b"PK\x01\x02")
    claim[cd + 24:cd + 28] = struct.pack("<I", 0xFFFFFFF0)
    seeds["claims_4gb.npz"] = bytes(claim)
    for name, data in seeds.items():
        write(out, name, data)
    return n + len(seeds)


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked_crc(data):
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def table_block(entries):
    """A leveldb block, every entry a restart point, with its trailer."""
    body, restarts = b"", []
    for key, value in entries:
        restarts.append(len(body))
        body += (make_request_seeds.varint(0) +
                 make_request_seeds.varint(len(key)) +
                 make_request_seeds.varint(len(value)) + key + value)
    body += b"".join(struct.pack("<I", r) for r in restarts)
    body += struct.pack("<I", len(restarts))
    return body, struct.pack("<BI", 0, masked_crc(body + b"\0"))


def sstable(entries):
    """The .index file of a bundle: one data block, an empty metaindex, the
    index block and the footer, uncompressed, checksums right."""
    varint = make_request_seeds.varint
    data, trailer = table_block(entries)
    out = data + trailer
    meta, meta_trailer = table_block([])
    meta_handle = varint(len(out)) + varint(len(meta))
    out += meta + meta_trailer
    index, index_trailer = table_block(
        [(entries[-1][0], varint(0) + varint(len(data)))])
    index_handle = varint(len(out)) + varint(len(index))
    out += index + index_trailer
    footer = meta_handle + index_handle
    footer += b"\0" * (40 - len(footer))
    return out + footer + struct.pack("<Q", 0xDB4775248B80FB57)


def bundle(entries, data):
    """One checkpoint_fuzz input: an index of BundleEntryProto texts (sorted
    by key) and data shard 0."""
    header = encode("BundleHeaderProto", "num_shards: 1 version { producer: 1 }",
                    "lib/proto/tensor_bundle.proto")
    rows = [(b"", header)] + [
        (k.encode(), encode("BundleEntryProto", t,
                            "lib/proto/tensor_bundle.proto"))
        for k, t in sorted(entries)]
    index = sstable(rows)
    return struct.pack("<I", len(index)) + index + data


def hostile_checkpoints():
    f4 = struct.pack("<f", 1.5)
    crc = masked_crc(f4)
    big = "dim { size: 1099511627776 } dim { size: 1099511627776 }"
    return {
        "ok_scalar": bundle([("v", f"dtype: DT_FLOAT shape {{}} size: 4 "
                              f"crc32c: {crc}")], f4),
        "huge_shape": bundle([("v", f"dtype: DT_FLOAT shape {{ {big} }} "
                               f"size: 4 crc32c: {crc}")], f4),
        "short_size": bundle([("v", "dtype: DT_FLOAT shape { dim { size: "
                               f"1000 }} }} size: 4 crc32c: {crc}")], f4),
        "huge_strings": bundle([("s", "dtype: DT_STRING shape { dim { size: "
                                 "1099511627776 } } size: 4")], b"\x01a\0\0"),
        "huge_offset": bundle([("v", "dtype: DT_FLOAT shape {} offset: "
                                f"4611686018427387904 size: 4 crc32c: {crc}")],
                              f4),
        "negative_dim": bundle([("v", "dtype: DT_FLOAT shape { dim { size: -5 "
                                 f"}} }} size: 4 crc32c: {crc}")], f4),
        "bad_dtype": bundle([("v", "dtype: 9999 shape {} size: 4")], f4),
        "huge_slices": bundle([("p", "dtype: DT_FLOAT shape { dim { size: "
                                "2147483648 } } slices { extent { start: 0 "
                                "length: 2147483648 } }")], f4),
    }


def checkpoint_seeds(out):
    os.makedirs(out, exist_ok=True)
    prefixes = [os.path.join(ROOT, "testdata/checkpoints/mixed")]
    prefixes += [p[:-6] for p in glob.glob(
        os.path.join(SHARED, "savedmodels/**/variables.index"), recursive=True)]
    prefixes += [p[:-6] for p in glob.glob(
        os.path.join(ROOT, "testdata/savedmodels/**/*.index"), recursive=True)]
    n = 0
    for i, prefix in enumerate(sorted(set(prefixes))):
        index = open(prefix + ".index", "rb").read()
        shards = sorted(glob.glob(prefix + ".data-00000-of-*"))
        data = open(shards[0], "rb").read() if shards else b""
        if len(index) + len(data) > 128 * 1024:
            data = data[:128 * 1024 - len(index)] if len(index) < 128 * 1024 else b""
            if not data and len(index) >= 128 * 1024:
                continue
        seed = struct.pack("<I", len(index)) + index + data
        write(out, f"ckpt{i}", seed)
        write(out, f"ckpt{i}_no_data", struct.pack("<I", len(index)) + index)
        write(out, f"ckpt{i}_short_index",
              struct.pack("<I", len(index) // 2) + index[:len(index) // 2])
        n += 3
    for name, data in hostile_checkpoints().items():
        write(out, name, data)
    return n + len(hostile_checkpoints())


def request_seeds(out, dfg, graph_dir):
    os.makedirs(out, exist_ok=True)
    models = sorted(glob.glob(os.path.join(graph_dir, "*.pbtxt")))
    r = subprocess.run([sys.executable, make_request_seeds.__file__, "--dfg",
                        dfg, out] + models, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    huge = ("dtype: DT_FLOAT tensor_shape { dim { size: 250000000 } } "
            "float_val: 1")
    key = (f"{make_request_seeds.TASK0};0000000000000001;"
           f"{make_request_seeds.TASK1};edge_1_x;0:0")
    requests = [
        (4, "RunStepRequest", f'session_handle: "s" feed {{ name: "x:0" '
         f'tensor {{ {huge} }} }} fetch: "y:0"', "lib/proto/master.proto"),
        (5, "RunCallableRequest", f'session_handle: "s" handle: 1 feed {{ '
         f'{huge} }}', "lib/proto/master.proto"),
        (2, "RunGraphRequest", f'graph_handle: "g" step_id: 1 send {{ name: '
         f'"{key}" tensor {{ {huge} }} }}'),
        (9, "RecvTensorResponse", "tensor { dtype: DT_DOUBLE tensor_shape { "
         "dim { size: 1099511627776 } } double_val: 1 }"),
    ]
    for name, text in hostile_graphs():
        requests.append((0, "RegisterGraphRequest", f"graph_def {{ {text} }}"))
    for kind, message, text, *proto in requests:
        data = bytes([kind]) + encode(message, text,
                                      proto[0] if proto else
                                      "lib/proto/worker.proto")
        write(out, f"hostile_{kind}_{len(data)}_{zlib.crc32(data):08x}", data)
    return len(os.listdir(out))


def main():
    args = sys.argv[1:]
    dfg = os.path.join(ROOT, "build", "dfg")
    if "--dfg" in args:
        i = args.index("--dfg")
        dfg = args[i + 1]
        del args[i:i + 2]
    out = args[0]
    counts = {
        "graph": graph_seeds(os.path.join(out, "graph")),
        "npy": npy_seeds(os.path.join(out, "npy")),
        "checkpoint": checkpoint_seeds(os.path.join(out, "checkpoint")),
    }
    counts["request"] = request_seeds(os.path.join(out, "request"), dfg,
                                      os.path.join(out, "graph"))
    for name in counts:
        for path in glob.glob(os.path.join(ROOT, "lib/*/fuzz/seeds", name, "*")):
            shutil.copy(path, os.path.join(out, name))
            counts[name] += 1
    for name, n in counts.items():
        print(f"{name}: {n} seeds in {os.path.join(out, name)}")


if __name__ == "__main__":
    main()
