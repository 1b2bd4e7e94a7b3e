// The page reads a dropped or chosen checkpoint (only its header, by File.slice), shows the core's
// summary and estimates the model at the file's exact weight bytes; and the model picker searches
// the bundled registry as you type. Files are generated here (tests/fixtures/checkpoint_files.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  serve,
  launch,
  openPage,
  dist,
  root,
  outDir,
  assertSame,
  shownBy,
  watchMainThread,
  watchWorkerReads,
} from './harness.mjs';
import {
  tinyLlamaConfig,
  tinyLlamaGguf,
  tinyLlamaParams,
  tinyLlamaSafetensors,
} from '../fixtures/checkpoint_files.mjs';

let site, browser;
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-browser-ckpt-'));
before(async () => {
  site = await serve(dist);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const cli = (args) => {
  const r = spawnSync(join(root, 'build/flopcast'), [...args, '--json', '--no-calibration'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const shown = (page) => shownBy(page, 'data-field', '#results');
const ck = (page) => shownBy(page, 'data-ck', '#checkpoint-summary');
// The rows of a summary table: [name, tensors, bytes, bits per weight] as the page holds them.
const rows = (page, id) =>
  page.$$eval(`#${id} tr`, (trs) => trs.map((tr) => [...tr.children].map((td) => td.dataset.value)));

// Record every Blob.slice and every whole-file read the page's own thread makes (it should make
// none: the header is read in the worker, watched by watchWorkerReads).
async function watchReads(context) {
  await context.addInitScript(() => {
    window.__reads = [];
    const slice = Blob.prototype.slice;
    Blob.prototype.slice = function (start, end, type) {
      window.__reads.push(['slice', start ?? 0, end ?? this.size, this.size]);
      return slice.call(this, start, end, type);
    };
    for (const m of ['arrayBuffer', 'text', 'stream'])
      if (File.prototype[m] === Blob.prototype[m]) {
        const orig = Blob.prototype[m];
        Blob.prototype[m] = function (...a) {
          if (this instanceof File) window.__reads.push(['whole', m, this.size]);
          return orig.apply(this, a);
        };
      }
  });
}

test('a GGUF file: header only, the Q4_K/Q6_K/F16/F32 summary, and the estimate at its exact bytes', async () => {
  const g = tinyLlamaGguf();
  // 3 MiB of trailing data: more than the first 1 MiB read, so a whole-file read would show.
  const bytes = Buffer.concat([g.file(), Buffer.alloc(3 << 20)]);
  const path = join(tmp, 'tiny-Q4_K_M.gguf');
  writeFileSync(path, bytes);
  const { page, context, errors, violations } = await openPage(browser, 'about:blank');
  await watchReads(context);
  await page.goto(`${site.url}/index.html`);
  await ready(page);
  const workerReads = await watchWorkerReads(page);
  const watch = await watchMainThread(page);
  await page.setInputFiles('#checkpoint-file', path);
  await page.waitForFunction(() => !document.getElementById('checkpoint-summary').hidden);
  await page.waitForFunction(() => document.getElementById('weights-source').textContent.includes('exact'));
  assert.equal(await page.isChecked('#source-checkpoint'), true);

  // The header is read and parsed in the worker (issue 26: never on the page's thread), and only
  // header bytes are read: slices from 0, never past 1 MiB, never the whole file.
  const { posted, longest } = await watch();
  assert.ok(posted.includes('inspect-checkpoint'), `posted ${posted}`);
  console.log(`#   checkpoint header: longest main-thread task ${longest.toFixed(0)} ms (a figure, not a bound)`);
  assert.deepEqual(await page.evaluate(() => window.__reads), [], 'the page thread read the file');
  const reads = await workerReads();
  assert.ok(reads.length >= 1);
  for (const r of reads) {
    assert.notEqual(r[0], 'whole', `a whole-file read: ${r}`);
    assert.equal(r[0], 0);
    assert.ok(r[1] <= 1 << 20 && r[1] < bytes.length, `read ${r[1]} of ${bytes.length} bytes`);
  }

  // The summary: exact bytes by GGML block layout (Q4_K 144 B per 256 weights, Q6_K 210, F16 2, F32 4).
  const q4 = (a, b) => (a / 256) * 144 * b;
  const q6 = (a, b) => (a / 256) * 210 * b;
  const expected = {
    Q4_K: q4(256, 300) + 2 * (q4(256, 256) + q4(256, 128) + 2 * q4(256, 512)),
    Q6_K: 2 * (q6(256, 128) + q6(512, 256)) + q6(256, 300),
    F16: 2 * 2 * 256 * 256,
    F32: 5 * 256 * 4,
  };
  const total = Object.values(expected).reduce((a, b) => a + b, 0);
  assert.equal(total, g.weightBytes);
  const s = await ck(page);
  assert.equal(Number(s['/total_bytes']), total);
  assert.equal(Number(s['/total_elements']), tinyLlamaParams);
  assert.equal(s['/mix'], 'Q4_K_M');
  assert.equal(s['/name'], 'tiny-q4km');
  assert.ok(Math.abs(Number(s['/bits_per_weight']) - (8 * total) / tinyLlamaParams) < 1e-9);
  const dtypes = await rows(page, 'ck-dtypes');
  assert.deepEqual(Object.fromEntries(dtypes.map((r) => [r[0], Number(r[2])])), expected);
  assert.deepEqual(
    dtypes.map((r) => r[0]),
    Object.entries(expected)
      .sort((a, b) => b[1] - a[1])
      .map(([k]) => k),
    'largest first',
  );
  const q4row = dtypes.find((r) => r[0] === 'Q4_K');
  assert.equal(Number(q4row[3]), 4.5);
  assert.equal(Number(q4row[1]), 1 + 2 * 4);
  const components = Object.fromEntries((await rows(page, 'ck-components')).map((r) => [r[0], Number(r[2])]));
  assert.equal(components.lm_head, q6(256, 300));
  assert.equal(components.norm, 5 * 256 * 4);
  assert.equal(await page.getAttribute('#ck-check', 'data-matches'), 'true');
  assert.equal(await page.getAttribute('#ck-unaccounted', 'data-value'), '');

  // The estimate: the implied config, weights at the exact bytes, the same figures as the CLI's
  // `estimate FILE.gguf` (which sets weight_bytes from the same header).
  const r = await shown(page);
  assert.equal(Number(r['/details/memory/weights']), total);
  assert.equal(Number(r['/parameters']), tinyLlamaParams);
  assert.match(
    await page.textContent('#weights-source'),
    /exact, from tiny-Q4_K_M\.gguf: Q4_K_M mix, [\d.]+ bits\/weight/,
  );
  const gpu = await page.inputValue('#gpu');
  assertSame(r, cli(['estimate', path, '-g', gpu]));
  assert.match(await page.textContent('#notes'), /exact bytes \(weight_bytes\)/);
  await page.screenshot({ path: join(outDir, 'checkpoint-gguf.png'), fullPage: true });
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  await context.close();
});

test('a safetensors file: bytes by dtype, its config.json for the architecture, then the estimate', async () => {
  const st = tinyLlamaSafetensors();
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await page.check('#source-checkpoint');
  await page.fill('#config', '');
  await page.setInputFiles('#checkpoint-file', {
    name: 'model.safetensors',
    mimeType: 'application/octet-stream',
    buffer: st.bytes,
  });
  await page.waitForFunction(() => !document.getElementById('checkpoint-summary').hidden);
  const s = await ck(page);
  assert.equal(Number(s['/total_bytes']), st.weightBytes);
  assert.equal(s['/mix'], 'BF16 + F32');
  const dtypes = Object.fromEntries((await rows(page, 'ck-dtypes')).map((r) => [r[0], Number(r[2])]));
  assert.deepEqual(dtypes, { BF16: 2 * (tinyLlamaParams - 5 * 256), F32: 4 * 5 * 256 });
  // No architecture in a safetensors file: said at the config field.
  assert.match(await page.textContent('#ck-check'), /holds no architecture/);
  await page.waitForFunction(() => /config\.json/.test(document.getElementById('config-error').textContent));

  await page.fill('#config', JSON.stringify(tinyLlamaConfig));
  await page.waitForFunction(() => document.getElementById('config-error').textContent === '');
  await page.waitForFunction(() => document.getElementById('ck-check').dataset.matches === 'true');
  const r = await shown(page);
  assert.equal(Number(r['/details/memory/weights']), st.weightBytes);
  assert.equal(Number(r['/parameters']), tinyLlamaParams);
  // The CLI on the same file beside the same config.json.
  const dir = mkdtempSync(join(tmp, 'st-'));
  writeFileSync(join(dir, 'model.safetensors'), st.bytes);
  writeFileSync(join(dir, 'config.json'), JSON.stringify(tinyLlamaConfig));
  const gpu = await page.inputValue('#gpu');
  const fromCli = cli(['estimate', join(dir, 'model.safetensors'), '-g', gpu]);
  assert.equal(fromCli.details.memory.weights, st.weightBytes);
  assert.equal(Number(r['/memory']), fromCli.memory);
  assert.equal(
    Number(r['/details/performance/decode_tokens_per_second']),
    fromCli.details.performance.decode_tokens_per_second,
  );

  // A file that is not a checkpoint: an error at the file input, the page keeps working.
  await page.setInputFiles('#checkpoint-file', {
    name: 'x.gguf',
    mimeType: 'text/plain',
    buffer: Buffer.from('hello world, no'),
  });
  await page.waitForFunction(() => document.getElementById('checkpoint-file-error').textContent.length > 0);
  assert.match(await page.textContent('#checkpoint-file-error'), /Could not read x\.gguf: .*not a checkpoint/);
  await page.check('#source-registry');
  await page.fill('#model', 'gpt2');
  await page.waitForFunction(() => document.getElementById('status').textContent.includes('gpt2'));
  assert.deepEqual(errors, []);
  await context.close();
});

test('the model picker: typing "qwen3" lists the Qwen3 models; the keyboard picks one and it is estimated', async () => {
  const listed = spawnSync(join(root, 'build/flopcast'), ['list-models', '--json'], { encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  const registry = JSON.parse(listed.stdout);
  const isQwen3 = (m) => [m.id, ...m.aliases, m.family, m.model_type].join(' ').toLowerCase().includes('qwen3');
  const want = registry.filter(isQwen3);
  assert.ok(want.length >= 3, 'the registry bundles Qwen3 models');
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await page.fill('#model', '');
  await page.locator('#model').pressSequentially('qwen3');
  await page.waitForSelector('#model-options:not([hidden])');
  assert.equal(await page.getAttribute('#model', 'aria-expanded'), 'true');
  const options = await page.$$eval('#model-options [role="option"]', (els) =>
    els.map((e) => ({ value: e.dataset.value, text: e.textContent })),
  );
  // Exactly the Qwen3 models (each by its short name, with its parameter count shown).
  const byName = (v) => registry.find((m) => m.id === v || m.aliases.includes(v));
  assert.deepEqual(options.map((o) => byName(o.value)?.id).sort(), want.map((m) => m.id).sort());
  for (const o of options) assert.match(o.text, /params/);
  assert.match(await page.textContent('#model-options-count'), new RegExp(`^${want.length} models match`));

  // ArrowDown twice, Enter: the second option is chosen and estimated.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const activeId = await page.getAttribute('#model', 'aria-activedescendant');
  assert.equal(await page.getAttribute(`#${activeId}`, 'aria-selected'), 'true');
  await page.keyboard.press('Enter');
  assert.equal(await page.inputValue('#model'), options[1].value);
  assert.equal(await page.getAttribute('#model', 'aria-expanded'), 'false');
  assert.equal(await page.isHidden('#model-options'), true);
  await page.waitForFunction(
    (id) => document.getElementById('status').textContent.includes(id),
    byName(options[1].value).id,
  );
  const gpu = await page.inputValue('#gpu');
  assertSame(await shown(page), cli(['estimate', options[1].value, '-g', gpu]));

  // Search by family and size words, Escape closes, a click picks.
  await page.fill('#model', 'llama 70b');
  await page.waitForSelector('#model-options:not([hidden])');
  const seventy = await page.$$eval('#model-options [role="option"]', (els) => els.map((e) => e.dataset.value));
  assert.ok(seventy.length >= 1);
  for (const v of seventy) {
    const m = byName(v);
    const words = [m.id, ...m.aliases, m.family].join(' ').toLowerCase();
    assert.ok(words.includes('llama'), v);
    assert.ok(words.includes('70b') || Math.round(m.parameters / 1e9) === 70, v);
  }
  await page.keyboard.press('Escape');
  assert.equal(await page.isHidden('#model-options'), true);
  await page.fill('#model', 'gemma');
  await page.waitForSelector('#model-options:not([hidden])');
  const first = await page.getAttribute('#model-options [role="option"]', 'data-value');
  await page.click('#model-options [role="option"]');
  assert.equal(await page.inputValue('#model'), first);
  await page.waitForFunction((id) => document.getElementById('status').textContent.includes(id), byName(first).id);
  assert.deepEqual(errors, []);
  await context.close();
});
