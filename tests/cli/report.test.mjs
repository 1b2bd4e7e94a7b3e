// flopcast report: one self-contained HTML file whose embedded data is the core's report data
// (its estimate equal to `flopcast estimate --json` of the same request), no outside URL, a CSP
// that forbids the network, bad input and a missing runtime or Chromium as exit 2 with a clear
// message, and --pdf through headless Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const runtime = join(root, 'dist/report-runtime.html');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-report-'));
const env = { ...process.env, FLOPCAST_CALIBRATION_FILE: join(tmp, 'c.json'), FLOPCAST_REPORT_RUNTIME: runtime };
const run = (args, extra = {}) => spawnSync(bin, args, { encoding: 'utf8', env: { ...env, ...extra } });
const request = ['llama-3-8b', '-g', 'H100-SXM', '-b', '4', '-s', '1024'];

/** The data a report file embeds (the <script type="application/json" id="data"> element). */
export function embedded(html) {
  const m = /<script type="application\/json" id="data">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(m, 'the report embeds its data');
  return JSON.parse(m[1]);
}

test('the report runtime is built (npm run build:web)', () => {
  assert.ok(existsSync(runtime), `${runtime} exists`);
});

test('report writes one self-contained file whose data is the estimate of the same request', () => {
  const out = join(tmp, 'x.html');
  const r = run(['report', ...request, '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  const html = readFileSync(out, 'utf8');
  // No outside reference: no http(s) or protocol-relative URL in a src or href, no <link>, no
  // external script; the CSP allows no fetch, frame, font or connection at all.
  assert.doesNotMatch(html, /\b(src|href)\s*=\s*["']?\s*(https?:)?\/\//i);
  assert.doesNotMatch(html, /<link\b/i);
  assert.doesNotMatch(html, /<script[^>]*\bsrc=/i);
  const csp = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html);
  assert.ok(csp, 'a CSP meta');
  assert.match(csp[1], /default-src 'none'/);
  assert.match(csp[1], /connect-src 'none'/);
  assert.match(csp[1], /script-src 'sha256-[A-Za-z0-9+/=]+'/);
  const data = embedded(html);
  const est = JSON.parse(run(['estimate', ...request, '--layer-table', '--json']).stdout);
  assert.deepEqual(data.estimate, est);
  const row = JSON.parse(run(['compare', ...request, '--json']).stdout)[0];
  assert.deepEqual(data.row, row);
  assert.equal(data.serving, null, 'no serving curve unless asked');
  // Batch series: compare over the same batch sizes.
  const rows = JSON.parse(
    run([
      'compare',
      'llama-3-8b',
      '-g',
      'H100-SXM',
      '-s',
      '1024',
      '-b',
      data.series.batch_size.values.join(','),
      '--json',
    ]).stdout,
  );
  assert.deepEqual(data.series.batch_size.rows, rows);
});

test('--serving adds the serving curve: one simulated point per concurrency', () => {
  const out = join(tmp, 's.html');
  const r = run(['report', ...request, '--serving', '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  const data = embedded(readFileSync(out, 'utf8'));
  assert.equal(data.serving.label, 'ESTIMATED');
  assert.deepEqual(
    data.serving.points.map((p) => p.concurrency),
    [1, 2, 4, 8, 16, 32, 64, 128],
  );
});

test('bad flags, a missing runtime and a missing output are exit 2 with a clear message', () => {
  const out = join(tmp, 'bad.html');
  let r = run(['report', 'llama-3-8b', '-g', 'H100-SXM', '-b', '0', '-o', out]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /\[flopcast\.config\.range\] \(--batch, \/batch_size\)/);
  assert.ok(!existsSync(out), 'nothing written');
  r = run(['report', ...request, '--frobnicate', '-o', out]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /frobnicate/);
  r = run(['report', ...request]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--output/);
  r = run(['report', 'llama-3-8b', '--serving', '-g', 'none', '-o', out]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /serving simulation needs one/);
  r = run(['report', ...request, '-o', out], { FLOPCAST_REPORT_RUNTIME: join(tmp, 'nothing.html') });
  assert.equal(r.status, 2);
  assert.match(
    r.stderr,
    /report runtime \(report-runtime\.html\) was not found at .*nothing\.html: build it with `npm run build:web`/,
  );
  assert.ok(!existsSync(out));
});

test('without FLOPCAST_REPORT_RUNTIME the build tree runtime is found beside the binary', () => {
  // <exe dir>/../dist/report-runtime.html: a copy of the layout with a link to the binary.
  const tree = join(tmp, 'tree');
  mkdirSync(join(tree, 'build'), { recursive: true });
  mkdirSync(join(tree, 'dist'));
  symlinkSync(bin, join(tree, 'build/flopcast'));
  symlinkSync(runtime, join(tree, 'dist/report-runtime.html'));
  const { FLOPCAST_REPORT_RUNTIME, ...rest } = env;
  const out = join(tmp, 'tree.html');
  const r = spawnSync(join(tree, 'build/flopcast'), ['report', ...request, '-o', out], { encoding: 'utf8', env: rest });
  // /proc/self/exe names the real binary: its ../dist is the repository's.
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(out));
});

test('--pdf prints with headless Chromium, or says how to get it (exit 2)', { timeout: 120000 }, () => {
  const html = join(tmp, 'p.html');
  const pdf = join(tmp, 'p.pdf');
  const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
  if (chromium) {
    const r = run(['report', ...request, '-o', html, '--pdf', pdf]);
    assert.equal(r.status, 0, r.stderr);
    const head = readFileSync(pdf).subarray(0, 5).toString('latin1');
    assert.equal(head, '%PDF-');
    assert.ok(readFileSync(pdf).length > 20000, 'a PDF with the charts drawn, not an empty page');
  }
  // PATH without any Chromium: the HTML is written, the PDF is refused with the way to get it.
  const r = run(['report', ...request, '-o', html, '--pdf', join(tmp, 'none.pdf')], { PATH: '/nonexistent' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--pdf needs Chromium .*apt-get install chromium/);
  assert.ok(existsSync(html));
  assert.ok(!existsSync(join(tmp, 'none.pdf')));
});
