// A config text longer than VET_CHARS is judged in the worker before the page's thread parses it
// (issue 26: a pasted or fetched config never holds the page). Real config.json files are a few
// KiB (the bundled 155 at most 2.8 KiB) and are parsed where they are estimated, at once; a long
// one waits for the worker's verdict (not JSON, not an object, or the core's error for the model)
// and reaches the page's estimate only when the worker found nothing wrong with it.
import { FlopcastError } from '../engine.js';

export const VET_CHARS = 64 * 1024;

let work = null;
let onVerdict = () => {};
let last = { text: null, verdict: null }; // the newest text asked about, and the answer once it came

/** Wires the worker client and what to run when a verdict arrives (the page's update). */
export function initConfigVet({ work: client, update }) {
  work = client;
  onVerdict = update;
}

/**
 * The verdict on config `text`: null when it is short (parse it here), else {state: 'pending'}
 * until the worker answers, then {state: 'ok'} or {state: 'error', error} (an Error, or a
 * FlopcastError for the core's own error about the model).
 */
export function configVerdict(text) {
  if (text.length <= VET_CHARS || !work) return null;
  if (last.text === text) return last.verdict;
  const asked = { text, verdict: { state: 'pending' } };
  last = asked;
  work({ type: 'vet-config', text }).then(
    () => {
      asked.verdict = { state: 'ok' };
      if (last === asked) onVerdict(true);
    },
    (e) => {
      asked.verdict = { state: 'error', error: e.code ? new FlopcastError(e.message) : e };
      if (last === asked) onVerdict(true);
    },
  );
  return asked.verdict;
}
