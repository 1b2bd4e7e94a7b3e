#pragma once
// Shared by the measurement suites' tests: a machine without microbenchmarks (fixed, plausible
// peaks) and a tiny Llama config the reference decoder runs in milliseconds.
#include "flopcast/flopcast.hpp"
#include "flopcast/measure/machine.hpp"

namespace flopcast::testing {

inline measure::machine_peaks fake_machine(int threads = 2) {
  measure::machine_peaks p;
  p.cpu_model = "test CPU";
  p.isa = "generic (sse2)";
  p.threads = threads;
  p.memory_total_bytes = 16e9;
  p.memory_available_bytes = 8e9;
  p.llc_bytes = 32e6;
  p.stream = {10e9, 10e9, 11e9, 11e9, 12e9, 1 << 27, 1};
  p.gemm_fp32_flops_per_s = 50e9;
  p.gemm_size = 256;
  p.fma_fp32_flops_per_s = 100e9;
  p.rapl_note = "none";
  return p;
}

// hidden 64, 4 heads (head_dim 16), 2 KV heads, 2 layers.
inline model_spec tiny_llama() {
  return read_hf_config(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 300,
    "tie_word_embeddings": false})",
                        "tiny-llama");
}

}  // namespace flopcast::testing
