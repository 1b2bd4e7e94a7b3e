// The GGUF header reader (v2 and v3, little-endian), the GGML block layouts, and the mapping of
// GGUF's own keys to a Hugging Face-style config.
//
// Layout (ggml/docs/gguf.md): "GGUF" u32 version, u64 tensor_count, u64 metadata_kv_count;
// metadata_kv_count x {string key, u32 value_type, value}; tensor_count x {string name,
// u32 n_dims, u64 ne[n_dims], u32 ggml_type, u64 offset}; padding to general.alignment (32 by
// default); the tensor data. A string is u64 length + bytes; an array is u32 element type +
// u64 count + elements. Only the header is read: every read is checked against the buffer and
// the bounds of checkpoint.hpp, so a truncated or hostile header is an error, never a read past
// the end.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unordered_map>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "checkpoint/checkpoint_parts.hpp"
#include "flopcast/checkpoint/checkpoint.hpp"
#include "flopcast/model/config.hpp"
#include "model/hf_reader.hpp"

namespace flopcast {

const std::vector<std::string>& supported_gguf_architectures() {
  static const std::vector<std::string> k = {"llama",    "mistral", "qwen2",  "qwen3", "qwen2moe",
                                             "qwen3moe", "gemma2",  "gemma3", "phi3",  "deepseek2"};
  return k;
}

namespace {

// A read past the end of the buffer: the byte count the header needs so far.
struct truncated {
  std::uint64_t needed;
};

enum vtype : std::uint32_t {
  t_u8 = 0,
  t_i8,
  t_u16,
  t_i16,
  t_u32,
  t_i32,
  t_f32,
  t_bool,
  t_string,
  t_array,
  t_u64,
  t_i64,
  t_f64,
};
const char* const vtype_names[] = {"u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
                                   "bool", "string", "array", "u64", "i64", "f64"};
std::uint64_t vtype_size(std::uint32_t t) {
  switch (t) {
    case t_u8:
    case t_i8:
    case t_bool:
      return 1;
    case t_u16:
    case t_i16:
      return 2;
    case t_u32:
    case t_i32:
    case t_f32:
      return 4;
    default:
      return 8;
  }
}

class cursor {
 public:
  explicit cursor(std::string_view b) : b_(b) {}
  [[nodiscard]] std::uint64_t pos() const { return pos_; }
  [[nodiscard]] std::uint64_t left() const { return b_.size() - pos_; }
  std::string where;  // the field being read, for errors

  void need(std::uint64_t n) {
    if (n > max_gguf_header || std::uint64_t{pos_} + n > max_gguf_header)
      throw error(error_code::limit, where,
                  "the GGUF header would exceed " + std::to_string(max_gguf_header) + " bytes (64 MiB)");
    if (n > b_.size() - pos_) throw truncated{std::uint64_t{pos_} + n};
  }
  std::uint64_t uint(std::size_t width) {
    need(width);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < width; ++i) v |= std::uint64_t{static_cast<unsigned char>(b_[pos_ + i])} << (8 * i);
    pos_ += width;
    return v;
  }
  std::uint32_t u32() { return static_cast<std::uint32_t>(uint(4)); }
  std::uint64_t u64() { return uint(8); }
  void skip(std::uint64_t n) {
    need(n);
    pos_ += static_cast<std::size_t>(n);
  }
  std::string string() {
    const std::uint64_t n = u64();
    if (n > max_gguf_string)
      throw error(error_code::limit, where,
                  "a GGUF string of " + std::to_string(n) + " bytes: expected at most " +
                      std::to_string(max_gguf_string) + " (1 MiB)");
    need(n);
    std::string s(b_.substr(pos_, static_cast<std::size_t>(n)));
    pos_ += static_cast<std::size_t>(n);
    return s;
  }

