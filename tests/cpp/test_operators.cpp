// The per-operator tables (operators.hpp): the rows add up to the estimate's pass FLOPs, weights
// read and KV traffic, each row's bound and time follow the roofline, and one small config's rows
// match counts made by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>

#include "helpers.hpp"

using flopcast::estimate;
using flopcast::find_gpu;
using flopcast::operator_pass;
using flopcast::operator_row;
using flopcast::operator_table;

namespace {

struct sums {
  double flops = 0, weights = 0, kv = 0;
};
sums sum(const operator_pass& p) {
  sums s;
  for (const operator_row& r : p.rows) {
    s.flops += r.flops;
    s.weights += r.weight_bytes;
    s.kv += r.kv_bytes;
  }
  return s;
}

// Every invariant of one estimate's tables.
void check_invariants(const flopcast::model_spec& m, const flopcast::settings& s) {
  const auto& gpu = find_gpu("H100");
  const auto r = estimate(m, s, &gpu);
  const auto t = operator_table(m, s, r);
  const auto& p = r.perf;
  REQUIRE(t.has_device);
  const sums pre = sum(t.prefill);
  CHECK(pre.flops == Approx(p.prefill_flops).epsilon(1e-9));
  // The prefill reads the weights once and writes the prompt's cache (roofline.cpp's prefill bytes).
  CHECK(pre.kv == Approx(r.memory.kv_cache_prompt).epsilon(1e-9).margin(1e-6));
  CHECK(pre.weights == Approx(p.prefill_bytes - r.memory.kv_cache_prompt).epsilon(1e-9));
  if (m.arch != flopcast::architecture::encoder) {
    const sums dec = sum(t.decode);
    CHECK(dec.flops == Approx(p.decode_first_step_flops).epsilon(1e-9));
    CHECK(dec.weights + dec.kv == Approx(p.decode_first_step_bytes).epsilon(1e-9));
    // Weights read by B tokens: at most the prefill's (fewer embedding rows and experts).
    CHECK(dec.weights <= pre.weights * (1 + 1e-12));
    CHECK(dec.weights > 0);
  } else {
    CHECK(t.decode.rows.empty());
  }
  for (const operator_pass* pass : {&t.prefill, &t.decode}) {
    const double ce = pass->compute_efficiency, me = s.mem_efficiency;
    for (const operator_row& row : pass->rows) {
      INFO(row.name << " group " << row.group);
      CHECK(row.flops >= -1e-6 * p.prefill_flops);
      CHECK(row.weight_bytes >= 0);
      CHECK(row.activation_bytes >= 0);
      CHECK(row.kv_bytes >= 0);
      CHECK(row.layers >= 1);
      if (row.bytes() > 0) CHECK(row.intensity() == Approx(row.flops / row.bytes()).epsilon(1e-12));
      CHECK(row.compute_s == Approx(row.flops / (p.peak_flops_per_s * ce)).epsilon(1e-12).margin(1e-30));
      CHECK(row.memory_s == Approx(row.bytes() / (p.memory_bandwidth_bytes_per_s * me)).epsilon(1e-12));
      CHECK(row.compute_bound() ==
            (row.flops / (p.peak_flops_per_s * ce) > row.bytes() / (p.memory_bandwidth_bytes_per_s * me)));
      CHECK(row.time_s() == std::max(row.compute_s, row.memory_s));
    }
  }
}

std::map<std::string, const operator_row*> by_name(const operator_pass& p, int group) {
  std::map<std::string, const operator_row*> out;
  for (const operator_row& r : p.rows)
    if (r.group == group) out[r.name] = &r;
  return out;
}

}  // namespace

TEST_CASE("operators: rows add up to the pass for a dense GQA model", "[operators]") {
  flopcast::settings s;
  s.batch_size = 4;
  s.sequence_length = 1024;
  check_invariants(test::model("llama-3-8b"), s);
  s.causal = true;
  s.weight_precision = flopcast::precision::int4;
  check_invariants(test::model("llama-3-8b"), s);
}

