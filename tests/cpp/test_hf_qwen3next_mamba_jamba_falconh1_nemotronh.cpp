// Hybrid and state-space families (core/src/model/hf_qwen3next_mamba_jamba_falconh1_nemotronh.cpp):
// Qwen3-Next, Qwen3.5, Mamba, Falcon-Mamba, Mamba-2, Jamba, Falcon-H1, Nemotron-H. Expected counts are written out from
// each family's transformers modeling code (modeling_qwen3_next.py, modeling_mamba.py, modeling_mamba2.py,
// modeling_jamba.py, modeling_falcon_h1.py, modeling_nemotron_h.py) at the sizes of a published
// checkpoint, and compared with the published total where one exists.
#include <catch2/catch.hpp>
#include <cmath>

#include "helpers.hpp"

using flopcast::count_parameters;
using flopcast::mixer_kind;
using test::json;

namespace {

// Rounds to `digits` significant digits, as the model records compare published counts.
double round_to(double v, int digits) {
  const double unit = std::pow(10.0, static_cast<int>(std::floor(std::log10(v))) + 1 - digits);
  return std::round(v / unit) * unit;
}

int count_mixer(const flopcast::model_spec& s, mixer_kind k) {
  int n = 0;
  for (auto g : s.layer_group_of) n += s.groups[g].mixer == k ? 1 : 0;
  return n;
}

// Qwen/Qwen3-Next-80B-A3B-Instruct config.json (the fields that size the model).
json qwen3_next_config() {
  return {{"model_type", "qwen3_next"},
          {"hidden_size", 2048},
          {"num_hidden_layers", 48},
          {"num_attention_heads", 16},
          {"num_key_value_heads", 2},
          {"head_dim", 256},
          {"intermediate_size", 5120},
          {"vocab_size", 151936},
          {"full_attention_interval", 4},
          {"linear_conv_kernel_dim", 4},
          {"linear_key_head_dim", 128},
          {"linear_num_key_heads", 16},
          {"linear_num_value_heads", 32},
          {"linear_value_head_dim", 128},
          {"num_experts", 512},
          {"num_experts_per_tok", 10},
          {"moe_intermediate_size", 512},
          {"shared_expert_intermediate_size", 512},
          {"decoder_sparse_step", 1},
          {"mlp_only_layers", json::array()},
          {"partial_rotary_factor", 0.25},
          {"attention_bias", false},
          {"tie_word_embeddings", false}};
}

// nvidia/Nemotron-H-8B-Base-8K config.json (the fields that size the model).
json nemotron_h_8b_config() {
  return {{"model_type", "nemotron_h"},
          {"hidden_size", 4096},
          {"num_hidden_layers", 52},
          {"hybrid_override_pattern", "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-"},
          {"num_attention_heads", 32},
          {"num_key_value_heads", 8},
          {"attention_head_dim", 128},
          {"intermediate_size", 21504},
          {"mamba_num_heads", 128},
          {"mamba_head_dim", 64},
          {"n_groups", 8},
          {"ssm_state_size", 128},
          {"conv_kernel", 4},
          {"expand", 2},
          {"use_conv_bias", true},
          {"use_bias", false},
          {"mlp_bias", false},
          {"attention_bias", false},
          {"mlp_hidden_act", "relu2"},
          {"vocab_size", 131072},
          {"tie_word_embeddings", false}};
}

// One Mamba-2 mixer (Mamba2Mixer / NemotronHMamba2Mixer / FalconH1Mixer): in_proj h -> inner
// (gate z) + conv_dim (x, B, C) + heads (dt), conv1d over conv_dim (+ bias), dt_bias, A_log and D
// per head, the gated RMSNorm of inner (when present), out_proj inner -> h.
std::int64_t mamba2_mixer(std::int64_t h, std::int64_t inner, std::int64_t groups, std::int64_t state,
                          std::int64_t heads, std::int64_t conv, bool conv_bias, bool gated_norm) {
  const std::int64_t conv_dim = inner + 2 * groups * state;
  return h * (inner + conv_dim + heads) + conv_dim * conv + (conv_bias ? conv_dim : 0) + 3 * heads +
         (gated_norm ? inner : 0) + inner * h;
}

// One Mamba-1 mixer (MambaMixer / JambaMambaMixer): in_proj h -> 2 inner, conv1d (+ bias),
// x_proj inner -> dt_rank + 2 state, dt_proj dt_rank -> inner with bias, A_log inner x state,
// D inner, out_proj inner -> h; Jamba adds RMSNorms of dt_rank, state and state.
std::int64_t mamba1_mixer(std::int64_t h, std::int64_t inner, std::int64_t state, std::int64_t rank, std::int64_t conv,
                          bool dt_bc_norms) {
  return h * 2 * inner + inner * conv + inner + inner * (rank + 2 * state) + rank * inner + inner + inner * state +
         inner + inner * h + (dt_bc_norms ? rank + 2 * state : 0);
}

}  // namespace

