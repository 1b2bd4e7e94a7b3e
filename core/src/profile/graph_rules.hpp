#pragma once
// What the profiler's rules share (private to the profile room): the value a tensor carries
// through the pass (shape, element type, small constant values), a node's view of its inputs and
// attributes (ctx), the shape helpers both rule sets use, and the rules themselves: shape
// propagation (shape_rules.cpp) and per-op FLOPs and MACs (cost_rules.cpp). The driver that runs
// them over a graph is run() in profile.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "flopcast/base/error.hpp"
#include "flopcast/profile/limits.hpp"
#include "flopcast/profile/profile.hpp"

namespace flopcast::profile::rules {

using shape = std::vector<std::int64_t>;

// A tensor as the pass knows it: its shape once known, its element type (ONNX TensorProto code),
// and the values of small int tensors (shapes, axes, indices) where they are constant.
struct value {
  bool known = false;
  shape s;
  int elem = 0;
  bool has_values = false;
  std::vector<std::int64_t> values;
  bool initializer = false;
};

// Constant int values kept through Concat (shape vectors and index lists; the readers keep int
// tensors of at most 64 elements): a bound, so that a chain of Concats cannot double them forever.
inline constexpr std::size_t max_values = 1024;

inline double numel(const shape& s) {
  double n = 1;
  for (auto v : s) n *= static_cast<double>(v);
  return n;
}

[[noreturn]] inline void fail(std::size_t i, const node& n, const std::string& msg) {
  throw error(error_code::config_range, "/nodes/" + std::to_string(i),
              "node \"" + n.name + "\" (" + n.op_type + "): " + msg);
}

// The bound of every size, as a message's tail: "at most 1099511627776 (2^40, as --dim)".
inline std::string size_bound() { return "at most " + std::to_string(k_max_dim) + " (2^40, as --dim)"; }

// Why a tensor of shape s is beyond the profiler's sizes (flopcast/profile/limits.hpp), as
// "a dimension of N: expected at most ...", or "" when it is within them: each dimension and the
// element count at most k_max_dim, the rank at most k_max_rank. Negative sizes are left to the
// callers' own messages.
inline std::string out_of_bounds(const shape& s) {
  if (static_cast<std::int64_t>(s.size()) > k_max_rank)
    return "rank " + std::to_string(s.size()) + ": expected at most " + std::to_string(k_max_rank);
  bool zero = false;
  for (auto d : s) {
    if (d > k_max_dim) return "a dimension of " + std::to_string(d) + ": expected " + size_bound();
    zero = zero || d == 0;
  }
  if (zero) return {};
  std::int64_t n = 1;
  for (auto d : s)
    if (d > 0 && (__builtin_mul_overflow(n, d, &n) || n > k_max_dim)) {
      std::string dims;
      for (auto x : s) dims += (dims.empty() ? "" : " x ") + std::to_string(x);
      return "more than 2^40 elements (" + dims + "): expected " + size_bound();
    }
  return {};
}

// Numpy broadcasting; nullopt when the shapes do not broadcast.
inline std::optional<shape> broadcast(const shape& a, const shape& b) {
  const std::size_t r = std::max(a.size(), b.size());
  shape out(r);
  for (std::size_t k = 0; k < r; ++k) {
    const std::int64_t x = k < r - a.size() ? 1 : a[k - (r - a.size())];
    const std::int64_t y = k < r - b.size() ? 1 : b[k - (r - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[k] = x == 1 ? y : x;
  }
  return out;
}

inline std::int64_t norm_axis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

// One node as its rules see it: its inputs (in graph order) and its attributes.
struct ctx {
  const node& n;
  std::size_t index;
  std::vector<const value*> in;  // nullptr: absent optional input
  std::int64_t opset;

  // Size arithmetic, checked: a result beyond int64 fails the node (sizes are at most 2^40, so
  // only a hostile attribute or constant gets there).
  [[nodiscard]] std::int64_t add(std::int64_t a, std::int64_t b) const {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) overflow(a, "+", b);
    return r;
  }
  [[nodiscard]] std::int64_t sub(std::int64_t a, std::int64_t b) const {
    std::int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r)) overflow(a, "-", b);
    return r;
  }
  [[nodiscard]] std::int64_t mul(std::int64_t a, std::int64_t b) const {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) overflow(a, "x", b);
    return r;
  }
  [[noreturn]] void overflow(std::int64_t a, const char* op, std::int64_t b) const {
    fail(index, n,
         "a size overflows 64-bit integers (" + std::to_string(a) + " " + op + " " + std::to_string(b) +
             "): expected sizes " + size_bound());
  }
  [[nodiscard]] bool has(std::size_t k) const { return k < in.size() && in[k] && in[k]->known; }
  [[nodiscard]] const shape& s(std::size_t k) const { return in[k]->s; }
  [[nodiscard]] const attribute* attr(const char* name) const {
    auto it = n.attributes.find(name);
    return it == n.attributes.end() ? nullptr : &it->second;
  }
  [[nodiscard]] std::int64_t i(const char* name, std::int64_t fallback) const {
    const attribute* a = attr(name);
    return a && a->type == attribute::kind::i ? a->i : fallback;
  }
  [[nodiscard]] std::string str(const char* name, std::string fallback) const {
    const attribute* a = attr(name);
    return a && a->type == attribute::kind::s ? a->s : fallback;
  }
  [[nodiscard]] std::vector<std::int64_t> ints(const char* name) const {
    const attribute* a = attr(name);
    return a && a->type == attribute::kind::ints ? a->ints : std::vector<std::int64_t>{};
  }
  [[nodiscard]] bool has_attr(const char* name) const { return attr(name) != nullptr; }
  // The attribute `name` as an axis of a rank-`rank` tensor (up to rank itself where `inclusive`).
  [[nodiscard]] std::size_t axis(const char* name, std::int64_t fallback, std::size_t rank,
                                 bool inclusive = false) const {
    const std::int64_t a = norm_axis(i(name, fallback), rank);
    if (a < 0 || a > static_cast<std::int64_t>(rank) - (inclusive ? 0 : 1))
      fail(index, n, std::string(name) + " is out of range for a rank-" + std::to_string(rank) + " input");
    return static_cast<std::size_t>(a);
  }
  // An int list given as the attribute `name` (older opsets) or as constant input k.
  [[nodiscard]] std::optional<std::vector<std::int64_t>> list(const char* name, std::size_t k) const {
    if (has_attr(name)) return ints(name);
    if (k < in.size() && in[k]) {
      if (in[k]->has_values) return in[k]->values;
      return std::nullopt;  // given, but not a constant
    }
    return std::vector<std::int64_t>{};
  }
};

