// The `flopcast serve` runner the serve_*.test.mjs files share: the real binary, run in a
// temporary folder with its own calibration file. run() gives the exit code and both streams;
// json() adds --json and parses a successful run; fails() asserts exit 2 with nothing on stdout
// and gives the message as printed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export function serveCli(name) {
  const bin = join(resolve(import.meta.dirname, '../..'), 'build/flopcast');
  const tmp = mkdtempSync(join(tmpdir(), `flopcast-${name}-`));
  process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');
  const run = (args) => {
    const r = spawnSync(bin, ['serve', ...args], { encoding: 'utf8', cwd: tmp });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const json = (args) => {
    const r = run([...args, '--json']);
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out);
  };
  const fails = (args) => {
    const r = run(args);
    assert.equal(r.code, 2, `exit code for ${args.join(' ')}: ${r.err}`);
    assert.equal(r.out, '');
    return r.err.trimEnd();
  };
  return { bin, tmp, run, json, fails };
}
