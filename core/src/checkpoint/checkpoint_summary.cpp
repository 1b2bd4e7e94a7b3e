// A checkpoint header as one JSON summary (the page reads a dropped file's header through the
// WebAssembly module), the name of its quantization mix, and the exact weight bytes an estimate
// takes from it (the request field weight_bytes).
#include "base/detail.hpp"
#include "base/json_out.hpp"
#include "base/json_reader.hpp"
#include "flopcast/base/format.hpp"
#include "flopcast/checkpoint/checkpoint.hpp"
#include "flopcast/model/config.hpp"
#include "model/hf_reader.hpp"

namespace flopcast {
namespace {

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

void write_total(detail::json_out& w, const checkpoint_total& t) {
  w.begin_object()
      .field("name", t.name)
      .field("tensors", t.tensors)
      .field("elements", t.elements)
      .field("bytes", t.bytes)
      .field("bits_per_weight",
             t.elements > 0 ? 8.0 * static_cast<double>(t.bytes) / static_cast<double>(t.elements) : 0.0)
      .end_object();
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
  detail::json_out w(indent);
  const bool gguf = c.format == checkpoint_format::gguf;
  const checkpoint_metadata* name = c.find("general.name");
  const auto weight_bytes = checkpoint_weight_bytes(c);
  w.begin_object()
      .field("format", to_string(c.format))
      .field_if("gguf_version", gguf, c.gguf_version)
      .field_if("architecture", gguf, c.architecture)
      .field_if("name", name != nullptr && name->type == "string", name != nullptr ? name->text : std::string())
      .field_if("file_size", file_size >= 0, file_size)
      .field("header_bytes", c.header_bytes)
      .field("data_start", c.data_start)
      .field("tensor_count", c.tensors.size())
      .field("total_elements", c.total_elements)
      .field("total_bytes", c.total_bytes)
      .field("bits_per_weight", c.bits_per_weight())
      .field("mix", checkpoint_mix(c))
      .field("weight_bytes", weight_bytes)
      .field_if("declared_total_size", c.declared_total_size >= 0, c.declared_total_size);
  w.array("by_dtype", [&] {
    for (const auto& t : c.by_dtype) write_total(w, t);
  });
  w.array("by_component", [&] {
    for (const auto& t : c.by_component) write_total(w, t);
  });
  w.strings("notes", c.notes);

  // The architecture: GGUF's own keys, else the config the caller gives (safetensors holds none).
  std::string config;  // a GGUF's implied config as JSON text (the caller has its own otherwise)
  std::string source, problem;
  std::optional<model_spec> spec;
  try {
    if (gguf) {
      spec = gguf_model_spec(c);
      config = gguf_config_json(c);  // ordered: as the config reader sees it
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
  w.key("config");
  if (spec && !config.empty())
    w.raw(config);
  else
    w.value(nullptr);
  w.text_or_null("config_source", spec ? std::string_view(source) : "");
  if (spec) {
    const checkpoint_comparison cmp = compare_checkpoint(c, *spec);
    w.object("architecture_check", [&] {
      w.field("model_type", spec->model_type)
          .field("checkpoint_elements", cmp.checkpoint_elements)
          .field("architecture_parameters", cmp.architecture_parameters)
          .field("matches", cmp.matches())
          .strings("unaccounted", cmp.unaccounted);
      w.array("components", [&] {
        for (const auto& r : cmp.rows)
          w.begin_object()
              .field("component", r.component)
              .field("checkpoint", r.checkpoint)
              .field("architecture", r.architecture)
              .end_object();
      });
    });
  } else {
    w.field("architecture_check", nullptr);
  }
  w.text_or_null("architecture_error", problem);
  w.end_object();
  return w.take();
}

}  // namespace flopcast
