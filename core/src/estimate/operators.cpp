// The per-operator table (operators.hpp). FLOPs come from run_pass (flops.cpp) over one layer
// group at a time, so attention's parts are its own (qkv_projection, rotary, scores, softmax,
// values, output_projection); the q/k/v, MLP and mixer splits below divide those sums by the
// same shapes flops.cpp multiplies, with each remainder (v_proj, kv_b_proj, mixer_scan) taken
// from the core's total so the rows add up to the pass. Weight bytes are the roofline's
// (weight_traffic): each part of the model at its own bytes per parameter, experts as far as the
// pass's tokens reach them, the embedding by the rows gathered. KV bytes are the cache's own
// (memory.cpp) and the decode step's reads (roofline.cpp). Activation bytes are an ESTIMATE:
// each operator's inputs and outputs in 16-bit (32-bit for fp32 weights) once each, the score
// matrix only without flash attention.
#include "flopcast/estimate/operators.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "estimate/estimate_parts.hpp"
#include "estimate/operators_parts.hpp"

namespace flopcast {
namespace {

using detail::d;
using detail::pass_kind;

// Which share of the weights a row reads.
enum class bucket : std::uint8_t {
  none,
  attention,
  norm,
  mlp,
  expert_fixed,
  expert_routed,
  mixer,
  head,
  vision,
  embed
};

struct row_builder {
  const model_spec& m;
  const settings& s;
  const estimate_result& r;
  pass_kind kind;
  double B, S, c0, ab, kvb;
  std::vector<operator_row> rows;
  std::vector<bucket> buckets;
  std::vector<double> params;  // parameters read (whole group), for the weight shares

  operator_row& add(std::string_view name, int group, std::int64_t layers, bucket b, double flops, double p,
                    double act_elements, double kv = 0) {
    operator_row row;
    row.name = std::string(name);
    row.group = group;
    row.layers = layers;
    row.flops = flops;
    row.activation_bytes = act_elements * ab;
    row.kv_bytes = kv;
    switch (b) {
      case bucket::attention:
      case bucket::norm:
        row.component = weight_component::attention;
        break;
      case bucket::mlp:
        row.component = weight_component::mlp;
        break;
      case bucket::expert_fixed:
      case bucket::expert_routed:
        row.component = weight_component::experts;
        break;
      case bucket::mixer:
        row.component = weight_component::mixer;
        break;
      case bucket::head:
        row.component = weight_component::lm_head;
        break;
      case bucket::vision:
        row.component = weight_component::vision;
        break;
      case bucket::embed:
        row.component = weight_component::embedding;
        break;
      case bucket::none:
        break;
    }
    rows.push_back(row);
    buckets.push_back(b);
    params.push_back(p);
    return rows.back();
  }

  [[nodiscard]] double tokens_of(const layer_group& g) const {
    if (m.arch == architecture::encoder_decoder) return (g.encoder ? (kind == pass_kind::decode ? 0.0 : S) : 1.0) * B;
    return (kind == pass_kind::decode ? 1.0 : S) * B;
  }

  [[nodiscard]] pass_flops one_group(const layer_group& g) const {
    model_spec one = m;
    one.groups = {g};
    return detail::run_pass(one, kind, B, S, kind == pass_kind::decode ? c0 : 0.0, s.causal);
  }

  // A dense MLP (or `k` experts of one) over T tokens: gate/up/act/down or fc1/act/fc2.
  void mlp_rows(const std::string& prefix, int gi, std::int64_t count, bucket b, double T, double k, std::int64_t width,
                bool gated, bool bias, double copies) {
    const double h = d(m.hidden_size), I = d(width), c = d(count), Tk = T * k;
    const double bI = bias ? 1.0 : 0.0;
    if (gated) {
      add(prefix + "gate", gi, count, b, c * (2 * Tk * h * I + bI * Tk * I), c * copies * (h * I + bI * I),
          c * Tk * (h + I));
      add(prefix + "up", gi, count, b, c * (2 * Tk * h * I + bI * Tk * I), c * copies * (h * I + bI * I),
          c * Tk * (h + I));
      add(prefix + "act", gi, count, bucket::none, c * 2 * Tk * I, 0, c * Tk * 3 * I);
      add(prefix + "down", gi, count, b, c * (2 * Tk * I * h + bI * Tk * h), c * copies * (I * h + bI * h),
          c * Tk * (I + h));
    } else {
      add(prefix + "fc1", gi, count, b, c * (2 * Tk * h * I + bI * Tk * I), c * copies * (h * I + bI * I),
          c * Tk * (h + I));
      add(prefix + "act", gi, count, bucket::none, c * Tk * I, 0, c * Tk * 2 * I);
      add(prefix + "fc2", gi, count, b, c * (2 * Tk * I * h + bI * Tk * h), c * copies * (I * h + bI * h),
          c * Tk * (I + h));
    }
  }

