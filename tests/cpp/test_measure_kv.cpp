// KV caches (fp32, int8) against naive attention, and the KV-cache profiler over them and
// over a cache of another shape.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "flopcast/base/error.hpp"
#include "flopcast/measure/kv_profiler.hpp"

using namespace flopcast::measure;

namespace {

std::vector<float> kv_random_values(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = u(g);
  return v;
}

// Causal (windowed) attention of the last q queries over `len` positions, one sequence.
std::vector<double> naive_attention(const std::vector<float>& q, const std::vector<float>& k,
                                    const std::vector<float>& v, std::int64_t len, std::int64_t q_tokens,
                                    std::int64_t heads, std::int64_t kv_heads, std::int64_t d, std::int64_t window) {
  std::vector<double> out(static_cast<std::size_t>(q_tokens * heads * d), 0.0);
  for (std::int64_t i = 0; i < q_tokens; ++i) {
    const std::int64_t pos = len - q_tokens + i;
    const std::int64_t lo = window > 0 ? std::max<std::int64_t>(0, pos - window + 1) : 0;
    for (std::int64_t h = 0; h < heads; ++h) {
      const std::int64_t g = h / (heads / kv_heads);
      std::vector<double> s;
      double mx = -1e300;
      for (std::int64_t t = lo; t <= pos; ++t) {
        double dot = 0;
        for (std::int64_t j = 0; j < d; ++j) dot += double(q[(i * heads + h) * d + j]) * k[(t * kv_heads + g) * d + j];
        s.push_back(dot / std::sqrt(double(d)));
        mx = std::max(mx, s.back());
      }
      double sum = 0;
      for (auto& x : s) sum += (x = std::exp(x - mx));
      for (std::int64_t t = lo; t <= pos; ++t)
        for (std::int64_t j = 0; j < d; ++j)
          out[(i * heads + h) * d + j] += s[t - lo] / sum * v[(t * kv_heads + g) * d + j];
    }
  }
  return out;
}

// A cache of a different shape: token at a time, no total_tokens(); the profiler wraps it anyway.
struct toy_cache {
  std::vector<float> keys;
  int append(float k) {
    keys.push_back(k);
    return static_cast<int>(keys.size());
  }
  float attend(float q) const {
    float s = 0;
    for (float k : keys) s += q * k;
    return s;
  }
  std::size_t memory_bytes() const { return keys.size() * sizeof(float); }
};

}  // namespace

TEST_CASE("KV caches attend like naive attention (GQA, causal, windowed, fp32 and int8)", "[measure]") {
  const std::int64_t heads = 4, kv_heads = 2, d = 16, len = 23;
  const auto k = kv_random_values(static_cast<std::size_t>(len * kv_heads * d), 1);
  const auto v = kv_random_values(static_cast<std::size_t>(len * kv_heads * d), 2);
  thread_pool pool(2);
  for (auto format : {kv_format::f32, kv_format::i8})
    for (std::int64_t window : {0, 5})
      for (std::int64_t q_tokens : {1, 9}) {
        INFO(to_string(format) << " window " << window << " queries " << q_tokens);
        auto cache = make_kv_cache(format, {2, kv_heads, d, d, 32});
        // Sequence 1 gets the data (in two appends); sequence 0 stays empty.
        attention_tally tally;
        cache->append(1, k.data(), kv_heads * d, v.data(), kv_heads * d, 10, &tally);
        cache->append(1, k.data() + 10 * kv_heads * d, kv_heads * d, v.data() + 10 * kv_heads * d, kv_heads * d,
                      len - 10, &tally);
        CHECK(cache->length(1) == len);
        CHECK(cache->length(0) == 0);
        CHECK(cache->total_tokens() == len);
        CHECK(cache->memory_bytes() == len * cache->bytes_per_token());
        CHECK(tally.write_bytes == len * cache->bytes_per_token());
        CHECK(cache->bytes_per_token() ==
              (format == kv_format::f32 ? 4.0 * kv_heads * 2 * d : kv_heads * 2 * d + 8.0 * kv_heads));

        const auto q = kv_random_values(static_cast<std::size_t>(q_tokens * heads * d), 3);
        std::vector<float> out(static_cast<std::size_t>(q_tokens * heads * d), -1.0f);
        attend_request r;
        r.seq = 1;
        r.q = q.data();
        r.q_stride = heads * d;
        r.q_tokens = q_tokens;
        r.num_heads = heads;
        r.window = window;
        r.scale = 1.0f / std::sqrt(float(d));
        r.out = out.data();
        r.out_stride = heads * d;
        r.pool = &pool;
        r.tally = &tally;
        cache->attend(r);
        const auto expect = naive_attention(q, k, v, len, q_tokens, heads, kv_heads, d, window);
        double worst = 0;
        for (std::size_t i = 0; i < out.size(); ++i) worst = std::max(worst, std::fabs(out[i] - expect[i]));
        CHECK(worst < (format == kv_format::f32 ? 1e-5 : 2e-2));
        // The work it executed: every pair of the causal band, per head.
        std::int64_t pairs = 0;
        for (std::int64_t i = 0; i < q_tokens; ++i) {
          const std::int64_t pos = len - q_tokens + i;
          pairs += window > 0 ? std::min<std::int64_t>(pos + 1, window) : pos + 1;
        }
        CHECK(tally.pairs == pairs);
        CHECK(tally.score_flops == 2.0 * pairs * heads * d);
        CHECK(tally.softmax_flops == 5.0 * pairs * heads);
        CHECK(tally.value_flops == 2.0 * pairs * heads * d);
        cache->clear();
        CHECK(cache->total_tokens() == 0);
      }
}

