// Training-step analysis: every formula against a worked public figure or an exact
// property of the decomposition.
#include <catch2/catch.hpp>
#include <cmath>

#include "flopcast/training/training.hpp"
#include "helpers.hpp"

using flopcast::analyze_training;
using flopcast::precision;
using flopcast::recompute_policy;
using flopcast::training_analysis;
using flopcast::training_settings;

namespace {

training_settings base_settings(std::int64_t batch = 1, std::int64_t seq = 2048) {
  training_settings t;
  t.base.batch_size = batch;
  t.base.sequence_length = seq;
  return t;
}

training_analysis analyze(const std::string& model, const training_settings& t = base_settings(),
                          const char* gpu = "A100") {
  return analyze_training(test::model(model), t, gpu ? &flopcast::find_gpu(gpu) : nullptr);
}

std::string error_of(const flopcast::model_spec& m, const training_settings& t) {
  try {
    (void)analyze_training(m, t, nullptr);
  } catch (const flopcast::error& e) {
    return e.what();
  }
  return "no error";
}

const flopcast::phase_cost& phase(const training_analysis& a, flopcast::training_phase p) {
  return a.phases.at(static_cast<std::size_t>(p));
}

// LLaMA-65B (Touvron et al. 2023, Table 2): d 8192, 80 layers, 64 heads, FFN 22016, vocab 32000.
test::json llama_65b() {
  return {{"model_type", "llama"},     {"hidden_size", 8192},         {"num_hidden_layers", 80},
          {"num_attention_heads", 64}, {"num_key_value_heads", 64},   {"intermediate_size", 22016},
          {"vocab_size", 32000},       {"tie_word_embeddings", false}};
}

}  // namespace

TEST_CASE("mixed-precision Adam holds 16 bytes per parameter (ZeRO, Rajbhandari et al. 2020, sec. 3.1)", "[training]") {
  // ZeRO: fp16 weights (2) + fp16 gradients (2) + fp32 master, momentum, variance (12) = 16 bytes,
  // e.g. 7.5B parameters -> 120 GB before activations.
  const auto a = analyze("meta-llama/Llama-2-7b-hf");
  CHECK(a.memory.bytes_per_trainable_parameter == 16.0);
  const double P = 6738415616.0;
  CHECK(a.memory.weights + a.memory.gradients + a.memory.optimizer_state == 16.0 * P);
  CHECK(7.5e9 * a.memory.bytes_per_trainable_parameter == 120e9);
  // SGD with momentum under mixed precision: 2 + 2 + 4 (master) + 4 (momentum).
  auto t = base_settings();
  t.base.optim = flopcast::optimizer::sgd;
  CHECK(analyze("meta-llama/Llama-2-7b-hf", t).memory.bytes_per_trainable_parameter == 12.0);
  // fp32 Adam: weights, gradients, momentum, variance, no master copy.
  t.base.optim = flopcast::optimizer::adam;
  t.base.weight_precision = precision::fp32;
  CHECK(analyze("meta-llama/Llama-2-7b-hf", t).memory.bytes_per_trainable_parameter == 16.0);
}

TEST_CASE("forward + backward against 6 N T (Kaplan et al. 2020, Hoffmann et al. 2022)", "[training]") {
  // The done-when figure: Llama-3-8B at 1 x 2048.
  const auto a = analyze("meta-llama/Meta-Llama-3-8B");
  const double P = 8030261248.0, T = 2048.0;
  CHECK(a.cross_check.parameters == P);
  CHECK(a.cross_check.flops_6nt == 6 * P * T);
  CHECK(a.cross_check.forward_plus_backward == a.flops.forward + a.flops.backward.total);
  CHECK(a.cross_check.ratio == Approx(1.0).margin(0.05));
  CHECK(a.cross_check.non_embedding_parameters == P - 128256.0 * 4096);
  // Dense decoders trained causally at 2048 tokens land within 5% of 6 N T with N = all
  // parameters; the full square (no --causal) adds up to ~6% of attention on top.
  auto t = base_settings();
  t.base.causal = true;
  for (const char* m :
       {"meta-llama/Llama-2-7b-hf", "mistralai/Mistral-7B-v0.1", "Qwen/Qwen2.5-7B", "meta-llama/Llama-2-70b-hf"}) {
    INFO(m);
    CHECK(analyze(m, t).cross_check.ratio == Approx(1.0).margin(0.05));
    CHECK(analyze(m).cross_check.ratio == Approx(1.0).margin(0.1));
  }
  // MoE: N is the active path (Mixtral-8x7B: 12.9B of 46.7B per token).
  const auto moe = analyze("mistralai/Mixtral-8x7B-v0.1", t);
  CHECK(moe.cross_check.parameters == 12879925248.0);
  CHECK(moe.cross_check.ratio == Approx(1.0).margin(0.05));
  // Kaplan's forward per token: 2 N + 2 n_layer n_ctx d_attn (N without embeddings), causal.
  const auto c = analyze("meta-llama/Llama-2-7b-hf", t);
  const double N = 6738415616.0 - 32000.0 * 4096, L = 32, S = 2048, d = 4096;
  CHECK(c.flops.forward / S == Approx(2 * N + 2 * L * S * d).epsilon(0.01));
}

