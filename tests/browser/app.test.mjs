// The estimator page in Debian's chromium: numbers equal the CLI's, charts, URL state,
// errors at the field, the Hub fetch against a local server, sweeps, CSP, offline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, openPage, dist, root, outDir, assertSame, shownBy } from './harness.mjs';

let site, browser;
before(async () => {
  site = await serve(dist);
  browser = await launch();
  mkdirSync(outDir, { recursive: true });
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
async function ready(page) {
  await page.waitForFunction(() => document.body.dataset.ready === '1');
}
// Every displayed number, by its JSON pointer (assertSame compares them with the CLI's result).
const shown = (page) => shownBy(page, 'data-field', '#results');

test('the first estimate equals the CLI, and inputs update it', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  const model = await page.inputValue('#model');
  assertSame(await shown(page), cli(['estimate', model]));

  await page.fill('#model', 'mixtral-8x7b');
  await page.fill('#batch', '8');
  await page.fill('#seq', '4096');
  await page.selectOption('#precision', 'int4');
  await page.selectOption('#gpu', 'H100-SXM');
  assertSame(
    await shown(page),
    cli(['estimate', 'mixtral-8x7b', '-b', '8', '-s', '4096', '-p', 'int4', '-g', 'H100-SXM']),
  );
  assert.equal((await shown(page))['/details/memory/fits_on_gpu'], 'true');
  assert.match(await page.textContent('#fits'), /fits/i);

  await page.fill('#model', 'llama-2-70b');
  await page.selectOption('#precision', 'fp16');
  await page.fill('#batch', '1');
  await page.fill('#seq', '2048');
  await page.selectOption('#gpu', 'A100-80GB-SXM');
  assertSame(await shown(page), cli(['estimate', 'llama-2-70b', '-p', 'fp16', '-g', 'A100-80GB-SXM']));
  assert.equal((await shown(page))['/details/memory/fits_on_gpu'], 'false');

  await page.check('#training');
  assertSame(await shown(page), cli(['estimate', 'llama-2-70b', '-p', 'fp16', '-g', 'A100-80GB-SXM', '--training']));
  await page.uncheck('#training');
  await page.selectOption('#gpu', 'none');
  assert.equal((await shown(page))['/details/performance/prefill_latency_s'], 'null');
  assert.deepEqual(errors, []);
  await context.close();
});

test('charts render; the URL reproduces the estimate; screenshots in light and dark', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await page.fill('#model', 'qwen2.5-7b');
  await page.fill('#batch', '4');
  await page.selectOption('#gpu', 'L40S');
  const ids = [
    'chart-layers',
    'chart-attn-mlp',
    'chart-memory',
    'chart-roofline',
    'chart-batch',
    'chart-seq',
    'chart-precision',
  ];
  await page.waitForFunction((ids) => ids.every((id) => document.getElementById(id)?.dataset.rendered === '1'), ids);
  await page.waitForTimeout(300);
  // Each canvas has drawn pixels.
  for (const id of ids) {
    const inked = await page.evaluate((id) => {
      const c = document.getElementById(id);
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      return n;
    }, id);
    assert.ok(inked > 500, `${id} drew ${inked} pixels`);
  }
  await page.screenshot({ path: join(outDir, 'app.png'), fullPage: true });
  const url = page.url();
  assert.match(url, /model=qwen2\.5-7b/);
  const values = await shown(page);

  const again = await context.newPage();
  await again.goto(url);
  await ready(again);
  assert.equal(await again.inputValue('#model'), 'qwen2.5-7b');
  assert.deepEqual(await shown(again), values);
  assertSame(values, cli(['estimate', 'qwen2.5-7b', '-b', '4', '-g', 'L40S']));

  await again.emulateMedia({ colorScheme: 'dark' });
  await again.waitForTimeout(300);
  await again.screenshot({ path: join(outDir, 'app-dark.png'), fullPage: false });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a bad config.json shows an error at the field and the page keeps working', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await page.check('#source-config');
  await page.fill('#config', '{"model_type": "llama", "hidden_size": 4096,');
  await page.waitForFunction(() => document.getElementById('config-error').textContent.length > 0);
  assert.match(await page.textContent('#config-error'), /JSON/);
  assert.equal(await page.getAttribute('#config', 'aria-invalid'), 'true');
  const config = JSON.parse(readFileSync(join(root, 'data/models/llama-3-8b.json'), 'utf8')).config;
  await page.fill('#config', JSON.stringify({ ...config, hidden_size: '4096' }));
  await page.waitForFunction(() => /hidden_size/.test(document.getElementById('config-error').textContent));
  assert.match(
    await page.textContent('#config-error'),
    /: hidden_size: expected a positive integer \(at most 2\^30\), but got string "4096"$/,
  );
  await page.fill('#config', JSON.stringify(config));
  await page.waitForFunction(() => document.getElementById('config-error').textContent === '');
  assert.equal(Number((await shown(page))['/parameters']), 8030261248);
  // A bad number at its field, then recovery.
  await page.check('#source-registry');
  await page.fill('#batch', '0');
  await page.waitForFunction(() => document.getElementById('batch-error').textContent.length > 0);
  assert.match(await page.textContent('#batch-error'), /expected a positive integer/);
  await page.fill('#batch', '2');
  await page.waitForFunction(() => document.getElementById('batch-error').textContent === '');
  assertSame(await shown(page), cli(['estimate', await page.inputValue('#model'), '-b', '2']));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a Hugging Face id is fetched from the configured Hub (a local server here)', async () => {
  const config = JSON.parse(readFileSync(join(root, 'data/models/qwen2.5-7b.json'), 'utf8')).config;
  const hub = await serve(join(root, 'data'), {
    headers: { 'Access-Control-Allow-Origin': '*' },
    routes: { '/Qwen/Qwen2.5-7B/resolve/main/config.json': [200, 'application/json', JSON.stringify(config)] },
  });
  try {
    const { page, context } = await openPage(browser, `${site.url}/index.html`);
    await ready(page);
    await page.check('#source-hub');
    await page.fill('#hf-base', hub.url);
    await page.fill('#hf-id', 'Qwen/Qwen2.5-7B');
    await page.click('#hf-fetch');
    await page.waitForFunction(
      () => document.querySelector('[data-field="/parameters"]')?.dataset.value === '7615616512',
    );
    assert.ok(hub.requests.includes('/Qwen/Qwen2.5-7B/resolve/main/config.json'));
    await page.fill('#hf-id', 'nobody/nothing');
    await page.click('#hf-fetch');
    await page.waitForFunction(() => document.getElementById('hf-id-error').textContent.length > 0);
    assert.match(await page.textContent('#hf-id-error'), /404|not found/i);
    await context.close();
  } finally {
    await hub.close();
  }
});

