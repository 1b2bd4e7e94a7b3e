// The reference decoder: a tiny config against a naive implementation, decoding with the
// KV cache against recomputing the whole sequence, precision effects, and the FLOPs and
// bytes its kernels count against the analytical estimate of the same configuration.
//
// What must match the estimate exactly (fp32, any supported config): every FLOP component
// (qkv_projection incl. biases, rotary, attention_scores, softmax, attention_values,
// output_projection, mlp, norm incl. q/k norms, output_head) of the prefill (causal, head on
// the last position) and of the first decode step; the decode step's bytes (weights, KV read
// for context + 1 positions, KV written); the prefill bytes (weights + KV written) without
// sliding windows. What differs by design: the KV reads of prefill (the estimate ignores
// them), gathered embedding rows when tied (the estimate counts the table once, as the
// head), int8 scales (weights: 4 B per row; KV: 4 B per head and position for K and V) and
// windowed layers' prefill KV writes (the estimate caps the cache at the window, the
// decoder keeps every position).
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "flopcast/base/error.hpp"
#include "flopcast/flopcast.hpp"
#include "flopcast/measure/decoder.hpp"
#include "helpers.hpp"

using namespace flopcast::measure;
using flopcast::model_spec;

namespace {

model_spec config(const test::json& j) { return flopcast::read_hf_config(j.dump(), "test-model"); }

test::json tiny_llama(bool tied = false, int kv_heads = 2) {
  return {{"model_type", "llama"},
          {"hidden_size", 64},
          {"num_hidden_layers", 2},
          {"num_attention_heads", 4},
          {"num_key_value_heads", kv_heads},
          {"intermediate_size", 96},
          {"vocab_size", 200},
          {"tie_word_embeddings", tied}};
}

std::vector<std::int32_t> tokens(std::int64_t n, std::int64_t vocab, unsigned seed = 1) {
  std::vector<std::int32_t> t(static_cast<std::size_t>(n));
  std::uint64_t s = seed;
  for (auto& x : t) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<std::int32_t>((s >> 33) % static_cast<std::uint64_t>(vocab));
  }
  return t;
}

double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, double(std::fabs(x)));
  return m;
}

double max_diff(const float* a, const float* b, std::size_t n) {
  double m = 0;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, double(std::fabs(a[i] - b[i])));
  return m;
}

