// Hostile headers and configs (issue 26, items 1 and 2): each reproducer is refused or answered
// correctly, and in time linear in its size. The caps on CPU seconds are generous (the quadratic
// readers took minutes or ran until memory ran out on these inputs); each test prints its
// measured figures.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "flopcast/checkpoint/checkpoint.hpp"
#include "flopcast/io/request_json.hpp"
#include "gguf_writer.hpp"
#include "helpers.hpp"

namespace {

using test::gguf_writer;
using test::json;

constexpr double k_cap_cpu_seconds = 15;

// Runs fn and returns the CPU seconds it took (the process's, so a loaded machine does not count);
// prints them with the wall seconds.
template <class F>
double seconds_of(const char* what, F&& fn) {
  const std::clock_t cpu0 = std::clock();
  const auto wall0 = std::chrono::steady_clock::now();
  fn();
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  WARN(what << ": " << cpu << " s CPU, " << wall << " s wall");
  return cpu;
}

using test::error_of;

constexpr std::uint32_t F32 = 0;

// A qwen3moe header (hidden 64, 4 heads, 2 KV heads, 4 experts of 64, dense MLP 128, vocab 256)
// with `blocks` blocks; the tensors are added by the caller.
gguf_writer qwen3moe(std::uint64_t blocks) {
  gguf_writer w;
  w.string("general.architecture", "qwen3moe");
  w.u64("qwen3moe.block_count", blocks);
  const std::pair<const char*, std::uint32_t> keys[] = {
      {"embedding_length", 64},     {"attention.head_count", 4}, {"attention.head_count_kv", 2},
      {"expert_count", 4},          {"expert_used_count", 2},    {"expert_feed_forward_length", 64},
      {"feed_forward_length", 128}, {"vocab_size", 256}};
  for (const auto& [key, value] : keys) w.u32(std::string("qwen3moe.") + key, value);
  return w;
}

}  // namespace

TEST_CASE("GGUF: a block_count of 2^40 is refused before any loop, naming the key", "[hostile]") {
  gguf_writer w = qwen3moe(std::uint64_t{1} << 40);
  w.tensor("token_embd.weight", {64, 256}, F32, 64 * 256 * 4);
  const std::string bytes = w.bytes();
  const flopcast::checkpoint_info c = flopcast::read_gguf(bytes);
  flopcast::error e(flopcast::error_code::io, "", "not set");
  std::string summary;
  const double cpu = seconds_of("block_count 2^40", [&] {
    e = error_of([&] { (void)flopcast::gguf_model_spec(c); });
    summary = flopcast::inspect_checkpoint_json(bytes);
  });
  CHECK(e.code() == flopcast::error_code::config_range);
  CHECK(e.pointer() == "/metadata/qwen3moe.block_count");
  CHECK(e.message() == "expected a positive integer (at most 2^16), but got 1099511627776");
  // The summary still reads the header, and says why the architecture was not compared.
  const json s = json::parse(summary);
  CHECK(s["tensor_count"] == 1);
  CHECK(s["architecture_check"].is_null());
  CHECK(s["architecture_error"].get<std::string>().find("/metadata/qwen3moe.block_count") != std::string::npos);
  CHECK(cpu < k_cap_cpu_seconds);
  // Just past the layer limit is refused the same way; the limit itself is not the problem.
  gguf_writer past = qwen3moe((std::uint64_t{1} << 16) + 1);
  past.tensor("token_embd.weight", {64, 256}, F32, 64 * 256 * 4);
  const auto e2 = error_of([&] { (void)flopcast::gguf_model_spec(flopcast::read_gguf(past.bytes())); });
  CHECK(e2.pointer() == "/metadata/qwen3moe.block_count");
  CHECK(e2.message() == "expected a positive integer (at most 2^16), but got 65537");
}

