// ONNX Runtime's side of bench/compare-pytorch: runs the network exported
// by `train export -format onnx` in onnxruntime-node (CPU execution
// provider, intraOpNumThreads = the thread count, interOpNumThreads 1, every
// graph optimization on) and measures inference at the batch sizes asked
// for, by the same timing rule as the other sides.
//
// Usage: node compare-onnxruntime.mjs NODE_MODULES_DIR MODEL.onnx THREADS SECONDS
// It prints a line of JSON about itself, then reads figure names (infer-bN),
// one a line, from standard input and answers each with one line of JSON:
// {"name", "batch", "per_second", "median_ms", "reps"}, or
// {"name", "unsupported": true} for a figure it does not measure (training).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';

const [modules, model, threadsArg, secondsArg] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const ort = require(join(modules, 'onnxruntime-node'));
const version = require(join(modules, 'onnxruntime-node', 'package.json')).version;
const threads = Number(threadsArg);
const budget = Number(secondsArg) * 1000;
const BOARD = 11, SQUARES = BOARD * BOARD, PLANES = 15;

const options = {
  executionProviders: ['cpu'],
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};

// A small deterministic generator (mulberry32), for board-like inputs.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Board-like planes (NCHW): sparse 0/1 pieces, a side-to-move plane,
// constant rule planes, as compare-pytorch.py makes them.
function inputs(b, rand) {
  const x = new Float32Array(b * PLANES * SQUARES);
  for (let i = 0; i < b; i++) {
    const stm = rand() < 0.5 ? 1 : 0;
    for (let p = 0; p < PLANES; p++) {
      const rule = rand() < 0.5 ? 1 : 0;
      for (let s = 0; s < SQUARES; s++) {
        let v = 0;
        if (p < 3) v = rand() < 0.15 ? 1 : 0;
        else if (p === 3) v = stm;
        else if (p < 6) v = rand() < 0.1 ? 1 : 0;
        else if (p === 6) v = 1;
        else v = rule;
        x[(i * PLANES + p) * SQUARES + s] = v;
      }
    }
  }
  return x;
}

// The same rule as the Go and Python sides: warm up (at least 2 calls and a
// quarter of the budget), then time calls until the budget is spent (at
// least 3, at most 2000); the figure is the batch over the median time.
async function timed(call, batch) {
  let start = performance.now();
  for (let i = 0; i < 2 || performance.now() - start < budget / 4; i++) await call();
  const times = [];
  start = performance.now();
  while (times.length < 3 || (performance.now() - start < budget && times.length < 2000)) {
    const t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const n = times.length;
  const med = n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  return { per_second: batch / (med / 1000), median_ms: med, reps: n };
}

const session = await ort.InferenceSession.create(model, options);
const rand = rng(2026);
const calls = new Map(); // figure -> its call, kept warm across rounds
process.stdout.write(JSON.stringify({
  side: 'onnxruntime', threads, onnxruntime: version, provider: 'cpu',
  intra_op_num_threads: threads, graph_optimization_level: 'all',
}) + '\n');

const lines = createInterface({ input: process.stdin, terminal: false });
for await (const line of lines) {
  const name = line.trim();
  if (!name) continue;
  const m = /^infer-b([1-9][0-9]*)$/.exec(name);
  if (!m) {
    process.stdout.write(JSON.stringify({ name, unsupported: true }) + '\n');
    continue;
  }
  const b = Number(m[1]);
  if (!calls.has(name)) {
    const feeds = { planes: new ort.Tensor('float32', inputs(b, rand), [b, PLANES, BOARD, BOARD]) };
    const out = await session.run(feeds);
    if (out.policy.dims[0] !== b || out.policy.dims[1] !== SQUARES * 40 || out.wdl.dims[1] !== 3) {
      throw new Error(`${name}: outputs of dims ${out.policy.dims} and ${out.wdl.dims}`);
    }
    calls.set(name, () => session.run(feeds));
  }
  const fig = await timed(calls.get(name), b);
  process.stdout.write(JSON.stringify({ name, batch: b, ...fig }) + '\n');
}
