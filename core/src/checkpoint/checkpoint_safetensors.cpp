// The safetensors header reader, the shard index, and what both formats share: tensor
// components from names, totals, and the comparison with the architecture count.
//
// Format (https://github.com/huggingface/safetensors): 8 bytes little-endian N, then N bytes of
// JSON {"name": {"dtype": "BF16", "shape": [..], "data_offsets": [begin, end]}, ...,
// "__metadata__": {"key": "value"}}, then the data. Offsets are relative to the data section;
// the tensors cover it exactly, without gaps or overlaps.
#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "checkpoint/checkpoint_parts.hpp"
#include "flopcast/checkpoint/checkpoint.hpp"

namespace flopcast {

std::string_view to_string(checkpoint_format f) noexcept {
  switch (f) {
    case checkpoint_format::safetensors:
      return "safetensors";
    case checkpoint_format::safetensors_index:
      return "safetensors index";
    case checkpoint_format::gguf:
      return "gguf";
  }
  return "safetensors";
}

std::string_view to_string(tensor_component c) noexcept {
  switch (c) {
    case tensor_component::embedding:
      return "embedding";
    case tensor_component::attention_q:
      return "attention_q";
    case tensor_component::attention_k:
      return "attention_k";
    case tensor_component::attention_v:
      return "attention_v";
    case tensor_component::attention_o:
      return "attention_o";
    case tensor_component::attention_other:
      return "attention_other";
    case tensor_component::mlp:
      return "mlp";
    case tensor_component::experts:
      return "experts";
    case tensor_component::norm:
      return "norm";
    case tensor_component::lm_head:
      return "lm_head";
    case tensor_component::other:
      return "other";
    case tensor_component::mixer:
      return "mixer";
    case tensor_component::vision:
      return "vision";
  }
  return "other";
}

namespace {

bool has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }
bool ends(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

tensor_component classify_tensor(std::string_view raw) noexcept {
  std::string lowered(raw);
  for (char& ch : lowered)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  const std::string_view n = lowered;
  // Buffers some exporters keep: no architecture has them as parameters.
  if (has(n, "rotary_emb") || has(n, "inv_freq") || has(n, "rope_freqs") || ends(n, "attn.bias") ||
      ends(n, "attn.masked_bias"))
    return tensor_component::other;
  if (has(n, "vision_tower") || has(n, "vision_model") || has(n, "visual.") || has(n, "multi_modal_projector") ||
      has(n, "mm_projector") || has(n, "vision_encoder") || has(n, "vision_embed") || has(n, "v.blk.") ||
      n.rfind("mm.", 0) == 0)
    return tensor_component::vision;
  // State-space and linear-attention mixers (their inner norms included): Mamba's and Nemotron-H's
  // mixer.*, Jamba's and Falcon-H1's mamba.*, Qwen3-Next's linear_attn.*, GGUF's ssm_*.
  const bool ssm_part = has(n, "in_proj") || has(n, "conv1d") || has(n, "x_proj") || has(n, "dt_proj") ||
                        has(n, "a_log") || ends(n, ".d") || has(n, "dt_bias") || has(n, "mixer.norm") ||
                        has(n, "mixer.out_proj") || has(n, "dt_layernorm") || has(n, "b_layernorm") ||
                        has(n, "c_layernorm");
  if (has(n, "linear_attn.") || has(n, ".mamba.") || has(n, "ssm_") || (has(n, "mixer.") && ssm_part))
    return tensor_component::mixer;
  if (has(n, "norm") || has(n, "ln_") || has(n, "layernorm")) return tensor_component::norm;
  if (has(n, "embed_tokens") || has(n, "wte.") || has(n, "wpe.") || has(n, "word_embeddings") || has(n, "token_embd") ||
      has(n, "tok_embeddings") || has(n, "embed_positions") || has(n, "position_embd") ||
      has(n, "position_embeddings") || has(n, "token_type_embeddings"))
    return tensor_component::embedding;
  if (has(n, "lm_head") || n == "output.weight" || n == "output.bias" || has(n, "embed_out"))
    return tensor_component::lm_head;
  if (has(n, "experts") || has(n, "_exps") || has(n, "_shexp") || has(n, "shared_expert") || has(n, "ffn_gate_inp") ||
      has(n, "block_sparse_moe.gate") || has(n, "mlp.gate.") || has(n, "e_score_correction_bias") ||
      has(n, "exp_probs_b"))
    return tensor_component::experts;
  if (has(n, "q_proj") || has(n, "attn_q.") || has(n, "attn_q_a") || has(n, "attn_q_b") || has(n, ".wq.") ||
      has(n, "self_attn.q_a") || has(n, "self_attn.q_b") || has(n, "attention.query."))
    return tensor_component::attention_q;
  if (has(n, "k_proj") || has(n, "attn_k.") || has(n, ".wk.") || has(n, "attention.key.")) {
    return tensor_component::attention_k;
  }
  if (has(n, "v_proj") || has(n, "attn_v.") || has(n, ".wv.") || has(n, "attention.value."))
    return tensor_component::attention_v;
  if (has(n, "o_proj") || has(n, "attn_output") || has(n, "attn.c_proj") || has(n, "attention.dense") ||
      has(n, "out_proj") || has(n, ".wo.") || has(n, "attention.output.dense"))
    return tensor_component::attention_o;
  if (has(n, "c_attn") || has(n, "qkv") || has(n, "query_key_value") || has(n, "kv_a_proj") || has(n, "kv_b_proj") ||
      has(n, "attn_kv") || has(n, "attn_k_b") || has(n, "attn_v_b"))  // MLA kv_b, split by newer llama.cpp
    return tensor_component::attention_other;
  if (has(n, "mlp") || has(n, "ffn_") || has(n, "feed_forward") || has(n, "gate_proj") || has(n, "up_proj") ||
      has(n, "down_proj") || has(n, "c_fc") || has(n, "fc1") || has(n, "fc2") || has(n, "dense_h_to_4h") ||
      has(n, "dense_4h_to_h"))
    return tensor_component::mlp;
  return tensor_component::other;
}

const checkpoint_metadata* checkpoint_info::find(std::string_view key) const {
  for (const auto& m : metadata)
    if (m.key == key) return &m;
  return nullptr;
}

namespace detail {

void finish_checkpoint(checkpoint_info& c) {
  std::stable_sort(c.tensors.begin(), c.tensors.end(), [](const checkpoint_tensor& a, const checkpoint_tensor& b) {
    return std::tie(a.file, a.offset) < std::tie(b.file, b.offset);
  });
  c.total_elements = c.total_bytes = 0;
  std::map<std::string, checkpoint_total> dtypes;
  std::array<checkpoint_total, tensor_component_count> parts{};
  for (const checkpoint_tensor& t : c.tensors) {
    c.total_elements = add(c.total_elements, t.elements);
    c.total_bytes = add(c.total_bytes, t.bytes);
    for (checkpoint_total* x : {&dtypes[t.dtype], &parts[static_cast<std::size_t>(t.component)]}) {
      ++x->tensors;
      x->elements = add(x->elements, t.elements);
      x->bytes = add(x->bytes, t.bytes);
    }
  }
  c.by_dtype.clear();
  for (auto& [name, total] : dtypes) {
    total.name = name;
    c.by_dtype.push_back(total);
  }
  std::stable_sort(c.by_dtype.begin(), c.by_dtype.end(),
                   [](const checkpoint_total& a, const checkpoint_total& b) { return a.bytes > b.bytes; });
  c.by_component.clear();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].tensors == 0) continue;
    parts[i].name = std::string(to_string(static_cast<tensor_component>(i)));
    c.by_component.push_back(parts[i]);
  }
}

}  // namespace detail

