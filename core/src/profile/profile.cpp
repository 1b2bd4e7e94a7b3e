// The graph profiler: shape propagation and per-op cost rules (conventions in
// flopcast/profile.hpp). One pass over the nodes in graph order.
#include "flopcast/profile/profile.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"

namespace flopcast::profile {
namespace {

using shape = std::vector<std::int64_t>;

struct value {
  bool known = false;
  shape s;
  int elem = 0;
  bool has_values = false;
  std::vector<std::int64_t> values;
  bool initializer = false;
};

double numel(const shape& s) {
  double n = 1;
  for (auto v : s) n *= static_cast<double>(v);
  return n;
}

[[noreturn]] void fail(std::size_t i, const node& n, const std::string& msg) {
  throw error(error_code::config_range, "/nodes/" + std::to_string(i),
              "node \"" + n.name + "\" (" + n.op_type + "): " + msg);
}

// Numpy broadcasting; nullopt when the shapes do not broadcast.
std::optional<shape> broadcast(const shape& a, const shape& b) {
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

std::int64_t norm_axis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

struct ctx {
  const node& n;
  std::size_t index;
  std::vector<const value*> in;  // nullptr: absent optional input
  std::int64_t opset;

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

struct op_result {
  std::vector<value> outputs;  // empty: shapes not propagated
};

value of(shape s, int elem) {
  value v;
  v.known = true;
  v.s = std::move(s);
  v.elem = elem;
  return v;
}

value with_values(std::vector<std::int64_t> vals, int elem = 7) {
  value v = of(shape{static_cast<std::int64_t>(vals.size())}, elem);
  v.has_values = true;
  v.values = std::move(vals);
  return v;
}

// Conv / pool output spatial sizes. `kernel` per spatial axis.
shape window_out(const ctx& c, const shape& x, const shape& kernel, std::size_t i0) {
  const std::size_t nsp = kernel.size();
  auto strides = c.ints("strides"), dil = c.ints("dilations"), pads = c.ints("pads");
  strides.resize(nsp, 1);
  if (strides.size() > nsp) strides.resize(nsp);
  dil.resize(nsp, 1);
  pads.resize(2 * nsp, 0);
  const std::string ap = c.str("auto_pad", "NOTSET");
  const bool ceil_mode = c.i("ceil_mode", 0) != 0;
  shape out;
  for (std::size_t k = 0; k < nsp; ++k) {
    const std::int64_t in = x[i0 + k], eff = dil[k] * (kernel[k] - 1) + 1;
    if (strides[k] <= 0 || dil[k] <= 0 || kernel[k] <= 0 || pads[k] < 0 || pads[k + nsp] < 0)
      fail(c.index, c.n, "kernel sizes, strides and dilations must be positive and pads not negative");
    std::int64_t o = 0;
    if (ap == "SAME_UPPER" || ap == "SAME_LOWER")
      o = (in + strides[k] - 1) / strides[k];
    else if (ap == "VALID")
      o = (in - eff) / strides[k] + 1;
    else {
      const std::int64_t span = in + pads[k] + pads[k + nsp] - eff;
      o = (ceil_mode ? (span + strides[k] - 1) / strides[k] : span / strides[k]) + 1;
    }
    if (o <= 0) fail(c.index, c.n, "the window is larger than the padded input");
    out.push_back(o);
  }
  return out;
}

std::optional<value> matmul_shape(const shape& a0, const shape& b0, int elem, double* macs) {
  shape a = a0, b = b0;
  const bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a.empty() || b.empty()) return std::nullopt;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  const std::int64_t m = a[a.size() - 2], k = a.back(), k2 = b[b.size() - 2], n = b.back();
  if (k != k2) return std::nullopt;
  const auto batch = broadcast(shape(a.begin(), a.end() - 2), shape(b.begin(), b.end() - 2));
  if (!batch) return std::nullopt;
  shape out = *batch;
  if (!a1) out.push_back(m);
  if (!b1) out.push_back(n);
  *macs = numel(*batch) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return of(out, elem);
}

const std::set<std::string>& unary_ops() {
  static const std::set<std::string> s{
      "Relu", "Gelu",  "FastGelu",    "BiasGelu",        "Sigmoid",  "Tanh",     "Erf",  "Sqrt", "Exp",       "Log",
      "Neg",  "Abs",   "Reciprocal",  "Floor",           "Ceil",     "Round",    "Sin",  "Cos",  "LeakyRelu", "Elu",
      "Selu", "Celu",  "HardSigmoid", "HardSwish",       "Softplus", "Softsign", "Mish", "Clip", "QuickGelu", "Not",
      "Sign", "IsNaN", "IsInf",       "ThresholdedRelu", "Silu",     "Swish"};
  return s;
}
const std::set<std::string>& binary_ops() {
  static const std::set<std::string> s{"Add",
                                       "Sub",
                                       "Mul",
                                       "Div",
                                       "Pow",
                                       "Max",
                                       "Min",
                                       "Mod",
                                       "Equal",
                                       "Less",
                                       "Greater",
                                       "LessOrEqual",
                                       "GreaterOrEqual",
                                       "And",
                                       "Or",
                                       "Xor",
                                       "Where",
                                       "Sum",
                                       "Mean",
                                       "PRelu",
                                       "BitShift"};
  return s;
}
const std::set<std::string>& move_ops() {
  static const std::set<std::string> s{"Reshape",         "Transpose",      "Squeeze",
                                       "Unsqueeze",       "Flatten",        "Shape",
                                       "Slice",           "Expand",         "Cast",
                                       "CastLike",        "Identity",       "Dropout",
                                       "Gather",          "GatherElements", "GatherND",
                                       "Concat",          "Split",          "ConstantOfShape",
                                       "Constant",        "Tile",           "Pad",
                                       "Range",           "Size",           "DepthToSpace",
                                       "SpaceToDepth",    "Trilu",          "ScatterND",
                                       "ScatterElements", "NonZero",        "OneHot",
                                       "ArgMax",          "ArgMin",         "QuantizeLinear",
                                       "DequantizeLinear"};
  return s;
}

// The output shapes (and constant values) of one node; nullopt when not derivable.
std::optional<std::vector<value>> propagate(const ctx& c) {
  const std::string& op = c.n.op_type;
  const int e0 = c.has(0) ? c.in[0]->elem : 1;
  const auto same = [&]() -> std::optional<std::vector<value>> {
    if (!c.has(0)) return std::nullopt;
    return std::vector<value>{of(c.s(0), e0)};
  };
  if (op == "Constant") {
    const attribute* a = c.attr("value");
    if (a && a->type == attribute::kind::t) {
      shape s;
      for (const auto& d : a->t.dims) s.push_back(d.value);
      value v = of(s, a->t.elem_type);
      v.has_values = a->t.has_values;
      v.values = a->t.values;
      return std::vector<value>{v};
    }
    if (const attribute* b = c.attr("value_ints")) return std::vector<value>{with_values(b->ints)};
    if (const attribute* b = c.attr("value_int"); b) {
      value v = of({}, 7);
      v.has_values = true;
      v.values = {b->i};
      return std::vector<value>{v};
    }
    if (c.attr("value_float")) return std::vector<value>{of({}, 1)};
    if (const attribute* b = c.attr("value_floats"))
      return std::vector<value>{of({static_cast<std::int64_t>(b->floats.size())}, 1)};
    return std::nullopt;
  }
  for (std::size_t k = 0; k < c.in.size(); ++k)
    if (c.in[k] && !c.in[k]->known) return std::nullopt;
  if (unary_ops().count(op) || op == "Softmax" || op == "LogSoftmax" || op == "BatchNormalization" ||
      op == "LayerNormalization" || op == "SimplifiedLayerNormalization" || op == "RMSNormalization" ||
      op == "Identity" || op == "Dropout" || op == "InstanceNormalization" || op == "LpNormalization" ||
      op == "SkipLayerNormalization" || op == "SkipSimplifiedLayerNormalization") {
    auto r = same();
    if (r && (op == "Not" || op == "IsNaN" || op == "IsInf")) (*r)[0].elem = 9;
    if (r && op == "Identity" && c.in[0]->has_values) {
      (*r)[0].has_values = true;
      (*r)[0].values = c.in[0]->values;
    }
    return r;
  }
  if (binary_ops().count(op)) {
    if (!c.has(0)) return std::nullopt;
    shape s = c.s(0);
    for (std::size_t k = 1; k < c.in.size(); ++k) {
      if (!c.has(k)) continue;
      auto b = broadcast(s, c.s(k));
      if (!b) fail(c.index, c.n, "input shapes do not broadcast");
      s = *b;
    }
    int elem = op == "Where" && c.has(1) ? c.in[1]->elem : e0;
    if (op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual" ||
        op == "And" || op == "Or" || op == "Xor")
      elem = 9;
    value v = of(s, elem);
    // Constant folding of shape arithmetic (Add/Sub/Mul/Div on small int tensors, same length).
    if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") && c.in.size() == 2 && c.in[0]->has_values &&
        c.in[1]->has_values) {
      const auto& a = c.in[0]->values;
      const auto& b = c.in[1]->values;
      const std::size_t len = std::max(a.size(), b.size());
      if ((a.size() == len || a.size() == 1) && (b.size() == len || b.size() == 1)) {
        v.has_values = true;
        for (std::size_t k = 0; k < len; ++k) {
          const std::int64_t x = a[a.size() == 1 ? 0 : k], y = b[b.size() == 1 ? 0 : k];
          v.values.push_back(op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : (y ? x / y : 0));
        }
      }
    }
    return std::vector<value>{v};
  }
  if (op == "Conv" || op == "ConvInteger") {
    if (!c.has(0) || !c.has(1)) return std::nullopt;
    const shape& x = c.s(0);
    const shape& w = c.s(1);
    if (x.size() < 3 || w.size() != x.size()) fail(c.index, c.n, "expected X [N, C, ...] and W [M, C/group, ...]");
    auto kernel = c.ints("kernel_shape");
    if (kernel.empty()) kernel.assign(w.begin() + 2, w.end());
    if (kernel.size() != x.size() - 2) fail(c.index, c.n, "kernel_shape does not match the input's rank");
    shape out{x[0], w[0]};
    for (auto v : window_out(c, x, kernel, 2)) out.push_back(v);
    return std::vector<value>{of(out, op == "Conv" ? e0 : 6)};
  }
  if (op == "ConvTranspose") {
    if (!c.has(0) || !c.has(1)) return std::nullopt;
    const shape& x = c.s(0);
    const shape& w = c.s(1);
    if (x.size() < 3 || w.size() != x.size()) fail(c.index, c.n, "expected X [N, C, ...] and W [C, M/group, ...]");
    const std::size_t nsp = x.size() - 2;
    const std::int64_t group = c.i("group", 1);
    shape out{x[0], w[1] * group};
    auto os = c.ints("output_shape");
    if (!os.empty()) {
      if (os.size() < nsp) fail(c.index, c.n, "output_shape is shorter than the spatial rank");
      for (std::size_t k = os.size() - nsp; k < os.size(); ++k) out.push_back(os[k]);
      return std::vector<value>{of(out, e0)};
    }
    auto strides = c.ints("strides"), dil = c.ints("dilations"), pads = c.ints("pads"), op_ = c.ints("output_padding");
    auto kernel = c.ints("kernel_shape");
    if (kernel.empty()) kernel.assign(w.begin() + 2, w.end());
    if (kernel.size() != nsp) fail(c.index, c.n, "kernel_shape does not match the input's rank");
    strides.resize(nsp, 1);
    dil.resize(nsp, 1);
    pads.resize(2 * nsp, 0);
    op_.resize(nsp, 0);
    const std::string ap = c.str("auto_pad", "NOTSET");
    for (std::size_t k = 0; k < nsp; ++k) {
      if (ap == "SAME_UPPER" || ap == "SAME_LOWER")
        out.push_back(x[2 + k] * strides[k]);
      else
        out.push_back(strides[k] * (x[2 + k] - 1) + op_[k] + (kernel[k] - 1) * dil[k] + 1 - pads[k] - pads[k + nsp]);
    }
    return std::vector<value>{of(out, e0)};
  }
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
    if (!c.has(0)) return std::nullopt;
    const auto kernel = c.ints("kernel_shape");
    if (kernel.size() + 2 != c.s(0).size()) fail(c.index, c.n, "kernel_shape does not match the input's rank");
    shape out{c.s(0)[0], c.s(0)[1]};
    for (auto v : window_out(c, c.s(0), kernel, 2)) out.push_back(v);
    std::vector<value> r{of(out, e0)};
    if (c.n.outputs.size() > 1) r.push_back(of(out, 7));
    return r;
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "GlobalLpPool") {
    if (!c.has(0)) return std::nullopt;
    shape out = c.s(0);
    for (std::size_t k = 2; k < out.size(); ++k) out[k] = 1;
    return std::vector<value>{of(out, e0)};
  }
  if (op == "Gemm") {
    if (!c.has(0) || !c.has(1)) return std::nullopt;
    const shape& a = c.s(0);
    const shape& b = c.s(1);
    if (a.size() != 2 || b.size() != 2) fail(c.index, c.n, "Gemm takes 2-D A and B");
    const std::int64_t m = c.i("transA", 0) ? a[1] : a[0], n = c.i("transB", 0) ? b[0] : b[1];
    return std::vector<value>{of({m, n}, e0)};
  }
  if (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul") {
    const std::size_t bi = op == "QLinearMatMul" ? 3 : 1;
    if (!c.has(0) || !c.has(bi)) return std::nullopt;
    double macs = 0;
    auto v = matmul_shape(c.s(0), c.s(bi),
                          op == "MatMulInteger"   ? 6
                          : op == "QLinearMatMul" ? c.in[bi]->elem
                                                  : e0,
                          &macs);
    if (!v) fail(c.index, c.n, "inner dimensions or batch dimensions do not match");
    return std::vector<value>{*v};
  }
  if (op.rfind("Reduce", 0) == 0) {
    if (!c.has(0)) return std::nullopt;
    const shape& x = c.s(0);
    auto axes = c.list("axes", 1);
    if (!axes) return std::nullopt;
    const bool keep = c.i("keepdims", 1) != 0;
    std::set<std::int64_t> red;
    for (auto a : *axes) red.insert(norm_axis(a, x.size()));
    if (red.empty() && !c.i("noop_with_empty_axes", 0))
      for (std::size_t k = 0; k < x.size(); ++k) red.insert(static_cast<std::int64_t>(k));
    shape out;
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (!red.count(static_cast<std::int64_t>(k)))
        out.push_back(x[k]);
      else if (keep)
        out.push_back(1);
    }
    return std::vector<value>{of(out, e0)};
  }
  if (op == "Shape") {
    if (!c.has(0)) return std::nullopt;
    const auto r = static_cast<std::int64_t>(c.s(0).size());
    std::int64_t start = c.i("start", 0), end = c.i("end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<std::int64_t>(start, 0, r);
    end = std::clamp<std::int64_t>(end, start, r);
    return std::vector<value>{with_values(std::vector<std::int64_t>(
        c.s(0).begin() + static_cast<std::ptrdiff_t>(start), c.s(0).begin() + static_cast<std::ptrdiff_t>(end)))};
  }
  if (op == "Size") {
    value v = of({}, 7);
    v.has_values = true;
    v.values = {static_cast<std::int64_t>(numel(c.s(0)))};
    return std::vector<value>{v};
  }
  if (op == "Cast" || op == "CastLike") {
    auto r = same();
    if (!r) return r;
    (*r)[0].elem = op == "Cast" ? static_cast<int>(c.i("to", e0)) : (c.has(1) ? c.in[1]->elem : e0);
    (*r)[0].has_values = c.in[0]->has_values;
    (*r)[0].values = c.in[0]->values;
    return r;
  }
  if (op == "Reshape") {
    if (!c.has(0) || !c.has(1) || !c.in[1]->has_values) return std::nullopt;
    const shape& x = c.s(0);
    shape out = c.in[1]->values;
    const bool allowzero = c.i("allowzero", 0) != 0;
    double known = 1;
    int infer = -1;
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (out[k] == 0 && !allowzero) {
        if (k >= x.size()) fail(c.index, c.n, "shape copies a dimension the input does not have");
        out[k] = x[k];
      }
      if (out[k] == -1) {
        if (infer >= 0) fail(c.index, c.n, "shape has more than one -1");
        infer = static_cast<int>(k);
      } else {
        known *= static_cast<double>(out[k]);
      }
    }
    if (infer >= 0) {
      if (known == 0 || std::fmod(numel(x), known) != 0) fail(c.index, c.n, "cannot infer the -1 dimension");
      out[static_cast<std::size_t>(infer)] = static_cast<std::int64_t>(numel(x) / known);
    } else if (known != numel(x)) {
      fail(c.index, c.n, "the new shape has a different number of elements");
    }
    value v = of(out, e0);
    v.has_values = c.in[0]->has_values;
    v.values = c.in[0]->values;
    return std::vector<value>{v};
  }
  if (op == "Transpose") {
    if (!c.has(0)) return std::nullopt;
    const shape& x = c.s(0);
    auto perm = c.ints("perm");
    if (perm.empty())
      for (std::size_t k = x.size(); k-- > 0;) perm.push_back(static_cast<std::int64_t>(k));
    if (perm.size() != x.size()) fail(c.index, c.n, "perm does not match the input's rank");
    shape out;
    for (auto p : perm) out.push_back(x.at(static_cast<std::size_t>(norm_axis(p, x.size()))));
    return std::vector<value>{of(out, e0)};
  }
  if (op == "Squeeze" || op == "Unsqueeze") {
    if (!c.has(0)) return std::nullopt;
    auto axes = c.list("axes", 1);
    if (!axes) return std::nullopt;
    const shape& x = c.s(0);
    shape out;
    if (op == "Squeeze") {
      std::set<std::int64_t> ax;
      for (auto a : *axes) ax.insert(norm_axis(a, x.size()));
      for (std::size_t k = 0; k < x.size(); ++k)
        if (!(ax.empty() ? x[k] == 1 : ax.count(static_cast<std::int64_t>(k)) > 0)) out.push_back(x[k]);
    } else {
      const std::size_t r = x.size() + axes->size();
      std::set<std::int64_t> ax;
      for (auto a : *axes) ax.insert(norm_axis(a, r));
      std::size_t j = 0;
      for (std::size_t k = 0; k < r; ++k) out.push_back(ax.count(static_cast<std::int64_t>(k)) ? 1 : x.at(j++));
    }
    value v = of(out, e0);
    v.has_values = c.in[0]->has_values;
    v.values = c.in[0]->values;
    return std::vector<value>{v};
  }
  if (op == "Flatten") {
    if (!c.has(0)) return std::nullopt;
    const shape& x = c.s(0);
    const auto axis = c.axis("axis", 1, x.size(), true);
    return std::vector<value>{
        of({static_cast<std::int64_t>(numel(shape(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(axis)))),
            static_cast<std::int64_t>(numel(shape(x.begin() + static_cast<std::ptrdiff_t>(axis), x.end())))},
           e0)};
  }
  if (op == "Concat") {
    if (!c.has(0)) return std::nullopt;
    shape out = c.s(0);
    const auto axis = c.axis("axis", 0, out.size());
    bool vals = true;
    std::vector<std::int64_t> v;
    out.at(axis) = 0;
    for (std::size_t k = 0; k < c.in.size(); ++k) {
      if (!c.has(k)) continue;
      if (c.s(k).size() != out.size()) fail(c.index, c.n, "inputs differ in rank");
      out[axis] += c.s(k)[axis];
      vals = vals && c.in[k]->has_values;
      if (vals) v.insert(v.end(), c.in[k]->values.begin(), c.in[k]->values.end());
    }
    value r = of(out, e0);
    if (vals && out.size() == 1) {
      r.has_values = true;
      r.values = v;
    }
    return std::vector<value>{r};
  }
  if (op == "Gather") {
    if (!c.has(0) || !c.has(1)) return std::nullopt;
    const shape& x = c.s(0);
    const auto axis = c.axis("axis", 0, x.size());
    shape out(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(axis));
    out.insert(out.end(), c.s(1).begin(), c.s(1).end());
    out.insert(out.end(), x.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.end());
    value r = of(out, e0);
    if (c.in[0]->has_values && c.in[1]->has_values && x.size() == 1) {
      r.has_values = true;
      for (auto idx : c.in[1]->values) {
        const std::int64_t j = idx < 0 ? idx + x[0] : idx;
        if (j < 0 || j >= static_cast<std::int64_t>(c.in[0]->values.size())) fail(c.index, c.n, "index out of range");
        r.values.push_back(c.in[0]->values[static_cast<std::size_t>(j)]);
      }
    }
    return std::vector<value>{r};
  }
  if (op == "Slice") {
    if (!c.has(0)) return std::nullopt;
    const shape& x = c.s(0);
    const auto starts = c.list("starts", 1), ends = c.list("ends", 2), axes_in = c.list("axes", 3),
               steps_in = c.list("steps", 4);
    if (!starts || !ends || !axes_in || !steps_in) return std::nullopt;
    shape out = x;
    for (std::size_t k = 0; k < starts->size(); ++k) {
      const std::size_t ax = axes_in->empty() ? k : static_cast<std::size_t>(norm_axis((*axes_in)[k], x.size()));
      const std::int64_t step = steps_in->empty() ? 1 : (*steps_in)[k], dimv = x.at(ax);
      if (step == 0) fail(c.index, c.n, "a step is 0");
      auto clampi = [&](std::int64_t v, bool is_end) {
        if (v < 0) v += dimv;
        return step > 0 ? std::clamp<std::int64_t>(v, 0, dimv)
                        : std::clamp<std::int64_t>(v, -1, dimv - 1 + (is_end ? 0 : 0));
      };
      const std::int64_t s = clampi((*starts)[k], false), e = clampi(ends->at(k), true);
      const std::int64_t len = step > 0 ? (e - s + step - 1) / step : (s - e + (-step) - 1) / (-step);
      out[ax] = std::max<std::int64_t>(0, len);
    }
    return std::vector<value>{of(out, e0)};
  }
  if (op == "Expand") {
    if (!c.has(0) || !c.has(1) || !c.in[1]->has_values) return std::nullopt;
    auto b = broadcast(c.s(0), c.in[1]->values);
    if (!b) fail(c.index, c.n, "the shape does not broadcast");
    return std::vector<value>{of(*b, e0)};
  }
  if (op == "ConstantOfShape") {
    if (!c.has(0) || !c.in[0]->has_values) return std::nullopt;
    const attribute* a = c.attr("value");
    return std::vector<value>{of(c.in[0]->values, a && a->type == attribute::kind::t ? a->t.elem_type : 1)};
  }
  if (op == "Tile") {
    if (!c.has(0) || !c.has(1) || !c.in[1]->has_values) return std::nullopt;
    shape out = c.s(0);
    if (c.in[1]->values.size() != out.size()) fail(c.index, c.n, "repeats do not match the input's rank");
    for (std::size_t k = 0; k < out.size(); ++k) out[k] *= c.in[1]->values[k];
    return std::vector<value>{of(out, e0)};
  }
  if (op == "Split") {
    if (!c.has(0)) return std::nullopt;
    const shape& x = c.s(0);
    const auto axis = c.axis("axis", 0, x.size());
    auto split = c.list("split", 1);
    if (!split) return std::nullopt;
    const std::size_t parts = c.n.outputs.size();
    if (split->empty()) {
      const std::int64_t each = (x.at(axis) + static_cast<std::int64_t>(parts) - 1) / static_cast<std::int64_t>(parts);
      for (std::size_t k = 0; k < parts; ++k)
        split->push_back(std::min(each, x[axis] - each * static_cast<std::int64_t>(k)));
    }
    if (split->size() != parts) fail(c.index, c.n, "split sizes do not match the outputs");
    std::vector<value> r;
    for (auto v : *split) {
      shape s = x;
      s[axis] = v;
      r.push_back(of(s, e0));
    }
    return r;
  }
  if (op == "Pad") {
    if (!c.has(0)) return std::nullopt;
    auto pads = c.list("pads", 1);
    if (!pads || pads->size() != 2 * c.s(0).size()) return std::nullopt;
    shape out = c.s(0);
    for (std::size_t k = 0; k < out.size(); ++k) out[k] += (*pads)[k] + (*pads)[k + out.size()];
    return std::vector<value>{of(out, e0)};
  }
  if (op == "Trilu") return same();
  if (op == "Range") {
    if (!c.has(0) || !c.has(1) || !c.has(2) || !c.in[0]->has_values || !c.in[1]->has_values || !c.in[2]->has_values)
      return std::nullopt;
    const std::int64_t s = c.in[0]->values.at(0), e = c.in[1]->values.at(0), d = c.in[2]->values.at(0);
    if (d == 0) fail(c.index, c.n, "delta is 0");
    const double n = std::max(0.0, std::ceil(static_cast<double>(e - s) / static_cast<double>(d)));
    return std::vector<value>{of({static_cast<std::int64_t>(n)}, e0)};
  }
  if (op == "Resize" || op == "Upsample") {
    if (!c.has(0)) return std::nullopt;
    shape out = c.s(0);
    if (op == "Resize" && c.has(3) && c.in[3]->has_values) {
      out = c.in[3]->values;
    } else {
      const std::size_t si = op == "Resize" ? 2 : 1;
      const value* sc = si < c.in.size() ? c.in[si] : nullptr;
      // Float scales are not kept (only int tensors are): a scales input needs the stored shape.
      (void)sc;
      return std::nullopt;
    }
    return std::vector<value>{of(out, e0)};
  }
  if (op == "LSTM" || op == "GRU" || op == "RNN") {
    if (!c.has(0)) return std::nullopt;
    const shape& x = c.s(0);
    if (x.size() != 3) fail(c.index, c.n, "X must be 3-D");
    const std::int64_t h = c.i("hidden_size", 0);
    if (h <= 0) fail(c.index, c.n, "hidden_size must be positive");
    const std::int64_t dirs = c.str("direction", "forward") == "bidirectional" ? 2 : 1;
    const bool bf = c.i("layout", 0) != 0;
    const std::int64_t seq = bf ? x[1] : x[0], batch = bf ? x[0] : x[1];
    std::vector<value> r{of(bf ? shape{batch, seq, dirs, h} : shape{seq, dirs, batch, h}, e0),
                         of(bf ? shape{batch, dirs, h} : shape{dirs, batch, h}, e0)};
    if (op == "LSTM") r.push_back(r[1]);
    return r;
  }
  if (op == "Einsum") {
    // Output shape from the equation (explicit "->" form only).
    const std::string eq = c.str("equation", "");
    const auto arrow = eq.find("->");
    if (arrow == std::string::npos) return std::nullopt;
    std::map<char, std::int64_t> size;
    std::size_t k = 0, pos = 0;
    const std::string lhs = eq.substr(0, arrow);
    while (pos <= lhs.size()) {
      const std::size_t comma = std::min(lhs.find(',', pos), lhs.size());
      std::string term;
      for (std::size_t q = pos; q < comma; ++q)
        if (lhs[q] != ' ') term += lhs[q];
      if (k >= c.in.size() || !c.has(k) || term.find('.') != std::string::npos || term.size() != c.s(k).size())
        return std::nullopt;
      for (std::size_t q = 0; q < term.size(); ++q) size[term[q]] = std::max(size[term[q]], c.s(k)[q]);
      ++k;
      pos = comma + 1;
    }
    shape out;
    for (char ch : eq.substr(arrow + 2))
      if (ch != ' ') out.push_back(size.at(ch));
    return std::vector<value>{of(out, e0)};
  }
  return std::nullopt;
}

