// Minimal .npy reader/writer (format versions 1.0-3.0, C or Fortran order,
// either byte order) for the oracle. Reads every numeric dtype plus bool and
// returns values widened to what TensorFlow.js holds: float32, int32, bool.
// Writes float32 '<f4', int32 '<i4' and bool '|b1'.
'use strict';

const fs = require('fs');

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]);  // \x93NUMPY

// descr kind+size -> [bytes per element, reader(dataView, offset, little)].
const READERS = {
  b1: [1, (v, o) => v.getUint8(o) !== 0],
  i1: [1, (v, o) => v.getInt8(o)],
  u1: [1, (v, o) => v.getUint8(o)],
  i2: [2, (v, o, le) => v.getInt16(o, le)],
  u2: [2, (v, o, le) => v.getUint16(o, le)],
  i4: [4, (v, o, le) => v.getInt32(o, le)],
  u4: [4, (v, o, le) => v.getUint32(o, le)],
  i8: [8, (v, o, le) => Number(v.getBigInt64(o, le))],
  u8: [8, (v, o, le) => Number(v.getBigUint64(o, le))],
  f2: [2, (v, o, le) => halfToFloat(v.getUint16(o, le))],
  f4: [4, (v, o, le) => v.getFloat32(o, le)],
  f8: [8, (v, o, le) => v.getFloat64(o, le)],
};

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * Math.pow(2, -14) * (frac / 1024);
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * Math.pow(2, exp - 15) * (1 + frac / 1024);
}

// The tfjs dtype an npy kind widens to.
function tfjsDtype(kind) {
  if (kind === 'b1') return 'bool';
  if (kind[0] === 'f') return 'float32';
  return 'int32';
}

function parseHeader(text) {
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(text);
  const order = /'fortran_order'\s*:\s*(True|False)/.exec(text);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(text);
  if (!descr || !order || !shape) throw new Error(`bad npy header: ${text}`);
  const dims = shape[1].split(',').map(s => s.trim()).filter(s => s.length);
  return {
    descr: descr[1],
    fortran: order[1] === 'True',
    shape: dims.map(d => parseInt(d, 10)),
  };
}

// Returns {dtype: 'float32'|'int32'|'bool', shape: number[], values: Array,
// npyKind: e.g. 'i8'}. values are in C (row-major) order.
function readNpy(path) {
  const buf = fs.readFileSync(path);
  if (buf.length < 10 || !buf.subarray(0, 6).equals(MAGIC)) {
    throw new Error(`${path}: not an .npy file`);
  }
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = parseHeader(buf.toString('latin1', start, start + headerLen));
  const endian = header.descr[0];
  const kind = header.descr.slice(1);
  const reader = READERS[kind];
  if (!reader) throw new Error(`${path}: unsupported npy dtype '${header.descr}'`);
  const little = endian !== '>';
  const [size, read] = reader;
  const count = header.shape.reduce((a, b) => a * b, 1);
  const view = new DataView(buf.buffer, buf.byteOffset + start + headerLen);
  const raw = new Array(count);
  for (let i = 0; i < count; i++) raw[i] = read(view, i * size, little);
  const values = header.fortran ? fortranToC(raw, header.shape) : raw;
  return {dtype: tfjsDtype(kind), shape: header.shape, values, npyKind: kind};
}

function fortranToC(raw, shape) {
  const n = raw.length;
  const out = new Array(n);
  const rank = shape.length;
  const idx = new Array(rank).fill(0);
  for (let c = 0; c < n; c++) {
    let f = 0;
    let stride = 1;
    for (let d = 0; d < rank; d++) {
      f += idx[d] * stride;
      stride *= shape[d];
    }
    out[c] = raw[f];
    for (let d = rank - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

const WRITERS = {
  float32: ['<f4', 4, (v, o, x) => v.setFloat32(o, x, true)],
  int32: ['<i4', 4, (v, o, x) => v.setInt32(o, x, true)],
  bool: ['|b1', 1, (v, o, x) => v.setUint8(o, x ? 1 : 0)],
};

// Writes values (row-major) of `dtype` and `shape` as a version 1.0 .npy.
function writeNpy(path, dtype, shape, values) {
  const writer = WRITERS[dtype];
  if (!writer) throw new Error(`cannot write dtype '${dtype}' as .npy`);
  const [descr, size, write] = writer;
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header =
      `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header = header + ' '.repeat(pad % 64) + '\n';
  const data = Buffer.alloc(values.length * size);
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  for (let i = 0; i < values.length; i++) write(view, i * size, values[i]);
  const prefix = Buffer.alloc(10);
  MAGIC.copy(prefix);
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  fs.writeFileSync(path, Buffer.concat([prefix, Buffer.from(header, 'latin1'), data]));
}

module.exports = {readNpy, writeNpy, halfToFloat};