  void attention_rows(const layer_group& g, int gi, const attention_detail& a, double T, double pairs) {
    const attention_spec& at = attention_of(m, g);
    const std::int64_t count = g.count;
    const double c = d(count), h = d(m.hidden_size), nh = d(at.num_heads), nkv = d(at.num_kv_heads);
    const bool decode = kind == pass_kind::decode, flash = s.flash_attention;
    const bool cache = m.arch != architecture::encoder && !g.encoder;
    // K/V written this pass (tokens cached) and, in decode, the keys read.
    const double written =
        cache ? (decode ? B : B * detail::cached_tokens(g, m.arch == architecture::encoder_decoder ? 1.0 : S)) : 0.0;
    const double keys = cache && decode ? B * detail::keys_at(c0, detail::attention_window(m, g)) : 0.0;
    const double index_keys = cache && decode ? B * detail::keys_at(c0, 0) : 0.0;
    double score_in = 0, value_out = 0, scores_kv = 0, values_kv = 0;
    if (at.mla) {
      const double qk = d(at.qk_nope_head_dim + at.qk_rope_head_dim), rope = d(at.qk_rope_head_dim);
      const double kvr = d(at.kv_lora_rank), v = d(at.v_head_dim), ql = d(at.q_lora_rank);
      const double q = at.q_lora_rank > 0 ? 2 * T * (h * ql + ql * nh * qk) : 2 * T * h * nh * qk;
      const double q_params = at.q_lora_rank > 0 ? h * ql + ql * nh * qk : h * nh * qk;
      const double kv_a = 2 * T * h * (kvr + rope);
      double index = 0, index_params = 0;
      if (at.index_heads > 0) {
        const double ih = d(at.index_heads), id = d(at.index_head_dim), q_in = at.q_lora_rank > 0 ? ql : h;
        index_params = q_in * ih * id + h * id + h * ih;
        index = 2 * T * index_params;
      }
      add("q_proj", gi, count, bucket::attention, c * q, c * q_params,
          c * T * (h + nh * qk + (at.q_lora_rank > 0 ? 2 * ql : 0)));
      add("kv_a_proj", gi, count, bucket::attention, c * kv_a, c * h * (kvr + rope), c * T * (h + kvr + rope),
          c * written * (kvr + rope) * kvb);
      if (at.index_heads > 0)
        add("indexer_proj", gi, count, bucket::attention, c * index, c * index_params,
            c * T * (h + d(at.index_heads) * d(at.index_head_dim)), c * written * d(at.index_head_dim) * kvb);
      add("kv_b_proj", gi, count, bucket::attention, a.qkv_projection - c * (q + kv_a + index),
          c * kvr * nh * d(at.qk_nope_head_dim + at.v_head_dim),
          decode ? c * T * nh * (d(at.qk_nope_head_dim) + kvr) : c * T * (kvr + nh * (d(at.qk_nope_head_dim) + v)));
      score_in = decode ? nh * (kvr + rope) : nh * qk;
      value_out = nh * (decode ? kvr : v);
      scores_kv = c * (keys * (kvr + rope) + index_keys * d(at.index_head_dim)) * kvb;
    } else {
      const double hd = d(at.head_dim), vd = d(at.v_head_dim), gate = at.output_gate ? nh * hd : 0.0;
      const double qb = at.qkv_bias ? 1.0 : 0.0;
      const double q = 2 * T * h * (nh * hd + gate) + qb * T * nh * hd;
      const double k = 2 * T * h * nkv * hd + qb * T * nkv * hd;
      add("q_proj", gi, count, bucket::attention, c * q, c * (h * (nh * hd + gate) + qb * nh * hd),
          c * T * (h + nh * hd + gate));
      add("k_proj", gi, count, bucket::attention, c * k, c * (h * nkv * hd + qb * nkv * hd), c * T * (h + nkv * hd),
          c * written * nkv * hd * kvb);
      add("v_proj", gi, count, bucket::attention, a.qkv_projection - c * (q + k), c * (h * nkv * vd + qb * nkv * vd),
          c * T * (h + nkv * vd), c * written * nkv * vd * kvb);
      score_in = nh * hd;
      value_out = nh * vd;
      scores_kv = c * keys * nkv * hd * kvb;
      values_kv = c * keys * nkv * vd * kvb;
    }
    const double rot_width = at.mla ? (nh + 1) * d(at.qk_rope_head_dim) : (nh + nkv) * d(at.rotary_dim);
    if (a.rotary > 0) add("rotary", gi, count, bucket::none, a.rotary, 0, c * T * 2 * rot_width);
    add("attention_scores", gi, count, bucket::none, a.attention_scores, 0,
        c * (T * score_in + (flash ? 0.0 : pairs * nh)), scores_kv)
        .kv_read = decode;
    add("softmax", gi, count, bucket::attention, a.softmax, at.sinks ? c * nh : 0.0, flash ? 0.0 : c * 2 * pairs * nh);
    add("attention_values", gi, count, bucket::none, a.attention_values, 0,
        c * ((flash ? 0.0 : pairs * nh) + T * value_out), values_kv)
        .kv_read = decode;
    const double o_in = at.mla ? nh * d(at.v_head_dim) : nh * d(at.v_head_dim);
    add("o_proj", gi, count, bucket::attention, a.output_projection, c * (o_in * h + (at.o_bias ? h : 0.0)),
        c * T * (o_in + h));
  }

