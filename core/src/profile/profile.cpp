// The graph profiler's driver (conventions in flopcast/profile/profile.hpp): one pass over the
// nodes in graph order, propagating shapes (shape_rules.cpp) and costing each node
// (cost_rules.cpp), then bytes, roofline time and the groups by op and by scope.
#include "flopcast/profile/profile.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "profile/graph_rules.hpp"

namespace flopcast::profile {
namespace {

using rules::count;
using rules::ctx;
using rules::fail;
using rules::has_rule;
using rules::numel;
using rules::of;
using rules::out_of_bounds;
using rules::propagate;
using rules::shape;
using rules::value;

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

// A graph tensor's shape within the profiler's sizes (flopcast/profile/limits.hpp), else the
// error at its JSON pointer.
void check_size(const shape& s, const std::string& ptr, const std::string& what) {
  if (const std::string why = out_of_bounds(s); !why.empty())
    throw error(error_code::config_range, ptr, what + " has " + why);
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

  for (std::size_t k = 0; k < g.initializers.size(); ++k) {
    const auto& t = g.initializers[k];
    value v;
    v.known = true;
    for (const auto& d : t.dims) {
      if (d.value < 0)
        throw error(error_code::config_range, "/initializers", "initializer \"" + t.name + "\" has an unknown size");
      v.s.push_back(d.value);
    }
    check_size(v.s, "/initializers/" + std::to_string(k), "initializer \"" + t.name + "\"");
    v.elem = t.elem_type;
    v.has_values = t.has_values;
    v.values = t.values;
    v.initializer = true;
    vals[t.name] = v;
    init_names.insert(t.name);
  }
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    const auto& t = g.inputs[k];
    if (init_names.count(t.name)) continue;
    auto s = resolve(t, true);
    if (!s) throw error(error_code::config_missing, "/inputs", "graph input \"" + t.name + "\" has no shape");
    check_size(*s, "/inputs/" + std::to_string(k), "graph input \"" + t.name + "\"");
    vals[t.name] = of(*s, t.elem_type);
  }
  std::unordered_map<std::string, value> stored;
  for (const auto* list : {&g.value_infos, &g.outputs})
    for (std::size_t k = 0; k < list->size(); ++k)
      if (auto s = resolve((*list)[k], false)) {
        const bool vi = list == &g.value_infos;
        check_size(*s, (vi ? "/value_infos/" : "/outputs/") + std::to_string(k),
                   (vi ? "value_info \"" : "graph output \"") + (*list)[k].name + "\"");
        stored[(*list)[k].name] = of(*s, (*list)[k].elem_type);
      }
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
      if (const std::string why = out_of_bounds(out[k].s); out[k].known && !why.empty())
        fail(i, n, "output " + std::to_string(k) + " (\"" + n.outputs[k] + "\") would have " + why);
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