TEST_CASE("qwen3_next: every fourth layer gated attention and the rest Gated DeltaNet") {
  const auto s = test::spec(qwen3_next_config());
  REQUIRE(s.num_layers == 48);
  CHECK(count_mixer(s, mixer_kind::attention) == 12);
  CHECK(count_mixer(s, mixer_kind::linear_attention) == 36);
  for (std::size_t i = 0; i < 48; ++i)
    CHECK(s.groups[s.layer_group_of[i]].mixer ==
          ((i + 1) % 4 == 0 ? mixer_kind::attention : mixer_kind::linear_attention));
  for (const auto& g : s.groups) CHECK(g.moe);
  CHECK(s.attention.output_gate);
  CHECK(s.attention.qk_norm);
  CHECK(s.attention.head_dim == 256);
  CHECK(s.attention.rotary_dim == 64);  // partial_rotary_factor 0.25
  CHECK(s.linear.num_key_heads == 16);
  CHECK(s.linear.num_value_heads == 32);
  CHECK(s.linear.key_head_dim == 128);
  CHECK(s.linear.value_head_dim == 128);
  CHECK(s.linear.conv_kernel == 4);
  CHECK(s.moe.shared_expert_gate);
  CHECK(s.moe.shared_intermediate_size == 512);
}

TEST_CASE("qwen3_next: parameter count of Qwen3-Next-80B-A3B") {
  const auto p = count_parameters(test::spec(qwen3_next_config()));
  const std::int64_t h = 2048;
  // Gated attention: q_proj h -> 16 x 256 x 2 (query and gate), k/v h -> 2 x 256, o_proj, q/k norms.
  const std::int64_t attn = h * 16 * 256 * 2 + 2 * h * 2 * 256 + 16 * 256 * h + 2 * 256;
  // Gated DeltaNet: key_dim 16 x 128, value_dim 32 x 128.
  const std::int64_t kd = 2048, vd = 4096;
  const std::int64_t gdn = h * (2 * kd + 2 * vd)  // in_proj_qkvz
                           + h * 2 * 32           // in_proj_ba
                           + (2 * kd + vd) * 4    // conv1d, no bias
                           + 32 + 32              // dt_bias, A_log
                           + 128                  // RMSNormGated(head_v_dim)
                           + vd * h;              // out_proj
  const std::int64_t expert = 3 * h * 512;
  const std::int64_t moe = h * 512 + 512 * expert + expert + h;  // router, experts, shared expert, its gate
  const std::int64_t moe_active = h * 512 + 10 * expert + expert + h;
  const std::int64_t norms = 2 * h;
  const std::int64_t head = 2 * 151936LL * h + h;  // embedding, untied lm_head, final norm
  CHECK(p.total == 12 * attn + 36 * gdn + 48 * (moe + norms) + head);
  CHECK(p.active == 12 * attn + 36 * gdn + 48 * (moe_active + norms) + head);
  // Published: "80B in total and 3B activated" (Qwen/Qwen3-Next-80B-A3B-Instruct model card). The
  // checkpoint's safetensors also hold the multi-token-prediction layer (mtp.*), which
  // transformers does not load and flopcast does not count.
  CHECK(round_to(static_cast<double>(p.total), 2) == 80e9);
  CHECK(p.active < 4e9);
}

