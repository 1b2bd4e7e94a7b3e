// The page's layout in Debian's chromium at phone and desktop widths: after the first estimate the
// headline (fits badge, memory, TTFT, decode tok/s) shows without scrolling on a phone, the page
// never scrolls sideways with every panel open and filled (tables scroll inside their own
// container), and every button lies inside its card with its label inside the button.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, dist } from './harness.mjs';

let site, browser;
before(async () => {
  site = await serve(dist);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');

/** Fills the tables (a small sweep and a small simulation) and the training card. */
async function fillEverything(page) {
  await page.fill('#sweep-models', 'llama-3-8b');
  await page.fill('#sweep-batch', '1,8');
  await page.fill('#sweep-seq', '512');
  await page.fill('#sweep-precision', 'bf16');
  await page.fill('#sweep-gpu', 'H100');
  await page.click('#sweep-run');
  await page.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length > 0);

  const engines = await page.$$eval('#sim-engine option', (os) => os.map((o) => o.value));
  const engine = engines.find((v) => v === 'vllm') ?? engines.find((v) => v !== '');
  if (engine) await page.selectOption('#sim-engine', engine);
  await page.fill('#sim-concurrency', '1,4');
  await page.fill('#sim-isl', '256');
  await page.fill('#sim-osl', '32');
  await page.fill('#sim-requests', '16');
  const summary = await page.$eval('#sim-summary', (el) => el.textContent);
  await page.click('#sim-run');
  await page.waitForFunction(
    (prev) => {
      const t = document.getElementById('sim-summary').textContent;
      return t !== prev && !/Simulating/.test(t);
    },
    summary,
    { timeout: 60000 },
  );
  await page.check('#training');
  await page.waitForFunction(() => !document.getElementById('training-card').hidden);
}

/** Shows every hidden part of the page (all model sources, the custom GPU, the share URL…), the listbox aside. */
const openEverything = (page) =>
  page.evaluate(() => {
    for (const el of document.querySelectorAll('[hidden]')) if (!el.matches('[role="listbox"]')) el.hidden = false;
    for (const d of document.querySelectorAll('details')) d.open = true;
  });

/**
 * The page's width and the elements that stick out past `width` (the screen's width; a mobile
 * viewport widens innerWidth to fit wide content, so innerWidth alone would hide the overflow),
 * outside scroll containers.
 */
const overflow = (page, width) =>
  page.evaluate((width) => {
    const scrolls = (el) => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
      }
      return false;
    };
    const wide = [];
    for (const el of document.body.querySelectorAll('*')) {
      const b = el.getBoundingClientRect();
      if (b.width > 0 && b.right > width + 0.5 && !scrolls(el))
        wide.push(
          `<${el.tagName.toLowerCase()}${el.id ? ` id=${el.id}` : ''} class="${el.className}"> ends at ${Math.round(b.right)}`,
        );
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, wide: wide.slice(0, 8) };
  }, width);

/** Every shown button whose box leaves its card (or panel), or whose label leaves the button. */
const strayButtons = (page) =>
  page.evaluate(() => {
    const out = [];
    let checked = 0;
    for (const b of document.querySelectorAll('button')) {
      const r = b.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const card = b.closest('.card, .summary, .panel');
      if (!card) continue;
      checked++;
      const c = card.getBoundingClientRect();
      const box = (x) => `${Math.round(x.left)}–${Math.round(x.right)} × ${Math.round(x.top)}–${Math.round(x.bottom)}`;
      if (r.left < c.left - 0.5 || r.right > c.right + 0.5 || r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5)
        out.push(`#${b.id} at ${box(r)} leaves its ${card.className.split(' ')[0]} at ${box(c)}`);
      if (b.scrollWidth > b.clientWidth + 1)
        out.push(`#${b.id}: its label (${b.scrollWidth}px) is wider than the button (${b.clientWidth}px)`);
    }
    return { out, checked };
  });