 private:
  std::string_view b_;
  std::size_t pos_ = 0;  // never past b_.size()
};

// Shortest text that reads back as the same float ("1e-05", not 9.999999747e-06).
std::string float_text(float f) {
  char buf[32];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  return buf;
}

void read_value(cursor& c, std::uint32_t type, checkpoint_metadata& m) {
  if (type > t_f64)
    throw error(error_code::config_range, c.where,
                "unknown GGUF value type " + std::to_string(type) + ": expected 0 to 12");
  m.type = vtype_names[type];
  switch (type) {
    case t_string:
      m.text = c.string();
      return;
    case t_array: {
      const std::uint32_t et = c.u32();
      if (et > t_f64)
        throw error(error_code::config_range, c.where,
                    "unknown GGUF array element type " + std::to_string(et) + ": expected 0 to 12");
      if (et == t_array) throw error(error_code::config_range, c.where, "nested GGUF arrays are not supported");
      const std::uint64_t n = c.u64();
      if (n > max_gguf_array)
        throw error(error_code::limit, c.where,
                    "a GGUF array of " + std::to_string(n) + " elements: expected at most " +
                        std::to_string(max_gguf_array) + " (2^24)");
      m.type = std::string("array<") + vtype_names[et] + ">";
      m.array_length = n;
      if (et == t_string)
        for (std::uint64_t i = 0; i < n; ++i) (void)c.string();
      else
        c.skip(n * vtype_size(et));
      m.text = "[" + std::to_string(n) + " x " + vtype_names[et] + "]";
      return;
    }
    case t_f32: {
      const std::uint32_t bits = c.u32();
      float f = 0;
      std::memcpy(&f, &bits, sizeof f);
      m.text = float_text(f);
      return;
    }
    case t_f64: {
      const std::uint64_t bits = c.u64();
      double f = 0;
      std::memcpy(&f, &bits, sizeof f);
      m.text = detail::format_number(f);
      return;
    }
    case t_bool: {
      const std::uint64_t v = c.uint(1);
      if (v > 1)
        throw error(error_code::config_range, c.where, "expected a GGUF bool (0 or 1), but got " + std::to_string(v));
      m.text = v ? "true" : "false";
      return;
    }
    default: {
      const std::size_t width = static_cast<std::size_t>(vtype_size(type));
      const std::uint64_t raw = c.uint(width);
      const bool is_signed = type == t_i8 || type == t_i16 || type == t_i32 || type == t_i64;
      if (is_signed) {
        const unsigned shift = static_cast<unsigned>(64 - 8 * width);
        const std::int64_t v = static_cast<std::int64_t>(raw << shift) >> shift;
        m.is_integer = true;
        m.integer = v;
        m.text = std::to_string(v);
      } else {
        m.text = std::to_string(raw);
        if (raw <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          m.is_integer = true;
          m.integer = static_cast<std::int64_t>(raw);
        }
      }
      return;
    }
  }
}

// The whole header; out may be null (only the size is wanted).
void parse(cursor& c, checkpoint_info& out) {
  c.where = "/magic";
  c.need(4);
  if (c.u32() != 0x46554747u)  // "GGUF" little-endian
    throw error(error_code::config_parse, "/magic", "not a GGUF file: expected the magic \"GGUF\"");
  c.where = "/version";
  const std::uint32_t version = c.u32();
  if (version == 1)
    throw error(error_code::config_range, "/version", "GGUF version 1 is not supported: expected version 2 or 3");
  if (version == 0x02000000u || version == 0x03000000u)
    throw error(error_code::config_range, "/version", "big-endian GGUF files are not supported");
  if (version != 2 && version != 3)
    throw error(error_code::config_range, "/version",
                "unknown GGUF version " + std::to_string(version) + ": expected 2 or 3");
  out.gguf_version = version;
  c.where = "/tensor_count";
  const std::uint64_t n_tensors = c.u64();
  if (n_tensors > max_gguf_tensors)
    throw error(
        error_code::limit, "/tensor_count",
        std::to_string(n_tensors) + " tensors: expected at most " + std::to_string(max_gguf_tensors) + " (2^16)");
  c.where = "/metadata_kv_count";
  const std::uint64_t n_kv = c.u64();
  if (n_kv > max_gguf_metadata)
    throw error(
        error_code::limit, "/metadata_kv_count",
        std::to_string(n_kv) + " metadata entries: expected at most " + std::to_string(max_gguf_metadata) + " (2^20)");

  std::set<std::string> keys;
  out.alignment = 32;
  for (std::uint64_t i = 0; i < n_kv; ++i) {
    c.where = "/metadata/" + std::to_string(i);
    checkpoint_metadata m;
    m.key = c.string();
    c.where = "/metadata/" + detail::pointer_segment(m.key);
    if (!keys.insert(m.key).second)
      throw error(error_code::config_parse, c.where, "duplicate GGUF metadata key \"" + m.key.substr(0, 80) + "\"");
    const std::uint32_t type = c.u32();
    read_value(c, type, m);
    if (m.key == "general.alignment") {
      if (!m.is_integer || m.integer <= 0 || m.integer > (std::int64_t{1} << 20) || (m.integer & (m.integer - 1)) != 0)
        throw error(error_code::config_range, c.where, "expected a power of two up to 2^20, but got " + m.text);
      out.alignment = m.integer;
    }
    if (m.key == "general.architecture") {
      if (type != t_string)
        throw error(error_code::config_type, c.where, std::string("expected a string, but got ") + m.type);
      out.architecture = m.text;
    }
    out.metadata.push_back(std::move(m));
  }

  std::set<std::string> names;
  // Room for the tensors the bytes left can hold (a name's length, n_dims, type and offset take
  // 24 bytes at least), not for what tensor_count claims.
  out.tensors.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n_tensors, c.left() / 24)));
  for (std::uint64_t i = 0; i < n_tensors; ++i) {
    c.where = "/tensors/" + std::to_string(i);
    checkpoint_tensor t;
    t.name = c.string();
    const std::string base = "/tensors/" + detail::pointer_segment(t.name);
    c.where = base;
    if (!names.insert(t.name).second)
      throw error(error_code::config_parse, base, "duplicate GGUF tensor name \"" + t.name.substr(0, 80) + "\"");
    t.component = classify_tensor(t.name);
    c.where = base + "/n_dims";
    const std::uint32_t n_dims = c.u32();
    if (n_dims > 4)
      throw error(error_code::config_range, c.where,
                  "expected at most 4 dimensions, but got " + std::to_string(n_dims));
    c.where = base + "/shape";
    t.elements = 1;
    for (std::uint32_t d = 0; d < n_dims; ++d) {
      const std::uint64_t ne = c.u64();
      if (ne > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        throw error(error_code::limit, c.where, "dimension " + std::to_string(d) + " exceeds 2^63");
      t.shape.push_back(static_cast<std::int64_t>(ne));
      try {
        t.elements = detail::mul(t.elements, static_cast<std::int64_t>(ne));
      } catch (const error&) {
        throw error(error_code::limit, c.where, "the element count exceeds 2^63");
      }
    }
    c.where = base + "/type";
    const std::uint32_t type = c.u32();
    const ggml_type_info* g = find_ggml_type(type);
    if (g == nullptr) {
      std::string list;
      for (const ggml_type_info& x : ggml_types()) list += (list.empty() ? "" : ", ") + std::string(x.name);
      throw error(error_code::unsupported_model, c.where,
                  "unknown GGML type " + std::to_string(type) + ": supported are " + list);
    }
    t.dtype = std::string(g->name);
    const std::int64_t ne0 = t.shape.empty() ? 1 : t.shape[0];
    if (ne0 % g->block_elements != 0)
      throw error(error_code::config_range, base + "/shape",
                  "the first dimension (" + std::to_string(ne0) + ") is not a multiple of " + t.dtype + "'s block of " +
                      std::to_string(g->block_elements) + " weights");
    try {
      t.bytes = ne0 == 0 ? 0 : detail::mul(t.elements / ne0, detail::mul(ne0 / g->block_elements, g->block_bytes));
    } catch (const error&) {
      throw error(error_code::limit, base + "/shape", "the tensor's size exceeds 2^63 bytes");
    }
    c.where = base + "/offset";
    const std::uint64_t off = c.u64();
    if (off > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        off % static_cast<std::uint64_t>(out.alignment) != 0)
      throw error(error_code::config_range, c.where,
                  "expected a multiple of the alignment (" + std::to_string(out.alignment) + "), but got " +
                      std::to_string(off));
    t.offset = static_cast<std::int64_t>(off);
    out.tensors.push_back(std::move(t));
  }
  out.header_bytes = static_cast<std::int64_t>(c.pos());
  const std::int64_t a = out.alignment;
  out.data_start = (out.header_bytes + a - 1) / a * a;
}