bool has_rule(const std::string& op) {
  static const std::set<std::string> other{"Conv",
                                           "ConvInteger",
                                           "ConvTranspose",
                                           "Gemm",
                                           "MatMul",
                                           "MatMulInteger",
                                           "QLinearMatMul",
                                           "BatchNormalization",
                                           "LayerNormalization",
                                           "SimplifiedLayerNormalization",
                                           "RMSNormalization",
                                           "InstanceNormalization",
                                           "LpNormalization",
                                           "Softmax",
                                           "LogSoftmax",
                                           "MaxPool",
                                           "AveragePool",
                                           "LpPool",
                                           "GlobalAveragePool",
                                           "GlobalMaxPool",
                                           "GlobalLpPool",
                                           "LSTM",
                                           "GRU",
                                           "RNN",
                                           "Einsum",
                                           "Resize",
                                           "Upsample",
                                           "SkipLayerNormalization",
                                           "SkipSimplifiedLayerNormalization"};
  return unary_ops().count(op) || binary_ops().count(op) || move_ops().count(op) || other.count(op) ||
         op.rfind("Reduce", 0) == 0;
}

// FLOPs and MACs of one node from its input and output shapes.
bool count(const ctx& c, const std::vector<value>& out, costs& k) {
  const std::string& op = c.n.op_type;
  // The operands each rule reads (a node may lack them where the stored shapes stood in).
  const bool two = op == "Conv" || op == "ConvInteger" || op == "ConvTranspose" || op == "Gemm" || op == "MatMul" ||
                   op == "MatMulInteger";
  if ((two && !c.has(1)) || (op == "QLinearMatMul" && !c.has(3)) ||
      (!c.has(0) && !unary_ops().count(op) && !binary_ops().count(op) && !move_ops().count(op)))
    return false;
  if (out.empty() || !out[0].known) return move_ops().count(op) > 0;
  if ((op == "Conv" || op == "ConvTranspose") && (c.s(1).size() < 3 || c.s(0).size() < 3 || c.s(0)[1] == 0))
    return false;
  if (op == "Gemm" && c.s(0).size() != 2) return false;
  if ((op == "Resize" || op == "Upsample") && c.s(0).size() != out[0].s.size()) return false;
  if ((op == "LSTM" || op == "GRU" || op == "RNN") && c.s(0).size() != 3) return false;
  const double o = out.empty() || !out[0].known ? 0 : numel(out[0].s);
  const double x = c.has(0) ? numel(c.s(0)) : 0;
  if (move_ops().count(op)) return true;
  if (unary_ops().count(op) || binary_ops().count(op)) {
    k.flops = o;
    return true;
  }
  if (op == "Softmax" || op == "LogSoftmax")
    k.flops = 5 * o;
  else if (op == "LayerNormalization" || op == "SkipLayerNormalization")
    k.flops = 7 * o + (op[0] == 'S' ? o : 0);
  else if (op == "SimplifiedLayerNormalization" || op == "RMSNormalization" || op == "SkipSimplifiedLayerNormalization")
    k.flops = 4 * o + (op[0] == 'S' && op[1] == 'k' ? o : 0);
  else if (op == "BatchNormalization" || op == "InstanceNormalization")
    k.flops = (op[0] == 'B' ? 2 : 7) * o;
  else if (op == "LpNormalization")
    k.flops = 3 * o;
  else if (op.rfind("Reduce", 0) == 0)
    k.flops = (op == "ReduceSumSquare" || op == "ReduceL2" ? 2 : 1) * x;
  else if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "GlobalLpPool")
    k.flops = x;
  else if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
    const auto kernel = c.ints("kernel_shape");
    k.flops = o * numel(kernel);
  } else if (op == "Conv" || op == "ConvInteger") {
    const shape& w = c.s(1);
    // Each output element: (C / group) x kernel multiply-adds over its input window.
    k.macs = o * numel(shape(w.begin() + 1, w.end()));
    k.flops = 2 * k.macs + (c.has(2) && op == "Conv" ? o : 0);
  } else if (op == "ConvTranspose") {
    const shape& w = c.s(1);
    // Each input element is scattered to (M / group) x kernel outputs.
    k.macs = x / static_cast<double>(c.s(0)[1]) * numel(shape{w[0]}) * numel(shape(w.begin() + 1, w.end()));
    k.flops = 2 * k.macs + (c.has(2) ? o : 0);
  } else if (op == "Gemm") {
    const shape& a = c.s(0);
    const double kd = static_cast<double>(c.i("transA", 0) ? a[0] : a[1]);
    k.macs = o * kd;
    k.flops = 2 * k.macs + (c.has(2) ? o : 0);
  } else if (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul") {
    const std::size_t bi = op == "QLinearMatMul" ? 3 : 1;
    double macs = 0;
    (void)matmul_shape(c.s(0), c.s(bi), 1, &macs);
    k.macs = macs;
    k.flops = 2 * macs;
  } else if (op == "LSTM" || op == "GRU" || op == "RNN") {
    const shape& xs = c.s(0);
    const double h = static_cast<double>(c.i("hidden_size", 0)), in = static_cast<double>(xs[2]);
    const double steps = static_cast<double>(xs[0]) * static_cast<double>(xs[1]) *
                         (c.str("direction", "forward") == "bidirectional" ? 2 : 1);
    const bool bias = c.has(3);
    const double gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
    // Per step: gates x H x (I + H) multiply-adds; then (LSTM) xW+hR sums 4H, activations 5H
    // (3 sigmoid, 2 tanh), f*c + i*g and o*tanh(c) 4H; (GRU) sums 3H, r*h H, activations 3H,
    // (1-z)*h~ + z*h 4H; (RNN) sum H, tanh H. Biases Wb + Rb: 2 x gates x H.
    const double rest = op == "LSTM" ? 13 * h : op == "GRU" ? 11 * h : 2 * h;
    k.macs = steps * gates * h * (in + h);
    k.flops = steps * (2 * gates * h * (in + h) + rest + (bias ? 2 * gates * h : 0));
  } else if (op == "Einsum") {
    const std::string eq = c.str("equation", "");
    std::map<char, std::int64_t> size;
    std::size_t k2 = 0;
    std::string term;
    const std::string lhs = eq.substr(0, eq.find("->"));
    for (std::size_t q = 0; q <= lhs.size(); ++q) {
      if (q == lhs.size() || lhs[q] == ',') {
        if (!c.has(k2) || c.s(k2).size() != term.size()) return false;
        for (std::size_t t = 0; t < term.size(); ++t) size[term[t]] = c.s(k2)[t];
        term.clear();
        ++k2;
      } else if (lhs[q] != ' ') {
        term += lhs[q];
      }
    }
    double all = 1;
    for (const auto& [ch, v] : size) all *= static_cast<double>(v);
    if (k2 >= 2 || all > o) {
      k.macs = all;
      k.flops = 2 * all;
    } else {
      k.flops = o;
    }
  } else if (op == "Resize" || op == "Upsample") {
    const std::string mode = c.str("mode", "nearest");
    double axes = 0;
    for (std::size_t q = 0; q < c.s(0).size(); ++q) axes += c.s(0)[q] != out[0].s[q] ? 1 : 0;
    k.flops = mode == "linear" || mode == "bilinear" ? 3 * axes * o : mode == "cubic" ? 8 * axes * o : 0;
  }
  return true;
}