TEST_CASE("the step total equals the sum of its phases, backward by kind equals backward by component", "[training]") {
  for (const auto& rec : flopcast::model_records()) {
    INFO(rec.id);
    training_settings t = base_settings(2, 512);
    const auto a = analyze_training(rec.spec, t, &flopcast::find_gpu("H100"));
    const auto& f = a.flops;
    CHECK(f.sum_of_parts_ratio == Approx(1.0).epsilon(1e-12));
    CHECK(f.backward.weight_gradient + f.backward.input_gradient == Approx(f.backward.total).epsilon(1e-12));
    double phases = 0, time = 0;
    for (const auto& p : a.phases) {
      phases += p.flops;
      time += p.time_s;
      CHECK(p.time_s == std::max(p.compute_s, p.memory_s));
      CHECK(p.flops >= 0);
      CHECK(p.read_bytes >= 0);
      CHECK(p.write_bytes >= 0);
    }
    CHECK(phases == Approx(f.total_step).epsilon(1e-12));
    CHECK(time == Approx(a.step.time_s).epsilon(1e-12));
    // The backward lands just under 2 x forward (softmax, RoPE are 1x), over it only by the
    // embedding's scatter-add, which has no forward FLOPs (what remains for attention-free Mamba).
    CHECK(f.backward.ratio_to_forward <= 2.0 + f.backward.embedding / f.forward);
    CHECK(f.backward.ratio_to_forward >= 1.9);
  }
}

TEST_CASE("backward by component: linear layers 2x, attention core, norms, embedding scatter", "[training]") {
  const auto a = analyze("meta-llama/Llama-2-7b-hf");
  const auto& fwd = a.estimate.forward;
  const auto& b = a.flops.backward;
  const double T = 2048, h = 4096, P = 6738415616.0, emb = 32000.0 * 4096, norms = 65.0 * 4096;
  CHECK(b.attention.dq_dk == 2 * fwd.attention.attention_scores);
  CHECK(b.attention.dv_dp == 2 * fwd.attention.attention_values);
  CHECK(b.attention.softmax == fwd.attention.softmax);
  CHECK(b.attention.rotary == fwd.attention.rotary);
  CHECK(b.attention.qkv_projection == 2 * fwd.attention.qkv_projection);  // no biases in Llama
  CHECK(b.output_head == 2 * fwd.parts.output_head);
  CHECK(b.norm == 2 * fwd.parts.norm);
  CHECK(b.embedding == T * h);  // scatter-add of the output gradient into the table
  // dW of every matmul weight (2 T per weight) + RMSNorm weight grads (2 per element) + the scatter.
  CHECK(b.weight_gradient == 2 * T * (P - emb - norms) + fwd.parts.norm / 2 + T * h);
  // MLP: 2 x matmuls + 2 x (SiLU and gate product, 2 per intermediate element).
  const double I = 11008, L = 32;
  CHECK(b.mlp == 2 * (6 * T * h * I) * L + 2 * (2 * T * I) * L);
  // Biases (GPT-2): the bias gradient is a sum over tokens, 1 x its forward adds.
  const auto g = analyze("openai-community/gpt2");
  const auto& gf = g.estimate.forward;
  CHECK(g.flops.backward.attention.qkv_projection == Approx(2 * gf.attention.qkv_projection - 12 * 2048.0 * 3 * 768));
}