TEST_CASE("KV caches refuse appends beyond capacity, queries beyond the cache, and bad sequences", "[measure]") {
  auto cache = make_kv_cache(kv_format::f32, {1, 1, 4, 4, 3});
  std::vector<float> kv(16, 0.5f), q(4, 1.0f), out(4);
  cache->append(0, kv.data(), 4, kv.data(), 4, 3);
  CHECK_THROWS_AS(cache->append(0, kv.data(), 4, kv.data(), 4, 1), flopcast::error);
  CHECK_THROWS_AS(cache->append(1, kv.data(), 4, kv.data(), 4, 1), flopcast::error);
  attend_request r;
  r.q = q.data();
  r.q_stride = 4;
  r.q_tokens = 4;
  r.num_heads = 1;
  r.out = out.data();
  r.out_stride = 4;
  CHECK_THROWS_AS(cache->attend(r), flopcast::error);
  r.q_tokens = 1;
  cache->attend(r);
  for (float x : out) CHECK(x == Approx(0.5f));
}

TEST_CASE("the profiler counts calls, time, positions, peak bytes and the ratio to fp16", "[measure]") {
  const kv_layout layout{1, 2, 8, 8, 64};
  for (auto format : {kv_format::f32, kv_format::i8}) {
    profiled_kv_cache cache(make_kv_cache(format, layout), 3);
    std::vector<float> kv(static_cast<std::size_t>(10 * 16), 0.25f), q(32, 1.0f), out(32);
    cache.append(0, kv.data(), 16, kv.data(), 16, 10);
    for (int i = 0; i < 5; ++i) cache.append(0, kv.data(), 16, kv.data(), 16, 1);
    attend_request r;
    r.q = q.data();
    r.q_stride = 32;
    r.q_tokens = 1;
    r.num_heads = 4;
    r.out = out.data();
    r.out_stride = 32;
    cache.attend(r);
    cache.attend(r);
    const kv_layer_profile& p = cache.profile();
    CHECK(p.layer == 3);
    CHECK(p.cache == to_string(format));
    CHECK(p.append_calls == 6);
    CHECK(p.attend_calls == 2);
    CHECK(p.tokens_written == 15);
    CHECK(p.peak_tokens == 15);
    CHECK(p.peak_bytes == 15 * cache.bytes_per_token());
    CHECK(p.append_s >= 0);
    CHECK(p.attend_s_mean() >= 0);
    CHECK(p.fp16_bytes_per_token == 2.0 * 2 * (8 + 8));
    // fp32: half as dense as fp16; int8 with a K and a V scale per head: 64 / 34.
    CHECK(p.compression_ratio() == Approx(format == kv_format::f32 ? 0.5 : 64.0 / 48.0));
    // Clearing the cache and running again: the peak and its ratio stay.
    cache.clear();
    cache.append(0, kv.data(), 16, kv.data(), 16, 2);
    CHECK(cache.profile().peak_tokens == 15);
    CHECK(cache.profile().tokens_written == 17);
    cache.reset_profile();
    CHECK(cache.profile().append_calls == 0);
    CHECK(cache.profile().layer == 3);
  }
}

TEST_CASE("the profiler template wraps a cache of any shape", "[measure]") {
  toy_cache toy;
  kv_cache_profiler<toy_cache> p(toy, 2.0, 7, "toy");
  CHECK(p.append(1.0f) == 1);
  CHECK(p.append(2.0f) == 2);
  CHECK(p.attend(3.0f) == Approx(9.0f));
  CHECK(p.memory_bytes() == 8);
  const auto& pr = p.profile();
  CHECK(pr.append_calls == 2);
  CHECK(pr.attend_calls == 1);
  CHECK(pr.tokens_written == 2);  // one per call without total_tokens()
  CHECK(pr.peak_bytes == 8);
  CHECK(pr.compression_ratio() == Approx(2.0 * 2 / 8));
}

TEST_CASE("the per-layer report renders a fixed-width table with totals", "[measure]") {
  kv_profile_report empty;
  const std::string t0 = format_kv_table(empty);
  CHECK(t0.find("Layer") == 0);
  CHECK(t0.find("Total tokens") == std::string::npos);

  kv_profile_report rep;
  for (int l = 0; l < 2; ++l) {
    kv_layer_profile p;
    p.layer = l;
    p.cache = "int8";
    p.append_calls = 4;
    p.append_s = 4e-6;
    p.attend_calls = 4;
    p.attend_s = 8e-5;
    p.tokens_written = 100;
    p.peak_tokens = 100;
    p.peak_bytes = 1024 * 1024;
    p.fp16_bytes_per_token = 2 * 1024 * 1024 / 100.0;
    rep.layers.push_back(p);
  }
  rep.elapsed_s = 0.5;
  CHECK(rep.total_tokens() == 200);
  CHECK(rep.total_peak_bytes() == 2 * 1024 * 1024);
  CHECK(rep.compression_ratio() == Approx(2.0));
  CHECK(rep.tokens_per_s() == Approx(400));
  const std::string t = format_kv_table(rep);
  CHECK(t.find("Layer 0   int8          4      1.00 us        4     20.00 us     1.00 MiB    2.00x\n") !=
        std::string::npos);
  CHECK(t.find("Total tokens written:     200\n") != std::string::npos);
  CHECK(t.find("Total memory (peak):      2.00 MiB\n") != std::string::npos);
  CHECK(t.find("Compression vs fp16:      2.00x\n") != std::string::npos);
  CHECK(t.find("Tokens/s:                 400.0\n") != std::string::npos);
  // Every row has the header's width.
  const auto first_nl = t.find('\n');
  CHECK(t.find('\n', first_nl + 1) - first_nl - 1 == 82);
}
