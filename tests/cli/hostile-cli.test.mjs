// Hostile command lines and files through the real CLI (issue 26, item 6): empty and non-JSON
// numbers, options outside the request table, CLI11's own parse errors, validate --metric, the
// Hub fetch (a local server on 127.0.0.1), control characters in text output and the
// calibration store's links, permissions and umask.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hubServer } from './hub-server.mjs';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = fs.mkdtempSync(join(tmpdir(), 'flopcast-hostile-'));
fs.chmodSync(tmp, 0o755);
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const llama = JSON.parse(fs.readFileSync(join(root, 'data/models/llama-3-8b.json'), 'utf8'));

function env(extra = {}) {
  const base = { ...process.env };
  for (const k of ['HF_TOKEN', 'HF_HUB_OFFLINE', 'HF_ENDPOINT', 'HF_HOME', 'FLOPCAST_HUB_TIMEOUT_MS']) delete base[k];
  return { ...base, HOME: tmp, FLOPCAST_CALIBRATION_FILE: join(tmp, 'none.json'), ...extra };
}
const run = (args, extra = {}, opts = {}) =>
  spawnSync(opts.wrap ? opts.wrap[0] : bin, opts.wrap ? [...opts.wrap.slice(1), bin, ...args] : args, {
    encoding: 'utf8',
    env: env(extra),
    cwd: opts.cwd ?? tmp,
    maxBuffer: 1 << 26,
  });
// A refusal: exit 2, nothing on stdout, one coded line; returns [code, where, message].
function refused(args, extra = {}, opts = {}) {
  const r = run(args, extra, opts);
  assert.equal(r.status, 2, `${args.join(' ')}: exit code (${r.stderr}${r.stdout.slice(0, 200)})`);
  assert.equal(r.stdout, '', args.join(' '));
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `${args.join(' ')}: one line, got ${r.stderr}`);
  const m = /^flopcast: error: \[flopcast\.([\w.]+)\] (?:\(([^)]*)\) )?(.*)$/.exec(lines[0]);
  assert.ok(m, `${args.join(' ')}: the error's shape: ${lines[0]}`);
  return [m[1], m[2] ?? '', m[3]];
}
const ok = (args, extra = {}, opts = {}) => {
  const r = run(args, extra, opts);
  assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  return r;
};
// The core's answer to a JSON request, through a request file the CLI cannot have typed (the
// same readers as WASM): `flopcast estimate` has no request-file mode, so the JSON path's message
// is the core's, which bad_inputs.json pins for "abc"; here the CLI's message must have its shape.
const typeMessage = (expected, got) => `expected ${expected}, but got string ${JSON.stringify(got)}`;

// ---- a. empty values --------------------------------------------------------------------------

test('an empty value is refused as JSON refuses "" (never the default)', () => {
  // JSON {"batch_size": ""}: config.type at /batch_size, "expected a positive integer (at most 2^40), but got string """.
  assert.deepEqual(refused(['estimate', 'llama-3-8b', '-b', '']), [
    'config.type',
    '--batch, /batch_size',
    typeMessage('a positive integer (at most 2^40)', ''),
  ]);
  // A list item left empty is refused too ("1,,8").
  assert.equal(refused(['compare', 'llama-3-8b', '-b', '1,,8'])[0], 'config.type');
  // A precision, a GPU: the core's own refusal of "".
  assert.equal(refused(['estimate', 'llama-3-8b', '-p', ''])[1], '--precision, /precision');
  assert.match(refused(['estimate', 'llama-3-8b', '-g', ''])[1], /\/gpu$/);
  // File paths: --calibration '' was the default store, --gpu-file '' and --revision '' ignored.
  const store = join(tmp, 'default-store.json');
  const [code, where, message] = refused(
    ['calibrate', 'llama-3-8b', '-g', 'A100', '--decode-tps', '20', '--calibration', ''],
    { FLOPCAST_CALIBRATION_FILE: store },
  );
  assert.deepEqual([code, where], ['invalid_argument', '--calibration']);
  assert.match(message, /but got ""$/);
  assert.ok(!fs.existsSync(store), 'nothing written to the default store');
  assert.equal(refused(['estimate', 'llama-3-8b', '--calibration', ''])[1], '--calibration');
  assert.equal(refused(['estimate', 'llama-3-8b', '--gpu-file', ''])[1], '--gpu-file');
  assert.equal(refused(['estimate', 'llama-3-8b', '--revision', ''])[1], '--revision');
  // Not given at all: the default, as before.
  assert.equal(JSON.parse(ok(['estimate', 'llama-3-8b', '--json']).stdout).batch_size, 1);
});

