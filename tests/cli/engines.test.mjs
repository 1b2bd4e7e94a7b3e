// Engine profiles as users meet them: list-engines, --engine on estimate, throughput and serve.
// A fitted engine changes the figures (its costs and efficiencies) and sets the ranges from the
// residual spread of its rows; explicit efficiencies win; without an engine the plain roofline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const json = (args) => {
  const r = spawnSync(bin, [...args, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const close = (a, b, rel = 1e-9) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));

const engines = json(['list-engines']);
const byId = Object.fromEntries(engines.map((e) => [e.id, e]));

test('list-engines: every profile, fits that name their sources, held-out sources kept apart', () => {
  assert.deepEqual(Object.keys(byId).sort(), ['llama.cpp', 'mlx', 'sglang', 'tensorrt-llm', 'transformers', 'vllm']);
  const fitted = engines.filter((e) => e.fitted);
  assert.ok(fitted.length >= 3, `${fitted.length} fitted engines`);
  for (const e of fitted) {
    assert.ok(e.fitted_to.length > 0 && e.held_out.length > 0, e.id);
    for (const s of e.fitted_to) assert.ok(!e.held_out.includes(s), `${e.id}: ${s} both fitted and held out`);
    assert.ok(e.families.all, `${e.id}: no pooled family`);
    for (const f of Object.values(e.families)) {
      assert.ok(f.compute_efficiency > 0 && f.compute_efficiency <= 1, e.id);
      assert.ok(f.mem_efficiency > 0 && f.mem_efficiency <= 1, e.id);
    }
  }
  for (const e of engines.filter((e) => !e.fitted)) assert.deepEqual(e.families, {}, e.id);
  assert.equal(byId.transformers.simulated, false);
});