TEST_CASE("qwen3_next: layer_types overrides full_attention_interval") {
  json c = qwen3_next_config();
  json kinds = json::array();
  for (int i = 0; i < 48; ++i) kinds.push_back(i % 2 == 0 ? "full_attention" : "linear_attention");
  c["layer_types"] = kinds;
  const auto s = test::spec(c);
  CHECK(count_mixer(s, mixer_kind::attention) == 24);
  CHECK(s.groups[s.layer_group_of[0]].mixer == mixer_kind::attention);
  c["layer_types"][5] = "sliding_attention";
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/layer_types/5)") && Catch::Contains("linear_attention"));
  c["layer_types"] = json::array({"full_attention"});
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/layer_types)") && Catch::Contains("48 entries"));
}

TEST_CASE("qwen3_next: bad fields name their JSON pointer") {
  json c = qwen3_next_config();
  c["full_attention_interval"] = 0;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/full_attention_interval)"));
  c = qwen3_next_config();
  c["linear_num_value_heads"] = 24;  // not a multiple of 16 key heads
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/linear_num_value_heads)"));
  c = qwen3_next_config();
  c.erase("linear_key_head_dim");
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/linear_key_head_dim)"));
  c = qwen3_next_config();
  c["num_experts_per_tok"] = 600;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_experts_per_tok)"));
}

TEST_CASE("qwen3_next: mlp_only_layers and decoder_sparse_step make dense layers") {
  json c = qwen3_next_config();
  c["mlp_only_layers"] = {0, 1};
  const auto s = test::spec(c);
  CHECK(!s.groups[s.layer_group_of[0]].moe);
  CHECK(!s.groups[s.layer_group_of[1]].moe);
  CHECK(s.groups[s.layer_group_of[2]].moe);
  CHECK(s.mlp.intermediate_size == 5120);
  const auto full = count_parameters(test::spec(qwen3_next_config()));
  const auto p = count_parameters(s);
  const std::int64_t h = 2048, expert = 3 * h * 512;
  CHECK(full.total - p.total == 2 * ((h * 512 + 513 * expert + h) - 3 * h * 5120));
}

TEST_CASE("qwen3_5_moe_text: the Qwen3.5 MoE wrapper reads its text_config") {
  // Qwen/Qwen3.5-397B-A17B's text sizes: 60 layers of hidden 4096, 512 experts (10 routed + 1
  // shared) of width 1024, 16 key and 64 value heads of 128 in the Gated DeltaNet.
  const json text = {{"model_type", "qwen3_5_moe_text"},
                     {"hidden_size", 4096},
                     {"num_hidden_layers", 60},
                     {"num_attention_heads", 32},
                     {"num_key_value_heads", 2},
                     {"head_dim", 256},
                     {"vocab_size", 248320},
                     {"layer_types",
                      [] {
                        json k = json::array();
                        for (int i = 0; i < 60; ++i) k.push_back(i % 4 == 3 ? "full_attention" : "linear_attention");
                        return k;
                      }()},
                     {"linear_conv_kernel_dim", 4},
                     {"linear_key_head_dim", 128},
                     {"linear_num_key_heads", 16},
                     {"linear_num_value_heads", 64},
                     {"linear_value_head_dim", 128},
                     {"num_experts", 512},
                     {"num_experts_per_tok", 10},
                     {"moe_intermediate_size", 1024},
                     {"shared_expert_intermediate_size", 1024},
                     {"rope_parameters", {{"rope_theta", 10000000}, {"partial_rotary_factor", 0.25}}},
                     {"tie_word_embeddings", false}};
  const json wrapper = {{"model_type", "qwen3_5_moe"},
                        {"architectures", {"Qwen3_5MoeForConditionalGeneration"}},
                        {"text_config", text},
                        {"vision_config", {{"depth", 27}, {"hidden_size", 1152}}}};
  const auto s = test::spec(wrapper);
  CHECK(s.model_type == "qwen3_5_moe_text");
  CHECK(count_mixer(s, mixer_kind::attention) == 15);
  CHECK(s.attention.rotary_dim == 64);  // from rope_parameters
  const auto p = count_parameters(s);
  const std::int64_t h = 4096, kd = 2048, vd = 8192, expert = 3 * h * 1024;
  const std::int64_t attn = h * 32 * 256 * 2 + 2 * h * 2 * 256 + 32 * 256 * h + 2 * 256;
  const std::int64_t gdn = h * (2 * kd + 2 * vd) + h * 2 * 64 + (2 * kd + vd) * 4 + 2 * 64 + 128 + vd * h;
  const std::int64_t moe = h * 512 + 512 * expert + expert + h;
  const std::int64_t moe_active = h * 512 + 10 * expert + expert + h;
  const std::int64_t rest = 60 * 2 * h + 2 * 248320LL * h + h;
  CHECK(p.total == 15 * attn + 45 * gdn + 60 * moe + rest);
  CHECK(p.active == 15 * attn + 45 * gdn + 60 * moe_active + rest);
  // Published "397B total, 17B activated" (model card) includes the vision encoder; the
  // language model alone is 396.3B here and its active count rounds to the published 17B.
  CHECK(round_to(static_cast<double>(p.active), 2) == 17e9);
  CHECK(p.total > 396e9);
  CHECK(p.total < 397e9);
}

