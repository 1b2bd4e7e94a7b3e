#include "inputs/profile_cmd.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <memory>

#include "common.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/profile/profile.hpp"
#include "format.hpp"
#include "inputs/onnx_library.hpp"

namespace flopcast::cli {
namespace {

struct profile_options {
  std::string model, gpu = "H100", precision;
  std::vector<std::string> dims;
  std::string depth = "1";
  bool json = false, csv = false, graph = false;
};

}  // namespace

namespace {

// "batch=8,seq=2048" (the option may repeat) as the profile options' "dims" object: each size as
// typed (a JSON number where it is one), for the core to check.
nlohmann::json dims_json(const std::vector<std::string>& items) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& item : items) {
    std::size_t pos = 0;
    while (pos <= item.size()) {
      const std::size_t comma = std::min(item.find(',', pos), item.size());
      const std::string kv = item.substr(pos, comma - pos);
      pos = comma + 1;
      const std::size_t eq = kv.find('=');
      if (eq == 0 || eq == std::string::npos)
        throw error(error_code::invalid_argument, "--dim",
                    "expected NAME=SIZE (e.g. --dim batch=8,seq=2048), but got \"" + kv + "\"");
      out[kv.substr(0, eq)] = json_number_or_text(kv.substr(eq + 1));
      name_flag("/dims/" + kv.substr(0, eq), "--dim");
    }
  }
  return out;
}

}  // namespace

std::map<std::string, std::int64_t> parse_dims(const std::vector<std::string>& items) {
  return profile::read_options_json(nlohmann::json{{"dims", dims_json(items)}}.dump()).dims;
}

namespace {

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// MACs as format_flops writes FLOPs ("516 kMAC").
std::string format_macs(double macs) {
  const std::string f = format_flops(macs);
  return f.substr(0, f.find("FLOP")) + "MAC";
}

std::string group_table(const std::vector<profile::group_cost>& gs, const char* title, double total_time) {
  std::string out = fmt::format("{:<34} {:>6} {:>13} {:>13} {:>11} {:>11} {:>11} {:>11} {:>6}\n", title, "nodes",
                                "FLOPs", "MACs", "params", "act bytes", "wt bytes", "time", "time%");
  for (const auto& g : gs)
    out += fmt::format("{:<34} {:>6} {:>13} {:>13} {:>11} {:>11} {:>11} {:>11} {:>6}{}\n",
                       g.key.size() > 34 ? g.key.substr(0, 31) + "..." : g.key, g.nodes, format_flops(g.c.flops),
                       format_macs(g.c.macs), format_count(g.c.parameters), format_bytes(g.c.activation_bytes),
                       format_bytes(g.c.weight_bytes), format_seconds(g.c.time_s),
                       total_time > 0 ? fmt::format("{:.1f}", 100 * g.c.time_s / total_time) : "-",
                       g.not_costed ? fmt::format("  ({} not costed)", g.not_costed) : "");
  return out;
}

}  // namespace

