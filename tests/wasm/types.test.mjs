// Drift guard: the package's flopcast.d.ts (generated at build time by tools/gen_dts.mjs from the
// module's tables and the hand-written wasm/types/*.d.ts) describes exactly what the core returns
// and takes. Real results of every API call (over a spread of models and modes) are written into a
// .mts file as typed literals and compiled with the repo's TypeScript: excess-property checks fail
// on a key the .d.ts lacks, and a missing required key, a null where none is declared or a number
// typed as a string fail too. A second pass walks each result beside its declared type and fails
// where a key is typed only by an index signature, `unknown` or `any` (where tsc would accept
// anything). The requests those results came from compile against the request types, and every
// field of the request table must appear in the request type of each of its commands, taking a
// value of its type and refusing one of another, with its help as TSDoc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, root, wasmDir } from './load.mjs';
import { tinyLlamaConfig, tinyLlamaGguf, tinyLlamaSafetensors } from '../fixtures/checkpoint_files.mjs';

const ts = createRequire(join(root, 'package.json'))('typescript');
const { fc: api } = await load();
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-types-'));
const dts = join(wasmDir, 'flopcast.d.ts');

// The calls that take a request (their first argument), and every request made through `fc`.
const requestMethods = new Set([
  'estimate',
  'compare',
  'throughput',
  'simulate',
  'plan',
  'train',
  'calibrate',
  'reportData',
  'sweep',
  'sweepSize',
  'priceComparison',
]);
const requests = [];
const fc = new Proxy(api, {
  get(target, key) {
    const f = target[key];
    if (!requestMethods.has(key)) return f;
    return (request, ...rest) => {
      requests.push([key, structuredClone(request)]);
      return f(request, ...rest);
    };
  },
});

// A matmul, a reshape and an op without a rule (the profiler's neutral graph form).
const profileGraph = {
  inputs: [{ name: 'x', elem_type: 1, dims: ['n', 8] }],
  initializers: [
    { name: 'w', elem_type: 1, dims: [8, 4] },
    { name: 's', elem_type: 7, dims: [2], values: [2, -1] },
  ],
  nodes: [
    { name: '/a/MatMul', op_type: 'MatMul', inputs: ['x', 'w'], outputs: ['y'] },
    { name: '/a/Reshape', op_type: 'Reshape', inputs: ['y', 's'], outputs: ['z'] },
    { name: '/b/Odd', op_type: 'Odd', domain: 'x.y', inputs: ['z'], outputs: ['o'] },
  ],
};

