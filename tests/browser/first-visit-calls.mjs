// What the default page asks the core before its first estimate and charts are on screen: the
// calls web/first-visit.calls.json lists (see web/src/first-visit.js). Used by
// scripts/record-first-visit.mjs (writes the file) and tests/browser/first-visit.test.mjs (holds
// the file equal to what the page asks now).
export const chartsDrawn = (page) =>
  page.waitForFunction(
    () =>
      document.body.dataset.estimate === '1' &&
      [...document.querySelectorAll('.charts figure:not([hidden])')].every(
        (f) => f.querySelector('canvas')?.dataset.rendered === '1',
      ),
  );

/** The calls the page at `url` makes until its first estimate and charts are drawn, in order. */
export async function recordCalls(browser, url) {
  const context = await browser.newContext();
  try {
    await context.addInitScript(() => {
      window.__flopcastRecord = [];
    });
    const page = await context.newPage();
    await page.goto(url);
    await chartsDrawn(page);
    return await page.evaluate(() => [...window.__flopcastRecord]);
  } finally {
    await context.close();
  }
}
