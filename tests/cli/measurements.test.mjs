// The validation table (data/measurements/, schema in its README): every file and row is
// well-formed, cites its source, quotes the figure, is in SI units, and names a device (and, where
// it is bundled, a model) that flopcast resolves, and that whole sources are held out of the fit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const dir = join(root, 'data/measurements');
const bin = join(root, 'build/flopcast');
const cli = (args) => JSON.parse(spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).stdout);
const norm = (s) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

const gpuNames = new Set();
for (const g of cli(['list-gpus', '--json'])) for (const n of [g.name, ...g.aliases]) gpuNames.add(norm(n));
const modelNames = new Set();
for (const m of cli(['list-models', '--json'])) for (const n of [m.id, ...m.aliases]) modelNames.add(n.toLowerCase());

const engines = new Set(['tensorrt-llm', 'vllm', 'sglang', 'llama.cpp', 'mlx', 'transformers', 'tgi']);
const metrics = new Set([
  'output_tokens_per_s',
  'total_tokens_per_s',
  'ttft_s',
  'tpot_s',
  'itl_s',
  'e2e_latency_s',
  'prefill_tokens_per_s',
  'decode_tokens_per_s',
  'requests_per_s',
]);
const loads = new Set(['concurrency', 'batch', 'request_rate', 'single_stream', 'max_throughput']);
const kinds = new Set(['engine_docs', 'ci_dashboard', 'mlperf', 'community_benchmark', 'vendor_blog', 'paper']);

const all = readdirSync(dir).filter((f) => f.endsWith('.json'));
// Training files ("kind": "training", README "Training rows") have their own checks below.
const isTraining = (f) => JSON.parse(readFileSync(join(dir, f), 'utf8')).kind === 'training';
const files = all.filter((f) => !isTraining(f));
const trainingFiles = all.filter(isTraining);

test('the table holds at least 150 rows from at least 6 independent sources (issue 12)', () => {
  const rows = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')).rows.length);
  assert.ok(files.length >= 6, `${files.length} sources`);
  assert.ok(rows.reduce((a, b) => a + b, 0) >= 150, `${rows} rows`);
});