  // The cross-attention of an encoder-decoder layer: `a` is the full layer's detail minus self's.
  void cross_rows(const layer_group& g, int gi, const attention_detail& a, double T) {
    const attention_spec& at = m.attention;
    const std::int64_t count = g.count;
    const double c = d(count), h = d(m.hidden_size), inner = d(at.num_heads) * d(at.head_dim);
    const double enc = kind == pass_kind::decode ? 0.0 : S * B;
    add("cross_q_proj", gi, count, bucket::attention, a.qkv_projection, c * h * inner, c * T * (h + inner));
    add("cross_kv_proj", gi, count, bucket::attention, a.cross_kv_projection, c * 2 * h * inner,
        c * enc * (h + 2 * inner), c * enc * 2 * inner * kvb);
    add("cross_attention", gi, count, bucket::none, a.attention_scores + a.softmax + a.attention_values, 0,
        c * T * 2 * inner);
    add("cross_o_proj", gi, count, bucket::attention, a.output_projection, c * inner * h, c * T * (inner + h));
  }

  // A linear-attention or state-space mixer: in_proj, conv, out_proj by their shapes, the rest of
  // the core's mixer FLOPs (recurrence, gates, norms) as mixer_scan, which also moves the state.
  void mixer_rows(const layer_group& g, int gi, mixer_kind k, double mixer_flops, double T) {
    const std::int64_t count = g.count;
    const double c = d(count), h = d(m.hidden_size);
    double in_w = 0, conv_w = 0, kernel = 0, out_in = 0;
    if (k == mixer_kind::linear_attention) {
      const linear_attention_spec& l = m.linear;
      const double kd = d(detail::linear_key_dim(l)), vd = d(detail::linear_value_dim(l));
      in_w = d(detail::linear_in_width(l));
      conv_w = 2 * kd + vd;
      kernel = d(l.conv_kernel);
      out_in = vd;
    } else if (k == mixer_kind::short_conv) {
      in_w = 3 * h;
      conv_w = h;
      kernel = d(m.short_conv.conv_kernel);
      out_in = h;
    } else if (k == mixer_kind::rwkv) {
      // No conv: the token shift, LoRAs and recurrence are the scan's.
      in_w = d(detail::rwkv_in_width(m.rwkv));
      out_in = d(m.rwkv.attention_size);
    } else {
      const ssm_spec& ss = m.ssm;
      const double I = d(ss.inner);
      in_w = k == mixer_kind::mamba ? 2 * I : I + d(detail::mamba2_conv_dim(ss)) + d(ss.num_heads);
      conv_w = k == mixer_kind::mamba ? I : d(detail::mamba2_conv_dim(ss));
      kernel = d(ss.conv_kernel);
      out_in = I;
    }
    const double in = 2 * T * h * in_w, conv = 2 * T * conv_w * kernel + T * conv_w, out = 2 * T * out_in * h;
    const double all_params = d(detail::mixer_params(m, k, g.rwkv_first));
    const double state = g.encoder || m.arch == architecture::encoder ? 0.0
                                                                      : B * detail::state_elements_per_sequence(m, g) *
                                                                            kvb * (kind == pass_kind::decode ? 2 : 1);
    add("mixer_in_proj", gi, count, bucket::mixer, c * in, c * h * in_w, c * T * (h + in_w));
    add("mixer_conv", gi, count, bucket::none, c * conv, 0, c * T * 2 * conv_w);
    add("mixer_scan", gi, count, bucket::mixer, c * (mixer_flops - in - conv - out),
        c * (all_params - h * in_w - out_in * h), c * T * 2 * in_w, c * state);
    add("mixer_out_proj", gi, count, bucket::mixer, c * out, c * out_in * h, c * T * (out_in + h));
  }

