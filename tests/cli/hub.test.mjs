// The Hugging Face Hub fetch of the native CLI (core/cli/inputs/hub.cpp) against a local server on
// 127.0.0.1 with the Hub's path layout: <org>/<name>/resolve/<revision>/<file>. The real binary
// runs asynchronously (the server lives in this process), each test with its own HF_HOME.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hubServer } from './hub-server.mjs';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-hub-'));
const llama = JSON.parse(readFileSync(join(root, 'data/models/llama-3-8b.json'), 'utf8'));
const config = JSON.stringify(llama.config);
const halved = JSON.stringify({ ...llama.config, num_hidden_layers: 16 });
const token = 'hf_test_secret';

let requests = []; // { url, authorization, agent } of every request since the test began
const routes = {
  '/acme/llama-copy/resolve/main/config.json': (req, res) => res.end(config),
  '/acme/llama-copy/resolve/v2/config.json': (req, res) => res.end(halved),
  '/acme/llama-copy/resolve/refs%2Fpr%2F1/config.json': (req, res) => res.end(halved),
  '/acme/sharded/resolve/main/config.json': (req, res) => res.end(config),
  '/acme/sharded/resolve/main/model.safetensors.index.json': (req, res) =>
    res.end(JSON.stringify({ metadata: { total_size: 16060522496 }, weight_map: {} })),
  '/acme/private/resolve/main/config.json': (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'X-Error-Code': 'RepoNotFound' });
      return res.end('{"error":"Repository not found"}');
    }
    res.end(config);
  },
  '/acme/gated/resolve/main/config.json': (req, res) => {
    res.writeHead(403, { 'X-Error-Code': 'GatedRepo' });
    res.end('{"error":"Access to model acme/gated is restricted."}');
  },
  '/acme/slow/resolve/main/config.json': (req, res) => {
    const t = setTimeout(() => res.end(config), 5000);
    res.on('close', () => clearTimeout(t));
  },
  '/acme/huge/resolve/main/config.json': (req, res) => {
    // Chunked, no length: the client must stop reading past 16 MiB.
    const chunk = Buffer.alloc(1 << 20, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < 20 && res.write(chunk)) sent++;
      if (sent >= 20) res.end();
      else res.once('drain', pump);
    };
    res.on('error', () => {});
    pump();
  },
  '/acme/huge-length/resolve/main/config.json': (req, res) => {
    res.writeHead(200, { 'Content-Length': String(17 << 20) });
    res.on('error', () => {});
    res.write('{');
  },
  '/acme/bad-config/resolve/main/config.json': (req, res) =>
    res.end(JSON.stringify({ ...llama.config, hidden_size: -1 })),
  '/acme/broken/resolve/main/config.json': (req, res) => res.end('{"hidden_size": 4096,'),
  '/acme/moved/resolve/main/config.json': (req, res) => {
    res.writeHead(302, { Location: '/cdn/blobs/llama-config' });
    res.end();
  },
  '/cdn/blobs/llama-config': (req, res) => res.end(config),
  '/acme/ftp/resolve/main/config.json': (req, res) => {
    res.writeHead(302, { Location: 'ftp://127.0.0.1/config.json' });
    res.end();
  },
};
const hub = hubServer(routes, (req) =>
  requests.push({ url: req.url, authorization: req.headers.authorization, agent: req.headers['user-agent'] }),
);
beforeEach(() => {
  requests = [];
});

let homes = 0;
const freshHome = () => mkdtempSync(join(tmp, `home-${homes++}-`));