// A naive decoder in double over the decoder's own (dequantised) weights: one sequence,
// every position recomputed, logits of the last position.
std::vector<double> naive_logits(const decoder& d, const std::vector<std::int32_t>& seq) {
  const decoder_shape& s = d.shape();
  const std::int64_t T = static_cast<std::int64_t>(seq.size()), h = s.hidden, hd = s.head_dim;
  const std::int64_t qw = s.heads * hd, kw = s.kv_heads * hd, ldq = qw + 2 * kw, I = s.intermediate;
  using mat = std::vector<std::vector<double>>;
  const auto rms = [&](const std::vector<double>& x, const std::vector<float>& w) {
    double ss = 0;
    for (double v : x) ss += v * v;
    const double inv = 1.0 / std::sqrt(ss / double(x.size()) + s.norm_eps);
    std::vector<double> y(x.size());
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = x[j] * inv * w[j];
    return y;
  };
  const auto linear = [](const std::vector<double>& x, const std::vector<float>& w, std::int64_t n) {
    const std::int64_t k = static_cast<std::int64_t>(x.size());
    std::vector<double> y(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t p = 0; p < k; ++p) y[j] += x[p] * w[j * k + p];
    return y;
  };
  const auto rope = [&](double* v, std::int64_t pos) {
    const std::int64_t half = s.rotary_dim / 2;
    for (std::int64_t i = 0; i < half; ++i) {
      const double f = std::pow(double(s.rope_theta), -2.0 * i / double(s.rotary_dim)), a = pos * f;
      const double x1 = v[i], x2 = v[i + half];
      v[i] = x1 * std::cos(a) - x2 * std::sin(a);
      v[i + half] = x2 * std::cos(a) + x1 * std::sin(a);
    }
  };
  const auto emb = d.embedding().unpack();
  mat x(static_cast<std::size_t>(T));
  for (std::int64_t t = 0; t < T; ++t) x[t].assign(emb.begin() + seq[t] * h, emb.begin() + (seq[t] + 1) * h);
  for (std::int64_t l = 0; l < s.layers; ++l) {
    const auto L = d.layer(l);
    const auto wqkv = L.qkv.unpack(), wo = L.o.unpack(), wgu = L.gate_up.unpack(), wd = L.down.unpack();
    mat qkv(static_cast<std::size_t>(T));
    for (std::int64_t t = 0; t < T; ++t) {
      qkv[t] = linear(rms(x[t], L.attn_norm), wqkv, ldq);
      if (s.qkv_bias)
        for (std::int64_t j = 0; j < ldq; ++j) qkv[t][j] += L.qkv_bias[j];
      if (s.qk_norm)
        for (std::int64_t hh = 0; hh < s.heads + s.kv_heads; ++hh) {
          std::vector<double> v(qkv[t].begin() + hh * hd, qkv[t].begin() + (hh + 1) * hd);
          v = rms(v, hh < s.heads ? L.q_norm : L.k_norm);
          std::copy(v.begin(), v.end(), qkv[t].begin() + hh * hd);
        }
      for (std::int64_t hh = 0; hh < s.heads + s.kv_heads; ++hh) rope(qkv[t].data() + hh * hd, t);
    }
    const std::int64_t window = s.window[l];
    for (std::int64_t t = 0; t < T; ++t) {
      std::vector<double> att(static_cast<std::size_t>(s.heads * hd), 0.0);
      const std::int64_t lo = window > 0 ? std::max<std::int64_t>(0, t - window + 1) : 0;
      for (std::int64_t hh = 0; hh < s.heads; ++hh) {
        const std::int64_t g = hh / (s.heads / s.kv_heads);
        std::vector<double> sc;
        double mx = -1e300;
        for (std::int64_t u = lo; u <= t; ++u) {
          double dot = 0;
          for (std::int64_t j = 0; j < hd; ++j) dot += qkv[t][hh * hd + j] * qkv[u][qw + g * hd + j];
          sc.push_back(dot / std::sqrt(double(hd)));
          mx = std::max(mx, sc.back());
        }
        double sum = 0;
        for (auto& v : sc) sum += (v = std::exp(v - mx));
        for (std::int64_t u = lo; u <= t; ++u)
          for (std::int64_t j = 0; j < hd; ++j) att[hh * hd + j] += sc[u - lo] / sum * qkv[u][qw + kw + g * hd + j];
      }
      const auto o = linear(att, wo, h);
      for (std::int64_t j = 0; j < h; ++j) x[t][j] += o[j];
      const auto gu = linear(rms(x[t], L.mlp_norm), wgu, 2 * I);
      std::vector<double> a(static_cast<std::size_t>(I));
      for (std::int64_t j = 0; j < I; ++j) a[j] = gu[j] / (1 + std::exp(-gu[j])) * gu[I + j];
      const auto down = linear(a, wd, h);
      for (std::int64_t j = 0; j < h; ++j) x[t][j] += down[j];
    }
  }
  return linear(rms(x[T - 1], d.final_norm()), d.head().unpack(), s.vocab);
}

flopcast::settings settings_for(std::int64_t batch, std::int64_t prompt, std::int64_t gen, weight_format w,
                                kv_format kv) {
  flopcast::settings st;
  st.batch_size = batch;
  st.sequence_length = prompt;
  st.num_generated_tokens = gen;
  st.weight_precision = w == weight_format::f32    ? flopcast::precision::fp32
                        : w == weight_format::bf16 ? flopcast::precision::bf16
                                                   : flopcast::precision::int8;
  st.kv_cache_precision = kv == kv_format::f32 ? flopcast::precision::fp32 : flopcast::precision::int8;
  st.causal = true;
  return st;
}

void check_flops(const op_counts& c, const flopcast::pass_flops& p) {
  CHECK(c.qkv_projection == p.attention.qkv_projection);
  CHECK(c.rotary == p.attention.rotary);
  CHECK(c.attention_scores == p.attention.attention_scores);
  CHECK(c.softmax == p.attention.softmax);
  CHECK(c.attention_values == p.attention.attention_values);
  CHECK(c.output_projection == p.attention.output_projection);
  CHECK(c.attention() == p.parts.attention);
  CHECK(c.mlp == p.parts.mlp);
  CHECK(c.norm == p.parts.norm);
  CHECK(c.output_head == p.parts.output_head);
  CHECK(c.embedding == p.parts.embedding);
  CHECK(c.flops() == p.parts.total);
}

}  // namespace

