#pragma once
// A tiny GGUF writer (little-endian) for the tests of the GGUF reader: metadata key-values and
// tensor infos as ggml/docs/gguf.md lays them out; the tensor data is not written.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace test {

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
  // A scalar of GGUF value type `type` (4: u32, 10: u64), `bytes` wide.
  void scalar(const std::string& key, std::uint32_t type, std::uint64_t v, int bytes) {
    str(kv, key);
    put(kv, type, 4);
    put(kv, v, bytes);
    ++n_kv;
  }
  void u32(const std::string& key, std::uint32_t v) { scalar(key, 4, v, 4); }
  void u64(const std::string& key, std::uint64_t v) { scalar(key, 10, v, 8); }
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

}  // namespace test