inline value of(shape s, int elem) {
  value v;
  v.known = true;
  v.s = std::move(s);
  v.elem = elem;
  return v;
}

inline value with_values(std::vector<std::int64_t> vals, int elem = 7) {
  value v = of(shape{static_cast<std::int64_t>(vals.size())}, elem);
  v.has_values = true;
  v.values = std::move(vals);
  return v;
}

// shape_rules.cpp: MatMul's output (numpy matmul broadcasting) and its multiply-adds in *macs;
// nullopt when the shapes do not multiply.
std::optional<value> matmul_shape(const shape& a0, const shape& b0, int elem, double* macs);
// shape_rules.cpp: the elementwise ops of one input and of broadcast inputs, and the data
// movement ops (0 FLOPs).
const std::set<std::string>& unary_ops();
const std::set<std::string>& binary_ops();
const std::set<std::string>& move_ops();
// shape_rules.cpp: the output shapes (and constant values) of one node; nullopt when not derivable.
std::optional<std::vector<value>> propagate(const ctx& c);
// shape_rules.cpp: whether `op` has a shape rule and a cost rule.
bool has_rule(const std::string& op);
// cost_rules.cpp: FLOPs and MACs of one node from its input and output shapes, into k; false when
// the shapes do not allow a count.
bool count(const ctx& c, const std::vector<value>& out, costs& k);

}  // namespace flopcast::profile::rules