for (const [width, height] of [
  [360, 740],
  [390, 844],
]) {
  test(`at ${width}×${height} the answer comes first and the page never scrolls sideways`, async () => {
    const { page, context, errors, violations } = await openPage(browser, `${site.url}/index.html`, {
      context: { viewport: { width, height }, isMobile: true, hasTouch: true },
    });
    await ready(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    const head = await page.evaluate(() => {
      const top = (sel) => document.querySelector(sel).getBoundingClientRect().top + scrollY;
      const bottom = (sel) => document.querySelector(sel).getBoundingClientRect().bottom + scrollY;
      return {
        fits: top('#fits'),
        memory: bottom('.summary-line'),
        ttft: top('.hero [data-field="/details/performance/prefill_latency_s"]'),
        decode: top('.hero [data-field="/details/performance/decode_tokens_per_second"]'),
        form: top('#inputs'),
      };
    });
    // Collected, so that one run names every problem of a layout.
    const problems = [];
    const expect = (ok, message) => ok || problems.push(message);
    expect(head.fits < height, `the fits badge starts at ${head.fits}px, below the first screen (${height}px)`);
    expect(head.memory <= height, `the memory line ends at ${head.memory}px, below the first screen (${height}px)`);
    expect(head.ttft < height, `the TTFT figure starts at ${head.ttft}px, below the first screen (${height}px)`);
    expect(head.decode < height, `the decode figure starts at ${head.decode}px, below the first screen (${height}px)`);
    expect(head.fits < head.form, `the headline (${head.fits}px) must come before the form (${head.form}px)`);
    let o = await overflow(page, width);
    expect(
      o.scrollWidth <= width && o.innerWidth === width,
      `first estimate: page ${o.scrollWidth}px wide (innerWidth ${o.innerWidth}) at ${width}px: ${o.wide}`,
    );

    await fillEverything(page);
    await openEverything(page);
    await page.waitForTimeout(100);
    o = await overflow(page, width);
    expect(
      o.scrollWidth <= width && o.innerWidth === width,
      `every panel open: page ${o.scrollWidth}px wide (innerWidth ${o.innerWidth}) at ${width}px: ${o.wide}`,
    );
    const { out, checked } = await strayButtons(page);
    problems.push(...out);
    assert.deepEqual(problems, [], `at ${width}×${height}`);
    assert.ok(checked >= 8, `checked ${checked} buttons`);
    for (const id of ['sweep-table', 'sim-table']) {
      const rows = await page.$$eval(`#${id} tbody tr`, (rs) => rs.length);
      assert.ok(rows > 0, `#${id} has rows`);
    }

    assert.deepEqual(errors, []);
    assert.deepEqual(violations, []);
    await context.close();
  });
}

test('at 1280×900 every button stays inside its card (Calibrate included) and the layout keeps two columns', async () => {
  const { page, context, errors, violations } = await openPage(browser, `${site.url}/index.html`, {
    context: { viewport: { width: 1280, height: 900 } },
  });
  await ready(page);
  const columns = await page.evaluate(() => {
    const f = document.getElementById('inputs').getBoundingClientRect();
    const r = document.getElementById('results').getBoundingClientRect();
    return { formRight: f.right, resultsLeft: r.left, formTop: f.top, resultsTop: r.top };
  });
  assert.ok(columns.formRight <= columns.resultsLeft, 'the form sits left of the results on desktop');
  assert.ok(Math.abs(columns.formTop - columns.resultsTop) < 1, 'the form and the results start level on desktop');

  await fillEverything(page);
  await openEverything(page);
  const o = await overflow(page, 1280);
  assert.ok(o.scrollWidth <= o.innerWidth, `page ${o.scrollWidth}px wide at 1280px: ${o.wide}`);
  const { out, checked } = await strayButtons(page);
  assert.ok(checked >= 8, `checked ${checked} buttons`);
  assert.deepEqual(out, []);
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  await context.close();
});
