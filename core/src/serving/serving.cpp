#include "flopcast/serving/serving.hpp"

#include <algorithm>
#include <cmath>

#include "base/detail.hpp"
#include "estimate/estimate_parts.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/serving/engine.hpp"
#include "flopcast/serving/speculative.hpp"

namespace flopcast {
namespace {

using detail::d;

[[noreturn]] void bad(const char* field, const std::string& message) {
  throw error(error_code::invalid_argument, field, message);
}

void validate_serving(const model_spec& m, const serving_settings& s) {
  if (m.arch == architecture::encoder)
    bad("/model", "an encoder-only model does not generate: serving throughput needs a decoder");
  detail::check_serving(s);  // bounds and messages from the request table
  if (s.prefill_batch_tokens < 0 || s.prefill_batch_tokens > (std::int64_t{1} << 30))
    bad("/serving/prefill_batch_tokens",
        "expected a number of tokens in [0, 1073741824], but got " + std::to_string(s.prefill_batch_tokens));
  if (s.max_running && (*s.max_running < 1 || *s.max_running > (std::int64_t{1} << 40)))
    bad("/serving/max_running", "expected a number of sequences >= 1, but got " + std::to_string(*s.max_running));
  if (s.draft && s.draft->arch != architecture::decoder) bad("/serving/draft", "expected a decoder-only draft model");
}

// Chunked prefill: a new prompt's time to first token. Its P tokens run in ceil(P / chunk)
// steps; each carries one chunk of it (the last one the rest) beside the step's other work: the
// decodes of the micro-batch's other sequences and their share of prefill tokens ((micro - 1) x
// P / O per step, as the cycle counts), with the step formula of the cycle (GEMM curve over the
// step's tokens, the fixed cost once per step).
double chunked_ttft(const model_spec& m, const settings& replica, const estimate_result& rd, const estimate_result& rp,
                    const weight_traffic& tr, std::int64_t micro, std::int64_t P, std::int64_t O, std::int64_t chunk,
                    double pc) {
  const double tp = d(replica.parallel.tensor_parallel);
  const double comm_step = rd.parallel.tp_allreduce_decode_step_s + rd.parallel.pp_send_decode_step_s +
                           rd.parallel.ep_alltoall_decode_step_s;
  const double others = d(micro - 1);
  const double decode_flops = rd.perf.decode_first_step_flops * others / d(micro);
  const double prefill_flops_per_token = rp.perf.prefill_flops / d(P);
  const double background = others * d(P) / d(O);  // the other sequences' prefill tokens per step
  double ttft = 0;
  for (std::int64_t done = 0; done < P; done += chunk) {
    const double own = d(std::min(chunk, P - done));
    const double tokens = others + background + own;
    const double flops = decode_flops + prefill_flops_per_token * (background + own);
    const double gemm = detail::gemm_factor(replica.costs, tokens);
    const double expert_extra = detail::expert_gemm_extra_flops(
        replica.costs, 2 * tr.experts_per_token * tr.expert_params * tokens, tokens, tr.experts_per_token, tr.experts);
    ttft += std::max((flops + expert_extra) / (pc * gemm) / tp, rd.perf.decode_first_step_memory_s / tp) + comm_step +
            detail::fixed_step_s(replica.costs, detail::layer_count(m), d(micro));
  }
  return ttft;
}

// One evaluation at a pair of efficiencies.
serving_result run(const model_spec& m, const serving_settings& s, const hardware_spec& gpu, double ce, double me) {
  serving_result out;
  settings replica = s.base;  // one data-parallel replica; replicas multiply throughput
  replica.compute_efficiency = ce;
  replica.mem_efficiency = me;
  replica.training = false;
  const std::int64_t replicas = replica.parallel.data_parallel;
  replica.parallel.data_parallel = 1;
  out.gpus = s.base.parallel.total_gpus();
  const std::int64_t P = s.prompt_tokens, O = s.output_tokens;

  // Memory per GPU: the weights stay resident; each concurrent sequence holds its KV blocks and,
  // as estimate() counts a batch, its share of the prefill activations. So c sequences fit here
  // exactly when estimate() at batch c (prompt P, output O) says they fit: one fit rule
  // (detail::usable_memory), up to the paged blocks' rounding.
  settings one = replica;
  one.batch_size = 1;
  one.sequence_length = P;
  one.num_generated_tokens = O;
  const estimate_result r1 = estimate(m, one, &gpu);
  double per_seq = r1.parallel.kv_cache_per_gpu;
  if (s.paged) {
    const double tokens = d(P + O), blocks = std::ceil(tokens / d(s.block_size));
    per_seq *= blocks * d(s.block_size) / tokens;  // whole blocks (sliding windows: an upper bound)
  }
  double budget = detail::usable_memory(s.base, gpu) - r1.parallel.weights_per_gpu;
  out.activation_bytes_per_sequence = r1.parallel.activations_per_gpu;
  std::optional<estimate_result> draft1;
  if (s.draft) {
    settings dset = one;
    dset.parallel = parallel_layout{};
    draft1 = estimate(*s.draft, dset, &gpu);
    budget -= draft1->memory.weights;
    per_seq += draft1->memory.kv_cache;
  }
  out.kv_budget_bytes = budget;
  out.kv_bytes_per_sequence = per_seq;
  // At most 2^40 sequences per replica (far beyond any KV budget of a bounded device): the
  // double-to-integer conversion can never overflow.
  constexpr double max_sequences = 1099511627776.0;
  const std::int64_t per_replica_max =
      budget > 0 ? static_cast<std::int64_t>(
                       std::min(std::floor(budget / (per_seq + out.activation_bytes_per_sequence)), max_sequences))
                 : 0;
  out.max_concurrency = per_replica_max * replicas;
  // The requested load fits when its sequences' caches do (the one fit rule: weights, cache and
  // activations against detail::usable_memory); beyond that the engine queues the rest, so the
  // figures below are at the most that fit, and say so.
  const std::int64_t most =
      s.max_running ? std::min(*s.max_running * replicas, out.max_concurrency) : out.max_concurrency;
  const std::int64_t requested = s.concurrency.value_or(std::max<std::int64_t>(most, 1));
  out.fits = per_replica_max >= 1 && requested <= out.max_concurrency;
  out.concurrency_capped = per_replica_max >= 1 && requested > out.max_concurrency;
  if (per_replica_max < 1) return out;
  out.concurrency = std::min(requested, out.max_concurrency);
  const std::int64_t c = (out.concurrency + replicas - 1) / replicas;  // per replica

  // A request's prefill alone, and a decode step of the whole batch at the mean context.
  settings pre = one;
  pre.num_generated_tokens = 0;
  const estimate_result rp = estimate(m, pre, &gpu);
  out.prefill_s = rp.parallel.prefill_latency_s;
  settings dec = replica;
  // Pipeline parallelism runs pp micro-batches in flight (vLLM, TensorRT-LLM): every stage works
  // on one of them at a time, so all c sequences advance one token per pass of a c / pp
  // micro-batch through the pp stages.
  const std::int64_t pp = replica.parallel.pipeline_parallel;
  const std::int64_t micro = (c + pp - 1) / pp;
  dec.batch_size = micro;
  dec.sequence_length = P + O / 2;
  dec.num_generated_tokens = 1;
  const estimate_result rd = estimate(m, dec, &gpu);
  out.decode_step_s = rd.parallel.decode_latency_per_token_s;
  out.decode_bound = rd.perf.decode_bound;
  const double tp = d(replica.parallel.tensor_parallel);
  const double comm_step = rd.parallel.tp_allreduce_decode_step_s + rd.parallel.pp_send_decode_step_s +
                           rd.parallel.ep_alltoall_decode_step_s;
  const double pc = rd.perf.peak_flops_per_s * ce, pm = rd.perf.memory_bandwidth_bytes_per_s * me;

  const double layers = detail::layer_count(m);
  if (s.chunked_prefill_tokens > 0) {
    // Prefill tokens ride along the decode steps: c x P of them per O steps; the step's GEMMs run
    // over its decode and prefill tokens, and it pays the engine's fixed cost once.
    const double prefill_tokens_per_step = d(micro) * d(P) / d(O);
    const double flops = rd.perf.decode_first_step_flops + rp.perf.prefill_flops / d(P) * prefill_tokens_per_step;
    const double tokens = d(micro) + prefill_tokens_per_step;
    const double gemm = detail::gemm_factor(replica.costs, tokens);
    const weight_traffic tr = detail::weight_traffic_of(m, rd);
    const double expert_extra = detail::expert_gemm_extra_flops(
        replica.costs, 2 * tr.experts_per_token * tr.expert_params * tokens, tokens, tr.experts_per_token, tr.experts);
    const double step = std::max((flops + expert_extra) / (pc * gemm) / tp, rd.perf.decode_first_step_memory_s / tp) +
                        comm_step + detail::fixed_step_s(replica.costs, layers, d(micro));
    out.cycle_s = d(O) * step;
    out.ttft_s = chunked_ttft(m, replica, rd, rp, tr, micro, P, O, s.chunked_prefill_tokens, pc);
    // A prompt's steps cannot take less than the prompt alone (estimate()'s prefill: its own
    // communication and fixed cost, which the steps above count at a decode step's).
    out.ttft_s = std::max(out.ttft_s, out.prefill_s);
    out.tpot_s = step;
  } else {
    // Prefills interrupt decoding: each cycle runs O steps and the c prefills of the next
    // requests, k at a time where a step holds k prompts (prefill_batch_tokens), else one by one.
    std::int64_t k = 1;
    double prefill_step = out.prefill_s;
    if (s.prefill_batch_tokens > P) {
      k = std::min<std::int64_t>(c, s.prefill_batch_tokens / P);
      settings pk = pre;
      pk.batch_size = k;
      prefill_step = estimate(m, pk, &gpu).parallel.prefill_latency_s;
    }
    const double prefill_steps = std::ceil(d(c) / d(k));
    out.cycle_s = d(O) * out.decode_step_s + prefill_steps * prefill_step;
    out.ttft_s = out.decode_step_s + prefill_step;  // waits for the running step, then its prefill
    out.tpot_s = out.cycle_s / d(O);
  }
  out.output_tokens_per_second = d(c) * d(O) / out.cycle_s * d(replicas);
  out.total_tokens_per_second = out.output_tokens_per_second * d(P + O) / d(O);
  out.requests_per_second = d(c) / out.cycle_s * d(replicas);
  const double cost_per_hour = s.base.cost_per_hour_usd.value_or(gpu.cost_per_hour_usd) * d(out.gpus);
  out.cost_per_1m_output_tokens_usd = cost_per_hour / 3600.0 / out.output_tokens_per_second * 1e6;

  if (s.draft) {
    // Speculative decoding: k draft steps, then the target verifies k+1 tokens per sequence
    // in one pass (same weight traffic as a decode step, k+1 times its FLOPs).
    out.speculative = true;
    const double k = d(s.speculative_tokens);
    out.expected_tokens_per_step = expected_tokens_per_step(s.speculative_tokens, {s.acceptance_rate});
    settings ddec = dec;
    ddec.parallel = parallel_layout{};
    out.draft_step_s = estimate(*s.draft, ddec, &gpu).perf.decode_latency_per_token_s;
    out.verify_step_s =
        std::max((k + 1) * rd.perf.decode_first_step_flops / pc, rd.perf.decode_first_step_bytes / pm) / tp + comm_step;
    const double step = k * out.draft_step_s + out.verify_step_s;
    const double cycle = d(O) / out.expected_tokens_per_step * step + d(c) * out.prefill_s;
    out.speculative_tpot_s = cycle / d(O);
    out.speculative_output_tokens_per_second = d(c) * d(O) / cycle * d(replicas);
    out.speedup = out.speculative_output_tokens_per_second / out.output_tokens_per_second;
  }
  return out;
}

}  // namespace

serving_result serve(const model_spec& m, const serving_settings& in, const hardware_spec& gpu) {
  validate_serving(m, in);
  validate(in.base);
  serving_settings s = in;
  if (!s.base.engine.empty()) {
    // The engine's scheduler: its step token budget and running-sequence cap (static-batching
    // engines have none).
    const engine_profile& e = find_engine(s.base.engine);
    if (e.batching == engine_batching::continuous) {
      const engine_scheduler k = scheduler_of(e, gpu);
      if (s.chunked_prefill_tokens == 0 && s.prefill_batch_tokens == 0)
        (k.chunked_prefill ? s.chunked_prefill_tokens : s.prefill_batch_tokens) = k.max_num_batched_tokens;
      if (!s.max_running) s.max_running = k.max_num_seqs;
    }
  }
  // The model's own figures: the single-request estimates inside take no band correction (the
  // bands below are residuals of these figures).
  serving_settings model = s;
  model.base.bands = engine_bands{};
  serving_result r = run(m, model, gpu, s.base.compute_efficiency, s.base.mem_efficiency);
  if (!r.fits) return r;
  const efficiency_spread cs = compute_spread(s.base.compute_efficiency_origin),
                          ms = memory_spread(s.base.mem_efficiency_origin);
  serving_settings fixed = model;
  fixed.concurrency = r.concurrency;  // the same load at both ends of the range
  const serving_result fast = run(m, fixed, gpu, std::min(1.0, s.base.compute_efficiency * cs.high),
                                  std::min(1.0, s.base.mem_efficiency * ms.high));
  const serving_result slow = run(m, fixed, gpu, s.base.compute_efficiency * cs.low, s.base.mem_efficiency * ms.low);
  r.output_tokens_per_second_range = {slow.output_tokens_per_second, fast.output_tokens_per_second};
  r.ttft_range = {fast.ttft_s, slow.ttft_s};
  r.tpot_range = {fast.tpot_s, slow.tpot_s};
  r.range_source = range_source();
  // A fitted engine: the residual spread of its rows per figure (throughput as a time ratio).
  const engine_bands& eb = s.base.bands;
  if (s.base.compute_efficiency_origin == efficiency_origin::fitted ||
      s.base.mem_efficiency_origin == efficiency_origin::fitted) {
    std::string used;
    const auto note = [&](const char* what, const residual_band& b) {
      used += (used.empty() ? "" : ", ") + std::string(what) + " " + std::to_string(b.rows) + " rows";
    };
    // The ranges are around the model's figures; where a band excludes the model's figure
    // (band_biased) the figure becomes the model's x the band's median, inside its range.
    std::string fixes;
    const auto fix = [&](const char* what, const residual_band& b) {
      if (!band_biased(b)) return;
      fixes += (fixes.empty() ? "" : ", ") + std::string(what) + " x" + detail::format_number(b.median);
    };
    if (eb.throughput.rows > 0) {
      r.output_tokens_per_second_range = {r.output_tokens_per_second / eb.throughput.high,
                                          r.output_tokens_per_second / eb.throughput.low};
      note("throughput", eb.throughput);
      const double k = band_correction(eb.throughput);  // a time ratio: rates divide
      r.output_tokens_per_second /= k;
      r.total_tokens_per_second /= k;
      r.requests_per_second /= k;
      r.cost_per_1m_output_tokens_usd *= k;
      fix("throughput (as a time)", eb.throughput);
    }
    if (eb.ttft_load.rows > 0) {
      r.ttft_range = {r.ttft_s * eb.ttft_load.low, r.ttft_s * eb.ttft_load.high};
      note("TTFT under load", eb.ttft_load);
      // Never below the prompt's idle prefill as estimate() shows it (its own band's
      // correction): the range then reaches down or up to the point.
      const double idle = r.prefill_s * band_correction(eb.prefill);
      const double point = std::max(r.ttft_s * band_correction(eb.ttft_load), idle);
      if (point != r.ttft_s * band_correction(eb.ttft_load))
        fixes += (fixes.empty() ? "" : ", ") + std::string("TTFT held at the idle prefill ") +
                 detail::format_number(std::round(idle * 1e6) / 1e3) + " ms";
      r.ttft_s = point;
      r.ttft_range = {std::min(r.ttft_range.low, point), std::max(r.ttft_range.high, point)};
      fix("TTFT under load", eb.ttft_load);
    }
    if (eb.decode.rows > 0) {
      r.tpot_range = {r.tpot_s * eb.decode.low, r.tpot_s * eb.decode.high};
      note("decode", eb.decode);
      r.tpot_s *= band_correction(eb.decode);
      fix("TPOT", eb.decode);
    }
    if (!fixes.empty()) {
      used += "; points corrected by the engine's fitted median residual (" + fixes + ")";
      r.point_correction = "corrected by engine " + s.base.engine + "'s fitted median residual: " + fixes;
    }
    if (!used.empty()) r.range_source = detail::engine_range_source(s.base.engine, used);
  }
  return r;
}

}  // namespace flopcast
