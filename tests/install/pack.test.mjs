// `npm pack` of build-wasm/wasm gives an npm package that a separate project installs offline
// and imports by name, in Node and in a worker_threads Worker, with the CLI's numbers.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const pkgDir = join(root, 'build-wasm/wasm');
const cli = join(root, 'build/flopcast');
const tsc = join(root, 'node_modules/.bin/tsc');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-pack-'));
const project = join(tmp, 'project');
after(() => rmSync(tmp, { recursive: true, force: true }));

// npm must not touch the user's cache or config, nor the network.
const npmEnv = {
  ...process.env,
  npm_config_cache: join(tmp, 'npm-cache'),
  npm_config_userconfig: join(tmp, 'npmrc'),
  npm_config_update_notifier: 'false',
};
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: npmEnv, ...opts });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const request = { model: 'llama-2-7b', batch_size: 2, sequence_length: 1024, precision: 'fp16', gpu: 'H100' };
const flags = ['estimate', 'llama-2-7b', '-b', '2', '-s', '1024', '-p', 'fp16', '-g', 'H100'];
const expected = () => JSON.parse(run(cli, [...flags, '--json', '--no-calibration'], { cwd: tmp }));

// What a user writes: import by name, read the exported .wasm, estimate.
const usage = `import { readFileSync } from 'node:fs';
import { createFlopcast, FlopcastError } from 'flopcast-wasm';

export async function estimate(request) {
  const wasm = new URL(import.meta.resolve('flopcast-wasm/flopcast_core.wasm'));
  const fc = await createFlopcast({ wasmBinary: readFileSync(wasm) });
  let error;
  try {
    fc.estimate({ ...request, model: 'llama-2-7x' });
  } catch (e) {
    error = { isFlopcastError: e instanceof FlopcastError, code: e.code };
  }
  return { version: fc.version(), result: fc.estimate(request), error };
}
`;
const mainScript = `import { estimate } from './usage.mjs';
process.stdout.write(JSON.stringify(await estimate(JSON.parse(process.argv[2]))));
`;
const workerScript = `import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

if (isMainThread) {
  const worker = new Worker(new URL(import.meta.url), { workerData: JSON.parse(process.argv[2]) });
  worker.on('message', (m) => {
    process.stdout.write(JSON.stringify(m));
    worker.terminate();
  });
  worker.on('error', (e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  const { estimate } = await import('./usage.mjs');
  parentPort.postMessage({ inWorker: !isMainThread, ...(await estimate(workerData)) });
}
`;
const typesCheck = `import { createFlopcast, FlopcastError, type EstimateRequest } from 'flopcast-wasm';
const request: EstimateRequest = { model: 'llama-2-7b', batch_size: 2 };
const fc = await createFlopcast({ wasmBinary: new Uint8Array(0) });
const parameters: number = fc.estimate(request).parameters;
export const out = [parameters, FlopcastError.name];
`;

let tarball;

test('npm pack makes a tarball of the module, glue, wrapper, types and README only', () => {
  const [info] = JSON.parse(
    run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], { cwd: pkgDir }),
  );
  const pkg = JSON.parse(readFileSync(join(root, 'wasm/package.json'), 'utf8'));
  assert.equal(info.name, 'flopcast-wasm');
  assert.equal(info.filename, `flopcast-wasm-${pkg.version}.tgz`);
  const files = info.files.map((f) => f.path).sort();
  assert.deepEqual(files, [
    'README.md',
    'flopcast.d.ts',
    'flopcast.js',
    'flopcast_core.js',
    'flopcast_core.wasm',
    'package.json',
  ]);
  const wasm = info.files.find((f) => f.path === 'flopcast_core.wasm');
  assert.ok(wasm.size > 100000, `the .wasm is the real module (${wasm.size} bytes)`);
  assert.equal(pkg.dependencies, undefined, 'no dependencies: installs offline');
  tarball = join(tmp, info.filename);
});

test('a separate project installs the tarball offline and imports it in node', () => {
  assert.ok(tarball, 'packed by the previous test');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
  );
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project });
  const installed = JSON.parse(readFileSync(join(project, 'node_modules/flopcast-wasm/package.json'), 'utf8'));
  assert.equal(installed.name, 'flopcast-wasm');
  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8'));
  assert.deepEqual(Object.keys(lock.packages).sort(), ['', 'node_modules/flopcast-wasm']);

  writeFileSync(join(project, 'usage.mjs'), usage);
  writeFileSync(join(project, 'main.mjs'), mainScript);
  const out = JSON.parse(run(process.execPath, ['main.mjs', JSON.stringify(request)], { cwd: project }));
  assert.equal(out.version, installed.version);
  assert.deepEqual(out.error, { isFlopcastError: true, code: 'unknown_model' });
  assert.equal(out.result.parameters, 6738415616);
  assert.deepEqual(out.result, expected());
});

test('it loads in a worker_threads Worker (ES module) with the same numbers', () => {
  writeFileSync(join(project, 'worker.mjs'), workerScript);
  const out = JSON.parse(run(process.execPath, ['worker.mjs', JSON.stringify(request)], { cwd: project }));
  assert.equal(out.inWorker, true);
  assert.deepEqual(out.error, { isFlopcastError: true, code: 'unknown_model' });
  assert.equal(out.result.parameters, 6738415616);
  assert.deepEqual(out.result, expected());
});

test('only the exported files resolve, and node cannot load it without wasmBinary', () => {
  const probe = `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const out = { wasm: require.resolve('flopcast-wasm/flopcast_core.wasm') };
try {
  require.resolve('flopcast-wasm/bindings.cpp');
} catch (e) {
  out.hidden = e.code;
}
const { createFlopcast } = await import('flopcast-wasm');
try {
  await createFlopcast();
} catch (e) {
  out.bare = String(e);
}
process.stdout.write(JSON.stringify(out));
`;
  writeFileSync(join(project, 'probe.mjs'), probe);
  const out = JSON.parse(run(process.execPath, ['probe.mjs'], { cwd: project }));
  assert.equal(out.wasm, join(project, 'node_modules/flopcast-wasm/flopcast_core.wasm'));
  assert.equal(out.hidden, 'ERR_PACKAGE_PATH_NOT_EXPORTED');
  // What the README documents: Node's fetch has no file: URLs, so wasmBinary is needed.
  assert.match(out.bare, /fetch failed/);
});

test('TypeScript finds the types through the exports map', () => {
  writeFileSync(join(project, 'check.ts'), typesCheck);
  const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
  run(tsc, [...args, 'check.ts'], { cwd: project });
  // And it does check: a wrong type fails.
  writeFileSync(join(project, 'bad.ts'), typesCheck.replace('const parameters: number', 'const parameters: string'));
  const r = spawnSync(tsc, [...args, 'bad.ts'], { cwd: project, encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stdout, /bad\.ts\(4,7\): error TS2322/);
});
