// Web performance figures of issue 14, each beside its goal with "met" / "NOT met" (a benchmark
// that prints numbers, not a timed test). Run after `npm run build`:  npm run bench:web
// - the first visit: the bytes on the wire from the server `npm start` runs (scripts/serve.mjs,
//   precompressed files by Accept-Encoding), every file the page requests until its first
//   estimate and charts are drawn; per file its raw, brotli and gzip size: goal <= 150 KB. The
//   default page paints from the build's answers (web/src/first-visit.js) and loads the module
//   after that paint: the module's bytes are listed apart, with the visit's total
// - the first estimate on screen after navigation, median of 5 fresh loads: goal <= 250 ms
//   (issue 29); the same for a page with a query string, which waits for the module
// - the full module ready after the first paint: goal <= 1 s
// - an input change (estimate + synchronous re-render), p95 of 60: goal within a 16 ms frame
// - the longest main-thread task during the load (a Chromium trace): goal <= 50 ms
// - 1,000,000 sweep points in the Web Worker: goal <= 500 ms
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { launch, dist as built } from './harness.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { sweep1m } from '../wasm/sweep_request.mjs';

const KB = (n) => `${(n / 1024).toFixed(1)} KB`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const verdict = (ok) => (ok ? 'met' : 'NOT met');
const figures = [];
/** One line of the summary: what, the figure, the goal, met or not. */
function figure(what, value, goal, ok, extra = '') {
  figures.push([what, value, goal, ok]);
  console.log(`${what}: ${value} (goal ${goal}) ${verdict(ok)}${extra ? `  ${extra}` : ''}`);
}
// the first estimate on screen (data-estimate; a build from before it has only data-ready)
const ready = (page) =>
  page.waitForFunction(() => document.body.dataset.estimate === '1' || document.body.dataset.ready === '1');
// (a build from before the first visit's answers has no data-first: its first estimate needs the module)
const moduleReady = (page) =>
  page.waitForFunction(
    () =>
      document.body.dataset.module === '1' ||
      (document.body.dataset.ready === '1' && document.body.dataset.first === undefined),
  );
const chartsDrawn = (page) =>
  page.waitForFunction(() =>
    [...document.querySelectorAll('.charts figure:not([hidden])')].every(
      (f) => f.querySelector('canvas')?.dataset.rendered === '1',
    ),
  );
/** The brotli (quality 11) and gzip (level 9) sizes of `bytes`: the build's copies where present. */
function packed(path, bytes) {
  const file = join(dist, path === '/' ? 'index.html' : path);
  const size = (suffix, make) => (existsSync(file + suffix) ? readFileSync(file + suffix).length : make().length);
  return {
    br: size('.br', () =>
      brotliCompressSync(bytes, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 },
      }),
    ),
    gz: size('.gz', () => gzipSync(bytes, { level: 9 })),
  };
}

