// The service worker: offline reloads under the server `npm start` uses (scripts/serve.mjs, which
// sends precompressed files with "Vary: Accept-Encoding"), with the app's state in the query string; a failing precache never replaces a
// complete cache; the old cache goes only when a complete new version activates; an error, not an
// endless "Loading…", when the estimator cannot load.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, openPage, dist, root, freePort, assertSame, shownBy } from './harness.mjs';

let browser;
const children = new Set();
before(async () => {
  browser = await launch();
});
after(async () => {
  for (const child of children) child.kill('SIGTERM');
  await browser?.close();
});

const cli = (args) => {
  const r = spawnSync(join(root, 'build/flopcast'), [...args, '--json', '--no-calibration'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const shown = (page) => shownBy(page, 'data-field', '#results');
const FILES = JSON.parse(readFileSync(join(dist, 'sw.js'), 'utf8').match(/^const FILES = (.*);$/m)[1]);
const VERSION = readFileSync(join(dist, 'sw.js'), 'utf8').match(/^const CACHE = [^;]*"(\w+)";$/m)[1];

/** scripts/serve.mjs (the server of `npm start`) on a free port; resolves once it answers. */
async function preview() {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(root, 'scripts/serve.mjs'), '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise((ok) => child.once('exit', ok));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/index.html`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 200 || child.exitCode !== null) throw new Error(`scripts/serve.mjs did not start:\n${log}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    children.delete(child);
  };
  return { url, stop, child };
}

/** Waits until the service worker controls `page` and its cache holds every file. */
async function controlled(page) {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20000 });
  return page.evaluate(async () => {
    const keys = await caches.keys();
    const sizes = {};
    for (const k of keys) sizes[k] = (await (await caches.open(k)).keys()).length;
    return sizes;
  });
}
const cacheSizes = (page) =>
  page.evaluate(async () => {
    const sizes = {};
    for (const k of await caches.keys()) sizes[k] = (await (await caches.open(k)).keys()).length;
    return sizes;
  });

test('under the npm start server (Vary: Accept-Encoding), an offline reload with a query string shows the styled page and its estimate', async () => {
  const server = await preview();
  try {
    const head = await fetch(`${server.url}/index.html`);
    console.log(`  the npm start server sends Vary: ${head.headers.get('vary')}`);
    const { page, context, errors, violations } = await openPage(browser, `${server.url}/index.html`);
    await ready(page);
    assert.deepEqual(await controlled(page), { [`flopcast-${VERSION}`]: FILES.length });
    // Offline, and the server gone: nothing can come from the network.
    await context.setOffline(true);
    await server.stop();
    await page.goto(`${server.url}/index.html?model=llama-2-7b&batch=4`);
    await ready(page);
    assert.match(await page.textContent('#status'), /^Estimated /);
    assert.equal(await page.inputValue('#model'), 'llama-2-7b');
    assert.equal(await page.inputValue('#batch'), '4');
    assertSame(await shown(page), cli(['estimate', 'llama-2-7b', '-b', '4']));
    // Styled: the stylesheet applied (the layout is a grid, the status line has its class styling).
    const style = await page.evaluate(() => ({
      layout: getComputedStyle(document.querySelector('main.layout')).display,
      font: getComputedStyle(document.documentElement).fontFamily,
    }));
    assert.equal(style.layout, 'grid');
    assert.match(style.font, /system-ui/);
    // The charts (a lazily loaded chunk) and the sweep worker load from the cache too.
    await page.waitForFunction(() => document.getElementById('chart-layers')?.dataset.rendered === '1');
    await page.fill('#sweep-models', 'gpt2');
    await page.fill('#sweep-batch', '1,2');
    await page.fill('#sweep-seq', '128');
    await page.fill('#sweep-precision', 'bf16');
    await page.fill('#sweep-gpu', 'A100');
    await page.click('#sweep-run');
    await page.waitForFunction(() => /\b2 points/.test(document.getElementById('sweep-count').textContent));
    // A navigation to ./ with a query string and to the widget's page work offline too.
    await page.goto(`${server.url}/?model=mistral-7b&gpu=H100`);
    await ready(page);
    assert.equal(await page.inputValue('#model'), 'mistral-7b');
    assertSame(await shown(page), cli(['estimate', 'mistral-7b', '-g', 'H100']));
    await page.goto(`${server.url}/embed.html?x=1`);
    await page.waitForFunction(() =>
      document.getElementById('example-llama')?.shadowRoot?.querySelector('[data-field="/memory"]'),
    );
    // An asset with a query string is not the cached asset: it goes to the (offline) network.
    const asset = FILES.find((f) => f.endsWith('.css'));
    const status = await page.evaluate(
      (a) =>
        fetch(`${a}?v=2`).then(
          (r) => r.status,
          () => 'network error',
        ),
      asset,
    );
    assert.equal(status, 'network error');
    assert.deepEqual(
      errors.filter((e) => !/Failed to load resource|ERR_INTERNET_DISCONNECTED/.test(e)),
      [],
    );
    assert.deepEqual(violations, []);
    await context.close();
  } finally {
    await server.stop();
  }
});

