// Issue 27, item 1 on the command line: `estimate --training --fine-tuning lora|qlora` gives the
// adapters' step as its headline, the same figures as `train` of the same flags, and `plan
// --training` sizes that step; LoRA's default rank is the request table's (PEFT's r = 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-lora27-'));
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');

function json(args) {
  const r = spawnSync(bin, [...args, '--json'], { encoding: 'utf8', cwd: tmp });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('issue 27 item 1: estimate, train and plan agree on QLoRA Llama-3-8B on an RTX 4090', () => {
  const flags = ['llama-3-8b', '-g', 'RTX-4090', '--fine-tuning', 'qlora'];
  const e = json(['estimate', ...flags, '--training']);
  const t = json(['train', ...flags]);
  const p = json(['plan', ...flags, '--training']);
  const m = e.details.memory;
  assert.equal(m.training.fine_tuning, 'qlora');
  assert.equal(m.training.lora_rank, 64); // the QLoRA paper's r
  assert.equal(m.total, m.training.total);
  assert.ok(Math.abs(m.training.total - t.memory.total) <= 1e-9 * t.memory.total);
  assert.equal(m.fits_on_gpu, true);
  assert.equal(t.memory.fits_on_gpu, true);
  assert.ok(
    Math.abs(e.details.performance.training_step_s - t.performance.step_time_s) <= 1e-9 * t.performance.step_time_s,
  );
  assert.equal(p.fine_tuning, 'qlora');
  assert.equal(p.min_gpus, 1);
  assert.ok(Math.abs(p.layouts[0].per_gpu_memory_bytes - m.training.total) <= 1e-9 * m.training.total);
});

test('issue 27 item 1: --fine-tuning lora takes the default rank 8 (Hugging Face PEFT LoraConfig r)', () => {
  const e = json(['estimate', 'llama-3-8b', '-g', 'A100-80GB-SXM', '--training', '--fine-tuning', 'lora']);
  assert.equal(e.details.memory.training.lora_rank, 8);
  const t = json(['train', 'llama-3-8b', '--fine-tuning', 'lora']);
  // 8 x 2,621,440 (r x (in + out) over the 7 linear layers of 32 layers; see test_lora_headline.cpp).
  assert.equal(t.parameters.trainable, 8 * 2621440);
});
