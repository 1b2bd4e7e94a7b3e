// The reference decoder's decoder_options::moe_mla layers, run by `flopcast validate-model`:
// the routed MLP (router, softmax, top-k, the experts' SwiGLU and weighted sum, shared experts)
// and multi-head latent attention (DeepSeek-V2/V3). Reference loops that count their work in the
// estimator's conventions (core/src/estimate/flops.cpp), not tuned kernels for timing.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "decoder_impl.hpp"

namespace flopcast::measure {

void decoder::impl::moe_mlp(layer_data& L, std::int64_t M) {
  const std::int64_t h = s.hidden, E = s.experts, k = s.experts_per_token, Ie = s.expert_intermediate;
  matmul(M, xn.get(), h, L.router, moe_logits.get(), E, false, counts.mlp);
  if (s.router_bias) counts.weight_bytes += 4.0 * static_cast<double>(E);
  std::vector<std::vector<std::pair<std::int64_t, float>>> routed(static_cast<std::size_t>(E));
  std::vector<std::int64_t> order(static_cast<std::size_t>(E));
  std::vector<float> prob(static_cast<std::size_t>(E));
  for (std::int64_t i = 0; i < M; ++i) {
    const float* z = moe_logits.get() + i * E;
    const float top = *std::max_element(z, z + E);
    double sum = 0;
    for (std::int64_t e = 0; e < E; ++e) sum += prob[static_cast<std::size_t>(e)] = std::exp(z[e] - top);
    for (auto& p : prob) p = static_cast<float>(p / sum);
    for (std::int64_t e = 0; e < E; ++e) order[static_cast<std::size_t>(e)] = e;
    // Selection score: the probability (+ DeepSeek-V3's correction bias, which only selects).
    const auto score = [&](std::int64_t e) {
      return prob[static_cast<std::size_t>(e)] + (s.router_bias ? L.router_bias[static_cast<std::size_t>(e)] : 0.0f);
    };
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](std::int64_t a, std::int64_t b) {
      return score(a) > score(b) || (score(a) == score(b) && a < b);
    });
    for (std::int64_t j = 0; j < k; ++j) {
      const std::int64_t e = order[static_cast<std::size_t>(j)];
      routed[static_cast<std::size_t>(e)].emplace_back(i, prob[static_cast<std::size_t>(e)]);
    }
  }
  counts.mlp += 5.0 * static_cast<double>(M) * static_cast<double>(E);
  for (std::int64_t e = 0; e < E; ++e) {
    const auto& list = routed[static_cast<std::size_t>(e)];
    if (list.empty()) continue;
    expert_data& X = expert(L, e);
    const auto n = static_cast<std::int64_t>(list.size());
    for (std::int64_t r = 0; r < n; ++r)
      std::copy(xn.get() + list[static_cast<std::size_t>(r)].first * h,
                xn.get() + (list[static_cast<std::size_t>(r)].first + 1) * h, moe_in.get() + r * h);
    matmul(n, moe_in.get(), h, X.gate_up, gu.get(), 2 * Ie, false, counts.mlp);
    swiglu(n, Ie);
    matmul(n, act.get(), Ie, X.down, moe_out.get(), h, false, counts.mlp);
    for (std::int64_t r = 0; r < n; ++r) {
      const auto [row, w] = list[static_cast<std::size_t>(r)];
      float* dst = x.get() + row * h;
      const float* src = moe_out.get() + r * h;
      for (std::int64_t j = 0; j < h; ++j) dst[j] += w * src[j];
    }
    counts.mlp += 2.0 * static_cast<double>(n) * static_cast<double>(h);
  }
  const std::int64_t Is = s.shared_intermediate;
  if (Is <= 0) return;
  matmul(M, xn.get(), h, L.shared_gate_up, gu.get(), 2 * Is, false, counts.mlp);
  swiglu(M, Is);
  if (!s.shared_expert_gate) {
    matmul(M, act.get(), Is, L.shared_down, x.get(), h, true, counts.mlp);  // + residual
    return;
  }
  matmul(M, act.get(), Is, L.shared_down, moe_out.get(), h, false, counts.mlp);
  matmul(M, xn.get(), h, L.shared_gate, moe_logits.get(), E, false, counts.mlp);  // column 0 of each row
  for (std::int64_t i = 0; i < M; ++i) {
    const float g = 1.0f / (1.0f + std::exp(-moe_logits[static_cast<std::size_t>(i * E)]));
    float* dst = x.get() + i * h;
    const float* src = moe_out.get() + i * h;
    for (std::int64_t j = 0; j < h; ++j) dst[j] += g * src[j];
  }
  counts.mlp += static_cast<double>(M) * (1.0 + static_cast<double>(h));  // sigmoid, scale
}