// [declared type, label, value]: real results, computed now. The declared type is what the API
// says the call returns (ReturnType of the method), so a loosened method signature is caught too.
function realResults() {
  const out = [];
  const add = (method, label, value) => out.push([`ReturnType<Flopcast['${method}']>`, label, value]);
  const estimates = {
    'decoder on H100': { model: 'llama-3-8b', gpu: 'H100', batch_size: 4, layer_table: true },
    'encoder (bert-base)': { model: 'bert-base', gpu: 'A100' },
    'encoder-decoder (t5-small)': { model: 't5-small', gpu: 'L4', num_generated_tokens: 16 },
    'MoE (mixtral-8x7b)': { model: 'mixtral-8x7b', gpu: 'H100', precision: 'int4', kv_cache_precision: 'fp8' },
    'MLA + MoE (deepseek-v3)': { model: 'deepseek-v3', gpu: 'H100', precision: 'fp8' },
    'sliding windows (gemma-2-9b)': { model: 'gemma-2-9b', gpu: 'A100', causal: true },
    'hybrid linear attention (qwen3-next)': { model: 'qwen3-next', gpu: 'H100', layer_table: true },
    'operator tables (qwen3-next)': { model: 'qwen3-next', gpu: 'H100', operator_table: true },
    'operator tables of an encoder without GPU': { model: 'bert-base', gpu: null, operator_table: true },
    'state space (mamba-2.8b)': { model: 'mamba-2.8b', gpu: 'RTX 4090' },
    'mxfp4 experts from quantization_config (gpt-oss-120b)': { model: 'gpt-oss-120b', gpu: 'B200' },
    'llama.cpp preset (q4_k_m)': { model: 'llama-3.1-8b', gpu: 'RTX 4090', precision: 'q4_k_m' },
    'vision tower (gemma-3-4b-it)': {
      model: 'gemma-3-4b-it',
      gpu: 'L4',
      precision: { default: 'bf16', attention: 'fp8' },
    },
    'chunked and NoPE layers (llama-4-scout)': {
      model: 'llama-4-scout',
      gpu: 'H100',
      parallelism: { tensor_parallel: 20 },
    },
    'no GPU': { model: 'llama-3-8b', gpu: null },
    'encoder without GPU': { model: 'bert-base', gpu: null },
    training: { model: 'llama-3-8b', gpu: 'A100', training: true, optimizer: 'adamw' },
    'training without GPU': { model: 'gpt2', gpu: null, training: true, gradient_checkpointing: false },
    'tensor parallel': {
      model: 'llama-2-70b',
      precision: 'fp16',
      gpu: 'A100-80GB-SXM',
      parallelism: { tensor_parallel: 2 },
    },
    'training on a 3D layout': {
      model: 'mixtral-8x7b',
      gpu: 'H100',
      training: true,
      batch_size: 8,
      parallelism: {
        tensor_parallel: 2,
        pipeline_parallel: 2,
        data_parallel: 2,
        expert_parallel: 2,
        num_microbatches: 4,
      },
    },
    'exact weight bytes (a checkpoint)': { model: 'llama-3-8b', gpu: 'H100', weight_bytes: 4.9e9 },
    'custom GPU, explicit settings': {
      model: 'qwen2.5-7b',
      gpu: {
        name: 'Chip',
        memory_bytes: 48e9,
        memory_bandwidth_bytes_per_s: 1.5e12,
        tdp_watts: 250,
        peak_flops: { fp32: 40e12, bf16: 300e12 },
        cost_per_hour_usd: 2,
      },
      compute_efficiency: 0.4,
      cost_per_hour: 3,
    },
  };
  for (const [label, req] of Object.entries(estimates)) add('estimate', `estimate: ${label}`, fc.estimate(req));

  const cal = fc.calibrate({
    model: 'llama-3-8b',
    gpu: 'A100',
    sequence_length: 512,
    measured: { decode_tokens_per_second: 80, time_to_first_token_s: 0.09 },
  });
  add('calibrate', 'calibrate', cal);
  add('reportData', 'reportData', fc.reportData({ model: 'llama-3-8b', gpu: 'H100' }));
  add('reportData', 'reportData: no GPU', fc.reportData({ model: 'bert-base', gpu: 'none' }));
  add(
    'reportData',
    'reportData: serving',
    fc.reportData({ model: 'llama-3-8b', gpu: 'H100', report: { serving: true } }),
  );
  add(
    'calibrate',
    'calibrate: decode only',
    fc.calibrate({ model: 'gpt2', gpu: 'L4', measured: { decode_tokens_per_second: 900 } }),
  );
  add(
    'estimate',
    'estimate: calibrated',
    fc.estimate({ model: 'llama-3-8b', gpu: 'A100', sequence_length: 512, calibration: cal.entries }),
  );

  const serving = { model: 'llama-3-8b', gpu: 'H100' };
  add('throughput', 'throughput', fc.throughput({ ...serving, serving: { prompt_tokens: 1024, concurrency: 32 } }));
  add(
    'throughput',
    'throughput: speculative, chunked prefill',
    fc.throughput({
      ...serving,
      serving: { draft: 'llama-3.2-1b', speculative_tokens: 4, acceptance_rate: 0.8, chunked_prefill_tokens: 512 },
    }),
  );
  add('throughput', 'throughput: does not fit', fc.throughput({ model: 'llama-2-70b', precision: 'fp16', gpu: 'L4' }));
  add(
    'throughput',
    'throughput: tensor parallel',
    fc.throughput({
      model: 'llama-2-70b',
      precision: 'fp16',
      gpu: 'A100-80GB-SXM',
      parallelism: { tensor_parallel: 2 },
    }),
  );

  add(
    'simulate',
    'simulate: closed-loop curve',
    fc.simulate({
      ...serving,
      simulation: { concurrency: [1, 8], num_requests: 16, input_tokens: 256, output_tokens: 16, slo_ttft_s: 0.1 },
    }),
  );
  add(
    'simulate',
    'simulate: disaggregated prefill and decode',
    fc.simulate({
      ...serving,
      simulation: { concurrency: [2], num_requests: 8, input_tokens: 256, output_tokens: 8 },
      disaggregation: { prefill_workers: 2, decode_workers: 1, transfer_latency_s: 1e-5 },
    }),
  );
  add(
    'simulate',
    'simulate: engine, poisson, uniform lengths',
    fc.simulate({
      ...serving,
      engine: 'vllm',
      simulation: { request_rate: 4, num_requests: 12, input_tokens_range: [64, 512], output_tokens: 8 },
    }),
  );
  add(
    'simulate',
    'simulate: trace',
    fc.simulate({
      ...serving,
      simulation: {
        trace: [
          { arrival_s: 0, input_tokens: 100, output_tokens: 4 },
          { arrival_s: 0.01, input_tokens: 300, output_tokens: 6 },
        ],
        kv_blocks: 1000,
      },
    }),
  );

  add('plan', 'plan', fc.plan({ model: 'llama-2-70b', precision: 'fp16', gpu: 'A100-80GB-SXM' }));
  add(
    'plan',
    'plan: concurrency, per-part format',
    fc.plan({
      model: 'mixtral-8x7b',
      gpu: 'H100',
      precision: { default: 'bf16', experts: 'fp8' },
      plan: { concurrency: 16, max_gpus: 8 },
    }),
  );
  add('plan', 'plan: nothing fits', fc.plan({ model: 'llama-3.1-405b', gpu: 'A100', plan: { max_gpus: 2 } }));
  add(
    'plan',
    'plan: the SLO search',
    fc.plan({
      model: 'llama-3-8b',
      gpu: 'H100',
      sequence_length: 1024,
      num_generated_tokens: 256,
      plan: { slo_ttft_s: 0.5, slo_tpot_s: 0.02, gpus: 4, request_rate: 20 },
    }),
  );
  add('train', 'train', fc.train({ model: 'llama-3-8b', gpu: 'A100', batch_size: 2, sequence_length: 1024 }));
  add(
    'profile',
    'profile of a hand-built graph with an unknown op',
    fc.profile(profileGraph, { dims: { n: 4 }, gpu: 'A100' }),
  );
  add(
    'train',
    'train: QLoRA',
    fc.train({
      model: 'llama-2-7b',
      gpu: 'A100',
      training_analysis: { lora_rank: 8, base_precision: 'int4', recompute: 'selective', tokens: 1e9 },
    }),
  );
  add(
    'train',
    'train: LoRA without GPU',
    fc.train({ model: 't5-small', gpu: null, training_analysis: { lora_rank: 4 } }),
  );
  add(
    'train',
    'train: MoE',
    fc.train({ model: 'mixtral-8x7b', gpu: 'H100', training_analysis: { gpus: 8, mfu: 0.4 } }),
  );

  const grid = { model: ['llama-3-8b', 'bert-base', 't5-small'], batch_size: [1, 8], gpu: ['H100', null] };
  add('compare', 'compare', fc.compare(grid));
  add('sweep', 'sweep', fc.sweep(grid));
  add('sweepSize', 'sweepSize', fc.sweepSize(grid));
  add('listModels', 'listModels', fc.listModels());
  add('estimate', 'estimate: by a provider id', fc.estimate({ model: 'llama-3.3-70b-versatile', gpu: 'H100' }));
  add('providers', 'providers', fc.providers());
  add('providers', 'providers: one model', fc.providers('llama-3.3-70b'));
  add('priceComparison', 'priceComparison', fc.priceComparison({ model: 'llama-3.3-70b', gpu: 'H100' }));
  add('listGpus', 'listGpus', fc.listGpus());
  add('defaults', 'defaults', fc.defaults());
  add('precisions', 'precisions', fc.precisions());
  add('optimizers', 'optimizers', fc.optimizers());
  add('rowFields', 'rowFields', fc.rowFields());
  add('version', 'version', fc.version());
  add('heapUsed', 'heapUsed', fc.heapUsed());
  const gguf = tinyLlamaGguf().file();
  add('inspectCheckpoint', 'inspectCheckpoint: GGUF', fc.inspectCheckpoint(gguf, gguf.length));
  const st = tinyLlamaSafetensors().bytes;
  add(
    'inspectCheckpoint',
    'inspectCheckpoint: safetensors + config',
    fc.inspectCheckpoint(st, st.length, tinyLlamaConfig),
  );
  add('inspectCheckpoint', 'inspectCheckpoint: safetensors alone', fc.inspectCheckpoint(st, st.length));
  add('checkpointHeaderBytes', 'checkpointHeaderBytes', fc.checkpointHeaderBytes(st.subarray(0, 8)));
  return out;
}

