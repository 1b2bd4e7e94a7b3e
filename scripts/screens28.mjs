// The README's screenshot of issue 28 item 5, the SLO planner card: llama-3.1-8b on H100s with
// TTFT 500 ms, TPOT 30 ms and 64 concurrent clients, searched, cropped to the card.
//   node scripts/screens28.mjs [site dir, default dist/] [out file, default docs/screenshots/issue-28/slo-planner.png]
// Serves the site on 127.0.0.1 (tests/browser/harness.mjs) and drives Debian's chromium.
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { launch, serve } from '../tests/browser/harness.mjs';

const site = resolve(process.argv[2] ?? 'dist');
const file = resolve(process.argv[3] ?? 'docs/screenshots/issue-28/slo-planner.png');
await mkdir(dirname(file), { recursive: true });

const query = 'model=llama-3.1-8b&gpu=H100-SXM&slo-ttft=500&slo-tpot=30&slo-load=64';
const server = await serve(site);
const browser = await launch();
try {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(`${server.url}/index.html?${query}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
  await page.locator('#slo-plan').scrollIntoViewIfNeeded();
  await page.click('#slo-run');
  await page.waitForFunction(() => document.getElementById('slo-status').dataset.state === 'done', null, {
    timeout: 60000,
  });
  await page.waitForFunction(() => document.getElementById('chart-slo-pareto')?.dataset.rendered === '1');
  await page.waitForTimeout(500); // the chart's resize settles
  await page.locator('#slo-plan').screenshot({ path: file });
  console.log(`${file} (${((await stat(file)).size / 1024).toFixed(0)} KB)`);
  await context.close();
} finally {
  await browser.close();
  await server.close();
}
