// The embeddable widget in a real browser: one script tag, Shadow DOM, numbers from the core.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { serve, launch, openPage, dist, root, outDir, assertSame } from './harness.mjs';

let site, browser;
before(async () => {
  site = await serve(dist, { headers: { 'Access-Control-Allow-Origin': '*' } }); // as a CDN would
  browser = await launch();
  mkdirSync(outDir, { recursive: true });
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const cliJson = (args) =>
  JSON.parse(spawnSync(join(root, 'build/flopcast'), [...args, '--json'], { encoding: 'utf8' }).stdout);

// A widget's displayed figures only (its data-field elements), for assertSame.
const figures = (v) => Object.fromEntries(Object.entries(v).filter(([k]) => k.startsWith('/')));

async function widgetValues(page, id) {
  await page.waitForFunction(
    (id) => document.getElementById(id)?.shadowRoot?.querySelector('[data-field], .error'),
    id,
  );
  return page.evaluate((id) => {
    const root = document.getElementById(id).shadowRoot;
    const out = {};
    for (const el of root.querySelectorAll('[data-field]')) out[el.dataset.field] = el.dataset.value;
    out.error = root.querySelector('.error')?.textContent ?? null;
    out.text = root.textContent;
    return out;
  }, id);
}

test('the documentation page renders each widget in a Shadow DOM with the CLI numbers', async () => {
  const { page, context, errors, violations } = await openPage(browser, `${site.url}/embed.html`);
  const llama = await widgetValues(page, 'example-llama');
  const cli = cliJson(['estimate', 'llama-3-8b', '-g', 'H100', '-p', 'bf16']);
  assert.equal(Number(llama['/parameters']), cli.parameters);
  assert.equal(Number(llama['/memory']), cli.memory);
  assert.equal(Number(llama['/details/performance/prefill_latency_s']), cli.details.performance.prefill_latency_s);
  assert.equal(
    Number(llama['/details/performance/decode_tokens_per_second']),
    cli.details.performance.decode_tokens_per_second,
  );
  assert.equal(llama['/details/memory/fits_on_gpu'], 'true');
  assertSame(figures(llama), cli, { min: 8, strict: true });
  assert.match(llama.text, /Meta-Llama-3-8B/);
  // Light DOM stays empty: the card lives in the shadow root.
  assert.equal(await page.evaluate(() => document.getElementById('example-llama').children.length), 0);

  const big = await widgetValues(page, 'example-70b');
  assert.equal(big['/details/memory/fits_on_gpu'], 'false');
  assertSame(figures(big), cliJson(['estimate', 'llama-2-70b', '-g', 'A100-80GB-SXM', '-p', 'fp16']), {
    min: 8,
    strict: true,
  });
  const moe = await widgetValues(page, 'example-mixtral');
  const moeCli = cliJson(['estimate', 'mixtral-8x7b', '-g', 'A100', '-p', 'int4', '-b', '8', '-s', '4096']);
  assert.equal(Number(moe['/memory']), moeCli.memory);
  assertSame(figures(moe), moeCli, { min: 8, strict: true });

  const bad = await widgetValues(page, 'example-error');
  assert.match(bad.error, /^model attribute: unknown model "no-such-model": expected a registry model name or alias/);
  await page.screenshot({ path: join(outDir, 'embed.png'), fullPage: true });
  // The page's CSP (style-src 'self', no 'unsafe-inline'): the widget styles its shadow root with a
  // constructed style sheet, so nothing is blocked, and it is styled.
  assert.deepEqual(violations, []);
  assert.equal(
    await page.evaluate(
      () => getComputedStyle(document.getElementById('example-llama').shadowRoot.querySelector('.card')).borderTopStyle,
    ),
    'solid',
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('one script tag on a foreign page; attributes re-render', async () => {
  // A plain page on another origin that only adds the script tag and the element.
  const host = await serve(join(outDir), {
    routes: {
      '/docs.html': [
        200,
        'text/html',
        `<!doctype html><html><body><h1>Docs</h1>
        <flopcast-estimate id="w" model="qwen2.5-7b" gpu="L4" precision="int4" batch="2"></flopcast-estimate>
        <script type="module" src="${site.url}/flopcast-widget.js"></script></body></html>`,
      ],
      '/favicon.ico': [204, 'image/x-icon', ''],
    },
  });
  try {
    const { page, context, errors } = await openPage(browser, `${host.url}/docs.html`);
    let v = await widgetValues(page, 'w');
    assert.equal(Number(v['/memory']), cliJson(['estimate', 'qwen2.5-7b', '-g', 'L4', '-p', 'int4', '-b', '2']).memory);
    await page.evaluate(() => document.getElementById('w').setAttribute('batch', '16'));
    await page.waitForFunction(() => document.getElementById('w').result?.batch_size === 16);
    v = await widgetValues(page, 'w');
    assert.equal(
      Number(v['/memory']),
      cliJson(['estimate', 'qwen2.5-7b', '-g', 'L4', '-p', 'int4', '-b', '16']).memory,
    );
    await page.evaluate(() => document.getElementById('w').setAttribute('batch', '0'));
    await page.waitForFunction(() => document.getElementById('w').shadowRoot.querySelector('.error'));
    v = await widgetValues(page, 'w');
    assert.match(v.error, /^batch attribute: expected a positive integer/);
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    await host.close();
  }
});
