// The accelerator list as users see it: `flopcast list-gpus` and `--gpu <alias>` on the real binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-devices-'));
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');

function json(args) {
  const r = spawnSync(bin, [...args, '--json'], { encoding: 'utf8', cwd: tmp });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}
const squash = (s) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

test('list-gpus lists at least 50 devices, names and aliases unique across records', () => {
  const gpus = json(['list-gpus']);
  assert.ok(gpus.length >= 50, `only ${gpus.length} devices`);
  const owner = new Map();
  for (const g of gpus)
    for (const a of [g.name, ...g.aliases]) {
      const k = squash(a);
      assert.ok(!owner.has(k) || owner.get(k) === g.name, `"${a}" names both ${owner.get(k)} and ${g.name}`);
      owner.set(k, g.name);
    }
  // The text table lists every device too.
  const text = spawnSync(bin, ['list-gpus'], { encoding: 'utf8', cwd: tmp }).stdout;
  for (const g of gpus) assert.match(text, new RegExp(`^${g.name.replace(/[+]/g, '\\+')} `, 'm'));
});

test('the aliases people type resolve in an estimate to the right device', () => {
  const cases = {
    gb200: 'GB200',
    b300: 'B300',
    'dgx-spark': 'GB10',
    spark: 'GB10',
    gb10: 'GB10',
    thor: 'Jetson-AGX-Thor',
    'm3-max': 'M3-Max-128GB',
    'm4-max': 'M4-Max-128GB',
    mi355x: 'MI355X',
    mi325x: 'MI325X',
    v5e: 'TPU-v5e',
    v6e: 'TPU-v6e',
    trillium: 'TPU-v6e',
    ironwood: 'TPU-v7',
    'rtx-5090': 'RTX-5090',
    5090: 'RTX-5090',
    4090: 'RTX-4090',
    gaudi3: 'Gaudi3',
    'EPYC 9654': 'EPYC-9654',
    'Ryzen AI Max+ 395': 'Ryzen-AI-Max-395-128GB',
  };
  for (const [alias, name] of Object.entries(cases)) {
    const r = json(['estimate', 'gpt2', '-g', alias]);
    assert.equal(r.gpu, name, alias);
    assert.ok(Number.isFinite(r.latency) && r.latency > 0, alias);
  }
});

test('every name and alias runs a default estimate on its own device with finite latency', () => {
  for (const g of json(['list-gpus']))
    for (const a of [g.name, ...g.aliases]) {
      const r = json(['estimate', 'gpt2', '-g', a]);
      assert.equal(r.gpu, g.name, a);
      assert.ok(Number.isFinite(r.latency) && r.latency > 0, `${a}: latency ${r.latency}`);
    }
});
