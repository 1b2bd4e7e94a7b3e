// The widget's theming, boolean attributes, default-GPU note and engine-load errors, in a real browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, openPage, dist, root } from './harness.mjs';

const wasmFile = readdirSync(join(dist, 'assets')).find((f) => /^flopcast_core-.*\.wasm$/.test(f));
const wasmPath = `/assets/${wasmFile}`;

// Host pages (same origin as the widget unless said otherwise): `head` and `body` are HTML.
const pages = { '/favicon.ico': [204, 'image/x-icon', ''] };
const page = (name, { head = '', body = '', html = '' } = {}) => {
  pages[`/t/${name}.html`] = [
    200,
    'text/html; charset=utf-8',
    `<!doctype html><html ${html}><head><meta charset="utf-8">${head}</head><body>${body}
    <script type="module" src="/flopcast-widget.js"></script></body></html>`,
  ];
  return `/t/${name}.html`;
};

let site, browser;
before(async () => {
  assert.ok(wasmFile, 'dist/assets has the engine .wasm (npm run build:web)');
  site = await serve(dist, {
    headers: { 'Access-Control-Allow-Origin': '*' },
    routes: pages, // filled in below, as the tests are declared
  });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

// The core's own defaults (the default GPU), from the same WASM build the page loads.
async function coreDefaults() {
  const { default: createFlopcast } = await import(join(root, 'build-wasm/wasm/flopcast.js'));
  const fc = await createFlopcast({ wasmBinary: readFileSync(join(root, 'build-wasm/wasm/flopcast_core.wasm')) });
  return fc.defaults();
}

const ready = (p, id) =>
  p.waitForFunction((id) => document.getElementById(id)?.shadowRoot?.querySelector('h3, .error'), id);

/** The card's colours (as sRGB 0..255 through a canvas, whatever CSS syntax they compute to). */
function colours(p, id) {
  return p.evaluate((id) => {
    const ctx = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    const rgb = (c) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = '#000';
      ctx.fillStyle = c;
      ctx.fillRect(0, 0, 1, 1);
      return [...ctx.getImageData(0, 0, 1, 1).data];
    };
    const el = document.getElementById(id);
    const root = el.shadowRoot;
    const of = (sel, prop = 'color') => {
      const n = root.querySelector(sel);
      return n ? rgb(getComputedStyle(n)[prop]) : null;
    };
    return {
      scheme: el.resolvedTheme,
      bg: of('.card', 'backgroundColor'),
      title: of('h3'),
      label: of('dt'),
      value: of('dd'),
      subtitle: of('.sub'),
      footer: of('.foot'),
      note: of('.note'),
      noteBg: of('.note', 'backgroundColor'),
      error: of('.error'),
      badge: of('.fits'),
      badgeBg: of('.fits', 'backgroundColor'),
    };
  }, id);
}

// WCAG 2 relative luminance and contrast ratio.
const luminance = ([r, g, b]) =>
  [r, g, b]
    .map((c) => c / 255)
    .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
    .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
const contrast = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
const isLight = (rgb) => luminance(rgb) > 0.5;
const assertReadable = (c, what) => {
  for (const k of ['title', 'label', 'value', 'subtitle', 'footer', 'note', 'error'])
    if (c[k])
      assert.ok(contrast(c[k], c.bg) >= 4.5, `${what}: ${k} ${c[k]} on ${c.bg}: ${contrast(c[k], c.bg).toFixed(2)}`);
  if (c.note && c.noteBg[3] > 0) assert.ok(contrast(c.note, c.noteBg) >= 4.5, `${what}: note on its own background`);
  if (c.badge) assert.ok(contrast(c.badge, c.badgeBg) >= 4.5, `${what}: badge ${c.badge} on ${c.badgeBg}`);
};

const themePage = page('theme', {
  body: `<flopcast-estimate id="auto" model="llama-3-8b" gpu="H100"></flopcast-estimate>
    <flopcast-estimate id="light" theme="light" model="llama-3-8b" gpu="H100"></flopcast-estimate>
    <flopcast-estimate id="dark" theme="dark" model="llama-3-8b" gpu="H100"></flopcast-estimate>
    <flopcast-estimate id="bad" theme="dark" model="no-such-model" gpu="H100"></flopcast-estimate>
    <div id="inner"><flopcast-estimate id="nested" model="llama-3-8b" gpu="H100"></flopcast-estimate></div>`,
});

async function themed(hostScheme, osScheme) {
  const {
    page: p,
    context,
    errors,
  } = await openPage(browser, `${site.url}${themePage}`, {
    context: { colorScheme: osScheme },
  });
  if (hostScheme) await p.evaluate((s) => (document.documentElement.style.colorScheme = s), hostScheme);
  for (const id of ['auto', 'light', 'dark', 'bad', 'nested']) await ready(p, id);
  return { p, context, errors };
}

test('theme="auto" follows the host page color-scheme, not the OS preference; light and dark force it', async () => {
  // A light documentation page while the OS prefers dark: auto renders light.
  let { p, context, errors } = await themed('light', 'dark');
  assert.equal(await p.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), true);
  let c = await colours(p, 'auto');
  assert.equal(c.scheme, 'light');
  assert.ok(isLight(c.bg), `auto on a light page: background ${c.bg}`);
  assertReadable(c, 'auto/light');
  c = await colours(p, 'dark');
  assert.equal(c.scheme, 'dark');
  assert.ok(!isLight(c.bg), `theme=dark on a light page: background ${c.bg}`);
  assertReadable(c, 'dark');
  assertReadable(await colours(p, 'bad'), 'dark, error');
  // The host switches its scheme at run time (a docs site's theme toggle): auto follows.
  await p.evaluate(() => (document.documentElement.style.colorScheme = 'dark'));
  c = await colours(p, 'auto');
  assert.equal(c.scheme, 'dark');
  assert.ok(!isLight(c.bg), `auto after the page turned dark: ${c.bg}`);
  assert.ok(isLight((await colours(p, 'light')).bg), 'theme=light stays light');
  // The element's parent decides: a light section inside a dark page.
  await p.evaluate(() => (document.getElementById('inner').style.colorScheme = 'light'));
  assert.ok(isLight((await colours(p, 'nested')).bg));
  assert.deepEqual(errors, []);
  await context.close();

  // The reverse: a dark page while the OS prefers light.
  ({ p, context, errors } = await themed('dark', 'light'));
  c = await colours(p, 'auto');
  assert.equal(c.scheme, 'dark');
  assert.ok(!isLight(c.bg), `auto on a dark page: background ${c.bg}`);
  assertReadable(c, 'auto/dark');
  c = await colours(p, 'light');
  assert.ok(isLight(c.bg));
  assertReadable(c, 'light');
  assertReadable(await colours(p, 'bad'), 'dark error');
  // The attribute can change at run time too.
  await p.evaluate(() => document.getElementById('auto').setAttribute('theme', 'light'));
  assert.ok(isLight((await colours(p, 'auto')).bg));
  assert.deepEqual(errors, []);
  await context.close();

  // A page that declares no color-scheme is drawn light by the browser, whatever the OS: so is auto.
  ({ p, context, errors } = await themed(null, 'dark'));
  assert.equal((await colours(p, 'auto')).scheme, 'light');
  assert.ok(isLight((await colours(p, 'auto')).bg));
  // "light dark": the page follows the OS, and so does auto.
  await p.evaluate(() => (document.documentElement.style.colorScheme = 'light dark'));
  assert.ok(!isLight((await colours(p, 'auto')).bg));
  assert.deepEqual(errors, []);
  await context.close();
});

