// Share: copy the page's link, export the estimate as JSON, download the report file (its module
// and runtime load on the first click: web/src/report/download.js).
import { $ } from './dom.js';
import { lastGood } from './results.js';
import { flushUrl } from './url-state.js';

const fileSafe = (s) => String(s).replace(/[^\w.-]+/g, '_');

/** Wires the share buttons; `work` is the page's worker client (app/worker.js), for the report. */
export function initShare({ fc, work }) {
  let shareTimer = 0;
  function sayShared(text) {
    $('share-status').textContent = text;
    clearTimeout(shareTimer);
    shareTimer = setTimeout(() => ($('share-status').textContent = ''), 4000);
  }
  $('copy-link').addEventListener('click', async () => {
    flushUrl();
    const url = location.href;
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(url);
      $('share-url').hidden = true;
      sayShared('Copied');
    } catch {
      // Refused (no permission, not a secure context): the link in a selected field to copy by hand.
      const field = $('share-url');
      field.value = url;
      field.hidden = false;
      field.focus();
      field.select();
      sayShared('Copy the selected link (Ctrl+C or ⌘C)');
    }
  });
  $('export-json').addEventListener('click', () => {
    if (!lastGood) return;
    const r = fc.estimate({ ...lastGood.req, layer_table: true }); // the core's whole estimate, per-layer rows too
    const name = `flopcast-${fileSafe(r.model)}-${fileSafe(r.gpu ?? 'none')}.json`;
    const url = URL.createObjectURL(new Blob([`${JSON.stringify(r, null, 2)}\n`], { type: 'application/json' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    sayShared(`Saved ${name}`);
  });

  // The report file: its module and runtime load on the first click.
  $('download-report').addEventListener('click', async () => {
    if (!lastGood) return;
    const r = lastGood.result;
    const name = `flopcast-${fileSafe(r.model)}-${fileSafe(r.gpu ?? 'none')}.html`;
    const request = { ...lastGood.req, report: { serving: $('report-serving').checked && r.gpu !== null } };
    $('download-report').disabled = true;
    sayShared('Writing the report…');
    try {
      const { downloadReport } = await import('../report/download.js');
      await downloadReport(work, request, name);
      sayShared(`Saved ${name}`);
    } catch (e) {
      sayShared(`Could not write the report: ${e.message}`);
    } finally {
      $('download-report').disabled = !lastGood;
    }
  });
}
