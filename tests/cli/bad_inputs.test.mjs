// The shared bad-input fixture through the real CLI: each case that has an argv must exit 2
// with one line, "flopcast: error: [flopcast.<code>] (<flag>, <pointer>) <message>", where the
// code, pointer and message are exactly the C++ API's and WASM's (the CLI adds only the flag, and
// for an unknown model or GPU where to look).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const { cases } = JSON.parse(readFileSync(join(root, 'tests/fixtures/bad_inputs.json'), 'utf8'));

// The one thing the CLI adds to a message: where to look, for an unknown model or GPU (the core's
// message, shown as is by the page and the widget, names no command or flag).
function cliHint(c) {
  if (c.code === 'unknown_model')
    return c.pointer === '/model'
      ? ' (flopcast list-models shows all; a path to a config.json also works)'
      : ' (flopcast list-models shows all)';
  if (c.code === 'unknown_gpu') return ' (flopcast list-gpus shows all; --gpu-file reads a custom one)';
  return '';
}

test('the bad-input fixture gives the same code, pointer and message through the CLI', () => {
  for (const c of cases)
    assert.doesNotMatch(c.message, /flopcast list-|--gpu-file/, `${c.name}: the core's message has no CLI hint`);
  const home = mkdtempSync(join(tmpdir(), 'flopcast-bad-'));
  try {
    const withArgv = cases.filter((c) => c.argv);
    assert.ok(withArgv.length >= 50, `at least 50 cases have a CLI spelling, got ${withArgv.length}`);
    for (const c of withArgv) {
      const r = spawnSync(bin, c.argv, {
        encoding: 'utf8',
        env: { ...process.env, HOME: home, FLOPCAST_CALIBRATION_FILE: join(home, 'calibration.json') },
      });
      assert.equal(r.status, 2, `${c.name}: exit code (${r.stderr})`);
      assert.equal(r.stdout, '', c.name);
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, `${c.name}: one line, got ${r.stderr}`);
      const m = /^flopcast: error: \[flopcast\.([\w.]+)\] \(([^)]*)\) (.*)$/.exec(lines[0]);
      assert.ok(m, `${c.name}: the error's shape: ${lines[0]}`);
      assert.equal(m[1], c.code, `${c.name}: code`);
      const where = m[2].split(', ');
      assert.equal(where.at(-1), c.pointer, `${c.name}: pointer`);
      if (c.pointer.startsWith('/') && where.length === 2) assert.match(where[0], /^(--[a-z-]+|MODEL)$/, c.name);
      assert.equal(m[3], c.message + cliHint(c), `${c.name}: message`);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('an option is named beside its pointer', () => {
  const r = spawnSync(bin, ['estimate', 'llama-3-8b', '-b', '0'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /\(--batch, \/batch_size\) expected a positive integer/);
});