function flopcast(args, env = {}) {
  const base = { ...process.env };
  for (const k of ['HF_TOKEN', 'HF_HUB_OFFLINE', 'HF_ENDPOINT', 'HF_HOME', 'FLOPCAST_HUB_TIMEOUT_MS']) delete base[k];
  const full = {
    ...base,
    FLOPCAST_CALIBRATION_FILE: join(tmp, 'calibration.json'),
    HF_ENDPOINT: hub.endpoint,
    HF_HOME: env.HF_HOME ?? freshHome(),
    ...env,
  };
  return new Promise((ok) => {
    execFile(bin, args, { env: full, cwd: tmp, encoding: 'utf8', maxBuffer: 1 << 24 }, (err, out, stderr) =>
      ok({ code: err ? err.code : 0, out, err: stderr }),
    );
  });
}
async function estimate(model, extra = [], env = {}) {
  const r = await flopcast(['estimate', model, '--json', ...extra], env);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, '');
  return JSON.parse(r.out);
}
// A failure: exit 2, nothing on stdout, exactly one line on stderr matching `pattern`.
async function fails(args, pattern, env = {}) {
  const r = await flopcast(args, env);
  assert.equal(r.code, 2, `exit code for ${args.join(' ')}: ${r.err}`);
  assert.equal(r.out, '');
  const lines = r.err.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${r.err}`);
  assert.match(lines[0], /^flopcast: error: \[flopcast\.[\w.]+\] \(MODEL, \/model\) /);
  assert.match(lines[0], pattern);
  return lines[0];
}
// The estimate without the model's name, to compare a fetched config with the bundled record.
const unnamed = (result, name) => JSON.parse(JSON.stringify(result).replaceAll(JSON.stringify(name), '""'));

test('a config fetched from the Hub estimates like the bundled record with the same config', async () => {
  const bundled = await estimate('llama-3-8b');
  const fetched = await estimate('acme/llama-copy');
  assert.equal(fetched.model, 'acme/llama-copy');
  assert.equal(fetched.parameters, 8030261248);
  assert.deepEqual(unnamed(fetched, 'acme/llama-copy'), unnamed(bundled, llama.id));
  assert.deepEqual(
    requests.map((r) => r.url),
    ['/acme/llama-copy/resolve/main/config.json', '/acme/llama-copy/resolve/main/model.safetensors.index.json'],
  );
  assert.match(requests[0].agent, /^flopcast\/\d/);
  assert.equal(requests[0].authorization, undefined);
});

test('a registry id never goes to the Hub', async () => {
  const r = await estimate(llama.id);
  assert.equal(r.parameters, 8030261248);
  assert.equal(requests.length, 0);
});

test('--revision is the revision in the path, percent-encoded', async () => {
  const v2 = await estimate('acme/llama-copy', ['--revision', 'v2']);
  assert.ok(v2.parameters < 8030261248 * 0.6, String(v2.parameters));
  assert.equal(requests[0].url, '/acme/llama-copy/resolve/v2/config.json');
  const pr = await estimate('acme/llama-copy', ['--revision', 'refs/pr/1']);
  assert.equal(pr.parameters, v2.parameters);
  assert.equal(requests[2].url, '/acme/llama-copy/resolve/refs%2Fpr%2F1/config.json');
  await fails(['estimate', 'acme/llama-copy', '--revision', 'nope'], /HTTP 404: no such file in the repository$/);
});

test('the token is sent as a bearer header', async () => {
  const r = await estimate('acme/private', [], { HF_TOKEN: token });
  assert.equal(r.parameters, 8030261248);
  assert.equal(requests[0].authorization, `Bearer ${token}`);
});

test('401 and 403 say gated or private and how to set the token', async () => {
  const hint = 'gated or private repository: accept its license on the Hub and set HF_TOKEN=<token>';
  const m401 = await fails(['estimate', 'acme/private'], /HTTP 401: no such repository, or a gated or private/);
  assert.ok(m401.endsWith(hint), m401);
  const m403 = await fails(['estimate', 'acme/gated'], /resolve\/main\/config\.json: HTTP 403: gated or private/);
  assert.ok(m403.endsWith(hint), m403);
  await fails(['estimate', 'acme/private'], /set HF_TOKEN=<token> \(the HF_TOKEN set was refused\)$/, {
    HF_TOKEN: 'wrong',
  });
  assert.equal(requests.at(-1).authorization, 'Bearer wrong');
});

test('404 is no such repository, revision or file', async () => {
  routes['/acme/none/resolve/main/config.json'] = (req, res) => {
    res.writeHead(404);
    res.end();
  };
  await fails(['estimate', 'acme/none'], /\[flopcast\.io\] .*HTTP 404: no such repository, revision or file$/);
  delete routes['/acme/none/resolve/main/config.json'];
});

test('a slow server times out', async () => {
  const start = Date.now();
  await fails(
    ['estimate', 'acme/slow'],
    /\[flopcast\.io\] .*config\.json: timed out \(300 ms to connect, 300 ms in all;/,
    {
      FLOPCAST_HUB_TIMEOUT_MS: '300',
    },
  );
  assert.ok(Date.now() - start < 4000);
  await fails(['estimate', 'acme/slow'], /FLOPCAST_HUB_TIMEOUT_MS="soon": expected milliseconds/, {
    FLOPCAST_HUB_TIMEOUT_MS: 'soon',
  });
});

test('a refused connection names the endpoint', async () => {
  const closed = createServer();
  await new Promise((ok) => closed.listen(0, '127.0.0.1', ok));
  const port = closed.address().port;
  await new Promise((ok) => closed.close(ok));
  await fails(['estimate', 'acme/llama-copy'], new RegExp(`cannot connect to http://127\\.0\\.0\\.1:${port} \\(`), {
    HF_ENDPOINT: `http://127.0.0.1:${port}`,
  });
  await fails(['estimate', 'acme/llama-copy'], /HF_ENDPOINT="file:\/\/\/etc" is not an http\(s\) URL$/, {
    HF_ENDPOINT: 'file:///etc',
  });
});