TEST_CASE("GGUF: 200k tensors are refused at /tensor_count before any is read", "[hostile]") {
  // The issue's 65,536 layers x 200k tensors (12.8 MB of header): past max_gguf_tensors (2^16), so
  // refused when the count is read, whatever follows it.
  constexpr std::int64_t layers = std::int64_t{1} << 16;
  constexpr std::int64_t tensors = 200000;
  gguf_writer w = qwen3moe(static_cast<std::uint64_t>(layers));
  for (std::int64_t i = 0; i < tensors; ++i)
    w.tensor("blk." + std::to_string(i % layers) + ".x_" + std::to_string(i) + ".weight", {8}, F32, 8 * 4);
  const std::string bytes = w.bytes();
  WARN("header: " << bytes.size() << " bytes");
  flopcast::error e(flopcast::error_code::io, "", "not set"), inspect(e);
  const double cpu = seconds_of("65,536 layers x 200k tensors (refused)", [&] {
    e = error_of([&] { (void)flopcast::read_gguf(bytes); });
    inspect = error_of([&] { (void)flopcast::inspect_checkpoint_json(bytes); });
  });
  CHECK(e.code() == flopcast::error_code::limit);
  CHECK(e.pointer() == "/tensor_count");
  CHECK(e.message() == "200000 tensors: expected at most 65536 (2^16)");
  CHECK(inspect.code() == e.code());
  CHECK(inspect.pointer() == e.pointer());
  CHECK(inspect.message() == e.message());
  CHECK(cpu < k_cap_cpu_seconds);
  // One tensor more than the limit is refused the same way.
  gguf_writer past = qwen3moe(1);
  for (std::int64_t i = 0; i <= layers; ++i) past.tensor("x_" + std::to_string(i) + ".weight", {8}, F32, 8 * 4);
  const auto e2 = error_of([&] { (void)flopcast::read_gguf(past.bytes()); });
  CHECK(e2.pointer() == "/tensor_count");
  CHECK(e2.message() == "65537 tensors: expected at most 65536 (2^16)");
}

TEST_CASE("GGUF: 65,536 layers x 65,536 tensors (the limit) is answered, with its dense layers from the routers",
          "[hostile]") {
  // Routers (blk.N.ffn_gate_inp.weight, [hidden 64, 4 experts]) on the even layers only: the odd
  // ones, 65,536 / 2 = 32,768 of them, are dense (mlp_only_layers). The other tensors fill the
  // header to max_gguf_tensors: 65,536 - 32,768 routers = 32,768 one-row F32 tensors.
  constexpr std::int64_t layers = std::int64_t{1} << 16;
  constexpr std::int64_t tensors = std::int64_t{1} << 16;
  static_assert(static_cast<std::uint64_t>(tensors) == flopcast::max_gguf_tensors);
  gguf_writer w = qwen3moe(static_cast<std::uint64_t>(layers));
  for (std::int64_t l = 0; l < layers; l += 2)
    w.tensor("blk." + std::to_string(l) + ".ffn_gate_inp.weight", {64, 4}, F32, 64 * 4 * 4);
  for (std::int64_t i = layers / 2; i < tensors; ++i)
    w.tensor("blk." + std::to_string(i % layers) + ".x_" + std::to_string(i) + ".weight", {8}, F32, 8 * 4);
  const std::string bytes = w.bytes();
  WARN("header: " << bytes.size() << " bytes");
  flopcast::model_spec m;
  std::string summary;
  const double cpu = seconds_of("65,536 layers x 65,536 tensors", [&] {
    const flopcast::checkpoint_info c = flopcast::read_gguf(bytes);
    m = flopcast::gguf_model_spec(c);
    summary = flopcast::inspect_checkpoint_json(bytes);
  });
  REQUIRE(m.layer_group_of.size() == static_cast<std::size_t>(layers));
  std::int64_t dense = 0, misplaced = 0;  // dense layers; layers routed where no router is, or not where one is
  for (std::size_t i = 0; i < m.layer_group_of.size(); ++i) {
    const bool moe = m.groups[m.layer_group_of[i]].moe;
    misplaced += moe != (i % 2 == 0) ? 1 : 0;
    dense += moe ? 0 : 1;
  }
  CHECK(dense == layers / 2);
  CHECK(misplaced == 0);
  CHECK(m.mlp.intermediate_size == 128);
  const json s = json::parse(summary);
  CHECK(s["tensor_count"] == tensors);
  CHECK(s["config"]["mlp_only_layers"].size() == static_cast<std::size_t>(layers / 2));
  CHECK(cpu < k_cap_cpu_seconds);
}

