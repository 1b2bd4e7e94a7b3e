// Writes the seed corpus (tests/fuzz/corpus/<target>/) from the repository's data and fixtures,
// and the regression inputs of the known bugs (tests/fuzz/regressions/<target>/).
// Run from the repository root: node tests/fuzz/make_corpus.mjs. Files have no extension (so
// prettier leaves them alone); request inputs start with the entry point's digit (fuzz_request.cpp).
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const read = (p) => JSON.parse(readFileSync(join(root, p), 'utf8'));
const slug = (s) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
const entry = { estimate: '0', compare: '1', throughput: '2', train: '3', calibrate: '4' };

function writeAll(dir, files) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

// ---- Seeds ----------------------------------------------------------------------------
const models = readdirSync(join(root, 'data/models'))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => [f.replace(/\.json$/, ''), read(`data/models/${f}`)]);
const { gpus } = read('data/gpus.json');
const { cases } = read('tests/fixtures/bad_inputs.json');
const reference = read('tests/fixtures/reference_cases.json').cases;

const config = {};
for (const [name, m] of models) config[name] = JSON.stringify(m.config);
config['pretty-llama'] = JSON.stringify(models.find(([n]) => n === 'llama-3-8b')[1].config, null, 2) + '\n';
config['bom-gpt2'] = '\ufeff' + JSON.stringify(models.find(([n]) => n === 'gpt2')[1].config);
config['opt-13b-minimal'] = JSON.stringify(reference.find((c) => typeof c.model === 'object').model);

const hardware = {};
for (const g of gpus) {
  const { sources: _sources, ...record } = g;
  hardware[slug(g.name)] = JSON.stringify(record);
}
hardware['a100-with-sources'] = JSON.stringify(gpus[0]);
hardware['minimal'] = JSON.stringify({
  name: 'X',
  memory_bytes: 1e10,
  memory_bandwidth_bytes_per_s: 1e12,
  peak_flops: { bf16: 1e14 },
  tdp_watts: 300,
});

const calibration = {
  empty: '{"entries": []}',
  'bare-empty': '[]',
  one: JSON.stringify({
    entries: [
      {
        model: 'meta-llama/Meta-Llama-3-8B',
        gpu: 'H100-SXM',
        precision: 'bf16',
        compute_efficiency: 0.55,
        mem_efficiency: 0.82,
        source: 'measured',
      },
    ],
  }),
  wildcards: JSON.stringify({
    entries: [
      { model: '*', gpu: 'A100', precision: '*', mem_efficiency: 0.7 },
      { gpu: 'A100', precision: 'fp16', compute_efficiency: 0.4, source: 'x' },
    ],
  }),
  bare: JSON.stringify([{ model: 'gpt2', gpu: 'L4', compute_efficiency: 1, mem_efficiency: 0.01 }]),
};

const request = {};
for (const c of cases)
  if (c.entry in entry) request[`bad-${c.entry}-${slug(c.name)}`] = entry[c.entry] + JSON.stringify(c.request);
for (const c of reference) request[`ref-${slug(c.name)}`] = '0' + JSON.stringify({ model: c.model, ...c.settings });
const good = {
  estimate: { model: 'llama-3-8b', gpu: 'H100', batch_size: 4, training: true, parallelism: { tensor_parallel: 2 } },
  compare: { model: ['gpt2', 'opt-125m'], gpu: ['A100', null], batch_size: [1, 8], precision: ['bf16', 'int8'] },
  throughput: {
    model: 'llama-3-8b',
    gpu: 'A100',
    serving: {
      prompt_tokens: 1024,
      output_tokens: 128,
      concurrency: 8,
      draft: 'llama-3.2-1b',
      chunked_prefill_tokens: 512,
    },
  },
  train: {
    model: 'mixtral-8x7b',
    gpu: 'H100',
    training_analysis: { recompute: 'selective', tokens: '15T', lora_rank: 16, lora_targets: 'attention', qlora: true },
  },
  calibrate: {
    model: 'llama-3-8b',
    gpu: 'A100',
    calibration: JSON.parse(calibration.wildcards),
    measured: { decode_tokens_per_second: 40, time_to_first_token_s: 0.2 },
  },
};
for (const [e, r] of Object.entries(good)) request[`good-${e}`] = entry[e] + JSON.stringify(r);
request['good-inline-gpu'] =
  '2' +
  JSON.stringify({ model: { ...models.find(([n]) => n === 'gpt2')[1].config }, gpu: JSON.parse(hardware.minimal) });

// fuzz_serving (fuzz_serving.cpp): '0' simulate, '1' plan, '2' report, '3' providers (a model name).
const servingEntry = { simulate: '0', plan: '1', report: '2', providers: '3' };
const serving = {};
for (const c of cases)
  if (c.entry in servingEntry)
    serving[`bad-${c.entry}-${slug(c.name)}`] = servingEntry[c.entry] + JSON.stringify(c.request);
