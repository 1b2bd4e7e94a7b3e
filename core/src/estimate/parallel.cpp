// Multi-GPU layouts: tensor, pipeline, data and expert parallelism (and sequence
// parallelism for training). Per-GPU memory, communication, and latency with it.
//
// Model (first-order, Megatron-LM style):
// - TP shards every attention and MLP matrix and the vocabulary tables over its ranks;
//   norms and routers are replicated. KV heads are sharded while there are at least as
//   many as ranks, else each rank keeps one (replicated); an MLA latent is replicated.
// - PP splits the layers into contiguous balanced stages (the first holds the embedding,
//   the last the head and final norm; a tied table is kept on both). A request passes the
//   stages one after another, so PP does not shorten one request's latency; it adds a
//   send per stage boundary. Training runs m microbatches: bubble (pp-1)/(m+pp-1).
// - DP replicates everything and splits the batch; training all-reduces the gradients.
// - EP splits the routed experts; each MoE layer dispatches and combines tokens with two
//   all-to-alls.
// - A ring all-reduce of M bytes over N ranks takes 2(N-1)/N x M / bandwidth +
//   2(N-1) x link latency (Patarasuk & Yuan 2009; the volume Megatron-LM's TP pays twice
//   per layer). Bandwidth is per direction: the GPU records give NVLink/PCIe totals for
//   both directions, so half of it is used unless one is given.
#include <algorithm>
#include <array>
#include <cmath>

#include "base/detail.hpp"
#include "estimate/estimate_parts.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/estimate/estimate.hpp"
#include "flopcast/training/training.hpp"
#include "training/training_parts.hpp"

