#!/usr/bin/env node
// The rules of the house (ARCHITECTURE.md), checked on every #include and import:
// - core/src/<room>/ and core/include/flopcast/<room>/ include only their own room and the rooms
//   ARCHITECTURE.md's table lets them ("may include"); a room's private headers are named
//   "<room>/x.hpp" from core/src, its public ones "flopcast/<room>/x.hpp";
// - public headers include only public headers (no private header; of nlohmann, json_fwd.hpp only);
// - the engine (core/src, core/include) knows no CLI (CLI11, curl, core/cli), no measurement library,
//   no Emscripten, no page;
// - core/measure knows no CLI; the CLI, the measurement library and the bindings (wasm/) reach the
//   core through its public headers only;
// - the page (web/src) reaches the core only through the bindings' package (@flopcast/wasm), and
//   imports nothing outside web/.
// The table is read from ARCHITECTURE.md itself, so the rules live in one place.
// Usage: node scripts/check-rooms.mjs [--root DIR]; exit 1 with one line per broken rule.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative, dirname, resolve, sep } from 'node:path';

const args = process.argv.slice(2);
const root = resolve(args[0] === '--root' ? args[1] : join(import.meta.dirname, '..'));

// The "may include" table: rows "| `room` | what it holds | `a`, `b` |" under the heading
// "## Rooms and arrows".
function readTable() {
  const text = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
  const start = text.indexOf('## Rooms and arrows');
  if (start < 0) throw new Error('ARCHITECTURE.md: no "## Rooms and arrows" section');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? text.length : end);
  const allowed = new Map();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5) continue;
    const room = /^`([a-z_]+)`$/.exec(cells[1]);
    if (!room) continue;
    const targets = [...cells[3].matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    allowed.set(room[1], new Set(targets));
  }
  if (allowed.size === 0) throw new Error('ARCHITECTURE.md: the rooms table has no rows');
  return allowed;
}

function walk(dir, exts) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p, exts));
    else if (exts.some((e) => name.endsWith(e))) out.push(p);
  }
  return out;
}

function includes(file) {
  const out = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const m = /^\s*#\s*include\s*([<"])([^>"]+)[>"]/.exec(line);
      if (m) out.push({ line: i + 1, quoted: m[1] === '"', path: m[2] });
    });
  return out;
}

const allowed = readTable();
const problems = [];
const rel = (p) => relative(root, p).split(sep).join('/');
const fail = (file, line, message) => problems.push(`${rel(file)}:${line}: ${message}`);

