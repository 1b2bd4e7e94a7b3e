#pragma once
// flopcast validate-model: the reference decoder run on a scaled-down instance of an
// architecture (its first few layers, real widths, random weights), its counted FLOPs and
// bytes per operation set beside estimate() of the same truncated model and settings, for the
// prefill and for each decode step.
//
// Tolerances: none. Every FLOP component is exact (both sides count integers in double: exact
// below 2^53). Bytes are exact too, except, shown and not checked: MoE weight bytes of a pass over
// more than one token (the estimator counts the expected distinct experts under uniform routing,
// E (1 - (1 - k/E)^T); the decoder reads the experts its router reached), prefill KV writes of
// windowed layers whose window is shorter than the prompt (the estimator caps the cache at the
// window, the decoder keeps every position: shown, not checked) and prefill KV reads (the
// estimator has none: shown, not checked).
#include <cstdint>
#include <string>
#include <vector>

#include "flopcast/measure/decoder.hpp"
#include "flopcast/model/model.hpp"
#include "flopcast/profile/profile.hpp"

namespace flopcast::measure {

struct validate_options {
  std::int64_t layers = 2;        // first N layers (clamped to the model's)
  std::int64_t prompt = 16;       // prompt tokens per sequence
  std::int64_t decode_steps = 2;  // decode steps after the prefill
  std::int64_t batch = 1;
  std::int64_t window = 0;  // > 0: sliding windows longer than this are cut to it (stated in the output)
  int threads = 0;          // 0: every hardware thread
  std::uint64_t seed = 1;
};

struct validate_row {
  std::string pass;  // "prefill", "decode 1", "decode 2", ...
  std::string op;    // an op_counts component, "total", "weight_bytes", "kv_read_bytes", "kv_write_bytes"
  std::string unit;  // "FLOP" or "B"
  double counted = 0, estimated = 0;
  double tolerance = 0;  // relative; 0 = exact
  bool checked = true;   // false: shown for information (note says why)
  bool ok = true;
  std::string note;
  [[nodiscard]] double diff_pct() const noexcept;
};

struct validate_result {
  std::string model_type;
  std::vector<std::string> kinds;    // "dense", "GQA", "MQA", "sliding-window", "MoE", "MLA"
  std::vector<std::string> scaling;  // what was scaled down, in words
  std::int64_t layers = 0, model_layers = 0, prompt = 0, decode_steps = 0, batch = 0;
  std::vector<validate_row> rows;
  double weight_bytes = 0;  // allocated by the decoder (experts as built)
  double kv_bytes = 0;
  std::int64_t experts_built = 0, experts_total = 0;  // routed experts instantiated / in the truncated model
  double seconds = 0;                                 // build + run
  [[nodiscard]] bool ok() const noexcept;
};

// What the decoder counted: the prefill, then each decode step.
struct counted_run {
  op_counts prefill;
  std::vector<op_counts> steps;
  double weight_bytes = 0, kv_bytes = 0;
  std::int64_t experts_built = 0;
  std::int64_t prefill_experts = 0;  // routed experts reached by the prefill, all layers
};

// The scaled model validate-model runs: first_layers(m, layers) with windows capped; `scaling`
// receives what changed.
[[nodiscard]] model_spec scaled_model(const model_spec& m, const validate_options& o,
                                      std::vector<std::string>* scaling = nullptr);
// Runs the decoder (MoE and MLA enabled) on `scaled` and returns its counts.
[[nodiscard]] counted_run count_run(const model_spec& scaled, const validate_options& o);
// The comparison rows of `run` against estimate() of `estimated` (normally the same model;
// tests pass a perturbed one to see the comparison fail).
[[nodiscard]] std::vector<validate_row> compare_counts(const model_spec& estimated, const validate_options& o,
                                                       const counted_run& run);
// All of it. Throws flopcast::error (unsupported_model "MODEL" for layers the decoder lacks,
// invalid_argument for bad options).
[[nodiscard]] validate_result validate_model(const model_spec& m, const validate_options& o);

// validate-model --onnx: the profiled FLOPs of an ONNX export (graph g, profiled as p) beside the
// analytic estimate of model m's first o.layers layers, prefill of o.batch x o.prompt tokens,
// every attention pair counted (an export's masked matmuls compute all S x S pairs; the
// estimate's causal halving is off here). Compared exactly, as multiply-adds x 2:
//   weight_matmuls     MatMul/Gemm/Conv/Einsum nodes with an input computed from initializers
//                      alone, beside the estimate's layer rows that read weights (projections,
//                      MLP, router, experts; norms excluded), plus lm_head when `head`;
//   attention_matmuls  the other matmuls (two activations), beside attention scores + values;
//   matmul_total       both.
// Shown, not checked: every other FLOP (elementwise, softmax, norms), whose op-by-op form in an
// export differs from the estimate's fused conventions (e.g. SiLU + gate product: 2 per element
// in the estimate, Sigmoid + Mul + Mul in an export). Biases: the estimate counts a bias add in its
// projection row; the export's matmul multiply-adds do not, so biased projections differ by one
// FLOP per output element (the note says so when the model has biases).
[[nodiscard]] validate_result compare_onnx(const model_spec& m, const profile::graph& g, const profile::result& p,
                                           const validate_options& o, bool head);

[[nodiscard]] std::string to_text(const validate_result& r);
[[nodiscard]] std::string to_json(const validate_result& r);

}  // namespace flopcast::measure
