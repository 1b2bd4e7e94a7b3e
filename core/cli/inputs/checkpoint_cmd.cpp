#include "inputs/checkpoint_cmd.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string_view>

#include "common.hpp"
#include "flopcast/flopcast.hpp"
#include "report_text.hpp"

namespace flopcast::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_index_name(const std::string& path) { return ends_with(path, ".safetensors.index.json"); }

std::uint64_t file_size_of(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw error(error_code::io, "", "cannot read \"" + path + "\": it is a directory, expected a checkpoint file");
  const std::uintmax_t n = fs::file_size(path, ec);
  if (ec) throw error(error_code::io, "", "cannot read \"" + path + "\": " + ec.message());
  return n;
}

// The first `n` bytes of the file (fewer if it is shorter).
std::string read_prefix(const std::string& path, std::uint64_t n) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(error_code::io, "", "cannot read \"" + path + "\": " + std::strerror(errno));
  std::string out(static_cast<std::size_t>(n), '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  if (in.bad()) throw error(error_code::io, "", "cannot read \"" + path + "\": " + std::strerror(errno));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

// Runs fn, adding the file's name to a flopcast::error.
template <class F>
auto in_file(const std::string& path, F&& fn) {
  try {
    return fn();
  } catch (const error& e) {
    if (e.code() == error_code::io) throw;
    throw error(e.code(), e.pointer(), e.message() + " in " + path);
  }
}

checkpoint_info read_header_file(const std::string& path) {
  const std::uint64_t size = file_size_of(path);
  std::string head = read_prefix(path, std::min<std::uint64_t>(size, std::uint64_t{1} << 20));
  return in_file(path, [&] {
    const auto format = detect_checkpoint_format(head);
    if (format != checkpoint_format::gguf && format != checkpoint_format::safetensors) {
      // A short or odd .safetensors file: the reader says what is wrong with its header.
      if (ends_with(path, ".safetensors")) return read_safetensors(head, static_cast<std::int64_t>(size));
      throw error(error_code::config_parse, "",
                  "not a checkpoint: expected a GGUF file (magic \"GGUF\") or a safetensors file (8-byte header "
                  "length, then '{')");
    }
    for (;;) {
      const std::size_t need = checkpoint_header_bytes(head);
      if (need <= head.size() || head.size() >= size) break;
      // Grow geometrically (GGUF asks one read at a time); the core bounds `need`.
      const std::uint64_t want = std::min<std::uint64_t>(size, std::max<std::uint64_t>(need, 2 * head.size()));
      head = read_prefix(path, want);
    }
    return read_checkpoint(head, static_cast<std::int64_t>(size));
  });
}

std::string folder_of(const std::string& path) {
  const fs::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// The config.json beside a safetensors checkpoint, or nullopt.
std::optional<std::string> config_beside(const std::string& path) {
  const std::string config = (fs::path(folder_of(path)) / "config.json").string();
  std::error_code ec;
  if (!fs::is_regular_file(config, ec)) return std::nullopt;
  return config;
}

std::string label_of(const checkpoint_info& c, const std::string& path) {
  const checkpoint_metadata* name = c.find("general.name");
  if (name != nullptr && name->type == "string" && !name->text.empty()) return name->text;
  return fs::path(path).stem().string();
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string cut(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n) + "..."; }

json total_json(const checkpoint_total& t) {
  json j = {{"name", t.name}, {"tensors", t.tensors}, {"elements", t.elements}, {"bytes", t.bytes}};
  j["bits_per_weight"] = t.elements > 0 ? 8.0 * static_cast<double>(t.bytes) / static_cast<double>(t.elements) : 0.0;
  return j;
}

}  // namespace

bool is_checkpoint_path(const std::string& path) {
  if (ends_with(path, ".safetensors") || ends_with(path, ".gguf") || is_index_name(path)) return true;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  const std::string head = read_prefix(path, 9);
  const auto f = detect_checkpoint_format(head);
  return f == checkpoint_format::gguf || f == checkpoint_format::safetensors;
}

checkpoint_info read_checkpoint_file(const std::string& path) {
  if (!is_index_name(path)) return read_header_file(path);
  const safetensors_index index = in_file(path, [&] { return read_safetensors_index(read_file(path, "")); });
  std::vector<std::pair<std::string, checkpoint_info>> shards;
  for (const std::string& shard : index.shards) {
    const std::string p = (fs::path(folder_of(path)) / shard).string();
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) continue;  // noted by combine_safetensors
    shards.emplace_back(shard, read_header_file(p));
  }
  return combine_safetensors(index, shards);
}

