// The GGUF header reader (flopcast/checkpoint.hpp): a v3 header with llama keys and a
// Q4_K / Q6_K / F32 tensor mix written here; exact bytes from the GGML block layouts, the
// mapped model_spec against the architecture count, and the errors.
#include <catch2/catch.hpp>
#include <cstring>

#include "flopcast/checkpoint.hpp"
#include "helpers.hpp"

namespace {

// A tiny GGUF writer (little-endian).
struct gguf_writer {
  std::string out;
  std::uint64_t n_tensors = 0, n_kv = 0;
  std::string kv, infos;

  static void put(std::string& s, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  static void str(std::string& s, const std::string& v) {
    put(s, v.size(), 8);
    s += v;
  }
  void u32(const std::string& key, std::uint32_t v) {
    str(kv, key);
    put(kv, 4, 4);
    put(kv, v, 4);
    ++n_kv;
  }
  void f32(const std::string& key, float v) {
    str(kv, key);
    put(kv, 6, 4);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    put(kv, bits, 4);
    ++n_kv;
  }
  void string(const std::string& key, const std::string& v) {
    str(kv, key);
    put(kv, 8, 4);
    str(kv, v);
    ++n_kv;
  }
  void string_array(const std::string& key, std::uint64_t n) {
    str(kv, key);
    put(kv, 9, 4);
    put(kv, 8, 4);
    put(kv, n, 8);
    for (std::uint64_t i = 0; i < n; ++i) str(kv, "t" + std::to_string(i));
    ++n_kv;
  }
  void i32_array(const std::string& key, std::uint64_t n) {
    str(kv, key);
    put(kv, 9, 4);
    put(kv, 5, 4);
    put(kv, n, 8);
    for (std::uint64_t i = 0; i < n; ++i) put(kv, i, 4);
    ++n_kv;
  }
  std::uint64_t offset = 0;
  // A tensor of `type` taking `bytes` (the writer lays them out 32-aligned).
  void tensor(const std::string& name, std::vector<std::uint64_t> ne, std::uint32_t type, std::uint64_t bytes) {
    str(infos, name);
    put(infos, ne.size(), 4);
    for (std::uint64_t d : ne) put(infos, d, 8);
    put(infos, type, 4);
    put(infos, offset, 8);
    offset += (bytes + 31) / 32 * 32;
    ++n_tensors;
  }
  [[nodiscard]] std::string bytes(std::uint32_t version = 3) const {
    std::string s = "GGUF";
    put(s, version, 4);
    put(s, n_tensors, 8);
    put(s, n_kv, 8);
    return s + kv + infos;
  }
};

constexpr std::uint32_t F32 = 0, Q4_K = 12, Q6_K = 14;
// Bytes of a [ne0, ne1] tensor: ne0 / block x block bytes x ne1.
std::uint64_t q4k(std::uint64_t ne0, std::uint64_t ne1) { return ne0 / 256 * 144 * ne1; }
std::uint64_t q6k(std::uint64_t ne0, std::uint64_t ne1) { return ne0 / 256 * 210 * ne1; }

// A 2-layer llama: hidden 256, 4 heads, 2 KV heads (head 64), MLP 512, vocab 300.
gguf_writer tiny_llama(bool untied = true) {
  gguf_writer w;
  w.string("general.architecture", "llama");
  w.string("general.name", "tiny-llama");
  w.u32("general.alignment", 32);
  w.u32("llama.block_count", 2);
  w.u32("llama.context_length", 2048);
  w.u32("llama.embedding_length", 256);
  w.u32("llama.feed_forward_length", 512);
  w.u32("llama.attention.head_count", 4);
  w.u32("llama.attention.head_count_kv", 2);
  w.u32("llama.rope.dimension_count", 64);
  w.f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  w.string_array("tokenizer.ggml.tokens", 300);
  w.i32_array("tokenizer.ggml.token_type", 300);
  w.tensor("token_embd.weight", {256, 300}, Q4_K, q4k(256, 300));
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    w.tensor(p + "attn_norm.weight", {256}, F32, 256 * 4);
    w.tensor(p + "attn_q.weight", {256, 256}, Q4_K, q4k(256, 256));
    w.tensor(p + "attn_k.weight", {256, 128}, Q4_K, q4k(256, 128));
    w.tensor(p + "attn_v.weight", {256, 128}, Q6_K, q6k(256, 128));
    w.tensor(p + "attn_output.weight", {256, 256}, Q4_K, q4k(256, 256));
    w.tensor(p + "ffn_norm.weight", {256}, F32, 256 * 4);
    w.tensor(p + "ffn_gate.weight", {256, 512}, Q4_K, q4k(256, 512));
    w.tensor(p + "ffn_up.weight", {256, 512}, Q4_K, q4k(256, 512));
    w.tensor(p + "ffn_down.weight", {512, 256}, Q6_K, q6k(512, 256));
  }
  w.tensor("output_norm.weight", {256}, F32, 256 * 4);
  if (untied) w.tensor("output.weight", {256, 300}, Q6_K, q6k(256, 300));
  return w;
}

template <class F>
flopcast::error error_of(F&& fn) {
  try {
    fn();
  } catch (const flopcast::error& e) {
    return e;
  }
  FAIL("expected a flopcast::error");
  throw std::logic_error("unreachable");
}

const flopcast::checkpoint_total& total(const std::vector<flopcast::checkpoint_total>& v, const std::string& name) {
  for (const auto& t : v)
    if (t.name == name) return t;
  FAIL("no total " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("GGML types: bits per weight from the block layouts") {
  const std::vector<std::pair<std::string, double>> expected = {
      {"F32", 32},         {"F16", 16},        {"BF16", 16},      {"F64", 64},         {"I8", 8},
      {"I16", 16},         {"I32", 32},        {"I64", 64},       {"Q4_0", 4.5},       {"Q4_1", 5},
      {"Q5_0", 5.5},       {"Q5_1", 6},        {"Q8_0", 8.5},     {"Q8_1", 9},         {"Q2_K", 2.625},
      {"Q3_K", 3.4375},    {"Q4_K", 4.5},      {"Q5_K", 5.5},     {"Q6_K", 6.5625},    {"Q8_K", 9.125},
      {"IQ2_XXS", 2.0625}, {"IQ2_XS", 2.3125}, {"IQ2_S", 2.5625}, {"IQ3_XXS", 3.0625}, {"IQ3_S", 3.4375},
      {"IQ1_S", 1.5625},   {"IQ1_M", 1.75},    {"IQ4_NL", 4.5},   {"IQ4_XS", 4.25},    {"TQ1_0", 1.6875},
      {"TQ2_0", 2.0625},   {"MXFP4", 4.25},
  };
  REQUIRE(flopcast::ggml_types().size() == expected.size());
  for (const auto& [name, bits] : expected) {
    const flopcast::ggml_type_info* t = nullptr;
    for (const auto& x : flopcast::ggml_types())
      if (x.name == name) t = &x;
    INFO(name);
    REQUIRE(t != nullptr);
    CHECK(t->bits_per_weight() == bits);
    CHECK(flopcast::find_ggml_type(t->id) == t);
  }
  CHECK(flopcast::find_ggml_type(4) == nullptr);   // removed Q4_2
  CHECK(flopcast::find_ggml_type(40) == nullptr);  // not yet known
}

TEST_CASE("GGUF: a v3 llama header gives exact bytes per type and maps to the architecture count") {
  const std::string head = tiny_llama().bytes();
  REQUIRE(flopcast::detect_checkpoint_format(head) == flopcast::checkpoint_format::gguf);
  REQUIRE(flopcast::checkpoint_header_bytes(head) == head.size());
  const flopcast::checkpoint_info c = flopcast::read_gguf(head);
  CHECK(c.gguf_version == 3);
  CHECK(c.architecture == "llama");
  CHECK(c.alignment == 32);
  CHECK(c.header_bytes == static_cast<std::int64_t>(head.size()));
  CHECK(c.data_start % 32 == 0);
  REQUIRE(c.tensors.size() == 21);

  const std::uint64_t q4 = q4k(256, 300) + 2 * (q4k(256, 256) * 2 + q4k(256, 128) + 2 * q4k(256, 512));
  const std::uint64_t q6 = 2 * (q6k(256, 128) + q6k(512, 256)) + q6k(256, 300);
  const auto& t4 = total(c.by_dtype, "Q4_K");
  const auto& t6 = total(c.by_dtype, "Q6_K");
  const auto& t32 = total(c.by_dtype, "F32");
  CHECK(t4.bytes == static_cast<std::int64_t>(q4));
  CHECK(t4.elements * 144 == t4.bytes * 256);
  CHECK(t6.bytes == static_cast<std::int64_t>(q6));
  CHECK(t6.elements * 210 == t6.bytes * 256);
  CHECK(t32.bytes == 5 * 256 * 4);
  CHECK(c.total_bytes == static_cast<std::int64_t>(q4 + q6 + 5 * 256 * 4));
  const std::int64_t per_layer = 2 * 256 + 2 * 256 * 256 + 2 * 128 * 256 + 3 * 256 * 512;
  CHECK(c.total_elements == 2 * 300 * 256 + 2 * per_layer + 256);
  CHECK(c.bits_per_weight() ==
        Approx(8.0 * static_cast<double>(c.total_bytes) / static_cast<double>(c.total_elements)));
  CHECK(c.bits_per_weight() > 4.5);
  CHECK(c.bits_per_weight() < 6.5625);
  CHECK(c.find("tokenizer.ggml.tokens")->array_length == 300);
  CHECK(c.find("llama.attention.layer_norm_rms_epsilon")->text == "1e-05");

  // The keys as a config: the same model_spec fields as a config.json, the same count.
  const flopcast::model_spec m = flopcast::gguf_model_spec(c);
  CHECK(m.model_type == "llama");
  CHECK(m.name == "tiny-llama");
  CHECK(m.hidden_size == 256);
  CHECK(m.num_layers == 2);
  CHECK(m.vocab_size == 300);
  CHECK(m.attention.num_kv_heads == 2);
  CHECK(m.attention.head_dim == 64);
  CHECK(m.mlp.intermediate_size == 512);
  CHECK(m.max_position_embeddings == 2048);
  CHECK_FALSE(m.tie_word_embeddings);
  const flopcast::checkpoint_comparison k = flopcast::compare_checkpoint(c, m);
  CHECK(k.matches());
  CHECK(k.architecture_parameters == flopcast::count_parameters(m).total);
  CHECK(k.checkpoint_elements == c.total_elements);
  for (const auto& r : k.rows) CHECK(r.checkpoint == r.architecture);

  const auto hf = nlohmann::json::parse(flopcast::gguf_config_json(c));
  CHECK(hf.at("model_type") == "llama");
  CHECK(hf.at("num_key_value_heads") == 2);
  CHECK(flopcast::count_parameters(flopcast::read_hf_config(hf.dump())).total == k.architecture_parameters);
}

TEST_CASE("GGUF: tied head, rope_freqs, v2, Mixtral-style experts, qwen2") {
  gguf_writer w = tiny_llama(false);
  w.tensor("rope_freqs.weight", {32}, F32, 128);
  const auto c = flopcast::read_gguf(w.bytes(2));
  CHECK(c.gguf_version == 2);
  const auto m = flopcast::gguf_model_spec(c);
  CHECK(m.tie_word_embeddings);
  const auto k = flopcast::compare_checkpoint(c, m);
  CHECK(k.checkpoint_elements - k.architecture_parameters == 32);
  CHECK(k.unaccounted == std::vector<std::string>{"rope_freqs.weight"});

  gguf_writer x;
  x.string("general.architecture", "llama");
  x.u32("llama.block_count", 1);
  x.u32("llama.embedding_length", 256);
  x.u32("llama.feed_forward_length", 512);
  x.u32("llama.attention.head_count", 4);
  x.u32("llama.expert_count", 8);
  x.u32("llama.expert_used_count", 2);
  x.u32("llama.vocab_size", 1000);
  x.tensor("blk.0.ffn_gate_exps.weight", {256, 512, 8}, Q4_K, q4k(256, 512 * 8));
  x.tensor("blk.0.ffn_gate_inp.weight", {256, 8}, F32, 256 * 8 * 4);
  const auto cx = flopcast::read_gguf(x.bytes());
  const auto mx = flopcast::gguf_model_spec(cx);
  CHECK(mx.model_type == "mixtral");
  CHECK(mx.moe.num_experts == 8);
  CHECK(mx.moe.experts_per_token == 2);
  CHECK(mx.vocab_size == 1000);
  CHECK(total(cx.by_component, "experts").elements == 256 * 512 * 8 + 256 * 8);

  gguf_writer q;
  q.string("general.architecture", "qwen2");
  q.u32("qwen2.block_count", 2);
  q.u32("qwen2.embedding_length", 128);
  q.u32("qwen2.feed_forward_length", 256);
  q.u32("qwen2.attention.head_count", 2);
  q.tensor("token_embd.weight", {128, 500}, F32, 128 * 500 * 4);
  const auto mq = flopcast::gguf_model_spec(flopcast::read_gguf(q.bytes()));
  CHECK(mq.model_type == "qwen2");
  CHECK(mq.vocab_size == 500);  // from the embedding's rows
  CHECK(mq.attention.qkv_bias);
}

TEST_CASE("GGUF: errors") {
  using flopcast::error_code;
  const std::string head = tiny_llama().bytes();
  // Truncated anywhere: a clear error, and the needed size grows past what is there.
  for (std::size_t n :
       {std::size_t{0}, std::size_t{3}, std::size_t{10}, std::size_t{30}, head.size() / 2, head.size() - 1}) {
    INFO(n);
    const auto e = error_of([&] { (void)flopcast::read_gguf(head.substr(0, n)); });
    CHECK(e.code() == error_code::config_parse);
    CHECK_THAT(e.message(), Catch::Contains("truncated"));
    if (n >= 4) CHECK(flopcast::checkpoint_header_bytes(head.substr(0, n)) > n);
  }
  // Bad magic.
  std::string bad = head;
  bad[0] = 'X';
  auto e = error_of([&] { (void)flopcast::read_gguf(bad); });
  CHECK(e.pointer() == "/magic");
  CHECK_FALSE(flopcast::detect_checkpoint_format(bad).has_value());
  // Versions.
  gguf_writer w = tiny_llama();
  CHECK(error_of([&] { (void)flopcast::read_gguf(w.bytes(1)); }).pointer() == "/version");
  CHECK_THAT(error_of([&] { (void)flopcast::read_gguf(w.bytes(0x03000000)); }).message(),
             Catch::Contains("big-endian"));
  // Huge counts.
  gguf_writer huge;
  huge.n_tensors = std::uint64_t{1} << 40;
  e = error_of([&] { (void)flopcast::read_gguf(huge.bytes()); });
  CHECK(e.code() == error_code::limit);
  CHECK(e.pointer() == "/tensor_count");
  huge = gguf_writer{};
  huge.n_kv = std::uint64_t{1} << 21;
  CHECK(error_of([&] { (void)flopcast::read_gguf(huge.bytes()); }).pointer() == "/metadata_kv_count");
  // A huge string length and a huge array.
  gguf_writer s;
  gguf_writer::str(s.kv, "k");
  gguf_writer::put(s.kv, 8, 4);
  gguf_writer::put(s.kv, std::uint64_t{1} << 62, 8);
  s.n_kv = 1;
  e = error_of([&] { (void)flopcast::read_gguf(s.bytes()); });
  CHECK(e.code() == error_code::limit);
  CHECK(e.pointer() == "/metadata/k");
  gguf_writer a;
  gguf_writer::str(a.kv, "arr");
  gguf_writer::put(a.kv, 9, 4);
  gguf_writer::put(a.kv, 0, 4);
  gguf_writer::put(a.kv, std::uint64_t{1} << 30, 8);
  a.n_kv = 1;
  CHECK(error_of([&] { (void)flopcast::read_gguf(a.bytes()); }).code() == error_code::limit);
  // Unknown value type, unknown GGML type.
  gguf_writer v;
  gguf_writer::str(v.kv, "k");
  gguf_writer::put(v.kv, 13, 4);
  v.n_kv = 1;
  CHECK_THAT(error_of([&] { (void)flopcast::read_gguf(v.bytes()); }).message(), Catch::Contains("value type 13"));
  gguf_writer g;
  g.tensor("w", {32}, 4, 32);
  e = error_of([&] { (void)flopcast::read_gguf(g.bytes()); });
  CHECK(e.code() == error_code::unsupported_model);
  CHECK(e.pointer() == "/tensors/w/type");
  CHECK_THAT(e.message(), Catch::Contains("Q4_K"));
  // A first dimension that is not a whole number of blocks; too many dimensions; overflow.
  gguf_writer b;
  b.tensor("w", {100, 2}, Q4_K, 0);
  CHECK(error_of([&] { (void)flopcast::read_gguf(b.bytes()); }).pointer() == "/tensors/w/shape");
  gguf_writer d;
  d.tensor("w", {1, 1, 1, 1, 1}, F32, 4);
  CHECK(error_of([&] { (void)flopcast::read_gguf(d.bytes()); }).pointer() == "/tensors/w/n_dims");
  gguf_writer o;
  o.tensor("w", {std::uint64_t{1} << 40, std::uint64_t{1} << 40}, F32, 0);
  CHECK(error_of([&] { (void)flopcast::read_gguf(o.bytes()); }).code() == error_code::limit);
  // Misaligned and overlapping offsets, and data past the end of the file.
  gguf_writer m;
  m.tensor("a", {64}, F32, 256);
  m.offset = 100;
  m.tensor("b", {64}, F32, 256);
  CHECK(error_of([&] { (void)flopcast::read_gguf(m.bytes()); }).pointer() == "/tensors/b/offset");
  gguf_writer ov;
  ov.tensor("a", {64}, F32, 256);
  ov.offset = 128;
  ov.tensor("b", {64}, F32, 256);
  CHECK_THAT(error_of([&] { (void)flopcast::read_gguf(ov.bytes()); }).message(), Catch::Contains("inside a"));
  const auto info = flopcast::read_gguf(head);
  CHECK(error_of([&] { (void)flopcast::read_gguf(head, info.data_start + 10); }).pointer() == "/tensors");
  // Duplicates.
  gguf_writer dup;
  dup.u32("k", 1);
  dup.u32("k", 2);
  CHECK(error_of([&] { (void)flopcast::read_gguf(dup.bytes()); }).code() == error_code::config_parse);
  // Unsupported architecture and a missing key.
  gguf_writer arch;
  arch.string("general.architecture", "xyz");
  e = error_of([&] { (void)flopcast::gguf_model_spec(flopcast::read_gguf(arch.bytes())); });
  CHECK(e.code() == error_code::unsupported_model);
  CHECK(e.message() == "GGUF architecture \"xyz\" is not supported: supported are llama, mistral, qwen2, qwen3");
  gguf_writer miss;
  miss.string("general.architecture", "llama");
  miss.u32("llama.embedding_length", 256);
  e = error_of([&] { (void)flopcast::gguf_model_spec(flopcast::read_gguf(miss.bytes())); });
  CHECK(e.code() == error_code::config_missing);
  CHECK(e.pointer() == "/metadata/llama.block_count");
  // A value the config reader refuses names the GGUF key.
  gguf_writer kv = tiny_llama();
  kv.u32("llama.attention.head_count_kv", 3);
  kv.kv.clear();
  kv.n_kv = 0;
  kv.string("general.architecture", "llama");
  kv.u32("llama.block_count", 2);
  kv.u32("llama.embedding_length", 256);
  kv.u32("llama.feed_forward_length", 512);
  kv.u32("llama.attention.head_count", 4);
  kv.u32("llama.attention.head_count_kv", 3);
  e = error_of([&] { (void)flopcast::gguf_model_spec(flopcast::read_gguf(kv.bytes())); });
  CHECK(e.pointer() == "/metadata/llama.attention.head_count_kv");
}
