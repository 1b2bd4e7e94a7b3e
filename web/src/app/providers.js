// The "Hosted providers vs self-hosted" panel (loaded when it comes into view, by panels.js): the
// hosted providers serving the page's model (the core's catalog, data/providers/) with their
// PUBLISHED price and speed, beside flopcast's ESTIMATED self-hosted cost per 1M tokens on the
// page's GPU at the utilisation given here (fc.priceComparison). Formatting only here.
import { formatNumber, formatUsd } from '../format.js';
import { servingRequest, showWorkload, workloadOf } from './workload.js';

const $ = (id) => document.getElementById(id);
const cell = (tr, text, cls, field, value) => {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  if (field) {
    td.dataset.field = field;
    td.dataset.value = String(value);
  }
  tr.append(td);
  return td;
};
const usd = (v) => (v == null ? '—' : formatUsd(v));

/** fc: the loaded API. Returns {update(req)}: recomputes for the page's request. */
export function initProviders({ fc }) {
  const body = $('providers-table').tBodies[0];
  const status = $('providers-status');
  const util = $('providers-utilization');
  let last = null;

  function show(req) {
    last = req;
    body.replaceChildren();
    if (typeof req?.model !== 'string') {
      status.textContent = 'The catalog knows registry models only (not an uploaded config).';
      return;
    }
    const entries = fc.providers(req.model).providers;
    if (!entries.length) {
      status.textContent = `No provider in the catalog serves ${req.model}.`;
      return;
    }
    const u = Number(util.value);
    let cmp = null;
    let why = '';
    if (req.gpu) {
      // The self-hosted side is the serving card's request at the page's workload (one formula, one answer).
      const request = { model: req.model, utilization: u, self_hosted: servingRequest(req) };
      showWorkload('providers-workload', workloadOf(req));
      $('providers-table').dataset.request = JSON.stringify(request);
      try {
        cmp = fc.priceComparison(request);
      } catch (e) {
        why = e.message;
      }
    } else why = 'choose a GPU above for the self-hosted cost';
    const rows = cmp ? cmp.providers : entries;
    if (cmp) {
      const sh = cmp.self_hosted;
      const tr = body.insertRow();
      tr.className = 'self-hosted';
      tr.dataset.provider = 'self-hosted';
      cell(tr, `Self-hosted: ${cmp.gpus} × ${cmp.gpu} (${cmp.precision}), concurrency ${cmp.concurrency}`);
      cell(tr, 'ESTIMATED', 'est-badge');
      cell(tr, usd(sh.usd_per_million_input_tokens), 'num', 'input', sh.usd_per_million_input_tokens);
      cell(tr, usd(sh.usd_per_million_output_tokens), 'num', 'output', sh.usd_per_million_output_tokens);
      cell(tr, formatNumber(cmp.output_tokens_per_second), 'num', 'speed', cmp.output_tokens_per_second);
      cell(tr, usd(sh.usd_per_request), 'num', 'request', sh.usd_per_request);
      cell(tr, '1', 'num');
    }
    for (const p of rows) {
      const tr = body.insertRow();
      tr.dataset.provider = p.provider;
      const name = cell(tr, `${p.name}: `);
      const code = document.createElement('code');
      code.textContent = p.id;
      name.append(code);
      const badge = cell(tr, `PUBLISHED ${p.date}`, 'pub-badge');
      if (p.source) badge.title = p.source;
      cell(tr, usd(p.input_usd_per_million), 'num', 'input', p.input_usd_per_million);
      cell(tr, usd(p.output_usd_per_million), 'num', 'output', p.output_usd_per_million);
      const speed = p.output_tokens_per_second;
      cell(tr, speed == null ? '—' : formatNumber(speed), 'num', 'speed', speed);
      cell(tr, usd(p.usd_per_request), 'num', 'request', p.usd_per_request);
      const ratio = p.self_hosted_to_api_cost;
      cell(tr, ratio == null ? '—' : formatNumber(ratio), 'num', 'ratio', ratio);
    }
    if (cmp && !cmp.fits)
      why = `${req.model} does not fit on ${cmp.gpus} × ${cmp.gpu} at the layout above (“How many GPUs?” finds one that fits)`;
    status.textContent =
      cmp && cmp.fits
        ? `Self-hosted: ${cmp.prompt_tokens} + ${cmp.output_tokens} tokens per request, busy ${formatNumber(u * 100)}% of the paid hours at ${formatUsd(cmp.gpu_cost_per_hour_usd)}/GPU-h, concurrency ${cmp.concurrency}. Provider prices as published on the date shown; prices change. “Self ÷ API”: self-hosted cost per request over the API's.`
        : `Self-hosted cost not shown: ${why}.`;
  }

  util.addEventListener('input', () => {
    const u = Number(util.value);
    if (u > 0 && u <= 1 && last) show(last);
  });
  return { update: show };
}
