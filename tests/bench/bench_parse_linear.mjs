// Parsing is linear in the input (issue 26, item 2): the CLI's CPU time on a config.json of 50k
// extra keys against one of 100k, and on a safetensors header of 20k tensors against one of 40k.
// Doubling the input must not more than triple the time (quadratic parsing quadruples it). Each
// time is the child's CPU seconds (bash's `times`, so a loaded machine adds little), the least of
// --runs runs, less the same command's on a tiny input (the process start); below --floor seconds
// a time counts as the floor, so that tiny times do not make noise. Prints the figures; exits 1
// when a ratio exceeds 3.
//   node tests/bench/bench_parse_linear.mjs [--root=DIR] [--runs=3] [--floor=0.05]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { manyKeysConfig, manyTensorsSafetensors } from '../fixtures/hostile_files.mjs';

const option = (name, fallback) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : fallback;
};
const root = resolve(option('root', resolve(import.meta.dirname, '../..')));
const bin = join(root, 'build/flopcast');
const runs = Number(option('runs', '3'));
const floor = Number(option('floor', '0.05'));
const maxRatio = 3;
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-bench-parse-'));
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');

// The child's CPU seconds (user + system), from bash's `times` after it ran.
function cpuSeconds(args) {
  const quoted = [bin, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('bash', ['-c', `${quoted} >/dev/null 2>&1; echo "rc=$?"; times`], { encoding: 'utf8' });
  const rc = /rc=(\d+)/.exec(r.stdout);
  if (!rc || rc[1] !== '0') throw new Error(`flopcast ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
  const children = r.stdout.trim().split('\n').at(-1); // "0m1.234s 0m0.100s"
  return [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((s, m) => s + 60 * Number(m[1]) + Number(m[2]), 0);
}
const best = (args) => Math.min(...Array.from({ length: runs }, () => cpuSeconds(args)));

const cases = [];
try {
  const file = (name, bytes) => {
    const p = join(tmp, name);
    writeFileSync(p, bytes);
    return p;
  };
  const config = (n) => file(`config-${n}.json`, JSON.stringify(manyKeysConfig(n)));
  const header = (n) => file(`st-${n}.safetensors`, manyTensorsSafetensors(n));
  const estimate = (p) => ['estimate', p, '-g', 'H100', '--json'];
  const inspect = (p) => ['inspect', p, '--json'];
  cases.push({ what: 'config.json keys', small: 50000, args: estimate, make: config });
  cases.push({ what: 'safetensors header tensors', small: 20000, args: inspect, make: header });
  let failed = false;
  console.log(`CPU seconds, least of ${runs} runs, less the process start (floor ${floor} s):`);
  for (const c of cases) {
    const base = best(c.args(c.make(10)));
    const one = Math.max(best(c.args(c.make(c.small))) - base, floor);
    const two = Math.max(best(c.args(c.make(2 * c.small))) - base, floor);
    const ratio = two / one;
    const ok = ratio <= maxRatio;
    failed ||= !ok;
    console.log(
      `${c.what.padEnd(28)} ${String(c.small).padStart(7)}: ${one.toFixed(3)} s   ${String(2 * c.small).padStart(7)}: ` +
        `${two.toFixed(3)} s   ratio ${ratio.toFixed(2)} (start ${base.toFixed(3)} s)   ${ok ? 'linear' : `NOT linear (> ${maxRatio})`}`,
    );
  }
  process.exitCode = failed ? 1 : 0;
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
