// Issue 28 through the CLI: `flopcast plan --slo-ttft --slo-tpot [--rate|--concurrency] --optimize`.
// What the search ranks first meets every SLO when its `serve_args` are run as they stand (the same
// settings, the same seed, the same figures); a point it rejects misses an SLO in that run; the
// Pareto front is non-dominated; bad settings exit 2 naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const run = (args) => spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const json = (args) => {
  const r = run([...args, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const at = (dist, p) => dist[`p${p}`];

// The question: llama-3-8b on up to 8 H100s, 1,024 + 256 tokens, TTFT p90 <= ttft and TPOT p90 <= tpot.
const ask = (ttft, tpot) => [
  ...['plan', 'llama-3-8b', '-g', 'H100', '-s', '1024', '-n', '256'],
  ...['--slo-ttft', String(ttft), '--slo-tpot', String(tpot)],
];
const question = ask(0.5, 0.02);

test('plan --slo-*: the first-ranked meets every SLO in a direct serve run of its settings; a rejected one misses', () => {
  const s = json(question).search;
  assert.equal(s.label, 'ESTIMATED');
  assert.equal(s.question.slo_percentile, 90);
  assert.ok(s.ranked.length >= 2, `ranked ${s.ranked.length}`);
  assert.ok(s.rejected.length >= 1);
  const best = s.ranked[0];
  const direct = json(best.serve_args).points[0];
  assert.equal(at(direct.ttft_s, 90), best.ttft_s);
  assert.equal(at(direct.tpot_s, 90), best.tpot_s);
  assert.ok(at(direct.ttft_s, 90) <= 0.5 && at(direct.tpot_s, 90) <= 0.02);
  // Each engine's best (and the first disaggregated one) reruns to the same figures: no engine's
  // search point carries another engine's constants (the request's default engine among them).
  const firsts = new Map();
  for (const p of s.ranked) firsts.set(p.engine, firsts.get(p.engine) ?? p);
  const split = s.ranked.find((p) => p.disaggregated);
  assert.ok(split, 'a disaggregated configuration ranked');
  for (const p of [...firsts.values(), split]) {
    const again = json(p.serve_args).points[0];
    assert.equal(at(again.ttft_s, 90), p.ttft_s, p.serve_args.join(' '));
    assert.equal(at(again.tpot_s, 90), p.tpot_s, p.serve_args.join(' '));
  }
  assert.ok(firsts.size >= 2, [...firsts.keys()].join(' '));
  const rejected = s.rejected[0];
  const again = json(rejected.serve_args).points[0];
  assert.ok(at(again.ttft_s, 90) > 0.5 || at(again.tpot_s, 90) > 0.02, JSON.stringify(rejected.serve_args));
  // Ranked by output tokens/s per GPU; the why names the winner.
  for (let i = 1; i < s.ranked.length; i++)
    assert.ok(s.ranked[i - 1].output_tokens_per_s_per_gpu >= s.ranked[i].output_tokens_per_s_per_gpu);
  assert.match(s.why, new RegExp(`^${best.engine} `));
  // The text output: the table and the command that checks the first.
  const text = run(question);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /check the first: flopcast serve /);
  // CSV: one row per ranked configuration.
  const csv = run([...question, '--csv']);
  assert.equal(csv.status, 0, csv.stderr);
  assert.equal(csv.stdout.trim().split('\n').length, 1 + s.ranked.length);
});

test('plan --slo-*: the Pareto front is non-dominated, pairwise; a tighter TPOT never raises the best goodput', () => {
  const s = json(question).search;
  assert.ok(s.pareto.length >= 2);
  for (const a of s.pareto)
    for (const b of s.pareto) {
      if (a === b) continue;
      const dominates =
        a.output_tokens_per_s_per_gpu >= b.output_tokens_per_s_per_gpu &&
        a.tokens_per_s_per_user >= b.tokens_per_s_per_user &&
        (a.output_tokens_per_s_per_gpu > b.output_tokens_per_s_per_gpu ||
          a.tokens_per_s_per_user > b.tokens_per_s_per_user);
      assert.ok(!dominates);
    }
  let last = Infinity;
  for (const tpot of ['0.05', '0.02', '0.01', '0.006', '0.004']) {
    const r = json(ask(1, tpot)).search;
    const best = r.ranked.length ? r.ranked[0].output_tokens_per_s_per_gpu : 0;
    assert.ok(best <= last, `TPOT ${tpot}: ${best} > ${last}`);
    last = best;
  }
});

test('plan --rate and --optimize gpus: the fewest GPUs that keep up within the SLOs', () => {
  const s = json([...question, '--rate', '20', '--optimize', 'gpus', '--gpus', '4']).search;
  assert.equal(s.question.request_rate, 20);
  assert.ok(s.ranked.length >= 1);
  for (const p of s.ranked) {
    assert.ok(p.gpus <= 4 && p.keeps_up && p.meets);
    assert.equal(p.request_rate, 20);
  }
  for (let i = 1; i < s.ranked.length; i++) assert.ok(s.ranked[i - 1].gpus <= s.ranked[i].gpus);
});

test('plan --slo-*: bad settings exit 2 naming the field', () => {
  for (const [args, field] of [
    [['--slo-tpot', '-1'], '/plan/slo_tpot_s'],
    [['--slo-percentile', '95'], '/plan/slo_percentile'],
    [['--optimize', 'speed'], '/plan/optimize'],
    [['--gpus', '0'], '/plan/gpus'],
    [['--rate', '5', '--concurrency', '8'], '/plan/request_rate'],
  ]) {
    const r = run([...question.filter((a, i) => !args.includes(a) && !args.includes(question[i - 1])), ...args]);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.ok(r.stderr.includes(field), r.stderr);
  }
});

// Every engine's launch command: the program, the model, then only flags its profile lists
// (data/engines/*.json "launch"), each with a value of the documented kind, realising the settings.
test('plan: the launch command of each engine parses with its profile flag list and realises the settings', () => {
  const profiles = {
    vllm: 'vllm.json',
    sglang: 'sglang.json',
    'tensorrt-llm': 'tensorrt-llm.json',
    'llama.cpp': 'llama-cpp.json',
    mlx: 'mlx.json',
  };
  const where = { 'llama.cpp': ['llama-3-8b', 'RTX-4090'], mlx: ['llama-3-8b', 'M2-Ultra'] };
  const split = {}; // engine -> disaggregated configurations ranked
  for (const [engine, file] of Object.entries(profiles)) {
    const launch = JSON.parse(readFileSync(join(root, 'data/engines', file), 'utf8')).launch;
    const [model, gpu] = where[engine] ?? ['qwen3-30b-a3b', 'H100'];
    const s = json([
      ...['plan', model, '-g', gpu, '-s', '1024', '-n', '256', '--engine', engine],
      ...['--slo-ttft', '2', '--slo-tpot', '0.1'],
    ]).search;
    assert.ok(s.ranked.length >= 1, `${engine}: nothing ranked`);
    // Every ranked configuration's command (a disaggregated one's two: its decode and prefill workers').
    const parse = (args, tag) => {
      const program = launch.program.split(' ');
      assert.deepEqual(args.slice(0, program.length), program, tag);
      let i = program.length;
      if (launch.model_flag) assert.equal(args[i++], launch.model_flag, tag);
      i++; // the model
      const got = {}; // setting -> value
      for (; i < args.length; i++) {
        const f = launch.flags.find((x) => x.flag === args[i] || x.off_flag === args[i]);
        assert.ok(f, `${tag}: ${args[i]} is not in the profile's flags`);
        let value = 'on';
        if (f.off_flag === args[i]) value = 'off';
        else if (!['bool_switch', 'bool_negatable'].includes(f.value)) value = args[++i];
        if (f.value === 'int') assert.match(value, /^-?\d+$/, `${tag} ${f.flag}`);
        if (f.value === 'float') assert.ok(Number.isFinite(Number(value)), `${tag} ${f.flag}`);
        if (f.value === 'json') JSON.parse(value);
        if (f.value.startsWith('enum:'))
          assert.ok(f.value.slice(5).split('|').includes(value), `${tag} ${f.flag} ${value}`);
        for (const x of launch.flags.filter((y) => y.flag === f.flag)) got[x.setting] = value;
      }
      return got;
    };
    // The settings realised: the step budget, the running cap where capped, the GPUs per worker.
    const realises = (got, p, tp, ep, adp, tag) => {
      assert.equal(Number(got.max_num_batched_tokens), p.max_num_batched_tokens, `${tag} step budget`);
      if (p.max_num_seqs < 100000) assert.equal(Number(got.max_num_seqs), p.max_num_seqs, `${tag} running cap`);
      if (got.tensor_parallel !== undefined) {
        const world = Number(got.tensor_parallel) * Number(got.attention_data_parallel ?? got.data_parallel ?? 1);
        assert.ok([tp * ep, tp * ep * adp].includes(world) || Number(got.tensor_parallel) === tp * ep, tag);
      }
      if (
        p.chunked_prefill &&
        got.chunked_prefill !== undefined &&
        launch.flags.find((x) => x.setting === 'chunked_prefill').value !== 'int'
      )
        assert.equal(got.chunked_prefill, 'on', `${tag} chunked prefill`);
    };
    // The role each pool's server takes, as the engine spells it.
    const roles = {
      vllm: [
        '{"kv_connector":"NixlConnector","kv_role":"kv_both"}',
        '{"kv_connector":"NixlConnector","kv_role":"kv_both"}',
      ],
      sglang: ['prefill', 'decode'],
      'tensorrt-llm': ['context', 'generation'],
    };
    for (const [k, p] of s.ranked.entries()) {
      const tag = `${engine} #${k + 1}`;
      assert.equal(p.engine, engine);
      const got = parse(p.launch.args, tag);
      realises(got, p, p.tp, p.ep, p.attention_dp, tag);
      assert.ok(p.launch.docs_version.length > 0);
      if (!p.disaggregated) {
        assert.equal(got.disaggregated_role, undefined, tag);
        assert.equal(p.prefill_launch, null, tag);
        continue;
      }
      const d = p.disaggregated;
      split[engine] = (split[engine] ?? 0) + 1;
      assert.equal(p.gpus, d.prefill_workers * d.prefill_tp + d.decode_workers * d.decode_tp * p.ep, tag);
      assert.equal(got.disaggregated_role, roles[engine][1], `${tag} decode role`);
      const pre = parse(p.prefill_launch.args, `${tag} prefill`);
      assert.equal(pre.disaggregated_role, roles[engine][0], `${tag} prefill role`);
      realises(pre, p, d.prefill_tp, 1, 1, `${tag} prefill`);
    }
  }
  // The question this test asks ranks disaggregated configurations for each engine that runs them.
  for (const engine of ['vllm', 'sglang', 'tensorrt-llm'])
    assert.ok(split[engine] >= 1, `${engine}: none disaggregated`);
});

// The workload of `serve` in the search: uniform lengths, a shared prefix, sessions, a dataset.
test('plan --slo-*: the search runs the workload serve runs (length ranges, a shared prefix, turns, a dataset)', () => {
  const workload = ['--isl-range', '512:1536', '--osl-range', '128:384', '--prefix-tokens', '256', '--turns', '2'];
  const s = json([...question, ...workload, '--concurrency', '32', '--seed', '7']).search;
  assert.deepEqual(s.question.input_tokens_range, [512, 1536]);
  assert.deepEqual(s.question.output_tokens_range, [128, 384]);
  assert.equal(s.question.prefix_tokens, 256);
  assert.equal(s.question.turns, 2);
  assert.equal(s.question.seed, 7);
  assert.ok(s.ranked.length >= 1);
  const best = s.ranked[0];
  for (const flag of ['--isl-range', '512:1536', '--osl-range', '128:384', '--prefix-tokens', '--turns', '--seed'])
    assert.ok(best.serve_args.includes(flag), `${flag} in ${best.serve_args.join(' ')}`);
  const direct = json(best.serve_args).points[0];
  assert.equal(at(direct.ttft_s, 90), best.ttft_s);
  assert.equal(at(direct.tpot_s, 90), best.tpot_s);
  // Another workload, another answer: the same search on fixed lengths differs.
  const fixed = json([...question, '--concurrency', '32']).search.ranked[0];
  assert.notEqual(fixed.ttft_s, best.ttft_s);
  // A dataset gives the lengths.
  const d = json([...question, '--dataset', 'sharegpt', '--concurrency', '32']).search;
  assert.equal(d.question.dataset, 'sharegpt');
  assert.ok(d.ranked[0].serve_args.includes('--dataset'));
  const r = run([...question, '--dataset', 'sharegpt', '--isl-range', '100:200']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /\/simulation\/input_tokens_range\) the dataset gives the lengths/);
  const p = run([...question, '--turns', '0']);
  assert.equal(p.status, 2, p.stderr);
  assert.match(p.stderr, /\/simulation\/turns/);
});

