// Number formats: bits per weight against each format's published layout, the compute path a
// format takes on each device generation, the checkpoint's quantization_config as the default,
// precisions per part, KV-cache formats and FP8/FP4 training memory against published recipes.
#include <catch2/catch.hpp>

#include "flopcast/checkpoint/checkpoint.hpp"
#include "helpers.hpp"

using namespace flopcast;
using test::json;

namespace {

estimate_result run_on(const std::string& model, precision p, const char* gpu) {
  settings s;
  s.weight_precision = p;
  s.num_generated_tokens = 16;
  return estimate(test::model(model), s, gpu ? &find_gpu(gpu) : nullptr);
}

json result(const json& request) { return test::run(request); }

}  // namespace

TEST_CASE("formats: bits per weight follow the published block layouts") {
  // GGML blocks (ggml-common.h static_asserts): bytes per block x 8 / weights per block.
  const std::pair<precision, double> gguf[] = {
      {precision::q2_k, 84 * 8 / 256.0},     // 2.625
      {precision::q3_k, 110 * 8 / 256.0},    // 3.4375
      {precision::q4_0, 18 * 8 / 32.0},      // 4.5
      {precision::q4_1, 20 * 8 / 32.0},      // 5.0
      {precision::q4_k, 144 * 8 / 256.0},    // 4.5
      {precision::q5_0, 22 * 8 / 32.0},      // 5.5
      {precision::q5_1, 24 * 8 / 32.0},      // 6.0
      {precision::q5_k, 176 * 8 / 256.0},    // 5.5
      {precision::q6_k, 210 * 8 / 256.0},    // 6.5625
      {precision::q8_0, 34 * 8 / 32.0},      // 8.5
      {precision::iq2_xxs, 66 * 8 / 256.0},  // 2.0625
      {precision::iq3_s, 110 * 8 / 256.0},   // 3.4375
      {precision::iq4_xs, 136 * 8 / 256.0},  // 4.25
      {precision::iq4_nl, 18 * 8 / 32.0},    // 4.5
  };
  for (const auto& [p, bits] : gguf) {
    INFO(to_string(p));
    CHECK(bits_per_weight(p) == bits);
    CHECK(format_of(p).family == format_family::gguf);
  }
  CHECK(bits_per_weight(precision::q2_k) == 2.625);
  CHECK(bits_per_weight(precision::q6_k) == 6.5625);
  // OCP MX v1.0: an e8m0 scale per 32 elements; NVFP4: an e4m3 scale per 16.
  CHECK(bits_per_weight(precision::mxfp4) == 4.25);
  CHECK(bits_per_weight(precision::mxfp6) == 6.25);
  CHECK(bits_per_weight(precision::mxfp8) == 8.25);
  CHECK(bits_per_weight(precision::nvfp4) == 4.5);
  // DeepSeek-V3's fp32 scale per 128 x 128 block; QLoRA's NF4 with double quantisation.
  CHECK(bits_per_weight(precision::fp8_block) == 8 + 32.0 / 16384);
  CHECK(bits_per_weight(precision::nf4) == Approx(4.127).epsilon(1e-3));
  // Every format is reachable by its name and its aliases, and every name is unique.
  for (const format_info& f : formats()) {
    CHECK(parse_precision(f.name) == f.id);
    CHECK(&format_of(f.id) == &f);
    CHECK(f.bits_per_weight > 0);
    CHECK(!f.source.empty());
  }
  CHECK(parse_precision("AWQ") == precision::int4);
  CHECK(parse_precision("gptq") == precision::int4);
  CHECK(parse_precision("fp4") == precision::nvfp4);
  CHECK(parse_precision("Q4_K_M") == precision::q4_k_m);
}