namespace {

using detail::json;

std::uint64_t le64(std::string_view b) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t{static_cast<unsigned char>(b[i])} << (8 * i);
  return v;
}

// The dtypes and the bits of one element (sub-byte formats: F4, F6).
constexpr std::pair<std::string_view, int> k_dtypes[] = {
    {"BOOL", 8}, {"U8", 8},   {"I8", 8},    {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16},
    {"U16", 16}, {"F16", 16}, {"BF16", 16}, {"I32", 32},    {"U32", 32},    {"F32", 32},    {"F64", 64},
    {"I64", 64}, {"U64", 64}, {"F4", 4},    {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"C64", 64},
};

// The index of `dt` in k_dtypes, or -1.
int dtype_index(std::string_view dt) {
  for (std::size_t i = 0; i < std::size(k_dtypes); ++i)
    if (k_dtypes[i].first == dt) return static_cast<int>(i);
  return -1;
}

int dtype_bits(std::string_view dt) {
  const int i = dtype_index(dt);
  return i < 0 ? 0 : k_dtypes[i].second;
}

const char* known_dtypes =
    "BOOL, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64, F4, F6_E2M3, "
    "F6_E3M2, C64";

std::int64_t offset_value(const json& v, const std::string& ptr) {
  return detail::to_integer(v, ptr, 0, std::numeric_limits<std::int64_t>::max(), "a non-negative integer");
}