// ---- b. JSON number syntax ------------------------------------------------------------------------

test('a CLI number is JSON number syntax: C forms are refused as JSON refuses the string', () => {
  for (const text of ['0x10', '0x1p3', ' 8', '8 ', '+8', '08', '.5', '1.', 'inf', 'nan', '1e', '0b1'])
    assert.deepEqual(
      refused(['estimate', 'llama-3-8b', '-b', text]),
      ['config.type', '--batch, /batch_size', typeMessage('a positive integer (at most 2^40)', text)],
      text,
    );
  // JSON numbers are numbers: 16, 1.6e1 (an integral float) and 16.0 all give batch 16.
  for (const text of ['16', '1.6e1', '16.0', '160E-1'])
    assert.equal(JSON.parse(ok(['estimate', 'llama-3-8b', '-b', text, '--json']).stdout).batch_size, 16, text);
  // Counts with a suffix (list-models --min-params 7B) keep the suffix; the number before it is JSON's.
  ok(['list-models', '--min-params', '7B']);
  assert.equal(refused(['list-models', '--min-params', '0x7B'])[1], '--min-params');
});

// ---- c. providers --compare and profile --dim/--depth: the core's checks ----------------------------

test('providers --compare refuses as the price comparison request (WASM priceComparison) does', () => {
  // The core's reader (price_comparison.cpp): utilization in [1e-6, 1], tokens positive integers.
  const [code, where, message] = refused(['providers', '--compare', '-m', 'llama-3-8b', '--utilization', '2']);
  assert.equal(code, 'config.range');
  assert.equal(where, '--utilization, /utilization');
  assert.match(message, /^expected .*, but got 2$/);
  const hex = refused(['providers', '--compare', '-m', 'llama-3-8b', '--prompt-tokens', '0x10']);
  assert.deepEqual(hex.slice(0, 2), ['config.type', '--prompt-tokens, /prompt_tokens']);
  assert.match(hex[2], /but got string "0x10"$/);
  assert.equal(refused(['providers', '--compare', '-m', 'llama-3-8b', '--tp', ''])[0], 'config.type');
  // No --model: the reader's own config_missing at /model.
  assert.deepEqual(refused(['providers', '--compare']).slice(0, 2), ['config.missing', '--model, /model']);
  // The defaults are the request's: the same document as the C++ defaults gave.
  const j = JSON.parse(ok(['providers', '--compare', '-m', 'llama-3-8b', '--json']).stdout);
  assert.match(j.gpu, /^H100/);
  assert.equal(j.prompt_tokens, 512);
  assert.equal(j.utilization, 0.5);
});

