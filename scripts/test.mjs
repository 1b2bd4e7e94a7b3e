#!/usr/bin/env node
// npm test: every stage of STAGES below, in order, each through `npm run <stage>`, then each
// stage's wall time. The first failing stage stops the run (its exit code is npm
// test's), and the times so far are still printed.
//
// A stage that already passed on exactly these inputs is not run again: its key is a hash of the
// stage's script, every source file (tracked, or untracked and not ignored: their contents), the
// build outputs the stage runs (their contents), the tools' versions and the FLOPCAST_*
// environment. A pass is recorded in build/test-cache.json;
// a change to any of those runs the stage again. Builds always run (ninja decides what is stale)
// and so does fuzzing, whose inputs are random. FLOPCAST_TEST_CACHE=0 runs every stage.
//
//   npm test                      every stage
//   node scripts/test.mjs STAGE…  only these stages (same order, same cache)
import { spawnSync, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// The stages, in order. `outputs`: the build outputs a cached stage runs (files or folders; a
// stage's key covers their contents); a stage without it is always run.
const CLI = ['build/flopcast', 'build/libflopcast_onnx.so'];
const WASM = ['build-wasm/wasm'];
const STAGES = [
  { name: 'setup' },
  { name: 'lint', outputs: [] },
  { name: 'build:native' },
  { name: 'build:wasm' },
  { name: 'build:web' },
  { name: 'test:native', outputs: ['build/flopcast_tests', 'build/flopcast_fit', 'build/CTestTestfile.cmake'] },
  { name: 'test:cli', outputs: [...CLI, 'dist', ...WASM] },
  { name: 'test:wasm', outputs: [...CLI, ...WASM] },
  { name: 'test:browser', outputs: [...CLI, ...WASM, 'dist'] },
  { name: 'test:install', outputs: [...CLI, 'build/libflopcast_core.a', 'build/cmake_install.cmake', ...WASM] },
  { name: 'test:sanitize', outputs: ['build-san/flopcast_tests'] },
  { name: 'test:fuzz' }, // random inputs: always run
];
const CACHE_FILE = join(root, 'build', 'test-cache.json');
const useCache = process.env.FLOPCAST_TEST_CACHE !== '0';

const wanted = process.argv.slice(2);
for (const w of wanted)
  if (!STAGES.some((s) => s.name === w)) {
    console.error(`test: unknown stage "${w}": expected one of ${STAGES.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
const stages = wanted.length ? STAGES.filter((s) => wanted.includes(s.name)) : STAGES;

/** sha256 of the files under `paths` (files or folders, recursively; missing ones skipped), by path and content. */
function hashFiles(hash, paths) {
  const walk = (p) => {
    let st;
    try {
      st = statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) walk(join(p, name));
    } else if (st.isFile()) {
      hash.update(`${p}\0`);
      hash.update(readFileSync(p));
    }
  };
  for (const p of paths) walk(join(root, p));
}

/** The contents of every source file: tracked, and untracked not ignored (git's own hashes, of the working tree). */
function sourceFingerprint() {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && existsSync(join(root, f)) && statSync(join(root, f)).isFile())
    .sort();
  const ids = execFileSync('git', ['hash-object', '--stdin-paths'], {
    cwd: root,
    input: files.join('\n'),
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return createHash('sha256').update(files.join('\n')).update(ids).digest('hex');
}

/** The tools the suites run, and the FLOPCAST_* settings. */
function toolFingerprint() {
  const version = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return `${cmd}: none`;
    }
  };
  const env = Object.keys(process.env)
    .filter((k) => k.startsWith('FLOPCAST_') && k !== 'FLOPCAST_TEST_CACHE')
    .sort()
    .map((k) => `${k}=${process.env[k]}`);
  return [process.version, version('chromium', ['--version']), version('clang++', ['--version']), ...env].join('\n');
}

function readCache() {
  try {
    return JSON.parse(readFileSync(CACHE_FILE, 'utf8'));
  } catch {
    return {};
  }
}
function writeCache(cache) {
  mkdirSync(join(root, 'build'), { recursive: true });
  const tmp = `${CACHE_FILE}.${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(cache, null, 2)}\n`);
  renameSync(tmp, CACHE_FILE); // whole or not at all
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const times = [];
let sources;
let tools;
function keyOf(stage) {
  sources ??= sourceFingerprint();
  tools ??= toolFingerprint();
  const h = createHash('sha256').update(`${stage.name}\0${pkg.scripts[stage.name]}\0${sources}\0${tools}\0`);
  hashFiles(h, stage.outputs);
  return h.digest('hex');
}

function report() {
  const total = times.reduce((a, t) => a + t.ms, 0);
  console.log('\nnpm test: wall time by stage');
  for (const t of times) console.log(`  ${t.name.padEnd(14)} ${seconds(t.ms).padStart(9)}  ${t.note}`);
  console.log(`  ${'total'.padEnd(14)} ${seconds(total).padStart(9)}`);
}

const start = Date.now();
for (const stage of stages) {
  const t0 = Date.now();
  let key;
  if (stage.outputs && useCache) {
    key = keyOf(stage);
    const hit = readCache()[stage.name];
    if (hit?.key === key) {
      const note = `passed on these same inputs at ${hit.passed_at} (${seconds(hit.ms)}): not rerun`;
      console.log(`\n> ${stage.name}: ${note}; FLOPCAST_TEST_CACHE=0 reruns it`);
      times.push({ name: stage.name, ms: Date.now() - t0, note: `cached: ${note}` });
      continue;
    }
  }
  console.log(`\n> ${stage.name}: ${pkg.scripts[stage.name]}`);
  const run = spawnSync('npm', ['run', '--silent', stage.name], { cwd: root, stdio: 'inherit' });
  const ms = Date.now() - t0;
  const code = run.status ?? 1;
  times.push({ name: stage.name, ms, note: code === 0 ? '' : `FAILED (exit ${code})` });
  if (code !== 0) {
    report();
    console.log(`npm test: ${stage.name} failed`);
    process.exit(code);
  }
  if (key) {
    // The key of what passed: the outputs as the stage left them (test:sanitize builds its own).
    const cache = readCache();
    cache[stage.name] = { key: keyOf(stage), passed_at: new Date().toISOString(), ms };
    writeCache(cache);
  }
}
report();
console.log(`npm test: every stage passed in ${seconds(Date.now() - start)}`);