TEST_CASE("operators: MoE rows (router, experts at the experts reached, shared experts)", "[operators]") {
  flopcast::settings s;
  s.batch_size = 2;
  s.sequence_length = 512;
  for (const char* name :
       {"mixtral-8x7b", "qwen3-30b-a3b", "qwen1.5-moe-a2.7b", "gpt-oss-20b", "llama-4-scout-17b-16e-instruct"}) {
    INFO(name);
    check_invariants(test::model(name), s);
  }
  // Routed experts: the decode step of batch 1 reaches k of E experts per layer, the prefill all.
  const auto& m = test::model("mixtral-8x7b");
  const auto r = estimate(m, s, &find_gpu("H100"));
  const auto t = operator_table(m, s, r);
  const auto pre = by_name(t.prefill, 0), dec = by_name(t.decode, 0);
  REQUIRE(pre.count("experts_up") == 1);
  REQUIRE(pre.count("router") == 1);
  // Mixtral: 8 experts, 2 per token; batch 2: 1 - (1 - 2/8)^2 of them reached per layer.
  const double reached = 1 - (1 - 2.0 / 8) * (1 - 2.0 / 8);
  CHECK(dec.at("experts_up")->weight_bytes == Approx(pre.at("experts_up")->weight_bytes * reached).epsilon(1e-9));
  // The router's FLOPs: 2 x tokens x hidden x experts + 5 x tokens x experts per layer, 32 layers.
  CHECK(pre.at("router")->flops == Approx(32.0 * (2.0 * 1024 * 4096 * 8 + 5.0 * 1024 * 8)).epsilon(1e-12));
  // Experts on the active path: k x the gated MLP (2 x T x h x I per projection).
  CHECK(pre.at("experts_gate")->flops == Approx(32.0 * 2 * 2 * 1024 * 4096 * 14336).epsilon(1e-12));
}

TEST_CASE("operators: MLA (DeepSeek-V3), absorbed in decode", "[operators]") {
  flopcast::settings s;
  s.batch_size = 2;
  s.sequence_length = 2048;
  s.weight_precision = flopcast::precision::fp8;
  check_invariants(test::model("deepseek-v3"), s);
  const auto& m = test::model("deepseek-v3");
  const auto t = operator_table(m, s, estimate(m, s, &find_gpu("H100")));
  // Dense first layers and MoE layers are separate groups.
  bool dense = false, moe = false;
  for (const auto& row : t.prefill.rows) {
    dense = dense || row.name == "mlp_down";
    moe = moe || row.name == "experts_down";
  }
  CHECK(dense);
  CHECK(moe);
}

TEST_CASE("operators: hybrids and other layer kinds", "[operators]") {
  flopcast::settings s;
  s.batch_size = 2;
  s.sequence_length = 700;
  for (const char* name : {"qwen3-next-80b-a3b-instruct", "jamba-v0.1", "nemotron-h-8b", "falcon-mamba-7b",
                           "mamba-2.8b", "gemma-2-9b", "gemma-3-4b-it", "flan-t5-small", "bert-base", "opt-350m",
                           "llava-1.5-7b", "phi-2", "bloom-560m", "deepseek-v2-lite", "rwkv6-1b6", "rwkv7-2.9b"}) {
    INFO(name);
    check_invariants(test::model(name), s);
  }
  // Qwen3-Next: the linear-attention layers have mixer rows that move the recurrent state.
  const auto& m = test::model("qwen3-next-80b-a3b-instruct");
  const auto r = estimate(m, s, &find_gpu("H100"));
  const auto t = operator_table(m, s, r);
  double state = 0;
  bool attention = false;
  for (const auto& row : t.decode.rows) {
    if (row.name == "mixer_scan") state += row.kv_bytes;
    attention = attention || row.name == "attention_scores";
  }
  CHECK(attention);
  CHECK(state == Approx(2 * r.memory.recurrent_state).epsilon(1e-12));  // read and written once
}

