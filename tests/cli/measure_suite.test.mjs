// `flopcast measure MODEL --suite` as users run it: the real binary, llama-3.2-1b cut to its
// first layers, small sizes. No timing assertions: structure, sample counts, mean = mean of
// the samples, estimates beside every timed point, the HTML report, and bad inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = resolve(root, process.env.FLOPCAST_BIN ?? 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-measure-suite-'));
const env = {
  ...process.env,
  FLOPCAST_CALIBRATION_FILE: join(tmp, 'c.json'),
  FLOPCAST_REPORT_RUNTIME: join(root, 'dist/report-runtime.html'),
};
const run = (args, extra = {}) => {
  const r = spawnSync(bin, ['measure', ...args], {
    encoding: 'utf8',
    cwd: tmp,
    env: { ...env, ...extra },
    maxBuffer: 64 << 20,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const SMALL = [
  'llama-3.2-1b',
  '--layers',
  '2',
  '--precision',
  'int8',
  '--prompt',
  '32',
  '--gen',
  '6',
  '--batch',
  '2',
  '--repetitions',
  '3',
];
const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;

test('--suite --json: every task, samples = repetitions (prefill) and steps (decode), mean = mean(samples), estimates; --html writes the report', () => {
  const html = join(tmp, 'report.html');
  const r = run([...SMALL, '--suite', '--json', '--html', html]);
  assert.equal(r.code, 0, r.err);
  const d = JSON.parse(r.out);
  assert.equal(d.kind, 'measure-suite');
  assert.deepEqual(
    d.tasks.map((t) => t.name),
    ['prefill', 'decode', 'batch', 'kv_cache'],
  );
  assert.equal(d.model.layers, 2);
  assert.equal(d.model.layers_total, 16);
  assert.equal(d.calibration.label, 'MEASURED');
  const task = Object.fromEntries(d.tasks.map((t) => [t.name, t]));
  // Prompt lengths 16, 32 (--prompt 32); contexts the same; batches 1, 2 (--batch 2).
  assert.deepEqual(
    task.prefill.points.map((p) => p.value),
    [16, 32],
  );
  assert.deepEqual(
    task.decode.points.map((p) => p.value),
    [16, 32],
  );
  assert.deepEqual(
    task.batch.points.map((p) => [p.value, p.metric]),
    [
      [1, 'ttft_s'],
      [1, 'decode_step_s'],
      [2, 'ttft_s'],
      [2, 'decode_step_s'],
    ],
  );
  for (const p of task.prefill.points) assert.equal(p.measured.samples.length, 3); // --repetitions 3
  for (const p of task.decode.points) assert.equal(p.measured.samples.length, 5); // --gen 6: 5 steps
  for (const t of d.tasks)
    for (const p of t.points) {
      const m = p.measured;
      assert.equal(m.label, 'MEASURED');
      assert.equal(m.n, m.samples.length);
      assert.ok(Math.abs(m.mean - mean(m.samples)) <= 1e-12 * Math.abs(m.mean) + 1e-300, `${t.name} ${p.metric}`);
      const ss = m.samples.reduce((a, v) => a + (v - m.mean) ** 2, 0);
      assert.ok(Math.abs(m.stddev - Math.sqrt(ss / (m.n - 1))) <= 1e-9 * m.mean + 1e-300);
      assert.equal(m.p50 !== undefined, m.n >= 5);
      if (p.metric !== 'attend_s') {
        assert.equal(p.estimated.label, 'ESTIMATED');
        assert.equal(p.calibrated.label, 'ESTIMATED');
        assert.ok(p.estimated.value > 0 && p.calibrated.value > 0);
      }
    }
  // The KV cache per token, by hand: 2 layers x (K + V) x 8 KV heads x 64 x 4 B = 8192 B (fp32).
  const kv = task.kv_cache.points.filter((p) => p.metric === 'kv_bytes_per_token');
  assert.deepEqual(
    kv.map((p) => p.format),
    ['fp32', 'int8'],
  );
  assert.equal(kv[0].measured.mean, 8192);
  assert.equal(kv[0].estimated.value, 8192);
  assert.ok(kv[1].measured.mean < 8192 / 3);
  assert.deepEqual(
    kv[0].growth.map((g) => [g.tokens, g.bytes]),
    [
      [16, 16 * 8192],
      [32, 32 * 8192],
    ],
  );
  // The report: the same JSON embedded, self-contained (no src/href to anything outside).
  assert.ok(existsSync(html));
  const text = readFileSync(html, 'utf8');
  const embedded = JSON.parse(/<script type="application\/json" id="data">([\s\S]*?)<\/script>/.exec(text)[1]);
  assert.deepEqual(embedded, d);
  assert.doesNotMatch(text, /<script[^>]+src=|<link[^>]+href=/);
  assert.match(r.err, /wrote .*report\.html/);
});

test('--suite=TASKS and --tasks run the tasks named; --csv is one row per sample; text has the tables', () => {
  const csv = run(['llama-3.2-1b', '--layers', '1', ...SMALL.slice(3), '--suite=decode', '--csv']);
  assert.equal(csv.code, 0, csv.err);
  const lines = csv.out.trim().split('\n');
  assert.equal(
    lines[0],
    'task,parameter,value,format,metric,unit,sample,measured,mean,stddev,n,label,estimated,calibrated',
  );
  assert.equal(lines.length, 1 + 2 * 5); // 2 contexts x 5 steps
  for (const l of lines.slice(1))
    assert.match(
      l,
      /^decode,context_tokens,(16|32),,decode_step_s,s,[1-5],[\d.e-]+,[\d.e-]+,[\d.e-]+,5,MEASURED,[\d.e-]+,[\d.e-]+$/,
    );
  const text = run([
    'llama-3.2-1b',
    '--layers',
    '1',
    '--precision',
    'int8',
    '--prompt',
    '16',
    '--tasks',
    'prefill',
    '--repetitions',
    '2',
  ]);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /^prefill \(/m);
  assert.match(text.out, /prompt_tokens 16 +ttft_s/);
  assert.doesNotMatch(text.out, /^decode \(/m);
});

test('bad suite inputs: exit 2, the option named, nothing measured', () => {
  const bad = run(['llama-3.2-1b', '--layers', '1', '--suite=prefill,warp']);
  assert.equal(bad.code, 2);
  assert.equal(bad.out, '');
  assert.match(
    bad.err,
    /\[flopcast\.invalid_argument\] \(--suite\) unknown task "warp": expected all or a comma-separated list of prefill, decode, batch, kv_cache/,
  );
  const gen = run(['llama-3.2-1b', '--layers', '1', '--suite', '--gen', '1']);
  assert.equal(gen.code, 2);
  assert.match(gen.err, /\(--gen\)/);
  const html = run(['llama-3.2-1b', '--layers', '1', '--html', join(tmp, 'x.html')]);
  assert.equal(html.code, 2);
  assert.match(html.err, /\(--html\) .*--suite/);
  const missing = run(['llama-3.2-1b', '--layers', '1', '--suite', '--html', join(tmp, 'y.html')], {
    FLOPCAST_REPORT_RUNTIME: join(tmp, 'nothing.html'),
  });
  assert.equal(missing.code, 2);
  assert.match(missing.err, /FLOPCAST_REPORT_RUNTIME/);
  assert.ok(!existsSync(join(tmp, 'y.html')));
});
