// `cmake --install` gives a CMake package: a separate project (copied to a temp dir) finds it
// with find_package(flopcast), links flopcast::core and gets the same numbers as the CLI.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-install-'));
const prefix = join(tmp, 'prefix');
const source = join(tmp, 'consumer');
const binary = join(tmp, 'consumer-build');
after(() => rmSync(tmp, { recursive: true, force: true }));

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
function files(dir) {
  return readdirSync(dir, { recursive: true })
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => f.split('\\').join('/'))
    .sort();
}
function cliJson(args) {
  return JSON.parse(run(cli, [...args, '--json', '--no-calibration'], { cwd: tmp }));
}

// One request, as the consumer sends it to estimate_json and as CLI flags.
const request = { model: 'llama-2-7b', batch_size: 2, sequence_length: 1024, precision: 'fp16', gpu: 'H100' };
const flags = ['estimate', 'llama-2-7b', '-b', '2', '-s', '1024', '-p', 'fp16', '-g', 'H100'];

test('cmake --install writes the headers, the library, the CLI and the package config', () => {
  run('cmake', ['--install', join(root, 'build'), '--prefix', prefix]);
  const installed = files(prefix);
  // Every public header, room by room (core/include/flopcast/<room>/x.hpp, and the umbrella).
  const headers = readdirSync(join(root, 'core/include/flopcast'), { recursive: true })
    .map((f) => f.split('\\').join('/'))
    .filter((f) => f.endsWith('.hpp'));
  assert.ok(headers.length >= 10, `public headers: ${headers}`);
  for (const h of headers) assert.ok(installed.includes(`include/flopcast/${h}`), `include/flopcast/${h} installed`);
  const lib = installed.filter((f) => /(^|\/)libflopcast_core\.a$/.test(f));
  assert.equal(lib.length, 1, `one libflopcast_core.a in ${installed}`);
  const cmakeDir = lib[0].replace(/libflopcast_core\.a$/, 'cmake/flopcast/');
  for (const f of ['flopcastConfig.cmake', 'flopcastConfigVersion.cmake', 'flopcastTargets.cmake'])
    assert.ok(installed.includes(cmakeDir + f), `${cmakeDir}${f} installed`);
  assert.ok(installed.includes('bin/flopcast'), 'the CLI in bin/');
  // Only the public package: no sources, no measurement library, no tests.
  assert.deepEqual(
    installed.filter(
      (f) =>
        !/^(include\/flopcast\/([a-z_]+\/)?[a-z_]+\.hpp|lib(64)?\/.*|bin\/flopcast|share\/flopcast\/report-runtime\.html)$/.test(
          f,
        ),
    ),
    [],
  );
  assert.ok(!installed.some((f) => /measure|test|\.cpp$/.test(f)), `nothing else: ${installed}`);

  // The exported target: flopcast::core with the installed include dir, C++17, no link to
  // nlohmann_json or anything else, and no path into the source or build tree.
  const targets = readFileSync(join(prefix, cmakeDir, 'flopcastTargets.cmake'), 'utf8');
  assert.match(targets, /add_library\(flopcast::core STATIC IMPORTED\)/);
  assert.match(targets, /INTERFACE_INCLUDE_DIRECTORIES "\$\{_IMPORT_PREFIX\}\/include"/);
  assert.match(targets, /INTERFACE_COMPILE_FEATURES "cxx_std_17"/);
  assert.doesNotMatch(targets, /INTERFACE_LINK_LIBRARIES|nlohmann|flopcast_json/);
  for (const f of installed.filter((f) => f.endsWith('.cmake'))) {
    const text = readFileSync(join(prefix, f), 'utf8');
    assert.ok(!text.includes(root), `${f} names the source tree`);
    const code = text.replace(/#.*$/gm, '');
    assert.doesNotMatch(code, /find_dependency|find_package|nlohmann_json::/, `${f} needs no dependency`);
  }
  const version = readFileSync(join(prefix, cmakeDir, 'flopcastConfigVersion.cmake'), 'utf8');
  assert.match(version, /set\(PACKAGE_VERSION "0\.3\.0"\)/);
});

test('a separate project builds against the installed package and matches the CLI', () => {
  assert.ok(existsSync(join(prefix, 'include/flopcast/flopcast.hpp')), 'installed by the previous test');
  cpSync(join(root, 'tests/install/consumer'), source, { recursive: true });
  const env = { ...process.env, CMAKE_PREFIX_PATH: prefix };
  delete env.CMAKE_INCLUDE_PATH;
  delete env.CPATH;
  run('cmake', ['-S', source, '-B', binary, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release'], { env });
  run('cmake', ['--build', binary], { env });
  // Everything it compiled and linked came from the temp dir and the system.
  const ninja = readFileSync(join(binary, 'build.ninja'), 'utf8');
  assert.ok(!ninja.includes(root), 'the consumer build names the source tree');
  assert.match(ninja, new RegExp(`-isystem ${join(prefix, 'include').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
  const cache = readFileSync(join(binary, 'CMakeCache.txt'), 'utf8');
  assert.match(cache, new RegExp(`flopcast_DIR:PATH=${prefix}/lib(64)?/cmake/flopcast`));

  const out = JSON.parse(run(join(binary, 'consumer'), ['llama-2-7b', JSON.stringify(request)], { cwd: tmp }));
  assert.equal(out.version, '0.3.0');
  assert.equal(out.id, 'meta-llama/Llama-2-7b-hf');
  // Llama-2-7B's published count is exact: 6,738,415,616.
  assert.equal(out.parameters, 6738415616);
  assert.equal(out.published, 6738415616);

  const expected = cliJson(flags);
  assert.equal(expected.parameters, 6738415616);
  assert.equal(out.estimate.gpu, expected.gpu);
  assert.ok(out.estimate.latency > 0 && out.estimate.forward_flops > 1e13, 'a real estimate');
  assert.deepEqual(out.estimate, expected);
});

test('the installed library reports errors as the CLI does', () => {
  assert.ok(existsSync(join(binary, 'consumer')), 'built by the previous test');
  const r = spawnSync(join(binary, 'consumer'), ['llama-2-7x', '{}'], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^consumer: .*unknown_model.*llama-2-7b/s);
});

test('the installed CLI writes a report with the installed runtime (share/flopcast)', () => {
  assert.ok(existsSync(join(prefix, 'bin/flopcast')), 'installed by the first test');
  const runtime = join(root, 'dist/report-runtime.html');
  assert.ok(existsSync(runtime), 'the page is built (npm run build:web) before the install');
  assert.equal(readFileSync(join(prefix, 'share/flopcast/report-runtime.html'), 'utf8'), readFileSync(runtime, 'utf8'));
  const { FLOPCAST_REPORT_RUNTIME, ...env } = process.env;
  const out = join(tmp, 'installed-report.html');
  const r = spawnSync(
    join(prefix, 'bin/flopcast'),
    ['report', 'llama-2-7b', '-g', 'H100', '-o', out, '--no-calibration'],
    {
      encoding: 'utf8',
      env,
      cwd: tmp,
    },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.match(readFileSync(out, 'utf8'), /"model":"meta-llama\/Llama-2-7b-hf"/);
});
