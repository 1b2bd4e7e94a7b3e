// libcurl is loaded only when a command fetches (core/cli/inputs/curl_library.cpp): the CLI does not
// link it, a command that fetches nothing runs without it, and a fetch without it fails like
// any other error (exit 2, one line naming the code and the library) before any connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-curl-'));
const missing = join(tmp, 'no-such-dir/libcurl.so.4');

// Nothing listens on port 1: a fetch that got as far as connecting would say "cannot connect".
const endpoint = 'http://127.0.0.1:1';

function flopcast(args, env) {
  const full = { ...process.env, HF_ENDPOINT: endpoint, HF_HOME: mkdtempSync(join(tmp, 'home-')), ...env };
  delete full.HF_HUB_OFFLINE;
  return new Promise((ok) => {
    execFile(bin, args, { env: full, cwd: tmp, encoding: 'utf8' }, (err, out, stderr) =>
      ok({ code: err ? err.code : 0, out, err: stderr }),
    );
  });
}

test('the CLI does not link libcurl (nor the libraries it pulls in)', () => {
  const dynamic = execFileSync('readelf', ['-d', bin], { encoding: 'utf8' });
  const needed = [...dynamic.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
  assert.ok(needed.includes('libc.so.6'), `readelf lists the needed libraries: ${needed}`);
  for (const lib of needed) assert.doesNotMatch(lib, /curl|gnutls|ssl|krb5|ldap|ssh|nghttp|psl|idn/);
});

test('a command that fetches nothing runs without libcurl', async () => {
  const r = await flopcast(['estimate', 'llama-3-8b', '--json'], { FLOPCAST_LIBCURL: missing });
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).parameters, 8030261248); // Llama-3-8B's safetensors count
});

test('a fetch without libcurl fails with the io code and names the library, before connecting', async () => {
  const r = await flopcast(['estimate', 'acme/llama-copy', '--json'], { FLOPCAST_LIBCURL: missing });
  assert.equal(r.code, 2);
  assert.equal(r.out, '');
  const lines = r.err.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.err);
  assert.match(
    lines[0],
    /^flopcast: error: \[flopcast\.io\] \(MODEL, \/model\) cannot load .*no-such-dir\/libcurl\.so\.4/,
  );
  assert.match(lines[0], /needs libcurl/);
  assert.doesNotMatch(lines[0], /connect/);
});

test('with libcurl the same fetch gets as far as connecting', async () => {
  const r = await flopcast(['estimate', 'acme/llama-copy', '--json'], {});
  assert.equal(r.code, 2);
  assert.match(r.err, /\[flopcast\.io\] .*cannot connect to http:\/\/127\.0\.0\.1:1/);
});
