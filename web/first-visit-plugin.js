// Answers the first visit's calls (web/first-visit.calls.json) with the built WebAssembly module
// (build-wasm/wasm, the same module the page loads) and inlines them into index.html, so that the
// default page paints its first estimate and charts before the module has loaded (see
// web/src/first-visit.js). Each answer must survive JSON exactly (no NaN, no infinity, no -0,
// nothing but plain data): the page's figures are then the module's to the last bit.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

export const CALLS_FILE = 'first-visit.calls.json';

/** The answers to `calls` ([name, ...args] each; "work:NAME" is the worker's fc.NAME), keyed by the call as JSON. */
export async function firstVisitAnswers(fc, calls) {
  const answers = {};
  for (const call of calls) {
    const key = JSON.stringify(call);
    const [name, ...args] = call;
    const method = name.replace(/^work:/, '');
    if (typeof fc[method] !== 'function') throw new Error(`${CALLS_FILE}: the module has no ${method}()`);
    const value = fc[method](...args);
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value))
      throw new Error(`${CALLS_FILE}: the answer to ${key.slice(0, 80)} does not survive JSON exactly`);
    answers[key] = value;
  }
  return answers;
}

/** The inline element holding `answers` ("<" escaped so that no "</script" can end it early). */
export const answersElement = (answers) =>
  `<script type="application/json" id="flopcast-first">${JSON.stringify(answers).replace(/</g, '\\u003c')}</script>`;

export function firstVisitPlugin() {
  const web = resolve(import.meta.dirname);
  return {
    name: 'flopcast-first-visit',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      async handler(html, ctx) {
        if (resolve(ctx.filename) !== resolve(web, 'index.html')) return html;
        const file = resolve(web, CALLS_FILE);
        if (!existsSync(file)) return html; // not recorded yet: the page waits for the module
        const calls = JSON.parse(readFileSync(file, 'utf8'));
        const wasm = resolve(web, '../build-wasm/wasm');
        const { createFlopcast } = await import(resolve(wasm, 'flopcast.js'));
        const fc = await createFlopcast({ wasmBinary: readFileSync(resolve(wasm, 'flopcast_core.wasm')) });
        const answers = await firstVisitAnswers(fc, calls);
        // The module is fetched after the first paint; web/public/boot.js restores the preload for
        // a start the answers do not serve (a query string, stored settings).
        const preload = /<link rel="preload"([^>]* type="application\/wasm")/;
        if (!preload.test(html)) throw new Error("index.html: the module's preload link was not found");
        return html
          .replace(preload, '<link rel="flopcast-preload"$1')
          .replace('</body>', `${answersElement(answers)}\n</body>`);
      },
    },
  };
}
