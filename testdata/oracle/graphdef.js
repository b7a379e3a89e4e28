// Turns a GraphDef in protobuf JSON form (`dfg convert G -f json`) into the
// artifacts of a TensorFlow.js graph model: modelTopology = the GraphDef
// (pruned to what the fetches need), every Const becomes a weight of the same
// name (weightSpecs + weightData), `versions` is always present.
//
// tfjs holds float32, int32, bool, string only: double/half become float32,
// every integer type becomes int32 (int64 values outside int32 wrap).
'use strict';

const {halfToFloat} = require('./npy');

// TensorFlow dtype -> [tfjs dtype, TensorProto *_val field, bytes, reader].
const DTYPES = {
  DT_FLOAT: ['float32', 'floatVal', 4, (v, o) => v.getFloat32(o, true)],
  DT_DOUBLE: ['float32', 'doubleVal', 8, (v, o) => v.getFloat64(o, true)],
  DT_HALF: ['float32', 'halfVal', 2, (v, o) => halfToFloat(v.getUint16(o, true))],
  DT_BFLOAT16: ['float32', 'halfVal', 2,
                (v, o) => bf16ToFloat(v.getUint16(o, true))],
  DT_INT32: ['int32', 'intVal', 4, (v, o) => v.getInt32(o, true)],
  DT_INT16: ['int32', 'intVal', 2, (v, o) => v.getInt16(o, true)],
  DT_INT8: ['int32', 'intVal', 1, (v, o) => v.getInt8(o)],
  DT_UINT8: ['int32', 'intVal', 1, (v, o) => v.getUint8(o)],
  DT_UINT16: ['int32', 'intVal', 2, (v, o) => v.getUint16(o, true)],
  DT_UINT32: ['int32', 'uint32Val', 4, (v, o) => v.getUint32(o, true)],
  DT_INT64: ['int32', 'int64Val', 8, (v, o) => Number(v.getBigInt64(o, true))],
  DT_UINT64: ['int32', 'uint64Val', 8, (v, o) => Number(v.getBigUint64(o, true))],
  DT_BOOL: ['bool', 'boolVal', 1, (v, o) => v.getUint8(o) !== 0],
  DT_STRING: ['string', 'stringVal', 0, null],
};

function bf16ToFloat(bits) {
  const view = new DataView(new ArrayBuffer(4));
  view.setUint32(0, bits << 16, false);
  return view.getFloat32(0, false);
}

function shapeOf(tensorShape) {
  if (!tensorShape || !tensorShape.dim) return [];
  return tensorShape.dim.map(d => parseInt(d.size || '0', 10));
}

function scalarFromJson(dtype, x) {
  if (dtype === 'DT_HALF') return halfToFloat(Number(x));
  if (dtype === 'DT_BFLOAT16') return bf16ToFloat(Number(x));
  if (dtype === 'DT_BOOL') return Boolean(x);
  return Number(x);  // handles "NaN", "Infinity", int64 strings
}

// TensorProto (JSON) -> {dtype, shape, values}, values widened as above.
function decodeTensor(proto, where) {
  const spec = DTYPES[proto.dtype];
  if (!spec) throw new Error(`${where}: dtype ${proto.dtype} is not supported by tfjs`);
  const [dtype, field, bytes, read] = spec;
  const shape = shapeOf(proto.tensorShape);
  const n = shape.reduce((a, b) => a * b, 1);
  let values;
  if (proto.dtype === 'DT_STRING') {
    const vals = (proto.stringVal || []).map(s => Buffer.from(s, 'base64'));
    values = fill(vals, n, Buffer.alloc(0));
  } else if (proto.tensorContent) {
    const buf = Buffer.from(proto.tensorContent, 'base64');
    if (buf.length !== n * bytes) {
      throw new Error(`${where}: tensor_content has ${buf.length} bytes, ` +
                      `expected ${n * bytes}`);
    }
    const view = new DataView(buf.buffer, buf.byteOffset, buf.length);
    values = new Array(n);
    for (let i = 0; i < n; i++) values[i] = read(view, i * bytes);
  } else {
    const vals = (proto[field] || []).map(x => scalarFromJson(proto.dtype, x));
    values = fill(vals, n, dtype === 'bool' ? false : 0);
  }
  if (dtype === 'int32') values = values.map(x => x | 0);
  return {dtype, shape, values};
}

// TensorFlow's rule: fewer values than elements repeat the last one.
function fill(vals, n, zero) {
  if (vals.length >= n) return vals.slice(0, n);
  const last = vals.length ? vals[vals.length - 1] : zero;
  const out = vals.slice();
  while (out.length < n) out.push(last);
  return out;
}