test('no request leaves the page; a 100,000-point sweep keeps it responsive and downloads every point', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  const foreign = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(site.url) && !r.url().startsWith('blob:') && !r.url().startsWith('data:'))
      foreign.push(r.url());
  });
  await ready(page);
  await page.fill('#sweep-models', 'llama-3-8b, mistral-7b');
  await page.fill('#sweep-batch', Array.from({ length: 50 }, (_, i) => i + 1).join(','));
  await page.fill('#sweep-seq', Array.from({ length: 100 }, (_, i) => 128 * (i + 1)).join(','));
  await page.fill('#sweep-precision', 'bf16,fp8,int8,int4,fp16');
  await page.fill('#sweep-gpu', 'A100,H100');
  // Watch the main thread while the worker computes: the longest gap between frames.
  await page.evaluate(() => {
    window.__gaps = [];
    let last = performance.now();
    const tick = (t) => {
      window.__gaps.push(t - last);
      last = t;
      if (!window.__stopTicks) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await page.click('#sweep-run');
  await page.waitForFunction(() => /100,?000 points/.test(document.getElementById('sweep-count').textContent), null, {
    timeout: 120000,
  });
  const gaps = await page.evaluate(() => {
    window.__stopTicks = true;
    return window.__gaps
      .slice()
      .sort((a, b) => b - a)
      .slice(0, 3);
  });
  console.log(`  longest frame gaps during the 100k sweep: ${gaps.map((g) => g.toFixed(0)).join(', ')} ms`);
  assert.ok(gaps[0] < 3000, `main thread blocked ${gaps[0]} ms`);
  await page.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length > 0);
  const rows = await page.$$eval('#sweep-table tbody tr', (trs) => trs.length);
  assert.ok(rows > 0 && rows <= 200, `${rows} rows rendered`);
  // The CSV download holds every point.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#sweep-csv')]);
  const csv = readFileSync(await download.path(), 'utf8')
    .trimEnd()
    .split('\n');
  assert.equal(csv.length, 1 + 100000);
  assert.match(csv[0], /^model,precision,gpu,batch_size,sequence_length,num_generated_tokens,/);
  // Spot-check a row against the CLI: the first point.
  const header = csv[0].split(',');
  const first = Object.fromEntries(csv[1].split(',').map((v, i) => [header[i], v]));
  const row = cli(['compare', 'llama-3-8b', '-b', '1', '-s', '128', '-p', 'bf16', '-g', 'A100'])[0];
  assert.equal(Number(first.memory), row.memory);
  assert.equal(Number(first.decode_tokens_per_second), row.decode_tokens_per_second);
  assert.equal(first.prefill_bound, row.prefill_bound);
  assert.deepEqual(foreign, []);
  assert.deepEqual(errors, []);
  await context.close();
});

