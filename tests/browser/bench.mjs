// Web performance figures (a benchmark that prints numbers, not a timed test):
// - the transferred page gzipped (HTML, JS, CSS, WASM, data): goal <= 300 KB
// - the first estimate on screen after navigation to a local server: goal <= 1 s
// - one estimate + re-render after an input change: goal within a 16 ms frame
// - 1,000,000 sweep points in the Web Worker: goal <= 2 s
// Run after `npm run build`:  npm run bench:web
import { gzipSync } from 'node:zlib';
import { serve, launch, dist } from './harness.mjs';
import { sweep1m } from '../wasm/sweep_request.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const site = await serve(dist);
const browser = await launch();
try {
  // Transfer size of a cold load.
  const context = await browser.newContext();
  const page = await context.newPage();
  const bodies = [];
  page.on('response', async (r) => {
    try {
      bodies.push([new URL(r.url()).pathname, await r.body()]);
    } catch {}
  });
  await page.goto(`${site.url}/index.html`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  await page.waitForTimeout(500);
  let raw = 0,
    gz = 0;
  for (const [path, body] of bodies) {
    const z = gzipSync(body, { level: 9 }).length;
    raw += body.length;
    gz += z;
    console.log(
      `  ${path.padEnd(48)} ${(body.length / 1024).toFixed(1).padStart(8)} KB  gzip ${(z / 1024).toFixed(1).padStart(7)} KB`,
    );
  }
  console.log(
    `page transfer: ${(raw / 1024).toFixed(1)} KB raw, ${(gz / 1024).toFixed(1)} KB gzipped (goal <= 300 KB)`,
  );
  await context.close();

  // First estimate on screen, fresh context each time (no cache).
  const firsts = [];
  for (let i = 0; i < 5; i++) {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await p.goto(`${site.url}/index.html`);
    await p.waitForFunction(() => document.body.dataset.ready === '1');
    firsts.push(await p.evaluate(() => window.__flopcastFirstEstimateMs));
    await ctx.close();
  }
  console.log(
    `first estimate on screen: median ${median(firsts).toFixed(0)} ms after navigation (runs: ${firsts.map((x) => x.toFixed(0)).join(', ')}; goal <= 1000 ms)`,
  );

  // One input change: estimate + synchronous re-render.
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  await p.goto(`${site.url}/index.html`);
  await p.waitForFunction(() => document.body.dataset.ready === '1');
  const update = await p.evaluate(() => {
    const input = document.getElementById('batch');
    const times = [];
    for (let i = 0; i < 60; i++) {
      const t = performance.now();
      input.value = String(1 + (i % 32));
      input.dispatchEvent(new Event('input', { bubbles: true }));
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return { median: times[30], p95: times[57] };
  });
  console.log(
    `estimate + re-render on input: median ${update.median.toFixed(2)} ms, p95 ${update.p95.toFixed(2)} ms (goal <= 16 ms)`,
  );

  // 1,000,000 sweep points in the worker.
  const request = sweep1m;
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await p.evaluate((r) => window.flopcastSweep(r), request));
  console.log(
    `sweep in the worker: ${runs[0].count} points, median ${median(runs.map((r) => r.ms)).toFixed(0)} ms (runs: ${runs.map((r) => r.ms.toFixed(0)).join(', ')}; goal <= 2000 ms)`,
  );
  await ctx.close();
} finally {
  await browser.close();
  await site.close();
}
