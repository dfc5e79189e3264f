// Runs an ONNX model with ONNX Runtime (onnxruntime-node) on float32 input
// planes and prints its outputs as JSON: {"policy": [...], "wdl": [...]}.
// onnx_test.go runs it to check that ONNX Runtime computes what the Go
// inference computes from an exported network.
//
// Usage: node run_onnx.mjs NODE_MODULES_DIR MODEL.onnx INPUT.f32 BATCH
// INPUT.f32 holds BATCH x 15 x 11 x 11 little-endian float32 values (NCHW).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [modules, model, input, batchArg] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const ort = require(join(modules, 'onnxruntime-node'));

const batch = Number(batchArg);
const raw = readFileSync(input);
const planes = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
if (planes.length !== batch * 15 * 11 * 11) {
  throw new Error(`${input}: ${planes.length} values, want ${batch * 15 * 11 * 11}`);
}
const session = await ort.InferenceSession.create(model);
const out = await session.run({ planes: new ort.Tensor('float32', planes, [batch, 15, 11, 11]) });
const result = {};
for (const name of ['policy', 'wdl']) {
  result[name] = { dims: out[name].dims, data: Array.from(out[name].data) };
}
process.stdout.write(JSON.stringify(result));