test('offline: the cache only', async () => {
  const home = freshHome();
  await fails(
    ['estimate', 'acme/llama-copy'],
    /acme\/llama-copy at revision "main" is not in the cache and HF_HUB_OFFLINE=1 \(expected .*flopcast\/acme--llama-copy\/main\/config\.json;/,
    { HF_HOME: home, HF_HUB_OFFLINE: '1' },
  );
  assert.equal(requests.length, 0);
  const online = await estimate('acme/llama-copy', [], { HF_HOME: home });
  assert.equal(requests.length, 2);
  const cached = join(home, 'flopcast/acme--llama-copy/main');
  assert.deepEqual(JSON.parse(readFileSync(join(cached, 'config.json'), 'utf8')), llama.config);
  assert.ok(existsSync(join(cached, 'model.safetensors.index.json.absent')));
  const offline = await estimate('acme/llama-copy', [], { HF_HOME: home, HF_HUB_OFFLINE: 'true' });
  assert.deepEqual(offline, online);
  assert.equal(requests.length, 2);
  await fails(['estimate', 'acme/llama-copy', '--revision', 'v2'], /at revision "v2" is not in the cache/, {
    HF_HOME: home,
    HF_HUB_OFFLINE: '1',
  });
});

test('a second run is served from the cache with no request', async () => {
  const home = freshHome();
  const first = await estimate('acme/sharded', [], { HF_HOME: home });
  assert.equal(requests.length, 2);
  const cached = join(home, 'flopcast/acme--sharded/main');
  assert.equal(
    JSON.parse(readFileSync(join(cached, 'model.safetensors.index.json'), 'utf8')).metadata.total_size,
    16060522496,
  );
  const second = await estimate('acme/sharded', [], { HF_HOME: home });
  assert.deepEqual(second, first);
  assert.equal(requests.length, 2);
  // Another command and a compare read the same cache.
  const r = await flopcast(['compare', 'acme/sharded', 'llama-3-8b', '--json'], { HF_HOME: home });
  assert.equal(r.code, 0, r.err);
  assert.equal(requests.length, 2);
});

test('a body over 16 MiB stops the transfer', async () => {
  await fails(
    ['estimate', 'acme/huge'],
    /\[flopcast\.limit\] .*config\.json is larger than 16 MiB: expected a JSON file of at most 16 MiB$/,
  );
  await fails(['estimate', 'acme/huge-length'], /\[flopcast\.limit\] .*is larger than 16 MiB/);
});

test('invalid JSON is a parse error naming the URL, and is not cached', async () => {
  const home = freshHome();
  await fails(
    ['estimate', 'acme/broken'],
    /\[flopcast\.config\.parse\] .* in http:\/\/127\.0\.0\.1:\d+\/acme\/broken\/resolve\/main\/config\.json$/,
    {
      HF_HOME: home,
    },
  );
  assert.ok(!existsSync(join(home, 'flopcast/acme--broken/main/config.json')));
});

test('an invalid field of a fetched config names the repository', async () => {
  const r = await flopcast(['estimate', 'acme/bad-config']);
  assert.equal(r.code, 2);
  assert.match(
    r.err,
    /^flopcast: error: \[flopcast\.config\.\w+\] \(MODEL, \/model\/hidden_size\) .* in acme\/bad-config\n$/,
  );
});

test('train and throughput take --revision too', async () => {
  const home = freshHome();
  for (const cmd of [['train'], ['throughput'], ['estimate']]) {
    const r = await flopcast([...cmd, 'acme/llama-copy', '--revision', 'v2', '--json'], { HF_HOME: home });
    assert.equal(r.code, 0, r.err);
  }
  assert.equal(requests.filter((q) => q.url.includes('/resolve/v2/config.json')).length, 1);
});

test('redirects are followed on http(s) only', async () => {
  const r = await estimate('acme/moved');
  assert.equal(r.parameters, 8030261248);
  assert.deepEqual(
    requests.slice(0, 2).map((q) => q.url),
    ['/acme/moved/resolve/main/config.json', '/cdn/blobs/llama-config'],
  );
  await fails(['estimate', 'acme/ftp'], /redirected to a URL that is not http\(s\)/);
});

test('a bad repository id is refused before any request', async () => {
  for (const id of [
    'acme/bad..name',
    'acme/-name',
    'acme/na me',
    'ac--me/name',
    `acme/${'x'.repeat(97)}`,
    'acme/name.',
  ]) {
    await fails(
      ['estimate', id],
      /\[flopcast\.invalid_argument\] .*is neither a bundled model, a file nor a Hugging Face repository id: expected org\/name/,
    );
  }
  assert.equal(requests.length, 0);
  const r = await flopcast(['estimate', 'acme/llama-copy', '--revision', '../../etc']);
  assert.equal(r.code, 2);
  assert.match(
    r.err,
    /^flopcast: error: \[flopcast\.invalid_argument\] \(--revision\) expected a branch, tag or commit/,
  );
  assert.equal(requests.length, 0);
});