test('estimate --engine: the fitted efficiencies and costs, ranges from the residual bands', () => {
  const args = ['estimate', 'llama-3-8b', '-g', 'H100', '-s', '1024', '-n', '256'];
  const plain = json([...args, '--engine', 'none']).details.performance;
  const e = byId.vllm;
  const r = json([...args, '--engine', 'vllm']).details.performance;
  assert.notEqual(r.decode_latency_per_token_s, plain.decode_latency_per_token_s);
  // The decode range is the point times the decode band (measured/predicted p10, p90).
  assert.ok(e.bands.decode.rows > 0);
  const [lo, hi] = r.ranges.decode_latency_per_token_s;
  assert.ok(close(lo, r.decode_latency_per_token_s * e.bands.decode.low));
  assert.ok(close(hi, r.decode_latency_per_token_s * e.bands.decode.high));
  assert.match(r.ranges.source, /residual spread of engine vllm/);
  assert.match(plain.ranges.source, /^efficiency spread/);
  // The engine's family on this device (nvidia-hbm) sets the memory efficiency; an explicit one wins.
  const fam = e.families['nvidia-hbm'] ?? e.families.all;
  const explicit = json([...args, '--engine', 'vllm', '--mem-efficiency', '0.5']).details.performance;
  assert.ok(explicit.decode_latency_per_token_s > r.decode_latency_per_token_s * (fam.mem_efficiency / 0.5) * 0.5);
  assert.notEqual(explicit.decode_latency_per_token_s, r.decode_latency_per_token_s);
  // An unfitted engine is the plain roofline, labelled as such (on a device it runs on: MLX runs on
  // Apple silicon only, issue 27 item 5).
  const apple = ['estimate', 'llama-3-8b', '-g', 'M3-Max-128GB', '-s', '1024', '-n', '256'];
  // (transformers: MLX was fitted in issue 24; with no engine named the M3 Max runs llama.cpp.)
  const mlx = json([...apple, '--engine', 'transformers']);
  assert.equal(
    mlx.details.performance.decode_latency_per_token_s,
    json([...apple, '--engine', 'none']).details.performance.decode_latency_per_token_s,
  );
  assert.match(mlx.details.settings.engine_basis, /^unfitted \(plain roofline plus the engine's scheduler defaults\)/);
});

test('throughput and serve --engine: the engine scheduler and ranges from its bands', () => {
  const tp = json('throughput llama-3-8b -g H100 --prompt 1024 --output 256 --engine trtllm'.split(' '));
  const band = byId['tensorrt-llm'].bands.throughput;
  assert.ok(band.rows > 0);
  const [lo, hi] = tp.ranges.tokens_per_second;
  assert.ok(close(lo, tp.tokens_per_second / band.high) && close(hi, tp.tokens_per_second / band.low));
  const s = json(['serve', 'llama-3-8b', '-g', 'H100', '--engine', 'trtllm', '--concurrency', '1,64', '--isl', '512']);
  assert.equal(s.engine, 'tensorrt-llm');
  assert.equal(s.engine_fitted, true);
  assert.equal(s.scheduler.max_num_seqs, 2048);
  for (const p of s.points) {
    const [a, b] = p.tpot_s_range;
    assert.ok(a <= p.tpot_s.mean && p.tpot_s.mean <= b * (1 + 1e-12), 'the range holds the mean');
  }
});

// A constant the fit cannot move is not a fit (engine_fit.cpp): it is held at flopcast's neutral
// value (no fixed cost, a flat GEMM curve, the cache read at the weights' bandwidth; compute 0.5 and
// memory 0.8 of peak) and the note names it. SGLang's AMD rows all come from dstack's February 2025
// engines, the source its trimmed mean leaves out, so its amd-hbm efficiencies are held.
test('engine fits: constants no counted row moves are held at neutral values, and named', () => {
  const neutral = { per_step_s: 0, per_layer_s: 0, gemm_half_tokens: 0, kv_read_efficiency: 1, per_sequence_s: 0 };
  for (const id of ['llama-cpp', 'mlx', 'sglang', 'tensorrt-llm', 'vllm']) {
    const eff = JSON.parse(readFileSync(join(root, `data/engines/${id}.json`), 'utf8')).efficiency;
    if (!eff.fitted) continue;
    const held = /held at neutral values: ([^;]*)/.exec(eff.note)?.[1].split(', ') ?? [];
    for (const name of held) {
      const [what, family] = name.split('/');
      if (family) assert.equal(eff.families[family][what], what === 'compute_efficiency' ? 0.5 : 0.8, `${id}: ${name}`);
      else assert.equal(eff.costs[what], neutral[what], `${id}: ${name}`);
    }
    if (id === 'sglang') assert.deepEqual(held, ['compute_efficiency/amd-hbm', 'mem_efficiency/amd-hbm']);
  }
});

// A fitted constant that ends on a bound of the physical envelope would have gone further: the note
// names it, and the named constant has exactly that bound's value (the envelope of
// core/include/flopcast/serving/engine.hpp, restated here as the reference).
test('engine fits: a constant the fit leaves on a bound of the envelope is named, with that value', () => {
  const envelope = {
    per_step_s: [1e-6, 3e-2],
    per_layer_s: [1e-8, 1e-3],
    per_sequence_s: [1e-9, 1e-4],
    gemm_half_tokens: [1, 128],
    kv_read_efficiency: [0.5, 1],
    compute_efficiency: [0.1, 1],
    mem_efficiency: [0.2, 1],
  };
  let named = 0;
  for (const id of ['llama-cpp', 'mlx', 'sglang', 'tensorrt-llm', 'vllm']) {
    const eff = JSON.parse(readFileSync(join(root, `data/engines/${id}.json`), 'utf8')).efficiency;
    if (!eff.fitted) continue;
    const listed = /at a bound of the envelope: ([^;]*)/.exec(eff.note)?.[1].split(', ') ?? [];
    const value = (what, family) => (family ? eff.families[family][what] : eff.costs[what]);
    for (const entry of listed) {
      const [, name, side] = /^(\S+) \((upper|lower)\)$/.exec(entry) ?? [];
      assert.ok(name, `${id}: "${entry}" names a constant and its side`);
      const [what, family] = name.split('/');
      assert.equal(value(what, family), envelope[what][side === 'upper' ? 1 : 0], `${id}: ${name}`);
      ++named;
    }
    // Every constant on a bound is named (the held ones are not fitted, so not listed).
    const held = /held at neutral values: ([^;]*)/.exec(eff.note)?.[1].split(', ') ?? [];
    const check = (what, family) => {
      const name = family ? `${what}/${family}` : what;
      if (held.includes(name)) return;
      const v = value(what, family);
      if (v === envelope[what][0] || v === envelope[what][1])
        assert.ok(
          listed.some((e) => e.startsWith(`${name} (`)),
          `${id}: ${name} = ${v} is on a bound but not named`,
        );
    };
    for (const what of Object.keys(eff.costs)) if (what in envelope) check(what);
    for (const family of Object.keys(eff.families))
      if (family !== 'all') for (const what of ['compute_efficiency', 'mem_efficiency']) check(what, family);
  }
  // SGLang's per-sequence cost reaches its 100 us bound (stop 40's refit): the check above is live.
  assert.ok(named > 0);
});