// A result as TypeScript source lines, each with the JSON pointer it writes (for messages):
// its JSON, one key per line, except typed arrays (sweep values).
function emit(value, path, out, prefix = '', suffix = '') {
  const plain = (v) => v !== null && typeof v === 'object' && !ArrayBuffer.isView(v);
  if (ArrayBuffer.isView(value)) out.push([`${prefix}new ${value.constructor.name}(${value.length})${suffix}`, path]);
  else if (plain(value) && !Array.isArray(value)) {
    out.push([`${prefix}{`, path]);
    for (const [k, v] of Object.entries(value)) emit(v, `${path}/${k}`, out, `${JSON.stringify(k)}: `, ',');
    out.push([`}${suffix}`, path]);
  } else if (Array.isArray(value) && value.some(plain)) {
    out.push([`${prefix}[`, path]);
    value.forEach((v, i) => emit(v, `${path}/${i}`, out, '', ','));
    out.push([`]${suffix}`, path]);
  } else out.push([`${prefix}${JSON.stringify(value)}${suffix}`, path]);
  return out;
}

// The .mts source for the cases, and for each of its lines [case label, JSON pointer].
function source(cases) {
  const lines = [[`import type { Flopcast } from ${JSON.stringify(join(wasmDir, 'flopcast.js'))};`, null]];
  cases.forEach(([type, label, value], i) => {
    lines.push(...emit(value, '', [], `export const r${i}: ${type} = `, ';').map(([t, p]) => [t, [label, p || '/']]));
  });
  return { text: lines.map(([t]) => t).join('\n') + '\n', where: lines.map(([, w]) => w) };
}
function write(file, cases, extra = '') {
  const { text, where } = source(cases);
  writeFileSync(file, text + extra);
  return { file, where };
}

