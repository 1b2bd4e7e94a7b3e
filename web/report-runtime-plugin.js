// Emits report-runtime.html: the report template (web/src/report/template.html) with the page's
// light palette (the custom properties of web/src/style/page.css) and the report
// runtime (web/src/report/runtime.js: uPlot, the page's chart code and the renderer, bundled
// into one script) inlined, and that script's hash in the template's Content-Security-Policy.
// `flopcast report` and the page's "Download report" fill its data placeholder; the file makes no
// request of any kind.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'vite';

export const REPORT_FILE = 'report-runtime.html';

async function bundleRuntime(root) {
  const out = await build({
    configFile: false,
    logLevel: 'warn',
    root,
    resolve: { alias: { '@flopcast/wasm': resolve(root, '../build-wasm/wasm') } },
    build: {
      write: false,
      target: 'es2022',
      minify: true,
      lib: { entry: resolve(root, 'src/report/runtime.js'), formats: ['iife'], name: 'flopcastReportRuntime' },
    },
  });
  const outputs = (Array.isArray(out) ? out : [out]).flatMap((o) => o.output);
  const chunks = outputs.filter((o) => o.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`report runtime: expected one chunk, got ${chunks.length}`);
  // The stylesheets the runtime imports (the charts' web/src/plot.css), inlined beside the palette.
  const styles = outputs
    .filter((o) => o.type === 'asset' && o.fileName.endsWith('.css'))
    .map((o) => String(o.source))
    .join('\n');
  return { code: chunks[0].code, styles };
}

/**
 * The report file's template with `script` inlined (a `</script` inside it escaped: `<\/script` reads
 * the same in a string, a regular expression or a comment) as the whole text of its script element,
 * so that the CSP's hash is the hash of what runs.
 */
export function reportRuntime(template, script, css = '', styles = '') {
  if (script.includes('<!--')) throw new Error('report runtime: "<!--" would change how its script element parses');
  const code = script.replace(/<\/(script)/gi, '<\\/$1');
  const hash = `sha256-${createHash('sha256').update(code).digest('base64')}`;
  const element = /<script>\s*\/\*flopcast-report-runtime\*\/\s*<\/script>/;
  if (!element.test(template)) throw new Error('report template: no runtime placeholder');
  // The page's light palette: the custom properties of the page's first :root block (style/page.css).
  const root = /:root\s*\{([^}]*)\}/.exec(css)?.[1] ?? '';
  const palette = `:root {${[...root.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)].map((m) => ` ${m[1]}: ${m[2].trim()};`).join('')} }`;
  return template
    .replace('%SCRIPT_HASH%', hash)
    .replace('/*flopcast-report-palette*/', () => `${palette}\n${styles}`)
    .replace(element, () => `<script>${code}</script>`);
}

export function reportRuntimePlugin() {
  let root = '';
  let done = false;
  return {
    name: 'flopcast-report-runtime',
    apply: 'build',
    configResolved(config) {
      root = config.root;
    },
    async generateBundle() {
      if (done) return;
      done = true;
      const template = readFileSync(resolve(root, 'src/report/template.html'), 'utf8');
      const css = readFileSync(resolve(root, 'src/style/page.css'), 'utf8');
      const { code, styles } = await bundleRuntime(root);
      const source = reportRuntime(template, code, css, styles);
      this.emitFile({ type: 'asset', fileName: REPORT_FILE, source });
    },
  };
}
