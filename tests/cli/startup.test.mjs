// The CLI builds only the command named on its line (core/cli/main.cpp's command table): each
// command --help lists must still be built under its own name, with the options it has when all
// are built, and an unknown name still gets the list of every command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const run = (args) => spawnSync(bin, args, { encoding: 'utf8' });

const help = run(['--help']);
const listed = help.stdout
  .split('Subcommands:')[1]
  .split('\n')
  .map((l) => /^ {2}([a-z-]+)\s/.exec(l)?.[1])
  .filter(Boolean);

test('--help lists the commands', () => {
  assert.equal(help.status, 0);
  for (const c of ['estimate', 'compare', 'list-models', 'list-gpus', 'serve', 'plan', 'train', 'report'])
    assert.ok(listed.includes(c), `${c} in ${listed}`);
});

test('every listed command, built alone, takes --help under its own name', () => {
  for (const c of listed) {
    const r = run([c, '--help']);
    assert.equal(r.status, 0, `${c}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^Usage: \\S+ ${c}\\b`, 'm'), c);
  }
});

test('a command built alone parses like one built among all', () => {
  // The same options are accepted: a bad value is rejected by the core (exit 2), not by CLI11.
  const r = run(['estimate', 'llama-3-8b', '--batch', '0', '--json']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /\[flopcast\.[\w.]+\] \(--batch, \/batch_size\)/);
  const unknown = run(['estimat', 'llama-3-8b']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, new RegExp(`expected one of ${listed.join(', ')}$`, 'm'));
});
