// Screenshots of the built page for reviews and release notes (not a test): desktop with the
// issue's tp=4 link, phone (390 px), dark mode, the widget on a light and a dark host, and the
// report. Run after `npm run build`: node scripts/screenshots.mjs [out-dir] (default build-web/screens).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { serve, launch, dist, root, outDir } from '../tests/browser/harness.mjs';

const out = process.argv[2] ?? join(outDir, 'screens');
mkdirSync(out, { recursive: true });
const site = await serve(dist);
const browser = await launch();
const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const link = '/index.html?model=llama-2-70b&gpu=A100-80GB-SXM&precision=fp16&tp=4';

async function shot(name, url, context = {}, after = async () => {}) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...context });
  const page = await ctx.newPage();
  await page.goto(`${site.url}${url}`);
  if (url.startsWith('/index.html')) await ready(page);
  await after(page);
  await page.screenshot({ path: join(out, `${name}.png`), fullPage: false });
  await ctx.close();
  console.log(join(out, `${name}.png`));
}

try {
  await shot('desktop', link);
  await shot('phone', link, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true });
  await shot('dark', `${link}&training=1`, { colorScheme: 'dark' });
  const host = (scheme) => async (page) => {
    await page.evaluate((s) => {
      document.body.replaceChildren();
      document.documentElement.style.colorScheme = s;
      document.body.style.background = s === 'dark' ? '#15171c' : '#ffffff';
      document.body.style.color = s === 'dark' ? '#e6e6e6' : '#111111';
      const p = document.createElement('p');
      p.textContent = `A ${s} documentation page with <flopcast-estimate model="llama-2-70b" tp="4">:`;
      const el = document.createElement('flopcast-estimate');
      for (const [k, v] of Object.entries({ model: 'llama-2-70b', gpu: 'A100-80GB-SXM', precision: 'fp16', tp: '4' }))
        el.setAttribute(k, v);
      el.style.maxWidth = '420px';
      document.body.append(p, el);
    }, scheme);
    await page.waitForFunction(() => document.querySelector('flopcast-estimate')?.result);
  };
  await shot('widget-light-host', '/embed.html', { colorScheme: 'dark' }, host('light'));
  await shot('widget-dark-host', '/embed.html', { colorScheme: 'light' }, host('dark'));
  const file = join(out, 'report.html');
  const r = spawnSync(
    join(root, 'build/flopcast'),
    ['report', 'llama-3-8b', '-g', 'H100-SXM', '--serving', '-o', file],
    {
      encoding: 'utf8',
      env: { ...process.env, FLOPCAST_REPORT_RUNTIME: join(dist, 'report-runtime.html') },
    },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  const ctx = await browser.newContext({ viewport: { width: 900, height: 1200 } });
  const page = await ctx.newPage();
  await page.goto(`file://${file}`);
  await page.waitForTimeout(1500);
  await page.screenshot({ path: join(out, 'report.png'), fullPage: false });
  writeFileSync(join(out, 'README.txt'), 'Screenshots written by scripts/screenshots.mjs\n');
  console.log(join(out, 'report.png'));
  await ctx.close();
} finally {
  await browser.close();
  await site.close();
}