test('profile --dim and --depth refuse as the profile options (WASM profile) do', () => {
  const graph = join(tmp, 'graph.json');
  fs.writeFileSync(
    graph,
    JSON.stringify({
      inputs: [{ name: 'x', elem_type: 1, dims: ['batch', 4] }],
      outputs: [{ name: 'y', elem_type: 1 }],
      nodes: [{ name: 'relu', op_type: 'Relu', inputs: ['x'], outputs: ['y'] }],
    }),
  );
  // profile_json.cpp read_options_json: depth an integer in [1, 64], dims positive up to 2^40.
  const depth = refused(['profile', graph, '--depth', '65']);
  assert.deepEqual(depth.slice(0, 2), ['config.range', '--depth, /depth']);
  const hexDepth = refused(['profile', graph, '--depth', '0x2']);
  assert.deepEqual(hexDepth.slice(0, 2), ['config.type', '--depth, /depth']);
  const dim = refused(['profile', graph, '--dim', 'batch=0']);
  assert.deepEqual(dim.slice(0, 2), ['config.range', '--dim, /dims/batch']);
  assert.equal(refused(['profile', graph, '--dim', 'batch=0x8'])[0], 'config.type');
  assert.equal(refused(['profile', graph, '--dim', 'batch'])[1], '--dim');
  assert.equal(refused(['profile', graph, '--dim', ''])[1], '--dim');
  // A valid one runs: batch 8 x 4 elements of Relu.
  const r = JSON.parse(ok(['profile', graph, '--dim', 'batch=8', '--depth', '2', '--json']).stdout);
  assert.equal(r.nodes.length, 1);
});

// ---- d. CLI11's parse errors --------------------------------------------------------------------

test("CLI11's parse errors carry a code, exit 2, one line", () => {
  const cases = [
    ['estimate', 'llama-3-8b', '--no-such-option'], // unknown option
    ['estimate', 'llama-3-8b', '-b'], // a missing value
    ['estimate', 'llama-3-8b', 'extra'], // an extra positional
    ['estimate', 'llama-3-8b', '--json', '--csv'], // excluded options
    ['estimate'], // a required argument missing
    ['estimate', 'llama-3-8b', '-b', '1', '-b', '2'], // an option given twice
    [], // no command
    ['providers', '--json', '--csv'],
  ];
  for (const args of cases) {
    const r = run(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^flopcast: error: \[flopcast\.invalid_argument\] /, args.join(' '));
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, args.join(' '));
  }
});

// ---- e. validate --metric -----------------------------------------------------------------------

test('validate --metric with an unknown metric is refused, naming the known ones', () => {
  const [code, where, message] = refused(['validate', '--metric', 'bogus']);
  assert.deepEqual([code, where], ['invalid_argument', '--metric']);
  assert.match(message, /^unknown metric "bogus": expected one of .*ttft_s/);
});

// ---- f. the Hub fetch ---------------------------------------------------------------------------

const config = JSON.stringify(llama.config);
let requests = [];
const routes = {
  '/acme/array/resolve/main/config.json': (req, res) => res.end('[1, 2, 3]'),
  '/acme/fixed/resolve/main/config.json': (req, res) => res.end(config),
  // The config comes after a while; the optional index drips forever.
  '/acme/drip/resolve/main/config.json': (req, res) => {
    const t = setTimeout(() => res.end(config), 5000);
    res.on('close', () => clearTimeout(t));
  },
  '/acme/drip/resolve/main/model.safetensors.index.json': (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{');
    const t = setInterval(() => res.write(' '), 200);
    res.on('close', () => clearInterval(t));
  },
  '/acme/drip/resolve/dot/config.json': (req, res) => res.end(config),
};
const server = hubServer(routes, (req) => requests.push(req.url));
function hub(args, extra = {}) {
  return new Promise((done) => {
    const start = Date.now();
    execFile(
      bin,
      args,
      { env: env({ HF_ENDPOINT: server.endpoint, ...extra }), cwd: tmp, encoding: 'utf8' },
      (err, out, e) => done({ code: err ? err.code : 0, out, err: e, ms: Date.now() - start }),
    );
  });
}

test('a Hub config that is JSON but not an object is refused and never cached', async () => {
  const home = fs.mkdtempSync(join(tmp, 'hf-'));
  for (let i = 0; i < 2; i++) {
    requests = [];
    const r = await hub(['estimate', 'acme/array', '--json'], { HF_HOME: home });
    assert.equal(r.code, 2, r.err);
    assert.match(
      r.err,
      /\[flopcast\.config\.type\] \(MODEL, \/model\) expected config\.json to be a JSON object, but got array/,
    );
    assert.deepEqual(requests, ['/acme/array/resolve/main/config.json'], 'asked again: nothing was cached');
  }
  assert.ok(!fs.existsSync(join(home, 'flopcast/acme--array/main/config.json')));
});

test('one deadline for the whole fetch: a dripping optional index is cut at it', async () => {
  // FLOPCAST_HUB_TIMEOUT_MS 8000: the config takes 5 s, the index never ends. One deadline:
  // done by about 8 s. Per request (before): 5 s + 8 s = 13 s at least.
  const home = fs.mkdtempSync(join(tmp, 'hf-'));
  const r = await hub(['estimate', 'acme/drip', '--json'], { HF_HOME: home, FLOPCAST_HUB_TIMEOUT_MS: '8000' });
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).parameters, 8030261248);
  console.log(`estimate with a dripping index: ${r.ms} ms (deadline 8000 ms, config after 5000 ms)`);
  assert.ok(r.ms < 11500, `${r.ms} ms`);
  // With under 1 s of the deadline left after the config, the index is not asked for at all.
  requests = [];
  const home2 = fs.mkdtempSync(join(tmp, 'hf-'));
  const r2 = await hub(['estimate', 'acme/drip', '--json'], { HF_HOME: home2, FLOPCAST_HUB_TIMEOUT_MS: '5600' });
  assert.equal(r2.code, 0, r2.err);
  assert.deepEqual(requests, ['/acme/drip/resolve/main/config.json']);
});

