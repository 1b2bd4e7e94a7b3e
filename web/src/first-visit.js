// The first visit without waiting for the WebAssembly module (issue 29 item 1).
//
// The default page (no query string, nothing stored) always asks the core the same questions
// before its first estimate and charts are on screen: the defaults, the lists, the estimate of
// the default request and its charts' data. web/first-visit.calls.json lists those calls;
// web/first-visit-plugin.js answers them at build time with the same module (build-wasm) and
// inlines the answers into index.html (<script type="application/json" id="flopcast-first">).
// The page paints its first estimate from them, then loads the module after the first paint;
// from then on every call goes to the module. Any call the answers do not hold, made before the
// module is ready, throws NotReady (the update loop waits for the module and runs again).
//
// Tests (tests/browser/first-visit.test.mjs, tests/wasm/first-visit.test.mjs) hold the answers
// byte-identical to the module's and the calls file equal to what the page asks (record it again
// with `node scripts/record-first-visit.mjs` after changing what the start-up asks).
import { engine } from './engine.js';

/** A call the first visit's answers do not hold, made before the module is ready. */
export class NotReady extends Error {
  constructor(name) {
    super(`the estimator is still loading (${name})`);
    this.name = 'NotReady';
  }
}

/** The key of one call: its name and arguments as JSON (the calls file's entries, the answers' keys). */
export const callKey = (name, args) => JSON.stringify([name, ...args]);

/** Whether the page starts in the state the answers were computed for (web/public/boot.js decides). */
const defaultState = () => globalThis.__flopcastDefaultState === true;

/**
 * Opens the estimator for the page. Returns { fc, mode, load, work }:
 * - mode: 'answers' (the build's answers until the module is ready), 'module', or 'record'
 *   (the module, each call noted in globalThis.__flopcastRecord for the calls file);
 * - fc: the API; in 'answers' mode a stand-in that forwards to the module once load() resolved;
 * - load(): loads the module (once), resolving with it;
 * - work(call): wraps the worker client so that the charts' data for the first estimate comes
 *   from the answers too (the worker would load its own module first).
 */
export function openEngine() {
  const record = globalThis.__flopcastRecord;
  const el = document.getElementById('flopcast-first');
  const answers = el && !Array.isArray(record) && !globalThis.__flopcastNoAnswers && defaultState() ? parse(el) : null;
  let real = null;
  const load = () =>
    engine().then((m) => {
      real = m;
      return m;
    });

  if (Array.isArray(record)) {
    const note = (key) => record.includes(key) || record.push(key);
    return {
      mode: 'record',
      load,
      fc: load().then(
        (m) =>
          new Proxy(m, {
            get(target, name) {
              const v = target[name];
              if (typeof v !== 'function' || typeof name !== 'string') return v;
              return (...args) => {
                note(callKey(name, args));
                return v.apply(target, args);
              };
            },
          }),
      ),
      work: (call) => (msg, onProgress) => {
        if (msg.type === 'reportData') note(callKey(`work:${msg.type}`, [msg.request]));
        return call(msg, onProgress);
      },
    };
  }
  if (!answers) return { mode: 'module', load, fc: load(), work: (call) => call };

  const misses = (globalThis.__flopcastMisses = []);
  const answer = (key) => structuredClone(answers[key]);
  const fc = new Proxy(
    {},
    {
      get(_, name) {
        if (real) {
          const v = real[name];
          return typeof v === 'function' ? v.bind(real) : v;
        }
        if (typeof name !== 'string' || name === 'then') return undefined;
        return (...args) => {
          if (real) return real[name](...args);
          const key = callKey(name, args);
          if (Object.hasOwn(answers, key)) return answer(key);
          misses.push(key);
          throw new NotReady(name);
        };
      },
    },
  );
  return {
    mode: 'answers',
    load,
    fc: Promise.resolve(fc),
    // The module's first call of each kind reads its tables (tens of ms each): asked once the module
    // is there, one call per idle task, so that the user's first change is not a long task.
    warm: async () => {
      for (const key of Object.keys(answers)) {
        const [name, ...args] = JSON.parse(key);
        if (name.startsWith('work:') || !real) continue;
        await idle();
        try {
          real[name](...args);
        } catch {
          // the same answer the page already shows: nothing to report
        }
      }
    },
    work: (call) => (msg, onProgress) => {
      const key = msg.type === 'reportData' ? callKey(`work:${msg.type}`, [msg.request]) : null;
      if (key && Object.hasOwn(answers, key)) {
        const p = Promise.resolve({ type: 'done', result: answer(key), ms: 0 });
        p.id = 0;
        return p;
      }
      return call(msg, onProgress);
    },
  };
}

const idle = () =>
  new Promise((ok) =>
    globalThis.requestIdleCallback ? requestIdleCallback(ok, { timeout: 1000 }) : setTimeout(ok, 0),
  );

function parse(el) {
  try {
    return JSON.parse(el.textContent);
  } catch {
    return null; // a damaged page: the module answers everything
  }
}
