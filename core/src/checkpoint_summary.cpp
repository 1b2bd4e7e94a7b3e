// A checkpoint header as one JSON summary (the page reads a dropped file's header through the
// WebAssembly module), the name of its quantization mix, and the exact weight bytes an estimate
// takes from it (the request field weight_bytes).
#include <nlohmann/json.hpp>

#include "detail.hpp"
#include "flopcast/checkpoint.hpp"
#include "flopcast/config.hpp"
#include "flopcast/format.hpp"
#include "json_reader.hpp"
#include "json_writer.hpp"

namespace flopcast {
namespace {

using json = nlohmann::ordered_json;

// GGUF general.file_type: enum llama_ftype of llama.cpp's include/llama.h (LLAMA_FTYPE_ALL_F32 = 0,
// LLAMA_FTYPE_MOSTLY_F16 = 1, ..., LLAMA_FTYPE_MOSTLY_Q4_K_M = 15, ..., LLAMA_FTYPE_MOSTLY_BF16 = 32,
// LLAMA_FTYPE_MOSTLY_TQ1_0 = 36, TQ2_0 = 37, MXFP4_MOE = 38); removed values (4-6, 33-35) are not named.
const char* file_type_name(std::int64_t v) {
  static const char* const names[] = {"F32",    "F16",    "Q4_0",  "Q4_1",    nullptr,  nullptr,  nullptr,    "Q8_0",
                                      "Q5_0",   "Q5_1",   "Q2_K",  "Q3_K_S",  "Q3_K_M", "Q3_K_L", "Q4_K_S",   "Q4_K_M",
                                      "Q5_K_S", "Q5_K_M", "Q6_K",  "IQ2_XXS", "IQ2_XS", "Q2_K_S", "IQ3_XS",   "IQ3_XXS",
                                      "IQ1_S",  "IQ4_NL", "IQ3_S", "IQ3_M",   "IQ2_S",  "IQ2_M",  "IQ4_XS",   "IQ1_M",
                                      "BF16",   nullptr,  nullptr, nullptr,   "TQ1_0",  "TQ2_0",  "MXFP4_MOE"};
  if (v < 0 || v >= static_cast<std::int64_t>(sizeof names / sizeof names[0])) return nullptr;
  return names[v];
}

std::string bits_text(double bits) { return display::format_number(bits); }

json total_json(const checkpoint_total& t) {
  return {
      {"name", t.name},
      {"tensors", t.tensors},
      {"elements", t.elements},
      {"bytes", t.bytes},
      {"bits_per_weight", t.elements > 0 ? 8.0 * static_cast<double>(t.bytes) / static_cast<double>(t.elements) : 0.0}};
}

}  // namespace

std::string checkpoint_mix(const checkpoint_info& c) {
  if (c.format == checkpoint_format::gguf) {
    const checkpoint_metadata* m = c.find("general.file_type");
    if (m != nullptr && m->is_integer)
      if (const char* n = file_type_name(m->integer)) return n;
  }
  std::string out;
  std::size_t shown = 0;
  for (const checkpoint_total& t : c.by_dtype) {
    if (t.name == "?") continue;
    if (shown == 3) return out + " + ...";
    out += (shown++ ? " + " : "") + t.name;
  }
  return out;
}

std::optional<std::int64_t> checkpoint_weight_bytes(const checkpoint_info& c) {
  for (const checkpoint_tensor& t : c.tensors)
    if (t.dtype == "?")  // a shard of an index was not read
      return c.declared_total_size > 0 ? std::optional<std::int64_t>(c.declared_total_size) : std::nullopt;
  if (c.total_bytes <= 0) return std::nullopt;
  return c.total_bytes;
}

std::string checkpoint_weight_source(const checkpoint_info& c, const std::string& file) {
  const auto bytes = checkpoint_weight_bytes(c);
  std::string out = "exact bytes from " + file;
  if (bytes && *bytes != c.total_bytes) return out + " (the index's metadata.total_size: shards were not read)";
  const std::string mix = checkpoint_mix(c);
  return out + " (" + (mix.empty() ? std::string() : mix + " mix: ") + bits_text(c.bits_per_weight()) + " bits/weight)";
}

std::string inspect_checkpoint_json(std::string_view bytes, std::int64_t file_size, std::string_view config_json,
                                    int indent) {
  // One file's header (an index lists shards: read_checkpoint / combine_safetensors; not linked here).
  const auto format = detect_checkpoint_format(bytes);
  if (format == checkpoint_format::safetensors_index)
    throw error(error_code::config_parse, "",
                "a model.safetensors.index.json only lists shards: give one shard's .safetensors file");
  const checkpoint_info c =
      format == checkpoint_format::gguf ? read_gguf(bytes, file_size) : read_safetensors(bytes, file_size);
  json j;
  j["format"] = std::string(to_string(c.format));
  const bool gguf = c.format == checkpoint_format::gguf;
  j["gguf_version"] = gguf ? json(c.gguf_version) : json(nullptr);
  j["architecture"] = gguf ? json(c.architecture) : json(nullptr);
  const checkpoint_metadata* name = c.find("general.name");
  j["name"] = name != nullptr && name->type == "string" ? json(name->text) : json(nullptr);
  j["file_size"] = file_size >= 0 ? json(file_size) : json(nullptr);
  j["header_bytes"] = c.header_bytes;
  j["data_start"] = c.data_start;
  j["tensor_count"] = c.tensors.size();
  j["total_elements"] = c.total_elements;
  j["total_bytes"] = c.total_bytes;
  j["bits_per_weight"] = c.bits_per_weight();
  j["mix"] = checkpoint_mix(c);
  const auto weight_bytes = checkpoint_weight_bytes(c);
  j["weight_bytes"] = weight_bytes ? json(*weight_bytes) : json(nullptr);
  j["declared_total_size"] = c.declared_total_size >= 0 ? json(c.declared_total_size) : json(nullptr);
  j["by_dtype"] = json::array();
  for (const auto& t : c.by_dtype) j["by_dtype"].push_back(total_json(t));
  j["by_component"] = json::array();
  for (const auto& t : c.by_component) j["by_component"].push_back(total_json(t));
  j["notes"] = c.notes;

  // The architecture: GGUF's own keys, else the config the caller gives (safetensors holds none).
  json config = nullptr;
  std::string source, problem;
  std::optional<model_spec> spec;
  try {
    if (gguf) {
      spec = gguf_model_spec(c);
      config = json::parse(gguf_config_json(c));  // ordered: as the config reader sees it
      source = "gguf";
    } else if (!config_json.empty()) {
      spec = detail::read_hf_config(detail::parse_object(config_json, "config.json"));
      source = "config";
    } else {
      problem = "a safetensors checkpoint holds no architecture: give its config.json";
    }
  } catch (const error& e) {
    problem = e.what();
    spec.reset();
  }
  if (!spec) config = nullptr;  // only a GGUF's implied config is returned (the caller has its own)
  j["config"] = config;
  j["config_source"] = source.empty() || !spec ? json(nullptr) : json(source);
  if (spec) {
    const checkpoint_comparison cmp = compare_checkpoint(c, *spec);
    json k = {{"model_type", spec->model_type},
              {"checkpoint_elements", cmp.checkpoint_elements},
              {"architecture_parameters", cmp.architecture_parameters},
              {"matches", cmp.matches()},
              {"unaccounted", cmp.unaccounted}};
    k["components"] = json::array();
    for (const auto& r : cmp.rows)
      k["components"].push_back(
          {{"component", r.component}, {"checkpoint", r.checkpoint}, {"architecture", r.architecture}});
    j["architecture_check"] = std::move(k);
  } else {
    j["architecture_check"] = nullptr;
  }
  j["architecture_error"] = problem.empty() ? json(nullptr) : json(problem);
  return detail::dump_result(j, indent);
}

}  // namespace flopcast