namespace flopcast::detail {

double ring_allreduce_s(double bytes, std::int64_t ranks, double bw, double latency) {
  if (ranks <= 1) return 0;
  const double n = d(ranks);
  return 2 * (n - 1) / n * bytes / bw + 2 * (n - 1) * latency;
}

namespace {

[[noreturn]] void bad_layout(const char* field, const std::string& message) {
  throw error(error_code::invalid_argument, std::string("/parallelism/") + field, message);
}

// The times of one replica's run that the layout's latencies start from.
struct replica_times {
  double prefill_latency_s, decode_latency_per_token_s, training_step_s;
  std::int64_t decode_steps;
};
replica_times times_of(const performance& p) {
  return {p.prefill_latency_s, p.decode_latency_per_token_s, p.training_step_s, p.decode_steps};
}
// The same request on one replica of a data-parallel layout (its share of the batch, one GPU),
// with the same training options. Out of line: its result is built only for such a layout.
[[gnu::noinline]] replica_times one_replica(const model_spec& m, const settings& s, const hardware_spec& gpu,
                                            std::int64_t batch, const training_settings* training) {
  settings single = s;
  single.batch_size = batch;
  single.parallel = parallel_layout{};
  return times_of(estimate_with(m, single, &gpu, training, nullptr).perf);
}

}  // namespace

// All-reduces per layer that TP needs in one pass.
double allreduces_per_layer(const model_spec& m, const layer_group& g) {
  // One after the mixer (attention, or a mixer beside it) and one after the MLP, unless they
  // share their input; mixer-only and MLP-only blocks have one.
  const double parts = (g.mixer != mixer_kind::none ? 1.0 : 0.0) + (g.mlp ? 1.0 : 0.0);
  return (m.parallel_attention ? std::min(parts, 1.0) : parts) + (g.cross_attention ? 1.0 : 0.0);
}

void validate_layout(const model_spec& m, const settings& s) {
  const parallel_layout& l = s.parallel;
  const auto check = [](std::int64_t v, const char* field) {
    if (v < 1 || v > 65536) bad_layout(field, "expected an integer in [1, 65536], but got " + std::to_string(v));
  };
  check(l.tensor_parallel, "tensor_parallel");
  check(l.pipeline_parallel, "pipeline_parallel");
  check(l.data_parallel, "data_parallel");
  check(l.expert_parallel, "expert_parallel");
  check(l.num_microbatches, "num_microbatches");
  if (m.attention.num_heads % l.tensor_parallel != 0)
    bad_layout("tensor_parallel", "expected a divisor of num_attention_heads (" +
                                      std::to_string(m.attention.num_heads) + "), but got " +
                                      std::to_string(l.tensor_parallel));
  const std::int64_t layers = m.num_layers + m.num_encoder_layers;
  if (l.pipeline_parallel > layers)
    bad_layout("pipeline_parallel", "expected at most the number of layers (" + std::to_string(layers) + "), but got " +
                                        std::to_string(l.pipeline_parallel));
  if (l.data_parallel > s.batch_size)
    bad_layout("data_parallel", "expected at most the batch size (" + std::to_string(s.batch_size) +
                                    ") so every replica has a sequence, but got " + std::to_string(l.data_parallel));
  if (l.expert_parallel > 1) {
    if (m.moe.num_experts == 0)
      bad_layout("expert_parallel", "expected 1 for a dense model (" + m.name + " has no experts), but got " +
                                        std::to_string(l.expert_parallel));
    if (m.moe.num_experts % l.expert_parallel != 0)
      bad_layout("expert_parallel", "expected a divisor of the number of experts (" +
                                        std::to_string(m.moe.num_experts) + "), but got " +
                                        std::to_string(l.expert_parallel));
  }
  check(l.attention_data_parallel, "attention_data_parallel");
  if (l.expert_parallel % l.attention_data_parallel != 0)
    bad_layout("attention_data_parallel",
               "expected a divisor of expert_parallel (" + std::to_string(l.expert_parallel) +
                   "): the tensor_parallel x expert_parallel GPUs of a replica form the attention ranks, each "
                   "tensor_parallel GPUs (without experts, attention data parallelism is data_parallel), but got " +
                   std::to_string(l.attention_data_parallel));
  if (!(l.expert_imbalance >= 1 && l.expert_imbalance <= d(l.expert_parallel)))
    bad_layout("expert_imbalance", "expected the busiest expert-parallel rank's load over the mean, in [1, " +
                                       std::to_string(l.expert_parallel) + "] (expert_parallel), but got " +
                                       format_number(l.expert_imbalance));
  if (l.interconnect_bandwidth_bytes_per_s && !(*l.interconnect_bandwidth_bytes_per_s > 0))
    bad_layout("interconnect_bandwidth_bytes_per_s", "expected a positive number of bytes/s");
  if (!(l.link_latency_s >= 0 && l.link_latency_s < 1))
    bad_layout("link_latency_s", "expected a number of seconds in [0, 1)");
}

parallel_result parallel_view(const model_spec& m, const settings& s, const hardware_spec& gpu, estimate_result& r,
                              const training_settings* training) {
  parallel_result out;
  const parallel_layout& l = s.parallel;
  out.layout = l;
  // Context-parallel ranks multiply the layout's GPUs (training.hpp).
  out.total_gpus = l.total_gpus() * (s.training && training != nullptr ? training->context_parallel : 1);
  const std::int64_t tp = l.tensor_parallel, pp = l.pipeline_parallel, dp = l.data_parallel, ep = l.expert_parallel;
  out.batch_per_replica = (s.batch_size + dp - 1) / dp;
  const double B = d(out.batch_per_replica), S = d(s.sequence_length);
  // With attention data parallelism each attention rank caches its own share of the sequences
  // (dealt round-robin: the busiest holds the ceiling) and holds its activations.
  const std::int64_t adp = l.attention_data_parallel;
  const double B_rank = d((out.batch_per_replica + adp - 1) / adp);
  double bw = l.interconnect_bandwidth_bytes_per_s.value_or(gpu.interconnect_bandwidth_bytes_per_s / 2.0);
  // A tensor- or expert-parallel group larger than the device's NVLink / ICI / xGMI domain spans
  // nodes: its collectives run at the scale-out rate, one 400 Gb/s NIC per GPU (50 GB/s per
  // direction: NVIDIA DGX H100/B200 user guides, 8 x ConnectX-7 per 8 GPUs), unless set.
  constexpr double scale_out_bytes_per_s = 50e9;
  const std::int64_t domain = gpu.interconnect_domain_size;
  if (domain > 0 && std::max(tp, ep) > domain && !l.interconnect_bandwidth_bytes_per_s) {
    bw = std::min(bw, scale_out_bytes_per_s);
    r.notes |= note_beyond_domain;
  }
  out.interconnect_bandwidth_bytes_per_s = bw;
  if (!l.trivial() && !(bw > 0))
    bad_layout("interconnect_bandwidth_bytes_per_s",
               "expected a positive bandwidth: GPU " + gpu.name + " lists no interconnect");

  // Parameters each rank of each stage holds, and their bytes at each part's own format (the
  // estimate's weights: per-part precisions, a GGUF plan, or a checkpoint's exact bytes).
  const memory_breakdown& wm = r.memory;
  const auto rate = [&](weight_component c) { return wm.bytes_per_parameter[static_cast<std::size_t>(c)]; };
  const double norm_rate = wm.norm_bytes_per_parameter;
  const std::int64_t total_layers = static_cast<std::int64_t>(m.layer_group_of.size());
  std::array<double, max_layer_groups> layer_params{}, layer_bytes{}, layer_kv{};
  if (!m.attention.mla && m.arch != architecture::encoder && m.attention.num_kv_heads > 0 &&
      m.attention.num_kv_heads < tp)
    r.notes |= note_kv_replicated;
  // The share of a layer's K/V heads one rank holds (replicated below one head per rank).
  const auto kv_heads_factor = [&](const attention_spec& a) {
    return a.mla || a.num_kv_heads == 0 ? 1.0 : std::max(d(a.num_kv_heads) / d(tp), 1.0) / d(a.num_kv_heads);
  };
  const double kv_elem_bytes = storage_bytes(r.kv_precision);
  const double dec_tokens_end =
      m.arch == architecture::encoder_decoder ? d(s.num_generated_tokens) : S + d(s.num_generated_tokens);
  for (std::size_t i = 0; i < m.groups.size(); ++i) {
    const layer_group& g = m.groups[i];
    const layer_weights w = weights_of(m, g);
    // A MoE layer's whole MLP (router, shared and routed experts) is the experts part.
    double mlp = 0, mlp_bytes = 0;
    if (g.mlp && g.moe) {
      const double experts = d(m.moe.num_experts) * d(w.expert);
      const double router = d(m.hidden_size) * d(detail::router_outputs(m.moe)) +
                            (m.moe.router_bias ? d(detail::router_outputs(m.moe)) : 0.0);
      mlp = router + (d(w.mlp_total) - experts - router) / d(tp) + experts / d(tp * ep);
      mlp_bytes = mlp * rate(weight_component::experts);
    } else if (g.mlp) {
      mlp = d(w.mlp_total) / d(tp);
      mlp_bytes = mlp * rate(weight_component::mlp);
    }
    const double attention = d(w.attn_matmul + w.attn_bias + w.attn_kv_matmul) / d(tp), mixer = d(w.mixer) / d(tp);
    layer_params[i] = attention + mixer + d(w.norm) + mlp;
    layer_bytes[i] = attention * rate(weight_component::attention) + mixer * rate(weight_component::mixer) +
                     d(w.norm) * norm_rate + mlp_bytes;
    if (!g.encoder && m.arch != architecture::encoder) {
      // K/V heads shard over TP (replicated below one per rank); mixer states shard by heads.
      const double per_token = kv_elements_per_token(m, g) * kv_heads_factor(attention_of(m, g)) * kv_elem_bytes;
      layer_kv[i] = B_rank * state_elements_per_sequence(m, g) / d(tp) * kv_elem_bytes;
      if (has_attention(g)) layer_kv[i] += B_rank * cached_tokens(g, dec_tokens_end) * per_token;
      if (g.cross_attention)
        layer_kv[i] += B_rank * S * 2 * d(m.attention.num_heads) * d(m.attention.head_dim) / d(tp) * kv_elem_bytes;
    }
  }
  const parameter_breakdown& pb = r.parameters;
  const double table = d(m.vocab_size) * d(embed_dim(m));
  // The first stage: the embedding (its vocabulary table sharded) and a vision tower (sharded).
  const double embedding = (d(pb.embedding) - table) + table / d(tp), vision = d(pb.vision) / d(tp);
  const double first_extra = embedding + vision;
  const double first_extra_bytes =
      embedding * rate(weight_component::embedding) + vision * rate(weight_component::vision);
  const double head = d(pb.output_head) / d(tp);
  const double final_norms = m.final_norm ? d(stacks(m)) * d(norm_params(m, m.hidden_size)) : 0.0;
  double last_extra = head + final_norms;
  double last_extra_bytes = head * rate(weight_component::lm_head) + final_norms * norm_rate;
  if (m.mtp_layers > 0) {
    // Multi-token-prediction modules (model_spec::mtp_layers) sit after the last layer, each a
    // dense layer plus input_proj (2h -> h, with attention) and three norms, sharded like a layer.
    const layer_weights w = weights_of(m, layer_group{});
    const double h = d(m.hidden_size), k = d(m.mtp_layers);
    const double attention = (d(w.attn_matmul + w.attn_bias + w.attn_kv_matmul) + 2 * h * h) / d(tp);
    const double mlp = d(w.mlp_total) / d(tp);
    const double norms = d(w.norm) + 3 * d(norm_params(m, m.hidden_size));
    last_extra += k * (attention + mlp + norms);
    last_extra_bytes +=
        k * (attention * rate(weight_component::attention) + mlp * rate(weight_component::mlp) + norms * norm_rate);
  }
  if (m.tie_word_embeddings && m.lm_head && pp > 1) {
    last_extra += table / d(tp);
    last_extra_bytes += table / d(tp) * rate(weight_component::embedding);
  }
  const double embedding_norm = m.embedding_norm ? d(norm_params(m, m.hidden_size)) : 0.0;
  const double buckets = m.relative_buckets > 0 ? d(stacks(m)) * d(m.relative_buckets) * d(m.attention.num_heads) : 0.0;
  const double shared_extra = embedding_norm + buckets;
  const double shared_extra_bytes = embedding_norm * norm_rate + buckets * rate(weight_component::attention);

  // Balanced contiguous stages; the heaviest decides what fits.
  const double state_per_param =
      s.training && pb.total > 0
          ? (r.memory.train_weights + r.memory.train_gradients + r.memory.train_optimizer_state) / d(pb.total)
          : 0.0;
  std::int64_t start = 0;
  double worst_memory = -1;
  const std::int64_t base_size = total_layers / pp, extra = total_layers % pp;
  for (std::int64_t stage = 0; stage < pp; ++stage) {
    const std::int64_t size = base_size + (stage < extra ? 1 : 0);
    double params = stage == 0 ? first_extra + shared_extra : 0.0;
    double weights = stage == 0 ? first_extra_bytes + shared_extra_bytes : 0.0;
    if (stage == pp - 1) {
      params += last_extra;
      weights += last_extra_bytes;
    }
    double kv = 0;
    for (std::int64_t layer = start; layer < start + size; ++layer) {
      const std::size_t g = m.layer_group_of[static_cast<std::size_t>(layer)];
      params += layer_params[g];
      weights += layer_bytes[g];
      kv += layer_kv[g];
    }
    const double share = d(size) / d(total_layers);
    double acts;
    if (s.training) {
      const double rep = r.memory.train_activations_replicated_fraction;
      const double tp_share = l.sequence_parallel ? 1.0 / d(tp) : (1.0 - rep) / d(tp) + rep;
      // Context-parallel ranks each hold their share of every sequence's activations.
      const double cp = training != nullptr ? d(training->context_parallel) : 1.0;
      acts = r.memory.train_activations * (B / d(s.batch_size)) * share * tp_share / cp;
    } else {
      acts = r.memory.activations * (B_rank / d(s.batch_size)) / d(tp);
    }
    const double state = params * state_per_param;
    const double memory = s.training ? state + acts : weights + kv + acts;
    if (memory > worst_memory) {
      worst_memory = memory;
      out.layers_per_stage = size;
      out.weights_per_gpu = weights;
      out.kv_cache_per_gpu = kv;
      out.activations_per_gpu = acts;
      out.training_state_per_gpu = s.training ? state : 0.0;
      out.memory_per_gpu = memory;
    }
    start += size;
  }
  out.fits_per_gpu = out.memory_per_gpu <= r.memory.usable_gpu_memory;  // the fit rule, as roofline.cpp applied it

  // Communication of one prefill pass and one decode step, per replica.
  const double act = activation_bytes(s.weight_precision), h = d(m.hidden_size), lat = l.link_latency_s;
  const bool encdec = m.arch == architecture::encoder_decoder;
  const auto tokens_of = [&](const layer_group& g, bool decode) {
    if (decode) return g.encoder ? 0.0 : B;
    if (encdec && !g.encoder) return B;  // the decoder's start token
    return B * S;
  };
  const double k = d(std::max<std::int64_t>(m.moe.experts_per_token, 1));
  for (const bool decode : {false, true}) {
    if (decode && m.arch == architecture::encoder) break;
    double tp_s = 0, ep_s = 0;
    for (const layer_group& g : m.groups) {
      const double T = tokens_of(g, decode);
      if (T == 0) continue;
      const double msg = T * h * act;
      if (!decode && out.tp_allreduce_bytes == 0) out.tp_allreduce_bytes = msg;
      tp_s += d(g.count) * allreduces_per_layer(m, g) * ring_allreduce_s(msg, tp, bw, lat);
      if (g.moe && ep > 1) ep_s += d(g.count) * 2 * (T * k * h * act * (d(ep) - 1) / d(ep) / bw + (d(ep) - 1) * lat);
    }
    const double boundary_tokens = decode ? B : B * S;
    const double pp_s = pp > 1 ? d(pp - 1) * (boundary_tokens * h * act / bw + lat) : 0.0;
    (decode ? out.tp_allreduce_decode_step_s : out.tp_allreduce_s) = tp_s;
    (decode ? out.ep_alltoall_decode_step_s : out.ep_alltoall_s) = ep_s;
    (decode ? out.pp_send_decode_step_s : out.pp_send_s) = pp_s;
  }

  // The same request on one replica (batch split by DP), then TP divides its compute and
  // its memory traffic; communication is added, not overlapped.
  const replica_times replica = dp > 1 ? one_replica(m, s, gpu, out.batch_per_replica, training) : times_of(r.perf);
  const replica_times* p = &replica;
  // TP divides a step's compute and memory traffic, not the engine's fixed cost of the step
  // (scheduling, launches: every rank runs every layer's kernels), which each rank pays once.
  const auto divided = [&](double whole, bool decode) {
    const double fixed = std::min(fixed_in_figures(m, s, B, decode), whole);
    return (whole - fixed) / d(tp) + fixed;
  };
  out.prefill_latency_s = divided(p->prefill_latency_s, false) + out.tp_allreduce_s + out.pp_send_s + out.ep_alltoall_s;
  if (m.arch != architecture::encoder) {
    out.decode_latency_per_token_s = divided(p->decode_latency_per_token_s, true) + out.tp_allreduce_decode_step_s +
                                     out.pp_send_decode_step_s + out.ep_alltoall_decode_step_s;
    out.decode_tokens_per_second = d(s.batch_size) / out.decode_latency_per_token_s;
    out.total_request_latency_s =
        out.prefill_latency_s +
        (s.num_generated_tokens > 0 ? d(p->decode_steps) * out.decode_latency_per_token_s : 0.0);
  } else {
    out.total_request_latency_s = out.prefill_latency_s;
  }
  if (s.training) {
    // The step on the layout: the training room's schedule (training_schedule.cpp: ranks sharing
    // one replica's phase roofline, the interleaved pipeline bubble, communication overlap).
    const double grads = (out.training_state_per_gpu > 0 ? out.weights_per_gpu : 0.0);
    out.dp_allreduce_s = ring_allreduce_s(grads, dp, bw, lat);
    const layout_step step = training_layout_step(
        s, training, {p->training_step_s, out.tp_allreduce_s, out.pp_send_s, out.ep_alltoall_s, out.dp_allreduce_s});
    out.pp_bubble_fraction = step.bubble_fraction;
    out.training_step_s = step.step_s;
  }
  return out;
}

void apply_layout(const settings& s, const hardware_spec& gpu, estimate_result& r) {
  const parallel_result& q = r.parallel;
  performance& p = r.perf;
  r.memory.fits_on_gpu = q.fits_per_gpu;
  p.gpus = q.total_gpus;
  // Each range keeps its width relative to its figure (the layout's communication is spread like
  // the rest: a first-order choice).
  const auto move = [](double& value, figure_range& range, double to) {
    const double k = value > 0 ? to / value : 1.0;
    range = value > 0 ? figure_range{range.low * k, range.high * k} : figure_range{to, to};
    value = to;
  };
  move(p.prefill_latency_s, p.prefill_latency_range, q.prefill_latency_s);
  if (q.decode_latency_per_token_s > 0) {
    move(p.decode_latency_per_token_s, p.decode_latency_range, q.decode_latency_per_token_s);
    p.decode_tokens_per_second = q.decode_tokens_per_second;
    p.decode_tokens_per_second_range = {d(s.batch_size) / p.decode_latency_range.high,
                                        d(s.batch_size) / p.decode_latency_range.low};
    p.decode_total_s = d(p.decode_steps) * p.decode_latency_per_token_s;
  }
  move(p.total_request_latency_s, p.total_request_latency_range, q.total_request_latency_s);
  if (s.training) move(p.training_step_s, p.training_step_range, q.training_step_s);
  // Every GPU of the layout draws its share of power and is paid for while the request runs.
  const double watts = gpu.tdp_watts * s.power_utilization * d(q.total_gpus);
  const double price = p.cost_per_hour_usd * d(q.total_gpus) / 3600.0;
  const figure_range& busy = s.training ? p.training_step_range : p.total_request_latency_range;
  const double busy_s = s.training ? p.training_step_s : p.total_request_latency_s;
  p.energy_prefill_joules = p.prefill_latency_s * watts;
  p.energy_total_joules = busy_s * watts;
  p.energy_total_range = {busy.low * watts, busy.high * watts};
  p.co2_grams = p.energy_total_joules / 3.6e6 * s.carbon_intensity_g_per_kwh;
  p.cost_usd = busy_s * price;
  p.cost_range = {busy.low * price, busy.high * price};
}

}  // namespace flopcast::detail