// Little-endian bytes of a decoded tensor in tfjs's weight layout.
function encodeWeight(t) {
  if (t.dtype === 'string') {
    const parts = [];
    for (const s of t.values) {
      const len = Buffer.alloc(4);
      len.writeUInt32LE(s.length);
      parts.push(len, s);
    }
    return Buffer.concat(parts);
  }
  if (t.dtype === 'float32') return Buffer.from(Float32Array.from(t.values).buffer);
  if (t.dtype === 'int32') return Buffer.from(Int32Array.from(t.values).buffer);
  return Buffer.from(Uint8Array.from(t.values.map(b => (b ? 1 : 0))).buffer);
}

function nodeNameOf(input) {
  const s = input.startsWith('^') ? input.slice(1) : input;
  const colon = s.indexOf(':');
  return colon < 0 ? s : s.slice(0, colon);
}

// Keeps the nodes the fetches depend on (data and control inputs), stopping at
// fed nodes, which become input-less Placeholders, as TensorFlow's pruning
// does; tfjs would otherwise run every input-less node of the graph.
function prune(nodes, fetches, feeds) {
  const byName = new Map(nodes.map(n => [n.name, n]));
  const fed = new Set(feeds.map(nodeNameOf));
  const keep = new Set();
  const stack = fetches.map(nodeNameOf);
  while (stack.length) {
    const name = stack.pop();
    if (keep.has(name)) continue;
    const node = byName.get(name);
    if (!node) throw new Error(`no node named '${name}' in the graph`);
    keep.add(name);
    if (fed.has(name)) continue;
    for (const input of node.input || []) stack.push(nodeNameOf(input));
  }
  return nodes.filter(n => keep.has(n.name))
      .map(n => (fed.has(n.name) ? {name: n.name, op: 'Placeholder', attr: {}} : n));
}

// Renames a function body's Consts to '<function>/<node>' so that their
// weights cannot collide with top-level ones (tfjs shares one weight map).
function renameFunctionConsts(fn) {
  const renames = new Map();
  for (const node of fn.nodeDef || []) {
    if (node.op === 'Const') renames.set(node.name, `${fn.signature.name}/${node.name}`);
  }
  if (renames.size === 0) return;
  const rewrite = ref => {
    const ctrl = ref.startsWith('^') ? '^' : '';
    const body = ctrl ? ref.slice(1) : ref;
    const colon = body.indexOf(':');
    const name = colon < 0 ? body : body.slice(0, colon);
    if (!renames.has(name)) return ref;
    return ctrl + renames.get(name) + (colon < 0 ? '' : body.slice(colon));
  };
  for (const node of fn.nodeDef) {
    if (renames.has(node.name)) node.name = renames.get(node.name);
    if (node.input) node.input = node.input.map(rewrite);
  }
  for (const key of Object.keys(fn.ret || {})) fn.ret[key] = rewrite(fn.ret[key]);
}

// Moves a Const's value into the weights; the topology keeps only its dtype.
function takeWeight(node, weights, where) {
  const value = node.attr && node.attr.value && node.attr.value.tensor;
  if (!value) throw new Error(`${where}: Const '${node.name}' has no value`);
  const t = decodeTensor(value, `${where}: Const '${node.name}'`);
  weights.push({spec: {name: node.name, shape: t.shape, dtype: t.dtype},
                data: encodeWeight(t)});
  delete node.attr.value;
}

// Protobuf JSON omits zero fields, so a `dim { size: 0 }` arrives as `{}`,
// which tfjs would read as NaN: spell the zeros out in shape attrs.
function fillZeroDims(node) {
  const fix = shape => (shape.dim || []).forEach(d => {
    if (d.size === undefined) d.size = '0';
  });
  for (const value of Object.values(node.attr || {})) {
    if (value.shape) fix(value.shape);
    if (value.list && value.list.shape) value.list.shape.forEach(fix);
  }
}

// graph: parsed GraphDef JSON (mutated). Returns tfjs ModelArtifacts.
function toArtifacts(graph, fetches, feeds) {
  const nodes = prune(graph.node || [], fetches, feeds);
  const weights = [];
  for (const node of nodes) {
    fillZeroDims(node);
    if (node.op === 'Const') takeWeight(node, weights, 'graph');
  }
  const library = graph.library || {};
  for (const fn of library.function || []) {
    // protobuf JSON omits empty lists; tfjs reads these as arrays.
    fn.signature.inputArg = fn.signature.inputArg || [];
    fn.signature.outputArg = fn.signature.outputArg || [];
    fn.nodeDef = fn.nodeDef || [];
    fn.ret = fn.ret || {};
    renameFunctionConsts(fn);
    for (const node of fn.nodeDef || []) {
      fillZeroDims(node);
      if (node.op === 'Const') takeWeight(node, weights, `function ${fn.signature.name}`);
    }
  }
  const versions = Object.assign({producer: 0, minConsumer: 0}, graph.versions || {});
  const data = Buffer.concat(weights.map(w => w.data));
  return {
    modelTopology: {node: nodes, library, versions},
    format: 'graph-model',
    weightSpecs: weights.map(w => w.spec),
    weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.length),
  };
}

module.exports = {toArtifacts, decodeTensor, nodeNameOf};