const servingGood = {
  'simulate-batch': {
    model: 'llama-3.2-1b',
    gpu: 'H100',
    simulation: { num_requests: 8, input_tokens: 64, output_tokens: 8 },
  },
  'simulate-sweep': {
    model: 'llama-3.2-1b',
    gpu: 'H100',
    simulation: {
      concurrency: [1, 4],
      num_requests: 8,
      input_tokens: 32,
      output_tokens: 4,
      max_num_batched_tokens: 16,
    },
  },
  'simulate-poisson-spec': {
    model: 'llama-3-8b',
    gpu: 'H100',
    simulation: { request_rate: 5, num_requests: 6, input_tokens: 128, output_tokens: 8, speculative: 'eagle3' },
  },
  'simulate-trace-cache': {
    model: 'llama-3.2-1b',
    gpu: 'A100',
    simulation: {
      prefix_tokens: 32,
      prefix_caching: true,
      trace: [
        { arrival_s: 0, input_tokens: 64, output_tokens: 4, prefix_id: 1 },
        { arrival_s: 0.1, input_tokens: 80, output_tokens: 2, prefix_id: 1, session_id: 3 },
      ],
    },
  },
  'simulate-turns': {
    model: 'llama-3.2-1b',
    gpu: 'H100',
    simulation: { turns: 3, num_requests: 6, input_tokens: 16, output_tokens: 4, warmup_requests: 1 },
  },
  'simulate-disaggregated': {
    model: 'llama-3.2-1b',
    gpu: 'H100',
    simulation: { concurrency: 2, num_requests: 6, input_tokens: 64, output_tokens: 4 },
    disaggregation: { prefill_workers: 1, decode_workers: 2 },
  },
  'plan-h100': { model: 'llama-3-8b', gpu: 'H100' },
  'report-serving': { model: 'gpt2', gpu: 'A100', report: { serving: true } },
  'report-plain': { model: 'llama-3.2-1b', gpu: 'H100', batch_size: 2 },
};
for (const [name, r] of Object.entries(servingGood))
  serving[`good-${name}`] = servingEntry[name.split('-')[0]] + JSON.stringify(r);
serving['good-providers-all'] = '3';
serving['good-providers-model'] = '3llama-3-8b';

const corpus = join(root, 'tests/fuzz/corpus');
writeAll(join(corpus, 'fuzz_config'), config);
writeAll(join(corpus, 'fuzz_hardware'), hardware);
writeAll(join(corpus, 'fuzz_calibration'), calibration);
writeAll(join(corpus, 'fuzz_request'), request);
writeAll(join(corpus, 'fuzz_serving'), serving);

// ---- Regressions: the known bugs (they fail until the core is fixed) -------------------
const llama = models.find(([n]) => n === 'llama-3.2-1b')[1].config;
const qwenMoe = models.find(([n]) => n === 'qwen1.5-moe-a2.7b')[1].config;
const deep = (n) => '['.repeat(n) + ']'.repeat(n);
const regressions = {
  fuzz_config: {
    'deep-nesting-value': `{"model_type":"llama","hidden_size":${deep(100000)}}`,
    'hidden-size-1e400': JSON.stringify({ ...llama, hidden_size: 0 }).replace('"hidden_size":0', '"hidden_size":1e400'),
    'layers-1e9': JSON.stringify({ ...llama, num_hidden_layers: 1e9 }),
  },
  fuzz_request: {
    'deep-nesting-batch': `0{"model":"gpt2","batch_size":${deep(100000)}}`,
    'gpu-1e30-bytes':
      '2' + JSON.stringify({ model: 'gpt2', gpu: { ...JSON.parse(hardware.minimal), memory_bytes: 1e30 } }),
    'lora-rank-2p20-moe-2p30-experts':
      '3' +
      JSON.stringify({
        model: { ...qwenMoe, num_experts: 2 ** 30 },
        gpu: 'H100',
        training_analysis: { lora_rank: 1048576 },
      }),
  },
  fuzz_hardware: {
    'bandwidth-1e-300': JSON.stringify({ ...JSON.parse(hardware.minimal), memory_bandwidth_bytes_per_s: 1e-300 }),
  },
};
// The profiler's graphs (issue 26): sizes that overflowed int64 in shape propagation, and a chain
// of Concats whose constant values doubled at each node (2^45 values).
const graph1 = (op, inputs, initializers, attributes, names) => ({
  opset: 17,
  inputs,
  initializers,
  nodes: [{ name: '/m/n', op_type: op, inputs: names, outputs: ['y'], attributes }],
});
const ints = (name, values) => ({ name, elem_type: 7, dims: [values.length], values });
const p62 = '4611686018427387904'; // 2^62, beyond a double's exact integers: spliced in as text
regressions.fuzz_profile = {
  'tile-4x4-by-2p62': JSON.stringify(
    graph1('Tile', [{ name: 'x', elem_type: 1, dims: [4, 4] }], [ints('r', [0, 0])], {}, ['x', 'r']),
  ).replace('"values":[0,0]', `"values":[${p62},${p62}]`),
  'conv-dilations-2p62': JSON.stringify(
    graph1(
      'Conv',
      [{ name: 'x', elem_type: 1, dims: [1, 1, 8, 8] }],
      [{ name: 'w', elem_type: 1, dims: [1, 1, 3, 3] }],
      { dilations: { ints: [0, 1] } },
      ['x', 'w'],
    ),
  ).replace('"ints":[0,1]', `"ints":[${p62},1]`),
  'concat-doubling-45': JSON.stringify({
    initializers: [ints('c0', [7])],
    nodes: Array.from({ length: 45 }, (_, k) => ({
      op_type: 'Concat',
      inputs: [`c${k}`, `c${k}`],
      outputs: [`c${k + 1}`],
      attributes: { axis: { i: 0 } },
    })),
  }),
};
for (const [target, files] of Object.entries(regressions))
  writeAll(join(root, 'tests/fuzz/regressions', target), files);