// The policy the built pages carry in <meta http-equiv="Content-Security-Policy">: the narrowest
// that works. connect-src: the site itself, any https Hub or mirror, loopback http (tests, a local mirror).
const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self'; " +
  "connect-src 'self' https: http://127.0.0.1:* http://localhost:*; worker-src 'self'; object-src 'none'; " +
  "base-uri 'none'; form-action 'none'";

test('the built pages carry the narrow CSP; under it the page, charts and worker work with no violation', async () => {
  for (const file of ['index.html', 'embed.html']) {
    const html = readFileSync(join(dist, file), 'utf8');
    const metas = [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/g)];
    assert.equal(metas.length, 1, `${file}: one CSP meta`);
    assert.equal(metas[0][1], CSP, file);
    assert.ok(
      html.indexOf('Content-Security-Policy') < html.indexOf('<script'),
      `${file}: the CSP comes before any script`,
    );
    // (a data block is not run: index.html's first visit answers, web/first-visit-plugin.js)
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)(?! type="application\/json")[^>]*>/, `${file}: no inline script`);
    assert.doesNotMatch(html, /\sstyle="/, `${file}: no inline style`);
  }
  assert.doesNotMatch(CSP, /'unsafe-eval'|'unsafe-inline'/);
  const { page, context, errors, violations } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await page.fill('#batch', '3');
  assert.equal(
    Number((await shown(page))['/memory']),
    cli(['estimate', await page.inputValue('#model'), '-b', '3']).memory,
  );
  await page.waitForFunction(() => document.getElementById('chart-roofline')?.dataset.rendered === '1');
  await page.fill('#sweep-models', 'gpt2');
  await page.fill('#sweep-batch', '1,2');
  await page.fill('#sweep-seq', '128');
  await page.fill('#sweep-precision', 'bf16');
  await page.fill('#sweep-gpu', 'A100');
  await page.click('#sweep-run');
  await page.waitForFunction(() => /\b2 points/.test(document.getElementById('sweep-count').textContent));
  await page.click('th[data-key="memory"]'); // sorting re-renders the table
  assert.deepEqual(violations, []);
  assert.deepEqual(errors, []);

  // The policy is enforced and a violation would be seen: an inline script, an inline handler, a
  // style attribute, eval and a request to a plain-http host are each blocked and reported.
  const blocked = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.head.append(s);
    document.getElementById('status').setAttribute('style', 'outline: 3px solid red');
    // Later than this evaluate call (DevTools may run eval itself): from a timer, as page code would.
    const evalError = await new Promise((ok) =>
      setTimeout(() => {
        try {
          window.eval('1 + 1');
          ok('');
        } catch (e) {
          ok(e.name);
        }
      }, 0),
    );
    const button = document.createElement('button');
    button.setAttribute('onclick', 'window.__handlerRan = true');
    document.body.append(button);
    button.click();
    button.remove();
    const request = await fetch('http://example.com/config.json').then(
      () => 'sent',
      () => 'blocked',
    );
    return { inlineRan: window.__inlineRan === true, handlerRan: window.__handlerRan === true, evalError, request };
  });
  assert.deepEqual(blocked, { inlineRan: false, handlerRan: false, evalError: 'EvalError', request: 'blocked' });
  for (let i = 0; i < 40 && violations.length < 5; i++) await page.waitForTimeout(50);
  assert.deepEqual(violations.map((v) => v.directive).sort(), [
    'connect-src',
    'script-src',
    'script-src-attr',
    'script-src-elem',
    'style-src-attr',
  ]);
  assert.equal(violations.find((v) => v.directive === 'connect-src').blocked, 'http://example.com/config.json');
  await context.close();
});