checkpoint_tensor read_tensor(const std::string& name, const json& v) {
  const std::string base = "/tensors/" + detail::pointer_segment(name);
  if (!v.is_object())
    throw error(error_code::config_type, base,
                "expected a tensor entry {\"dtype\", \"shape\", \"data_offsets\"}, but got " + detail::describe(v));
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!v.contains(key)) throw error(error_code::config_missing, base + "/" + key, "required field is missing");
  checkpoint_tensor t;
  t.name = name;
  t.component = classify_tensor(name);
  const json& dt = v.at("dtype");
  if (!dt.is_string())
    throw error(error_code::config_type, base + "/dtype", "expected a string, but got " + detail::describe(dt));
  t.dtype = dt.get<std::string>();
  const int bits = dtype_bits(t.dtype);
  if (bits == 0)
    throw error(error_code::config_range, base + "/dtype",
                "unknown safetensors dtype \"" + t.dtype.substr(0, 40) + "\": expected one of " + known_dtypes);
  const json& shape = v.at("shape");
  if (!shape.is_array() || shape.size() > 64)
    throw error(error_code::config_type, base + "/shape",
                "expected an array of at most 64 non-negative integers, but got " + detail::describe(shape));
  t.elements = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::string ptr = base + "/shape/" + std::to_string(i);
    const std::int64_t dim =
        detail::to_integer(shape[i], ptr, 0, std::numeric_limits<std::int64_t>::max(), "a non-negative integer");
    t.shape.push_back(dim);
    try {
      t.elements = detail::mul(t.elements, dim);
    } catch (const error&) {
      throw error(error_code::limit, base + "/shape", "the element count exceeds 2^63");
    }
  }
  const json& off = v.at("data_offsets");
  if (!off.is_array() || off.size() != 2)
    throw error(error_code::config_type, base + "/data_offsets",
                "expected [begin, end] (two non-negative integers), but got " + detail::describe(off));
  const std::int64_t begin = offset_value(off[0], base + "/data_offsets/0");
  const std::int64_t end = offset_value(off[1], base + "/data_offsets/1");
  if (end < begin)
    throw error(error_code::config_range, base + "/data_offsets",
                "end " + std::to_string(end) + " is before begin " + std::to_string(begin));
  if (t.elements > std::numeric_limits<std::int64_t>::max() / bits)
    throw error(error_code::limit, base + "/shape", "the tensor's size exceeds 2^63 bits");
  const std::int64_t total_bits = t.elements * bits;
  if (total_bits % 8 != 0)
    throw error(error_code::config_range, base + "/shape",
                std::to_string(t.elements) + " elements of " + t.dtype + " are not a whole number of bytes");
  t.bytes = total_bits / 8;
  t.offset = begin;
  if (end - begin != t.bytes)
    throw error(error_code::config_range, base + "/data_offsets",
                "expected " + std::to_string(t.bytes) + " bytes (" + std::to_string(t.elements) + " x " + t.dtype +
                    "), but data_offsets span " + std::to_string(end - begin));
  return t;
}

constexpr const char* k_what = "the safetensors header";