test('--revision refuses path-like revisions and caches a valid one in its own folder', async () => {
  const home = fs.mkdtempSync(join(tmp, 'hf-'));
  for (const rev of ['.', '..', './x', 'a/./b', 'a/..', 'a/.hidden', '/main', 'a//b', 'a\u001bb', 'a\nb']) {
    requests = [];
    const r = await hub(['estimate', 'acme/fixed', '--revision', rev], { HF_HOME: home });
    assert.equal(r.code, 2, `${JSON.stringify(rev)}: ${r.err}`);
    assert.match(r.err, /^flopcast: error: \[flopcast\.invalid_argument\] \(--revision\) expected a branch/);
    assert.deepEqual(requests, [], JSON.stringify(rev));
  }
  assert.deepEqual(fs.readdirSync(home), [], 'nothing written');
  // refs/pr/1 is one folder, percent-encoded (the existing hub tests fetch it).
  routes['/acme/fixed/resolve/refs%2Fpr%2F1/config.json'] = (req, res) => res.end(config);
  const ok1 = await hub(['estimate', 'acme/fixed', '--revision', 'refs/pr/1', '--json'], { HF_HOME: home });
  assert.equal(ok1.code, 0, ok1.err);
  assert.ok(fs.existsSync(join(home, 'flopcast/acme--fixed/refs%2Fpr%2F1/config.json')));
});

// ---- g. control characters in text output -------------------------------------------------------

test('control characters from a file are escaped in text output, and JSON stays valid', () => {
  const dir = join(tmp, 'evil');
  fs.mkdirSync(dir, { recursive: true });
  const path = join(dir, 'config.json');
  // An unknown model_type holding ESC [2J (clear screen), BEL, DEL and the 8-bit CSI U+009B.
  const evil = 'x\u001b[2J\u0007\u007f\u009b31m';
  fs.writeFileSync(path, JSON.stringify({ ...llama.config, model_type: evil }));
  const r = run(['estimate', path]);
  const all = r.stdout + r.stderr;
  assert.doesNotMatch(all, /[\u0000-\u0008\u000b-\u001f\u007f\u0080-\u009f]/, 'no raw control character');
  assert.match(all, /x\\x1b\[2J\\x07\\x7f\\x9b31m/);
  // A GGUF-free check of stdout: a text estimate whose label (the folder) carries ESC.
  const dir2 = join(tmp, 'name\u001b]0;pwned\u0007\u007f\u009b');
  fs.mkdirSync(dir2, { recursive: true });
  fs.writeFileSync(join(dir2, 'config.json'), JSON.stringify(llama.config));
  const t = ok(['estimate', join(dir2, 'config.json')]);
  assert.doesNotMatch(t.stdout, /[\u0000-\u0008\u000b-\u001f\u007f]/);
  assert.match(t.stdout, /name\\x1b\]0;pwned\\x07\\x7f\\x9b/);
  const j = ok(['estimate', join(dir2, 'config.json'), '--json']);
  // JSON keeps the text, every control character escaped as JSON (\u007f, \u009b: valid escapes).
  assert.doesNotMatch(j.stdout, /[\u0000-\u0009\u000b-\u001f\u007f\u0080-\u009f]/);
  assert.ok(JSON.parse(j.stdout).model.includes('\u001b]0;pwned\u0007\u007f\u009b'));
});

