// The safetensors header reader (flopcast/checkpoint.hpp): a 2-layer Llama-style header written
// here, its exact counts and bytes, the comparison with the architecture count, and the errors.
#include <catch2/catch.hpp>

#include "flopcast/checkpoint/checkpoint.hpp"
#include "helpers.hpp"

namespace {

using json = nlohmann::json;

struct st_tensor {
  std::string name, dtype;
  std::vector<std::int64_t> shape;
};

std::int64_t dtype_bytes(const std::string& dt) {
  if (dt == "F32" || dt == "I32") return 4;
  if (dt == "BF16" || dt == "F16") return 2;
  if (dt == "F64" || dt == "I64") return 8;
  return 1;
}

std::string le64(std::uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// A safetensors header (8-byte length + JSON) for `tensors`, laid out in order.
std::string safetensors_header(const std::vector<st_tensor>& tensors, json extra = json::object()) {
  json h = std::move(extra);
  std::int64_t at = 0;
  for (const st_tensor& t : tensors) {
    std::int64_t n = dtype_bytes(t.dtype);
    for (std::int64_t d : t.shape) n *= d;
    h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {at, at + n}}};
    at += n;
  }
  h["__metadata__"] = {{"format", "pt"}};
  std::string text = h.dump();
  while (text.size() % 8 != 0) text += ' ';  // the reference writer pads with spaces
  return le64(text.size()) + text;
}

// A 2-layer Llama (hidden 64, 4 heads, 2 KV heads, MLP 128, vocab 256, untied head).
json tiny_llama_config() {
  return {{"model_type", "llama"},    {"hidden_size", 64},           {"num_hidden_layers", 2},
          {"num_attention_heads", 4}, {"num_key_value_heads", 2},    {"intermediate_size", 128},
          {"vocab_size", 256},        {"tie_word_embeddings", false}};
}

std::vector<st_tensor> tiny_llama_tensors() {
  std::vector<st_tensor> t = {{"model.embed_tokens.weight", "BF16", {256, 64}}};
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    t.push_back({p + "input_layernorm.weight", "BF16", {64}});
    t.push_back({p + "self_attn.q_proj.weight", "BF16", {64, 64}});
    t.push_back({p + "self_attn.k_proj.weight", "BF16", {32, 64}});
    t.push_back({p + "self_attn.v_proj.weight", "BF16", {32, 64}});
    t.push_back({p + "self_attn.o_proj.weight", "BF16", {64, 64}});
    t.push_back({p + "post_attention_layernorm.weight", "BF16", {64}});
    t.push_back({p + "mlp.gate_proj.weight", "BF16", {128, 64}});
    t.push_back({p + "mlp.up_proj.weight", "BF16", {128, 64}});
    t.push_back({p + "mlp.down_proj.weight", "BF16", {64, 128}});
  }
  t.push_back({"model.norm.weight", "BF16", {64}});
  t.push_back({"lm_head.weight", "BF16", {256, 64}});
  return t;
}

using test::error_of;

}  // namespace

TEST_CASE("safetensors: a 2-layer Llama header gives exact counts, bytes and components") {
  const std::string head = safetensors_header(tiny_llama_tensors());
  REQUIRE(flopcast::detect_checkpoint_format(head) == flopcast::checkpoint_format::safetensors);
  REQUIRE(flopcast::checkpoint_header_bytes(head.substr(0, 8)) == head.size());
  REQUIRE(flopcast::checkpoint_header_bytes(head.substr(0, 3)) == 8);
  const flopcast::checkpoint_info c = flopcast::read_safetensors(head);
  REQUIRE(c.tensors.size() == 21);
  const std::int64_t per_layer = 64 + 64 * 64 + 2 * 32 * 64 + 64 * 64 + 64 + 3 * 128 * 64;
  const std::int64_t elements = 2 * 256 * 64 + 2 * per_layer + 64;
  CHECK(c.total_elements == elements);
  CHECK(c.total_bytes == 2 * elements);
  CHECK(c.bits_per_weight() == 16.0);
  CHECK(c.header_bytes == static_cast<std::int64_t>(head.size()));
  REQUIRE(c.by_dtype.size() == 1);
  CHECK(c.by_dtype[0].name == "BF16");
  CHECK(c.metadata.size() == 1);
  CHECK(c.tensors.front().name == "model.embed_tokens.weight");  // data order
  CHECK(c.tensors.front().offset == 0);
  const auto component = [&](const std::string& name) {
    for (const auto& t : c.by_component)
      if (t.name == name) return t.elements;
    return std::int64_t{0};
  };
  CHECK(component("embedding") == 256 * 64);
  CHECK(component("lm_head") == 256 * 64);
  CHECK(component("attention_q") == 2 * 64 * 64);
  CHECK(component("attention_k") == 2 * 32 * 64);
  CHECK(component("attention_v") == 2 * 32 * 64);
  CHECK(component("attention_o") == 2 * 64 * 64);
  CHECK(component("mlp") == 2 * 3 * 128 * 64);
  CHECK(component("norm") == 5 * 64);

  // The architecture count of the matching config is the checkpoint's element count.
  const flopcast::model_spec m = test::spec(tiny_llama_config());
  const flopcast::checkpoint_comparison k = flopcast::compare_checkpoint(c, m);
  CHECK(k.matches());
  CHECK(k.architecture_parameters == elements);
  CHECK(k.unaccounted.empty());
  for (const auto& r : k.rows) CHECK(r.checkpoint == r.architecture);
}