test('every measurement file and row is well-formed and sourced', () => {
  const ids = new Set();
  const sources = new Set();
  for (const f of files) {
    const d = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const s = d.source;
    assert.ok(s && typeof s.id === 'string' && s.id.length > 0, `${f}: source.id`);
    assert.ok(!sources.has(s.id), `${f}: source id ${s.id} used twice`);
    sources.add(s.id);
    assert.match(s.url ?? '', /^https?:\/\//, `${f}: source.url`);
    assert.ok(kinds.has(s.kind), `${f}: source.kind ${s.kind}`);
    if (s.commit !== undefined) assert.match(s.commit, /^[0-9a-f]{40}$/, `${f}: source.commit`);
    assert.ok(s.split === 'fit' || s.split === 'held_out', `${f}: source.split ${s.split}`);
    assert.ok(Array.isArray(d.rows) && d.rows.length > 0, `${f}: rows`);
    for (const r of d.rows) {
      const at = `${f}: ${r.id}`;
      assert.ok(typeof r.id === 'string' && !ids.has(r.id), `${at}: row id missing or repeated`);
      ids.add(r.id);
      assert.ok(typeof r.quote === 'string' && r.quote.length >= 3, `${at}: quote`);
      assert.ok(engines.has(r.engine), `${at}: engine ${r.engine}`);
      assert.ok(metrics.has(r.metric), `${at}: metric ${r.metric}`);
      assert.ok(Number.isFinite(r.value) && r.value > 0, `${at}: value ${r.value}`);
      if (r.metric.endsWith('_s') && !r.metric.includes('per_s')) assert.ok(r.value < 3600, `${at}: seconds, not ms`);
      assert.ok(gpuNames.has(norm(r.gpu)), `${at}: unknown GPU ${r.gpu}`);
      assert.ok(
        modelNames.has(String(r.model).toLowerCase()) || /^[\w.-]+\/[\w.-]+$/.test(r.model),
        `${at}: model ${r.model} is neither bundled nor a Hub id`,
      );
      assert.ok(Number.isInteger(r.num_gpus) && r.num_gpus >= 1, `${at}: num_gpus`);
      // Lengths: null only where the source states none and the metric is a per-phase rate.
      const phase = r.metric === 'prefill_tokens_per_s' || r.metric === 'decode_tokens_per_s';
      for (const k of ['input_tokens', 'output_tokens'])
        assert.ok((Number.isInteger(r[k]) && r[k] >= 0) || (r[k] === null && phase), `${at}: ${k}`);
      assert.ok(r.load && loads.has(r.load.kind), `${at}: load.kind`);
      if (r.load.kind !== 'single_stream' && r.load.kind !== 'max_throughput')
        assert.ok(Number.isFinite(r.load.value) && r.load.value > 0, `${at}: load.value`);
      if (r.num_requests !== undefined)
        assert.ok(Number.isInteger(r.num_requests) && r.num_requests >= 1, `${at}: num_requests`);
      // The harness's drawn lengths (README "lengths"): whole-token [min, max] ranges, 1 <= min <= max,
      // no longer than any context a bundled model has (a range of 10^9 tokens would be a typo the
      // simulator would spend minutes drawing).
      if (r.lengths !== undefined)
        for (const k of Object.keys(r.lengths)) {
          assert.ok(k === 'input_tokens' || k === 'output_tokens', `${at}: lengths.${k}`);
          const [lo, hi, ...rest] = r.lengths[k];
          assert.ok(
            Number.isInteger(lo) && Number.isInteger(hi) && lo >= 1 && lo <= hi && hi <= 10_000_000 && !rest.length,
            `${at}: lengths.${k}`,
          );
        }
    }
  }
});

test('whole sources are held out of the fit: at least 30% of rows, and of every fitted engine', () => {
  const by = { fit: new Map(), held_out: new Map() };
  for (const f of files) {
    const d = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    for (const r of d.rows) by[d.source.split].set(r.engine, (by[d.source.split].get(r.engine) ?? 0) + 1);
  }
  const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);
  const held = sum(by.held_out),
    all = held + sum(by.fit);
  assert.ok(held >= 0.3 * all, `${held} of ${all} rows held out`);
  // An engine fitted on some sources keeps others out, so its held-out error is measurable.
  for (const engine of by.fit.keys()) assert.ok(by.held_out.get(engine) > 0, `${engine}: no held-out rows`);
});

const trainingEngines = new Set([
  'megatron-bridge',
  'nemo',
  'megatron-lm',
  'torchtitan',
  'maxtext',
  'llm-foundry',
  'deepspeed',
]);

