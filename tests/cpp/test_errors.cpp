// Bad input: one error type, a stable code, the field's JSON pointer, what was expected.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::error;
using flopcast::error_code;

namespace {
std::string message_of(const test::json& config) {
  try {
    (void)flopcast::read_hf_config(config.dump());
  } catch (const error& e) {
    return e.what();
  }
  return "no error";
}
std::string request_error(const test::json& request) {
  try {
    (void)flopcast::estimate_json(request.dump());
  } catch (const error& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("config errors name the field and what was expected") {
  auto c = test::llama_config();
  c.erase("hidden_size");
  CHECK(
      message_of(c) ==
      "[flopcast.config.missing] (/hidden_size) required field is missing: expected a positive integer (at most 2^30)");
  c = test::llama_config();
  c["hidden_size"] = "4096";
  CHECK(message_of(c) ==
        "[flopcast.config.type] (/hidden_size) expected a positive integer (at most 2^30), but got string \"4096\"");
  c["hidden_size"] = 0;
  CHECK(message_of(c) ==
        "[flopcast.config.range] (/hidden_size) expected a positive integer (at most 2^30), but got 0");
  c["hidden_size"] = -5;
  CHECK(message_of(c) ==
        "[flopcast.config.range] (/hidden_size) expected a positive integer (at most 2^30), but got -5");
  c["hidden_size"] = 4096.5;
  CHECK(message_of(c) ==
        "[flopcast.config.type] (/hidden_size) expected a positive integer (at most 2^30), but got number 4096.5");
  c = test::llama_config(7);
  CHECK(message_of(c) ==
        "[flopcast.config.range] (/num_key_value_heads) expected a divisor of num_attention_heads (32), but got 7");
  c = test::llama_config();
  c["num_attention_heads"] = 30;
  c["num_key_value_heads"] = 30;
  CHECK(message_of(c) ==
        "[flopcast.config.range] (/num_attention_heads) expected a divisor of the hidden size 4096 (no head_dim "
        "given), but got 30");
  c = test::llama_config();
  c["tie_word_embeddings"] = "yes";
  CHECK(message_of(c) ==
        "[flopcast.config.type] (/tie_word_embeddings) expected true or false, but got string \"yes\"");
}

TEST_CASE("unsupported and missing model_type list the supported ones") {
  auto c = test::llama_config();
  c["model_type"] = "rwkv";
  const std::string msg = message_of(c);
  CHECK(msg.rfind("[flopcast.config.unsupported_model_type] (/model_type) unsupported model_type \"rwkv\": supported "
                  "are llama, mistral",
                  0) == 0);
  for (const char* t :
       {"llama",  "mistral", "mixtral",  "qwen2", "qwen2_moe", "qwen3",       "qwen3_moe",   "gemma", "gemma2",  "phi3",
        "falcon", "gpt2",    "gpt_neox", "opt",   "bloom",     "deepseek_v2", "deepseek_v3", "bert",  "roberta", "t5"})
    CHECK(msg.find(t) != std::string::npos);
  c.erase("model_type");
  CHECK(message_of(c).rfind("[flopcast.config.missing] (/model_type) required field is missing: expected one of llama",
                            0) == 0);
}

TEST_CASE("malformed JSON") {
  try {
    (void)flopcast::read_hf_config("{\"model_type\": \"llama\",");
    FAIL("no error");
  } catch (const error& e) {
    CHECK(e.code() == error_code::config_parse);
    CHECK(std::string(e.what()).rfind("[flopcast.config.parse] config.json is not valid JSON: ", 0) == 0);
  }
  CHECK_THROWS_AS(flopcast::read_hf_config("[1, 2]"), error);
}

TEST_CASE("MoE fields are checked") {
  test::json c = {{"model_type", "mixtral"},  {"hidden_size", 512},        {"num_hidden_layers", 2},
                  {"num_attention_heads", 8}, {"intermediate_size", 1024}, {"vocab_size", 1000},
                  {"num_local_experts", 4},   {"num_experts_per_tok", 5}};
  CHECK(message_of(c) ==
        "[flopcast.config.range] (/num_experts_per_tok) expected at most the number of experts (4), but got 5");
}

TEST_CASE("request errors name the request field") {
  CHECK(request_error({{"model", "llama-3-8b"}, {"batch_size", 0}}) ==
        "[flopcast.config.range] (/batch_size) expected a positive integer (at most 2^40), but got 0");
  CHECK(request_error({{"model", "llama-3-8b"}, {"batch_size", "8"}}) ==
        "[flopcast.config.type] (/batch_size) expected a positive integer (at most 2^40), but got string \"8\"");
  CHECK(request_error({{"model", "llama-3-8b"}, {"compute_efficiency", 1.5}}) ==
        "[flopcast.config.range] (/compute_efficiency) expected a number in (0, 1], but got 1.5");
  CHECK(
      request_error({{"model", "llama-3-8b"}, {"precision", "fp12"}})
          .rfind(
              "[flopcast.unknown_precision] (/precision) unknown precision \"fp12\": expected one of fp32, tf32, fp16, "
              "bf16, fp8, int8, int4, fp8_block, mxfp8, mxfp6, mxfp4, nvfp4, nf4, q8_0, ",
              0) == 0);
  // "H1000", not "A1000": the RTX A4000/A5000/A6000 aliases are as near to "A1000" as "A100" is.
  const std::string gpu = request_error({{"model", "llama-3-8b"}, {"gpu", "H1000"}});
  CHECK(gpu.rfind("[flopcast.unknown_gpu] (/gpu) unknown GPU \"H1000\": expected a GPU name or alias from the "
                  "accelerator database; did you mean ",
                  0) == 0);
  CHECK(gpu.find("\"H100\"") != std::string::npos);
  // The core's words are the same in every front end: no CLI commands or flags (the CLI adds those).
  CHECK(gpu.find("flopcast ") == std::string::npos);
  CHECK(gpu.find("--") == std::string::npos);
  const std::string model = request_error({{"model", "lama-3-8b"}});
  CHECK(model.rfind("[flopcast.unknown_model] (/model) unknown model \"lama-3-8b\": expected a registry model name or "
                    "alias; did you mean \"llama-3-8b\"",
                    0) == 0);
  CHECK(model.find("flopcast ") == std::string::npos);
  CHECK(model.find("--") == std::string::npos);
  CHECK(request_error({{"model", {{"model_type", "llama"}}}}) ==
        "[flopcast.config.missing] (/model/hidden_size) required field is missing: expected a positive integer (at "
        "most 2^30)");
  CHECK(request_error({{"model", "llama-3-8b"}, {"batchsize", 2}})
            .rfind("[flopcast.invalid_argument] (/batchsize) unknown request field", 0) == 0);
  CHECK(request_error({{"model", "llama-3-8b"}, {"training", true}, {"precision", "int4"}}) ==
        "[flopcast.invalid_argument] (/precision) training in int4 is not modelled: expected fp32, tf32, fp16, bf16, "
        "fp8, mxfp8, fp8_block or nvfp4 for training (weight-only formats train as QLoRA: --lora-rank with "
        "--base-precision)");
  CHECK(request_error({{"model", "llama-3-8b"}, {"gpu", {{"name", "X"}, {"memory_bytes", 1e9}}}}) ==
        "[flopcast.config.missing] (/gpu/memory_bandwidth_bytes_per_s) required field is missing: expected a positive "
        "number");
}

TEST_CASE("settings are validated by the core") {
  flopcast::settings s;
  s.num_generated_tokens = -1;
  CHECK_THROWS_WITH(
      flopcast::validate(s),
      "[flopcast.config.range] (/num_generated_tokens) expected a non-negative integer (at most 2^40), but got -1");
  s = {};
  s.mem_efficiency = 0;
  CHECK_THROWS_WITH(flopcast::validate(s),
                    "[flopcast.config.range] (/mem_efficiency) expected a number in (0, 1], but got 0");
}
