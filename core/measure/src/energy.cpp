#include "flopcast/measure/energy.hpp"

#include <filesystem>
#include <fstream>

namespace flopcast::measure {

namespace {
std::optional<std::uint64_t> read_u64(const std::string& path) {
  std::ifstream in(path);
  std::uint64_t v = 0;
  if (in >> v) return v;
  return std::nullopt;
}
std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}
}  // namespace

energy_meter::energy_meter(std::string powercap_root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(powercap_root, ec)) {
    reason_ = "no " + powercap_root + ": RAPL energy counters are not exposed on this machine";
    return;
  }
  bool unreadable = false;
  for (const auto& entry : fs::directory_iterator(powercap_root, ec)) {
    const std::string dir = entry.path().string();
    const std::string name = read_line(dir + "/name");
    // Package domains only ("package-0", "package-1"); sub-domains (core, dram) are inside them.
    if (name.rfind("package", 0) != 0) continue;
    const auto energy = read_u64(dir + "/energy_uj");
    if (!energy) {
      unreadable = true;
      continue;
    }
    domains_.push_back({dir + "/energy_uj", read_u64(dir + "/max_energy_range_uj").value_or(0)});
  }
  if (domains_.empty())
    reason_ = unreadable ? "RAPL package counters exist but are not readable (permission)"
                         : "no RAPL package domain under " + powercap_root;
}

energy_meter::reading energy_meter::read() const {
  reading r;
  for (const auto& d : domains_) r.microjoules.push_back(read_u64(d.energy_path).value_or(0));
  return r;
}

std::optional<double> energy_meter::joules_between(const reading& a, const reading& b) const {
  if (!available() || a.microjoules.size() != domains_.size() || b.microjoules.size() != domains_.size())
    return std::nullopt;
  double total = 0;
  for (std::size_t i = 0; i < domains_.size(); ++i) {
    const std::uint64_t x = a.microjoules[i], y = b.microjoules[i];
    const std::uint64_t delta = y >= x ? y - x : domains_[i].range_uj - x + y;
    total += static_cast<double>(delta) * 1e-6;
  }
  return total;
}

}  // namespace flopcast::measure