TEST_CASE("qwen3_5_text: dense Qwen3.5 has a SwiGLU MLP on every layer") {
  const json c = {{"model_type", "qwen3_5_text"}, {"hidden_size", 1024},        {"num_hidden_layers", 8},
                  {"num_attention_heads", 8},     {"num_key_value_heads", 2},   {"head_dim", 256},
                  {"intermediate_size", 3584},    {"vocab_size", 1000},         {"full_attention_interval", 4},
                  {"linear_key_head_dim", 128},   {"linear_num_key_heads", 8},  {"linear_num_value_heads", 16},
                  {"linear_value_head_dim", 128}, {"tie_word_embeddings", true}};
  const auto s = test::spec(c);
  for (const auto& g : s.groups) CHECK(!g.moe);
  CHECK(count_mixer(s, mixer_kind::attention) == 2);
  const auto p = count_parameters(s);
  const std::int64_t h = 1024, kd = 1024, vd = 2048;
  const std::int64_t attn = h * 8 * 256 * 2 + 2 * h * 2 * 256 + 8 * 256 * h + 2 * 256;
  const std::int64_t gdn = h * (2 * kd + 2 * vd) + h * 2 * 16 + (2 * kd + vd) * 4 + 2 * 16 + 128 + vd * h;
  const std::int64_t mlp = 3 * h * 3584;
  CHECK(p.total == 2 * attn + 6 * gdn + 8 * (mlp + 2 * h) + 1000 * h + h);
  CHECK(p.total == p.active);
}

TEST_CASE("mamba: Mamba-1 blocks with one norm each and no attention or MLP") {
  // state-spaces/mamba-2.8b-hf config.json.
  json c = {{"model_type", "mamba"}, {"hidden_size", 2560}, {"num_hidden_layers", 64},   {"vocab_size", 50280},
            {"state_size", 16},      {"expand", 2},         {"intermediate_size", 5120}, {"conv_kernel", 4},
            {"time_step_rank", 160}, {"use_bias", false},   {"use_conv_bias", true}};
  const auto s = test::spec(c);
  REQUIRE(s.groups.size() == 1);
  CHECK(s.groups[0].mixer == mixer_kind::mamba);
  CHECK(!s.groups[0].mlp);
  CHECK(s.groups[0].norms == 1);
  CHECK(s.position == flopcast::position_kind::none);
  CHECK(s.tie_word_embeddings);
  CHECK(s.ssm.inner == 5120);
  CHECK(s.ssm.state_size == 16);
  CHECK(s.ssm.dt_rank == 160);
  CHECK(s.ssm.conv_kernel == 4);
  const auto p = count_parameters(s);
  const std::int64_t h = 2560;
  CHECK(p.total == 64 * (mamba1_mixer(h, 5120, 16, 160, 4, false) + h) + 50280LL * h + h);
  // Published: 2,768,345,600 parameters (Hub safetensors metadata of state-spaces/mamba-2.8b-hf).
  CHECK(p.total == 2768345600);
  CHECK(p.active == p.total);
  // "auto" dt rank is ceil(hidden / 16).
  c["time_step_rank"] = "auto";
  CHECK(test::spec(c).ssm.dt_rank == 160);
  c["time_step_rank"] = "big";
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/time_step_rank)"));
  c["time_step_rank"] = 160;
  c.erase("state_size");
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/state_size)"));
}