test('every training file and row is well-formed and sourced (README "Training rows")', () => {
  assert.ok(trainingFiles.length >= 3, `${trainingFiles.length} training sources`);
  const ids = new Set();
  const sources = new Set();
  for (const f of trainingFiles) {
    assert.match(f, /^training-[a-z0-9.-]+\.json$/, `${f}: file name`);
    const d = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const s = d.source;
    assert.ok(s && typeof s.id === 'string' && s.id.length > 0 && !sources.has(s.id), `${f}: source.id`);
    sources.add(s.id);
    assert.match(s.url ?? '', /^https?:\/\//, `${f}: source.url`);
    assert.ok(kinds.has(s.kind), `${f}: source.kind ${s.kind}`);
    if (s.commit !== undefined) assert.match(s.commit, /^[0-9a-f]{40}$/, `${f}: source.commit`);
    assert.ok(s.split === 'fit' || s.split === 'held_out', `${f}: source.split ${s.split}`);
    assert.ok(Array.isArray(d.rows) && d.rows.length > 0, `${f}: rows`);
    for (const r of d.rows) {
      const at = `${f}: ${r.id}`;
      assert.ok(typeof r.id === 'string' && !ids.has(r.id), `${at}: row id missing or repeated`);
      ids.add(r.id);
      assert.ok(typeof r.quote === 'string' && r.quote.length >= 3, `${at}: quote`);
      assert.ok(trainingEngines.has(r.engine), `${at}: engine ${r.engine}`);
      assert.ok(gpuNames.has(norm(r.gpu)), `${at}: unknown GPU ${r.gpu}`);
      assert.ok(modelNames.has(String(r.model).toLowerCase()), `${at}: model ${r.model} is not bundled`);
      assert.ok(Number.isInteger(r.num_gpus) && r.num_gpus >= 1, `${at}: num_gpus`);
      const l = r.layout;
      for (const k of ['tensor_parallel', 'pipeline_parallel', 'context_parallel', 'expert_parallel', 'data_parallel'])
        assert.ok(Number.isInteger(l?.[k]) && l[k] >= 1, `${at}: layout.${k}`);
      assert.ok(
        l.virtual_pipeline === null || (Number.isInteger(l.virtual_pipeline) && l.virtual_pipeline > 1),
        `${at}: layout.virtual_pipeline`,
      );
      // The framework's count: expert parallelism is carved out of the data-parallel ranks.
      assert.equal(
        l.tensor_parallel * l.pipeline_parallel * l.context_parallel * l.data_parallel,
        r.num_gpus,
        `${at}: TP x PP x CP x DP is not num_gpus`,
      );
      for (const k of ['micro_batch', 'global_batch', 'sequence_length'])
        assert.ok(Number.isInteger(r[k]) && r[k] >= 1, `${at}: ${k}`);
      assert.equal(r.global_batch % (r.micro_batch * l.data_parallel), 0, `${at}: global batch / (micro x DP)`);
      assert.ok(r.recompute === null || ['none', 'selective', 'full'].includes(r.recompute), `${at}: recompute`);
      assert.ok(['bf16', 'fp8', 'mxfp8'].includes(r.precision), `${at}: precision ${r.precision}`);
      assert.equal(r.metric, 'tokens_per_s', `${at}: metric`);
      assert.ok(r.per === 'gpu' || r.per === 'system', `${at}: per`);
      assert.ok(Number.isFinite(r.value) && r.value > 0, `${at}: value ${r.value}`);
      if (r.model_tflops_per_s_per_gpu !== undefined)
        assert.ok(
          Number.isFinite(r.model_tflops_per_s_per_gpu) && r.model_tflops_per_s_per_gpu > 0,
          `${at}: model TFLOP/s`,
        );
    }
  }
});

test('whole training sources are held out: at least a third of training rows', () => {
  let held = 0,
    total = 0;
  for (const f of trainingFiles) {
    const d = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    total += d.rows.length;
    if (d.source.split === 'held_out') held += d.rows.length;
  }
  assert.ok(held * 3 >= total, `${held} of ${total} training rows held out`);
  assert.ok(held < total, 'some training rows are fitted');
});

test('flopcast validate predicts the training rows in its training group', () => {
  const out = cli(['validate', '--json']);
  const t = out.training;
  assert.ok(t && t.rows_considered > 0, 'no training group');
  assert.ok(t.rows_predicted >= 0.9 * t.rows_considered, `${t.rows_predicted} of ${t.rows_considered} predicted`);
  const splits = new Set(t.summary.map((s) => s.split));
  assert.ok(splits.has('fit') && splits.has('held_out'), 'both splits reported');
  for (const s of t.summary) {
    assert.equal(s.metric, 'tokens_per_s');
    for (const k of ['median_error', 'median_abs_error', 'p90_abs_error']) assert.ok(Number.isFinite(s[k]), `${k}`);
  }
  // Serving rows never include training ones.
  for (const r of out.rows) assert.ok(!r.id.startsWith('mbridge-') && !r.id.startsWith('torchtitan-'), r.id);
});
