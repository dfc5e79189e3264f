// Reads Arrow IPC files with apache-arrow (the JavaScript implementation)
// and prints, as one JSON array, each file's schema metadata, columns and
// rows: 64-bit integers as decimal strings, lists as arrays, structs as
// objects. node_test.go runs it to check that another Arrow implementation
// reads what the datasets package writes.
//
// Usage: node read_arrow.mjs NODE_MODULES_DIR FILE.arrow...
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, ...files] = process.argv.slice(2);
const arrow = await import(pathToFileURL(join(modules, 'apache-arrow', 'Arrow.node.mjs')).href);

function plain(v) {
  if (typeof v === 'bigint') return v.toString();
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof arrow.Vector) return Array.from(v, plain);
  if (typeof v.toJSON === 'function') {
    const out = {};
    for (const [k, x] of Object.entries(v.toJSON())) out[k] = plain(x);
    return out;
  }
  return v;
}

const out = [];
for (const file of files) {
  const table = arrow.tableFromIPC(readFileSync(file));
  const fields = table.schema.fields;
  const rows = [];
  for (let i = 0; i < table.numRows; i++) {
    const row = {};
    for (const f of fields) row[f.name] = plain(table.getChild(f.name).get(i));
    rows.push(row);
  }
  out.push({
    file,
    metadata: Object.fromEntries(table.schema.metadata),
    columns: fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable })),
    num_rows: table.numRows,
    rows,
  });
}
process.stdout.write(JSON.stringify(out));