TEST_CASE("operators: a 2-layer config counted by hand", "[operators]") {
  auto config = test::llama_config(2);
  config["hidden_size"] = 64;
  config["num_hidden_layers"] = 2;
  config["num_attention_heads"] = 4;
  config["intermediate_size"] = 128;
  config["vocab_size"] = 1000;
  const auto m = test::spec(config);
  flopcast::settings s;  // bf16 weights and cache, not causal
  s.batch_size = 2;
  s.sequence_length = 8;
  const auto& gpu = find_gpu("H100");
  const auto r = estimate(m, s, &gpu);
  const auto t = operator_table(m, s, r);
  const auto pre = by_name(t.prefill, 0), dec = by_name(t.decode, 0);
  const double L = 2, T = 16, h = 64, hd = 16, nh = 4, nkv = 2, I = 128, V = 1000;
  const double pairs = 2 * 8 * 8;  // B x S x S (no causal mask)
  CHECK(pre.at("q_proj")->layers == 2);
  CHECK(pre.at("q_proj")->flops == L * 2 * T * h * nh * hd);
  CHECK(pre.at("k_proj")->flops == L * 2 * T * h * nkv * hd);
  CHECK(pre.at("v_proj")->flops == L * 2 * T * h * nkv * hd);
  CHECK(pre.at("rotary")->flops == L * 3 * T * (nh + nkv) * hd);
  CHECK(pre.at("attention_scores")->flops == L * 2 * pairs * nh * hd);
  CHECK(pre.at("softmax")->flops == L * 5 * pairs * nh);
  CHECK(pre.at("attention_values")->flops == L * 2 * pairs * nh * hd);
  CHECK(pre.at("o_proj")->flops == L * 2 * T * nh * hd * h);
  CHECK(pre.at("mlp_gate")->flops == L * 2 * T * h * I);
  CHECK(pre.at("mlp_up")->flops == L * 2 * T * h * I);
  CHECK(pre.at("mlp_act")->flops == L * 2 * T * I);  // SiLU + the gate product
  CHECK(pre.at("mlp_down")->flops == L * 2 * T * I * h);
  CHECK(pre.at("norms")->flops == L * 2 * 4 * T * h);  // two RMSNorms per layer, 4 per element
  const auto top = by_name(t.prefill, -1);
  CHECK(top.at("final_norm")->flops == 4 * T * h);
  CHECK(top.at("lm_head")->flops == 2 * 2 * h * V);  // the last position of each sequence
  // Weights in bf16 (2 bytes), norms 16-bit; the embedding by the rows gathered.
  CHECK(pre.at("q_proj")->weight_bytes == L * h * nh * hd * 2);
  CHECK(pre.at("k_proj")->weight_bytes == L * h * nkv * hd * 2);
  CHECK(pre.at("mlp_down")->weight_bytes == L * I * h * 2);
  CHECK(pre.at("norms")->weight_bytes == L * 2 * h * 2);
  CHECK(top.at("final_norm")->weight_bytes == h * 2);
  CHECK(top.at("lm_head")->weight_bytes == h * V * 2);
  CHECK(top.at("embedding")->weight_bytes == T * h * 2);
  CHECK(by_name(t.decode, -1).at("embedding")->weight_bytes == 2 * h * 2);
  CHECK(pre.at("attention_scores")->weight_bytes == 0);
  // KV: the prompt's K and V written by k_proj and v_proj; decode writes one token's and reads
  // the S + 1 keys it attends to.
  CHECK(pre.at("k_proj")->kv_bytes == L * T * nkv * hd * 2);
  CHECK(pre.at("v_proj")->kv_bytes == L * T * nkv * hd * 2);
  CHECK(dec.at("k_proj")->kv_bytes == L * 2 * nkv * hd * 2);
  CHECK(dec.at("attention_scores")->kv_bytes == L * 2 * 9 * nkv * hd * 2);
  CHECK(dec.at("attention_values")->kv_bytes == L * 2 * 9 * nkv * hd * 2);
  CHECK(dec.at("q_proj")->flops == L * 2 * 2 * h * nh * hd);
  CHECK(dec.at("attention_scores")->flops == L * 2 * (2 * 9) * nh * hd);
  // Activations (16-bit): q_proj reads the hidden state and writes q.
  CHECK(pre.at("q_proj")->activation_bytes == L * T * (h + nh * hd) * 2);
  // Bound and time on the H100 at the default efficiencies (0.5 of the bf16 peak, 0.8 of the bandwidth).
  const double peak = gpu.peak(flopcast::precision::bf16).value(), bw = gpu.memory_bandwidth_bytes_per_s;
  const auto& q = *pre.at("q_proj");
  CHECK(q.compute_s == Approx(q.flops / (peak * 0.5)).epsilon(1e-12));
  CHECK(q.memory_s == Approx((q.weight_bytes + q.activation_bytes) / (bw * 0.8)).epsilon(1e-12));
  CHECK_FALSE(q.compute_bound());  // 16 tokens: a weight read per 16 multiply-adds
}

TEST_CASE("operators: the JSON field is null unless asked, rows sum to the pass when asked", "[operators]") {
  const auto plain = test::run({{"model", "llama-3-8b"}, {"gpu", "H100"}});
  CHECK(plain["details"]["operators"].is_null());
  const auto asked = test::run({{"model", "qwen3-30b-a3b"}, {"gpu", "H100"}, {"operator_table", true}});
  const auto& ops = asked["details"]["operators"];
  REQUIRE(ops.is_object());
  double prefill = 0, decode = 0;
  for (const auto& row : ops["prefill"]) prefill += row["flops"].get<double>();
  for (const auto& row : ops["decode"]) decode += row["flops"].get<double>();
  const auto& perf = asked["details"]["performance"];
  CHECK(prefill == Approx(perf["prefill_flops"].get<double>()).epsilon(1e-9));
  CHECK(decode == Approx(perf["decode_first_step_flops"].get<double>()).epsilon(1e-9));
  CHECK(ops["device"]["peak_flops_per_s"] == perf["peak_flops_per_s"]);
  for (const auto& row : ops["prefill"]) {
    INFO(row.dump());
    const bool compute = row["compute_s"].get<double>() > row["memory_s"].get<double>();
    CHECK(row["bound"] == (compute ? "compute" : "memory"));
  }
  // Without a GPU: figures, no bound or time.
  const auto bare = test::run({{"model", "llama-3-8b"}, {"gpu", nullptr}, {"operator_table", true}});
  CHECK(bare["details"]["operators"]["device"].is_null());
  CHECK(bare["details"]["operators"]["prefill"][0]["bound"].is_null());
  CHECK(bare["details"]["operators"]["prefill"][0]["flops"].get<double>() > 0);
}