TEST_CASE("optimizer, clipping and mixed-precision FLOPs per parameter", "[training]") {
  const double P = 6738415616.0;
  auto t = base_settings();
  const std::pair<flopcast::optimizer, double> per_param[] = {{flopcast::optimizer::adam, 14},
                                                              {flopcast::optimizer::adamw, 16},
                                                              {flopcast::optimizer::sgd, 4},
                                                              {flopcast::optimizer::none, 0}};
  for (const auto& [o, flops] : per_param) {
    t.base.optim = o;
    CHECK(analyze("meta-llama/Llama-2-7b-hf", t).flops.optimizer == flops * P);
  }
  t = base_settings();
  auto a = analyze("meta-llama/Llama-2-7b-hf", t);
  CHECK(a.flops.gradient_clipping == 3 * P);
  CHECK(a.flops.mixed_precision == 2 * P);  // gradient to fp32, master to bf16
  t.gradient_clipping = false;
  CHECK(analyze("meta-llama/Llama-2-7b-hf", t).flops.gradient_clipping == 0);
  t.base.weight_precision = precision::fp32;
  CHECK(analyze("meta-llama/Llama-2-7b-hf", t).flops.mixed_precision == 0);
  t.base.weight_precision = precision::fp16;  // + loss-scale unscaling and the inf/NaN check
  CHECK(analyze("meta-llama/Llama-2-7b-hf", t).flops.mixed_precision == 4 * P);
}

TEST_CASE("recompute: full adds the layers' forward, selective the attention core (Korthikanti et al. 2022)",
          "[training]") {
  auto t = base_settings();
  t.recompute = recompute_policy::none;
  const auto none = analyze("meta-llama/Meta-Llama-3-8B", t);
  t.recompute = recompute_policy::full;
  const auto full = analyze("meta-llama/Meta-Llama-3-8B", t);
  t.recompute = recompute_policy::selective;
  const auto sel = analyze("meta-llama/Meta-Llama-3-8B", t);
  const auto& fwd = none.estimate.forward;
  // Full: one more forward of the layers (the head is not recomputed).
  CHECK(full.flops.total_step - none.flops.total_step ==
        Approx(fwd.parts.total - fwd.parts.output_head - fwd.parts.embedding - 4.0 * 2048 * 4096));
  CHECK(full.flops.recompute.layers / fwd.parts.total == Approx(1.0).margin(0.08));
  // FlashAttention: its backward kernel recomputes scores and softmax whatever the policy,
  // so selective recompute costs nothing more and stores what no recompute stores.
  CHECK(none.flops.recompute.flash_attention_kernel == fwd.attention.attention_scores + fwd.attention.softmax);
  CHECK(sel.flops.total_step == none.flops.total_step);
  CHECK(sel.memory.activations == none.memory.activations);
  CHECK(full.memory.activations < none.memory.activations);
  // Without FlashAttention, selective recomputes the core and drops the score matrices.
  t.base.flash_attention = false;
  const auto sel_eager = analyze("meta-llama/Meta-Llama-3-8B", t);
  t.recompute = recompute_policy::none;
  const auto none_eager = analyze("meta-llama/Meta-Llama-3-8B", t);
  CHECK(sel_eager.flops.recompute.attention_core ==
        fwd.attention.attention_scores + fwd.attention.softmax + fwd.attention.attention_values);
  CHECK(none_eager.flops.recompute.total == 0);
  CHECK(sel_eager.memory.activations == none.memory.activations);
  CHECK(none_eager.memory.activations - sel_eager.memory.activations ==
        32.0 * 2048 * 32 * 2048 * 2);  // layers x S x heads x S x 2 B
  // Default: full when gradient checkpointing is on, none when it is off.
  t = base_settings();
  CHECK(*analyze("meta-llama/Meta-Llama-3-8B", t).config.recompute == recompute_policy::full);
  t.base.gradient_checkpointing = false;
  CHECK(*analyze("meta-llama/Meta-Llama-3-8B", t).config.recompute == recompute_policy::none);
}