TEST_CASE("a tiny config matches a naive reference implementation", "[measure]") {
  thread_pool pool(2);
  for (bool tied : {false, true}) {
    const model_spec m = config(tiny_llama(tied));
    decoder_options o;
    o.max_tokens = 32;
    decoder d(m, o, pool);
    const auto seq = tokens(11, 200);
    std::vector<float> logits(200);
    d.prefill(seq.data(), 11, logits.data());
    const auto expect = naive_logits(d, seq);
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < logits.size(); ++i) {
      worst = std::max(worst, std::fabs(logits[i] - expect[i]));
      scale = std::max(scale, std::fabs(expect[i]));
    }
    INFO("tied " << tied << " max |diff| " << worst << " max |logit| " << scale);
    CHECK(scale > 0.1);
    CHECK(worst < 1e-4 * scale);
  }
}

TEST_CASE("Qwen2 biases, Qwen3 q/k norms and Mistral windows match the naive implementation", "[measure]") {
  thread_pool pool(2);
  auto qwen2 = tiny_llama();
  qwen2["model_type"] = "qwen2";
  auto qwen3 = tiny_llama(true);
  qwen3["model_type"] = "qwen3";
  qwen3["head_dim"] = 32;  // head_dim x heads != hidden
  auto mistral = tiny_llama();
  mistral["model_type"] = "mistral";
  mistral["sliding_window"] = 4;
  mistral["layer_types"] = {"sliding_attention", "full_attention"};
  for (const auto& j : {qwen2, qwen3, mistral}) {
    const model_spec m = config(j);
    decoder_options o;
    o.max_tokens = 16;
    decoder d(m, o, pool);
    const auto seq = tokens(9, 200, 5);
    std::vector<float> logits(200);
    d.prefill(seq.data(), 9, logits.data());
    const auto expect = naive_logits(d, seq);
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < logits.size(); ++i) {
      worst = std::max(worst, std::fabs(logits[i] - expect[i]));
      scale = std::max(scale, std::fabs(expect[i]));
    }
    INFO(j.dump());
    CHECK(worst < 1e-4 * scale);
  }
}

TEST_CASE("decoding with the KV cache gives the logits of recomputing the whole sequence", "[measure]") {
  thread_pool pool(2);
  auto mistral = tiny_llama(false, 1);  // MQA, and a window shorter than the sequence
  mistral["model_type"] = "mistral";
  mistral["sliding_window"] = 6;
  for (const auto& j : {tiny_llama(true), mistral})
    for (auto kv : {kv_format::f32, kv_format::i8}) {
      INFO(j.dump() << " kv " << to_string(kv));
      const model_spec m = config(j);
      decoder_options o;
      o.max_tokens = 24;
      o.kv = kv;
      o.batch = 2;
      decoder d(m, o, pool);
      const std::int64_t S = 7, steps = 5, V = 200;
      auto prompt = tokens(2 * S, V, 9);
      std::vector<float> logits(2 * V);
      d.prefill(prompt.data(), S, logits.data());
      std::vector<std::vector<std::int32_t>> seqs(2);
      for (int b = 0; b < 2; ++b) seqs[b].assign(prompt.begin() + b * S, prompt.begin() + (b + 1) * S);
      std::vector<std::vector<float>> step_logits;
      for (std::int64_t k = 0; k < steps; ++k) {
        auto next = argmax_rows(logits.data(), 2, V);
        for (int b = 0; b < 2; ++b) seqs[b].push_back(next[b]);
        d.decode(next.data(), logits.data());
        step_logits.push_back(logits);
      }
      CHECK(d.position() == S + steps);
      // Recompute each prefix from scratch: the last step's logits, per sequence.
      for (std::int64_t k = 0; k < steps; k += 2) {
        const std::int64_t len = S + k + 1;
        std::vector<std::int32_t> both;
        for (int b = 0; b < 2; ++b) both.insert(both.end(), seqs[b].begin(), seqs[b].begin() + len);
        d.reset();
        std::vector<float> full(2 * V);
        d.prefill(both.data(), len, full.data());
        const double diff = max_diff(full.data(), step_logits[k].data(), full.size());
        INFO("step " << k << " max |diff| " << diff);
        CHECK(diff < 1e-4 * max_abs(full));
      }
    }
}

