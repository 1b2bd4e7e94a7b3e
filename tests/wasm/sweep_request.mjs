// The page's 1,000,000-point sweep request (model x batch x sequence x precision x gpu), shared by
// the worker benchmark (tests/browser/bench.mjs) and the node one (tests/wasm/bench_sweep.mjs).
export const sweep1m = {
  model: ['llama-3-8b', 'mixtral-8x7b', 'qwen2.5-7b', 'gemma-2-9b'],
  batch_size: Array.from({ length: 50 }, (_, i) => i + 1),
  sequence_length: Array.from({ length: 100 }, (_, i) => 128 * (i + 1)),
  precision: ['bf16', 'fp8', 'int8', 'int4', 'fp16'],
  gpu: ['A100', 'H100', 'H200', 'L4', 'L40S', 'MI300X', 'B200', 'T4', 'A10G', 'RTX-4090'],
};
