// The reference decoder's forward pass. Per layer (pre-norm):
//   h = x + Wo . attention(rope(Wqkv . rmsnorm(x) + b))        (q/k RMSNorm per head: Qwen3)
//   x = h + Wdown . (silu(Wgate . rmsnorm(h)) * (Wup . rmsnorm(h)))
// then a final RMSNorm and the LM head (tied to the embedding when the config says so).
// Counting follows core/src/estimate/flops.cpp: RMSNorm 4 FLOPs per element, RoPE 3 per rotated
// element, SiLU + gate product 2 per intermediate element, bias 1 per element, residual
// additions 0, the embedding lookup 0. MoE and MLA layers: decoder_moe_mla.cpp.
#include <algorithm>
#include <cmath>
#include <string>

#include "decoder_impl.hpp"
#include "flopcast/base/error.hpp"

namespace flopcast::measure {

void decoder::impl::rmsnorm(const float* in, std::int64_t in_stride, float* out, std::int64_t out_stride,
                            std::int64_t count, std::int64_t width, const std::vector<float>& w) {
  rows(count, width, [&](std::int64_t i) {
    const float* a = in + i * in_stride;
    float* b = out + i * out_stride;
    double ss = 0;
    for (std::int64_t j = 0; j < width; ++j) ss += static_cast<double>(a[j]) * a[j];
    const float inv = 1.0f / std::sqrt(static_cast<float>(ss / static_cast<double>(width)) + s.norm_eps);
    for (std::int64_t j = 0; j < width; ++j) b[j] = a[j] * inv * w[static_cast<std::size_t>(j)];
  });
  counts.norm += 4.0 * static_cast<double>(count) * static_cast<double>(width);
  counts.weight_bytes += 4.0 * static_cast<double>(width);
}

void decoder::impl::matmul(std::int64_t m, const float* a, std::int64_t lda, const packed_matrix& w, float* c,
                           std::int64_t ldc, bool accumulate, double& flops) {
  work_tally t;
  gemm(*pool, m, a, lda, w, c, ldc, accumulate, &t);
  flops += t.flops;
  counts.weight_bytes += t.bytes;
}

void decoder::impl::swiglu(std::int64_t n, std::int64_t w) {
  rows(n, 4 * w, [&](std::int64_t i) {
    const float* g = gu.get() + i * 2 * w;
    const float* u = g + w;
    float* a = act.get() + i * w;
    for (std::int64_t j = 0; j < w; ++j) a[j] = g[j] / (1.0f + std::exp(-g[j])) * u[j];
  });
  counts.mlp += 2.0 * static_cast<double>(n) * static_cast<double>(w);
}

void decoder::impl::mlp_block(layer_data& L, std::int64_t l, std::int64_t M) {
  const std::int64_t h = s.hidden, I = s.intermediate;
  rmsnorm(x.get(), h, xn.get(), h, M, h, L.mlp_norm);
  if (s.moe[static_cast<std::size_t>(l)]) {
    moe_mlp(L, M);
    return;
  }
  matmul(M, xn.get(), h, L.gate_up, gu.get(), 2 * I, false, counts.mlp);
  swiglu(M, I);
  matmul(M, act.get(), I, L.down, x.get(), h, true, counts.mlp);  // + residual
}

void decoder::impl::forward(const std::int32_t* tokens, std::int64_t T, float* logits, bool decode_step) {
  const std::int64_t B = o.batch, M = B * T, h = s.hidden;
  if (T < 1)
    throw error(error_code::invalid_argument, "/prompt_tokens",
                "expected at least 1 token, but got " + std::to_string(T));
  if (M > max_rows)
    throw error(error_code::invalid_argument, "/prompt_tokens",
                "the decoder was sized for " + std::to_string(max_rows / B) +
                    " tokens per sequence in one pass, but got " + std::to_string(T));
  if (position + T > o.max_tokens)
    throw error(error_code::invalid_argument, "/max_tokens",
                "the KV cache holds " + std::to_string(o.max_tokens) + " positions per sequence, but " +
                    std::to_string(position + T) + " are needed");
  for (std::int64_t i = 0; i < M; ++i)
    if (tokens[i] < 0 || tokens[i] >= s.vocab)
      throw error(error_code::invalid_argument, "/tokens",
                  "token id " + std::to_string(tokens[i]) + " is outside the vocabulary of " + std::to_string(s.vocab));

  // Embedding: gather rows (0 FLOPs).
  rows(M, h, [&](std::int64_t i) { embedding.row(tokens[i], x.get() + i * h); });
  counts.embedding_bytes += static_cast<double>(M) * static_cast<double>(h) * bytes_per_element(o.weights);

  const std::int64_t qw = q_width(), kw = k_width(), ldq = qkv_width(), ao = s.heads * s.v_head_dim;
  const std::int64_t pos0 = position;
  for (std::int64_t l = 0; l < s.layers; ++l) {
    layer_data& L = layers[static_cast<std::size_t>(l)];
    // Attention block.
    rmsnorm(x.get(), h, xn.get(), h, M, h, L.attn_norm);
    if (s.mla) {
      mla_attention(L, l, T, pos0, decode_step);
      mlp_block(L, l, M);
      continue;
    }
    matmul(M, xn.get(), h, L.qkv, qkv.get(), ldq, false, counts.qkv_projection);
    if (s.qkv_bias) {
      rows(M, ldq, [&](std::int64_t i) {
        float* r = qkv.get() + i * ldq;
        for (std::int64_t j = 0; j < ldq; ++j) r[j] += L.qkv_bias[static_cast<std::size_t>(j)];
      });
      counts.qkv_projection += static_cast<double>(M) * static_cast<double>(ldq);
      counts.weight_bytes += 4.0 * static_cast<double>(ldq);
    }
    if (s.qk_norm) {
      // Per head, on q and k (in place).
      rows(M, ldq, [&](std::int64_t i) {
        float* r = qkv.get() + i * ldq;
        for (std::int64_t hh = 0; hh < s.heads + s.kv_heads; ++hh) {
          float* v = r + hh * s.head_dim;
          const auto& w = hh < s.heads ? L.q_norm : L.k_norm;
          double ss = 0;
          for (std::int64_t j = 0; j < s.head_dim; ++j) ss += static_cast<double>(v[j]) * v[j];
          const float inv = 1.0f / std::sqrt(static_cast<float>(ss / static_cast<double>(s.head_dim)) + s.norm_eps);
          for (std::int64_t j = 0; j < s.head_dim; ++j) v[j] = v[j] * inv * w[static_cast<std::size_t>(j)];
        }
      });
      counts.norm += 4.0 * static_cast<double>(M) * static_cast<double>((s.heads + s.kv_heads) * s.head_dim);
      counts.weight_bytes += 4.0 * 2.0 * static_cast<double>(s.head_dim);
    }
    rows(M, ldq, [&](std::int64_t i) {
      const std::int64_t pos = pos0 + i % T;
      float* r = qkv.get() + i * ldq;
      for (std::int64_t hh = 0; hh < s.heads + s.kv_heads; ++hh) rope(r + hh * s.head_dim, pos);
    });
    counts.rotary += 3.0 * static_cast<double>(M) * static_cast<double>((s.heads + s.kv_heads) * s.rotary_dim);

    attention_tally tally;
    for (std::int64_t b = 0; b < B; ++b) {
      const float* rows_b = qkv.get() + b * T * ldq;
      L.cache->append(b, rows_b + qw, ldq, rows_b + qw + kw, ldq, T, &tally);
      attend_request r;
      r.seq = b;
      r.q = rows_b;
      r.q_stride = ldq;
      r.q_tokens = T;
      r.num_heads = s.heads;
      r.window = s.window[static_cast<std::size_t>(l)];
      r.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
      r.out = att.get() + b * T * ao;
      r.out_stride = ao;
      r.pool = pool;
      r.tally = &tally;
      L.cache->attend(r);
    }
    counts.attention_scores += tally.score_flops;
    counts.softmax += tally.softmax_flops;
    counts.attention_values += tally.value_flops;
    counts.kv_read_bytes += tally.read_bytes;
    counts.kv_write_bytes += tally.write_bytes;
    counts.attention_pairs += tally.pairs;
    matmul(M, att.get(), ao, L.o, x.get(), h, true, counts.output_projection);  // + residual

    mlp_block(L, l, M);
  }
  position += T;

  // Final norm on every position (as the estimator counts it), head on the last ones.
  rmsnorm(x.get(), h, xn.get(), h, M, h, final_norm);
  if (T > 1)
    for (std::int64_t b = 0; b < B; ++b)
      std::copy(xn.get() + (b * T + T - 1) * h, xn.get() + (b * T + T) * h, xn.get() + b * h);
  matmul(B, xn.get(), h, head(), logits, s.vocab, false, counts.output_head);
}

}  // namespace flopcast::measure
