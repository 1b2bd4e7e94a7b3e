// URL state in Debian's chromium: committed changes add history entries (typing only rewrites the
// current one), Back and Forward restore every input and the estimate without a reload, each state
// equal to a fresh load of its address; the serving panels' fields travel in the URL; "Copy link"
// puts the address in the clipboard (or, refused, in a selected field); "Export JSON" downloads
// exactly the object the core's estimate() returns for the request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openPage, shownBy, openSuite, closeSuite } from './harness.mjs';

let site, browser, fc;
before(async () => ({ site, browser, fc } = await openSuite({ core: true })));
after(() => closeSuite({ site, browser }));

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const historyLength = (page) => page.evaluate(() => history.length);
const waitQuery = (page, key, value) =>
  page.waitForFunction(([k, v]) => new URLSearchParams(location.search).get(k) === v, [key, value]);
const waitUrl = (page, url) => page.waitForFunction((u) => location.href === u, url);

/** Every input, select and text area of the page by id (checked state for boxes and radios). */
const inputsOf = (page) =>
  page.evaluate(() => {
    const out = {};
    for (const el of document.querySelectorAll('input, select, textarea')) {
      if (!el.id || el.type === 'file' || el.id === 'share-url') continue;
      out[el.id] = el.type === 'checkbox' || el.type === 'radio' ? el.checked : el.value;
    }
    return out;
  });

/** What a page shows: its inputs, every result figure (by JSON pointer) and the headline's text. */
async function stateOf(page) {
  return {
    inputs: await inputsOf(page),
    figures: await shownBy(page, 'data-field', '#results'),
    headline: await page.$$eval('.hero .stat-value', (els) => els.map((e) => e.textContent)),
  };
}

/** The state of a fresh load of `url` in `context` (its console errors go to `errors`). */
async function freshState(context, url, errors) {
  const page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await ready(page);
  const s = await stateOf(page);
  await page.close();
  return s;
}

test('Back and Forward step between committed states, each equal to a fresh load of its URL', async () => {
  const { page, context, errors, violations } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await page.waitForFunction(() => new URLSearchParams(location.search).has('model'));
  const url0 = page.url();
  const state0 = await stateOf(page);
  const h0 = await historyLength(page);
  await page.evaluate(() => (window.__sameDocument = true));

  // Typing rewrites the current entry (a reload keeps it); Enter commits it as a new entry.
  await page.fill('#batch', '8');
  await waitQuery(page, 'batch', '8');
  assert.equal(await historyLength(page), h0, 'typing adds no history entry');
  await page.press('#batch', 'Enter');
  await page.waitForFunction((n) => history.length === n, h0 + 1);
  const url1 = page.url();
  assert.equal(new URL(url1).searchParams.get('batch'), '8');

  // A select change commits at once.
  await page.selectOption('#gpu', 'H100-SXM');
  await waitQuery(page, 'gpu', 'H100-SXM');
  await page.waitForFunction((n) => history.length === n, h0 + 2);
  const url2 = page.url();
  const state2 = await stateOf(page);

  // Each committed state differs in its inputs and its headline.
  const fresh1 = await freshState(context, url1, errors);
  assert.notDeepEqual(fresh1.headline, state0.headline, 'batch 8 changes the headline');
  assert.notDeepEqual(state2.headline, fresh1.headline, 'the GPU changes the headline');
  assert.deepEqual(state2, await freshState(context, url2, errors));

  await page.goBack();
  await waitUrl(page, url1);
  const back1 = await stateOf(page);
  assert.equal(back1.inputs.batch, '8');
  assert.notEqual(back1.inputs.gpu, 'H100-SXM');
  assert.deepEqual(back1, fresh1, 'Back restores the first change: inputs and results as a fresh load');

  await page.goBack();
  await waitUrl(page, url0);
  const back0 = await stateOf(page);
  assert.equal(back0.inputs.batch, state0.inputs.batch);
  assert.deepEqual(back0, state0, 'Back again restores the first load');
  assert.deepEqual(back0, await freshState(context, url0, errors));

  await page.goForward();
  await waitUrl(page, url1);
  assert.deepEqual(await stateOf(page), fresh1, 'Forward restores the first change');
  assert.equal(await page.evaluate(() => window.__sameDocument), true, 'no reload on Back/Forward');
  assert.equal(await historyLength(page), h0 + 2, 'stepping adds no entry');

  // A committed change after Back replaces the forward entries.
  await page.selectOption('#precision', 'int8');
  await waitQuery(page, 'precision', 'int8');
  assert.equal(await page.inputValue('#batch'), '8');
  assert.deepEqual(await stateOf(page), await freshState(context, page.url(), errors));
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  await context.close();
});