json checkpoint_model_value(const std::string& path, checkpoint_info* info) {
  const checkpoint_info c = read_checkpoint_file(path);
  if (info != nullptr) *info = c;
  if (c.format == checkpoint_format::gguf) {
    // Mapped and read here, so an error names the GGUF key rather than the built config's field.
    in_file(path, [&] { return gguf_model_spec(c); });
    json config = json::parse(gguf_config_json(c));
    config["_name_or_path"] = label_of(c, path);
    return config;
  }
  const std::optional<std::string> config = config_beside(path);
  if (!config)
    throw error(error_code::config_missing, "/model",
                "a safetensors checkpoint holds no architecture: expected a config.json beside \"" + path + "\" (" +
                    (fs::path(folder_of(path)) / "config.json").string() + ")");
  return model_value(*config, "/model");
}

inspect_command add_inspect_command(CLI::App& parent) {
  struct options {
    std::string file;
    bool json = false, tensors = false;
  };
  auto o = std::make_shared<options>();
  inspect_command cmd;
  cmd.app = parent.add_subcommand(
      "inspect", "Tensors, exact bytes, quantization mix and the architecture check of a checkpoint's header");
  CLI::App& a = *cmd.app;
  a.add_option("FILE", o->file, "A .safetensors, model.safetensors.index.json or .gguf file (only its header is read)")
      ->required();
  a.add_flag("--json", o->json, "Print JSON");
  a.add_flag("--tensors", o->tensors, "List every tensor");

  cmd.run = [o] {
    const std::string& path = o->file;
    const checkpoint_info c = read_checkpoint_file(path);
    // The architecture: GGUF's own keys, or the config.json beside a safetensors checkpoint.
    std::optional<model_spec> spec;
    std::string arch_source, arch_error;
    try {
      if (c.format == checkpoint_format::gguf) {
        spec = in_file(path, [&] { return gguf_model_spec(c); });
        arch_source = "GGUF keys";
      } else if (const auto config = config_beside(path)) {
        spec = read_hf_config(model_value(*config, "/model").dump());
        arch_source = *config;
      } else {
        arch_error = "no config.json beside the file (a safetensors checkpoint holds no architecture)";
      }
    } catch (const error& e) {
      arch_error = cli_message(e);
    }
    std::optional<checkpoint_comparison> cmp;
    if (spec) cmp = compare_checkpoint(c, *spec);

    if (o->json) {
      json j;
      j["file"] = path;
      j["format"] = std::string(to_string(c.format));
      if (c.format == checkpoint_format::gguf) {
        j["gguf_version"] = c.gguf_version;
        j["architecture"] = c.architecture;
        j["alignment"] = c.alignment;
      }
      j["header_bytes"] = c.header_bytes;
      j["data_start"] = c.data_start;
      j["tensor_count"] = c.tensors.size();
      j["total_elements"] = c.total_elements;
      j["total_bytes"] = c.total_bytes;
      j["bits_per_weight"] = c.bits_per_weight();
      if (c.declared_total_size >= 0) j["declared_total_size"] = c.declared_total_size;
      j["by_dtype"] = json::array();
      for (const auto& t : c.by_dtype) j["by_dtype"].push_back(total_json(t));
      j["by_component"] = json::array();
      for (const auto& t : c.by_component) j["by_component"].push_back(total_json(t));
      j["metadata"] = json::array();
      for (const auto& m : c.metadata)
        j["metadata"].push_back({{"key", m.key}, {"type", m.type}, {"value", cut(m.text, 200)}});
      // The tensors are dumped one at a time below: a tree of every tensor's object held 250 MB
      // for a 150k-tensor header (issue 26).
      j["tensors"] = json::array();
      j["notes"] = c.notes;
      if (c.format == checkpoint_format::gguf && spec) j["config"] = json::parse(gguf_config_json(c));
      if (cmp) {
        json k = {{"source", arch_source},
                  {"checkpoint_elements", cmp->checkpoint_elements},
                  {"architecture_parameters", cmp->architecture_parameters},
                  {"matches", cmp->matches()},
                  {"unaccounted", cmp->unaccounted}};
        k["components"] = json::array();
        for (const auto& r : cmp->rows)
          k["components"].push_back(
              {{"component", r.component}, {"checkpoint", r.checkpoint}, {"architecture", r.architecture}});
        j["architecture_check"] = std::move(k);
      } else {
        j["architecture_check"] = {{"error", arch_error}};
      }
      // Keys are dumped sorted; only total_bytes and total_elements (numbers) follow "tensors", so
      // the last occurrence of its empty slot is the key itself, not text inside a string. The
      // tensors go out one at a time between its brackets.
      const std::string text = j.dump();
      const std::string slot = "\"tensors\":[";
      const std::size_t inside = text.rfind(slot + "]") + slot.size();
      std::cout << std::string_view(text).substr(0, inside);
      bool first = true;
      for (const auto& t : c.tensors) {
        json x = {{"name", t.name},
                  {"dtype", t.dtype},
                  {"shape", t.shape},
                  {"elements", t.elements},
                  {"bytes", t.bytes},
                  {"offset", t.offset},
                  {"component", std::string(to_string(t.component))}};
        if (!t.file.empty()) x["file"] = t.file;
        std::cout << (first ? "" : ",") << x.dump();
        first = false;
      }
      std::cout << std::string_view(text).substr(inside) << "\n";
      return 0;
    }

    std::string kind(to_string(c.format));
    if (c.format == checkpoint_format::gguf) kind += fmt::format(" v{}, {}", c.gguf_version, c.architecture);
    std::cout << fmt::format("flopcast inspect: {} ({}, {} tensors, header {} bytes)\n", path, kind, c.tensors.size(),
                             c.header_bytes);
    std::cout << fmt::format("  parameters (elements) : {} ({})\n", c.total_elements,
                             format_count(static_cast<double>(c.total_elements)));
    std::cout << fmt::format("  weight bytes          : {} ({}, EXACT from the header)\n", c.total_bytes,
                             format_bytes(static_cast<double>(c.total_bytes)));
    std::cout << fmt::format("  bits per weight       : {}\n", format_number(c.bits_per_weight()));
    if (c.declared_total_size >= 0) std::cout << fmt::format("  index total_size      : {}\n", c.declared_total_size);
    const auto totals = [](const char* title, const std::vector<checkpoint_total>& rows) {
      std::cout << fmt::format("  by {}:\n", title);
      for (const auto& t : rows)
        std::cout << fmt::format(
            "    {:<16} {:>6} tensors {:>16} elements {:>14} bytes {:>10} {:>8} bits/weight\n", t.name, t.tensors,
            t.elements, t.bytes, format_bytes(static_cast<double>(t.bytes)),
            t.elements > 0 ? format_number(8.0 * static_cast<double>(t.bytes) / static_cast<double>(t.elements))
                           : std::string(none_text));
    };
    totals(c.format == checkpoint_format::gguf ? "quantization type" : "dtype", c.by_dtype);
    totals("component", c.by_component);
    for (const std::string& n : c.notes) std::cout << "  note: " << n << "\n";
    if (cmp) {
      std::cout << fmt::format(
          "  architecture count    : {} ({}, from {}) -> {}\n", cmp->architecture_parameters, spec->model_type,
          arch_source,
          cmp->matches() ? "matches the checkpoint"
                         : fmt::format("differs by {}", cmp->checkpoint_elements - cmp->architecture_parameters));
      for (const auto& r : cmp->rows)
        std::cout << fmt::format("    {:<12} checkpoint {:>16}  flopcast {:>16}{}\n", r.component, r.checkpoint,
                                 r.architecture, r.checkpoint == r.architecture ? "" : "  (differs)");
      if (!cmp->unaccounted.empty()) {
        std::string names;
        for (std::size_t i = 0; i < cmp->unaccounted.size() && i < 8; ++i)
          names += (i ? ", " : "") + cmp->unaccounted[i];
        if (cmp->unaccounted.size() > 8) names += fmt::format(", ... ({} in all)", cmp->unaccounted.size());
        std::cout << "  not in the architecture model: " << names << "\n";
      }
    } else {
      std::cout << "  architecture count    : not compared: " << arch_error << "\n";
    }
    if (o->tensors) {
      std::cout << "  tensors:\n";
      for (const auto& t : c.tensors)
        std::cout << fmt::format("    {:<48} {:<8} {:<24} {:>14} bytes  {}{}\n", t.name, t.dtype, shape_text(t.shape),
                                 t.bytes, to_string(t.component), t.file.empty() ? "" : "  " + t.file);
    }
    return 0;
  };
  return cmd;
}

}  // namespace flopcast::cli