TEST_CASE("phases: roofline with estimate()'s peak, optimizer memory-bound, fusing cuts its traffic", "[training]") {
  const auto a = analyze("meta-llama/Meta-Llama-3-8B", base_settings(), "H100");
  // No efficiency given: the fitted training efficiency (0.430 of the BF16 peak; training_schedule.cpp).
  const double pc = 989.4e12 * 0.430, pm = 3.35e12 * 0.8;
  CHECK(a.peak_flops_per_s == a.estimate.perf.peak_flops_per_s);
  const auto& fwd = phase(a, flopcast::training_phase::forward);
  CHECK(fwd.compute_s == Approx(fwd.flops / pc));
  CHECK(fwd.memory_s == Approx((fwd.read_bytes + fwd.write_bytes) / pm));
  CHECK(fwd.limit == flopcast::bound::compute);
  CHECK(phase(a, flopcast::training_phase::backward_weight_gradients).limit == flopcast::bound::compute);
  const auto& opt = phase(a, flopcast::training_phase::optimizer);
  CHECK(opt.limit == flopcast::bound::memory);
  CHECK(opt.read_bytes + opt.write_bytes == 72.0 * 8030261248.0);  // 18 fp32 passes (foreach Adam)
  CHECK(phase(a, flopcast::training_phase::gradient_clipping).limit == flopcast::bound::memory);
  auto t = base_settings();
  t.fused_optimizer = true;
  const auto fused = analyze("meta-llama/Meta-Llama-3-8B", t, "H100");
  const auto& fopt = phase(fused, flopcast::training_phase::optimizer);
  CHECK(fopt.read_bytes + fopt.write_bytes == 28.0 * 8030261248.0);  // p, g, m, v in; p, m, v out
  CHECK(fopt.flops == opt.flops);
  // Arithmetic intensity is FLOPs per byte moved.
  CHECK(a.step.arithmetic_intensity == Approx(a.step.flops / (a.step.read_bytes + a.step.write_bytes)));
  CHECK(a.model_flops_utilization == Approx(a.flops.model_flops / (a.step.time_s * 989.4e12)));
  CHECK(a.model_flops_utilization < 0.5);
}

TEST_CASE("recommendations: fused optimizer, ZeRO stage, recompute policy", "[training]") {
  const auto has = [](const training_analysis& a, const std::string& prefix) {
    for (const auto& r : a.recommendations)
      if (r.action.rfind(prefix, 0) == 0 && !r.reason.empty()) return true;
    return false;
  };
  // Llama-3-8B full fine-tuning: 130 GB of state on an 80 GB GPU.
  const auto a = analyze("meta-llama/Meta-Llama-3-8B", base_settings(), "H100");
  CHECK(has(a, "use a fused optimizer"));
  CHECK(has(a, "shard with ZeRO stage"));
  auto t = base_settings();
  t.fused_optimizer = true;
  CHECK_FALSE(has(analyze("meta-llama/Meta-Llama-3-8B", t, "H100"), "use a fused optimizer"));
  // With 8 GPUs ZeRO-1 (optimizer state sharded) is enough: 16 + 16 + 96/8 + activations.
  t.gpus = 8;
  CHECK(has(analyze("meta-llama/Meta-Llama-3-8B", t, "H100"), "shard with ZeRO stage 1 over the 8 GPUs"));
  // A 1B model fits on an H200 without any recompute.
  const auto small = analyze("meta-llama/Llama-3.2-1B", base_settings(), "H200");
  CHECK(small.memory.fits_on_gpu);
  CHECK_FALSE(has(small, "shard with ZeRO"));
  CHECK(has(small, "use recompute policy none"));
  t = base_settings();
  t.recompute = recompute_policy::none;
  CHECK(has(analyze("meta-llama/Llama-3.2-1B", t, "H200"), "keep recompute policy none"));
}