void decoder::impl::mla_attention(layer_data& L, std::int64_t l, std::int64_t T, std::int64_t pos0, bool absorbed) {
  const std::int64_t B = o.batch, M = B * T, h = s.hidden, nh = s.heads, qk = s.head_dim, nope = s.qk_nope,
                     rope_d = s.qk_rope, kvr = s.kv_lora, v = s.v_head_dim, cw = kvr + rope_d, kvw = nh * (nope + v),
                     cap = o.max_tokens;
  if (s.q_lora > 0) {
    matmul(M, xn.get(), h, L.q_a, mla_qa.get(), s.q_lora, false, counts.qkv_projection);
    rmsnorm(mla_qa.get(), s.q_lora, mla_qa.get(), s.q_lora, M, s.q_lora, L.q_a_norm);
    matmul(M, mla_qa.get(), s.q_lora, L.q_b, mla_q.get(), nh * qk, false, counts.qkv_projection);
  } else {
    matmul(M, xn.get(), h, L.q_b, mla_q.get(), nh * qk, false, counts.qkv_projection);
  }
  matmul(M, xn.get(), h, L.kv_a, mla_ckv.get(), cw, false, counts.qkv_projection);
  rmsnorm(mla_ckv.get(), cw, mla_ckv.get(), cw, M, kvr, L.kv_a_norm);  // the latent part, in place
  for (std::int64_t i = 0; i < M; ++i) {
    const std::int64_t pos = pos0 + i % T;
    for (std::int64_t hh = 0; hh < nh; ++hh) rope(mla_q.get() + i * nh * qk + hh * qk + nope, pos);
    rope(mla_ckv.get() + i * cw + kvr, pos);
  }
  counts.rotary += 3.0 * static_cast<double>(M) * static_cast<double>(nh + 1) * static_cast<double>(rope_d);
  // Cache the latent and the rope key of the new positions.
  for (std::int64_t i = 0; i < M; ++i) {
    const std::int64_t b = i / T, pos = pos0 + i % T;
    const float* c = mla_ckv.get() + i * cw;
    std::copy(c, c + kvr, L.latent.data() + (b * cap + pos) * kvr);
    std::copy(c + kvr, c + cw, L.krope.data() + (b * cap + pos) * rope_d);
  }
  counts.kv_write_bytes += 4.0 * static_cast<double>(M) * static_cast<double>(cw);
  const std::int64_t N = pos0 + T;  // keys per sequence after the append
  counts.kv_read_bytes += 4.0 * static_cast<double>(B) * static_cast<double>(N) * static_cast<double>(cw);
  const std::int64_t window = s.window[static_cast<std::size_t>(l)];
  const float scale = 1.0f / std::sqrt(static_cast<float>(qk));
  std::vector<float> p(static_cast<std::size_t>(N)), qlat(static_cast<std::size_t>(kvr)),
      ctx(static_cast<std::size_t>(kvr));
  double pairs = 0;
  if (!absorbed) {
    // kv_b_proj over every cached position of every sequence (one pass over the weights).
    for (std::int64_t b = 0; b < B; ++b)
      std::copy(L.latent.data() + b * cap * kvr, L.latent.data() + (b * cap + N) * kvr, mla_lat.get() + b * N * kvr);
    matmul(B * N, mla_lat.get(), kvr, L.kv_b, mla_kv.get(), kvw, false, counts.qkv_projection);
  } else {
    counts.weight_bytes += L.kv_b.storage_bytes();  // W_UK and W_UV, read once
  }
  const float* W = L.kv_b_rows.data();
  for (std::int64_t i = 0; i < M; ++i) {
    const std::int64_t b = i / T, pos = pos0 + i % T;
    const std::int64_t lo = window > 0 ? std::max<std::int64_t>(0, pos - window + 1) : 0;
    for (std::int64_t hh = 0; hh < nh; ++hh) {
      const float* q = mla_q.get() + i * nh * qk + hh * qk;
      float* out = att.get() + i * nh * v + hh * v;
      if (absorbed)  // q_lat = W_UK_h^T q_nope
        for (std::int64_t c = 0; c < kvr; ++c) {
          float acc = 0;
          for (std::int64_t r = 0; r < nope; ++r) acc += q[r] * W[(hh * (nope + v) + r) * kvr + c];
          qlat[static_cast<std::size_t>(c)] = acc;
        }
      float top = -INFINITY;
      for (std::int64_t j = lo; j <= pos; ++j) {
        const float* kr = L.krope.data() + (b * cap + j) * rope_d;
        float acc = 0;
        for (std::int64_t r = 0; r < rope_d; ++r) acc += q[nope + r] * kr[r];
        if (absorbed) {
          const float* lat = L.latent.data() + (b * cap + j) * kvr;
          for (std::int64_t c = 0; c < kvr; ++c) acc += qlat[static_cast<std::size_t>(c)] * lat[c];
        } else {
          const float* kn = mla_kv.get() + (b * N + j) * kvw + hh * (nope + v);
          for (std::int64_t r = 0; r < nope; ++r) acc += q[r] * kn[r];
        }
        p[static_cast<std::size_t>(j)] = acc * scale;
        top = std::max(top, acc * scale);
      }
      double sum = 0;
      for (std::int64_t j = lo; j <= pos; ++j)
        sum += p[static_cast<std::size_t>(j)] = std::exp(p[static_cast<std::size_t>(j)] - top);
      for (std::int64_t j = lo; j <= pos; ++j)
        p[static_cast<std::size_t>(j)] = static_cast<float>(p[static_cast<std::size_t>(j)] / sum);
      pairs += static_cast<double>(pos - lo + 1);
      if (absorbed) {
        std::fill(ctx.begin(), ctx.end(), 0.0f);
        for (std::int64_t j = lo; j <= pos; ++j) {
          const float* lat = L.latent.data() + (b * cap + j) * kvr;
          for (std::int64_t c = 0; c < kvr; ++c)
            ctx[static_cast<std::size_t>(c)] += p[static_cast<std::size_t>(j)] * lat[c];
        }
        for (std::int64_t r = 0; r < v; ++r) {  // out = W_UV_h ctx
          const float* w = W + (hh * (nope + v) + nope + r) * kvr;
          float acc = 0;
          for (std::int64_t c = 0; c < kvr; ++c) acc += w[c] * ctx[static_cast<std::size_t>(c)];
          out[r] = acc;
        }
      } else {
        std::fill(out, out + v, 0.0f);
        for (std::int64_t j = lo; j <= pos; ++j) {
          const float* vv = mla_kv.get() + (b * N + j) * kvw + hh * (nope + v) + nope;
          for (std::int64_t r = 0; r < v; ++r) out[r] += p[static_cast<std::size_t>(j)] * vv[r];
        }
      }
    }
  }
  const double Md = static_cast<double>(M), nhd = static_cast<double>(nh);
  counts.attention_pairs += static_cast<std::int64_t>(pairs / nhd);
  counts.softmax += 5.0 * pairs;
  if (absorbed) {
    counts.qkv_projection += 2.0 * Md * nhd * static_cast<double>(nope) * static_cast<double>(kvr);
    counts.attention_scores += 2.0 * pairs * static_cast<double>(kvr + rope_d);
    counts.attention_values += 2.0 * pairs * static_cast<double>(kvr);
    counts.output_projection += 2.0 * Md * nhd * static_cast<double>(kvr) * static_cast<double>(v);
  } else {
    counts.attention_scores += 2.0 * pairs * static_cast<double>(qk);
    counts.attention_values += 2.0 * pairs * static_cast<double>(v);
  }
  matmul(M, att.get(), nh * v, L.o, x.get(), h, true, counts.output_projection);  // + residual
}

}  // namespace flopcast::measure