TEST_CASE("operators: each part at its own format (gpt-oss: MXFP4 experts beside bf16 attention)", "[operators]") {
  const auto out = test::run({{"model", "gpt-oss-20b"}, {"gpu", "H100"}, {"operator_table", true}});
  const auto& mem = out["details"]["memory"];
  const auto& by_part = mem["weights_precision_by_part"];
  REQUIRE(by_part["experts"] != by_part["attention"]);
  double experts = 0, attention = 0;
  for (const auto& row : out["details"]["operators"]["prefill"]) {
    const std::string name = row["name"];
    if (name == "experts_act" || name == "experts_combine") CHECK(row["precision"].is_null());  // no weights
    if (name == "experts_gate" || name == "experts_up" || name == "experts_down" || name == "router") {
      CHECK(row["precision"] == by_part["experts"]);
      experts += row["weight_bytes"].get<double>();
    }
    if (name == "q_proj" || name == "k_proj" || name == "v_proj" || name == "o_proj" || name == "softmax") {
      CHECK(row["precision"] == by_part["attention"]);
      attention += row["weight_bytes"].get<double>();
    }
    if (name == "attention_scores") CHECK(row["precision"].is_null());
    if (name == "norms" || name == "final_norm") CHECK(row["precision"] == "bf16");  // norms stay 16-bit
  }
  // 2048 prompt tokens reach every expert (1 - (1 - 4/32)^2048 = 1 in double): the prefill reads
  // the whole experts part; the attention part less its norms (16-bit, in the norms rows).
  CHECK(experts == Approx(mem["weights_by_part"]["experts"].get<double>()).epsilon(1e-12));
  const double norms = out["details"]["parameters"]["norm"].get<double>() * 2;
  CHECK(attention == Approx(mem["weights_by_part"]["attention"].get<double>() - norms).epsilon(1e-12));
}

TEST_CASE("operators: an engine's GEMM curve and KV-read efficiency time the rows as the estimate does",
          "[operators]") {
  const auto& m = test::model("mixtral-8x7b");
  flopcast::settings s;
  s.batch_size = 8;
  s.sequence_length = 256;
  s.costs.gemm_half_tokens = 100;
  s.costs.kv_read_efficiency = 0.5;
  const auto& gpu = find_gpu("H100");
  const auto r = estimate(m, s, &gpu);
  const auto t = operator_table(m, s, r);
  const double peak = r.perf.peak_flops_per_s, pm = gpu.memory_bandwidth_bytes_per_s * s.mem_efficiency;
  const auto dec = by_name(t.decode, 0), pre = by_name(t.prefill, 0);
  // Dense GEMMs at the pass's tokens: T / (T + 100); experts at the tokens each running expert
  // takes: T x 2 over the E (1 - (1 - 2/8)^T) experts the T tokens reach.
  const auto curve = [](double tokens) { return tokens / (tokens + 100); };
  CHECK(t.decode.compute_efficiency == Approx(0.5 * curve(8)).epsilon(1e-12));
  CHECK(dec.at("q_proj")->compute_s == Approx(dec.at("q_proj")->flops / (peak * 0.5 * curve(8))).epsilon(1e-12));
  CHECK(dec.at("experts_up")->compute_s ==
        Approx(dec.at("experts_up")->flops / (peak * 0.5 * curve(8 * 2.0 / (8 * (1 - std::pow(0.75, 8))))))
            .epsilon(1e-12));
  CHECK(pre.at("experts_up")->compute_s ==
        Approx(pre.at("experts_up")->flops / (peak * 0.5 * curve(2048 * 2.0 / 8))).epsilon(1e-12));
  // The cached K/V a decode step reads at half the bandwidth; the new token's K/V written at full.
  const auto& sc = *dec.at("attention_scores");
  CHECK(sc.memory_s == Approx((sc.weight_bytes + sc.activation_bytes + 2 * sc.kv_bytes) / pm).epsilon(1e-12));
  const auto& kp = *dec.at("k_proj");
  CHECK(kp.memory_s == Approx(kp.bytes() / pm).epsilon(1e-12));
  const auto& ps = *pre.at("attention_scores");
  CHECK(ps.memory_s == Approx(ps.bytes() / pm).epsilon(1e-12));
}