TEST_CASE("token budget: steps, GPU-hours at an MFU, against 6 N D", "[training]") {
  auto t = base_settings(4, 2048);
  t.tokens = 1e12;
  t.mfu = 0.4;
  t.gpus = 64;
  const auto a = analyze("meta-llama/Meta-Llama-3-8B", t, "H100");
  const auto& b = a.budget;
  CHECK(b.tokens_per_step == 8192);
  CHECK(b.steps == std::ceil(1e12 / 8192));
  CHECK(b.model_flops == Approx(1e12 / 8192 * a.flops.model_flops));
  CHECK(b.total_flops == Approx(1e12 / 8192 * a.flops.total_step));
  CHECK(b.flops_6nd == 6 * 8030261248.0 * 1e12);
  CHECK(b.ratio_model_to_6nd == Approx(a.cross_check.ratio));
  CHECK(b.time_s == Approx(b.model_flops / (64 * 989.4e12 * 0.4)));
  CHECK(b.gpu_hours == Approx(b.time_s * 64 / 3600));
  // 6 x 8.03e9 x 1e12 = 4.8e22 FLOPs: at 40% of 989.4 TFLOP/s that is about 34k GPU-hours.
  CHECK(b.gpu_hours == Approx(6 * 8030261248.0 * 1e12 / (989.4e12 * 0.4) / 3600).epsilon(0.05));
  // Default: 20 tokens per parameter (Hoffmann et al. 2022) and MFU = the step's compute efficiency
  // (no efficiency given: the fitted training efficiency, 0.430; training_schedule.cpp).
  const auto d = analyze("meta-llama/Meta-Llama-3-8B");
  CHECK(d.budget.default_tokens);
  CHECK(d.budget.tokens == 20 * 8030261248.0);
  CHECK(d.budget.mfu == Approx(0.430));
  CHECK_FALSE(analyze("meta-llama/Meta-Llama-3-8B", base_settings(), nullptr).budget.has_time);
}

TEST_CASE("LoRA trainable parameters match PEFT's print_trainable_parameters()", "[training]") {
  // Llama-2-7B, r=8 on q_proj and v_proj (the PEFT documentation's example):
  // "trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622"
  auto t = base_settings();
  t.lora.rank = 8;
  t.lora.targets = flopcast::parse_lora_targets("q_proj,v_proj");
  auto a = analyze("meta-llama/Llama-2-7b-hf", t);
  REQUIRE(a.lora);
  CHECK(a.lora->trainable_parameters == 4194304);
  CHECK(a.lora->all_parameters == 6742609920);
  CHECK(std::round(a.lora->trainable_percent * 1e4) / 1e4 == 0.0622);
  CHECK(a.lora->adapted_matrices == 64);
  // Llama-2-7B, r=16 on every linear layer of the blocks (q,k,v,o,gate,up,down):
  // "trainable params: 39,976,960 || all params: 6,778,392,576"
  t.lora.rank = 16;
  t.lora.targets = flopcast::lora_all_modules;
  a = analyze("meta-llama/Llama-2-7b-hf", t);
  CHECK(a.lora->trainable_parameters == 39976960);
  CHECK(a.lora->all_parameters == 6778392576);
  // Mistral-7B (GQA: k and v are 4096 -> 1024), r=8 on q,k,v,o: 32 x 8 x (2 x 8192 + 2 x 5120).
  t.lora.rank = 8;
  t.lora.targets = flopcast::lora_attention_modules;
  CHECK(analyze("mistralai/Mistral-7B-v0.1", t).lora->trainable_parameters == 6815744);
  // Mixtral: every expert's gate/up/down is adapted; the router is not.
  t.lora.targets = flopcast::lora_mlp_modules;
  CHECK(analyze("mistralai/Mixtral-8x7B-v0.1", t).lora->trainable_parameters == 32LL * 8 * 3 * 8 * (4096 + 14336));
}

TEST_CASE("LoRA FLOPs: no weight gradients for the frozen base, optimizer on the adapters only", "[training]") {
  auto t = base_settings();
  const auto full = analyze("meta-llama/Llama-2-7b-hf", t);
  t.lora.rank = 8;
  t.lora.targets = flopcast::parse_lora_targets("q,v");
  const auto a = analyze("meta-llama/Llama-2-7b-hf", t);
  const double r = 8, T = 2048, h = 4096, adapters = 64;
  const double adapter_matmul = adapters * 2 * T * r * (h + h);
  CHECK(a.flops.lora_forward == adapter_matmul + adapters * T * h);
  CHECK(a.flops.forward == full.flops.forward + a.flops.lora_forward);
  CHECK(a.flops.backward.weight_gradient == adapter_matmul);  // dA and dB only
  CHECK(a.flops.backward.input_gradient ==
        Approx(full.flops.backward.input_gradient - T * h + adapter_matmul + adapters * T * h));
  CHECK(a.flops.optimizer == 14 * 4194304.0);
  CHECK(a.flops.gradient_clipping == 3 * 4194304.0);
  // Forward + backward drops from ~6 N T towards 4 N T: the frozen base skips its weight
  // gradients (and the embedding its scatter-add); the attention core stays.
  CHECK(a.flops.model_flops == Approx(full.flops.model_flops - full.flops.backward.weight_gradient +
                                      a.flops.lora_forward + a.flops.backward.lora_adapters));
  CHECK(a.cross_check.ratio > 2.0 / 3.0);
  CHECK(a.cross_check.ratio < 0.75);
  // Memory: the bf16 base + 16 bytes per adapter parameter + activations.
  CHECK(a.memory.weights == 6738415616.0 * 2 + 4194304.0 * 2);
  CHECK(a.memory.gradients == 4194304.0 * 2);
  CHECK(a.memory.optimizer_state == 4194304.0 * 12);
  CHECK(a.lora->adapter_bytes == 4194304.0 * 16);
  CHECK(a.memory.activations == full.memory.activations);
}