TEST_CASE("bf16 and int8 weights stay close to fp32: the precision effect, measured", "[measure]") {
  thread_pool pool(2);
  const model_spec m = config(tiny_llama());
  const auto seq = tokens(12, 200, 3);
  std::vector<std::vector<float>> out;
  for (auto w : {weight_format::f32, weight_format::bf16, weight_format::i8}) {
    decoder_options o;
    o.weights = w;
    o.max_tokens = 16;
    decoder d(m, o, pool);  // same seed: the same underlying random weights
    std::vector<float> logits(200);
    d.prefill(seq.data(), 12, logits.data());
    out.push_back(logits);
    CHECK(d.weight_bytes() > 0);
  }
  const double scale = max_abs(out[0]);
  const double bf16 = max_diff(out[0].data(), out[1].data(), 200) / scale;
  const double int8 = max_diff(out[0].data(), out[2].data(), 200) / scale;
  INFO("relative logit error: bf16 " << bf16 << ", int8 " << int8);
  CHECK(bf16 > 0);  // it is a different computation
  CHECK(bf16 < 0.05);
  CHECK(int8 > 0);
  CHECK(int8 < 0.1);
}

TEST_CASE("counted FLOPs equal the estimate exactly, bytes as documented", "[measure]") {
  thread_pool pool(2);
  auto qwen2 = tiny_llama();
  qwen2["model_type"] = "qwen2";
  auto qwen3 = tiny_llama(true);
  qwen3["model_type"] = "qwen3";
  auto mistral = tiny_llama();
  mistral["model_type"] = "mistral";
  mistral["sliding_window"] = 5;
  mistral["layer_types"] = {"full_attention", "sliding_attention"};
  struct run_case {
    test::json config;
    std::int64_t batch, prompt;
    weight_format w;
    kv_format kv;
  };
  const std::vector<run_case> cases{{tiny_llama(false), 1, 12, weight_format::f32, kv_format::f32},
                                    {tiny_llama(true), 2, 9, weight_format::f32, kv_format::f32},
                                    {qwen2, 1, 10, weight_format::f32, kv_format::f32},
                                    {qwen3, 3, 6, weight_format::f32, kv_format::f32},
                                    {mistral, 2, 11, weight_format::f32, kv_format::f32},
                                    {tiny_llama(false), 2, 8, weight_format::bf16, kv_format::i8},
                                    {qwen3, 1, 8, weight_format::i8, kv_format::i8}};
  const auto& gpu = flopcast::find_gpu("A100");  // any GPU: only the byte counts are read
  for (const auto& c : cases) {
    INFO(c.config.dump() << " batch " << c.batch << " prompt " << c.prompt << " weights " << to_string(c.w));
    const model_spec m = config(c.config);
    const std::int64_t gen = 4;
    decoder_options o;
    o.batch = c.batch;
    o.max_tokens = c.prompt + gen;
    o.weights = c.w;
    o.kv = c.kv;
    decoder d(m, o, pool);
    const auto r = flopcast::estimate(m, settings_for(c.batch, c.prompt, gen, c.w, c.kv), &gpu);
    const auto prompt = tokens(c.batch * c.prompt, m.vocab_size);
    std::vector<float> logits(static_cast<std::size_t>(c.batch * m.vocab_size));
    d.prefill(prompt.data(), c.prompt, logits.data());
    const op_counts prefill = d.counts();
    d.reset_counts();
    auto next = argmax_rows(logits.data(), c.batch, m.vocab_size);
    d.decode(next.data(), logits.data());
    const op_counts step = d.counts();

    // FLOPs by component.
    check_flops(prefill, r.prefill);
    check_flops(step, r.decode_step);
    CHECK(step.flops() == r.perf.decode_first_step_flops);
    {  // Bytes.
      const bool fp32 = c.w == weight_format::f32 && c.kv == kv_format::f32;
      const bool windowed = c.config.contains("sliding_window");
      const double gathered = m.tie_word_embeddings ? 0.0 : 1.0;
      const double prefill_bytes = prefill.weight_bytes + prefill.kv_write_bytes + gathered * prefill.embedding_bytes;
      const double step_bytes =
          step.weight_bytes + step.kv_read_bytes + step.kv_write_bytes + gathered * step.embedding_bytes;
      if (fp32) {
        CHECK(step_bytes == r.perf.decode_first_step_bytes);
        if (!windowed) CHECK(prefill_bytes == r.perf.prefill_bytes);
        CHECK(step.weight_bytes == d.weight_bytes() - (m.tie_word_embeddings ? 0.0 : d.embedding().storage_bytes()));
      } else {
        // Scales and fp32 norm weights: a few percent on these tiny widths.
        CHECK(step_bytes == Approx(r.perf.decode_first_step_bytes).epsilon(0.1));
        CHECK(prefill_bytes == Approx(r.perf.prefill_bytes).epsilon(0.1));
      }
      // The KV cache grows by the estimate's bytes per token (fp32), per sequence.
      if (c.kv == kv_format::f32) CHECK(step.kv_write_bytes == c.batch * r.memory.kv_cache_per_token);
    }
  }
}