const dist = process.argv[2] ? resolve(process.argv[2]) : built;
const site = await startServer({ dir: dist, port: 0 });
console.log(`the site in ${dist}, served by scripts/serve.mjs at ${site.url}`);
const url = site.url;
const browser = await launch();
try {
  // ---- the first visit, as served ----
  {
    const context = await browser.newContext();
    const page = await context.newPage();
    const seen = [];
    page.on('requestfinished', (req) => seen.push(req));
    await page.goto(url);
    await ready(page);
    await chartsDrawn(page);
    const drawnAt = seen.length; // the requests finished until now: the first estimate and charts
    const mode = await page.evaluate(() => document.body.dataset.first);
    await moduleReady(page);
    await page.waitForTimeout(300);
    const counted = new Set();
    let later = 0; // bytes after the first estimate and charts (the module, in the background)
    let wire = 0;
    let headers = 0;
    let raw = 0;
    let br = 0;
    let gz = 0;
    console.log(
      `first visit from scripts/serve.mjs (${seen.length} requests, the service worker's background precache not counted):`,
    );
    console.log(
      `  ${'file'.padEnd(46)} ${'raw'.padStart(10)} ${'brotli'.padStart(10)} ${'gzip'.padStart(10)} ${'on the wire'.padStart(12)}`,
    );
    for (const [i, req] of seen.entries()) {
      const res = await req.response();
      if (!res) continue;
      const path = new URL(req.url()).pathname;
      const body = await res.body();
      const sizes = await req.sizes();
      const enc = (await res.allHeaders())['content-encoding'] ?? 'none';
      const z = packed(path, body);
      if (counted.has(path)) {
        console.log(
          `  ${path.padEnd(46)} ${KB(body.length).padStart(10)}   (again, from the browser cache: not counted)`,
        );
        continue;
      }
      counted.add(path);
      // A worker's requests report no body size: its bytes on the wire are the served copy's.
      let onWire = sizes.responseBodySize;
      let note = enc;
      if (!(onWire > 0) && body.length > 0) {
        onWire = enc === 'br' ? z.br : enc === 'gzip' ? z.gz : body.length;
        note = `${enc} (a worker's request: the served copy's size)`;
      }
      if (i >= drawnAt || (mode === 'answers' && path.endsWith('.wasm'))) {
        later += onWire;
        console.log(
          `  ${path.padEnd(46)} ${KB(body.length).padStart(10)} ${KB(z.br).padStart(10)} ${KB(z.gz).padStart(10)} ${KB(onWire).padStart(12)} ${note}, after the first estimate and charts`,
        );
        continue;
      }
      wire += onWire;
      headers += sizes.responseHeadersSize;
      raw += body.length;
      br += z.br;
      gz += z.gz;
      console.log(
        `  ${path.padEnd(46)} ${KB(body.length).padStart(10)} ${KB(z.br).padStart(10)} ${KB(z.gz).padStart(10)} ${KB(onWire).padStart(12)} ${note}`,
      );
    }
    console.log(
      `  ${'total'.padEnd(46)} ${KB(raw).padStart(10)} ${KB(br).padStart(10)} ${KB(gz).padStart(10)} ${KB(wire).padStart(12)}`,
    );
    figure(
      'first visit until the first estimate and charts, compressed bodies on the wire',
      KB(wire),
      '<= 150 KB',
      wire <= 150 * 1024,
      `(+ ${KB(headers)} of headers; the page started from ${mode === 'answers' ? "the build's answers" : 'the module'})`,
    );
    console.log(
      `  then the module, loaded after the first paint: ${KB(later)}; the whole first visit ${KB(wire + later)}`,
    );
    await context.close();
  }

  // ---- first estimate on screen, and the longest main-thread task, fresh contexts (no cache) ----
  const firsts = [];
  const phases = [];
  const longest = [];
  const insides = [];
  for (let i = 0; i < 5; i++) {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await browser.startTracing(p, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    await p.goto(url);
    await ready(p);
    firsts.push(await p.evaluate(() => window.__flopcastFirstEstimateMs));
    await chartsDrawn(p);
    await moduleReady(p);
    // (the module's first calls, asked in idle tasks after it loaded, are part of the load)
    await p.waitForFunction(() => document.body.dataset.warm === '1' || document.body.dataset.first !== 'answers');
    phases.push(
      await p.evaluate(() => {
        const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
        const wasm = performance.getEntriesByType('resource').find((r) => r.name.endsWith('.wasm'));
        const nav = performance.getEntriesByType('navigation')[0];
        return {
          html: nav.responseEnd,
          paint: at('first-contentful-paint'),
          wasm: wasm?.responseEnd ?? NaN,
          engine: at('flopcast:engine'),
        };
      }),
    );
    await p.waitForTimeout(200);
    const trace = JSON.parse((await browser.stopTracing()).toString('utf8'));
    const events = trace.traceEvents ?? trace;
    const main = new Set(
      events
        .filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
        .map((e) => `${e.pid}:${e.tid}`),
    );
    const tasks = events.filter(
      (e) =>
        (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') &&
        e.ph === 'X' &&
        main.has(`${e.pid}:${e.tid}`),
    );
    const top = tasks.reduce((a, b) => (b.dur > (a?.dur ?? -1) ? b : a), null);
    longest.push(top ? top.dur / 1000 : 0);
    // What the longest task spent its time on: the events inside it on the same thread, by name.
    if (top) {
      const inside = {};
      for (const e of events)
        if (
          e.ph === 'X' &&
          e !== top &&
          e.pid === top.pid &&
          e.tid === top.tid &&
          e.ts >= top.ts &&
          e.ts + e.dur <= top.ts + top.dur &&
          e.dur >= 1000
        )
          inside[e.name] = (inside[e.name] ?? 0) + e.dur / 1000;
      insides.push(
        Object.entries(inside)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 4)
          .map(([n, ms]) => `${n} ${ms.toFixed(0)}`)
          .join(', '),
      );
    }
    await ctx.close();
  }
  // The same with a query string: the page waits for the module before its first estimate.
  const queried = [];
  for (let i = 0; i < 5; i++) {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await p.goto(`${url}?model=llama-3-8b&batch=2`);
    await ready(p);
    queried.push(await p.evaluate(() => window.__flopcastFirstEstimateMs));
    await ctx.close();
  }
  figure(
    'first estimate on screen',
    `median ${median(firsts).toFixed(0)} ms`,
    '<= 250 ms',
    median(firsts) <= 250,
    `(runs: ${firsts.map((x) => x.toFixed(0)).join(', ')} ms after navigation)`,
  );
  const at = (k) => median(phases.map((x) => x[k])).toFixed(0);
  console.log(
    `  where the time goes (medians, ms after navigation): HTML received ${at('html')}, first paint ${at('paint')}, first estimate ${median(firsts).toFixed(0)}, .wasm received ${at('wasm')}, module compiled and instantiated ${at('engine')}`,
  );
  const sincePaint = phases.map((x) => x.engine - x.paint);
  figure(
    'the full module ready after the first paint',
    `median ${median(sincePaint).toFixed(0)} ms`,
    '<= 1000 ms',
    median(sincePaint) <= 1000,
    `(runs: ${sincePaint.map((x) => x.toFixed(0)).join(', ')} ms)`,
  );
  console.log(
    `  a page with a query string (the module first): first estimate median ${median(queried).toFixed(0)} ms (runs: ${queried.map((x) => x.toFixed(0)).join(', ')} ms)`,
  );
  figure(
    'longest main-thread task during the load',
    `median ${median(longest).toFixed(1)} ms`,
    '<= 50 ms',
    median(longest) <= 50,
    `(runs: ${longest.map((x) => x.toFixed(1)).join(', ')} ms; until the module is ready)`,
  );
  console.log(`  inside the longest task (ms, by trace event): ${insides.map((x) => `[${x}]`).join(' ')}`);

  // ---- one input change: estimate + synchronous re-render ----
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  await p.goto(url);
  await ready(p);
  await moduleReady(p);
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
  figure(
    'input change re-rendered',
    `p95 ${update.p95.toFixed(2)} ms`,
    '<= 16 ms',
    update.p95 <= 16,
    `(median ${update.median.toFixed(2)} ms)`,
  );

  // ---- 1,000,000 sweep points in the worker ----
  const request = sweep1m;
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await p.evaluate((r) => window.flopcastSweep(r), request));
  const per1M = (r) => (r.ms * 1e6) / r.count;
  figure(
    `sweep in the worker (${runs[0].count} points)`,
    `median ${median(runs.map((r) => r.ms)).toFixed(0)} ms, ${median(runs.map(per1M)).toFixed(0)} ms per 1M`,
    '<= 500 ms per 1M',
    median(runs.map(per1M)) <= 500,
    `(runs: ${runs.map((r) => r.ms.toFixed(0)).join(', ')} ms)`,
  );
  await ctx.close();
} finally {
  await browser.close();
  await site.close();
}
console.log(`\n${figures.filter((f) => f[3]).length} of ${figures.length} page goals met`);