  void moe_rows(const layer_group& g, int gi, double T) {
    const moe_spec& e = m.moe;
    const std::int64_t count = g.count;
    const double c = d(count), h = d(m.hidden_size), E = d(e.num_experts), k = d(e.experts_per_token);
    const double R = d(detail::router_outputs(e));  // logits over routed and zero-computation experts
    add("router", gi, count, bucket::expert_fixed, c * (2 * T * h * R + 5 * T * R),
        c * (h * R + (e.router_bias ? R : 0.0)), c * T * (h + R));
    mlp_rows("experts_", gi, count, bucket::expert_routed, T, k, e.expert_intermediate_size, e.gated_experts,
             e.expert_bias, E);
    add("experts_combine", gi, count, bucket::none, c * 2 * T * k * h, 0, c * T * (k * h + h));
    if (e.shared_intermediate_size > 0)
      mlp_rows("shared_", gi, count, bucket::expert_fixed, T, 1, e.shared_intermediate_size, e.gated_experts,
               e.expert_bias, 1);
    if (e.shared_expert_gate)
      add("shared_expert_gate", gi, count, bucket::expert_fixed, c * (2 * T * h + T + T * h), c * h, c * T * 2 * h);
  }

  void build() {
    const pass_flops& whole = kind == pass_kind::decode ? r.decode_step : r.prefill;
    const double h = d(m.hidden_size);
    double group_norms = 0, group_norm_params = 0;
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
      const layer_group& g = m.groups[i];
      // A group the pass runs no tokens through (the encoder in a decode step) keeps its rows: the
      // roofline's step still reads its weights.
      const double T = tokens_of(g);
      const int gi = static_cast<int>(i);
      const double c = d(g.count);
      const pass_flops full = one_group(g);
      const layer_flops& lf = full.per_layer[0];
      if (detail::has_attention(g)) {
        attention_detail self = full.attention;
        if (g.cross_attention) {
          layer_group no_cross = g;
          no_cross.cross_attention = false;
          self = one_group(no_cross).attention;
        }
        const double pairs = self.softmax > 0 ? self.softmax / (5 * c * d(attention_of(m, g).num_heads)) : 0.0;
        attention_rows(g, gi, self, T, pairs);
        if (g.cross_attention) {
          attention_detail cross = full.attention;
          cross.qkv_projection -= self.qkv_projection;
          cross.attention_scores -= self.attention_scores;
          cross.softmax -= self.softmax;
          cross.attention_values -= self.attention_values;
          cross.output_projection -= self.output_projection;
          cross_rows(g, gi, cross, T);
        }
        if (g.parallel_ssm) mixer_rows(g, gi, mixer_kind::mamba2, lf.mixer, T);
      } else if (g.mixer != mixer_kind::none) {
        mixer_rows(g, gi, g.mixer, lf.mixer, T);
      }
      const double norm_params = d(detail::weights_of(m, g).norm);
      add("norms", gi, g.count, bucket::norm, c * lf.norm, c * norm_params, c * 2 * T * h * d(detail::norms_of(m, g)));
      group_norms += c * lf.norm;
      group_norm_params += c * norm_params;
      if (!g.mlp) continue;
      if (g.moe)
        moe_rows(g, gi, T);
      else
        mlp_rows("mlp_", gi, g.count, bucket::mlp, T, 1, mlp_width_of(m, g), m.mlp.gated, m.mlp.bias, 1);
      if (!g.moe && (m.mlp.token_shift > 0 || m.mlp.receptance)) {
        // The RWKV channel mix's token shift and RWKV-6's receptance gate.
        const double params = d(m.mlp.token_shift) * h + (m.mlp.receptance ? h * h : 0.0);
        add("mlp_token_mix", gi, g.count, bucket::mlp, c * detail::mlp_token_mix_flops(m, T), c * params,
            c * T * 2 * h);
      }
      // lf.mlp is the core's: the split above must add up to it (tests/cpp/test_operators.cpp).
    }
    // Once per model: the embedding side, the final (and embedding) norms, the head.
    const double dec = m.arch == architecture::encoder_decoder ? 1.0 : (kind == pass_kind::decode ? 1.0 : S);
    const double enc = m.arch == architecture::encoder_decoder && kind != pass_kind::decode ? S : 0.0;
    const double emb_tokens = (dec + enc) * B;
    add("embedding", -1, 1, bucket::embed, whole.parts.embedding, 0, emb_tokens * h);
    const double final_norm = whole.parts.norm - group_norms;
    if (final_norm > 0 || d(r.parameters.norm) > group_norm_params)
      add("final_norm", -1, 1, bucket::norm, final_norm, d(r.parameters.norm) - group_norm_params, 2 * emb_tokens * h);
    double head_tokens = dec * B;
    if (m.arch == architecture::encoder || (m.arch == architecture::decoder && kind != pass_kind::decode))
      head_tokens = B;
    if (m.lm_head || m.pooler)
      add(m.lm_head ? "lm_head" : "pooler", -1, 1, bucket::head, whole.parts.output_head, 1,
          head_tokens * (h + (m.lm_head ? d(m.vocab_size) : h)));
    if (r.memory.weights_by_component[static_cast<std::size_t>(weight_component::vision)] > 0)
      add("vision_tower", -1, 1, bucket::vision, 0, 1, 0);
  }