// Compiles the files in one program with the repo's TypeScript (strict).
function compile(files) {
  const program = ts.createProgram(
    files.map((f) => f.file),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
      skipDefaultLibCheck: true,
    },
  );
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => tmp, getNewLine: () => '\n' };
  // A generated file's diagnostics name the case and the key; others are tsc's own text.
  const of = ({ file, where }) => {
    const d = diagnostics.filter((x) => x.file?.fileName === file);
    const text = d.map((x) => {
      const message = ts.flattenDiagnosticMessageText(x.messageText, '\n  ');
      if (!where) return ts.formatDiagnostics([x], host);
      const line = x.file.getLineAndCharacterOfPosition(x.start).line;
      const [label, pointer] = where[line] ?? ['the exported names', x.file.text.split('\n')[line]];
      return `${label}: ${pointer}: TS${x.code}: ${message}`;
    });
    return { count: d.length, text: text.join('\n') };
  };
  return { program, of };
}

// Walks a value beside its declared type; returns the paths whose type would accept anything.
function looseKeys(checker, value, types, path, out) {
  const members = types
    .flatMap((t) => (t.isUnion() ? t.types : [t]))
    .filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
  if (members.some((t) => t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.NonPrimitive))) {
    out.push(`${path || '/'}: typed ${members.map((t) => checker.typeToString(t)).join(' | ')}`);
    return out;
  }
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return out;
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      const element = members.flatMap((t) =>
        checker.isTupleType(t)
          ? [checker.getTypeArguments(t)[i]].filter(Boolean)
          : checker.isArrayType(t)
            ? [checker.getTypeArguments(t)[0]]
            : [],
      );
      if (element.length === 0)
        out.push(`${path}/${i}: no array type among ${members.map((t) => checker.typeToString(t))}`);
      else looseKeys(checker, v, element, `${path}/${i}`, out);
    });
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    const props = members.map((t) => checker.getPropertyOfType(t, k)).filter(Boolean);
    if (props.length === 0) out.push(`${path}/${k}: not a declared key (only an index signature, if any)`);
    else
      looseKeys(
        checker,
        v,
        props.map((p) => checker.getTypeOfSymbol(p)),
        `${path}/${k}`,
        out,
      );
  }
  return out;
}