// Several devices compared: one search each, merged by the objective; each point names its GPU.
test('plan -g A,B,C --slo-*: the devices compared, ranked by the objective across them', () => {
  const devices = ['H100', 'H200', 'MI300X'];
  const ask3 = (gpu) => [...question.map((a) => (a === 'H100' ? gpu : a)), '--optimize', 'cost'];
  const s = json(ask3(devices.join(','))).search;
  assert.deepEqual(s.question.devices, ['H100-SXM', 'H200-SXM', 'MI300X']);
  assert.ok(s.ranked.length >= 3);
  for (let i = 1; i < s.ranked.length; i++)
    assert.ok(s.ranked[i - 1].usd_per_million_output_tokens <= s.ranked[i].usd_per_million_output_tokens);
  for (const p of [...s.ranked, ...s.pareto, ...s.rejected]) assert.ok(s.question.devices.includes(p.gpu), p.gpu);
  assert.match(s.why, /^best on /);
  // Each device's best is what a search of that device alone finds; and reruns to its figures.
  for (const gpu of devices) {
    const alone = json(ask3(gpu)).search;
    const name = alone.question.devices[0];
    const mine = s.ranked.filter((p) => p.gpu === name);
    if (!alone.ranked.length) {
      assert.equal(mine.length, 0, gpu);
      continue;
    }
    assert.ok(s.why.includes(`${name}: `), `${gpu} in the why`);
    if (!mine.length) continue; // below the top 10 of the merged list
    assert.equal(mine[0].usd_per_million_output_tokens, alone.ranked[0].usd_per_million_output_tokens, gpu);
    assert.deepEqual(mine[0].serve_args, alone.ranked[0].serve_args, gpu);
  }
  const other = s.ranked.find((p) => p.gpu !== 'H100-SXM');
  assert.ok(other, 'a point on another device ranked');
  assert.equal(other.serve_args[other.serve_args.indexOf('--gpu') + 1], other.gpu);
  const again = json(other.serve_args).points[0];
  assert.equal(at(again.ttft_s, 90), other.ttft_s);
  assert.equal(at(again.tpot_s, 90), other.tpot_s);
});