  // Weight bytes: the roofline's traffic (weight_traffic::read) shared out by parameters.
  void share_weights(double tokens) {
    const memory_breakdown& mem = r.memory;
    const weight_traffic t = detail::weight_traffic_of(m, r);
    const auto bytes_of = [&](weight_component c) { return mem.weights_by_component[static_cast<std::size_t>(c)]; };
    // Norm weights are part of the attention component's bytes, at the rate the estimate costed
    // them (memory.cpp: memory_breakdown::norm_bytes_per_parameter).
    const double attn_bytes = bytes_of(weight_component::attention);
    const double norm_params = d(r.parameters.norm);
    const double norm_bpp = mem.norm_bytes_per_parameter;
    std::array<double, 10> share{};  // bytes per parameter by bucket
    std::array<double, 10> total{};
    for (std::size_t i = 0; i < rows.size(); ++i) total[static_cast<std::size_t>(buckets[i])] += params[i];
    const auto per = [&](bucket b, double bytes) {
      const double p = total[static_cast<std::size_t>(b)];
      share[static_cast<std::size_t>(b)] = p > 0 ? bytes / p : 0.0;
    };
    per(bucket::attention, attn_bytes - norm_params * norm_bpp);
    share[static_cast<std::size_t>(bucket::norm)] = norm_bpp;
    per(bucket::mlp, bytes_of(weight_component::mlp));
    per(bucket::mixer, bytes_of(weight_component::mixer));
    per(bucket::head, bytes_of(weight_component::lm_head));
    per(bucket::vision, bytes_of(weight_component::vision));
    share[static_cast<std::size_t>(bucket::expert_fixed)] = t.expert_bytes_per_param;
    // Routed experts: the share the pass's tokens reach (the traffic with and without them).
    double reached = 1.0;
    if (t.expert_params > 0) {
      weight_traffic all = t;
      all.expert_params = 0;
      double unused = 0;
      const double untouched = all.read(tokens, unused) - t.read(tokens, unused);
      const double every = t.experts * t.expert_params * t.expert_bytes_per_param;
      reached = every > 0 ? 1.0 - untouched / every : 1.0;
    }
    share[static_cast<std::size_t>(bucket::expert_routed)] = t.expert_bytes_per_param * reached;
    // The embedding: the rows gathered (a tied table is read whole by the head), and whatever of
    // the component is not a table.
    const double table = t.vocab * t.embed_width + (t.positions + t.type_vocab) * t.hidden;
    const double gathered = (t.tied_head ? 0.0 : std::min(tokens, t.vocab) * t.embed_width) +
                            (std::min(tokens, t.positions) + std::min(tokens, t.type_vocab)) * t.hidden;
    // Norm weights keep 16 bits (32 in an fp32 or tf32 model) where the format sets the bytes.
    const precision wp = s.weight_precision;
    const precision norm_format =
        wp == precision::fp32 || wp == precision::tf32 || wp == precision::fp16 ? wp : precision::bf16;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      operator_row& row = rows[i];
      if (row.component) row.format = detail::component_precision(s, *row.component);
      if (buckets[i] == bucket::norm && std::string_view(mem.weights_source) == "format") row.format = norm_format;
      row.weight_bytes = params[i] * share[static_cast<std::size_t>(buckets[i])];
      if (buckets[i] == bucket::embed)
        row.weight_bytes = gathered * t.embedding_bytes_per_param +
                           (bytes_of(weight_component::embedding) - table * t.embedding_bytes_per_param);
      if (buckets[i] == bucket::head && t.tied_head)
        row.weight_bytes += t.vocab * t.embed_width * t.embedding_bytes_per_param;
    }
  }
};

