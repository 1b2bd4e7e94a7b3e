// Every speed figure of issue 14 that does not need a browser, each beside its goal with
// "met" / "NOT met" (npm run bench; the page's figures are npm run bench:web). Prints figures,
// asserts nothing. Needs the native build (build/); the WASM lines need build-wasm/ and are
// skipped, saying so, without it.
//   node tests/bench/bench_all.mjs [--min-time=0.5] [--runs=60] [--root=DIR]
// --root measures another checkout's builds (DIR/build, DIR/build-wasm) with this script, e.g.
// the commit before a change, for figures side by side.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sweep1m } from '../wasm/sweep_request.mjs';

const option = (name, fallback) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : fallback;
};
const here = resolve(import.meta.dirname, '../..'); // this checkout: its process timer
const root = resolve(option('root', here));
const build = join(root, 'build');
const wasmDir = join(root, 'build-wasm/wasm');
const minTime = option('min-time', '0.5');
const runs = Number(option('runs', '60'));
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-bench-'));

const lines = []; // the summary, printed at the end
function report(what, value, goal, met) {
  const verdict = met === undefined ? '' : met ? 'met' : 'NOT met';
  lines.push(`${what.padEnd(58)} ${value.padStart(16)}   goal ${goal.padEnd(26)} ${verdict}`);
}
const us = (s) => `${(s * 1e6).toFixed(2)} us`;
const ms = (s) => `${(s * 1e3).toFixed(2)} ms`;
const perSecond = (n) => `${n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : `${(n / 1e3).toFixed(1)}k`}/s`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