TEST_CASE("mamba: mamba-130m") {
  // state-spaces/mamba-130m-hf config.json sizes; published "130M" (model name), 129,135,360
  // parameters in the Hub's safetensors metadata.
  const json c = {{"model_type", "mamba"}, {"hidden_size", 768},   {"num_hidden_layers", 24},
                  {"vocab_size", 50280},   {"state_size", 16},     {"expand", 2},
                  {"conv_kernel", 4},      {"time_step_rank", 48}, {"use_conv_bias", true}};
  const auto p = count_parameters(test::spec(c));
  CHECK(p.total == 24 * (mamba1_mixer(768, 1536, 16, 48, 4, false) + 768) + 50280LL * 768 + 768);
  CHECK(p.total == 129135360);
}

TEST_CASE("falcon_mamba: weightless dt/B/C norms and an untied head") {
  // tiiuae/falcon-mamba-7b config.json sizes.
  const json c = {{"model_type", "falcon_mamba"},
                  {"hidden_size", 4096},
                  {"num_hidden_layers", 64},
                  {"vocab_size", 65024},
                  {"state_size", 16},
                  {"expand", 16},
                  {"intermediate_size", 8192},
                  {"conv_kernel", 4},
                  {"time_step_rank", 256},
                  {"use_bias", false},
                  {"use_conv_bias", true},
                  {"mixer_rms_eps", 1e-6},
                  {"tie_word_embeddings", false}};
  const auto s = test::spec(c);
  CHECK(s.ssm.inner == 8192);  // intermediate_size wins over expand
  CHECK(!s.tie_word_embeddings);
  const auto p = count_parameters(s);
  CHECK(p.total == 64 * (mamba1_mixer(4096, 8192, 16, 256, 4, false) + 4096) + 2 * 65024LL * 4096 + 4096);
  // Published: 7.27B parameters (tiiuae/falcon-mamba-7b model card / Hub metadata 7,272,665,088).
  CHECK(round_to(static_cast<double>(p.total), 3) == 7.27e9);
}

TEST_CASE("mamba2: Mamba-Codestral-7B") {
  // mistralai/Mamba-Codestral-7B-v0.1 config.json sizes.
  json c = {{"model_type", "mamba2"},
            {"hidden_size", 4096},
            {"num_hidden_layers", 64},
            {"vocab_size", 32768},
            {"state_size", 128},
            {"expand", 2},
            {"num_heads", 128},
            {"head_dim", 64},
            {"n_groups", 8},
            {"conv_kernel", 4},
            {"use_bias", false},
            {"use_conv_bias", true},
            {"tie_word_embeddings", false}};
  const auto s = test::spec(c);
  REQUIRE(s.groups.size() == 1);
  CHECK(s.groups[0].mixer == mixer_kind::mamba2);
  CHECK(!s.groups[0].mlp);
  CHECK(s.ssm.inner == 8192);
  CHECK(s.ssm.num_heads == 128);
  CHECK(s.ssm.n_groups == 8);
  CHECK(s.ssm.state_size == 128);
  const auto p = count_parameters(s);
  CHECK(p.total == 64 * (mamba2_mixer(4096, 8192, 8, 128, 128, 4, true, true) + 4096) + 2 * 32768LL * 4096 + 4096);
  // Published: "Number of parameters: 7,285,403,648" (mistralai/Mamba-Codestral-7B-v0.1 model card).
  CHECK(p.total == 7285403648);
  c["head_dim"] = 32;  // 128 x 32 != 8192
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_heads)"));
}