test('works offline once loaded (service worker)', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${site.url}/index.html`);
  await ready(page);
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(() => caches.keys().then((k) => k.length > 0));
  await page.waitForTimeout(500);
  await context.setOffline(true);
  await page.reload();
  await ready(page);
  await page.fill('#batch', '16');
  assertSame(await shown(page), cli(['estimate', await page.inputValue('#model'), '-b', '16']));
  await context.close();
});

test('every input is labelled and reachable by keyboard', async () => {
  const { page, context } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea')]
      .filter((el) => el.type !== 'hidden' && !el.labels?.length && !el.getAttribute('aria-label'))
      .map((el) => el.id),
  );
  assert.deepEqual(unlabelled, []);
  await page.focus('#batch');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('7');
  await page.waitForFunction(() => document.querySelector('[data-field="/memory"]'));
  assert.equal(
    Number((await shown(page))['/memory']),
    cli(['estimate', await page.inputValue('#model'), '-b', '7']).memory,
  );
  await context.close();
});

test('multi-GPU, serving, training and calibration panels show the core numbers', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await page.fill('#model', 'llama-2-70b');
  await page.selectOption('#precision', 'fp16');
  await page.selectOption('#gpu', 'A100-80GB-SXM');
  await page.fill('#tp', '2');
  const values = await shown(page);
  assert.equal(values['/details/parallelism/fits_per_gpu'], 'true');
  assertSame(values, cli(['estimate', 'llama-2-70b', '-p', 'fp16', '-g', 'A100-80GB-SXM', '--tp', '2']));
  await page.waitForFunction(
    () => document.querySelector('[data-serving="/tokens_per_second"]')?.dataset.value !== 'null',
  );
  // The serving card at the page's workload (issue 27 item 7): the prompt and generated tokens, the batch as the concurrency.
  const cliSrv = cli([
    'throughput',
    'llama-2-70b',
    '-p',
    'fp16',
    '-g',
    'A100-80GB-SXM',
    '--tp',
    '2',
    '--prompt',
    '2048',
    '--output',
    '128',
    '--concurrency',
    '1',
  ]);
  assertSame(await shownBy(page, 'data-serving'), cliSrv, { min: 8, strict: true });
  assert.ok(cliSrv.tokens_per_second > 0);
  // Training on the same layout: now no result object on the page's pointers is null, so every
  // displayed key is checked against the core (strict). The training panel shows `train`.
  await page.check('#training');
  await page.waitForFunction(
    () => document.querySelector('[data-train="/flops/total_step"]')?.dataset.value !== 'null',
  );
  assertSame(
    await shown(page),
    cli(['estimate', 'llama-2-70b', '-p', 'fp16', '-g', 'A100-80GB-SXM', '--tp', '2', '--training']),
    { min: 50, strict: true },
  );
  const train = spawnSync(
    join(root, 'build/flopcast'),
    ['train', 'llama-2-70b', '-p', 'fp16', '-g', 'A100-80GB-SXM', '--tp', '2', '--json'],
    { encoding: 'utf8' },
  );
  assert.equal(train.status, 0, train.stderr);
  assertSame(await shownBy(page, 'data-train'), JSON.parse(train.stdout), { min: 5, strict: true });
  await page.uncheck('#training');
  // Calibrate to a measured decode rate: stored in local storage, applied to the estimate.
  await page.fill('#tp', '1');
  await page.fill('#model', 'llama-3-8b');
  await page.selectOption('#precision', 'bf16');
  await page.fill('#cal-decode', '30');
  await page.click('#cal-run');
  await page.waitForFunction(() => (localStorage.getItem('flopcast.calibration') ?? '').includes('mem_efficiency'));
  const tps = Number((await shown(page))['/details/performance/decode_tokens_per_second']);
  assert.ok(Math.abs(tps - 30) < 1e-3, `calibrated decode ${tps}`);
  await page.click('#cal-reset');
  assert.deepEqual(errors, []);
  await context.close();
});
