// An .onnx file dropped or chosen on the page: read without its weights (File.slice of the graph
// only, recorded here), profiled by the core at the page's GPU and precision; its totals equal
// `build/flopcast profile FILE --json` exactly, symbolic dims are asked for, an unbound one shows
// the core's error. Fixtures: tests/fixtures/onnx/make_fixtures.py (/usr/bin/python3).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, launch, openPage, dist, root, watchWorkerReads } from './harness.mjs';

let site, browser;
const dir = mkdtempSync(join(tmpdir(), 'flopcast-browser-onnx-'));
execFileSync('/usr/bin/python3', [join(root, 'tests/fixtures/onnx/make_fixtures.py'), dir]);
before(async () => {
  site = await serve(dist);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const cli = (file, dims = []) => {
  const r = spawnSync(join(root, 'build/flopcast'), ['profile', file, '--json', ...dims.flatMap((d) => ['--dim', d])], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const totals = (page) =>
  page.$$eval('#onnx-total [data-onnx]', (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.onnx, e.dataset.value])),
  );

async function open() {
  const { page, context, errors } = await openPage(browser, 'about:blank');
  await context.addInitScript(() => {
    window.__reads = [];
    const slice = Blob.prototype.slice;
    Blob.prototype.slice = function (start, end, type) {
      window.__reads.push([start ?? 0, end ?? this.size]);
      return slice.call(this, start, end, type);
    };
  });
  await page.goto(`${site.url}/index.html`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  return { page, errors };
}

// Same precision and GPU as the page's current selection ('auto', the checkpoint's format: the CLI's default).
const pageOptions = (page) =>
  page.evaluate(() => [document.getElementById('gpu').value, document.getElementById('precision').value]);

test('the conv net: totals equal the CLI profile exactly, per op type table', async () => {
  const { page, errors } = await open();
  const file = join(dir, 'convnet.onnx');
  await page.setInputFiles('#checkpoint-file', file);
  await page.waitForSelector('#onnx-total [data-onnx="flops"]');
  const [gpu, precision] = await pageOptions(page);
  const want = cli(file, []).total;
  const wantAt = JSON.parse(
    spawnSync(
      join(root, 'build/flopcast'),
      ['profile', file, '--json', '--gpu', gpu, ...(precision === 'auto' ? [] : ['--precision', precision])],
      {
        encoding: 'utf8',
      },
    ).stdout,
  );
  const got = await totals(page);
  assert.equal(Number(got.flops), want.flops);
  assert.equal(Number(got.parameters), want.parameters);
  assert.equal(Number(got.macs), want.macs);
  assert.equal(Number(got.roofline_time_s), wantAt.total.roofline_time_s);
  // Hand count: conv1 16*3*3*3 + 16 bias, bn 4*16, conv2 32*4*3*3, fc 10*32 + 10 = 448+64+1152+330 = 1994.
  assert.equal(Number(got.parameters), 1994);
  const ops = await page.$$eval('#onnx-by-op tr', (trs) => trs.map((tr) => tr.children[0].dataset.value));
  assert.ok(ops.includes('Conv') && ops.includes('Gemm'), String(ops));
  assert.deepEqual(errors, []);
});

test('the llama block: dims asked for, unbound dim -> the core error, then totals equal the CLI', async () => {
  const { page, errors } = await open();
  const file = join(dir, 'llama_block.onnx');
  await page.setInputFiles('#checkpoint-file', file);
  await page.waitForSelector('#onnx-dims input');
  const dims = await page.$$eval('#onnx-dims input', (els) => els.map((e) => e.dataset.dim));
  assert.ok(dims.length >= 1, String(dims));
  const err = await page.textContent('#onnx-error');
  assert.match(err, new RegExp(dims[0]));
  assert.equal(await page.getAttribute('#onnx-error', 'data-code'), 'invalid_argument');
  assert.equal(await page.$('#onnx-total [data-onnx]'), null);
  const values = Object.fromEntries(dims.map((d, k) => [d, k + 2]));
  for (const d of dims) await page.fill(`[data-dim="${d}"]`, String(values[d]));
  await page.waitForSelector('#onnx-total [data-onnx="flops"]');
  assert.equal(await page.textContent('#onnx-error'), '');
  const want = cli(
    file,
    dims.map((d) => `${d}=${values[d]}`),
  ).total;
  const got = await totals(page);
  assert.equal(Number(got.flops), want.flops);
  assert.equal(Number(got.parameters), want.parameters);
  // The depth control regroups the scopes.
  const scopes = async () => page.$$eval('#onnx-by-scope tr', (trs) => trs.length);
  await page.fill('#onnx-depth', '1');
  const one = await scopes();
  await page.fill('#onnx-depth', '4');
  assert.ok((await scopes()) >= one);
  assert.deepEqual(errors, []);
});

test('a large inline initializer is not read: the bytes sliced are far below the file size', async () => {
  const { page, errors } = await open();
  const file = join(dir, 'big_inline.onnx');
  const size = statSync(file).size; // 8 MiB of raw_data + a few hundred bytes of graph
  // A drop, as a user does it: a DataTransfer holding the file's bytes.
  // The bytes cross to the page as base64 (an array of 8M numbers took a minute and a half to send).
  const handle = await page.evaluateHandle(
    async ([base64, name]) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name));
      return dt;
    },
    [(await import('node:fs')).readFileSync(file).toString('base64'), 'big_inline.onnx'],
  );
  await page.evaluate(() => (window.__reads = []));
  const workerReads = await watchWorkerReads(page);
  await page.dispatchEvent('#checkpoint-drop', 'drop', { dataTransfer: handle });
  await page.waitForSelector('[data-dim="batch"]');
  await page.fill('[data-dim="batch"]', '3');
  await page.waitForSelector('#onnx-total [data-onnx="flops"]');
  const got = await totals(page);
  const want = cli(file, ['batch=3']).total;
  assert.equal(Number(got.flops), want.flops);
  // Hand count: x [3,4,256] reshaped to [3,1,1024], MatMul with [1024,2048]:
  // 2*3*1*1024*2048 = 12582912 FLOPs; 1024*2048 = 2097152 parameters.
  assert.equal(Number(got.flops), 12582912);
  assert.equal(Number(got.parameters), 2097152);
  // The file is read in the worker (issue 26: not on the page's thread), and only its graph.
  assert.deepEqual(await page.evaluate(() => window.__reads), [], 'the page thread read the file');
  const reads = await workerReads();
  assert.ok(
    reads.every((r) => r[0] !== 'whole'),
    'a whole-file read',
  );
  const read = reads.reduce((n, [a, b]) => n + (b - a), 0);
  assert.ok(read < size / 16, `read ${read} of ${size} bytes`);
  assert.deepEqual(errors, []);
});
