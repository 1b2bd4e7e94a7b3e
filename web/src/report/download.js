// The page's "Download report": the report file (report-runtime.html from the build, fetched on
// the first click only) with fc.reportData of the page's request in its data placeholder,
// computed in the background worker, saved as a Blob download.
const DATA_PLACEHOLDER = '<!--flopcast-report-data-->';
let runtime = null;

/** The report file for `data` (fc.reportData's object): "<" escaped so the data cannot end its script. */
export function fillReport(template, data) {
  const at = template.indexOf(DATA_PLACEHOLDER);
  if (at < 0) throw new Error('the report runtime has no data placeholder: rebuild the page');
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  return template.slice(0, at) + json + template.slice(at + DATA_PLACEHOLDER.length);
}

function loadRuntime() {
  runtime ??= fetch(new URL('report-runtime.html', document.baseURI)).then((r) => {
    if (!r.ok) throw new Error(`could not load the report runtime (HTTP ${r.status})`);
    return r.text();
  });
  runtime.catch(() => (runtime = null)); // a failed fetch is tried again on the next click
  return runtime;
}

/**
 * Computes the report data of `request` with `work` (the worker client: {type: 'reportData'}),
 * fills the runtime and saves `name`. Resolves with {name, data}.
 */
export async function downloadReport(work, request, name) {
  const [template, answer] = await Promise.all([loadRuntime(), work({ type: 'reportData', request })]);
  const html = fillReport(template, answer.result);
  const url = URL.createObjectURL(new Blob([html], { type: 'text/html' }));
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  return { name, data: answer.result };
}