TEST_CASE("formats: the compute path per device generation") {
  // FP4 at the FP4 peak on Blackwell; dequantised to 16-bit on Hopper.
  const auto b200 = run_on("llama-3.1-8b", precision::nvfp4, "B200");
  CHECK(b200.perf.compute_precision == compute_unit::fp4);
  CHECK(b200.perf.peak_flops_per_s == *find_gpu("B200").peak_fp4);
  CHECK((b200.notes & note_native_low_precision) != 0);
  const auto h100 = run_on("llama-3.1-8b", precision::nvfp4, "H100");
  CHECK(h100.perf.compute_precision == compute_unit::bf16);
  CHECK((h100.notes & note_compute_fallback) != 0);
  CHECK(h100.perf.weight_only_path);
  CHECK(h100.perf.dequant_flops_prefill > 0);
  // FP8 W8A8 at the FP8 peak on Hopper; Ampere has no FP8 and runs it weight-only in bf16.
  CHECK(run_on("llama-3.1-8b", precision::fp8, "H100").perf.compute_precision == compute_unit::fp8);
  const auto a100 = run_on("llama-3.1-8b", precision::fp8, "A100");
  CHECK(a100.perf.compute_precision == compute_unit::bf16);
  CHECK(a100.perf.weight_only_path);
  // AWQ/GPTQ INT4 is weight-only everywhere: fp16 matmuls plus the dequantisation.
  const auto awq = run_on("llama-3.1-8b", precision::int4, "H100");
  CHECK(awq.perf.compute_precision == compute_unit::fp16);
  CHECK((awq.notes & note_weight_only_path) != 0);
  CHECK((awq.notes & note_compute_fallback) == 0);
  // A dequantisation pass costs 2 FLOPs per weight read; a decode step reads every weight once
  // and one row of the (untied) embedding table.
  CHECK(awq.perf.dequant_flops_step ==
        Approx(2 * (static_cast<double>(awq.parameters.total) - 128256.0 * 4096 + 4096)).epsilon(1e-12));
  // llama.cpp on GeForce: fp16 with fp16 accumulation (RTX 4090: 330.3 dense TFLOPS, Ada
  // whitepaper); on a data-centre card the plain fp16 rate.
  const auto rtx = run_on("llama-3.1-8b", precision::q4_k_m, "RTX 4090");
  CHECK(rtx.perf.compute_precision == compute_unit::fp16_acc16);
  CHECK(rtx.perf.peak_flops_per_s == Approx(330.3e12).epsilon(1e-3));
  CHECK((rtx.notes & note_fp16_accumulate) != 0);
  CHECK(run_on("llama-3.1-8b", precision::q4_k_m, "H100").perf.compute_precision == compute_unit::fp16);
  // The weight-only prefill is slower than the same FLOPs without dequantisation.
  settings s;
  s.num_generated_tokens = 16;
  s.weight_precision = precision::fp16;
  const auto fp16 = estimate(test::model("llama-3.1-8b"), s, &find_gpu("H100"));
  CHECK(awq.perf.prefill_compute_s > fp16.perf.prefill_compute_s);
}

TEST_CASE("formats: a llama.cpp preset is planned tensor by tensor") {
  // Llama-3.1-8B Q4_K_M: llama.cpp's tools/quantize/README.md lists 4.8944 bits per weight (with
  // rope_freqs); without that 64-element tensor the plan is the same to 4 digits.
  const auto r = run_on("llama-3.1-8b", precision::q4_k_m, nullptr);
  CHECK(std::string(r.memory.weights_source) == "gguf_plan");
  CHECK(r.memory.weights_bits_per_weight == Approx(4.8944).epsilon(2e-4));
  CHECK((r.notes & note_preset_planned) != 0);
  // Q4_K_S and Q8_0 too (README: 4.6672 and 8.5008).
  CHECK(run_on("llama-3.1-8b", precision::q4_k_s, nullptr).memory.weights_bits_per_weight ==
        Approx(4.6672).epsilon(2e-4));
  CHECK(run_on("llama-3.1-8b", precision::q8_0, nullptr).memory.weights_bits_per_weight ==
        Approx(8.5008).epsilon(2e-4));
  // An architecture the plan does not know (MLA) is costed at the base type, and says so.
  const auto ds = run_on("deepseek-v3", precision::q4_k_m, nullptr);
  CHECK(std::string(ds.memory.weights_source) == "format");
  CHECK((ds.notes & note_preset_approximated) != 0);
}

TEST_CASE("formats: quantization_config sets the default, a request's precision wins") {
  // gpt-oss-120b ships MXFP4 experts with everything else in bf16; OpenAI's model card: it
  // "runs within 80GB of memory" (a single H100).
  const json d = result({{"model", "gpt-oss-120b"}, {"gpu", "H100"}});
  const json& mem = d["details"]["memory"];
  CHECK(mem["weights_precision_by_part"]["experts"] == "mxfp4");
  CHECK(mem["weights_precision_by_part"]["attention"] == "bf16");
  CHECK(mem["weights"].get<double>() < 80e9);
  CHECK(mem["weights"].get<double>() > 55e9);
  CHECK(d["details"]["config"]["quantization"]["method"] == "mxfp4");
  const json bf16 = result({{"model", "gpt-oss-120b"}, {"precision", "bf16"}, {"gpu", "H100"}});
  CHECK(bf16["details"]["memory"]["weights"].get<double>() > 2 * mem["weights"].get<double>());
  // DeepSeek-V3 ships FP8 with 128 x 128 block scales.
  CHECK(result({{"model", "deepseek-v3"}})["details"]["memory"]["weights_precision_by_part"]["mlp"] == "fp8_block");
  // AWQ, GPTQ, bitsandbytes, compressed-tensors and ModelOpt configs.
  const auto with_quant = [](const json& q) {
    json c = test::llama_config(8);
    c["quantization_config"] = q;
    return test::spec(c).quantization;
  };
  CHECK(with_quant({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}}).weights == precision::int4);
  CHECK(with_quant({{"quant_method", "gptq"}, {"bits", 8}}).weights == precision::int8);
  CHECK(with_quant({{"quant_method", "bitsandbytes"}, {"load_in_4bit", true}}).weights == precision::nf4);
  CHECK(with_quant({{"quant_method", "compressed-tensors"}, {"format", "nvfp4-pack-quantized"}}).weights ==
        precision::nvfp4);
  const json ct = json::parse(
      R"({"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "float"}}}})");
  CHECK(with_quant(ct).weights == precision::fp8);
  CHECK(with_quant({{"quant_method", "modelopt"}, {"quant_algo", "NVFP4"}}).weights == precision::nvfp4);
  const auto unknown = with_quant({{"quant_method", "hqq"}});
  CHECK(unknown.weights == precision::bf16);
  CHECK(unknown.note.find("not read") != std::string::npos);
  json bad = test::llama_config(8);
  bad["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 3}};
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("(/quantization_config/bits) expected 4 or 8"));
}