TEST_CASE("safetensors: tensors the architecture model does not have are named") {
  auto t = tiny_llama_tensors();
  t.push_back({"model.layers.0.self_attn.rotary_emb.inv_freq", "F32", {8}});
  const flopcast::checkpoint_info c = flopcast::read_safetensors(safetensors_header(t));
  const flopcast::checkpoint_comparison k = flopcast::compare_checkpoint(c, test::spec(tiny_llama_config()));
  CHECK_FALSE(k.matches());
  CHECK(k.checkpoint_elements - k.architecture_parameters == 8);
  REQUIRE(k.unaccounted == std::vector<std::string>{"model.layers.0.self_attn.rotary_emb.inv_freq"});
  // A tied config against an untied checkpoint: the head differs.
  json tied = tiny_llama_config();
  tied["tie_word_embeddings"] = true;
  const auto k2 = flopcast::compare_checkpoint(c, test::spec(tied));
  CHECK(k2.rows[4].component == "output_head");
  CHECK(k2.rows[4].checkpoint == 256 * 64);
  CHECK(k2.rows[4].architecture == 0);
}

TEST_CASE("safetensors: mixed dtypes, sub-byte F4 and names of other families") {
  const std::vector<st_tensor> t = {{"transformer.wte.weight", "F32", {10, 4}},
                                    {"transformer.h.0.attn.c_attn.weight", "F16", {4, 12}},
                                    {"transformer.h.0.mlp.c_fc.weight", "F8_E4M3", {4, 16}},
                                    {"model.layers.0.block_sparse_moe.experts.0.w1.weight", "I8", {2, 2}},
                                    {"model.layers.0.mlp.gate.weight", "BF16", {4, 4}},
                                    {"transformer.ln_f.weight", "F32", {4}}};
  const flopcast::checkpoint_info c = flopcast::read_safetensors(safetensors_header(t));
  CHECK(c.total_bytes == 160 + 96 + 64 + 4 + 32 + 16);
  REQUIRE(c.by_dtype.front().name == "F32");  // largest first
  CHECK(flopcast::classify_tensor("transformer.h.0.attn.c_attn.weight") == flopcast::tensor_component::attention_other);
  CHECK(flopcast::classify_tensor("transformer.h.0.attn.c_proj.weight") == flopcast::tensor_component::attention_o);
  CHECK(flopcast::classify_tensor("model.layers.0.mlp.gate.weight") == flopcast::tensor_component::experts);
  CHECK(flopcast::classify_tensor("model.layers.3.mlp.experts.7.down_proj.weight") ==
        flopcast::tensor_component::experts);
  CHECK(flopcast::classify_tensor("model.layers.3.self_attn.kv_a_proj_with_mqa.weight") ==
        flopcast::tensor_component::attention_other);
  CHECK(flopcast::classify_tensor("model.layers.3.self_attn.kv_a_layernorm.weight") ==
        flopcast::tensor_component::norm);
  CHECK(flopcast::classify_tensor("transformer.h.0.attn.bias") == flopcast::tensor_component::other);

  // F4: two elements per byte; an odd count is not a whole number of bytes.
  std::string text = R"({"w":{"dtype":"F4","shape":[2,3],"data_offsets":[0,3]}})";
  CHECK(flopcast::read_safetensors(le64(text.size()) + text).total_bytes == 3);
  text = R"({"w":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})";
  CHECK(error_of([&] { (void)flopcast::read_safetensors(le64(text.size()) + text); }).pointer() == "/tensors/w/shape");
}

TEST_CASE("safetensors: the file's size must match the data section") {
  const std::string head = safetensors_header(tiny_llama_tensors());
  const flopcast::checkpoint_info c = flopcast::read_safetensors(head);
  const std::int64_t size = c.data_start + c.total_bytes;
  CHECK(flopcast::read_safetensors(head, size).total_bytes == c.total_bytes);
  const auto e = error_of([&] { (void)flopcast::read_safetensors(head, size + 1); });
  CHECK(e.pointer() == "/tensors");
  CHECK(error_of([&] { (void)flopcast::read_safetensors(head, 20); }).pointer() == "/header_length");
}

