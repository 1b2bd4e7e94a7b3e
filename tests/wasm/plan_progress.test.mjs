// fc.plan(request, {onProgress}) (issue 28 item 5, the page's SLO planner): the SLO search reports the
// share done, 0..1, rising to 1; the answer is the same as without the callback; returning false
// cancels it with the core's error ("limit" at /plan); an exception the callback throws cancels it
// and is rethrown; a plan without a search never calls it; and the module works on afterwards.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { load } from './load.mjs';

let fc;
let FlopcastError;
before(async () => ({ fc, FlopcastError } = await load()));

const request = {
  model: 'llama-3.1-8b',
  gpu: 'H100',
  plan: { slo_ttft_s: 0.5, slo_tpot_s: 0.03, concurrency: 64, gpus: 8 },
};

test('progress rises to 1 and the answer is the one without it', () => {
  const shares = [];
  const r = fc.plan(request, { onProgress: (share) => void shares.push(share) });
  assert.ok(shares.length >= 2, `called ${shares.length} times`);
  assert.ok(
    shares.every((x, i) => x >= 0 && x <= 1 && (i === 0 || x >= shares[i - 1])),
    shares.join(' '),
  );
  assert.equal(shares.at(-1), 1);
  assert.deepEqual(r, fc.plan(request));
  assert.ok(r.search.ranked.length > 0);
});

test('returning false cancels the search with the core’s error at /plan', () => {
  let calls = 0;
  assert.throws(
    () => fc.plan(request, { onProgress: () => ++calls < 2 }),
    (e) => e instanceof FlopcastError && e.code === 'limit' && e.pointer === '/plan' && /cancel/.test(e.message),
  );
  assert.equal(calls, 2, 'no call after the one that cancelled');
  assert.ok(fc.plan(request).search.ranked.length > 0, 'the module works on');
});

test('an exception in the callback cancels the search and is rethrown as it was', () => {
  const boom = new Error('boom');
  assert.throws(
    () =>
      fc.plan(request, {
        onProgress: (share) => {
          if (share > 0) throw boom;
        },
      }),
    (e) => e === boom,
  );
  assert.deepEqual(fc.plan(request, { onProgress: () => true }), fc.plan(request));
});

test('a plan without a search never calls it; bad fields are refused as without it', () => {
  let calls = 0;
  const r = fc.plan({ model: 'llama-3.1-8b', gpu: 'H100' }, { onProgress: () => void ++calls });
  assert.equal(r.search, undefined);
  assert.equal(calls, 0);
  assert.throws(
    () => fc.plan({ ...request, plan: { slo_tpot_s: 0 } }, { onProgress: () => void ++calls }),
    (e) => e.code === 'config.range' && e.pointer === '/plan/slo_tpot_s',
  );
  assert.equal(calls, 0);
});
