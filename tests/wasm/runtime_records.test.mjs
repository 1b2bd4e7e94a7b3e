// tools/runtime_records.mjs: what the WebAssembly module embeds is data/ minus only the prose the
// core never reads, with every number's text kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './load.mjs';

const tool = join(root, 'tools/runtime_records.mjs');
const run = (out, files) => spawnSync(process.execPath, [tool, out, ...files], { encoding: 'utf8' });

test('the embedded records are data/ without sources, config notes and published prose', () => {
  const out = mkdtempSync(join(tmpdir(), 'flopcast-records-'));
  const models = readdirSync(join(root, 'data/models')).map((f) => join(root, 'data/models', f));
  const r = run(out, [join(root, 'data/gpus.json'), ...models]);
  assert.equal(r.status, 0, r.stderr);
  const gpus = JSON.parse(readFileSync(join(root, 'data/gpus.json'), 'utf8'));
  const kept = JSON.parse(readFileSync(join(out, 'gpus.json'), 'utf8'));
  delete gpus.note;
  for (const g of gpus.gpus) {
    assert.ok(g.sources, `${g.name} has sources in data/`);
    delete g.sources;
  }
  assert.deepEqual(kept, gpus);
  for (const f of models) {
    const name = f.split('/').at(-1);
    const record = JSON.parse(readFileSync(f, 'utf8'));
    delete record.config_note;
    if (record.published) {
      delete record.published.text;
      delete record.published.source;
    }
    const text = readFileSync(join(out, name), 'utf8');
    assert.deepEqual(JSON.parse(text), record, name);
    assert.ok(!text.includes('\n'), `${name} is compact`);
  }
});

test('numbers keep their text, strings their content; bad JSON fails the build', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flopcast-records-'));
  const file = join(dir, 'm.json');
  const text =
    '{ "id": "x\\u00e9\\"q", "config": { "big": 123456789012345678901, "f": 1.9399996995925903e-3, "neg": -0 },\n "config_note": "drop" }';
  writeFileSync(file, text);
  const r = run(join(dir, 'out'), [file]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(
    readFileSync(join(dir, 'out/m.json'), 'utf8'),
    '{"id":"xé\\"q","config":{"big":123456789012345678901,"f":1.9399996995925903e-3,"neg":-0}}',
  );
  writeFileSync(file, '{"id": "x", "config": {"a": 1,}}');
  const bad = run(join(dir, 'out'), [file]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /m\.json: expected a key at offset/);
});