const bgPage = page('bg', {
  head: `<style>
    #cream { --fc-bg: #fdf6e3; } #navy { --fc-bg: #1e1e3f; } #grey { --fc-bg: #777777; }
    #greyer { --fc-bg: #808080; } #mint { --fc-bg: #c8f7dc; } #wine { --fc-bg: #5a1030; }
    #black { --fc-bg: #000; } #white { --fc-bg: #fff; }
    #cream-error { --fc-bg: #fdf6e3; } #grey-error { --fc-bg: #777777; } #navy-error { --fc-bg: #1e1e3f; }
    #parts::part(label) { color: rgb(1, 2, 3); } #parts::part(card) { border-radius: 0px; }
    #custom { --fc-bg: #101010; --fc-fg: #fafafa; --fc-muted: #c0c0c0; }
  </style>`,
  body: [
    'cream',
    'navy',
    'grey',
    'greyer',
    'mint',
    'wine',
    'black',
    'white',
    'parts',
    'custom',
    'cream-error',
    'grey-error',
    'navy-error',
  ]
    .map((id) =>
      id.endsWith('-error')
        ? `<flopcast-estimate id="${id}" model="no-such-model"></flopcast-estimate>`
        : id === 'parts'
          ? `<flopcast-estimate id="parts" model="llama-3-8b"></flopcast-estimate>` // the note and a badge
          : `<flopcast-estimate id="${id}" model="mixtral-8x7b" gpu="A100"></flopcast-estimate>`,
    )
    .join('\n'),
});

