// The GGUF header reader (flopcast/checkpoint.hpp): a v3 header with llama keys and a
// Q4_K / Q6_K / F32 tensor mix written here; exact bytes from the GGML block layouts, the
// mapped model_spec against the architecture count, and the errors.
#include <catch2/catch.hpp>
#include <cstring>

#include "flopcast/checkpoint/checkpoint.hpp"
#include "gguf_writer.hpp"
#include "helpers.hpp"

namespace {

using test::gguf_writer;

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

using test::error_of;

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
  CHECK(e.message() ==
        "GGUF architecture \"xyz\" is not supported: supported are llama, mistral, qwen2, qwen3, qwen2moe, qwen3moe, "
        "gemma2, gemma3, phi3, "
        "deepseek2");
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

// ---- More architectures: a header with the keys llama.cpp's convert_hf_to_gguf.py writes from a
// bundled record's published config.json (data/models/*.json), mapped back to a config: the count
// must be the record's published one (safetensors metadata, exact) where it is exact, and the
// published config's own count otherwise. Tensor infos only where the mapping reads them (the
// untied head, routers, router biases, the embedding's rows).
namespace {

struct arch_header {
  gguf_writer w;
  std::string arch;
  explicit arch_header(const std::string& a) : arch(a) { w.string("general.architecture", a); }
  arch_header& u32(const std::string& suffix, std::uint32_t v) {
    w.u32(arch + "." + suffix, v);
    return *this;
  }
  arch_header& tensor(const std::string& name, std::vector<std::uint64_t> ne) {
    std::uint64_t n = 1;
    for (auto d : ne) n *= d;
    w.tensor(name, std::move(ne), 1 /* F16 */, n * 2);
    return *this;
  }
  // token_embd [hidden, vocab], and output.weight unless tied.
  arch_header& embeddings(std::uint64_t hidden, std::uint64_t vocab, bool tied) {
    tensor("token_embd.weight", {hidden, vocab});
    if (!tied) tensor("output.weight", {hidden, vocab});
    return *this;
  }
  [[nodiscard]] flopcast::model_spec spec() const { return flopcast::gguf_model_spec(flopcast::read_gguf(w.bytes())); }
};

std::int64_t total_of(const flopcast::model_spec& m) { return flopcast::count_parameters(m).total; }

// The count must match the record's: exactly its published total when that is exact, else the
// count of its published config (itself checked against the published rounding by test_parameters).
void check_against_record(const flopcast::model_spec& m, const std::string& alias) {
  const flopcast::model_record& r = flopcast::find_model(alias);
  INFO(alias);
  if (r.published_significant_digits == 0) CHECK(total_of(m) == r.published_parameters);
  CHECK(total_of(m) == total_of(r.spec));
  CHECK(m.model_type == r.spec.model_type);
  CHECK(m.attention.head_dim == r.spec.attention.head_dim);
  CHECK(m.attention.num_kv_heads == r.spec.attention.num_kv_heads);
  CHECK(m.tie_word_embeddings == r.spec.tie_word_embeddings);
  CHECK(m.groups.size() == r.spec.groups.size());
}

}  // namespace

TEST_CASE("GGUF: gemma2 and gemma3 map to gemma2 and gemma3_text with their windows") {
  // google/gemma-2-9b config.json: 3584 hidden, 42 layers, 16 heads, 8 KV heads, head_dim 256,
  // MLP 14336, vocab 256000, sliding_window 4096 (every other layer); tied embeddings.
  arch_header g2("gemma2");
  g2.u32("context_length", 8192).u32("embedding_length", 3584).u32("block_count", 42);
  g2.u32("feed_forward_length", 14336).u32("attention.head_count", 16).u32("attention.head_count_kv", 8);
  g2.u32("attention.key_length", 256).u32("attention.value_length", 256).u32("attention.sliding_window", 4096);
  g2.embeddings(3584, 256000, true);
  const auto m2 = g2.spec();
  check_against_record(m2, "gemma-2-9b");
  CHECK(m2.mlp.activation == "gelu_pytorch_tanh");
  CHECK(m2.norms_per_layer == 4);
  std::int64_t sliding = 0;
  for (const auto& g : m2.groups) sliding += g.window == 4096 ? g.count : 0;
  CHECK(sliding == 21);

  // google/gemma-3-1b-it: 1152 hidden, 26 layers, 4 heads, 1 KV head, head_dim 256, MLP 6912,
  // vocab 262144, sliding_window 512 with 5 local layers per global one.
  arch_header g3("gemma3");
  g3.u32("context_length", 32768).u32("embedding_length", 1152).u32("block_count", 26);
  g3.u32("feed_forward_length", 6912).u32("attention.head_count", 4).u32("attention.head_count_kv", 1);
  g3.u32("attention.key_length", 256).u32("attention.value_length", 256).u32("attention.sliding_window", 512);
  g3.embeddings(1152, 262144, true);
  const auto m3 = g3.spec();
  check_against_record(m3, "gemma-3-1b");
  CHECK(m3.attention.qk_norm);
  std::int64_t global = 0;
  for (const auto& g : m3.groups) global += g.window == 0 ? g.count : 0;
  CHECK(global == 4);  // layers 5, 11, 17, 23
}

TEST_CASE("GGUF: phi3 (Phi-3-mini, and Phi-4-mini with partial rotary and a tied head)") {
  // microsoft/Phi-3-mini-4k-instruct: 3072 hidden, 32 layers, 32 heads, MLP 8192, vocab 32064, untied.
  arch_header p("phi3");
  p.u32("context_length", 4096).u32("embedding_length", 3072).u32("block_count", 32);
  p.u32("feed_forward_length", 8192).u32("attention.head_count", 32).u32("attention.head_count_kv", 32);
  p.u32("rope.dimension_count", 96).u32("attention.sliding_window", 2047);
  p.embeddings(3072, 32064, false);
  const auto m = p.spec();
  check_against_record(m, "phi-3-mini");
  CHECK(m.groups.front().window == 2047);

  // microsoft/Phi-4-mini-instruct: 24 heads (head 128), 8 KV heads, partial_rotary_factor 0.75
  // (rope.dimension_count = 0.75 x 3072 / 24 = 96), vocab 200064, tied.
  arch_header q("phi3");
  q.u32("context_length", 131072).u32("embedding_length", 3072).u32("block_count", 32);
  q.u32("feed_forward_length", 8192).u32("attention.head_count", 24).u32("attention.head_count_kv", 8);
  q.u32("rope.dimension_count", 96).u32("attention.sliding_window", 262144);
  q.embeddings(3072, 200064, true);
  const auto m4 = q.spec();
  check_against_record(m4, "phi-4-mini");
  CHECK(m4.attention.rotary_dim == 96);
}

TEST_CASE("GGUF: qwen2moe and qwen3moe, dense layers from the router tensors") {
  // Qwen/Qwen3-30B-A3B: 2048 hidden, 48 layers, 32 heads, 4 KV heads, head_dim 128, 128 experts,
  // 8 per token, expert MLP 768, vocab 151936, untied; every layer routed.
  arch_header q3("qwen3moe");
  q3.u32("context_length", 40960).u32("embedding_length", 2048).u32("block_count", 48);
  q3.u32("feed_forward_length", 6144).u32("attention.head_count", 32).u32("attention.head_count_kv", 4);
  q3.u32("attention.key_length", 128).u32("attention.value_length", 128);
  q3.u32("expert_count", 128).u32("expert_used_count", 8).u32("expert_feed_forward_length", 768);
  q3.embeddings(2048, 151936, false);
  for (int l = 0; l < 48; ++l) q3.tensor("blk." + std::to_string(l) + ".ffn_gate_inp.weight", {2048, 128});
  const auto m3 = q3.spec();
  check_against_record(m3, "qwen3-30b-a3b");
  CHECK(m3.moe.num_experts == 128);
  CHECK(m3.attention.qk_norm);

  // Qwen/Qwen1.5-MoE-A2.7B: 2048 hidden, 24 layers, 16 heads, 60 experts, 4 per token, expert MLP
  // 1408, a gated shared expert of 5632, vocab 151936, untied.
  arch_header q2("qwen2moe");
  q2.u32("context_length", 8192).u32("embedding_length", 2048).u32("block_count", 24);
  q2.u32("feed_forward_length", 5632).u32("attention.head_count", 16).u32("attention.head_count_kv", 16);
  q2.u32("expert_count", 60).u32("expert_used_count", 4).u32("expert_feed_forward_length", 1408);
  q2.u32("expert_shared_feed_forward_length", 5632);
  q2.embeddings(2048, 151936, false);
  for (int l = 0; l < 24; ++l) q2.tensor("blk." + std::to_string(l) + ".ffn_gate_inp.weight", {2048, 60});
  const auto m2 = q2.spec();
  check_against_record(m2, "qwen1.5-moe-a2.7b");
  CHECK(m2.moe.shared_intermediate_size == 5632);
  CHECK(m2.moe.shared_expert_gate);
  CHECK(m2.attention.qkv_bias);

  // Layers without a router are dense (mlp_only_layers): layer 0 here, at feed_forward_length.
  arch_header d("qwen3moe");
  d.u32("embedding_length", 256).u32("block_count", 2).u32("feed_forward_length", 512);
  d.u32("attention.head_count", 4).u32("expert_count", 4).u32("expert_used_count", 2);
  d.u32("expert_feed_forward_length", 64).u32("vocab_size", 1000);
  d.tensor("blk.1.ffn_gate_inp.weight", {256, 4});
  const auto md = d.spec();
  REQUIRE(md.groups.size() == 2);
  CHECK(md.groups[md.layer_group_of[0]].moe == false);
  CHECK(md.groups[md.layer_group_of[1]].moe == true);
  CHECK(md.mlp.intermediate_size == 512);
  // ... and a dense layer needs feed_forward_length: the error names the GGUF key.
  arch_header e("qwen3moe");
  e.u32("embedding_length", 256).u32("block_count", 2).u32("attention.head_count", 4);
  e.u32("expert_count", 4).u32("expert_used_count", 2).u32("expert_feed_forward_length", 64).u32("vocab_size", 1000);
  e.tensor("blk.1.ffn_gate_inp.weight", {256, 4});
  const auto err = error_of([&] { (void)e.spec(); });
  CHECK(err.code() == flopcast::error_code::config_missing);
  CHECK(err.pointer() == "/metadata/qwen3moe.feed_forward_length");
}

TEST_CASE("GGUF: deepseek2 (MLA) in both key layouts, and DeepSeek-V3 from its router bias") {
  // deepseek-ai/DeepSeek-V2-Lite: 2048 hidden, 27 layers, 16 heads, kv_lora_rank 512, no q LoRA,
  // qk_nope 128 + qk_rope 64, v_head_dim 128, 64 routed experts (6 per token, MLP 1408), 2 shared,
  // first layer dense (MLP 10944), vocab 102400, untied.
  const auto lite = [](bool mla_keys) {
    arch_header h("deepseek2");
    h.u32("context_length", 163840).u32("embedding_length", 2048).u32("block_count", 27);
    h.u32("feed_forward_length", 10944).u32("attention.head_count", 16);
    h.u32("attention.kv_lora_rank", 512).u32("rope.dimension_count", 64);
    if (mla_keys) {  // llama.cpp since 2025: MQA over the latent, per-head sizes in *_mla
      h.u32("attention.head_count_kv", 1).u32("attention.key_length", 512 + 64).u32("attention.value_length", 512);
      h.u32("attention.key_length_mla", 192).u32("attention.value_length_mla", 128);
    } else {
      h.u32("attention.head_count_kv", 16).u32("attention.key_length", 192).u32("attention.value_length", 128);
    }
    h.u32("expert_count", 64).u32("expert_used_count", 6).u32("expert_feed_forward_length", 1408);
    h.u32("expert_shared_count", 2).u32("leading_dense_block_count", 1).u32("vocab_size", 102400);
    h.u32("expert_gating_func", 1);  // softmax
    h.embeddings(2048, 102400, false);
    return h.spec();
  };
  for (bool mla_keys : {false, true}) {
    INFO(mla_keys);
    const auto m = lite(mla_keys);
    check_against_record(m, "deepseek-v2-lite");
    CHECK(m.attention.mla);
    CHECK(m.attention.qk_nope_head_dim == 128);
    CHECK(m.attention.v_head_dim == 128);
    CHECK(m.attention.q_lora_rank == 0);
    CHECK_FALSE(m.moe.router_bias);
  }

  // deepseek-ai/DeepSeek-V3: 7168 hidden, 61 layers, 128 heads, q_lora_rank 1536, 256 routed
  // experts (8 per token, MLP 2048), 1 shared, 3 dense layers (MLP 18432), vocab 129280; the router's
  // e_score_correction_bias is blk.<i>.exp_probs_b.bias.
  arch_header v3("deepseek2");
  v3.u32("context_length", 163840).u32("embedding_length", 7168).u32("block_count", 61);
  v3.u32("feed_forward_length", 18432).u32("attention.head_count", 128).u32("attention.head_count_kv", 1);
  v3.u32("attention.q_lora_rank", 1536).u32("attention.kv_lora_rank", 512).u32("rope.dimension_count", 64);
  v3.u32("attention.key_length", 576).u32("attention.value_length", 512);
  v3.u32("attention.key_length_mla", 192).u32("attention.value_length_mla", 128);
  v3.u32("expert_count", 256).u32("expert_used_count", 8).u32("expert_feed_forward_length", 2048);
  v3.u32("expert_shared_count", 1).u32("leading_dense_block_count", 3).u32("vocab_size", 129280);
  v3.embeddings(7168, 129280, false);
  for (int l = 3; l < 61; ++l) v3.tensor("blk." + std::to_string(l) + ".exp_probs_b.bias", {256});
  const auto m = v3.spec();
  check_against_record(m, "deepseek-v3");
  CHECK(m.model_type == "deepseek_v3");
  CHECK(m.moe.router_bias);
  CHECK(m.attention.q_lora_rank == 1536);

  // A key_length_mla not above the rope dims: the config reader's error names the GGUF key.
  arch_header bad("deepseek2");
  bad.u32("embedding_length", 256).u32("block_count", 1).u32("feed_forward_length", 512);
  bad.u32("attention.head_count", 4).u32("attention.kv_lora_rank", 64).u32("rope.dimension_count", 32);
  bad.u32("attention.key_length_mla", 32).u32("attention.value_length_mla", 64).u32("vocab_size", 100);
  const auto e = error_of([&] { (void)bad.spec(); });
  CHECK(e.pointer() == "/metadata/deepseek2.attention.key_length_mla");
}

TEST_CASE("Checkpoint summary: the mix, exact weight bytes and the JSON the page reads") {
  gguf_writer w = tiny_llama();
  w.u32("general.file_type", 15);  // LLAMA_FTYPE_MOSTLY_Q4_K_M
  const std::string head = w.bytes();
  const auto c = flopcast::read_gguf(head);
  CHECK(flopcast::checkpoint_mix(c) == "Q4_K_M");
  CHECK(flopcast::checkpoint_weight_bytes(c) == c.total_bytes);
  CHECK_THAT(flopcast::checkpoint_weight_source(c, "m.gguf"),
             Catch::StartsWith("exact bytes from m.gguf (Q4_K_M mix: "));
  // Without general.file_type: the types by bytes.
  CHECK(flopcast::checkpoint_mix(flopcast::read_gguf(tiny_llama().bytes())) == "Q4_K + Q6_K + F32");

  const auto j = nlohmann::json::parse(flopcast::inspect_checkpoint_json(head, -1));
  CHECK(j.at("format") == "gguf");
  CHECK(j.at("total_bytes") == c.total_bytes);
  CHECK(j.at("weight_bytes") == c.total_bytes);
  CHECK(j.at("mix") == "Q4_K_M");
  CHECK(j.at("config").at("model_type") == "llama");
  CHECK(j.at("config_source") == "gguf");
  CHECK(j.at("architecture_check").at("matches") == true);
  CHECK(j.at("by_dtype").size() == 3);
  CHECK(j.at("architecture_error").is_null());
  // An unmapped architecture: a summary, no config, and why.
  gguf_writer x;
  x.string("general.architecture", "xyz");
  x.tensor("a.weight", {64}, F32, 256);
  const auto jx = nlohmann::json::parse(flopcast::inspect_checkpoint_json(x.bytes()));
  CHECK(jx.at("config").is_null());
  CHECK(jx.at("architecture_check").is_null());
  CHECK_THAT(jx.at("architecture_error").get<std::string>(), Catch::Contains("\"xyz\" is not supported"));
  CHECK(jx.at("total_bytes") == 256);
  // A bad header throws.
  CHECK(error_of([&] { (void)flopcast::inspect_checkpoint_json(head.substr(0, 40)); }).code() ==
        flopcast::error_code::config_parse);
  CHECK_THAT(error_of([&] { (void)flopcast::inspect_checkpoint_json(R"({"weight_map": {}})"); }).message(),
             Catch::Contains("only lists shards"));
}

TEST_CASE("weight_bytes replaces parameters x bytes per weight in memory and traffic") {
  const std::string base = R"({"model": "llama-3-8b", "gpu": "H100", "precision": "bf16")";
  const auto plain = nlohmann::json::parse(flopcast::estimate_json(base + "}"));
  const double params = plain.at("parameters").get<double>();
  const double exact = 4.9e9;  // e.g. a Q4_K_M file of it
  const auto q = nlohmann::json::parse(flopcast::estimate_json(base + R"(, "weight_bytes": 4.9e9})"));
  CHECK(q.at("details").at("memory").at("weights").get<double>() == exact);
  CHECK(plain.at("details").at("memory").at("weights").get<double>() == params * 2);
  CHECK(q.at("details").at("settings").at("weight_bytes").get<double>() == exact);
  CHECK(plain.at("details").at("settings").at("weight_bytes").is_null());
  // Decode at batch 1 is memory-bound: the step reads about exact / (2 x params) of the bytes.
  const double step_plain = plain.at("details").at("performance").at("decode_first_step_bytes").get<double>();
  const double step_q = q.at("details").at("performance").at("decode_first_step_bytes").get<double>();
  CHECK(step_q < step_plain * 0.5);
  CHECK(step_q > step_plain * 0.2);
  bool noted = false;
  for (const auto& n : q.at("note")) noted = noted || n.get<std::string>().find("weight_bytes") != std::string::npos;
  CHECK(noted);
  // Bounds, type, and one model only.
  for (const char* bad : {R"(, "weight_bytes": 0})", R"(, "weight_bytes": -1})", R"(, "weight_bytes": 1e17})",
                          R"(, "weight_bytes": "4GB"})"}) {
    INFO(bad);
    const auto e = error_of([&] { (void)flopcast::estimate_json(base + bad); });
    CHECK(e.pointer() == "/weight_bytes");
  }
  const auto e =
      error_of([&] { (void)flopcast::compare_json(R"({"model": ["llama-3-8b", "gpt2"], "weight_bytes": 1e9})"); });
  CHECK(e.pointer() == "/weight_bytes");
  CHECK(e.code() == flopcast::error_code::invalid_argument);
}
