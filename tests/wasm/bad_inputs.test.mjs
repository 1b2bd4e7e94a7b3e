// The shared bad-input fixture through the WASM API: each case throws a FlopcastError with
// exactly the fixture's code, pointer and message (the C++ and CLI suites check the same file),
// and failing calls leave the module's heap flat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, root } from './load.mjs';

const { cases } = JSON.parse(readFileSync(join(root, 'tests/fixtures/bad_inputs.json'), 'utf8'));
// One instance for both tests: under node:test, instantiating a second module after the first
// has run every case hangs Node 20 (seen with 175 cases; each test's heap check is relative).
const loaded = load();

test('the bad-input fixture gives the same code, pointer and message through WASM', async () => {
  const { fc, FlopcastError } = await loaded;
  assert.ok(cases.length >= 60);
  const run = (c) => fc[c.entry](c.request);
  for (const c of cases) assert.throws(() => run(c)); // warm the allocator once
  for (const c of cases) {
    assert.throws(
      () => run(c),
      (e) => {
        assert.ok(e instanceof FlopcastError, `${c.name}: a FlopcastError, got ${e}`);
        assert.equal(e.code, c.code, `${c.name}: code`);
        assert.equal(e.pointer, c.pointer, `${c.name}: pointer`);
        assert.equal(e.message, `[flopcast.${c.code}] ${c.pointer ? `(${c.pointer}) ` : ''}${c.message}`, c.name);
        return true;
      },
      c.name,
    );
  }
  const before = fc.heapUsed();
  for (let i = 0; i < 5; i++) for (const c of cases) assert.throws(() => run(c));
  assert.ok(fc.heapUsed() - before <= 64 * 1024, `heap grew by ${fc.heapUsed() - before} bytes`);
});

test('hostile texts and objects: FlopcastError (never a RangeError), and the heap stays flat', async () => {
  const { fc, FlopcastError } = await loaded;
  const deepText = `{"model": ${'['.repeat(100000)}`;
  let deepObject = 'llama-3-8b';
  for (let i = 0; i < 20000; i++) deepObject = [deepObject];
  const cases = [
    [() => fc.estimate(deepText), 'limit'],
    [() => fc.estimate(`{"model": {"model_type": "llama", "hidden_size": ${'['.repeat(7000)}}}`), 'limit'],
    [() => fc.estimate({ model: deepObject }), 'limit'],
    [() => fc.estimate('{"model": "llama-3-8b", "batch_size": 1e400}'), 'config.parse'],
    [() => fc.estimate('{"model": "llama-3-8b", "model": "gpt2"}'), 'config.parse'],
    [() => fc.estimate(' '.repeat(17 << 20)), 'limit'],
  ];
  for (const [run, code] of cases) assert.throws(run, (e) => e instanceof FlopcastError && e.code === code);
  const before = fc.heapUsed();
  for (let i = 0; i < 20; i++) for (const [run] of cases.slice(0, 5)) assert.throws(run, FlopcastError);
  assert.ok(fc.heapUsed() - before <= 64 * 1024, `heap grew by ${fc.heapUsed() - before} bytes`);
  assert.equal(fc.estimate({ model: 'llama-3-8b' }).parameters, 8030261248);
});