TEST_CASE("formats: a precision per part, in JSON and on the command line's form") {
  const json one = result({{"model", "mixtral-8x7b"}, {"precision", {{"default", "bf16"}, {"experts", "nvfp4"}}}});
  const json& m = one["details"]["memory"];
  CHECK(m["weights_precision_by_part"]["experts"] == "nvfp4");
  CHECK(m["weights_precision_by_part"]["attention"] == "bf16");
  const double experts = m["weights_by_part"]["experts"].get<double>();
  const json all16 = result({{"model", "mixtral-8x7b"}, {"precision", "bf16"}});
  CHECK(experts == Approx(all16["details"]["memory"]["weights_by_part"]["experts"].get<double>() * 4.5 / 16));
  CHECK_THROWS_WITH(
      flopcast::estimate_json(json({{"model", "mixtral-8x7b"}, {"precision", {{"expert", "nvfp4"}}}}).dump()),
      Catch::Contains("(/precision/expert) expected a part of the model"));
  CHECK_THROWS_WITH(
      flopcast::estimate_json(json({{"model", "mixtral-8x7b"}, {"precision", {{"experts", "fp5"}}}}).dump()),
      Catch::Contains("(/precision/experts) unknown precision \"fp5\""));
}

TEST_CASE("formats: KV caches in llama.cpp's and the engines' formats") {
  const auto& m = test::model("llama-3.1-8b");
  const double kv16 = kv_cache_bytes(m, 1, 4096, precision::fp16, 0);
  CHECK(kv_cache_bytes(m, 1, 4096, precision::q8_0, 0) == Approx(kv16 * 8.5 / 16));
  CHECK(kv_cache_bytes(m, 1, 4096, precision::q4_0, 0) == Approx(kv16 * 4.5 / 16));
  CHECK(kv_cache_bytes(m, 1, 4096, precision::fp8, 0) == kv16 / 2);
  settings s;
  s.kv_cache_precision = precision::q4_k_m;
  CHECK_THROWS_WITH(estimate(m, s, nullptr),
                    Catch::Contains("(/kv_cache_precision) a KV cache cannot be stored in q4_k_m"));
}

TEST_CASE("formats: FP8 and NVFP4 training at the low-precision peak with the recipes' state") {
  const auto& m = test::model("llama-3.1-8b");
  settings s;
  s.training = true;
  s.batch_size = 1;
  s.sequence_length = 4096;
  s.weight_precision = precision::bf16;
  const auto bf16 = estimate(m, s, &find_gpu("H100"));
  s.weight_precision = precision::fp8;
  const auto fp8 = estimate(m, s, &find_gpu("H100"));
  const double P = static_cast<double>(fp8.parameters.total);
  // Transformer Engine FP8: bf16 weights + their FP8 copy, bf16 gradients, fp32 master + Adam.
  CHECK(fp8.memory.train_weights == Approx(3 * P));
  CHECK(fp8.memory.train_gradients == Approx(2 * P));
  CHECK(fp8.memory.train_optimizer_state == Approx(12 * P));
  CHECK(fp8.perf.compute_precision == compute_unit::fp8);
  CHECK(fp8.perf.training_step_s < bf16.perf.training_step_s);
  // DeepSeek-V3's recipe: fp32 gradients and master, bf16 AdamW moments.
  s.weight_precision = precision::fp8_block;
  const auto ds = estimate(m, s, &find_gpu("H100"));
  CHECK(ds.memory.train_gradients == Approx(4 * P));
  CHECK(ds.memory.train_optimizer_state == Approx(8 * P));
  // NVFP4 on Blackwell at the FP4 peak.
  s.weight_precision = precision::nvfp4;
  CHECK(estimate(m, s, &find_gpu("B200")).perf.compute_precision == compute_unit::fp4);
  // Weight-only formats do not train (QLoRA does, through the training analysis).
  s.weight_precision = precision::int4;
  CHECK_THROWS_WITH(estimate(m, s, nullptr), Catch::Contains("training in int4 is not modelled"));
}
