// The hostile inputs of the reliability issue, as files through the real CLI: each exits 2 with
// one line naming the problem, quickly, and never with "internal error" or a signal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-limits-'));
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const llama = {
  model_type: 'llama',
  hidden_size: 4096,
  num_hidden_layers: 32,
  num_attention_heads: 32,
  vocab_size: 32000,
  intermediate_size: 11008,
};
const gpu = {
  name: 'X',
  memory_bytes: 80e9,
  memory_bandwidth_bytes_per_s: 2e12,
  tdp_watts: 700,
  peak_flops: { bf16: 1e15 },
};
function file(name, text) {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}
function fails(args, pattern) {
  const t0 = Date.now();
  const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 20000 });
  assert.equal(r.signal, null, `${args.join(' ')}: killed by ${r.signal}`);
  assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /internal error/);
  assert.match(lines[0], pattern);
  assert.ok(Date.now() - t0 < 5000, `${args.join(' ')} took ${Date.now() - t0} ms`);
}

test('hostile config files are refused clearly', () => {
  fails(['estimate', file('deep.json', '['.repeat(100000))], /\[flopcast\.limit\] .* nested deeper than 128 levels/);
  fails(
    ['estimate', file('deep-value.json', `{"model_type": "llama", "hidden_size": ${'['.repeat(100000)}`)],
    /\[flopcast\.limit\]/,
  );
  fails(['estimate', file('huge-number.json', '{"model_type": "llama", "hidden_size": 1e400}')], /number overflow/);
  fails(
    ['estimate', file('dup.json', '{"model_type": "llama", "hidden_size": 4096, "hidden_size": 8192}')],
    /has the key "hidden_size" twice/,
  );
  fails(
    ['estimate', file('layers.json', JSON.stringify({ ...llama, num_hidden_layers: 1e6 }))],
    /\(MODEL, \/model\/num_hidden_layers\) expected a positive integer \(at most 2\^16\), but got 1000000/,
  );
  fails(
    ['estimate', file('layers9.json', JSON.stringify({ ...llama, num_hidden_layers: 1e9 }))],
    /at most 2\^16\), but got 1000000000/,
  );
  fails(['estimate', '/dev/zero'], /\[flopcast\.limit\] \(MODEL, \/model\) "\/dev\/zero" is larger than 16 MiB/);
  fails(
    ['estimate', file('big.json', `{"model_type": "gpt2", "pad": "${'x'.repeat(17 << 20)}"}`)],
    /larger than 16 MiB/,
  );
  fails(['estimate', tmp], /it is a directory/);
});

test('hostile GPU files are refused clearly', () => {
  fails(
    ['throughput', 'llama-3-8b', '--gpu-file', file('g30.json', JSON.stringify({ ...gpu, memory_bytes: 1e30 }))],
    /\(--gpu-file, \/gpu\/memory_bytes\) expected a number of bytes in \[1000000, 1e\+15\], but got 1e\+30/,
  );
  fails(
    ['estimate', 'llama-3-8b', '--gpu-file', file('g20.json', JSON.stringify({ ...gpu, memory_bytes: 1e20 }))],
    /\/gpu\/memory_bytes/,
  );
  fails(
    [
      'estimate',
      'llama-3-8b',
      '--gpu-file',
      file('bw.json', JSON.stringify({ ...gpu, memory_bandwidth_bytes_per_s: 1e-300 })),
    ],
    /\/gpu\/memory_bandwidth_bytes_per_s\) expected a number of bytes\/s/,
  );
  fails(
    ['estimate', 'llama-3-8b', '--gpu-file', file('pk.json', JSON.stringify({ ...gpu, peak_flops: { bf16: 1e-310 } }))],
    /\/gpu\/peak_flops\/bf16\) expected a number of FLOP\/s/,
  );
});

test('a UTF-8 byte order mark is accepted, as everywhere', () => {
  const path = file(
    'bom.json',
    `\ufeff${JSON.stringify({ model_type: 'gpt2', n_embd: 768, n_layer: 12, n_head: 12, vocab_size: 50257 })}`,
  );
  const r = spawnSync(bin, ['estimate', path, '-g', 'none', '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).parameters, 124439808);
});
