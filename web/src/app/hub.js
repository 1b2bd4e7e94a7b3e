// The page's one network request: a model's config.json from a Hugging Face Hub (or a mirror).
// hubConfigUrl() checks the base address and the model id before anything is requested;
// fetchHubConfig() fetches with a timeout and a cancel signal, streams the body up to a size cap
// and checks its type, with a specific message for each way it can fail.
import { formatSeconds } from '../format.js';

export const HUB_TIMEOUT_MS = 15000;
// The largest config.json the page takes from any source (pasted, a file, the Hub, the address),
// checked before it is parsed: real ones are a few KiB (the bundled 155 at most 2.8 KiB), some
// reach ~100 KiB. The CLI reads up to 16 MiB.
export const CONFIG_MAX_BYTES = 1024 * 1024;
export const HUB_MAX_BYTES = CONFIG_MAX_BYTES;

export class HubError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'HubError';
    this.kind = kind; // base | id | http-auth | http-404 | http | timeout | cancelled | too-large | type | json | network
  }
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;
const CSP_LOOPBACK = /^(localhost|127\.0\.0\.1)$/i;

/** The base address as a URL, or a HubError naming it: https, or http for loopback hosts only. */
export function hubBase(text) {
  const base = String(text).trim();
  const named = `“${base}”`;
  if (!base) throw new HubError('base', 'Enter the Hub address, such as https://huggingface.co.');
  let u;
  try {
    u = new URL(base);
  } catch {
    throw new HubError('base', `${named} is not an address: enter one such as https://huggingface.co.`);
  }
  const loopback = LOOPBACK.test(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback))
    throw new HubError(
      'base',
      u.protocol === 'http:'
        ? `Refused ${named}: plain http:// is allowed only for this computer (127.0.0.1, localhost, [::1]); use https://.`
        : `Refused ${named}: only https:// addresses are allowed (and http:// for 127.0.0.1, localhost, [::1]).`,
    );
  // The page's Content-Security-Policy (connect-src) can name only these two loopback hosts: CSP has
  // no address ranges and Chromium rejects IPv6 literals such as http://[::1]:*.
  if (u.protocol === 'http:' && !CSP_LOOPBACK.test(u.hostname))
    throw new HubError(
      'base',
      `Refused ${named}: of the loopback addresses, this page's Content-Security-Policy lets http:// reach only 127.0.0.1 and localhost; use one of them, or https://.`,
    );
  if (u.username || u.password)
    throw new HubError('base', `Refused ${named}: an address with a user name or password is not allowed.`);
  if (u.search || u.hash || /[?#]/.test(base))
    throw new HubError('base', `Refused ${named}: the Hub address must not have a query (?) or fragment (#).`);
  return u;
}

/** The model id's path (each segment URI-encoded), or a HubError: no empty, "." or ".." segment. */
export function hubIdPath(text) {
  const id = String(text).trim();
  if (!id) throw new HubError('id', 'Enter a model id such as Qwen/Qwen2.5-7B.');
  const segments = id.split('/');
  const bad = segments.find((s) => s === '' || s === '.' || s === '..');
  if (bad !== undefined)
    throw new HubError(
      'id',
      `“${id}” is not a model id: ${bad === '' ? 'it has an empty part (a leading, trailing or doubled /)' : `“${bad}” is not allowed as a part`}; use owner/name, such as Qwen/Qwen2.5-7B.`,
    );
  return segments.map(encodeURIComponent).join('/');
}

/** <base>/<id>/resolve/main/config.json, checked; throws HubError. */
export function hubConfigUrl(baseText, idText) {
  const base = hubBase(baseText);
  const path = hubIdPath(idText);
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}/${path}/resolve/main/config.json`;
}

const JSON_TYPE = /^(application\/([\w.+-]+\+)?json|text\/json|text\/plain)$/i;

/**
 * Fetches `url` and returns its text (a JSON object). `signal` cancels; `timeoutMs` bounds the whole
 * request, body included. Throws HubError.
 */
export async function fetchHubConfig(url, { signal, timeoutMs = HUB_TIMEOUT_MS, maxBytes = HUB_MAX_BYTES } = {}) {
  const ctl = new AbortController();
  let why = '';
  const stop = (reason) => {
    why ||= reason;
    ctl.abort();
  };
  const onCancel = () => stop('cancelled');
  if (signal?.aborted) onCancel();
  signal?.addEventListener('abort', onCancel);
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const aborted = () => {
    if (why === 'timeout')
      return new HubError('timeout', `Timed out after ${seconds(timeoutMs)} waiting for ${url}: try again later.`);
    return new HubError('cancelled', `Cancelled the fetch of ${url}.`);
  };
  try {
    let res;
    try {
      res = await fetch(url, {
        signal: ctl.signal,
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
        cache: 'no-store',
      });
    } catch (e) {
      if (why) throw aborted();
      throw new HubError(
        'network',
        `Network error: could not reach ${new URL(url).origin} (offline, the server is down, or it does not allow this page to read it: CORS). ${e.message}`,
      );
    }
    if (res.status === 401 || res.status === 403)
      throw new HubError(
        'http-auth',
        `HTTP ${res.status} for ${url}: the model is gated or private, so the Hub needs an access token, which this page does not send. Download its config.json and paste it in the config.json box instead.`,
      );
    if (res.status === 404)
      throw new HubError('http-404', `HTTP 404 for ${url}: no such model repository, or it has no config.json.`);
    if (!res.ok)
      throw new HubError('http', `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''} for ${url}.`);
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    if (!JSON_TYPE.test(type))
      throw new HubError(
        'type',
        `${url} sent ${type ? `“${type}”` : 'no content type'}, not JSON (expected application/json or text/plain).`,
      );
    const length = Number(res.headers.get('content-length'));
    if (length > maxBytes) throw tooLarge(url, maxBytes);
    const text = await readCapped(res, maxBytes, url, () => (why ? aborted() : null));
    let value;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new HubError('json', `${url} did not return JSON: ${e.message}`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new HubError('json', `${url} returned JSON but not an object: a config.json is {"model_type": …}.`);
    return text;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCancel);
    ctl.abort(); // releases the connection if the body was not read to its end
  }
}

const seconds = (ms) => formatSeconds(ms / 1000);
const tooLarge = (url, max) =>
  new HubError('too-large', `${url} is larger than ${max / 1024 / 1024} MiB: not a config.json (stopped reading it).`);

async function readCapped(res, max, url, abortError) {
  const reader = res.body.getReader();
  const chunks = [];
  let size = 0;
  try {
    for (;;) {
      let step;
      try {
        step = await reader.read();
      } catch (e) {
        throw abortError() ?? new HubError('network', `Network error while reading ${url}: ${e.message}`);
      }
      if (step.done) break;
      size += step.value.byteLength;
      if (size > max) {
        reader.cancel().catch(() => {});
        throw tooLarge(url, max);
      }
      chunks.push(step.value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HubError('json', `${url} did not return JSON: it is not UTF-8 text.`);
  }
}