TEST_CASE("QLoRA: int4 NF4 base with double quantisation, 65B fits a 48 GB GPU (Dettmers et al. 2023)", "[training]") {
  const auto m65 = test::spec(llama_65b());
  // QLoRA's setting: r=64 on every linear layer, bf16 adapters, paged AdamW, checkpointing;
  // one sequence of 512 tokens.
  auto t = base_settings(1, 512);
  t.lora.rank = 64;
  t.lora.base_precision = precision::int4;
  const auto& a6000 = flopcast::find_gpu("RTX-A6000");
  const auto q = analyze_training(m65, t, &a6000);
  REQUIRE(q.lora);
  CHECK(q.lora->quantized);
  CHECK(q.lora->base_bits_per_quantized_weight == Approx(4.127).margin(0.001));  // 4 + 8/64 + 32/(64 x 256)
  CHECK(q.lora->trainable_parameters == 80LL * 64 * (4 * (8192 + 8192) + 3 * (8192 + 22016)));
  // "finetune a 65B parameter model on a single 48GB GPU": under 48 GiB, above the 4-bit weights alone.
  CHECK(q.memory.total < 48.0 * (1 << 30));
  CHECK(q.memory.total > 65.2e9 * 0.5);
  CHECK(q.memory.fits_on_gpu);
  // "... from >780GB of GPU memory" for 16-bit full fine-tuning.
  auto full = base_settings(1, 512);
  CHECK(analyze_training(m65, full, &a6000).memory.total > 780e9);
  // The same LoRA on a bf16 base does not fit.
  t.lora.base_precision.reset();
  CHECK_FALSE(analyze_training(m65, t, &a6000).memory.fits_on_gpu);
  // int8 base: between the two. Dequantisation is counted per weight and matmul pass.
  t.lora.base_precision = precision::int8;
  const auto q8 = analyze_training(m65, t, &a6000);
  CHECK(q8.lora->base_weight_bytes > q.lora->base_weight_bytes);
  CHECK(q8.lora->base_weight_bytes < 65.2e9 * 2);
  CHECK(q8.flops.mixed_precision ==
        Approx(2.0 * q8.lora->quantized_parameters * 3 + 2.0 * q8.lora->trainable_parameters));
  // Llama-2-7B QLoRA (r=64, all linear): a few GB, under a quarter of its bf16 LoRA.
  auto s7 = base_settings(1, 512);
  s7.lora.rank = 64;
  s7.lora.base_precision = precision::int4;
  const auto q7 = analyze("meta-llama/Llama-2-7b-hf", s7);
  CHECK(q7.memory.total > 4e9);
  CHECK(q7.memory.total < 10e9);
  CHECK(q7.lora->base_weight_bytes < 0.3 * 6738415616.0 * 2);
}

TEST_CASE("MoE, MLA, encoder-decoder and LayerNorm models decompose consistently", "[training]") {
  for (const char* m :
       {"mistralai/Mixtral-8x7B-v0.1", "deepseek-ai/DeepSeek-V2-Lite", "google-t5/t5-base", "openai-community/gpt2",
        "google-bert/bert-base-uncased", "facebook/opt-350m", "google/gemma-2-9b"}) {
    INFO(m);
    auto t = base_settings(1, 512);
    t.lora.rank = 4;
    const auto a = analyze(m, t);
    CHECK(a.flops.sum_of_parts_ratio == Approx(1.0));
    CHECK(a.lora->trainable_parameters > 0);
    CHECK(a.flops.backward.weight_gradient < a.flops.backward.input_gradient);
    const auto f = analyze(m, base_settings(1, 512));
    CHECK(f.flops.backward.ratio_to_forward == Approx(2.0).margin(0.1));
  }
}