TEST_CASE("first_layers keeps widths and rebuilds the layer groups", "[measure]") {
  auto mistral = tiny_llama();
  mistral["model_type"] = "mistral";
  mistral["num_hidden_layers"] = 4;
  mistral["sliding_window"] = 5;
  mistral["layer_types"] = {"full_attention", "sliding_attention", "full_attention", "sliding_attention"};
  const model_spec m = config(mistral);
  REQUIRE(m.groups.size() == 2);
  const model_spec one = first_layers(m, 1);
  CHECK(one.num_layers == 1);
  CHECK(one.groups.size() == 1);
  CHECK(one.groups[0].count == 1);
  CHECK(one.groups[0].window == 0);
  const model_spec three = first_layers(m, 3);
  CHECK(three.groups.size() == 2);
  CHECK(three.groups[0].count == 2);
  CHECK(three.groups[1].count == 1);
  CHECK(three.layer_group_of == std::vector<std::uint8_t>{0, 1, 0});
  CHECK(three.hidden_size == m.hidden_size);
  CHECK(three.vocab_size == m.vocab_size);
  // Parameters: the full model minus one layer's.
  const auto full = flopcast::count_parameters(m), part = flopcast::count_parameters(three);
  CHECK(full.total - part.total == full.per_layer[1]);
  CHECK_THROWS_WITH(first_layers(m, 0), Catch::Contains("expected an integer in [1, 4]"));
  CHECK_THROWS_WITH(first_layers(m, 5), Catch::Contains("but got 5"));
  // A registry model: Llama-3.2-1B with 4 of its 16 layers.
  const model_spec l4 = first_layers(flopcast::find_model("llama-3.2-1b").spec, 4);
  CHECK(l4.num_layers == 4);
  CHECK(flopcast::count_parameters(l4).total == 128256LL * 2048 + 4 * 60821504LL + 2048);
}

TEST_CASE("architectures the reference decoder cannot run are refused by model_type", "[measure]") {
  for (const char* name :
       {"gpt2", "mixtral-8x7b", "deepseek-v2-lite", "gemma-2-2b", "t5-small", "bert-base", "falcon-7b"}) {
    INFO(name);
    const auto& m = flopcast::find_model(name).spec;
    try {
      (void)decoder_shape_of(m);
      FAIL("accepted " << name);
    } catch (const flopcast::error& e) {
      CHECK(e.code() == flopcast::error_code::unsupported_model);
      CHECK(e.pointer() == "MODEL");
      CHECK(e.message().find("model_type \"" + m.model_type + "\"") != std::string::npos);
    }
  }
  for (const char* name : {"llama-3.2-1b", "mistral-7b", "qwen2.5-0.5b", "qwen3-0.6b", "llama-2-7b", "phi-3-mini"})
    CHECK_NOTHROW(decoder_shape_of(flopcast::find_model(name).spec));
}

TEST_CASE("memory is planned before allocating", "[measure]") {
  const auto& m = flopcast::find_model("llama-3.2-1b").spec;
  decoder_options o;
  o.max_tokens = 160;
  o.max_prefill_tokens = 128;
  const decoder_memory fp32 = decoder_memory_for(first_layers(m, 4), o);
  CHECK(fp32.weights == Approx(4.0 * (128256.0 * 2048 + 4 * 60821504.0 + 2048)).epsilon(1e-3));
  CHECK(fp32.kv_cache == 4 * 160 * 8 * 128 * 4.0);
  o.weights = weight_format::i8;
  CHECK(decoder_memory_for(first_layers(m, 4), o).weights == Approx(fp32.weights / 4).epsilon(0.01));
}
