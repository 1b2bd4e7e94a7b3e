// Screenshots of issue 27's items 1, 2, 4 and 7 (desktop and phone) for the closing note:
//   node scripts/screens27.mjs [site dir, default dist/] [out dir, default build-web/screens27]
// Serves the site on 127.0.0.1 (tests/browser/harness.mjs) and drives Debian's chromium.
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { launch, serve } from '../tests/browser/harness.mjs';

const site = resolve(process.argv[2] ?? 'dist');
const out = resolve(process.argv[3] ?? 'build-web/screens27');
await mkdir(out, { recursive: true });

const SHOTS = [
  // item 1: LoRA on an A100 (badge, memory bar, hero, LoRA card, training panel)
  ['item1-lora', 'model=llama-3-8b&gpu=A100-80GB-SXM&training=1&ft=lora&lora=16', '#results'],
  // item 2: serving throughput with an engine (TTFT vs TPOT)
  [
    'item2-serving',
    'model=llama-3-8b&gpu=A100-80GB-SXM&eng=vllm&srv-prompt=1024&srv-output=1024&srv-concurrency=1',
    '#system',
  ],
  // item 4: gpt-oss-120b on an H100 (the checkpoint's format)
  ['item4-format', 'model=gpt-oss-120b&gpu=H100-SXM', '#results'],
  // item 7: one workload in every panel
  ['item7-workload', 'model=llama-3-8b&gpu=A100-80GB-SXM&batch=8&eng=vllm', '#providers'],
];
const VIEWS = [
  ['desktop', { viewport: { width: 1400, height: 1000 } }],
  ['phone', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }],
];

const server = await serve(site);
const browser = await launch();
try {
  for (const [view, opts] of VIEWS)
    for (const [name, query, anchor] of SHOTS) {
      const context = await browser.newContext(opts);
      const page = await context.newPage();
      await page.goto(`${server.url}/index.html?${query}`);
      await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
      await page.locator(anchor).scrollIntoViewIfNeeded();
      await page.waitForTimeout(1500); // lazily loaded panels and charts settle
      const file = `${out}/${name}-${view}.jpg`;
      await page.screenshot({ path: file, type: 'jpeg', quality: 70 });
      console.log(file);
      await context.close();
    }
} finally {
  await browser.close();
  await server.close();
}