test('a host that sets only --fc-bg gets text of WCAG AA contrast against it, in either scheme; ::part() styles', async () => {
  for (const [host, os] of [
    ['dark', 'dark'],
    ['light', 'light'],
  ]) {
    const {
      page: p,
      context,
      errors,
    } = await openPage(browser, `${site.url}${bgPage}`, { context: { colorScheme: os } });
    await p.evaluate((s) => (document.documentElement.style.colorScheme = s), host);
    for (const [id, hex] of [
      ['cream', [0xfd, 0xf6, 0xe3]],
      ['navy', [0x1e, 0x1e, 0x3f]],
      ['grey', [0x77, 0x77, 0x77]],
      ['greyer', [0x80, 0x80, 0x80]],
      ['mint', [0xc8, 0xf7, 0xdc]],
      ['wine', [0x5a, 0x10, 0x30]],
      ['black', [0, 0, 0]],
      ['white', [255, 255, 255]],
      ['cream-error', [0xfd, 0xf6, 0xe3]],
      ['grey-error', [0x77, 0x77, 0x77]],
      ['navy-error', [0x1e, 0x1e, 0x3f]],
    ]) {
      await ready(p, id);
      const c = await colours(p, id);
      assert.deepEqual(c.bg.slice(0, 3), hex, `${id}: the card takes --fc-bg`);
      assertReadable(c, `${id} on a ${host} page`);
    }
    await ready(p, 'parts');
    const parts = await p.evaluate(() => {
      const r = document.getElementById('parts').shadowRoot;
      return {
        label: getComputedStyle(r.querySelector('dt')).color,
        radius: getComputedStyle(r.querySelector('.card')).borderTopLeftRadius,
        names: [...r.querySelectorAll('[part]')].flatMap((e) => e.getAttribute('part').split(' ')),
      };
    });
    assert.equal(parts.label, 'rgb(1, 2, 3)');
    assert.equal(parts.radius, '0px');
    for (const name of [
      'card',
      'title',
      'subtitle',
      'badge',
      'badge-fits',
      'note',
      'figures',
      'label',
      'value',
      'footer',
    ])
      assert.ok(parts.names.includes(name), `part ${name} in ${parts.names}`);
    // A host that sets --fc-fg and --fc-muted with --fc-bg gets exactly those.
    const custom = await colours(p, 'custom');
    assert.deepEqual(custom.value.slice(0, 3), [0xfa, 0xfa, 0xfa]);
    assert.deepEqual(custom.label.slice(0, 3), [0xc0, 0xc0, 0xc0]);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

const boolPage = page('booleans', {
  body: [
    ['off-no', 'training="no"'],
    ['off-false', 'training="false"'],
    ['off-zero', 'training="0"'],
    ['off-absent', ''],
    ['on-bare', 'training'],
    ['on-empty', 'training=""'],
    ['on-true', 'training="true"'],
    ['on-upper', 'training="TRUE"'],
    ['ckpt-off', 'training checkpointing="false"'],
    ['ckpt-absent', 'training'],
    ['bad', 'training="maybe"'],
  ]
    .map(([id, a]) => `<flopcast-estimate id="${id}" model="llama-2-7b" gpu="A100" ${a}></flopcast-estimate>`)
    .join('\n'),
});

test('boolean attributes: present, "" and "true" are on; "no", "false", "0" and absent are off', async () => {
  const { page: p, context, errors } = await openPage(browser, `${site.url}${boolPage}`);
  const settings = async (id) => {
    await ready(p, id);
    return p.evaluate((id) => document.getElementById(id).result?.details.settings ?? null, id);
  };
  for (const id of ['off-no', 'off-false', 'off-zero', 'off-absent'])
    assert.equal((await settings(id)).training, false, `${id}: training off`);
  for (const id of ['on-bare', 'on-empty', 'on-true', 'on-upper'])
    assert.equal((await settings(id)).training, true, `${id}: training on`);
  assert.equal((await settings('ckpt-off')).gradient_checkpointing, false);
  assert.equal((await settings('ckpt-absent')).gradient_checkpointing, true, "absent: the core's default");
  // Training on and off give different memory (the widget shows the training total when on).
  const memory = (id) => p.evaluate((id) => document.getElementById(id).result.memory, id);
  assert.ok((await memory('on-bare')) > (await memory('off-no')));
  await ready(p, 'bad');
  const bad = await p.evaluate(() => document.getElementById('bad').shadowRoot.querySelector('.error')?.textContent);
  assert.match(bad, /^training attribute: expected a boolean: present .*got "maybe"$/);
  // Toggling at run time re-estimates.
  await p.evaluate(() => document.getElementById('on-bare').setAttribute('training', 'no'));
  await p.waitForFunction(() => document.getElementById('on-bare').result?.details.settings.training === false);
  await p.evaluate(() => document.getElementById('on-bare').removeAttribute('training'));
  await p.evaluate(() => document.getElementById('on-bare').toggleAttribute('training'));
  await p.waitForFunction(() => document.getElementById('on-bare').result?.details.settings.training === true);
  assert.deepEqual(errors, []);
  await context.close();
});

const gpuPage = page('gpu', {
  body: `<flopcast-estimate id="nogpu" model="llama-3-8b"></flopcast-estimate>
    <flopcast-estimate id="gpu" model="llama-3-8b" gpu="H100"></flopcast-estimate>
    <flopcast-estimate id="none" model="llama-3-8b" gpu="none"></flopcast-estimate>`,
});

test('a widget without a gpu attribute says which default GPU the core used', async () => {
  const defaults = await coreDefaults();
  const fallback = defaults.settings.gpu;
  assert.ok(typeof fallback === 'string' && fallback.length > 0);
  const { page: p, context, errors } = await openPage(browser, `${site.url}${gpuPage}`);
  const note = async (id) => {
    await ready(p, id);
    return p.evaluate((id) => {
      const el = document.getElementById(id);
      const n = el.shadowRoot.querySelector('.note');
      return { note: n && n.checkVisibility() ? n.textContent : null, gpu: el.result.gpu };
    }, id);
  };
  const missing = await note('nogpu');
  assert.ok(missing.note?.includes(fallback), `note: ${missing.note}`);
  assert.match(missing.note, /default GPU/);
  assert.equal(missing.gpu, fallback, 'the core used its default GPU');
  assert.equal((await note('gpu')).note, null);
  assert.equal((await note('none')).note, null);
  // Setting the attribute later removes the note.
  await p.evaluate(() => document.getElementById('nogpu').setAttribute('gpu', 'H100'));
  await p.waitForFunction(() => document.getElementById('nogpu').result?.gpu !== undefined);
  await p.waitForFunction(() => !document.getElementById('nogpu').shadowRoot.querySelector('.note'));
  assert.deepEqual(errors, []);
  await context.close();
});

// A page that records each widget's `error` events (listeners attached before the widget loads).
const eventPage = (scriptSrc) =>
  `<!doctype html><html><head><meta charset="utf-8"></head><body>
  <flopcast-estimate id="a" model="llama-3-8b" gpu="H100"></flopcast-estimate>
  <flopcast-estimate id="b" model="llama-3-8b"></flopcast-estimate>
  <script>
    window.events = [];
    for (const id of ['a', 'b'])
      document.getElementById(id).addEventListener('error', (e) => events.push({ id, ...e.detail }));
  </script>
  <script type="module" src="${scriptSrc}"></script></body></html>`;

async function failedLoad(url, expected, then = async () => {}) {
  const { page: p, context, errors } = await openPage(browser, url);
  await p.waitForFunction(() => window.events?.length === 2, null, { timeout: 15000 });
  const got = await p.evaluate(() => ({
    events: window.events,
    cards: ['a', 'b'].map((id) => {
      const r = document.getElementById(id).shadowRoot;
      const e = r.querySelector('.error');
      return {
        error: e && e.checkVisibility() ? e.textContent : null,
        text: r.textContent,
        role: e?.getAttribute('role'),
      };
    }),
  }));
  for (const card of got.cards) {
    assert.ok(card.error, `the card shows an error: ${card.text}`);
    assert.doesNotMatch(card.text, /loading/);
    assert.equal(card.role, 'alert');
  }
  assert.deepEqual(
    got.events.map((e) => e.id),
    ['a', 'b'],
  );
  for (const e of got.events) assert.equal(e.stage, 'engine');
  // Only the expected network failures reach the console.
  assert.deepEqual(
    errors.filter((m) => !expected.some((re) => re.test(m))),
    [],
  );
  await then(p);
  await context.close();
  return got;
}

test('a widget whose .wasm answers 404 shows what failed in the card and fires error', async () => {
  const routes = {
    '/favicon.ico': [204, 'image/x-icon', ''],
    [wasmPath]: [404, 'text/plain', 'not found'],
    '/docs.html': [200, 'text/html', eventPage('/flopcast-widget.js')],
  };
  const broken = await serve(dist, { routes });
  // Once the server is fixed, the next attribute change loads the engine (a failure is not cached).
  const retry = async (p) => {
    delete routes[wasmPath];
    await p.evaluate(() => document.getElementById('a').setAttribute('batch', '2'));
    await p.waitForFunction(() => document.getElementById('a').result?.batch_size === 2);
    assert.equal(await p.evaluate(() => document.getElementById('a').shadowRoot.querySelector('.error')), null);
  };
  try {
    const got = await failedLoad(
      `${broken.url}/docs.html`,
      [/Failed to load resource: the server responded with a status of 404/],
      retry,
    );
    for (const card of got.cards) {
      assert.match(card.error, /Could not load the flopcast engine/);
      assert.match(card.error, /HTTP 404/);
      assert.ok(card.error.includes(wasmFile), card.error);
    }
    assert.equal(got.events[0].code, 'engine.http');
    assert.ok(got.events[0].url.endsWith(wasmPath));
  } finally {
    await broken.close();
  }
});

test('a widget script on another origin whose .wasm lacks CORS headers says so', async () => {
  const wasm = readFileSync(join(dist, wasmPath));
  const cdn = await serve(dist, {
    headers: { 'Access-Control-Allow-Origin': '*' },
    routes: {
      // The script is served with CORS (module scripts need it), the .wasm is not.
      [wasmPath]: (req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/wasm' });
        res.end(wasm);
      },
    },
  });
  const host = await serve(dist, {
    routes: {
      '/docs.html': [200, 'text/html', eventPage(`${cdn.url}/flopcast-widget.js`)],
      '/favicon.ico': [204, 'image/x-icon', ''],
    },
  });
  try {
    const got = await failedLoad(`${host.url}/docs.html`, [/blocked by CORS policy/, /net::ERR_FAILED/]);
    for (const card of got.cards) {
      assert.match(card.error, /Could not load the flopcast engine/);
      assert.match(card.error, /Access-Control-Allow-Origin/);
      assert.match(card.error, /CORS/);
    }
    assert.equal(got.events[0].code, 'engine.fetch');
  } finally {
    await host.close();
    await cdn.close();
  }
});

test('a .wasm that is not WebAssembly (an HTML error page with 200) is reported, not a spinner', async () => {
  const broken = await serve(dist, {
    routes: {
      '/favicon.ico': [204, 'image/x-icon', ''],
      [wasmPath]: [200, 'text/html', '<!doctype html><p>Welcome to our CDN'],
      '/docs.html': [200, 'text/html', eventPage('/flopcast-widget.js')],
    },
  });
  try {
    const got = await failedLoad(`${broken.url}/docs.html`, []);
    for (const card of got.cards) assert.match(card.error, /could not start: .* is not a WebAssembly module/);
    assert.equal(got.events[0].code, 'engine.start');
  } finally {
    await broken.close();
  }
});

test('embed.html lists every attribute of the core, shows the three themes, and logs events live', async () => {
  const defaults = await coreDefaults();
  const expected = defaults.request_fields
    .filter((f) => (f.part === '' || f.part === 'parallelism') && f.attribute && f.commands.includes('estimate'))
    .map((f) => f.attribute);
  const {
    page: p,
    context,
    errors,
    violations,
  } = await openPage(browser, `${site.url}/embed.html`, {
    context: { colorScheme: 'dark' },
  });
  await p.waitForFunction(() => document.querySelector('#attribute-rows tr[data-attribute]'));
  const listed = await p.$$eval('#attribute-rows tr[data-attribute]', (rows) => rows.map((r) => r.dataset.attribute));
  assert.deepEqual(listed, [...expected, 'theme']);
  for (const id of ['theme-auto', 'theme-light', 'theme-dark', 'custom-cream', 'custom-brand', 'example-default-gpu'])
    await ready(p, id);
  // The page declares "light dark" and the OS prefers dark: auto is dark until the section says light.
  assert.ok(!isLight((await colours(p, 'theme-auto')).bg));
  assert.ok(isLight((await colours(p, 'theme-light')).bg));
  assert.ok(!isLight((await colours(p, 'theme-dark')).bg));
  await p.click('#scheme-buttons button[data-scheme="light"]');
  assert.ok(isLight((await colours(p, 'theme-auto')).bg));
  assert.ok(!isLight((await colours(p, 'theme-dark')).bg));
  for (const id of ['theme-auto', 'theme-light', 'theme-dark', 'custom-cream', 'custom-brand'])
    assertReadable(await colours(p, id), id);
  assert.match(
    await p.evaluate(
      () => document.getElementById('example-default-gpu').shadowRoot.querySelector('.note').textContent,
    ),
    new RegExp(defaults.settings.gpu),
  );
  // The event log: estimates and the bad example's error, then a playground edit.
  await p.waitForFunction(() =>
    document.querySelector('#event-log li[data-source="example-error"][data-event="error"]'),
  );
  assert.ok(await p.$('#event-log li[data-source="example-llama"][data-event="flopcast-estimate"]'));
  await p.fill('#pg-batch', '4');
  await p.dispatchEvent('#pg-batch', 'change');
  await p.waitForFunction(() => document.getElementById('playground-widget').result?.batch_size === 4);
  await p.selectOption('#pg-training', 'present');
  await p.waitForFunction(
    () => document.getElementById('playground-widget').result?.details.settings.training === true,
  );
  assert.match(
    await p.textContent('#playground-markup'),
    /batch="4" training><\/flopcast-estimate>|batch="4".* training/,
  );
  await p.fill('#pg-batch', '0');
  await p.dispatchEvent('#pg-batch', 'change');
  await p.waitForFunction(() =>
    document.querySelector('#event-log li[data-source="playground-widget"][data-event="error"]'),
  );
  assert.match(await p.textContent('#event-log li[data-source="playground-widget"]'), /request .*\/batch_size/);
  assert.deepEqual(violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});
