// The per-op cost rules of the graph profiler: FLOPs and MACs of one node from its input and
// output shapes (the conventions in flopcast/profile/profile.hpp). Shared types and helpers:
// graph_rules.hpp; shape propagation: shape_rules.cpp.
#include <map>
#include <string>
#include <vector>

#include "profile/graph_rules.hpp"

namespace flopcast::profile::rules {

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

}  // namespace flopcast::profile::rules