TEST_CASE("safetensors: errors name the field") {
  using flopcast::error_code;
  const auto bad = [](const std::string& text) {
    return error_of([&] { (void)flopcast::read_safetensors(le64(text.size()) + text); });
  };
  // Truncated: fewer than 8 bytes, and fewer than N after them.
  auto e = error_of([] { (void)flopcast::read_safetensors("\x10\0\0"); });
  CHECK(e.code() == error_code::config_parse);
  const std::string head = safetensors_header(tiny_llama_tensors());
  e = error_of([&] { (void)flopcast::read_safetensors(head.substr(0, head.size() - 1)); });
  CHECK(e.code() == error_code::config_parse);
  CHECK_THAT(e.message(), Catch::Contains("truncated"));
  // A header length beyond 16 MiB.
  e = error_of([] { (void)flopcast::read_safetensors(le64(std::uint64_t{1} << 40) + "{}"); });
  CHECK(e.code() == error_code::limit);
  CHECK_THROWS_AS(flopcast::checkpoint_header_bytes(le64(std::uint64_t{17} << 20)), flopcast::error);

  e = bad(R"({"model.layers.0.self_attn.q_proj.weight":{"dtype":"BF16","shape":[2,-1],"data_offsets":[0,0]}})");
  CHECK(e.pointer() == "/tensors/model.layers.0.self_attn.q_proj.weight/shape/1");
  e = bad(R"({"w":{"dtype":"BF16","shape":[4294967296,4294967296,4],"data_offsets":[0,0]}})");
  CHECK(e.code() == error_code::limit);
  CHECK(e.pointer() == "/tensors/w/shape");
  e = bad(R"({"w":{"dtype":"Q4","shape":[2],"data_offsets":[0,1]}})");
  CHECK(e.pointer() == "/tensors/w/dtype");
  CHECK_THAT(e.message(), Catch::Contains("BF16"));
  e = bad(R"({"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,5]}})");
  CHECK(e.pointer() == "/tensors/w/data_offsets");
  CHECK_THAT(e.message(), Catch::Contains("expected 4 bytes"));
  e = bad(R"({"w":{"dtype":"BF16","shape":[2],"data_offsets":[4,0]}})");
  CHECK(e.pointer() == "/tensors/w/data_offsets");
  e = bad(R"({"w":{"dtype":"BF16","shape":[2]}})");
  CHECK(e.code() == error_code::config_missing);
  CHECK(e.pointer() == "/tensors/w/data_offsets");
  // A gap and an overlap between tensors.
  e = bad(
      R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[3,5]}})");
  CHECK(e.pointer() == "/tensors/b/data_offsets");
  CHECK_THAT(e.message(), Catch::Contains("gap"));
  e = bad(
      R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})");
  CHECK_THAT(e.message(), Catch::Contains("overlap"));
  e = bad(R"({"__metadata__":{"a":1}})");
  CHECK(e.pointer() == "/__metadata__/a");
  e = bad(R"({"a/b":[]})");
  CHECK(e.pointer() == "/tensors/a~1b");
  e = bad(R"({"a":1,"a":2})");
  CHECK(e.code() == error_code::config_parse);
  e = bad("[1]");
  CHECK(e.code() == error_code::config_parse);
}

TEST_CASE("safetensors index: weight_map and total_size, combined with shard headers") {
  json wm = json::object();
  const auto all = tiny_llama_tensors();
  std::vector<st_tensor> first(all.begin(), all.begin() + 10), second(all.begin() + 10, all.end());
  for (const auto& t : first) wm[t.name] = "model-00001-of-00002.safetensors";
  for (const auto& t : second) wm[t.name] = "model-00002-of-00002.safetensors";
  const flopcast::checkpoint_info a = flopcast::read_safetensors(safetensors_header(first));
  const flopcast::checkpoint_info b = flopcast::read_safetensors(safetensors_header(second));
  const json index = {{"metadata", {{"total_size", a.total_bytes + b.total_bytes}}}, {"weight_map", wm}};
  REQUIRE(flopcast::detect_checkpoint_format(index.dump()) == flopcast::checkpoint_format::safetensors_index);
  const flopcast::safetensors_index x = flopcast::read_safetensors_index(index.dump());
  CHECK(x.total_size == a.total_bytes + b.total_bytes);
  CHECK(x.shards.size() == 2);
  CHECK(x.weight_map.size() == 21);

  const auto c = flopcast::combine_safetensors(x, {{x.shards[0], a}, {x.shards[1], b}});
  CHECK(c.notes.empty());
  CHECK(c.tensors.size() == 21);
  CHECK(c.total_bytes == x.total_size);
  CHECK(flopcast::compare_checkpoint(c, test::spec(tiny_llama_config())).matches());

  // One shard missing: noted, and its tensors are listed by name only.
  const auto partial = flopcast::combine_safetensors(x, {{x.shards[0], a}});
  REQUIRE(partial.notes.size() == 1);
  CHECK_THAT(partial.notes[0], Catch::Contains("was not read"));
  CHECK(partial.tensors.size() == 21);

  CHECK(error_of([] {
          (void)flopcast::read_safetensors_index(R"({"weight_map":{"w":"../x.safetensors"}})");
        }).pointer() == "/weight_map/w");
  CHECK(error_of([] { (void)flopcast::read_safetensors_index(R"({"metadata":{}})"); }).pointer() == "/weight_map");
}
