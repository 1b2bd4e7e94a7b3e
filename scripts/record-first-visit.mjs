// Records what the default page asks the core before its first estimate and charts are drawn
// into web/first-visit.calls.json, which the build answers with the module (web/first-visit-plugin.js).
// Run after changing what the page's start-up asks, then build the site again:
//   npm run build && node scripts/record-first-visit.mjs && npm run build:web
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, dist, root } from '../tests/browser/harness.mjs';
import { recordCalls } from '../tests/browser/first-visit-calls.mjs';

const site = await serve(dist);
const browser = await launch();
try {
  const calls = await recordCalls(browser, `${site.url}/index.html`);
  const file = join(root, 'web/first-visit.calls.json');
  writeFileSync(file, `[\n${calls.map((key) => `  ${key}`).join(',\n')}\n]\n`); // a call per line
  console.log(`${file}: ${calls.length} calls`);
} finally {
  await browser.close();
  await site.close();
}