TEST_CASE("JSON: a config.json with 100k keys parses; duplicates, depth and unknown fields as before",
          "[hostile][json]") {
  // A small Llama (tests/cpp/helpers.hpp) and 100,000 keys no reader knows ("unused_key_N").
  json config = test::llama_config();
  for (int i = 0; i < 100000; ++i) config["unused_key_" + std::to_string(i)] = i;
  const std::string text = config.dump();
  flopcast::model_spec m;
  const double cpu = seconds_of("config.json with 100k keys", [&] { m = flopcast::read_hf_config(text); });
  CHECK(m.hidden_size == 4096);
  CHECK(m.layer_group_of.size() == 32);
  CHECK(cpu < k_cap_cpu_seconds);

  // The same text with its last key again is refused, naming the key (the hash of an object's
  // keys must see the first one among 100k).
  const std::string twice = text.substr(0, text.size() - 1) + R"(,"unused_key_99999":1})";
  const auto dup = error_of([&] { (void)flopcast::read_hf_config(twice); });
  CHECK(dup.code() == flopcast::error_code::config_parse);
  CHECK(std::string(dup.what())
            .find("config.json has the key \"unused_key_99999\" twice in one object: expected each key once") !=
        std::string::npos);
  // A key may repeat in different objects (each open object has its own keys).
  CHECK_NOTHROW(flopcast::parse_json_text(R"({"a": {"a": 1, "b": {"a": 2}}, "b": [{"a": 3}, {"a": 4}]})", "x"));

  // 128 levels are accepted, 129 are refused with the limit's code and message (the outermost
  // value is at depth 0, as nlohmann's callback parser counted).
  const auto nested = [](int levels) { return std::string(levels, '[') + std::string(levels, ']'); };
  CHECK(flopcast::parse_json_text(nested(128), "x").is_array());
  const auto deep = error_of([&] { (void)flopcast::parse_json_text(nested(129), "the request"); });
  CHECK(deep.code() == flopcast::error_code::limit);
  CHECK(deep.message() == "the request is nested deeper than 128 levels");
  // 100k levels (far past the limit) are refused as quickly.
  const double deep_cpu = seconds_of("100k nested arrays", [&] {
    CHECK(error_of([&] { (void)flopcast::parse_json_text(nested(100000), "x"); }).code() ==
          flopcast::error_code::limit);
  });
  CHECK(deep_cpu < k_cap_cpu_seconds);

  // A syntax error keeps nlohmann's line and column.
  const auto bad = error_of([&] { (void)flopcast::parse_json_text("{\n  \"a\": 1,\n}", "config.json"); });
  CHECK(bad.code() == flopcast::error_code::config_parse);
  CHECK(bad.message().rfind("config.json is not valid JSON: parse error at line 3, column 1: ", 0) == 0);

  // A request with 100k fields: the first unknown one (in key order) is reported, as for one.
  json request = {{"model", "gpt2"}, {"gpu", "H100"}};
  for (int i = 0; i < 100000; ++i) request["zz_unknown_" + std::to_string(i)] = i;
  flopcast::error unknown(flopcast::error_code::io, "", "not set");
  const double request_cpu = seconds_of("request with 100k unknown fields", [&] {
    unknown = error_of([&] { (void)flopcast::estimate_json(request.dump()); });
  });
  const json one = {{"model", "gpt2"}, {"gpu", "H100"}, {"zz_unknown_0", 0}};
  const auto single = error_of([&] { (void)flopcast::estimate_json(one.dump()); });
  CHECK(unknown.code() == single.code());
  CHECK(unknown.pointer() == single.pointer());
  CHECK(unknown.message() == single.message());
  CHECK(request_cpu < k_cap_cpu_seconds);
}