std::string truncated_message(const cursor& c, std::uint64_t needed, std::size_t have) {
  return "truncated GGUF header: reading " + (c.where.empty() ? std::string("it") : c.where) + " needs " +
         std::to_string(needed) + " bytes, but only " + std::to_string(have) + " are there";
}

}  // namespace

namespace detail {

std::size_t gguf_header_bytes(std::string_view prefix) {
  cursor c(prefix);
  checkpoint_info scratch;
  try {
    parse(c, scratch);
  } catch (const truncated& t) {
    return static_cast<std::size_t>(t.needed);
  }
  return static_cast<std::size_t>(c.pos());
}

}  // namespace detail

checkpoint_info read_gguf(std::string_view bytes, std::int64_t file_size) {
  cursor c(bytes);
  checkpoint_info out;
  out.format = checkpoint_format::gguf;
  try {
    parse(c, out);
  } catch (const truncated& t) {
    throw error(error_code::config_parse, c.where, truncated_message(c, t.needed, bytes.size()));
  }
  detail::finish_checkpoint(out);
  // Tensors never overlap; with the file's size, they end inside it.
  std::int64_t end = 0;
  const checkpoint_tensor* last = nullptr;
  for (const checkpoint_tensor& t : out.tensors) {
    if (last != nullptr && t.offset < end)
      throw error(error_code::config_range, "/tensors/" + detail::pointer_segment(t.name) + "/offset",
                  "the tensor begins at " + std::to_string(t.offset) + ", inside " + last->name + " (which ends at " +
                      std::to_string(end) + ")");
    end = detail::add(t.offset, t.bytes);
    last = &t;
  }
  if (file_size >= 0 && detail::add(out.data_start, end) > file_size)
    throw error(error_code::config_range, "/tensors",
                "the tensor data ends at byte " + std::to_string(out.data_start + end) +
                    ", past the end of the file (" + std::to_string(file_size) + " bytes)");
  return out;
}