// 1. The native core: Google Benchmark's figures, its console output shown as it runs.
function nativeBenchmarks() {
  if (!existsSync(join(build, 'flopcast_bench'))) {
    lines.push('native benchmarks skipped: no build/flopcast_bench (Google Benchmark not found at configure)');
    return undefined;
  }
  const out = join(tmp, 'bench.json');
  const r = spawnSync(
    join(build, 'flopcast_bench'),
    [`--benchmark_min_time=${minTime}`, `--benchmark_out=${out}`, '--benchmark_out_format=json'],
    { stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('flopcast_bench failed');
  const results = JSON.parse(readFileSync(out, 'utf8')).benchmarks.filter((b) => b.run_type !== 'aggregate');
  const byName = (name) => results.find((b) => b.name === name || b.name.startsWith(`${name}/`));
  // CPU time per iteration (what items_per_second counts too): on a shared machine the wall time
  // also holds the time other processes had the core.
  const seconds = (b) => b.cpu_time * { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1 }[b.time_unit];
  const json = byName('BM_estimate_json');
  if (json) report('estimate_json, Llama-3-8B (native)', us(seconds(json)), '<= 15 us', seconds(json) <= 15e-6);
  const dense = byName('BM_estimate_dense');
  if (dense)
    report('struct estimate, Llama-3-8B A100 (native)', us(seconds(dense)), '<= 0.5 us', seconds(dense) <= 0.5e-6);
  // The sweep rate: a 1M-point sweep benchmark where there is one, else the same grid's sweep.
  const sweep = results.find((b) => /^BM_sweep_1m/.test(b.name)) ?? byName('BM_sweep_rows');
  const rows = byName('BM_compare_json');
  if (rows && sweep) {
    const rate = sweep.items_per_second;
    report(
      `compare_json rows (sweep: ${sweep.name} ${perSecond(rate)})`,
      perSecond(rows.items_per_second),
      `>= the sweep rate`,
      rows.items_per_second >= rate,
    );
    lines.push(`${''.padEnd(58)} ${`${(rows.items_per_second / rate).toFixed(3)}x`.padStart(16)}   of the sweep rate`);
  }
  const sim = byName('BM_simulate_10k_1k_1k_c256');
  if (sim)
    report(
      'serving simulator 10k req 1k/1k c=256 (native)',
      ms(seconds(sim)),
      '~100 ms (serving issue)',
      seconds(sim) <= 0.1,
    );
  return sim ? seconds(sim) : undefined;
}

// 2. The CLI as a whole process, beside /bin/true and cat writing the same bytes (all through a
// pipe, taking turns; tests/bench/bench_process.cpp).
function cliProcess() {
  const cli = join(build, 'flopcast');
  const args = ['estimate', 'llama-3-8b', '--json'];
  const saved = join(tmp, 'estimate.json');
  writeFileSync(saved, run(cli, args));
  const r = JSON.parse(
    run(join(here, 'build/flopcast_bench_process'), [
      String(runs),
      cli,
      ...args,
      '::',
      '/bin/cat',
      saved,
      '::',
      '/bin/true',
    ]),
  );
  const [flopcast, cat, truth] = r.commands;
  const what = `flopcast estimate llama-3-8b --json, median of ${runs}`;
  report(what, ms(flopcast.median_s), '<= 2 ms', flopcast.median_s <= 2e-3);
  const ratio = flopcast.median_s / cat.median_s;
  report(
    `  / cat of the same ${flopcast.bytes} bytes (${ms(cat.median_s)}; true ${ms(truth.median_s)})`,
    `${ratio.toFixed(2)}x`,
    '<= 1.5x',
    ratio <= 1.5,
  );
}

// 3. WASM through the JS API in node: load + first estimate in a fresh process (five of them),
// then estimate() per call.
const estimateRequest = { model: 'llama-3-8b', batch_size: 4, gpu: 'A100' };
function wasmEstimate() {
  const child = `
    import { performance } from 'node:perf_hooks';
    const t0 = performance.now();
    const { load } = await import(${JSON.stringify(join(root, 'tests/wasm/load.mjs'))});
    const { fc } = await load();
    const request = ${JSON.stringify(estimateRequest)};
    fc.estimate(request);
    const first = performance.now() - t0;
    let calls = 0;
    const t1 = performance.now();
    while (performance.now() - t1 < 1000 || calls < 200) { fc.estimate(request); ++calls; }
    const perCall = (performance.now() - t1) / calls;
    // The same with the details read (estimate() parses them on first access).
    let full = 0;
    const t2 = performance.now();
    while (performance.now() - t2 < 1000 || full < 200) { fc.estimate(request).details; ++full; }
    console.log(JSON.stringify({ first, perCall, perCallDetails: (performance.now() - t2) / full }));`;
  const results = [];
  for (let i = 0; i < 5; ++i)
    results.push(JSON.parse(run(process.execPath, ['--input-type=module', '-e', child], { cwd: root })));
  const first = median(results.map((r) => r.first)) / 1e3;
  const perCall = median(results.map((r) => r.perCall)) / 1e3;
  report('WASM estimate() per call (node)', us(perCall), '<= 30 us', perCall <= 30e-6);
  const withDetails = median(results.map((r) => r.perCallDetails)) / 1e3;
  report('  the same, reading result.details too', us(withDetails), '- (whole result parsed)');
  report('WASM load + first estimate (node, median of 5)', ms(first), '<= 50 ms', first <= 50e-3);
}

// 4. The serving simulator in WASM (tests/wasm/bench_simulate.mjs, its output shown).
function wasmSimulate(nativeSeconds) {
  const out = run(process.execPath, [join(root, 'tests/wasm/bench_simulate.mjs')], { cwd: root });
  process.stdout.write(out);
  const m = /wasm simulate .*median ([\d.]+) ms/.exec(out);
  if (!m) return;
  const wasm = Number(m[1]) / 1e3;
  const budget = nativeSeconds ? `<= 3x native (${ms(3 * nativeSeconds)})` : '<= 3x native';
  report(
    'serving simulator, same run in WASM (node)',
    ms(wasm),
    budget,
    nativeSeconds ? wasm <= 3 * nativeSeconds : undefined,
  );
}

// 4b. The SLO search natively and in WASM (tests/wasm/bench_plan_search.mjs, its output shown).
function planSearch() {
  const script = join(root, 'tests/wasm/bench_plan_search.mjs');
  if (!existsSync(script)) return;
  const out = run(process.execPath, [script], { cwd: root });
  process.stdout.write(out);
  const w = /wasm plan search .*median ([\d.]+) ms/.exec(out);
  const n = /native plan search .*median ([\d.]+) ms/.exec(out);
  if (n) report('SLO search, default question, native', ms(Number(n[1]) / 1e3), '<= 1 s', Number(n[1]) <= 1000);
  if (w) report('SLO search, the same in WASM (node)', ms(Number(w[1]) / 1e3), '<= 3 s', Number(w[1]) <= 3000);
}

// 5. A 1M-point sweep in node: the checkout's tests/wasm/bench_sweep.mjs where it has one (its
// output shown); else (a checkout from before it, measured with --root) fc.sweep over the same
// grid (tests/wasm/sweep_request.mjs), in chunks whose values are dropped as they come (flat
// memory), with the RSS before and after.
const sweepRequest = sweep1m;
function wasmSweep() {
  const script = join(root, 'tests/wasm/bench_sweep.mjs');
  if (existsSync(script)) {
    const out = run(process.execPath, [script], { cwd: root });
    process.stdout.write(out);
    const m = /sweep in node: (\d+) points, median ([\d.]+) ms/.exec(out);
    if (m)
      report(
        `${m[1]}-point sweep in node (tests/wasm/bench_sweep.mjs)`,
        `${m[2]} ms`,
        '<= 500 ms',
        Number(m[2]) <= 500,
      );
    else lines.push('1M-point sweep in node: see tests/wasm/bench_sweep.mjs above (goal <= 500 ms)');
    return;
  }
  const child = `
    import { performance } from 'node:perf_hooks';
    const { load } = await import(${JSON.stringify(join(root, 'tests/wasm/load.mjs'))});
    const { fc } = await load();
    const request = JSON.stringify(${JSON.stringify(sweepRequest)});
    const total = fc.sweepSize(request);
    const chunk = 50000;
    const sweepAll = () => {
      let sum = 0;
      for (let offset = 0; offset < total; offset += chunk)
        sum += fc.sweep(request, { offset, count: Math.min(chunk, total - offset) }).values[0];
      return sum;
    };
    sweepAll(); // warm-up
    const rss0 = process.memoryUsage().rss;
    const times = [];
    for (let i = 0; i < 3; ++i) { const t = performance.now(); sweepAll(); times.push(performance.now() - t); }
    times.sort((a, b) => a - b);
    console.log(JSON.stringify({ total, ms: times[1], rss0, rss1: process.memoryUsage().rss }));`;
  const r = JSON.parse(run(process.execPath, ['--input-type=module', '-e', child], { cwd: root }));
  const mb = (b) => `${(b / 2 ** 20).toFixed(0)} MB`;
  report(
    `${r.total}-point sweep in node (RSS ${mb(r.rss0)} -> ${mb(r.rss1)})`,
    ms(r.ms / 1e3),
    '<= 500 ms',
    r.ms <= 500,
  );
}

// 6. Parsing linear in the input (issue 26): its own script, which prints the doubling ratios.
function parseLinear() {
  const r = spawnSync(process.execPath, [join(here, 'tests/bench/bench_parse_linear.mjs'), `--root=${root}`], {
    encoding: 'utf8',
  });
  for (const l of r.stdout.trim().split('\n').slice(1)) lines.push(`parse: ${l}`);
  report('parse time ratio when the input doubles', r.status === 0 ? '<= 3' : '> 3', '<= 3 (linear)', r.status === 0);
}

try {
  const nativeSim = nativeBenchmarks();
  cliProcess();
  parseLinear();
  if (existsSync(join(wasmDir, 'flopcast_core.wasm'))) {
    wasmEstimate();
    wasmSimulate(nativeSim);
    planSearch();
    wasmSweep();
  } else {
    lines.push('WASM figures skipped: no build-wasm/ (npm run build:wasm)');
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log('\nIssue 14 figures (this machine, now):');
for (const l of lines) console.log(l);