// Reads the header from nlohmann's SAX events without a DOM of the whole header: only the value
// of the top-level entry being read is built (a few small values for a tensor), turned into a
// checkpoint_tensor (or the metadata) when it closes, and dropped. Memory is the tensor list and
// one entry; time is linear in the text. What the reader that parsed the whole header into a DOM
// (detail::parse_object) and then walked its entries reported is kept exactly:
// - invalid JSON, a key twice in one object and nesting deeper than detail::k_max_depth are
//   refused as they are met, with parse_json's messages, before any error about an entry;
// - of the entries' own errors, the one of the entry whose name sorts first is reported (the DOM
//   kept its keys in a std::map and read them in that order), so an error found in one entry
//   waits until the text has parsed, and an entry whose name sorts later does not replace it;
// - the tensors are handed on sorted by name, so finish_checkpoint's stable sort by offset keeps
//   ties (zero-byte tensors) in the same order, and the tiling check names the same tensor.
class header_reader : public detail::sax_events<header_reader> {
 public:
  explicit header_reader(checkpoint_info& c) : c_(c) {}

  bool key(json::string_t& k) {
    if (open_.empty()) {  // an entry's name
      if (seen_.count(k) != 0) twice(k);
      name_ = std::move(k);
      return true;
    }
    auto& object = open_.back()->get_ref<json::object_t&>();
    const auto [it, inserted] = object.try_emplace(std::move(k));  // leaves `k` alone when there already
    if (!inserted) twice(k);
    element_ = &it->second;
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/, const Exception& e) {
    throw detail::invalid_json(k_what, e);
  }

  // After the text has parsed: the first entry's error, else the tensors sorted by name.
  void finish() {
    if (failed_) throw *failed_;
    seen_.clear();  // before the sort moves the names it views
    other_names_.clear();
    std::sort(tensors_.begin(), tensors_.end(), [](const entry& a, const entry& b) { return a.name < b.name; });
    c_.tensors.reserve(tensors_.size());
    while (!tensors_.empty()) {  // the deque frees its blocks as they empty
      entry& e = tensors_.front();
      checkpoint_tensor t;
      t.name = std::move(e.name);
      t.dtype = std::string(k_dtypes[e.dtype].first);
      const auto shape = shapes_.begin() + static_cast<std::ptrdiff_t>(e.shape_at);
      t.shape.assign(shape, shape + e.rank);
      t.elements = e.elements;
      t.bytes = e.bytes;
      t.offset = e.offset;
      t.component = e.component;
      c_.tensors.push_back(std::move(t));
      tensors_.pop_front();
    }
    shapes_ = std::vector<std::int64_t>();
    c_.metadata = std::move(metadata_);
  }

 private:
  friend class detail::sax_events<header_reader>;
  [[noreturn]] void twice(const std::string& k) const {
    throw error(error_code::config_parse, "",
                std::string(k_what) + " has the key \"" + k + "\" twice in one object: expected each key once");
  }

  json* place(json&& v) {
    if (open_.empty()) {
      entry_ = std::move(v);
      return &entry_;
    }
    json& parent = *open_.back();
    if (parent.is_array()) {
      auto& array = parent.get_ref<json::array_t&>();
      array.emplace_back(std::move(v));
      return &array.back();
    }
    *element_ = std::move(v);
    return element_;
  }
  template <class V>
  bool put(V&& v) {
    place(json(std::forward<V>(v)));
    if (open_.empty()) read_entry();  // an entry that is a bare value
    return true;
  }
  bool open(json::value_t type) {
    // The header object is at depth 0, an entry's value at depth 1.
    const std::size_t depth = (in_header_ ? 1 : 0) + open_.size();
    if (depth >= detail::k_max_depth)
      throw error(error_code::limit, "",
                  std::string(k_what) + " is nested deeper than " + std::to_string(detail::k_max_depth) + " levels");
    if (!in_header_) {  // the text starts with '{': this is the header object
      in_header_ = true;
      return true;
    }
    open_.push_back(place(json(type)));
    return true;
  }
  bool close() {
    if (open_.empty()) {  // the header object
      in_header_ = false;
      return true;
    }
    open_.pop_back();
    if (open_.empty()) read_entry();
    return true;
  }

  // The entry just closed: its name is name_, its value entry_. Its name joins seen_ as a view
  // of the name the tensor keeps (or of other_names_).
  void read_entry() {
    const std::string* kept = nullptr;
    if (!failed_ || name_ < failed_name_) {  // else an entry whose name sorts first has failed already
      try {
        if (name_ != "__metadata__") {
          keep(read_tensor(name_, entry_));
          kept = &tensors_.back().name;
        } else {
          read_metadata();
        }
      } catch (const error& e) {
        failed_.emplace(e);
        failed_name_ = name_;
      }
    }
    if (kept == nullptr) {
      other_names_.push_back(std::move(name_));
      kept = &other_names_.back();
    }
    seen_.insert(*kept);
    entry_ = json();
  }