// The matmul rows a GEMM curve covers: those that multiply activations by a weight matrix.
// in_proj: the matrix reads the hidden state (k = hidden); otherwise it writes it (n = hidden).
struct gemm_shape {
  bool gemm = false;
  bool in_proj = true;
};

gemm_shape gemm_of(std::string_view name) {
  const auto ends = [&](std::string_view tail) {
    return name.size() >= tail.size() && name.substr(name.size() - tail.size()) == tail;
  };
  if (name == "mixer_scan") return {};
  if (ends("o_proj") || ends("out_proj") || ends("_down") || ends("_fc2")) return {true, false};
  if (ends("_proj") || ends("_gate") || ends("_up") || ends("_fc1") || name == "router" || name == "lm_head")
    return {name != "shared_expert_gate", true};
  return {};
}

// Reads each matmul and attention row on the measured kernel curves (efficiency_curves.hpp):
// a GEMM at M = the tokens it multiplies, n x k from its weights per layer (the nearest curve's
// shape is read); a routed expert's GEMM as a grouped GEMM at its tokens per expert (contiguous
// layout in a prefill, masked in a decode step); attention by sequence length or context.
void read_curves(operator_pass& out, const std::vector<bucket>& buckets, const std::vector<double>& params,
                 const model_spec& m, const settings& s, const estimate_result& r, pass_kind kind,
                 const hardware_spec& gpu, const device_resolver& resolve) {
  const bool decode = kind == pass_kind::decode;
  const double h = d(m.hidden_size), E = d(m.moe.num_experts), k = d(m.moe.experts_per_token);
  const double B = d(s.batch_size);
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    operator_row& row = out.rows[i];
    if (row.flops <= 0) continue;
    curve_query q;
    const bool routed = buckets[i] == bucket::expert_routed;
    if (row.name == "attention_scores" || row.name == "attention_values") {
      if (row.group < 0) continue;
      const attention_spec& at = attention_of(m, m.groups[static_cast<std::size_t>(row.group)]);
      q.op = decode ? kernel_op::attention_decode : kernel_op::attention_prefill;
      q.x = d(s.sequence_length);  // the prompt; in a decode step, the first step's context
      q.fixed = {{"head_dim", d(at.head_dim)}, {"batch", B}};
      q.format = std::string(to_string(r.perf.compute_precision));
    } else {
      const gemm_shape g = gemm_of(row.name);
      if (!g.gemm || !row.format) continue;
      bool fell_back = false;
      const compute_unit u = detail::compute_unit_for(*row.format, gpu, fell_back);
      if (fell_back) continue;  // weight-only: dequantised first, no GEMM in the stored format
      q.format = std::string(to_string(u));
      const double copies = routed && E > 0 ? E : 1.0;
      const double per_matrix = params[i] / d(row.layers) / copies;
      const double other = h > 0 ? per_matrix / h : 0.0;
      if (other <= 0) continue;
      q.fixed = {{"n", g.in_proj ? other : h}, {"k", g.in_proj ? h : other}};
      if (routed) {
        q.op = kernel_op::grouped_gemm;
        q.variant = decode ? "masked" : "contiguous";
        q.x = E > 0 ? detail::tokens_per_active_expert(out.tokens, k, E) : out.tokens;
      } else {
        q.op = kernel_op::gemm;
        q.x = row.name == "lm_head" && !decode ? B : out.tokens;
      }
    }
    if (!(q.x > 0)) continue;
    const auto l = lookup_efficiency(q, gpu, resolve);
    if (!l || !(l->efficiency > 0)) continue;
    row.kernel_curve = kernel_curve_row{q.op, *l, row.flops / (l->efficiency * l->peak)};
  }
}