std::string scope_of(const std::string& name, int depth) {
  std::vector<std::string> parts;
  std::string cur;
  for (char ch : name) {
    if (ch == '/' || ch == '.') {
      if (!cur.empty()) parts.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  if (parts.size() <= 1) return "(root)";
  parts.pop_back();  // the node's own name
  std::string s;
  for (std::size_t k = 0; k < parts.size() && static_cast<int>(k) < depth; ++k) s += (k ? "/" : "") + parts[k];
  return s;
}

bool floating(int elem) { return elem == 1 || elem == 10 || elem == 11 || elem == 16 || (elem >= 17 && elem <= 20); }

std::vector<group_cost> sorted(std::map<std::string, group_cost>& m) {
  std::vector<group_cost> v;
  for (auto& [k, g] : m) v.push_back(g);
  std::stable_sort(v.begin(), v.end(), [](const group_cost& a, const group_cost& b) { return a.c.flops > b.c.flops; });
  return v;
}

}  // namespace

void costs::add(const costs& o) {
  flops += o.flops;
  macs += o.macs;
  parameters += o.parameters;
  activation_bytes += o.activation_bytes;
  weight_bytes += o.weight_bytes;
  time_s += o.time_s;
}

double element_bytes(int t) noexcept {
  switch (t) {
    case 1:
    case 6:
    case 12:
      return 4;
    case 2:
    case 3:
    case 9:
    case 17:
    case 18:
    case 19:
    case 20:
      return 1;
    case 4:
    case 5:
    case 10:
    case 16:
      return 2;
    case 7:
    case 11:
    case 13:
    case 14:
      return 8;
    case 15:
      return 16;
    case 21:
    case 22:
      return 0.5;
    default:
      return 0;
  }
}

result run(const graph& g, const options& o) {
  if (o.depth < 1) throw error(error_code::invalid_argument, "--depth", "expected a depth of at least 1");
  result r;
  const hardware_spec& gpu = o.gpu ? *o.gpu : find_gpu("H100");
  r.gpu = gpu.name;
  std::set<std::string> used;
  std::unordered_map<std::string, value> vals;
  std::set<std::string> init_names;

  const auto resolve = [&](const tensor_info& t, bool strict) -> std::optional<shape> {
    if (!t.has_shape) return std::nullopt;
    shape s;
    for (const auto& d : t.dims) {
      if (d.value >= 0) {
        s.push_back(d.value);
        continue;
      }
      if (!d.symbol.empty()) {
        auto it = o.dims.find(d.symbol);
        if (it != o.dims.end()) {
          used.insert(d.symbol);
          s.push_back(it->second);
          continue;
        }
      }
      if (strict)
        throw error(error_code::invalid_argument, "--dim",
                    d.symbol.empty() ? "graph input \"" + t.name + "\" has a dimension of unknown size"
                                     : "unbound symbolic dimension \"" + d.symbol + "\" of graph input \"" + t.name +
                                           "\": bind it with --dim " + d.symbol + "=N");
      return std::nullopt;
    }
    return s;
  };

  for (const auto& t : g.initializers) {
    value v;
    v.known = true;
    for (const auto& d : t.dims) {
      if (d.value < 0)
        throw error(error_code::config_range, "/initializers", "initializer \"" + t.name + "\" has an unknown size");
      v.s.push_back(d.value);
    }
    v.elem = t.elem_type;
    v.has_values = t.has_values;
    v.values = t.values;
    v.initializer = true;
    vals[t.name] = v;
    init_names.insert(t.name);
  }
  for (const auto& t : g.inputs) {
    if (init_names.count(t.name)) continue;
    auto s = resolve(t, true);
    if (!s) throw error(error_code::config_missing, "/inputs", "graph input \"" + t.name + "\" has no shape");
    vals[t.name] = of(*s, t.elem_type);
  }
  std::unordered_map<std::string, value> stored;
  for (const auto* list : {&g.value_infos, &g.outputs})
    for (const auto& t : *list)
      if (auto s = resolve(t, false)) stored[t.name] = of(*s, t.elem_type);
  for (const auto& [k, v] : o.dims)
    if (!used.count(k))
      throw error(error_code::invalid_argument, "--dim", "no tensor of the graph has a dimension named \"" + k + "\"");

  // Bytes per element as the options ask (weight-only formats keep 16-bit activations).
  const auto bytes_of = [&](const value& v) {
    const double n = numel(v.s);
    if (v.initializer && floating(v.elem) && o.weights) return n * storage_bytes(*o.weights);
    if (!v.initializer && floating(v.elem) && o.activations) return n * storage_bytes(*o.activations);
    return n * element_bytes(v.elem);
  };
  // The compute rate: the requested activation precision, else the widest float type in the graph.
  precision cp = o.activations.value_or(precision::fp32);
  if (!o.activations) {
    bool any32 = false, any16 = false, anyb = false;
    for (const auto& [k, v] : vals) {
      any32 = any32 || v.elem == 1;
      any16 = any16 || v.elem == 10;
      anyb = anyb || v.elem == 16;
    }
    cp = any32 ? precision::fp32 : anyb ? precision::bf16 : any16 ? precision::fp16 : precision::fp32;
  }
  r.compute_precision = cp;
  r.peak_flops_per_s = gpu.peak(cp).value_or(gpu.peak(precision::bf16).value_or(0));
  r.bandwidth_bytes_per_s = gpu.memory_bandwidth_bytes_per_s;

  std::map<std::string, group_cost> ops, scopes;
  std::set<std::string> counted_params, unknown;
  r.total.key = "total";
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const node& n = g.nodes[i];
    ctx c{n, i, {}, g.opset};
    bool inputs_known = true;
    for (const auto& name : n.inputs) {
      if (name.empty()) {
        c.in.push_back(nullptr);
        continue;
      }
      auto it = vals.find(name);
      if (it == vals.end() || !it->second.known) {
        inputs_known = false;
        static const value none;
        c.in.push_back(&none);
      } else {
        c.in.push_back(&it->second);
      }
    }
    node_cost nc;
    nc.name = n.name;
    nc.op_type = n.op_type;
    nc.scope = scope_of(n.name, o.depth);
    const bool rule = has_rule(n.op_type) && (n.domain.empty() || n.domain == "ai.onnx" || n.domain == "com.microsoft");
    std::optional<std::vector<value>> outs;
    if (rule) {
      try {
        outs = propagate(c);
      } catch (const std::out_of_range&) {
        fail(i, n, "an axis, index or permutation is out of range");
      }
      if (outs)
        for (const auto& v : *outs)
          for (auto d : v.s)
            if (d < 0) fail(i, n, "an output would have a negative size");
    }
    std::vector<value> out(n.outputs.size());
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (outs && k < outs->size())
        out[k] = (*outs)[k];
      else if (auto it = stored.find(n.outputs[k]); it != stored.end())
        out[k] = it->second;
    }
    const bool outputs_known = std::all_of(out.begin(), out.end(), [](const value& v) { return v.known; });
    nc.status = !rule ? "unknown_op" : (inputs_known && outputs_known) ? "ok" : "unknown_shape";
    if (!rule) unknown.insert(n.op_type);
    if (nc.status == "ok") {
      if (!count(c, out, nc.c)) {
        nc.c = costs{};
        nc.status = "unknown_shape";
      } else if (!(nc.c.flops >= 0 && nc.c.macs >= 0 && std::isfinite(nc.c.flops))) {
        fail(i, n, "the sizes give no finite, non-negative count");
      }
    }
    if (nc.status == "ok") {
      std::set<std::string> seen;
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        if (!c.in[k] || !seen.insert(n.inputs[k]).second) continue;
        const double b = bytes_of(*c.in[k]);
        if (c.in[k]->initializer) {
          nc.c.weight_bytes += b;
          if (floating(c.in[k]->elem) && counted_params.insert(n.inputs[k]).second) nc.c.parameters += numel(c.s(k));
        } else {
          nc.c.activation_bytes += b;
        }
      }
      for (const auto& v : out) nc.c.activation_bytes += bytes_of(v);
      const double bytes = nc.c.activation_bytes + nc.c.weight_bytes;
      const double tc = r.peak_flops_per_s > 0 ? nc.c.flops / r.peak_flops_per_s : 0;
      const double tm = r.bandwidth_bytes_per_s > 0 ? bytes / r.bandwidth_bytes_per_s : 0;
      nc.c.time_s = std::max(tc, tm);
      nc.compute_bound = tc >= tm && nc.c.flops > 0;
      nc.intensity = bytes > 0 ? nc.c.flops / bytes : 0;
    }
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      nc.output_shapes.push_back(out[k].known ? out[k].s : shape{});
      if (!n.outputs[k].empty()) vals[n.outputs[k]] = out[k];
    }
    const bool costed = nc.status == "ok";
    for (auto* grp : {&ops[n.op_type], &scopes[nc.scope], &r.total}) {
      grp->nodes += 1;
      grp->not_costed += costed ? 0 : 1;
      grp->c.add(nc.c);
    }
    ops[n.op_type].key = n.op_type;
    scopes[nc.scope].key = nc.scope;
    r.nodes.push_back(std::move(nc));
  }
  // Weight bytes in the totals: each initializer once (a shared weight is read by each node).
  r.total.c.weight_bytes = 0;
  std::set<std::string> read;
  for (const auto& n : g.nodes)
    for (const auto& name : n.inputs)
      if (init_names.count(name) && read.insert(name).second) r.total.c.weight_bytes += bytes_of(vals[name]);
  r.by_op = sorted(ops);
  r.by_scope = sorted(scopes);
  r.unknown_ops.assign(unknown.begin(), unknown.end());
  return r;
}

}  // namespace flopcast::profile