TEST_CASE("safetensors: a header with 150k tensors is read in linear time", "[hostile]") {
  // 150,000 one-element F32 tensors, each 4 bytes, tiling 600,000 bytes of data.
  constexpr int n = 150000;
  json header = json::object();
  for (int i = 0; i < n; ++i)
    header["model.layers." + std::to_string(i) + ".w"] = {
        {"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {4 * i, 4 * i + 4}}};
  const std::string text = header.dump();
  std::string bytes;
  for (int b = 0; b < 8; ++b) bytes += static_cast<char>((text.size() >> (8 * b)) & 0xff);
  bytes += text;
  const auto file_size = static_cast<std::int64_t>(bytes.size()) + 4 * n;
  flopcast::checkpoint_info c;
  std::string summary;
  const double cpu = seconds_of("safetensors header with 150k tensors", [&] {
    c = flopcast::read_safetensors(bytes, file_size);
    summary = flopcast::inspect_checkpoint_json(bytes, file_size);
  });
  CHECK(c.tensors.size() == static_cast<std::size_t>(n));
  CHECK(c.total_bytes == 4 * n);
  CHECK(c.total_elements == n);
  CHECK(json::parse(summary)["tensor_count"] == n);
  CHECK(cpu < k_cap_cpu_seconds);
}

TEST_CASE("safetensors: the streaming reader reports what the whole-header reader did", "[hostile][safetensors]") {
  // The header is read entry by entry without a DOM of it. The reader it replaced parsed the whole
  // header first (so JSON errors, a key twice and the depth limit come before any entry's error),
  // then read the entries in name order (a std::map), stopping at the first error.
  const auto le64 = [](std::size_t v) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
  };
  const auto bad = [&](const std::string& text) {
    return error_of([&] { (void)flopcast::read_safetensors(le64(text.size()) + text); });
  };
  const std::string bad_dtype = R"({"dtype":"Q4","shape":[2],"data_offsets":[0,2]})";
  const std::string bad_shape = R"({"dtype":"U8","shape":[-1],"data_offsets":[0,2]})";
  // Two bad entries: the one whose name sorts first is named, wherever it is in the text.
  auto e = bad(R"({"b":)" + bad_dtype + R"(,"a":)" + bad_shape + "}");
  CHECK(e.pointer() == "/tensors/a/shape/0");
  e = bad(R"({"a":)" + bad_shape + R"(,"b":)" + bad_dtype + "}");
  CHECK(e.pointer() == "/tensors/a/shape/0");
  // "__metadata__" sorts between upper- and lower-case names ('_' is 0x5F).
  e = bad(R"({"b":)" + bad_dtype + R"(,"__metadata__":{"k":1},"Z":)" + bad_shape + "}");
  CHECK(e.pointer() == "/tensors/Z/shape/0");
  e = bad(R"({"b":)" + bad_dtype + R"(,"__metadata__":{"k":1}})");
  CHECK(e.pointer() == "/__metadata__/k");
  CHECK(e.message() == "expected a string, but got number 1");
  // A bad entry, then invalid JSON, a key twice or nesting past 128: those are reported.
  e = bad(R"({"a":)" + bad_shape + R"(,"b":})");
  CHECK(e.code() == flopcast::error_code::config_parse);
  CHECK(e.pointer().empty());
  CHECK_THAT(e.message(), Catch::StartsWith("the safetensors header is not valid JSON: "));
  e = bad(R"({"a":)" + bad_shape + R"(,"c":1,"c":2})");
  CHECK(e.message() == "the safetensors header has the key \"c\" twice in one object: expected each key once");
  e = bad(R"({"a":)" + bad_shape + R"(,"c":{"x":1,"x":[}})");
  CHECK(e.message() == "the safetensors header has the key \"x\" twice in one object: expected each key once");
  // Depth: the header object is level 0, so 127 arrays inside an entry are accepted by the JSON
  // limit (the entry is then refused as not a tensor) and 128 are not.
  e = bad(R"({"a":)" + std::string(127, '[') + std::string(127, ']') + "}");
  CHECK(e.pointer() == "/tensors/a");
  e = bad(R"({"a":)" + bad_shape + R"(,"b":)" + std::string(128, '[') + std::string(128, ']') + "}");
  CHECK(e.code() == flopcast::error_code::limit);
  CHECK(e.message() == "the safetensors header is nested deeper than 128 levels");
  // Zero-byte tensors at one offset keep name order among themselves: "a" (2 bytes at 0) sorts
  // before "b" (0 bytes at 0), so "b" is found to begin at 0 where 2 was expected (an overlap),
  // whichever comes first in the text.
  const std::string a = R"("a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]})";
  const std::string b = R"("b":{"dtype":"U8","shape":[0],"data_offsets":[0,0]})";
  for (const std::string& text : {"{" + a + "," + b + "}", "{" + b + "," + a + "}"}) {
    e = bad(text);
    CHECK(e.pointer() == "/tensors/b/data_offsets");
    CHECK(e.message() ==
          "expected the tensor to begin at byte 2 of the data (where the previous one ends), but it begins at 0 "
          "(overlap)");
  }
  // And the reader that works: metadata by key, tensors by offset, then name.
  const std::string ok = R"({"__metadata__":{"z":"1","a":"2"},"c":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                         R"("b":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}})";
  const flopcast::checkpoint_info c = flopcast::read_safetensors(le64(ok.size()) + ok);
  REQUIRE(c.tensors.size() == 2);
  CHECK(c.tensors[0].name == "b");
  CHECK(c.tensors[1].name == "c");
  CHECK(c.tensors[1].shape == std::vector<std::int64_t>{1});
  CHECK(c.tensors[1].dtype == "F32");
  CHECK(c.tensors[1].bytes == 4);
  REQUIRE(c.metadata.size() == 2);
  CHECK(c.metadata[0].key == "a");
  CHECK(c.metadata[1].text == "1");
}
