// Speculative decoding in the serving simulator: the proposer's cost per step, the verification
// cost (step_model::add_verify), the tokens a verification yields, the proposer's memory.
//
// Mechanism (vLLM V1 and SGLang alike): every decode step the target verifies each running
// sequence's k drafts in one pass (k + 1 query tokens over its context, logits at every
// position), keeps the accepted prefix plus its own next token, and the proposer drafts the next
// k tokens: a draft model in k forward steps of its own (the first over the step's new tokens,
// prompts included), MTP heads or an EAGLE-3 head in k passes of one decoder layer each.
// Accepted tokens per step are the expected value, 1 + sum_i prod_{j<=i} a_j, carried per
// sequence as a running credit (deterministic; no random draw).
#include "flopcast/serving/speculative.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/detail.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/serving/serving.hpp"
#include "serving/speculative_parts.hpp"

namespace flopcast {
namespace {

using detail::d;

[[noreturn]] void bad(const std::string& field, const std::string& message) {
  throw error(error_code::invalid_argument, field, message);
}

}  // namespace

std::string_view to_string(speculative_method m) noexcept {
  switch (m) {
    case speculative_method::draft_model:
      return "draft_model";
    case speculative_method::mtp:
      return "mtp";
    case speculative_method::eagle3:
      return "eagle3";
    case speculative_method::off:
      break;
  }
  return "off";
}

double expected_tokens_per_step(std::int64_t k, const std::vector<double>& acceptance) {
  double sum = 1, run = 1;
  for (std::int64_t i = 0; i < k && !acceptance.empty(); ++i) {
    const std::size_t at = std::min(static_cast<std::size_t>(i), acceptance.size() - 1);
    run *= acceptance[at];
    sum += run;
  }
  return sum;
}

speculative_settings resolve_speculative(const speculative_settings& in) {
  speculative_settings s = in;
  if (s.method == speculative_method::off) return s;
  const serving_settings closed_form;  // the closed form's defaults (serving.hpp)
  switch (s.method) {
    case speculative_method::draft_model:
      if (s.draft == nullptr)
        throw error(error_code::config_missing, "/simulation/draft",
                    "required field is missing: speculative \"draft_model\" needs the draft model");
      if (s.draft->arch != architecture::decoder) bad("/simulation/draft", "expected a decoder-only draft model");
      // ESTIMATED: the closed form's defaults (k 4, acceptance 0.7); vLLM's documented example
      // drafts 5 (docs.vllm.ai/en/v0.9.1/features/spec_decode.html).
      if (s.tokens == 0) s.tokens = closed_form.speculative_tokens;
      if (s.acceptance.empty()) s.acceptance = {closed_form.acceptance_rate};
      break;
    case speculative_method::mtp:
      // DeepSeek-V3 ships one MTP module (prediction depth D = 1) and reports "the acceptance
      // rate of the second token prediction ranges between 85% and 90%" (DeepSeek-V3 technical
      // report, arXiv:2412.19437, sections 2.2 and 5.4.3); vLLM's and SGLang's DeepSeek recipes
      // run it with one speculative token. ESTIMATED for GLM-4.5 and Qwen3.5 (DeepSeek's figure).
      if (s.tokens == 0) s.tokens = 1;
      if (s.acceptance.empty()) s.acceptance = {0.85};
      break;
    case speculative_method::eagle3:
      // vLLM's EAGLE example drafts 3 tokens (docs.vllm.ai/en/v0.14.0/features/spec_decode/);
      // ESTIMATED acceptance: the closed form's 0.7 (no per-position rate for chain drafting in
      // the sources read).
      if (s.tokens == 0) s.tokens = 3;
      if (s.acceptance.empty()) s.acceptance = {closed_form.acceptance_rate};
      break;
    case speculative_method::off:
      break;
  }
  if (s.tokens < 1 || s.tokens > 64)
    bad("/simulation/speculative_tokens", "expected an integer in [1, 64], but got " + std::to_string(s.tokens));
  for (std::size_t i = 0; i < s.acceptance.size(); ++i)
    if (!(s.acceptance[i] >= 0 && s.acceptance[i] <= 1))
      bad("/simulation/acceptance_rate/" + std::to_string(i),
          "expected an acceptance rate in [0, 1], but got " + detail::format_number(s.acceptance[i]));
  return s;
}

// Verification: `tokens` query tokens of one sequence after `context` cached ones; token i
// attends context + i keys; the LM head runs at every position; the cache is read once.
void step_model::add_verify(batch& b, std::int64_t context, std::int64_t tokens) const noexcept {
  if (tokens <= 1) {
    add_decode(b, context);
    return;
  }
  const double c = d(context), n = d(tokens);
  double flops = decode_linear_flops_ * n, kv = 0;
  const double bytes = kv_write_decode_ * n + 2 * state_bytes_;
  for (std::size_t i = 0; i < n_groups_; ++i) {
    const group_coef& g = groups_[i];
    double keys = 0, all = 0;
    for (std::int64_t j = 1; j <= tokens; ++j) {
      const double k = c + d(j);
      keys += g.window > 0 ? std::min(k, d(g.window)) : k;
      all += k;
    }
    const double span = c + n;
    flops += g.count * (g.decode_flops_per_key * keys + index_flops_per_key_ * all);
    kv += g.count *
          (g.decode_bytes_per_key * (g.window > 0 ? std::min(span, d(g.window)) : span) + index_bytes_per_key_ * span);
  }
  b.flops += flops;
  b.bytes += bytes;
  b.kv_read_bytes += kv;
  b.tokens += tokens;
  b.sequences += 1;
}

namespace detail {

speculation::speculation(const speculative_settings& s, const settings& base, const hardware_spec& gpu,
                         const step_model& target)
    : s_(s), target_(&target) {
  if (!on()) return;
  expected_.resize(static_cast<std::size_t>(s_.tokens) + 1);
  for (std::int64_t k = 0; k <= s_.tokens; ++k)
    expected_[static_cast<std::size_t>(k)] = expected_tokens_per_step(k, s_.acceptance);
  later_.resize(static_cast<std::size_t>(s_.tokens > 1 ? s_.tokens - 1 : 0));
  if (s_.method == speculative_method::draft_model) {
    // The drafter runs on the same GPUs with the target's tensor parallelism (vLLM's
    // draft_tensor_parallel_size defaults to the target's).
    draft_.emplace(*s_.draft, base, gpu);
    weights_ = draft_->weights_per_gpu();
    kv_per_token_ = draft_->kv_bytes_per_token();
  } else {
    // MTP heads, an EAGLE-3 head: about one decoder layer of the target per pass (ESTIMATED).
    const double layers = static_cast<double>(std::max<std::int64_t>(target.layers(), 1));
    layer_share_ = 1.0 / layers;
    weights_ = target.weights_per_gpu() / layers;
    kv_per_token_ = target.kv_bytes_per_token() / layers;
  }
}

void speculation::begin() noexcept {
  first_ = {};
  for (auto& b : later_) b = {};
}

void speculation::add_prefill(std::int64_t context, std::int64_t tokens, bool last) noexcept {
  if (!on()) return;
  const step_model& m = draft_ ? *draft_ : *target_;
  m.add_prefill(first_, context, tokens, last);
  if (!last) return;  // the prompt's end: its first k drafts follow
  for (std::size_t j = 0; j < later_.size(); ++j)
    m.add_decode(later_[j], context + tokens + static_cast<std::int64_t>(j));
}

void speculation::add_decode(std::int64_t context, std::int64_t depth) noexcept {
  if (!on()) return;
  const step_model& m = draft_ ? *draft_ : *target_;
  m.add_decode(first_, context);
  for (std::int64_t j = 1; j < depth && j <= static_cast<std::int64_t>(later_.size()); ++j)
    m.add_decode(later_[static_cast<std::size_t>(j - 1)], context + j);
}

double speculation::pass_s(const step_model::batch& b) const noexcept {
  if (b.tokens == 0) return 0;
  return draft_ ? draft_->time(b).total_s : target_->time(b).total_s * layer_share_;
}

double speculation::draft_s() const noexcept {
  if (!on()) return 0;
  double t = pass_s(first_);
  for (const auto& b : later_) t += pass_s(b);
  return t;
}

double speculation::expected(std::int64_t depth) const noexcept {
  if (expected_.empty()) return 1;
  return expected_[static_cast<std::size_t>(std::clamp<std::int64_t>(depth, 0, s_.tokens))];
}

std::int64_t speculation::accepted(double& credit, std::int64_t depth) const noexcept {
  const double e = expected(depth);
  const double before = std::floor(credit);
  credit += e;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(credit) - before));
}

}  // namespace detail
}  // namespace flopcast