TEST_CASE("parse and validate: bad settings name their field", "[training]") {
  CHECK(flopcast::parse_recompute_policy("Selective") == recompute_policy::selective);
  CHECK(flopcast::parse_lora_targets("attention") == flopcast::lora_attention_modules);
  CHECK(flopcast::parse_lora_targets("q_proj, v_proj") == (flopcast::lora_q | flopcast::lora_v));
  CHECK(flopcast::lora_targets_name(flopcast::lora_q | flopcast::lora_v) == "q,v");
  CHECK(flopcast::lora_targets_name(flopcast::lora_all_modules) == "all");
  CHECK_THROWS_WITH(flopcast::parse_recompute_policy("some"),
                    "[flopcast.invalid_argument] (/training_analysis/recompute) unknown recompute policy \"some\": "
                    "expected one of none, "
                    "selective, full");
  CHECK_THROWS_WITH(flopcast::parse_lora_targets("q,x"),
                    Catch::Contains("(/training_analysis/lora_targets) unknown LoRA target \"x\""));
  const auto& m = test::model("meta-llama/Llama-2-7b-hf");
  auto t = base_settings();
  t.tokens = 0;
  CHECK(error_of(m, t) ==
        "[flopcast.config.range] (/training_analysis/tokens) expected a number of tokens (or with a K/M/B/T suffix) in "
        "(0, 1e+18], but got 0");
  t = base_settings();
  t.mfu = 1.5;
  CHECK(error_of(m, t) == "[flopcast.config.range] (/training_analysis/mfu) expected a number in (0, 1], but got 1.5");
  t = base_settings();
  t.gpus = 0;
  CHECK(error_of(m, t).find("(/training_analysis/gpus) expected a positive integer (at most 2^24)") !=
        std::string::npos);
  t = base_settings();
  t.lora.rank = -1;
  CHECK(error_of(m, t).find("(/training_analysis/lora_rank)") != std::string::npos);
  t = base_settings();
  t.lora.base_precision = precision::int4;
  CHECK(error_of(m, t).find("(/training_analysis/base_precision) a frozen base precision applies to LoRA only") !=
        std::string::npos);
  t.lora.rank = 8;
  t.lora.base_precision = precision::fp8;
  CHECK(error_of(m, t).find("(/training_analysis/base_precision) expected int8, int4") != std::string::npos);
  t = base_settings();
  t.base.weight_precision = precision::int4;
  CHECK(error_of(m, t).find("(/precision)") != std::string::npos);
  // GPT-2's MLP is not gated: a gate-only target matches nothing.
  t = base_settings();
  t.lora.rank = 8;
  t.lora.targets = flopcast::lora_gate;
  CHECK(
      error_of(test::model("openai-community/gpt2"), t).find("(/training_analysis/lora_targets) no linear layer of") !=
      std::string::npos);
}

TEST_CASE("training JSON: stable keys, SI units", "[training]") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& gpu = flopcast::find_gpu("A100");
  const auto a = analyze_training(m, base_settings(), &gpu);
  const auto j = test::json::parse(flopcast::training_to_json(m, &gpu, a));
  for (const char* k : {"model", "settings", "parameters", "flops", "memory", "memory_traffic", "bottleneck",
                        "performance", "recommendations", "token_budget", "cross_check_6nd", "lora", "note"})
    CHECK(j.contains(k));
  CHECK(j["flops"]["total_step"].get<double>() == a.flops.total_step);
  CHECK(j["flops"]["backward"]["attention"]["dq_dk"].get<double>() == a.flops.backward.attention.dq_dk);
  CHECK(j["flops"]["within_5_percent"] == true);
  CHECK(j["cross_check_6nd"]["within_5_percent"] == true);
  CHECK(j["lora"].is_null());
  CHECK(j["bottleneck"].size() == flopcast::training_phase_count);
  CHECK(j["bottleneck"][0]["phase"] == "forward");
  CHECK(j["memory_traffic"]["total"]["read_bytes"].get<double>() == a.step.read_bytes);
  const auto none = flopcast::training_to_json(m, nullptr, analyze_training(m, base_settings(), nullptr));
  const auto jn = test::json::parse(none);
  CHECK(jn["performance"].is_null());
  CHECK(jn["bottleneck"][0]["bound"].is_null());
  CHECK(jn["token_budget"]["time_s"].is_null());
}
