// The calibration store is never lost or corrupted: concurrent writers, a failed write, links,
// permissions and bad stores, through the real CLI on real files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-store-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const models = JSON.parse(spawnSync(bin, ['list-models', '--json'], { encoding: 'utf8' }).stdout)
  .filter((m) => !['bert', 'roberta', 't5'].includes(m.model_type) && m.parameters < 15e9)
  .map((m) => m.id);

function calibrate(store, model, extra = [], wrap = null) {
  const args = ['calibrate', model, '-g', 'A100', '-s', '512', '--decode-tps', '20', '--calibration', store, ...extra];
  return wrap
    ? spawnSync('bash', ['-c', wrap, 'x', bin, ...args], { encoding: 'utf8' })
    : spawnSync(bin, args, { encoding: 'utf8' });
}
const entries = (store) => JSON.parse(readFileSync(store, 'utf8')).entries;

test('20 concurrent calibrate runs keep all 20 entries, and the file stays valid JSON', async () => {
  const store = join(tmp, 'concurrent', 'calibration.json');
  const picked = models.slice(0, 20);
  assert.equal(picked.length, 20);
  const runs = picked.map(
    (m) =>
      new Promise((done) => {
        const p = spawn(bin, ['calibrate', m, '-g', 'A100', '-s', '512', '--decode-tps', '20', '--calibration', store]);
        let err = '';
        p.stderr.on('data', (d) => (err += d));
        p.on('close', (code) => done({ m, code, err }));
      }),
  );
  for (const r of await Promise.all(runs)) assert.equal(r.code, 0, `${r.m}: ${r.err}`);
  const stored = entries(store);
  assert.equal(stored.length, 20);
  assert.deepEqual(new Set(stored.map((e) => e.model)), new Set(picked));
  // No temporary file is left beside the store.
  assert.deepEqual(
    readdirSync(join(tmp, 'concurrent')).filter((f) => !f.endsWith('.lock')),
    ['calibration.json'],
  );
});

test('a failed write (file-size limit) leaves the old store intact and fails the command', () => {
  const store = join(tmp, 'fsize', 'calibration.json');
  for (const m of models.slice(0, 3)) assert.equal(calibrate(store, m).status, 0);
  const before = readFileSync(store, 'utf8');
  assert.ok(before.length > 512);
  // SIGXFSZ ignored, so write() fails with EFBIG past 512 bytes instead of killing the process.
  const r = calibrate(store, models[5], [], `trap '' XFSZ; ulimit -f 1; exec "$@"`);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^flopcast: error: \[flopcast\.io\] \(--calibration\) cannot write ".*": File too large\n$/);
  assert.doesNotMatch(r.stdout, /stored/);
  assert.equal(readFileSync(store, 'utf8'), before);
  assert.deepEqual(
    readdirSync(join(tmp, 'fsize')).filter((f) => !f.endsWith('.lock')),
    ['calibration.json'],
  );
});

test('a symlinked store stays a link, and the store keeps its permissions', () => {
  const dir = join(tmp, 'link');
  mkdirSync(dir);
  const real = join(dir, 'real.json');
  writeFileSync(real, JSON.stringify({ entries: [] }));
  chmodSync(real, 0o600);
  const link = join(dir, 'calibration.json');
  symlinkSync('real.json', link);
  assert.equal(calibrate(link, models[0]).status, 0);
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(entries(real).length, 1);
  assert.equal(statSync(real).mode & 0o777, 0o600);
});

test('bad stores get clear errors and are never overwritten', () => {
  const dir = join(tmp, 'bad');
  mkdirSync(dir);
  // A directory where the store should be.
  const asDir = join(dir, 'is-a-dir.json');
  mkdirSync(asDir);
  let r = calibrate(asDir, models[0]);
  assert.equal(r.status, 2);
  assert.match(
    r.stderr,
    /\(--calibration\) the calibration store ".*is-a-dir\.json" is a directory: expected a JSON file/,
  );
  r = spawnSync(bin, ['estimate', 'llama-3-8b', '--calibration', asDir], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /is a directory/);
  // A corrupt store: estimates and calibrate fail naming it, with the reset hint; it is kept.
  const corrupt = join(dir, 'corrupt.json');
  writeFileSync(corrupt, '{"entries": [');
  for (const args of [
    ['estimate', 'llama-3-8b', '--calibration', corrupt],
    ['calibrate', models[0], '-g', 'A100', '--decode-tps', '20', '--calibration', corrupt],
  ]) {
    r = spawnSync(bin, args, { encoding: 'utf8' });
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /not valid JSON: .* in .*corrupt\.json \(flopcast calibrate reset clears it\)/);
  }
  assert.equal(readFileSync(corrupt, 'utf8'), '{"entries": [');
  // A number beyond the double range in a store is a parse error, not an internal one.
  const huge = join(dir, 'huge.json');
  writeFileSync(huge, '{"entries": [{"gpu": "A100", "mem_efficiency": 1e400}]}');
  r = spawnSync(bin, ['estimate', 'llama-3-8b', '--calibration', huge], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /\[flopcast\.config\.parse\].*number overflow/);
  // reset removes it.
  r = spawnSync(bin, ['calibrate', '--calibration', corrupt, 'reset'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(!existsSync(corrupt));
});

test('a read-only folder is a clear error', { skip: process.getuid?.() === 0 && 'root ignores permissions' }, () => {
  const dir = join(tmp, 'readonly');
  mkdirSync(dir);
  chmodSync(dir, 0o500);
  const r = calibrate(join(dir, 'calibration.json'), models[0]);
  chmodSync(dir, 0o700);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /Permission denied/);
});
