// Shape propagation of the graph profiler: each op's output shapes (and the constant values of
// shape arithmetic) from its inputs and attributes, the op sets, and has_rule. Shared types and
// helpers: graph_rules.hpp; the cost rules: cost_rules.cpp.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "profile/graph_rules.hpp"

namespace flopcast::profile::rules {
namespace {

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
    if (strides[k] <= 0 || dil[k] <= 0 || kernel[k] <= 0 || pads[k] < 0 || pads[k + nsp] < 0)
      fail(c.index, c.n, "kernel sizes, strides and dilations must be positive and pads not negative");
    const std::int64_t in = x[i0 + k], eff = c.add(c.mul(dil[k], kernel[k] - 1), 1);
    // Ceiling divisions written so that a huge stride cannot overflow (n >= 0, d > 0).
    const auto ceil_div = [](std::int64_t n, std::int64_t d) { return n / d + (n % d != 0 ? 1 : 0); };
    std::int64_t o = 0;
    if (ap == "SAME_UPPER" || ap == "SAME_LOWER")
      o = ceil_div(in, strides[k]);
    else if (ap == "VALID")
      o = (in - eff) / strides[k] + 1;
    else {
      const std::int64_t span = c.sub(c.add(c.add(in, pads[k]), pads[k + nsp]), eff);
      o = (!ceil_mode ? span / strides[k]
           : span > 0 ? ceil_div(span, strides[k])
                      : (span + strides[k] - 1) / strides[k]) +
          1;
    }
    if (o <= 0) fail(c.index, c.n, "the window is larger than the padded input");
    out.push_back(o);
  }
  return out;
}

}  // namespace

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
          v.values.push_back(op == "Add"   ? c.add(x, y)
                             : op == "Sub" ? c.sub(x, y)
                             : op == "Mul" ? c.mul(x, y)
                             : y == -1     ? c.sub(0, x)  // INT64_MIN / -1 overflows
                             : y           ? x / y
                                           : 0);
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
    shape out{x[0], c.mul(w[1], group)};
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
        out.push_back(c.mul(x[2 + k], strides[k]));
      else  // strides (x - 1) + output_padding + (kernel - 1) dilation + 1 - pads, each step checked
        out.push_back(c.sub(
            c.sub(c.add(c.add(c.add(c.mul(strides[k], x[2 + k] - 1), op_[k]), c.mul(c.sub(kernel[k], 1), dil[k])), 1),
                  pads[k]),
            pads[k + nsp]));
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
    if (!c.has(0)) return std::nullopt;
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
      out[axis] = c.add(out[axis], c.s(k)[axis]);
      vals = vals && c.in[k]->has_values && v.size() + c.in[k]->values.size() <= max_values;
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
      // ceil(span / |step|) for a positive span, with no arithmetic on the step itself (it may be
      // any int64; s and e are clamped to [-1, dim]).
      const std::int64_t span = step > 0 ? e - s : s - e;
      out[ax] = span <= 0 ? 0 : step > 0 ? (span - 1) / step + 1 : 1 - (span - 1) / step;
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
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = c.mul(out[k], c.in[1]->values[k]);
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
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = c.add(c.add(out[k], (*pads)[k]), (*pads)[k + out.size()]);
    return std::vector<value>{of(out, e0)};
  }
  if (op == "Trilu") return same();
  if (op == "Range") {
    if (!c.has(0) || !c.has(1) || !c.has(2) || !c.in[0]->has_values || !c.in[1]->has_values || !c.in[2]->has_values)
      return std::nullopt;
    const std::int64_t s = c.in[0]->values.at(0), e = c.in[1]->values.at(0), d = c.in[2]->values.at(0);
    if (d == 0) fail(c.index, c.n, "delta is 0");
    const double n = std::max(0.0, std::ceil(static_cast<double>(c.sub(e, s)) / static_cast<double>(d)));
    if (n > static_cast<double>(k_max_dim))
      fail(c.index, c.n, "the range would have more than 2^40 elements: expected " + size_bound());
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

}  // namespace flopcast::profile::rules