  // A tensor read, kept in the smaller form of an entry until finish().
  void keep(checkpoint_tensor&& t) {
    entry e;
    e.name = std::move(t.name);
    e.elements = t.elements;
    e.bytes = t.bytes;
    e.offset = t.offset;
    e.shape_at = static_cast<std::uint32_t>(shapes_.size());  // at most 8 Mi dimensions fit in 16 MiB
    e.rank = static_cast<std::uint8_t>(t.shape.size());       // at most 64 (read_tensor)
    e.dtype = static_cast<std::uint8_t>(dtype_index(t.dtype));
    e.component = t.component;
    shapes_.insert(shapes_.end(), t.shape.begin(), t.shape.end());
    tensors_.push_back(std::move(e));
  }

  void read_metadata() {
    const json& value = entry_;
    if (!value.is_object())
      throw error(error_code::config_type, "/__metadata__",
                  "expected an object of strings, but got " + detail::describe(value));
    std::vector<checkpoint_metadata> out;
    for (const auto& [mk, mv] : value.items()) {
      if (!mv.is_string())
        throw error(error_code::config_type, "/__metadata__/" + detail::pointer_segment(mk),
                    "expected a string, but got " + detail::describe(mv));
      checkpoint_metadata m;
      m.key = mk;
      m.type = "string";
      m.text = mv.get<std::string>();
      out.push_back(std::move(m));
    }
    metadata_ = std::move(out);
  }

  checkpoint_info& c_;
  bool in_header_ = false;
  std::string name_;                           // the current entry's name
  std::deque<std::string> other_names_;        // names of the entries not in tensors_
  std::unordered_set<std::string_view> seen_;  // every entry name read: views into tensors_, other_names_
  std::vector<json*> open_;                    // the current entry's open arrays and objects, outermost first
  json* element_ = nullptr;                    // the value of the object key just read
  json entry_;                                 // the current entry's value
  // A tensor as read (about 70 bytes instead of checkpoint_tensor's 150 and its shape's block):
  // its dtype an index into k_dtypes, its shape in shapes_.
  struct entry {
    std::string name;
    std::int64_t elements = 0, bytes = 0, offset = 0;
    std::uint32_t shape_at = 0;
    std::uint8_t rank = 0, dtype = 0;
    tensor_component component = tensor_component::other;
  };
  std::deque<entry> tensors_;                  // the tensors read, in text order (never moved while read)
  std::vector<std::int64_t> shapes_;           // their shapes, one after another
  std::vector<checkpoint_metadata> metadata_;  // __metadata__, by key (its object's order)
  std::optional<error> failed_;                // the error of the first-sorting entry that failed
  std::string failed_name_;
};

}  // namespace

std::optional<checkpoint_format> detect_checkpoint_format(std::string_view p) noexcept {
  if (p.size() >= 4 && p.substr(0, 4) == "GGUF") return checkpoint_format::gguf;
  if (p.size() >= 9 && p[8] == '{' && le64(p) <= max_safetensors_header && le64(p) >= 2)
    return checkpoint_format::safetensors;
  std::size_t i = 0;
  if (p.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < p.size() && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) ++i;
  if (i < p.size() && p[i] == '{') return checkpoint_format::safetensors_index;
  return std::nullopt;
}

std::size_t checkpoint_header_bytes(std::string_view prefix) {
  if (prefix.size() >= 4 && prefix.substr(0, 4) == "GGUF") return detail::gguf_header_bytes(prefix);
  if (prefix.size() < 8) return 8;
  const std::uint64_t n = le64(prefix);
  if (n > max_safetensors_header)
    throw error(error_code::limit, "/header_length",
                "safetensors header is " + std::to_string(n) + " bytes: expected at most " +
                    std::to_string(max_safetensors_header) + " (16 MiB)");
  return static_cast<std::size_t>(8 + n);
}