operator_pass pass_of(const model_spec& m, const settings& s, const estimate_result& r, pass_kind kind,
                      const hardware_spec* gpu, const device_resolver& resolve) {
  const double B = d(s.batch_size), S = d(s.sequence_length);
  row_builder b{m,
                s,
                r,
                kind,
                B,
                S,
                m.arch == architecture::encoder_decoder ? 1.0 : S,
                detail::activation_bytes(s.weight_precision),
                storage_bytes(r.kv_precision),
                {},
                {},
                {}};
  b.build();
  operator_pass out;
  out.tokens = kind == pass_kind::decode ? B : B * S;
  b.share_weights(out.tokens);
  out.rows = std::move(b.rows);
  if (r.has_performance) {
    const performance& p = r.perf;
    const step_costs& costs = s.costs;
    out.compute_efficiency = s.compute_efficiency * detail::gemm_factor(costs, out.tokens);
    // Each running expert multiplies tokens_per_active_expert() of them (expert_gemm_extra_flops).
    const double E = d(m.moe.num_experts), k = d(m.moe.experts_per_token);
    const double expert_ce =
        E > 0 ? s.compute_efficiency * detail::gemm_factor(costs, detail::tokens_per_active_expert(out.tokens, k, E))
              : out.compute_efficiency;
    const double pm = p.memory_bandwidth_bytes_per_s * s.mem_efficiency;
    for (std::size_t i = 0; i < out.rows.size(); ++i) {
      operator_row& row = out.rows[i];
      const double pc =
          p.peak_flops_per_s * (b.buckets[i] == bucket::expert_routed ? expert_ce : out.compute_efficiency);
      row.compute_s = pc > 0 ? row.flops / pc : 0.0;
      const double timed = row.bytes() + (row.kv_read ? row.kv_bytes * (1 / costs.kv_read_efficiency - 1) : 0.0);
      row.memory_s = pm > 0 ? timed / pm : 0.0;
    }
    if (gpu != nullptr) read_curves(out, b.buckets, b.params, m, s, r, kind, *gpu, resolve);
  }
  return out;
}

}  // namespace

