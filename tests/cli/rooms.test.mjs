// The rules of the house (ARCHITECTURE.md's rooms table, scripts/check-rooms.mjs): the tree as
// committed follows them, and each kind of deliberate break in a copy of it fails the check with
// a message naming the file, the line and the rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const script = join(root, 'scripts/check-rooms.mjs');
const check = (dir) => spawnSync(process.execPath, [script, '--root', dir], { encoding: 'utf8' });

// A copy of what the check reads: ARCHITECTURE.md, core/, wasm/ and web/src.
function copyTree() {
  const dir = mkdtempSync(join(tmpdir(), 'flopcast-rooms-'));
  cpSync(join(root, 'ARCHITECTURE.md'), join(dir, 'ARCHITECTURE.md'));
  for (const p of ['core', 'wasm', 'web/src']) cpSync(join(root, p), join(dir, p), { recursive: true });
  return dir;
}
// Adds `line` after the first #include (or import) of a file of the copy.
function insert(dir, file, line) {
  const p = join(dir, file);
  const text = readFileSync(p, 'utf8');
  const at = text.search(/^(#include|import) /m);
  assert.ok(at >= 0, `${file} has no include to insert beside`);
  writeFileSync(p, text.slice(0, at) + line + '\n' + text.slice(at));
}

test('the committed tree follows every rule, and every room is in the table', () => {
  const r = check(root);
  assert.equal(r.status, 0, r.stderr);
  const rooms = readdirSync(join(root, 'core/src'), { withFileTypes: true }).filter((e) => e.isDirectory());
  assert.match(r.stdout, new RegExp(`\\(${rooms.length} rooms\\)`));
});

const breaks = [
  [
    'a model reader includes the simulator',
    'core/src/model/model.cpp',
    '#include "flopcast/serving/simulator.hpp"',
    /core\/src\/model\/model\.cpp:\d+: room "model" may not include room "serving"/,
  ],
  [
    'the estimate includes a private io header',
    'core/src/estimate/flops.cpp',
    '#include "io/request_state.hpp"',
    /room "estimate" may not include room "io"/,
  ],
  [
    'the base includes the estimate',
    'core/src/base/error.cpp',
    '#include "flopcast/estimate/estimate.hpp"',
    /room "base" may not include room "estimate"/,
  ],
  [
    'the engine includes Emscripten',
    'core/src/estimate/roofline.cpp',
    '#include <emscripten/bind.h>',
    /roofline\.cpp:\d+: the engine includes no Emscripten header/,
  ],
  [
    'the engine includes CLI11',
    'core/src/io/api.cpp',
    '#include <CLI/CLI.hpp>',
    /api\.cpp:\d+: the engine knows no CLI/,
  ],
  [
    'the engine includes the measurement library',
    'core/src/serving/simulator.cpp',
    '#include "flopcast/measure/tracker.hpp"',
    /the engine knows no measurement library/,
  ],
  [
    'a public header includes a private one',
    'core/include/flopcast/model/model.hpp',
    '#include "base/detail.hpp"',
    /model\.hpp:\d+: a public header includes the private header base\/detail\.hpp/,
  ],
  [
    'the umbrella includes the header that needs nlohmann',
    'core/include/flopcast/flopcast.hpp',
    '#include "flopcast/io/request_json.hpp"',
    /flopcast\.hpp:\d+: flopcast\/io\/request_json\.hpp needs nlohmann_json/,
  ],
  [
    'the CLI includes a private core header',
    'core/cli/main.cpp',
    '#include "estimate/estimate_parts.hpp"',
    /main\.cpp:\d+: the CLI: the core through its public headers only/,
  ],
  [
    'the bindings include a private core header',
    'wasm/bindings.cpp',
    '#include "base/json_out.hpp"',
    /bindings\.cpp:\d+: the bindings: the core through its public headers only/,
  ],
  [
    'the measurement library includes the CLI',
    'core/measure/src/tracker.cpp',
    '#include "../../cli/common.hpp"',
    /tracker\.cpp:\d+: the measurement library: may not include/,
  ],
  [
    'the page imports the core',
    'web/src/engine.js',
    "import x from '../../core/src/io/api.cpp';",
    /engine\.js:\d+: the page imports nothing outside web\//,
  ],
];
for (const [name, file, line, message] of breaks) {
  test(`a deliberate break fails the check: ${name}`, () => {
    const dir = copyTree();
    try {
      insert(dir, file, line);
      const r = check(dir);
      assert.equal(r.status, 1, `the check passed:\n${r.stdout}`);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /^rooms: 1 include\(s\) break/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('the table is the rule: taking an arrow out of ARCHITECTURE.md fails the includes that use it', () => {
  const dir = copyTree();
  try {
    const p = join(dir, 'ARCHITECTURE.md');
    const text = readFileSync(p, 'utf8');
    const row = /^\| `serving` \|.*$/m.exec(text)[0];
    writeFileSync(p, text.replace(row, row.replace('`estimate` |', '|').replace(', |', ' |')));
    const r = check(dir);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /room "serving" may not include room "estimate"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a source file outside every room, or a room missing from the table, fails', () => {
  const dir = copyTree();
  try {
    writeFileSync(join(dir, 'core/src/loose.cpp'), '#include "base/detail.hpp"\n');
    cpSync(join(dir, 'core/src/report'), join(dir, 'core/src/extra'), { recursive: true });
    appendFileSync(join(dir, 'core/src/extra/report.cpp'), '\n');
    const r = check(dir);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /core\/src\/loose\.cpp:1: a file outside every room/);
    assert.match(r.stderr, /core\/src\/extra\/report\.cpp:1: room "extra" is not in ARCHITECTURE\.md's table/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