profile_command add_profile_command(CLI::App& parent) {
  auto o = std::make_shared<profile_options>();
  profile_command cmd;
  cmd.app = parent.add_subcommand(
      "profile",
      "Profile any ONNX graph: FLOPs, MACs, parameters, bytes and roofline time per node, op type and module scope");
  CLI::App& a = *cmd.app;
  a.footer(
      "MODEL is an .onnx file (read by libflopcast_onnx, loaded on demand; ONNX shape inference runs when the file "
      "stores no shapes) or a graph .json in the profiler's neutral form (flopcast/profile.hpp). Symbolic "
      "dimensions have no defaults: bind each with --dim. Counting conventions: flopcast/profile.hpp (a "
      "multiply-add is 2 FLOPs; MACs count matmul-like ops only).");
  a.add_option("MODEL", o->model, "An .onnx file, or a neutral graph .json")->required();
  a.add_option("-g,--gpu", o->gpu, "Accelerator for the roofline (list-gpus)")->capture_default_str();
  a.add_option("-p,--precision", o->precision,
               "Bytes per element and compute rate: fp32, bf16, fp16, fp8, int8, int4... (weight-only formats keep "
               "16-bit activations); default: each tensor's own type");
  a.add_option("--dim", o->dims, "Symbolic dimension sizes, NAME=SIZE[,NAME=SIZE...] (e.g. batch=8,seq=2048)");
  a.add_option("--depth", o->depth, "Module-scope depth of the scope table (node-name parts split on / and .)")
      ->capture_default_str();
  auto* js = a.add_flag("--json", o->json, "Print the full profile (every node) as JSON");
  a.add_flag("--csv", o->csv, "Print one CSV row per node")->excludes(js);
  a.add_flag("--graph", o->graph, "Print the neutral graph JSON the profiler reads (what the page sends) and exit");

  cmd.run = [o] {
    // --dim and --depth become the profile options JSON the page sends (WASM's profile), which
    // the core reads and checks, so both refuse a bad size or depth with the same code and message.
    nlohmann::json options_json = {{"depth", json_number_or_text(o->depth)}};
    name_flag("/depth", "--depth");
    if (!o->dims.empty()) options_json["dims"] = dims_json(o->dims);
    profile::options opt = profile::read_options_json(options_json.dump());
    opt.gpu = &find_gpu(o->gpu);
    if (!o->precision.empty()) {
      profile::set_precision(opt, parse_precision(o->precision, "--precision"));
    }
    const bool is_json = o->model.size() > 5 && o->model.substr(o->model.size() - 5) == ".json";
    const std::string text = is_json ? read_file(o->model, "MODEL") : onnx_graph_json(o->model, "MODEL");
    if (o->graph) {
      std::cout << text << "\n";
      return 0;
    }
    const profile::result r = profile::run(profile::read_graph_json(text), opt);
    if (o->json) {
      std::cout << profile::to_json(r) << "\n";
      return 0;
    }
    if (o->csv) {
      std::cout << "name,op_type,scope,status,flops,macs,parameters,activation_bytes,weight_bytes,arithmetic_intensity,"
                   "bound,roofline_time_s\n";
      for (const auto& n : r.nodes)
        std::cout << fmt::format("{},{},{},{},{},{},{},{},{},{:.6g},{},{:.6g}\n", csv_text(n.name), csv_text(n.op_type),
                                 csv_text(n.scope), n.status, n.c.flops, n.c.macs, n.c.parameters, n.c.activation_bytes,
                                 n.c.weight_bytes, n.intensity, n.compute_bound ? "compute" : "memory", n.c.time_s);
      return 0;
    }
    const auto& t = r.total;
    std::cout << fmt::format("flopcast profile: {} on {} ({} {}, {})\n", o->model, r.gpu,
                             to_string(r.compute_precision), format_flop_rate(r.peak_flops_per_s),
                             format_bandwidth(r.bandwidth_bytes_per_s));
    std::cout << fmt::format(
        "  {} nodes ({} not costed)   FLOPs {}   MACs {}   parameters {}\n  weights {}   activations moved {}   "
        "roofline time {} (sum over nodes)\n\n",
        t.nodes, t.not_costed, format_flops(t.c.flops), format_macs(t.c.macs), format_count(t.c.parameters),
        format_bytes(t.c.weight_bytes), format_bytes(t.c.activation_bytes), format_seconds(t.c.time_s));
    std::cout << group_table(r.by_op, "op type", t.c.time_s) << "\n";
    std::cout << group_table(r.by_scope, fmt::format("scope (depth {})", opt.depth).c_str(), t.c.time_s);
    if (!r.unknown_ops.empty()) {
      std::cout << "\nNot costed (no rule for these ops; their FLOPs are missing from the totals):\n";
      for (const auto& op : r.unknown_ops)
        for (const auto& g : r.by_op)
          if (g.key == op) std::cout << fmt::format("  {} x {}  unknown\n", op, g.nodes);
    }
    std::int64_t shapeless = 0;
    for (const auto& n : r.nodes) shapeless += n.status == "unknown_shape" ? 1 : 0;
    if (shapeless)
      std::cout << fmt::format("\n{} node(s) not costed: their input shapes are unknown (see --json)\n", shapeless);
    return 0;
  };
  return cmd;
}

}  // namespace flopcast::cli