test('the serving panels’ fields are restored from the URL, by Back and by a fresh load', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await page.waitForFunction(() => new URLSearchParams(location.search).has('model'));
  const pristine = await page.inputValue('#sim-concurrency');
  const h0 = await historyLength(page);
  // Blur commits: each change is its own entry (typing alone only rewrites the current one, so the
  // query having the value is not enough; the entry count says the commit happened).
  const commit = async (id, key, value, n) => {
    await page.fill(id, value);
    await page.press(id, 'Tab');
    await page.waitForFunction((len) => history.length === len, h0 + n);
    await waitQuery(page, key, value);
  };

  await commit('#sim-concurrency', 'conc', '2,8', 1);
  const urlConc = page.url();
  await commit('#sim-isl', 'isl', '300', 2);
  await commit('#srv-concurrency', 'srv-concurrency', '16', 3);

  await page.goBack();
  await page.goBack();
  await waitUrl(page, urlConc);
  assert.equal(await page.inputValue('#sim-concurrency'), '2,8');
  assert.notEqual(await page.inputValue('#sim-isl'), '300');
  assert.equal(await page.inputValue('#srv-concurrency'), '');
  await page.goBack();
  await page.waitForFunction(() => !new URLSearchParams(location.search).has('conc'));
  assert.equal(await page.inputValue('#sim-concurrency'), pristine);
  await page.goForward();
  await waitUrl(page, urlConc);
  assert.equal(await page.inputValue('#sim-concurrency'), '2,8');
  await page.goForward();
  await page.goForward();
  await waitQuery(page, 'srv-concurrency', '16');
  assert.equal(await page.inputValue('#srv-concurrency'), '16');

  // A fresh load of an address with the panel's fields: the run sends them.
  const again = await context.newPage();
  again.on('pageerror', (e) => errors.push(e.message));
  await again.goto(`${site.url}/index.html?gpu=H100-SXM&conc=3,9&isl=256&osl=32&nreq=64&srv-concurrency=16`);
  await ready(again);
  assert.equal(await again.inputValue('#sim-concurrency'), '3,9');
  assert.equal(await again.inputValue('#srv-concurrency'), '16');
  await again.locator('#serve').scrollIntoViewIfNeeded();
  await again.click('#sim-run');
  await again.waitForFunction(() => document.querySelectorAll('#sim-table tbody tr').length === 2, null, {
    timeout: 60000,
  });
  const sent = JSON.parse(await again.$eval('#sim-table', (t) => t.dataset.request));
  assert.deepEqual(sent.simulation.concurrency, [3, 9]);
  assert.equal(sent.simulation.input_tokens, 256);
  assert.equal(sent.simulation.num_requests, 64);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Copy link puts the URL in the clipboard; refused, it selects the link in a field', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`, {
    context: { permissions: ['clipboard-read', 'clipboard-write'] },
  });
  await ready(page);
  await page.selectOption('#precision', 'fp8');
  await page.fill('#seq', '4096'); // typed, not yet committed: the copied link has it all the same
  await page.click('#copy-link');
  await page.waitForFunction(() => document.getElementById('share-status').textContent === 'Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, page.url());
  const q = new URL(copied).searchParams;
  assert.equal(q.get('precision'), 'fp8');
  assert.equal(q.get('seq'), '4096');
  assert.equal(await page.isHidden('#share-url'), true);
  assert.deepEqual(await freshState(context, copied, errors), await stateOf(page));

  // The clipboard API refuses: the link shows in a read-only field, selected.
  await page.evaluate(() => {
    navigator.clipboard.writeText = () =>
      Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));
  });
  await page.click('#copy-link');
  await page.waitForSelector('#share-url', { state: 'visible' });
  const field = await page.$eval('#share-url', (el) => ({
    value: el.value,
    readOnly: el.readOnly,
    focused: document.activeElement === el,
    selected: el.selectionStart === 0 && el.selectionEnd === el.value.length,
  }));
  assert.deepEqual(field, { value: page.url(), readOnly: true, focused: true, selected: true });
  assert.match(await page.textContent('#share-status'), /Copy the selected link/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Export JSON downloads exactly the core’s estimate() for the request', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await page.fill('#model', 'qwen2.5-7b');
  await page.fill('#batch', '4');
  await page.selectOption('#gpu', 'L40S');
  await waitQuery(page, 'gpu', 'L40S');
  const expected = fc.estimate({ model: 'qwen2.5-7b', gpu: 'L40S', batch_size: 4, layer_table: true });

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  // The model's name as a file name: a Hub id's slash becomes an underscore.
  const model = expected.model.replaceAll('/', '_');
  assert.equal(download.suggestedFilename(), `flopcast-${model}-L40S.json`);
  const text = await readFile(await download.path(), 'utf8');
  assert.equal(text, `${JSON.stringify(JSON.parse(text), null, 2)}\n`, 'pretty-printed');
  assert.deepEqual(JSON.parse(text), expected);

  // Without a GPU the name says so.
  await page.selectOption('#gpu', 'none');
  const [none] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  assert.equal(none.suggestedFilename(), `flopcast-${model}-none.json`);
  assert.deepEqual(
    JSON.parse(await readFile(await none.path(), 'utf8')),
    fc.estimate({ model: 'qwen2.5-7b', gpu: 'none', batch_size: 4, layer_table: true }),
  );
  assert.deepEqual(errors, []);
  await context.close();
});