// The loose keys of every case, once per declared type and path (array indices as /*).
function looseness(program, file, cases) {
  const checker = program.getTypeChecker();
  const problems = new Map();
  const decls = program
    .getSourceFile(file.file)
    .statements.filter(ts.isVariableStatement)
    .flatMap((s) => s.declarationList.declarations)
    .filter((d) => /^r\d+$/.test(d.name.getText()));
  assert.equal(decls.length, cases.length);
  decls.forEach((d, i) => {
    for (const p of looseKeys(checker, cases[i][2], [checker.getTypeFromTypeNode(d.type)], '', [])) {
      const key = `${cases[i][0]} ${p.replace(/\/\d+(?=\/|:)/g, '/*')}`;
      if (!problems.has(key)) problems.set(key, `${key} (first in: ${cases[i][1]})`);
    }
  });
  return [...problems.values()];
}

test('flopcast.d.ts is the generated file, current with the generator and wasm/types', () => {
  const text = readFileSync(dts, 'utf8');
  assert.match(
    text.split('\n')[0],
    /^\/\/ GENERATED by tools\/gen_dts\.mjs from .*wasm\/types\/\*\.d\.ts: do not edit/,
    'the first line says the file is generated, by what, from what, and not to edit it',
  );
  // The generator again, on the same module and hand-written files: the same bytes.
  const parts = readdirSync(join(root, 'wasm/types'))
    .filter((f) => f.endsWith('.d.ts'))
    .sort()
    .map((f) => join(root, 'wasm/types', f));
  assert.ok(parts.length > 0);
  const again = join(tmp, 'again.d.ts');
  const r = spawnSync(
    process.execPath,
    [join(root, 'tools/gen_dts.mjs'), again, join(wasmDir, 'flopcast_core.js'), ...parts],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.ok(readFileSync(again, 'utf8') === text, 'build-wasm/wasm/flopcast.d.ts is stale: npm run build:wasm');
  for (const p of parts) assert.ok(text.includes(readFileSync(p, 'utf8')), `${p} is not included verbatim`);
});

// The real results, computed once for the tests that need them.
let computed;
const realCases = () => (computed ??= realResults());

test('flopcast.d.ts types every real result exactly (tsc --strict on typed literals)', () => {
  const cases = realCases();
  assert.ok(cases.length >= 30);
  // The exported names are the methods' return types.
  const named = {
    estimate: 'EstimateResult',
    compare: 'CompareRow[]',
    throughput: 'ThroughputResult',
    simulate: 'SimulationResult',
    train: 'TrainResult',
    calibrate: 'CalibrationStore',
    sweep: 'SweepResult',
    listModels: 'ModelInfo[]',
    listGpus: 'GpuInfo[]',
    defaults: 'Defaults',
    rowFields: 'RowField[]',
    inspectCheckpoint: 'CheckpointSummary',
  };
  const extra = [
    `import type { ${[...new Set(Object.values(named).map((t) => t.replace('[]', '')))].join(', ')} } from ${JSON.stringify(join(wasmDir, 'flopcast.js'))};`,
    // Identical types (not just mutually assignable: an added optional key differs).
    'type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;',
    ...Object.entries(named).map(
      ([m, t]) => `export const same_${m}: Same<ReturnType<Flopcast['${m}']>, ${t}> = true;`,
    ),
  ].join('\n');
  const good = write(join(tmp, 'results.mts'), cases, `${extra}\n`);

  // The same first result with a drift injected into a nested object, one per file: each must
  // NOT compile, or the guard above could not fail.
  const r = cases[0][2];
  // [drift, the pointer tsc must name]
  const drifts = {
    'extra nested key': [(x) => (x.details.memory.drift_guard_extra = 1), '/details/memory/drift_guard_extra'],
    'missing nested key': [(x) => delete x.details.performance.prefill_bound, '/details/performance'],
    'number where a string is declared': [
      (x) => (x.details.settings.kv_cache_precision = 16),
      '/details/settings/kv_cache_precision',
    ],
    'null where none is declared': [(x) => (x.details.flops.forward.total = null), '/details/flops/forward/total'],
    'extra key in an array element': [
      (x) => (x.details.flops.layers[1].drift_guard_extra = 'x'),
      '/details/flops/layers/1/drift_guard_extra',
    ],
  };
  const bad = Object.entries(drifts).map(([label, [drift, pointer]], i) => {
    const x = structuredClone(r);
    drift(x);
    return [label, write(join(tmp, `drift${i}.mts`), [[cases[0][0], label, x]]), pointer];
  });
  // An index-signature type must fail the second pass.
  const loose = write(join(tmp, 'loose.mts'), [
    [`Omit<ReturnType<Flopcast['estimate']>, 'details'> & { details: Record<string, unknown> }`, 'loose', r],
  ]);

  const { program, of } = compile([good, loose, ...bad.map(([, f]) => f)]);
  const dtsDiagnostics = of({ file: program.getSourceFile(dts)?.fileName ?? dts });
  assert.equal(dtsDiagnostics.count, 0, `flopcast.d.ts does not compile:\n${dtsDiagnostics.text}`);
  const results = of(good);
  assert.equal(results.count, 0, `the real results do not match flopcast.d.ts (see ${good.file}):\n${results.text}`);
  const problems = looseness(program, good, cases);
  assert.deepEqual(problems, [], `flopcast.d.ts types these result keys loosely:\n${problems.join('\n')}`);

  for (const [label, file, pointer] of bad) {
    const d = of(file);
    assert.ok(d.count > 0, `a result with a drift (${label}) compiled: the guard cannot fail`);
    assert.ok(d.text.includes(`${label}: ${pointer}: TS`), `${label}: expected a diagnostic at ${pointer}:\n${d.text}`);
  }
  assert.equal(of(loose).count, 0, of(loose).text);
  const looseProblems = looseness(program, loose, [['loose', 'loose', r]]);
  assert.ok(
    looseProblems.some((p) => p.includes('/details/')),
    `an index-signature type passed the looseness check: ${looseProblems}`,
  );
});

// A value each request field type takes, and one it must refuse (a value of another JSON type, or a
// name outside a closed list). Written here, not derived from the generator, so the two can disagree.
const samples = {
  integer: [[1], ['1']],
  number: [[0.5], ['0.5']],
  boolean: [[true], [1]],
  precision: [['bf16', 'float16'], [16]],
  optimizer: [['adamw'], ['adamx']],
  recompute: [['selective'], ['partial']],
  lora_targets: [['q,v'], [1]],
  tokens: [
    [1e9, '15T'],
    [true, '15X'],
  ],
  model: [['llama-3-8b', { model_type: 'llama', hidden_size: 64 }], [1]],
  gpu: [
    ['H100', null, { name: 'x', memory_bytes: 1, memory_bandwidth_bytes_per_s: 1, tdp_watts: 1, peak_flops: {} }],
    [1],
  ],
  engine: [['vllm', 'vLLM'], [1]],
  calibration: [[[], { entries: [] }], [1]],
  part: [[{}], [1]],
  token_range: [[[1, 2]], [[1], 'x']],
  trace: [[[{ arrival_s: 0, input_tokens: 1, output_tokens: 1 }]], [[1]]],
};
// The API method of each command of the table.
const methodOf = {
  estimate: 'estimate',
  compare: 'compare',
  throughput: 'throughput',
  train: 'train',
  calibrate: 'calibrate',
  simulate: 'simulate',
  report: 'reportData',
  plan: 'plan',
};

test('the generated request types hold every request field of the table with its TS type and help', () => {
  const fields = api.defaults().request_fields;
  assert.ok(fields.length > 50);
  const lines = [[`import type { Flopcast } from ${JSON.stringify(join(wasmDir, 'flopcast.js'))};`, null]];
  const commands = [...new Set(fields.flatMap((f) => f.commands))];
  for (const c of commands) {
    assert.ok(methodOf[c], `no API method for the request table's command "${c}"`);
    lines.push([`type Q_${c} = Exclude<Parameters<Flopcast['${methodOf[c]}']>[0], string>;`, [c, '']]);
    // A request without a model is refused.
    lines.push(['// @ts-expect-error', [c, '/model']], [`export const no_model_${c}: Q_${c} = {};`, [c, '/model']]);
  }
  const at = (f, c) => (f.part ? `NonNullable<Q_${c}['${f.part}']>['${f.key}']` : `Q_${c}['${f.key}']`);
  fields.forEach((f, i) => {
    assert.ok(samples[f.type] || f.type === 'choice', `no sample values for the field type ${f.type}`);
    const [good, bad] = f.type === 'choice' ? [f.choices, ['not_a_choice']] : samples[f.type];
    for (const c of f.commands) {
      const where = [`${c}()`, f.pointer];
      // compare takes lists of the listable top-level fields; a part takes lists of its listable ones.
      const lists = f.listable && (f.part !== '' || c === 'compare');
      const ok = [...good, ...(lists ? [good] : [])];
      const wrong = [...bad, ...(lists || Array.isArray(good[0]) || f.type === 'calibration' ? [] : [good])];
      ok.forEach((v, j) => lines.push([`export const f${i}_${c}_ok${j}: ${at(f, c)} = ${JSON.stringify(v)};`, where]));
      wrong.forEach((v, j) =>
        lines.push(
          ['// @ts-expect-error', where],
          [`export const f${i}_${c}_bad${j}: ${at(f, c)} = ${JSON.stringify(v)};`, where],
        ),
      );
    }
  });
  const file = join(tmp, 'fields.mts');
  writeFileSync(file, lines.map(([t]) => t).join('\n') + '\n');
  const table = { file, where: lines.map(([, w]) => w) };
  // The requests the real results came from: the core took them, so must their types.
  const asked = write(
    join(tmp, 'requests.mts'),
    (realCases(), requests).map(([m, r]) => [`Exclude<Parameters<Flopcast['${m}']>[0], string>`, `${m}() request`, r]),
  );
  assert.ok(requests.length >= 30);

  const { program, of } = compile([table, asked]);
  const d = of(table);
  assert.equal(d.count, 0, `request fields missing from, or typed wrong in, the request types:\n${d.text}`);
  const q = of(asked);
  assert.equal(q.count, 0, `the request types refuse requests the core takes (see ${asked.file}):\n${q.text}`);

  // Each field's help is its TSDoc, in every request type that holds it.
  const checker = program.getTypeChecker();
  const aliases = new Map(
    program
      .getSourceFile(file)
      .statements.filter(ts.isTypeAliasDeclaration)
      .map((s) => [s.name.text.slice(2), checker.getTypeAtLocation(s.name)]),
  );
  const missing = [];
  for (const f of fields)
    for (const c of f.commands) {
      let symbol = checker.getPropertyOfType(aliases.get(c), f.part || f.key);
      if (symbol && f.part)
        symbol = checker.getPropertyOfType(checker.getNonNullableType(checker.getTypeOfSymbol(symbol)), f.key);
      const text = symbol ? ts.displayPartsToString(symbol.getDocumentationComment(checker)) : '';
      if (!text.replace(/\s+/g, ' ').includes(f.help)) missing.push(`${c}() ${f.pointer}: ${JSON.stringify(text)}`);
    }
  assert.deepEqual(missing, [], 'request fields without their help as TSDoc');
});
