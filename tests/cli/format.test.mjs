// The display rules of web/src/format.js (page and widget) against the shared case table
// tests/fixtures/format_cases.json, which tests/cpp/test_format.cpp checks against the CLI's
// core/src/base/format.cpp: a rule that differs between the two fails one of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as format from '../../web/src/format.js';
import { show } from '../../web/src/app/fmt.js';

const root = resolve(import.meta.dirname, '../..');
const { cases } = JSON.parse(readFileSync(resolve(root, 'tests/fixtures/format_cases.json'), 'utf8'));
const SPECIAL = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
const valueOf = (v) => (typeof v === 'string' ? SPECIAL[v] : v);

test('every case of the shared table prints as written', () => {
  const wrong = [];
  for (const c of cases) {
    const got = format.formatAs(c.kind, valueOf(c.value), c.unit);
    if (got !== c.expected)
      wrong.push(`${c.kind} ${c.value}${c.unit ? ` (${c.unit})` : ''}: got "${got}", expected "${c.expected}"`);
  }
  assert.deepEqual(wrong, []);
});

test('the table covers every rule, with zero, negative zero and NaN', () => {
  const kinds = new Set(cases.map((c) => c.kind));
  for (const k of ['flops', 'bytes', 'seconds', 'count', 'int', 'rate', 'percent', 'usd', 'joules', 'grams', 'plural'])
    assert.ok(kinds.has(k), k);
  for (const k of ['flops', 'bytes', 'seconds', 'count', 'int', 'usd', 'percent']) {
    const values = cases.filter((c) => c.kind === k).map((c) => c.value);
    assert.ok(values.includes('-0'), `${k}: -0`);
    assert.ok(values.includes('NaN') || values.includes('Infinity'), `${k}: NaN or Infinity`);
  }
  assert.ok(cases.filter((c) => c.issue).length >= 8, 'the odd outputs of issue 13');
});

test('no rule prints "-0", "NaN", "Infinity" or an exponent', () => {
  const values = [-0, -1e-30, 1e-30, -1e-12, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 1e21, 2 ** 53 + 2];
  for (const kind of [
    'flops',
    'bytes',
    'seconds',
    'count',
    'int',
    'rate',
    'percent',
    'usd',
    'joules',
    'grams',
    'number',
  ])
    for (const v of values) {
      const s = format.formatAs(kind, v);
      assert.doesNotMatch(s, /^-0(?![.,\d])|^-\$0\.00$|NaN|Infinity|e[+-]\d/, `${kind} ${v}: ${s}`);
    }
});

test('the named helpers keep their names and follow the same rules', () => {
  assert.equal(format.formatFlops(1.234e12), '1.23 TFLOP');
  assert.equal(format.formatBytes(85899345920), '80 GiB');
  assert.equal(format.formatSeconds(197525114136), '6,260 years');
  assert.equal(format.formatCount(8192), '8,192');
  assert.equal(format.formatInteger(8192), '8,192');
  assert.equal(format.formatUsd(0.00123456), '$0.00123');
  assert.equal(format.formatRate(11.83), '11.8 tok/s');
  assert.equal(format.formatPercent(0.3292085235747008), '32.9 %');
  assert.equal(format.formatJoules(1234), '1.23 kJ');
  assert.equal(format.formatPerSecond(2.5, 'req'), '2.5 req/s');
  assert.equal(format.formatByKind('number', 1.5), '$1.50'); // the core's one "number" field is cost_usd
  assert.equal(format.formatByKind('bound', 0), 'memory');
  // The page's data-fmt names (app/fmt.js show()).
  assert.equal(show('gpus', 1), '1 GPU');
  assert.equal(show('gpus', 4), '4 GPUs');
  assert.equal(show('grams', 8.28e9), '8,280 t');
  assert.equal(show('num', 0.3292085235747008), '0.329');
  assert.equal(show('fits', true), 'Fits in GPU memory');
  assert.equal(show('gpu', null), 'no GPU');
  assert.equal(show('seconds', 0), '–');
});
