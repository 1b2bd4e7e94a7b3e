// Emits report-runtime.html: the report template (web/src/report/template.html) with the report
// runtime (web/src/report/runtime.js: Chart.js, the page's chart code and the renderer, bundled
// into one script) inlined, and that script's hash in the template's Content-Security-Policy.
// `flopcast report` and the page's "Download report" fill its data placeholder; the file makes no
// request of any kind.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'vite';

export const REPORT_FILE = 'report-runtime.html';
const RUNTIME_PLACEHOLDER = '/*flopcast-report-runtime*/';

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
  return chunks[0].code;
}

/** The report file's template with `script` inlined (a `</script` inside it is escaped). */
export function reportRuntime(template, script) {
  const code = script.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
  const hash = `sha256-${createHash('sha256').update(code).digest('base64')}`;
  const at = template.indexOf(RUNTIME_PLACEHOLDER);
  if (at < 0) throw new Error('report template: no runtime placeholder');
  return (
    template.slice(0, at).replace('%SCRIPT_HASH%', hash) + code + template.slice(at + RUNTIME_PLACEHOLDER.length)
  );
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
      const source = reportRuntime(template, await bundleRuntime(root));
      this.emitFile({ type: 'asset', fileName: REPORT_FILE, source });
    },
  };
}