// Where an include lands: {room, public} for the core's headers, or a label for the others.
function target(file, inc) {
  if (!inc.quoted) {
    if (/^emscripten[/.]/.test(inc.path)) return { other: 'emscripten' };
    if (/^(CLI|curl)\//.test(inc.path)) return { other: 'cli-library' };
    if (inc.path === 'nlohmann/json_fwd.hpp') return { other: 'nlohmann-fwd' };
    if (/^nlohmann\//.test(inc.path)) return { other: 'nlohmann' };
    return { other: 'system' };
  }
  const parts = inc.path.split('/');
  if (parts[0] === 'flopcast') {
    if (parts[1] === 'measure') return { other: 'measure' };
    if (parts.length === 2) return { other: 'umbrella' };
    return { room: parts[1], public: true };
  }
  // The CLI and the measurement library name their own headers from their include roots.
  for (const own of ['core/cli', 'core/measure/src', 'core/measure/include']) {
    const found = rel(join(root, own, inc.path));
    if (
      rel(file).startsWith(own.split('/').slice(0, 2).join('/') + '/') &&
      found.startsWith(own + '/') &&
      existsSync(join(root, found))
    )
      return { other: rel(file).startsWith('core/cli/') ? 'cli-own' : 'local' };
  }
  if (existsSync(join(dirname(file), inc.path))) {
    const here = rel(join(dirname(file), inc.path));
    const m = /^core\/src\/([a-z_]+)\//.exec(here);
    if (m) return { room: m[1], public: false };
    if (here.startsWith('core/cli/')) return { other: 'cli' };
    return { other: 'local' };
  }
  if (allowed.has(parts[0]) && parts.length === 2) return { room: parts[0], public: false };
  if (inc.path.includes('core/cli/')) return { other: 'cli' };
  if (inc.path.includes('core/src/')) return { other: 'private-by-path' };
  return { other: 'local' };
}

// 1. The engine's rooms.
for (const [base, isPublic] of [
  ['core/src', false],
  ['core/include/flopcast', true],
]) {
  for (const file of walk(join(root, base), ['.cpp', '.hpp', '.h'])) {
    const path = rel(file).slice(base.length + 1);
    const room = path.includes('/') ? path.split('/')[0] : null;
    if (room === null) {
      if (!(isPublic && path === 'flopcast.hpp'))
        fail(file, 1, `a file outside every room: put it in core/${base.slice(5)}/<room>/ (ARCHITECTURE.md)`);
      continue;
    }
    if (!allowed.has(room)) {
      fail(file, 1, `room "${room}" is not in ARCHITECTURE.md's table`);
      continue;
    }
    for (const inc of includes(file)) {
      const t = target(file, inc);
      if (t.other === 'emscripten')
        fail(file, inc.line, `the engine includes no Emscripten header (${inc.path}): bindings live in wasm/`);
      else if (t.other === 'cli-library' || t.other === 'cli')
        fail(file, inc.line, `the engine knows no CLI (${inc.path}): the CLI lives in core/cli/`);
      else if (t.other === 'measure') fail(file, inc.line, `the engine knows no measurement library (${inc.path})`);
      else if (t.other === 'umbrella')
        fail(file, inc.line, `the engine includes the header it needs, not the umbrella ${inc.path}`);
      else if (t.other === 'private-by-path')
        fail(file, inc.line, `name private headers by room ("<room>/x.hpp"), not ${inc.path}`);
      else if (t.other === 'nlohmann' && isPublic)
        fail(file, inc.line, `public headers do not include nlohmann_json (${inc.path})`);
      else if (t.room) {
        if (isPublic && !t.public) fail(file, inc.line, `a public header includes the private header ${inc.path}`);
        else if (t.room !== room && !allowed.get(room).has(t.room))
          fail(
            file,
            inc.line,
            `room "${room}" may not include room "${t.room}" (${inc.path}); ARCHITECTURE.md lists what it may include`,
          );
      }
    }
  }
}

// 1b. A public header that needs nlohmann (json_fwd.hpp) is included by no other public header: the
// umbrella and the rest stay usable without nlohmann_json (the bindings, an installed flopcast::core).
{
  const publicDir = join(root, 'core/include/flopcast');
  const needsJson = new Set(
    walk(publicDir, ['.hpp'])
      .filter((f) => includes(f).some((i) => /^nlohmann\//.test(i.path)))
      .map((f) => 'flopcast/' + rel(f).slice('core/include/flopcast/'.length)),
  );
  for (const file of walk(publicDir, ['.hpp']))
    for (const inc of includes(file))
      if (needsJson.has(inc.path))
        fail(
          file,
          inc.line,
          `${inc.path} needs nlohmann_json: no other public header includes it (the umbrella must not need it)`,
        );
}

// 2. The core's users: the measurement library, the CLI, the bindings, the ONNX module, the tools.
const users = [
  ['core/measure', 'the measurement library', ['cli']],
  ['core/cli', 'the CLI', []],
  ['core/onnx', 'the ONNX reader module', ['cli']],
  ['wasm', 'the bindings', ['cli', 'measure']],
];
for (const [dir, who, forbidden] of users) {
  for (const file of walk(join(root, dir), ['.cpp', '.hpp', '.h'])) {
    for (const inc of includes(file)) {
      const t = target(file, inc);
      if (t.room && !t.public)
        fail(file, inc.line, `${who}: the core through its public headers only, not ${inc.path}`);
      else if (t.other === 'private-by-path') fail(file, inc.line, `${who}: a private core header (${inc.path})`);
      else if (forbidden.includes(t.other)) fail(file, inc.line, `${who}: may not include ${inc.path}`);
      else if (t.other === 'emscripten' && dir !== 'wasm')
        fail(file, inc.line, `only wasm/ includes Emscripten (${inc.path})`);
    }
  }
}

// 3. The page: only the bindings' package, nothing outside web/.
for (const file of walk(join(root, 'web/src'), ['.js', '.mjs', '.ts'])) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      for (const m of line.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'([^']+)'/g)) {
        const spec = m[1];
        if (spec.startsWith('.')) {
          const to = rel(resolve(dirname(file), spec));
          if (!to.startsWith('web/'))
            fail(
              file,
              i + 1,
              `the page imports nothing outside web/ (${spec}): the core is reached through @flopcast/wasm`,
            );
        } else if (/(^|\/)(core|build-wasm|wasm)\//.test(spec) && !spec.startsWith('@flopcast/wasm')) {
          fail(file, i + 1, `the page reaches the core only through @flopcast/wasm, not ${spec}`);
        }
      }
    });
}

if (problems.length) {
  console.error(`rooms: ${problems.length} include(s) break the rules of the house (ARCHITECTURE.md):`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`rooms: every include follows ARCHITECTURE.md (${allowed.size} rooms)`);
