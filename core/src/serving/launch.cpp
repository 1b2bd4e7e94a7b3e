// Launch commands (engine.hpp launch_for): a configuration's settings, each as the engine's own flag
// (data/engines/*.json "launch"). What each engine calls a setting and which value it takes is here;
// the flag names are data.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "flopcast/base/error.hpp"
#include "flopcast/serving/engine.hpp"

namespace flopcast {
namespace {

constexpr std::int64_t uncapped_running = 100000;

bool narrower(precision served, precision checkpoint) { return bits_per_weight(served) < bits_per_weight(checkpoint); }

// A word the shell passes as it stands, else single-quoted.
std::string quoted(const std::string& w) {
  const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-_./:=,+@%").find(c) != std::string_view::npos;
  });
  if (plain) return w;
  std::string out = "'";
  for (const char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// (setting, value) in the order the command lists them; "on"/"off" for switches.
using wants = std::vector<std::pair<std::string, std::string>>;

wants vllm(const launch_settings& s) {
  wants w;
  const bool ep = s.ep > 1;
  // vLLM's EP size is TP x DP: DP attention over the ranks (--data-parallel-size), else TP over them.
  w.emplace_back("tensor_parallel", std::to_string(s.attention_dp > 1 ? s.tp : s.tp * s.ep));
  if (s.attention_dp > 1) w.emplace_back("attention_data_parallel", std::to_string(s.attention_dp));
  if (ep) w.emplace_back("expert_parallel", "on");
  if (s.weight == precision::fp8 && narrower(s.weight, s.checkpoint)) w.emplace_back("quantization", "fp8");
  if (s.kv == precision::fp8) w.emplace_back("kv_cache_dtype", "fp8");
  w.emplace_back("max_num_seqs", std::to_string(s.max_num_seqs));
  w.emplace_back("max_num_batched_tokens", std::to_string(s.max_num_batched_tokens));
  w.emplace_back("chunked_prefill", s.chunked_prefill ? "on" : "off");
  if (s.speculative_tokens > 0)
    w.emplace_back("speculative_decoding",
                   "{\"method\":\"mtp\",\"num_speculative_tokens\":" + std::to_string(s.speculative_tokens) + "}");
  // Both pools take kv_both (the EP deployment guide's example); the router splits the requests.
  if (!s.role.empty()) w.emplace_back("disaggregated_role", R"({"kv_connector":"NixlConnector","kv_role":"kv_both"})");
  return w;
}

wants sglang(const launch_settings& s) {
  wants w;
  // SGLang's --tp-size is the world size; --ep-size and --dp-size split it.
  w.emplace_back("tensor_parallel", std::to_string(s.tp * s.ep));
  if (s.ep > 1) w.emplace_back("expert_parallel", std::to_string(s.ep));
  if (s.attention_dp > 1) {
    w.emplace_back("attention_data_parallel", "on");
    w.emplace_back("data_parallel", std::to_string(s.attention_dp));
  }
  if (narrower(s.weight, s.checkpoint)) {
    if (s.weight == precision::fp8) w.emplace_back("quantization", "fp8");
    if (s.weight == precision::nvfp4) w.emplace_back("quantization", "modelopt_fp4");
  }
  if (s.kv == precision::fp8) w.emplace_back("kv_cache_dtype", "fp8_e4m3");
  w.emplace_back("max_num_seqs", std::to_string(s.max_num_seqs));
  w.emplace_back("max_num_batched_tokens", s.chunked_prefill ? std::to_string(s.max_num_batched_tokens) : "-1");
  if (s.speculative_tokens > 0) {
    w.emplace_back("speculative_decoding", "EAGLE");
    w.emplace_back("speculative_num_steps", std::to_string(s.speculative_tokens));
    w.emplace_back("speculative_eagle_topk", "1");
    w.emplace_back("speculative_num_draft_tokens", std::to_string(s.speculative_tokens + 1));
  }
  if (!s.role.empty()) w.emplace_back("disaggregated_role", s.role);
  return w;
}

wants tensorrt_llm(const launch_settings& s) {
  wants w;
  w.emplace_back("backend", "pytorch");
  w.emplace_back("tensor_parallel", std::to_string(s.tp * s.ep));  // the world size, as SGLang's
  if (s.ep > 1) w.emplace_back("expert_parallel", std::to_string(s.ep));
  if (s.attention_dp > 1) w.emplace_back("attention_data_parallel", "true");
  w.emplace_back("max_num_seqs", std::to_string(s.max_num_seqs));
  w.emplace_back("max_num_batched_tokens", std::to_string(s.max_num_batched_tokens));
  if (s.chunked_prefill) w.emplace_back("chunked_prefill", "on");
  if (s.kv == precision::fp8) w.emplace_back("kv_cache_dtype", "fp8");
  if (s.speculative_tokens > 0) {
    w.emplace_back("speculative_decoding", "MTP");
    w.emplace_back("speculative_num_tokens_mtp", std::to_string(s.speculative_tokens));
  }
  // ServerRole CONTEXT (prefill) and GENERATION (decode), parsed upper-cased.
  if (!s.role.empty()) w.emplace_back("disaggregated_role", s.role == "prefill" ? "context" : "generation");
  return w;
}

wants llama_cpp(const launch_settings& s) {
  wants w;
  w.emplace_back("n_gpu_layers", "999");  // every layer on the GPU
  w.emplace_back("max_num_seqs", std::to_string(s.max_num_seqs));
  w.emplace_back("max_num_batched_tokens", std::to_string(s.max_num_batched_tokens));
  if (s.kv == parse_precision("q8_0")) {
    w.emplace_back("kv_cache_dtype", "q8_0");
    w.emplace_back("kv_cache_dtype_v", "q8_0");
  }
  return w;
}

wants mlx(const launch_settings& s) {
  return {{"max_num_seqs", std::to_string(s.max_num_seqs)},
          {"max_num_batched_tokens", std::to_string(s.max_num_batched_tokens)}};
}

}  // namespace

const launch_flag* engine_launch::flag(std::string_view setting) const noexcept {
  for (const launch_flag& f : flags)
    if (f.setting == setting) return &f;
  return nullptr;
}

const launch_yaml_option* engine_launch::yaml_option(std::string_view setting) const noexcept {
  for (const launch_yaml_option& y : yaml)
    if (y.setting == setting) return &y;
  return nullptr;
}

launch_command launch_for(const engine_profile& e, const launch_settings& s) {
  const engine_launch& l = e.launch;
  if (l.program.empty())
    throw error(error_code::invalid_argument, "/engine", "engine " + e.id + "'s profile has no launch command");
  launch_command out;
  out.version = l.version;
  // The program's words, then the model.
  for (std::size_t at = 0; at < l.program.size();) {
    const std::size_t space = l.program.find(' ', at);
    out.args.push_back(l.program.substr(at, space == std::string::npos ? std::string::npos : space - at));
    at = space == std::string::npos ? l.program.size() : space + 1;
  }
  if (!l.model_flag.empty()) out.args.push_back(l.model_flag);
  out.args.push_back(s.model);
  wants w = e.id == "vllm"           ? vllm(s)
            : e.id == "sglang"       ? sglang(s)
            : e.id == "tensorrt-llm" ? tensorrt_llm(s)
            : e.id == "llama.cpp"    ? llama_cpp(s)
            : e.id == "mlx"          ? mlx(s)
                                     : wants{};
  std::vector<std::pair<std::string, std::string>> yaml;  // dotted key, value
  for (const auto& [setting, value] : w) {
    // An uncapped running set (SGLang's default) is the engine's own default: no flag.
    if (setting == "max_num_seqs" && s.max_num_seqs >= uncapped_running) continue;
    if (const launch_flag* f = l.flag(setting)) {
      if (f->value == "bool_switch") {
        if (value != "off") out.args.push_back(f->flag);
      } else if (f->value == "bool_negatable") {
        out.args.push_back(value == "off" ? f->off_flag : f->flag);
      } else {
        out.args.push_back(f->flag);
        out.args.push_back(value);
      }
    } else if (const launch_yaml_option* y = l.yaml_option(setting)) {
      yaml.emplace_back(y->key, value);
    } else {
      std::string why = "no flag in the engine's launch profile";
      for (const auto& [name, reason] : l.not_expressible)
        if (name == setting) why = reason;
      out.left_out.push_back(setting + " = " + value + ": " + why);
    }
  }
  // The served format where the engine reads it from the checkpoint only.
  if (narrower(s.weight, s.checkpoint) &&
      std::none_of(w.begin(), w.end(), [](const auto& p) { return p.first == "quantization"; }))
    out.left_out.push_back(std::string("weights in ") + std::string(to_string(s.weight)) + ": " + e.name +
                           " reads the format from the checkpoint (serve a checkpoint quantised to it)");
  if (!s.role.empty())
    out.left_out.push_back(
        "disaggregated deployment: start each prefill and decode worker with its role and put the "
        "engine's router in front (not a flag of one server)");
  // The YAML file: a dotted key nests under its section ("kv_cache_config:\n  dtype: fp8").
  std::vector<std::string> sections;
  for (const auto& [key, value] : yaml) {
    const std::size_t dot = key.find('.');
    if (dot == std::string::npos) {
      out.yaml.push_back(key + ": " + value);
      continue;
    }
    const std::string section = key.substr(0, dot);
    if (std::find(sections.begin(), sections.end(), section) != sections.end()) continue;
    sections.push_back(section);
    out.yaml.push_back(section + ":");
    for (const auto& [k2, v2] : yaml)
      if (k2.size() > dot && k2.compare(0, dot + 1, section + ".") == 0)
        out.yaml.push_back("  " + k2.substr(dot + 1) + ": " + v2);
  }
  if (!out.yaml.empty()) {
    if (const launch_flag* f = l.flag("extra_llm_api_options")) {
      out.yaml_file = "extra_llm_api_options.yaml";
      out.args.push_back(f->flag);
      out.args.push_back(out.yaml_file);
    }
  }
  for (const std::string& a : out.args) out.text += (out.text.empty() ? "" : " ") + quoted(a);
  return out;
}

}  // namespace flopcast