namespace {

using detail::json;

// The tensors by name, indexed once per header (a lookup per layer would otherwise scan them all).
class tensor_index {
 public:
  explicit tensor_index(const checkpoint_info& g) {
    by_name_.reserve(g.tensors.size());
    for (const checkpoint_tensor& t : g.tensors) by_name_.emplace(t.name, &t);
  }
  [[nodiscard]] const checkpoint_tensor* find(std::string_view name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
  }
  [[nodiscard]] bool empty() const { return by_name_.empty(); }

 private:
  std::unordered_map<std::string_view, const checkpoint_tensor*> by_name_;  // views of g's names
};

// HF config field -> the GGUF key it came from (for errors from the config reader).
using key_map = std::vector<std::pair<std::string, std::string>>;

}  // namespace

namespace {

// The layers whose tensors hold no router (blk.<i>.ffn_gate_inp.weight): the dense layers of a
// Qwen MoE (its config's mlp_only_layers; GGUF has no key for them). Empty without tensors.
// `layers` is the block count, already checked to be at most 2^16.
std::vector<std::int64_t> layers_without_router(const tensor_index& tensors, std::int64_t layers) {
  std::vector<std::int64_t> out;
  if (tensors.empty()) return out;
  for (std::int64_t i = 0; i < layers; ++i)
    if (tensors.find("blk." + std::to_string(i) + ".ffn_gate_inp.weight") == nullptr) out.push_back(i);
  return out;
}

bool any_tensor_ending(const checkpoint_info& g, std::string_view tail) {
  for (const checkpoint_tensor& t : g.tensors)
    if (t.name.size() >= tail.size() && t.name.compare(t.name.size() - tail.size(), tail.size(), tail) == 0)
      return true;
  return false;
}

// The config.json a GGUF header implies. Key names are llama.cpp's (src/llama-arch.cpp LLM_KV_*,
// written by convert_hf_to_gguf.py): "<arch>.embedding_length", "<arch>.attention.head_count", ...
json build_config(const checkpoint_info& g, key_map& from) {
  if (g.format != checkpoint_format::gguf) throw error(error_code::invalid_argument, "", "expected a GGUF checkpoint");
  const std::vector<std::string>& archs = supported_gguf_architectures();
  const std::string& arch = g.architecture;
  if (arch.empty())
    throw error(error_code::config_missing, "/metadata/general.architecture",
                "required GGUF key is missing: the file does not name its architecture");
  if (std::find(archs.begin(), archs.end(), arch) == archs.end()) {
    std::string list;
    for (const auto& a : archs) list += (list.empty() ? "" : ", ") + a;
    throw error(error_code::unsupported_model, "/metadata/general.architecture",
                "GGUF architecture \"" + arch.substr(0, 80) + "\" is not supported: supported are " + list);
  }
  const auto ptr = [](const std::string& key) { return "/metadata/" + detail::pointer_segment(key); };
  const auto integer = [&](const std::string& suffix) -> std::optional<std::int64_t> {
    const std::string key = arch + "." + suffix;
    const checkpoint_metadata* m = g.find(key);
    if (m == nullptr) return std::nullopt;
    if (!m->is_integer)
      throw error(error_code::config_type, ptr(key),
                  "expected an integer, but got " + m->type + " " + m->text.substr(0, 40));
    return m->integer;
  };
  // A count or size that a loop or arithmetic below uses: checked against the config reader's
  // bounds first, with its message, so a hostile header is refused before any work.
  const auto bounded = [&](const std::string& suffix, std::int64_t v, std::int64_t min, std::int64_t max,
                           const char* expected) {
    if (v < min || v > max)
      throw error(error_code::config_range, ptr(arch + "." + suffix),
                  std::string("expected ") + expected + ", but got " + std::to_string(v));
    return v;
  };
  const tensor_index tensors(g);
  json cfg = json::object();
  const auto set = [&](const char* field, const std::string& suffix, bool required) {
    const auto v = integer(suffix);
    if (!v) {
      if (required) throw error(error_code::config_missing, ptr(arch + "." + suffix), "required GGUF key is missing");
      return std::optional<std::int64_t>{};
    }
    cfg[field] = *v;
    from.emplace_back(std::string("/") + field, ptr(arch + "." + suffix));
    return v;
  };
  // A field derived from a key (minus another value): errors point at that key.
  const auto derived = [&](const char* field, const std::string& suffix, std::int64_t value) {
    cfg[field] = value;
    from.emplace_back(std::string("/") + field, ptr(arch + "." + suffix));
  };
  const auto experts = integer("expert_count").value_or(0);
  const bool deepseek = arch == "deepseek2";
  const bool gemma = arch == "gemma2" || arch == "gemma3";
  const bool qwen_moe = arch == "qwen2moe" || arch == "qwen3moe";
  std::string type = arch;
  if ((arch == "llama" || arch == "mistral") && experts > 0) type = "mixtral";
  if (arch == "gemma3") type = "gemma3_text";
  if (arch == "qwen2moe") type = "qwen2_moe";
  if (arch == "qwen3moe") type = "qwen3_moe";
  // DeepSeek-V3 (and R1, Kimi K2) convert to deepseek2 too: a sigmoid router with a bias
  // (blk.<i>.exp_probs_b.bias, LLAMA_EXPERT_GATING_FUNC_TYPE_SIGMOID = 2).
  if (deepseek)
    type = any_tensor_ending(g, ".exp_probs_b.bias") || integer("expert_gating_func").value_or(0) == 2 ? "deepseek_v3"
                                                                                                       : "deepseek_v2";
  cfg["model_type"] = type;
  set("hidden_size", "embedding_length", true);
  const std::int64_t layers = bounded("block_count", *set("num_hidden_layers", "block_count", true), 1,
                                      detail::reader::k_max_layers, "a positive integer (at most 2^16)");
  const auto heads = set("num_attention_heads", "attention.head_count", true);
  set("max_position_embeddings", "context_length", false);
  std::optional<std::int64_t> key_length;
  if (deepseek) {
    // MLA. Newer conversions store it as MQA over the latent (key_length = kv_lora_rank +
    // rope dims) and the per-head sizes in key_length_mla / value_length_mla; older ones store
    // the per-head sizes in key_length / value_length.
    const std::int64_t rope = bounded("rope.dimension_count", *set("qk_rope_head_dim", "rope.dimension_count", true), 1,
                                      detail::reader::k_max_dim, "a positive integer (at most 2^30)");
    set("kv_lora_rank", "attention.kv_lora_rank", true);
    set("q_lora_rank", "attention.q_lora_rank", false);
    const bool mla_keys = integer("attention.key_length_mla").has_value();
    const std::string k_key = mla_keys ? "attention.key_length_mla" : "attention.key_length";
    const std::string v_key = mla_keys ? "attention.value_length_mla" : "attention.value_length";
    const auto k = integer(k_key);
    if (!k) throw error(error_code::config_missing, ptr(arch + "." + k_key), "required GGUF key is missing");
    // Both at most 2^30: the difference cannot overflow (the config reader checks its sign).
    derived("qk_nope_head_dim", k_key,
            bounded(k_key, *k, 0, detail::reader::k_max_dim, "a non-negative integer (at most 2^30)") - rope);
    set("v_head_dim", v_key, true);
    set("n_routed_experts", "expert_count", false);
    if (experts > 0) {
      set("num_experts_per_tok", "expert_used_count", true);
      set("moe_intermediate_size", "expert_feed_forward_length", true);
      set("n_shared_experts", "expert_shared_count", false);
      set("first_k_dense_replace", "leading_dense_block_count", false);
      cfg["moe_layer_freq"] = 1;
    }
    set("intermediate_size", "feed_forward_length", experts == 0);
  } else {
    set("num_key_value_heads", "attention.head_count_kv", false);
    key_length = set("head_dim", "attention.key_length", false);
    if (type == "mixtral") {
      set("num_local_experts", "expert_count", true);
      set("num_experts_per_tok", "expert_used_count", true);
      if (!set("intermediate_size", "expert_feed_forward_length", false))
        set("intermediate_size", "feed_forward_length", true);
    } else if (qwen_moe) {
      set("num_experts", "expert_count", true);
      set("num_experts_per_tok", "expert_used_count", true);
      set("moe_intermediate_size", "expert_feed_forward_length", true);
      if (arch == "qwen2moe")
        if (!set("shared_expert_intermediate_size", "expert_shared_feed_forward_length", false))
          cfg["shared_expert_intermediate_size"] = 0;
      cfg["decoder_sparse_step"] = 1;
      const std::vector<std::int64_t> dense = layers_without_router(tensors, layers);
      cfg["mlp_only_layers"] = dense;
      set("intermediate_size", "feed_forward_length", !dense.empty());
    } else {
      set("intermediate_size", "feed_forward_length", true);
    }
  }
  if (arch == "mistral" || arch == "phi3" || gemma) set("sliding_window", "attention.sliding_window", false);
  if (arch == "gemma3") set("sliding_window_pattern", "attention.sliding_window_pattern", false);
  // Partial rotary: fewer rotated dims than the head size.
  const std::int64_t hidden = cfg["hidden_size"].get<std::int64_t>();
  if (!deepseek) {
    const auto rope = integer("rope.dimension_count");
    const std::int64_t head_dim = key_length ? *key_length : (*heads > 0 ? hidden / *heads : 0);
    if (rope && head_dim > 0 && *rope > 0 && *rope < head_dim)
      cfg["partial_rotary_factor"] = static_cast<double>(*rope) / static_cast<double>(head_dim);
  }
  // Vocabulary: the key, else the embedding's rows (what the file stores), else the tokenizer's list.
  if (!set("vocab_size", "vocab_size", false)) {
    const checkpoint_metadata* tokens = g.find("tokenizer.ggml.tokens");
    const checkpoint_tensor* embd = tensors.find("token_embd.weight");
    if (embd != nullptr && embd->shape.size() == 2) {
      cfg["vocab_size"] = embd->shape[1];
      from.emplace_back("/vocab_size", "/tensors/token_embd.weight/shape");
    } else if (tokens != nullptr && tokens->array_length > 0) {
      cfg["vocab_size"] = tokens->array_length;
      from.emplace_back("/vocab_size", "/metadata/tokenizer.ggml.tokens");
    } else {
      throw error(error_code::config_missing, ptr(arch + ".vocab_size"),
                  "required GGUF key is missing (and no tokenizer.ggml.tokens or token_embd.weight to count)");
    }
  }
  cfg["tie_word_embeddings"] = tensors.find("output.weight") == nullptr;
  if (arch == "llama" || arch == "qwen3" || arch == "qwen3moe" || gemma || deepseek)
    cfg["attention_bias"] = tensors.find("blk.0.attn_q.bias") != nullptr;
  if (gemma)
    cfg["hidden_activation"] = "gelu_pytorch_tanh";  // Gemma 2 and 3 (llama.cpp: LLM_FFN_GELU)
  else
    cfg["hidden_act"] = "silu";
  const checkpoint_metadata* name = g.find("general.name");
  if (name != nullptr && name->type == "string" && !name->text.empty()) cfg["_name_or_path"] = name->text;
  return cfg;
}

}  // namespace

std::string gguf_config_json(const checkpoint_info& g) {
  key_map from;
  return build_config(g, from).dump();
}

model_spec gguf_model_spec(const checkpoint_info& g) {
  key_map from;
  const json cfg = build_config(g, from);
  try {
    return detail::read_hf_config(cfg);
  } catch (const error& e) {
    for (const auto& [field, key] : from)
      if (e.pointer() == field) throw error(e.code(), key, e.message());
    throw error(e.code(), "/config" + e.pointer(), e.message() + " (in the config built from the GGUF keys)");
  }
}

}  // namespace flopcast