test('a failing precache (one asset answers 500) does not replace the complete cache; a complete update does', async () => {
  const routes = {};
  const site = await serve(dist, { routes });
  try {
    const { page, context, violations } = await openPage(browser, `${site.url}/index.html`);
    await ready(page);
    const v1 = `flopcast-${VERSION}`;
    assert.deepEqual(await controlled(page), { [v1]: FILES.length });
    const sw = readFileSync(join(dist, 'sw.js'), 'utf8');
    const next = (v) => sw.replace(/^(const CACHE = [^;]*")\w+(";)$/m, `$1${v}$2`);
    /** Asks the browser to update; resolves with the new worker's end state. */
    const update = () =>
      page.evaluate(async () => {
        const reg = await navigator.serviceWorker.getRegistration();
        await reg.update();
        const w = reg.installing ?? reg.waiting;
        if (!w) return 'no update';
        if (w.state === 'installed' || w.state === 'redundant') return w.state;
        return new Promise((ok) =>
          w.addEventListener(
            'statechange',
            () => ['installed', 'activated', 'redundant'].includes(w.state) && ok(w.state),
          ),
        );
      });

    // A new version whose precache hits a 500: its install fails, nothing changes. (The failing
    // file is one the new version adds: a hashed file both versions list is the same bytes, taken
    // from the HTTP cache the first install filled, issue 27 item 10.)
    const asset = 'assets/charts-new00000.js';
    routes['/sw.js'] = [
      200,
      'text/javascript',
      next('broken0000000000').replace('const FILES = [', `const FILES = [${JSON.stringify(asset)},`),
    ];
    routes[`/${asset}`] = [500, 'text/plain', 'server error'];
    assert.equal(await update(), 'redundant');
    assert.deepEqual(await cacheSizes(page), { [v1]: FILES.length }, 'the old cache is complete and alone');
    assert.equal(
      await page.evaluate(async () => {
        const reg = await navigator.serviceWorker.getRegistration();
        return [reg.active.state, reg.waiting, reg.installing].join(',');
      }),
      'activated,,',
    );
    // The previous version still serves everything offline, the asset the new one missed included.
    delete routes[`/${asset}`];
    await context.setOffline(true);
    await page.goto(`${site.url}/index.html?model=gpt2`);
    await ready(page);
    assert.equal(await page.inputValue('#model'), 'gpt2');
    await page.waitForFunction(() => document.getElementById('chart-layers')?.dataset.rendered === '1');
    await context.setOffline(false);

    // A complete new version installs beside the old one and waits (pages on the old version keep
    // their cache); once they are closed it activates and only then deletes the old cache.
    routes['/sw.js'] = [200, 'text/javascript', next('complete00000000')];
    assert.equal(await update(), 'installed');
    assert.deepEqual(await cacheSizes(page), { [v1]: FILES.length, 'flopcast-complete00000000': FILES.length });
    // Closing the last page lets the new worker activate. The check runs inside the service
    // workers, not in a new page: a page opened before the activation would be controlled by the
    // old worker and keep the new one waiting (the spec's rule, a race under load).
    await page.close();
    const only = async () => {
      for (const worker of context.serviceWorkers()) {
        try {
          if (await worker.evaluate(async () => (await caches.keys()).join() === 'flopcast-complete00000000'))
            return true;
        } catch {
          // this worker was stopped (the old version, once replaced)
        }
      }
      return false;
    };
    const deadline = Date.now() + 30000;
    while (!(await only())) {
      assert.ok(Date.now() < deadline, 'the new version activates and deletes the old cache once no page uses it');
      await new Promise((ok) => setTimeout(ok, 100));
    }
    const again = await context.newPage();
    await again.goto(`${site.url}/index.html`);
    await ready(again);
    assert.deepEqual(await controlled(again), { 'flopcast-complete00000000': FILES.length });
    assert.deepEqual(await cacheSizes(again), { 'flopcast-complete00000000': FILES.length });
    assert.deepEqual(violations, []);
    await context.close();
  } finally {
    await site.close();
  }
});

test('when the estimator cannot load, the page says so instead of "Loading…"', async () => {
  const wasm = FILES.find((f) => f.endsWith('.wasm'));
  const main = readFileSync(join(dist, 'index.html'), 'utf8').match(/src="\.\/(assets\/main-[\w-]+\.js)"/)[1];
  for (const [path, message] of [
    [wasm, /^Could not load the WebAssembly estimator: .+ Reload to try again\.$/],
    [
      main,
      /^Could not load the estimator: .*assets\/main-[\w-]+\.js failed to load \(offline before the page was saved/,
    ],
  ]) {
    const site = await serve(dist, { routes: { [`/${path}`]: [404, 'text/plain', 'not found'] } });
    try {
      const context = await browser.newContext({ serviceWorkers: 'block' });
      const page = await context.newPage();
      await page.goto(`${site.url}/index.html`);
      await page.waitForFunction(() => document.documentElement.dataset.loadError === '1', null, { timeout: 10000 });
      assert.match((await page.textContent('#status')).trim(), message, path);
      assert.equal(await page.getAttribute('#status', 'class'), 'status bad');
      await context.close();
    } finally {
      await site.close();
    }
  }
});