checkpoint_info read_safetensors(std::string_view bytes, std::int64_t file_size) {
  if (bytes.size() < 8)
    throw error(error_code::config_parse, "/header_length",
                "truncated safetensors file: expected an 8-byte header length, but got " +
                    std::to_string(bytes.size()) + " bytes");
  const std::uint64_t n = le64(bytes);
  if (n > max_safetensors_header)
    throw error(error_code::limit, "/header_length",
                "safetensors header is " + std::to_string(n) + " bytes: expected at most " +
                    std::to_string(max_safetensors_header) + " (16 MiB)");
  if (bytes.size() - 8 < n)
    throw error(error_code::config_parse, "/header_length",
                "truncated safetensors header: the header is " + std::to_string(n) + " bytes, but only " +
                    std::to_string(bytes.size() - 8) + " follow the length");
  if (file_size >= 0 && static_cast<std::uint64_t>(file_size) < 8 + n)
    throw error(error_code::config_parse, "/header_length",
                "truncated safetensors file: the header is " + std::to_string(n) + " bytes, but the file is " +
                    std::to_string(file_size));
  const std::string_view text = bytes.substr(8, static_cast<std::size_t>(n));
  if (text.empty() || text[0] != '{')
    throw error(error_code::config_parse, "", "not a safetensors file: the header does not start with '{'");
  checkpoint_info c;
  c.format = checkpoint_format::safetensors;
  c.header_bytes = c.data_start = static_cast<std::int64_t>(8 + n);
  header_reader reader(c);
  try {
    json::sax_parse(text.begin(), text.end(), &reader);
  } catch (const json::exception& e) {
    throw detail::invalid_json(k_what, e);
  }
  reader.finish();
  detail::finish_checkpoint(c);
  // The tensors tile the data section: each begins where the one before ends.
  std::int64_t expected = 0;
  for (const checkpoint_tensor& t : c.tensors) {
    if (t.offset != expected)
      throw error(error_code::config_range, "/tensors/" + detail::pointer_segment(t.name) + "/data_offsets",
                  "expected the tensor to begin at byte " + std::to_string(expected) +
                      " of the data (where the previous one ends), but it begins at " + std::to_string(t.offset) +
                      (t.offset < expected ? " (overlap)" : " (gap)"));
    expected = t.offset + t.bytes;
  }
  if (file_size >= 0 && detail::add(c.data_start, expected) != file_size)
    throw error(error_code::config_range, "/tensors",
                "the tensors end at byte " + std::to_string(c.data_start + expected) + ", but the file is " +
                    std::to_string(file_size) + " bytes");
  return c;
}

checkpoint_info read_checkpoint(std::string_view bytes, std::int64_t file_size) {
  const auto f = detect_checkpoint_format(bytes);
  if (f == checkpoint_format::gguf) return read_gguf(bytes, file_size);
  if (f == checkpoint_format::safetensors) return read_safetensors(bytes, file_size);
  if (f == checkpoint_format::safetensors_index) {
    checkpoint_info c = combine_safetensors(read_safetensors_index(bytes), {});
    return c;
  }
  throw error(error_code::config_parse, "",
              "not a checkpoint: expected a GGUF file (magic \"GGUF\"), a safetensors file (8-byte header length, "
              "then '{') or a model.safetensors.index.json");
}

safetensors_index read_safetensors_index(std::string_view text) {
  const json j = detail::parse_object(text, "model.safetensors.index.json");
  safetensors_index x;
  if (!j.contains("weight_map")) throw error(error_code::config_missing, "/weight_map", "required field is missing");
  const json& wm = j.at("weight_map");
  if (!wm.is_object())
    throw error(error_code::config_type, "/weight_map",
                "expected an object (tensor name -> shard file), but got " + detail::describe(wm));
  for (const auto& [name, file] : wm.items()) {
    if (!file.is_string())
      throw error(error_code::config_type, "/weight_map/" + detail::pointer_segment(name),
                  "expected a shard file name, but got " + detail::describe(file));
    const std::string f = file.get<std::string>();
    if (f.empty() || f.find('/') != std::string::npos || f.find('\\') != std::string::npos || f == "." || f == "..")
      throw error(error_code::config_range, "/weight_map/" + detail::pointer_segment(name),
                  "expected a file name beside the index (no folders), but got \"" + f.substr(0, 80) + "\"");
    x.weight_map.emplace_back(name, f);
    x.shards.push_back(f);
  }
  std::sort(x.shards.begin(), x.shards.end());
  x.shards.erase(std::unique(x.shards.begin(), x.shards.end()), x.shards.end());
  if (j.contains("metadata")) {
    const json& md = j.at("metadata");
    if (!md.is_object())
      throw error(error_code::config_type, "/metadata", "expected an object, but got " + detail::describe(md));
    if (md.contains("total_size")) x.total_size = offset_value(md.at("total_size"), "/metadata/total_size");
  }
  return x;
}