// ---- h. the calibration store -------------------------------------------------------------------

const calibrate = (store, extra = {}, opts = {}) =>
  run(['calibrate', 'llama-3-8b', '-g', 'A100', '--decode-tps', '20', '--calibration', store], extra, opts);
const asNobody = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : null;

test('a symbolic link loop as the store is refused, and stays a link', () => {
  const dir = fs.mkdtempSync(join(tmp, 'loop-'));
  const a = join(dir, 'a.json');
  fs.symlinkSync('b.json', a);
  fs.symlinkSync('a.json', join(dir, 'b.json'));
  const r = calibrate(a);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /\[flopcast\.io\] \(--calibration\) .*(symbolic link|Too many levels of symbolic links)/);
  assert.ok(fs.lstatSync(a).isSymbolicLink(), 'still a link');
  assert.equal(refused(['estimate', 'llama-3-8b', '--calibration', a])[0], 'io');
});

test('a read-only store is never replaced or removed', () => {
  const dir = fs.mkdtempSync(join(tmp, 'ro-'));
  const store = join(dir, 'calibration.json');
  assert.equal(calibrate(store).status, 0);
  const before = fs.readFileSync(store, 'utf8');
  fs.chmodSync(store, 0o444);
  const r = calibrate(store, {}, {});
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /\[flopcast\.io\] \(--calibration\) the calibration store ".*" is read-only/);
  assert.equal(fs.readFileSync(store, 'utf8'), before);
  assert.equal(fs.statSync(store).mode & 0o777, 0o444);
  assert.equal(run(['calibrate', '--calibration', store, 'reset']).status, 2);
  assert.ok(fs.existsSync(store));
  // Readable as ever: an estimate applies it.
  ok(['estimate', 'llama-3-8b', '-g', 'A100', '--calibration', store]);
});

test('a new store has the permissions the umask gives', () => {
  for (const [mask, mode] of [
    ['077', 0o600],
    ['022', 0o644],
    ['002', 0o664],
  ]) {
    const dir = fs.mkdtempSync(join(tmp, 'umask-'));
    const store = join(dir, 'calibration.json');
    const r = spawnSync(
      'sh',
      [
        '-c',
        `umask ${mask}; exec "$@"`,
        'sh',
        bin,
        'calibrate',
        'llama-3-8b',
        '-g',
        'A100',
        '--decode-tps',
        '20',
        '--calibration',
        store,
      ],
      { encoding: 'utf8', env: env() },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(fs.statSync(store).mode & 0o777, mode, `umask ${mask}`);
  }
});

test(
  'a HOME that cannot be written is reported as such, not as a missing lock file',
  { skip: !asNobody && process.getuid?.() === 0 && 'no setpriv' },
  () => {
    const home = fs.mkdtempSync(join(tmp, 'rohome-'));
    fs.chmodSync(home, 0o555);
    const r = run(
      ['calibrate', 'llama-3-8b', '-g', 'A100', '--decode-tps', '20'],
      {
        HOME: home,
        FLOPCAST_CALIBRATION_FILE: '',
        XDG_CONFIG_HOME: '',
      },
      { wrap: asNobody, cwd: '/' },
    );
    fs.chmodSync(home, 0o755);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /\[flopcast\.io\] \(--calibration\) cannot create the folder ".*\.config\/flopcast": Permission denied/,
    );
    assert.doesNotMatch(r.stderr, /lock/);
  },
);
