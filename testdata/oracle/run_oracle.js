#!/usr/bin/env node
// The independent oracle of dfg run: executes a GraphDef with TensorFlow.js
// (tfjs-core + the pure JavaScript CPU backend + tfjs-converter's graph
// executor, which implements TensorFlow's op semantics and v1 control flow).
//
//   node run_oracle.js GRAPH.json [--feed NAME=FILE.npy]... --fetch T...
//                      --output-dir DIR
//   node run_oracle.js --batch MANIFEST.json
//
// GRAPH.json is a GraphDef in protobuf JSON (`dfg convert G -f json`). Each
// fetch T is written as DIR/<T with [^A-Za-z0-9._-] replaced by _>.npy, the
// naming of `dfg run --output-dir`. Feeds are widened/narrowed to tfjs dtypes
// (int64 -> int32, float64 -> float32). A batch manifest is a JSON list of
// {"id", "graph", "feeds": {name: path}, "fetches": [...], "output_dir"}; one
// JSON line {"id", "ok", "error"} per case goes to stdout, so that hundreds of
// cases share one Node start-up.
//
// Limits (see README.md): no int64/float64 (values are int32/float32), no dead
// tensors (an untaken Switch branch is simply absent), Merge has no
// value_index output, no variables or other stateful resources.
'use strict';

const fs = require('fs');
const path = require('path');

// tfjs prints advice on console.warn (e.g. "use model.execute() instead");
// keep stderr for real errors.
const realWarn = console.warn;
console.warn = (...args) => {
  if (process.env.DFG_ORACLE_VERBOSE) realWarn(...args);
};

const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const tfconv = require('@tensorflow/tfjs-converter');
const {readNpy, writeNpy} = require('./npy');
const {toArtifacts} = require('./graphdef');

function outputFileName(tensorName) {
  return tensorName.replace(/[^A-Za-z0-9._-]/g, '_') + '.npy';
}

function tensorFromNpy(file) {
  const a = readNpy(file);
  return tf.tensor(a.values, a.shape, a.dtype);
}

// One case: load, run with executeAsync (control flow), write fetches.
async function runCase(c) {
  const graph = JSON.parse(fs.readFileSync(c.graph, 'utf8'));
  const feedNames = Object.keys(c.feeds || {});
  const artifacts = toArtifacts(graph, c.fetches, feedNames);
  const model = await tfconv.loadGraphModel({load: async () => artifacts});
  const inputs = {};
  for (const name of feedNames) inputs[name] = tensorFromNpy(c.feeds[name]);
  try {
    let outs = await model.executeAsync(inputs, c.fetches);
    if (!Array.isArray(outs)) outs = [outs];
    fs.mkdirSync(c.output_dir, {recursive: true});
    c.fetches.forEach((name, i) => {
      const t = outs[i];
      if (t == null) throw new Error(`fetch '${name}' produced no value`);
      if (t.dtype !== 'float32' && t.dtype !== 'int32' && t.dtype !== 'bool') {
        throw new Error(`fetch '${name}' has dtype ${t.dtype}, not comparable`);
      }
      const values = Array.from(t.dataSync());
      if (values.length !== t.size) {  // seen with tfjs's broadcasting BatchMatMul
        throw new Error(`tfjs bug: fetch '${name}' has ${values.length} values ` +
                        `for shape [${t.shape}]`);
      }
      writeNpy(path.join(c.output_dir, outputFileName(name)), t.dtype, t.shape, values);
    });
    outs.forEach(t => t && !t.isDisposed && t.dispose());
  } finally {
    Object.values(inputs).forEach(t => t.dispose());
    model.dispose();
  }
}

function parseArgs(argv) {
  const c = {graph: null, feeds: {}, fetches: [], output_dir: null, batch: null};
  let mode = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--batch') {
      c.batch = argv[++i];
    } else if (a === '--feed' || a === '--fetch') {
      mode = a;
    } else if (a === '--output-dir') {
      c.output_dir = argv[++i];
    } else if (a.startsWith('--')) {
      throw new Error(`unknown flag ${a}`);
    } else if (mode === '--feed') {
      const eq = a.indexOf('=');
      if (eq < 0) throw new Error(`--feed wants NAME=FILE.npy, got '${a}'`);
      c.feeds[a.slice(0, eq)] = a.slice(eq + 1);
    } else if (mode === '--fetch') {
      c.fetches.push(a);
    } else if (c.graph === null) {
      c.graph = a;
    } else {
      throw new Error(`unexpected argument '${a}'`);
    }
  }
  if (c.batch === null) {
    if (!c.graph) throw new Error('no GRAPH.json given');
    if (!c.fetches.length) throw new Error('no --fetch given');
    if (!c.output_dir) throw new Error('no --output-dir given');
  }
  return c;
}

function errorText(e) {
  return (e && e.message ? e.message : String(e)).split('\n')[0];
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  await tf.setBackend('cpu');
  if (args.batch === null) {
    await runCase(args);
    return 0;
  }
  const cases = JSON.parse(fs.readFileSync(args.batch, 'utf8'));
  for (const c of cases) {
    const start = Date.now();
    let result;
    try {
      await runCase(c);
      result = {id: c.id, ok: true};
    } catch (e) {
      result = {id: c.id, ok: false, error: errorText(e)};
    }
    result.ms = Date.now() - start;
    process.stdout.write(JSON.stringify(result) + '\n');
  }
  return 0;
}

main().then(code => process.exit(code), e => {
  process.stderr.write(`run_oracle: error: ${errorText(e)}\n`);
  process.exit(1);
});
