// Errors for people, in Debian's chromium: a URL with several bad values shows an error at every
// bad field at once, each in plain words (the field's label, what is wrong, what is allowed; no
// "[flopcast.code] (pointer)" prefix, no CLI commands or flags), with the code and the pointer kept
// on the element; the error sits under its row at the row's width; the widget says the same.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, openPage, dist, outDir } from './harness.mjs';

let site, browser;
before(async () => {
  site = await serve(dist, { headers: { 'Access-Control-Allow-Origin': '*' } }); // the widget from another origin
  mkdirSync(outDir, { recursive: true });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');

/** Each field error's text, code, pointer and box (only the non-empty ones), by input id. */
const shownErrors = (page) =>
  page.evaluate(() => {
    const out = {};
    for (const el of document.querySelectorAll('#inputs .error[id$="-error"]')) {
      if (!el.textContent) continue;
      const id = el.id.slice(0, -'-error'.length);
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      out[id] = {
        text: el.textContent,
        code: el.dataset.code ?? '',
        pointer: el.dataset.pointer ?? '',
        label: document.querySelector(`label[for="${id}"]`).textContent.trim().replace(/\s+/g, ' '),
        invalid: document.getElementById(id).getAttribute('aria-invalid'),
        lines: Math.round(box.height / (parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.25)),
        width: box.width,
        formWidth: document.getElementById('inputs').getBoundingClientRect().width,
      };
    }
    return out;
  });

test('a URL with three bad values shows three errors at three fields at once, in plain words', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html?batch=0&seq=abc&gpu=nope`);
  await ready(page);
  const shown = await shownErrors(page);
  assert.deepEqual(Object.keys(shown).sort(), ['batch', 'gpu', 'seq'], JSON.stringify(shown));
  const expected = {
    batch: { code: 'config.range', pointer: '/batch_size', re: /expected a positive integer .*but got 0$/ },
    seq: {
      code: 'config.type',
      pointer: '/sequence_length',
      re: /expected a positive integer .*but got string "abc"$/,
    },
    gpu: { code: 'unknown_gpu', pointer: '/gpu', re: /unknown GPU "nope": expected a GPU name or alias/ },
  };
  for (const [id, e] of Object.entries(shown)) {
    assert.ok(e.text.startsWith(`${e.label}: `), `${id} starts with its label "${e.label}": ${e.text}`);
    assert.match(e.text, expected[id].re);
    assert.doesNotMatch(e.text, /flopcast |--|\[flopcast/, `${id}: no CLI hints or codes: ${e.text}`);
    assert.equal(e.code, expected[id].code, id);
    assert.equal(e.pointer, expected[id].pointer, id);
    assert.equal(e.invalid, 'true', `${id} is marked invalid`);
    // Under the row at the form's width: a few lines at most, not a narrow column's many.
    assert.ok(e.width > e.formWidth * 0.6, `${id}: ${e.width}px of ${e.formWidth}px`);
    assert.ok(e.lines <= 3, `${id}: ${e.lines} lines`);
  }
  // No figures yet: the status says why.
  const status = await page.textContent('#status');
  assert.match(status, /^No estimate yet: 3 invalid inputs/);
  for (const e of Object.values(shown)) assert.ok(status.includes(e.label), status);
  assert.ok(await page.isVisible('#no-estimate'), 'the results say why they are placeholders');
  const why = await page.textContent('#no-estimate');
  for (const e of Object.values(shown)) assert.ok(why.includes(e.label), why);
  // The URL keeps what was typed (seq=abc is not lost because a number input cannot hold it).
  assert.equal(new URL(page.url()).searchParams.get('seq'), 'abc');
  await page.screenshot({ path: join(outDir, 'errors.png'), fullPage: true });

  // Fixing one field clears its error only; fixing all brings the estimate.
  await page.fill('#batch', '2');
  await page.waitForFunction(() => document.getElementById('batch-error').textContent === '');
  assert.deepEqual(Object.keys(await shownErrors(page)).sort(), ['gpu', 'seq']);
  await page.fill('#seq', '512');
  await page.selectOption('#gpu', 'H100-SXM');
  await page.waitForFunction(() => document.getElementById('status').classList.contains('ok'));
  assert.equal(await page.isVisible('#no-estimate'), false);
  assert.deepEqual(await shownErrors(page), {});
  assert.deepEqual(errors, []);
  await context.close();
});

test('an unknown model in the URL: plain words at the model field, no CLI hint', async () => {
  const { page, context } = await openPage(browser, `${site.url}/index.html?model=lama-3-8b&batch=0`);
  await ready(page);
  const shown = await shownErrors(page);
  assert.deepEqual(Object.keys(shown).sort(), ['batch', 'model']);
  assert.match(shown.model.text, /^Model name or alias: unknown model "lama-3-8b": .*did you mean "llama-3-8b"/);
  assert.doesNotMatch(shown.model.text, /flopcast |--|config\.json/);
  await context.close();
});

test('the widget with gpu="nope" says what is wrong in plain words, without CLI hints', async () => {
  const host = await serve(join(outDir), {
    routes: {
      '/w.html': [
        200,
        'text/html',
        `<!doctype html><html><body>
        <flopcast-estimate id="w" model="llama-3-8b" gpu="nope"></flopcast-estimate>
        <script type="module" src="${site.url}/flopcast-widget.js"></script></body></html>`,
      ],
      '/favicon.ico': [204, 'image/x-icon', ''],
    },
  });
  try {
    const { page, context } = await openPage(browser, `${host.url}/w.html`);
    await page.waitForFunction(() => document.getElementById('w').shadowRoot?.querySelector('.error'));
    const e = await page.evaluate(() => {
      const el = document.getElementById('w').shadowRoot.querySelector('.error');
      return { text: el.textContent, code: el.dataset.code, pointer: el.dataset.pointer };
    });
    assert.match(e.text, /^gpu attribute: unknown GPU "nope": expected a GPU name or alias/);
    assert.doesNotMatch(e.text, /flopcast |--|\[flopcast/);
    assert.equal(e.code, 'unknown_gpu');
    assert.equal(e.pointer, '/gpu');
    await context.close();
  } finally {
    await host.close();
  }
});