TEST_CASE("jamba: attention every 8th layer and MoE every 2nd with dt/B/C-normed Mamba-1 mixers") {
  // ai21labs/Jamba-v0.1 config.json sizes.
  json c = {{"model_type", "jamba"},     {"hidden_size", 4096},         {"num_hidden_layers", 32},
            {"num_attention_heads", 32}, {"num_key_value_heads", 8},    {"intermediate_size", 14336},
            {"vocab_size", 65536},       {"attn_layer_period", 8},      {"attn_layer_offset", 4},
            {"expert_layer_period", 2},  {"expert_layer_offset", 1},    {"num_experts", 16},
            {"num_experts_per_tok", 2},  {"mamba_d_state", 16},         {"mamba_d_conv", 4},
            {"mamba_expand", 2},         {"mamba_dt_rank", 256},        {"mamba_conv_bias", true},
            {"mamba_proj_bias", false},  {"tie_word_embeddings", false}};
  const auto s = test::spec(c);
  CHECK(count_mixer(s, mixer_kind::attention) == 4);
  CHECK(count_mixer(s, mixer_kind::mamba) == 28);
  CHECK(s.groups[s.layer_group_of[4]].mixer == mixer_kind::attention);
  CHECK(s.groups[s.layer_group_of[12]].mixer == mixer_kind::attention);
  CHECK(!s.groups[s.layer_group_of[4]].moe);
  CHECK(s.groups[s.layer_group_of[1]].moe);
  CHECK(s.position == flopcast::position_kind::none);
  CHECK(s.ssm.dt_bc_norms);
  CHECK(s.ssm.dt_rank == 256);
  const auto p = count_parameters(s);
  const std::int64_t h = 4096, mlp = 3 * h * 14336;
  const std::int64_t attn = 2 * h * h + 2 * h * 1024;
  const std::int64_t mamba = mamba1_mixer(h, 8192, 16, 256, 4, true);
  const std::int64_t moe = h * 16 + 16 * mlp;
  const std::int64_t total = 4 * attn + 28 * mamba + 16 * moe + 16 * mlp + 32 * 2 * h + 2 * 65536LL * h + h;
  CHECK(p.total == total);
  CHECK(p.active == total - 16 * 14 * mlp);
  // Published: "12B active parameters and a total of 52B" (ai21labs/Jamba-v0.1 model card).
  CHECK(round_to(static_cast<double>(p.total), 2) == 52e9);
  CHECK(round_to(static_cast<double>(p.active), 2) == 12e9);
  c["attn_layer_offset"] = 8;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/attn_layer_offset)"));
  c["attn_layer_offset"] = 4;
  c["mamba_dt_rank"] = "auto";
  CHECK(test::spec(c).ssm.dt_rank == 256);
}

TEST_CASE("falcon_h1: attention and Mamba-2 side by side in every layer and then an MLP") {
  // Falcon-H1-1.5B-like sizes: hidden 2048, 24 layers, 8 heads (2 KV) of 128, MLP 4608,
  // Mamba-2 of 48 heads x 64 = 3072 with one group and state 256.
  json c = {{"model_type", "falcon_h1"},
            {"hidden_size", 2048},
            {"num_hidden_layers", 24},
            {"num_attention_heads", 8},
            {"num_key_value_heads", 2},
            {"head_dim", 128},
            {"intermediate_size", 4608},
            {"vocab_size", 65537},
            {"mamba_d_ssm", 3072},
            {"mamba_n_heads", 48},
            {"mamba_d_head", 64},
            {"mamba_n_groups", 1},
            {"mamba_d_state", 256},
            {"mamba_d_conv", 4},
            {"mamba_rms_norm", false},
            {"mamba_conv_bias", true},
            {"mamba_proj_bias", false},
            {"projectors_bias", false},
            {"tie_word_embeddings", false},
            {"embedding_multiplier", 5.656854249492381},
            {"ssm_multipliers", {0.35355339059327373, 0.25, 0.1767766952966369, 0.5, 0.3535533905932738}}};
  const auto s = test::spec(c);
  REQUIRE(s.groups.size() == 1);
  CHECK(s.groups[0].mixer == mixer_kind::attention);
  CHECK(s.groups[0].parallel_ssm);
  CHECK(s.groups[0].mlp);
  CHECK(s.ssm.inner == 3072);
  CHECK(s.ssm.num_heads == 48);
  CHECK(!s.ssm.gated_norm);
  CHECK(s.position == flopcast::position_kind::rotary);
  const auto p = count_parameters(s);
  const std::int64_t h = 2048;
  const std::int64_t attn = h * 1024 + 2 * h * 256 + 1024 * h;
  const std::int64_t ssm = mamba2_mixer(h, 3072, 1, 256, 48, 4, true, false);
  const std::int64_t layer = attn + ssm + 3 * h * 4608 + 2 * h;
  CHECK(p.total == 24 * layer + 2 * 65537LL * h + h);
  c["mamba_rms_norm"] = true;
  CHECK(count_parameters(test::spec(c)).total - p.total == 24 * 3072);
  c["mamba_d_head"] = "auto";
  CHECK(test::spec(c).ssm.inner == 3072);
  c["mamba_n_heads"] = 40;  // 3072 / 40 is not whole
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/mamba_n_heads)"));
}

