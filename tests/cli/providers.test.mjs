// `flopcast providers` and estimates named by a hosted provider's model id (data/providers/),
// through the real CLI, offline: proxies unset and the Hub pointed at a dead local port, so any
// network use would fail. The comparison's arithmetic is redone here from the GPU's $/h and the
// throughput the JSON itself reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const env = { ...process.env, HF_ENDPOINT: 'http://127.0.0.1:9', FLOPCAST_HUB_TIMEOUT_MS: '200' };
for (const k of ['http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'all_proxy', 'HF_TOKEN'])
  delete env[k];

const run = (...args) => spawnSync(bin, args, { encoding: 'utf8', env });
const ok = (...args) => {
  const r = run(...args);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};
const groq = JSON.parse(readFileSync(join(root, 'data/providers/groq.json'), 'utf8'));
const groqLlama = groq.entries.find((e) => e.id === 'llama-3.3-70b-versatile');

test('estimate by a GroqCloud id answers offline with the published figures beside the estimate', () => {
  const j = JSON.parse(ok('estimate', 'llama-3.3-70b-versatile', '-g', 'H100', '--json'));
  assert.equal(j.model, 'meta-llama/Llama-3.3-70B-Instruct');
  assert.equal(j.provider.provider, 'groq');
  assert.equal(j.provider.id, 'llama-3.3-70b-versatile');
  assert.equal(j.provider.label, 'PUBLISHED');
  assert.equal(j.provider.input_usd_per_million, groqLlama.input_usd_per_million);
  assert.equal(j.provider.output_usd_per_million, groqLlama.output_usd_per_million);
  assert.equal(j.provider.output_tokens_per_second, groqLlama.output_tokens_per_second);
  assert.equal(j.provider.date, groqLlama.seen);
  assert.equal(j.provider.source, groqLlama.sources.price);
  // The estimate beside it is the registry model's, unchanged: the same JSON less "provider".
  const plain = JSON.parse(ok('estimate', 'llama-3.3-70b', '-g', 'H100', '--json'));
  delete j.provider;
  assert.deepEqual(j, plain);
  assert.equal(plain.provider, undefined);
  // An org/name provider id (Together's) is no Hub fetch: it answers with the dead Hub.
  const t = JSON.parse(ok('estimate', 'meta-llama/Llama-3.3-70B-Instruct-Turbo', '--json'));
  assert.equal(t.provider.provider, 'together');
  assert.equal(t.provider.input_usd_per_million, null);
  // Text shows the figures too.
  const text = ok('estimate', 'groq:llama-3.3-70b-versatile', '-g', 'H100');
  assert.match(text, /Provider \(GroqCloud, PUBLISHED, seen 2026-12-01/);
  assert.match(text, /input \$0\.59, output \$0\.79/);
});

test('a registry name that is also a provider id stays an ordinary estimate; provider:id is explicit', () => {
  assert.equal(JSON.parse(ok('estimate', 'gpt-oss-120b', '--json')).provider, undefined);
  assert.equal(JSON.parse(ok('estimate', 'cerebras:gpt-oss-120b', '--json')).provider.provider, 'cerebras');
});

test('providers lists all entries, or those serving a model by registry name, alias or provider id', () => {
  const all = JSON.parse(ok('providers', '--json')).providers;
  let files = 0;
  for (const f of [
    'groq',
    'together',
    'fireworks',
    'deepinfra',
    'cerebras',
    'sambanova',
    'openrouter',
    'bedrock',
    'vertex',
  ])
    files += JSON.parse(readFileSync(join(root, `data/providers/${f}.json`), 'utf8')).entries.length;
  assert.equal(all.length, files);
  const llama = JSON.parse(ok('providers', '--model', 'llama-3.3-70b', '--json')).providers;
  assert.ok(llama.length >= 8);
  assert.ok(llama.every((e) => e.model === 'meta-llama/Llama-3.3-70B-Instruct'));
  assert.deepEqual(JSON.parse(ok('providers', '--model', 'llama-3.3-70b-versatile', '--json')).providers, llama);
  const csv = ok('providers', '--model', 'gpt-oss-20b', '--csv').trim().split('\n');
  assert.equal(
    csv[0],
    'provider,id,model,precision,context_length,output_tokens_per_second,input_usd_per_million,output_usd_per_million,date,source',
  );
  assert.ok(csv.slice(1).some((l) => l.startsWith('groq,openai/gpt-oss-20b,openai/gpt-oss-20b,')));
  assert.match(ok('providers', '--model', 'llama-3.3-70b'), /groq\s+llama-3\.3-70b-versatile/);
});

test('providers --model with an unknown model exits 2 with suggestions', () => {
  const r = run('providers', '--model', 'llama-3.3-70b-instrct');
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.match(
    r.stderr,
    /flopcast: error: \[flopcast\.unknown_model\].*unknown model "llama-3\.3-70b-instrct".*did you mean/,
  );
  for (const [flag, value, what] of [
    ['--utilization', '0', /utilization/],
    ['--utilization', '1.5', /utilization/],
    ['--prompt-tokens', '0', /prompt_tokens/],
    ['--cost-per-hour', '-1', /cost_per_hour_usd/],
    ['-g', 'H1000', /unknown GPU/],
  ]) {
    const u = run('providers', '--model', 'llama-3.3-70b', '--compare', flag, value);
    assert.equal(u.status, 2, `${flag} ${value}: ${u.stderr}`);
    assert.equal(u.stdout, '');
    assert.match(u.stderr, what);
  }
});

test('compare: self-hosted $/1M tokens from the GPU $/h and the serving throughput, beside each price', () => {
  const j = JSON.parse(
    ok('providers', '--model', 'llama-3.3-70b', '--compare', '-g', 'H100', '--utilization', '0.5', '--json'),
  );
  const gpus = JSON.parse(ok('list-gpus', '--json'));
  const h100 = (Array.isArray(gpus) ? gpus : gpus.gpus).find((g) => g.name === j.gpu);
  assert.equal(j.gpu_cost_per_hour_usd, h100.cost_per_hour_usd);
  assert.equal(j.utilization, 0.5);
  assert.ok(j.fits && j.gpus >= 1);
  // Paid every hour, busy half of them: $/s = $/h x GPUs / 3600; $/1M = $/s / (0.5 x tok/s) x 1e6.
  const usdPerS = (j.gpu_cost_per_hour_usd * j.gpus) / 3600;
  const close = (a, b) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.abs(b), `${a} vs ${b}`);
  close(j.self_hosted.usd_per_million_output_tokens, (usdPerS / (0.5 * j.output_tokens_per_second)) * 1e6);
  close(j.self_hosted.usd_per_request, usdPerS / (0.5 * j.requests_per_second));
  // GroqCloud: 512 x 0.59 + 256 x 0.79 per 1M tokens = 302.08 + 202.24 = 504.32 per 1M = $0.00050432.
  const g = j.providers.find((p) => p.provider === 'groq');
  close(g.usd_per_request, 0.00050432);
  close(g.self_hosted_to_api_cost, j.self_hosted.usd_per_request / 0.00050432);
  // An unpriced entry has no comparison.
  const v = j.providers.find((p) => p.provider === 'vertex');
  assert.equal(v.usd_per_request, null);
  // Text shows the table.
  assert.match(ok('providers', '--model', 'llama-3.3-70b', '--compare', '-g', 'H100'), /self-hosted\s+H100-SXM x\d/);
});
