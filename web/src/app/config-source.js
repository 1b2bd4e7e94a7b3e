// A config.json from a file (chosen or dropped) or from the Hugging Face Hub, into the config text
// area. The Hub fetch: checked address and id (app/hub.js), a timeout (?hftimeout=<ms> shortens it,
// for tests), a Cancel button while it runs; the Fetch button is re-enabled however it ends.
import { CONFIG_MAX_BYTES, HubError, HUB_TIMEOUT_MS, fetchHubConfig, hubConfigUrl } from './hub.js';
import { onFileDrop } from './drop.js';
import { pretty, readRaw, setHubError } from './request.js';
import { $ } from './dom.js';
import { scheduleUrl } from './url-state.js';

/**
 * Wires the config file input's drop zone and the Hub's Fetch and Cancel buttons; `query` is the
 * address the page loaded with. Returns {readFile(file)}, for the file input's change.
 */
export function initConfigSource({ query, update, setStatus }) {
  function useConfigText(text) {
    $('config').value = pretty(text);
    if (readRaw().source === 'registry') $('source-config').checked = true;
    update();
  }

  async function readFile(file) {
    const err = $('config-file-error');
    err.textContent = '';
    if (!file) return;
    if (file.size > CONFIG_MAX_BYTES) {
      // not read at all: no config.json is this large
      err.textContent = `${file.name} is ${file.size} bytes: the page takes a config.json of at most ${CONFIG_MAX_BYTES / 1024 / 1024} MiB (real ones are a few KiB; the CLI reads up to 16 MiB).`;
      return;
    }
    try {
      useConfigText(await file.text());
      setStatus(`Read ${file.name}.`, 'ok');
      update(true);
      scheduleUrl(true);
    } catch (e) {
      err.textContent = `Could not read ${file.name}: ${e.message}`;
    }
  }

  onFileDrop($('config-drop'), readFile);

  const hubTimeout = /^\d{1,7}$/.test(query.get('hftimeout') ?? '')
    ? Number(query.get('hftimeout')) || HUB_TIMEOUT_MS
    : HUB_TIMEOUT_MS;
  let hubFetch = null;
  function setHubBusy(busy) {
    $('hf-fetch').disabled = busy;
    $('hf-cancel').hidden = !busy;
    $('hf-id').closest('.field').setAttribute('aria-busy', String(busy));
  }
  $('hf-cancel').addEventListener('click', () => hubFetch?.abort());
  $('hf-fetch').addEventListener('click', async () => {
    $('source-hub').checked = true;
    setHubError();
    let url;
    try {
      url = hubConfigUrl($('hf-base').value, $('hf-id').value);
    } catch (e) {
      if (e.kind === 'base') setHubError('', e.message);
      else setHubError(e.message);
      return update(true);
    }
    hubFetch?.abort();
    const ctl = (hubFetch = new AbortController());
    setHubBusy(true);
    setStatus(`Fetching ${url} …`);
    try {
      const text = await fetchHubConfig(url, { signal: ctl.signal, timeoutMs: hubTimeout });
      if (ctl !== hubFetch) return;
      $('config').value = pretty(text);
      update(true);
      scheduleUrl(true);
    } catch (e) {
      if (ctl !== hubFetch) return;
      setHubError(e instanceof HubError ? e.message : `Could not fetch ${url}: ${e.message}`);
      update(true);
    } finally {
      if (ctl === hubFetch) {
        hubFetch = null;
        setHubBusy(false);
      }
    }
  });

  return { readFile };
}