TEST_CASE("nemotron_h: one mixer per block from hybrid_override_pattern") {
  const auto s = test::spec(nemotron_h_8b_config());
  REQUIRE(s.num_layers == 52);
  CHECK(count_mixer(s, mixer_kind::mamba2) == 24);
  CHECK(count_mixer(s, mixer_kind::attention) == 4);
  CHECK(count_mixer(s, mixer_kind::none) == 24);
  for (std::size_t i = 0; i < 52; ++i) {
    const auto& g = s.groups[s.layer_group_of[i]];
    CHECK(g.norms == 1);
    CHECK(g.mlp == (g.mixer == mixer_kind::none));
  }
  CHECK(s.groups[s.layer_group_of[7]].mixer == mixer_kind::attention);  // "M-M-M-M*"
  CHECK(!s.mlp.gated);
  CHECK(s.position == flopcast::position_kind::none);
  CHECK(s.ssm.inner == 8192);
  CHECK(s.ssm.state_size == 128);
  CHECK(s.ssm.n_groups == 8);
  CHECK(s.attention.head_dim == 128);
}

TEST_CASE("nemotron_h: parameter count of Nemotron-H-8B") {
  const auto p = count_parameters(test::spec(nemotron_h_8b_config()));
  const std::int64_t h = 4096;
  const std::int64_t mamba = mamba2_mixer(h, 8192, 8, 128, 128, 4, true, true) + h;
  const std::int64_t attn = 2 * h * h + 2 * h * 1024 + h;
  const std::int64_t mlp = 2 * h * 21504 + h;  // up_proj, down_proj (relu^2)
  CHECK(p.total == 24 * mamba + 4 * attn + 24 * mlp + 2 * 131072LL * h + h);
  // Published: Nemotron-H-8B (nvidia/Nemotron-H-8B-Base-8K model card, "8B").
  CHECK(round_to(static_cast<double>(p.total), 1) == 8e9);
}

TEST_CASE("nemotron_h: E blocks are up-down experts with a router bias and a shared expert") {
  json c = nemotron_h_8b_config();
  c["hybrid_override_pattern"] = "ME*E";
  c["num_hidden_layers"] = 4;
  c["n_routed_experts"] = 8;
  c["num_experts_per_tok"] = 2;
  c["moe_intermediate_size"] = 1024;
  c["moe_shared_expert_intermediate_size"] = 2048;
  const auto s = test::spec(c);
  CHECK(s.moe.gated_experts == false);
  CHECK(s.moe.router_bias);
  CHECK(s.groups[s.layer_group_of[1]].moe);
  CHECK(s.groups[s.layer_group_of[1]].mixer == mixer_kind::none);
  const auto p = count_parameters(s);
  const std::int64_t h = 4096;
  const std::int64_t moe = h * 8 + 8 + 8 * 2 * h * 1024 + 2 * h * 2048 + h;  // router + bias, experts, shared, norm
  const std::int64_t mamba = mamba2_mixer(h, 8192, 8, 128, 128, 4, true, true) + h;
  const std::int64_t attn = 2 * h * h + 2 * h * 1024 + h;
  CHECK(p.total == mamba + attn + 2 * moe + 2 * 131072LL * h + h);
  CHECK(p.total - p.active == 2 * 6 * 2 * h * 1024);
}

TEST_CASE("nemotron_h: a bad pattern is refused with its pointer") {
  json c = nemotron_h_8b_config();
  c["hybrid_override_pattern"] = "M-M-M-M*";
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/hybrid_override_pattern)") && Catch::Contains("52"));
  c = nemotron_h_8b_config();
  std::string pat = c["hybrid_override_pattern"];
  pat[3] = 'X';
  c["hybrid_override_pattern"] = pat;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/hybrid_override_pattern)") && Catch::Contains("\"X\""));
  c = nemotron_h_8b_config();
  c.erase("hybrid_override_pattern");
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/hybrid_override_pattern)"));
  c["layers_block_type"] = {"mamba", "attention", "conv"};
  c["num_hidden_layers"] = 3;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/layers_block_type/2)"));
  c["layers_block_type"] = {"mamba", "attention", "mlp"};
  CHECK(test::spec(c).num_layers == 3);
  c = nemotron_h_8b_config();
  c["n_groups"] = 5;  // 128 heads do not split into 5 groups
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/n_groups)"));
}