checkpoint_info combine_safetensors(const safetensors_index& index,
                                    const std::vector<std::pair<std::string, checkpoint_info>>& shards) {
  checkpoint_info c;
  c.format = checkpoint_format::safetensors_index;
  c.declared_total_size = index.total_size;
  std::map<std::string, const checkpoint_info*> by_file;
  for (const auto& [file, info] : shards) by_file[file] = &info;
  std::map<std::string, std::string> listed(index.weight_map.begin(), index.weight_map.end());
  for (const std::string& file : index.shards)
    if (by_file.find(file) == by_file.end()) c.notes.push_back("shard " + file + " was not read");
  for (const auto& [name, file] : index.weight_map) {
    const auto it = by_file.find(file);
    if (it != by_file.end()) continue;
    checkpoint_tensor t;
    t.name = name;
    t.file = file;
    t.dtype = "?";
    t.component = classify_tensor(name);
    c.tensors.push_back(std::move(t));
  }
  for (const auto& [file, info] : shards) {
    std::set<std::string> present;
    for (checkpoint_tensor t : info.tensors) {
      present.insert(t.name);
      const auto it = listed.find(t.name);
      if (it == listed.end())
        c.notes.push_back("tensor " + t.name + " of " + file + " is not in the index's weight_map");
      else if (it->second != file)
        c.notes.push_back("tensor " + t.name + " is in " + file + ", but the index places it in " + it->second);
      t.file = file;
      c.tensors.push_back(std::move(t));
    }
    for (const auto& [name, f] : index.weight_map)
      if (f == file && present.count(name) == 0)
        c.notes.push_back("tensor " + name + " is listed for " + file + " but is not in it");
  }
  detail::finish_checkpoint(c);
  if (shards.size() == index.shards.size() && index.total_size >= 0 && index.total_size != c.total_bytes)
    c.notes.push_back("metadata.total_size is " + std::to_string(index.total_size) + " bytes, the tensors hold " +
                      std::to_string(c.total_bytes));
  return c;
}

checkpoint_comparison compare_checkpoint(const checkpoint_info& c, const model_spec& m) {
  const parameter_breakdown p = count_parameters(m);
  checkpoint_comparison out;
  out.checkpoint_elements = c.total_elements;
  out.architecture_parameters = p.total;
  std::array<std::int64_t, 7> ck{};
  for (const checkpoint_tensor& t : c.tensors) {
    std::size_t row = 7;
    switch (t.component) {
      case tensor_component::embedding:
        row = 0;
        break;
      case tensor_component::attention_q:
      case tensor_component::attention_k:
      case tensor_component::attention_v:
      case tensor_component::attention_o:
      case tensor_component::attention_other:
        row = 1;
        break;
      case tensor_component::mlp:
      case tensor_component::experts:
        row = 2;
        break;
      case tensor_component::norm:
        row = 3;
        break;
      case tensor_component::lm_head:
        row = 4;
        break;
      case tensor_component::mixer:
        row = 5;
        break;
      case tensor_component::vision:
        row = 6;
        break;
      case tensor_component::other:
        out.unaccounted.push_back(t.name);
        break;
    }
    if (row < 7) ck[row] = detail::add(ck[row], t.elements);
  }
  const std::array<std::int64_t, 7> arch{p.embedding, p.attention, p.mlp, p.norm, p.output_head, p.mixer, p.vision};
  const std::array<const char*, 7> names{"embedding", "attention", "mlp", "norm", "output_head", "mixer", "vision"};
  for (std::size_t i = 0; i < 7; ++i)
    if (i < 5 || ck[i] > 0 || arch[i] > 0) out.rows.push_back({names[i], ck[i], arch[i]});
  return out;
}

}  // namespace flopcast