operator_tables operator_table(const model_spec& m, const settings& s, const estimate_result& r) {
  return operator_table(m, s, r, nullptr, {});
}

operator_tables operator_table(const model_spec& m, const settings& s, const estimate_result& r,
                               const hardware_spec* gpu, const device_resolver& resolve) {
  operator_tables t;
  const bool encoder_only = m.arch == architecture::encoder;
  t.prefill = pass_of(m, s, r, encoder_only ? pass_kind::forward : pass_kind::prefill, gpu, resolve);
  if (!encoder_only) t.decode = pass_of(m, s, r, pass_kind::decode, gpu, resolve);
  t.has_device = r.has_performance;
  if (t.has_device) {
    t.peak_flops_per_s = r.perf.peak_flops_per_s;
    t.memory_bandwidth_bytes_per_s = r.perf.memory_bandwidth_bytes_per_s;
    t.mem_efficiency = s.mem_efficiency;
    t.compute_precision = r.perf.compute_precision;
  }
  return t;
}

namespace detail {

void write_operators(json_out& w, const model_spec& m, const settings& s, const estimate_result& r,
                     const hardware_spec* gpu, const device_resolver& resolve) {
  const operator_tables t = operator_table(m, s, r, gpu, resolve);
  const bool dev = t.has_device;
  const auto rows = [&](const operator_pass& p) {
    double total_s = 0;
    for (const operator_row& row : p.rows) total_s += row.time_s();
    w.begin_array();
    for (const operator_row& row : p.rows) {
      w.begin_object().field("name", row.name).field_if("group", row.group >= 0, row.group).field("layers", row.layers);
      if (row.format)
        w.field("precision", to_string(*row.format));
      else
        w.field("precision", nullptr);
      w.field("flops", row.flops)
          .field("bytes", row.bytes())
          .field("weight_bytes", row.weight_bytes)
          .field("activation_bytes", row.activation_bytes)
          .field("kv_bytes", row.kv_bytes)
          .field_if("intensity", row.bytes() > 0, row.bytes() > 0 ? row.intensity() : 0.0)
          .field_if("bound", dev, row.compute_bound() ? "compute" : "memory")
          .field_if("compute_s", dev, row.compute_s)
          .field_if("memory_s", dev, row.memory_s)
          .field_if("time_s", dev, row.time_s())
          .field_if("share", dev && total_s > 0, total_s > 0 ? row.time_s() / total_s : 0.0);
      if (row.kernel_curve) {
        const kernel_curve_row& kc = *row.kernel_curve;
        w.object("kernel_curve", [&] {
          w.field("op", to_string(kc.op))
              .field("source", kc.lookup.source)
              .field("curve", kc.lookup.curve)
              .field("device", kc.lookup.device)
              .field("how", kc.lookup.how)
              .field("clamped", kc.lookup.clamped)
              .field("efficiency", kc.lookup.efficiency)
              .field("time_s", kc.time_s)
              .field("range_widening", kc.lookup.range_widening);
        });
      } else {
        w.field("kernel_curve", nullptr);
      }
      w.end_object();
    }
    w.end_array();
  };
  w.begin_object();
  w.key("prefill");
  rows(t.prefill);
  w.key("decode");
  if (m.arch == architecture::encoder)
    w.value(nullptr);
  else
    rows(t.decode);
  if (dev)
    w.object("device", [&] {
      w.field("compute_precision", to_string(t.compute_precision))
          .field("peak_flops_per_s", t.peak_flops_per_s)
          .field("memory_bandwidth_bytes_per_s", t.memory_bandwidth_bytes_per_s)
          .field("prefill_compute_efficiency", t.prefill.compute_efficiency)
          .field_if("decode_compute_efficiency", m.arch != architecture::encoder, t.decode.compute_efficiency)
          .field("mem_efficiency", t.mem_efficiency);
    });
  else
    w.field("device", nullptr);
  w.end_object();
}

}  // namespace detail
}  // namespace flopcast
