#include "report_cmd.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "common.hpp"
#include "flopcast/report/report.hpp"

namespace flopcast::cli {
namespace {

namespace fs = std::filesystem;

// Where the page's build writes the placeholder; web/src/report/template.html holds it once.
constexpr std::string_view k_placeholder = "<!--flopcast-report-data-->";
constexpr const char* k_file = "report-runtime.html";

fs::path exe_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path(".") : self.parent_path();
}

// $FLOPCAST_REPORT_RUNTIME, else <exe dir>/../share/flopcast/ (an install), else <exe dir>/../dist/ (the build tree).
std::string find_runtime() {
  std::vector<fs::path> tried;
  if (const char* env = std::getenv("FLOPCAST_REPORT_RUNTIME"); env != nullptr && *env != '\0') {
    tried.emplace_back(env);
  } else {
    tried.push_back(exe_dir() / ".." / "share" / "flopcast" / k_file);
    tried.push_back(exe_dir() / ".." / "dist" / k_file);
  }
  for (const fs::path& p : tried) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return read_file(p.string(), "FLOPCAST_REPORT_RUNTIME");
  }
  std::string where;
  for (const fs::path& p : tried) where += (where.empty() ? "" : ", ") + p.lexically_normal().string();
  throw error(error_code::invalid_argument, "FLOPCAST_REPORT_RUNTIME",
              fmt::format("the report runtime ({}) was not found at {}: build it with `npm run build:web` (it is "
                          "written to dist/), install flopcast (share/flopcast/), or set FLOPCAST_REPORT_RUNTIME to "
                          "the file",
                          k_file, where));
}

void write_text(const std::string& path, const std::string& text, const char* option) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw error(error_code::invalid_argument, option, "could not write " + path);
}

// The first of chromium, chromium-browser, google-chrome on PATH (empty: none).
std::string find_chromium() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  std::vector<std::string> list;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty()) list.push_back(dir);
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
    for (const auto& d : list) {
      const fs::path p = fs::path(d) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
  return "";
}

// Prints `html` (a file) to `pdf` with headless Chromium; its output goes to stderr only on failure.
void print_pdf(const std::string& html, const std::string& pdf) {
  const std::string chromium = find_chromium();
  if (chromium.empty())
    throw error(error_code::invalid_argument, "--pdf",
                "--pdf needs Chromium (chromium, chromium-browser or google-chrome on PATH; on Debian: apt-get install "
                "chromium); the HTML report was written, and any browser's Print to PDF makes the same file");
  const std::string url = "file://" + fs::absolute(html).string();
  const std::string out_arg = "--print-to-pdf=" + fs::absolute(pdf).string();
  const std::string log = fs::absolute(pdf).string() + ".log";
  std::error_code ec;
  fs::remove(pdf, ec);
  const pid_t pid = fork();
  if (pid < 0) throw error(error_code::invalid_argument, "--pdf", "could not start " + chromium);
  if (pid == 0) {
    if (FILE* f = std::freopen(log.c_str(), "w", stdout)) (void)f;
    if (FILE* f = std::freopen(log.c_str(), "a", stderr)) (void)f;
    const char* args[] = {chromium.c_str(),
                          "--headless",
                          "--no-sandbox",
                          "--disable-gpu",
                          "--no-first-run",
                          "--no-pdf-header-footer",
                          "--run-all-compositor-stages-before-draw",
                          "--virtual-time-budget=5000",
                          out_arg.c_str(),
                          url.c_str(),
                          nullptr};
    execv(chromium.c_str(), const_cast<char* const*>(args));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const bool ok =
      WIFEXITED(status) && WEXITSTATUS(status) == 0 && fs::is_regular_file(pdf, ec) && fs::file_size(pdf, ec) > 0;
  if (!ok) {
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    std::cerr << text.str();
    fs::remove(log, ec);
    throw error(error_code::invalid_argument, "--pdf", chromium + " could not print " + html + " to " + pdf);
  }
  fs::remove(log, ec);
}

}  // namespace

std::string find_report_runtime() { return find_runtime(); }
void write_report_file(const std::string& path, const std::string& text, const char* option) {
  write_text(path, text, option);
}

std::string fill_report(std::string_view runtime, std::string_view data_json) {
  const std::size_t at = runtime.find(k_placeholder);
  if (at == std::string_view::npos)
    throw error(error_code::invalid_argument, "FLOPCAST_REPORT_RUNTIME",
                fmt::format("the report runtime has no data placeholder {}: rebuild it with `npm run build:web`",
                            k_placeholder));
  std::string data;
  data.reserve(data_json.size());
  for (const char c : data_json) {
    if (c == '<')
      data += "\\u003c";
    else
      data += c;
  }
  std::string out(runtime.substr(0, at));
  out += data;
  out += runtime.substr(at + k_placeholder.size());
  return out;
}

report_command add_report_command(CLI::App& parent) {
  struct state {
    request_options request;
    std::string output, pdf;
  };
  auto o = std::make_shared<state>();
  // The estimate's fields and the report part's (--serving).
  o->request.command = command_estimate | command_report;
  report_command cmd;
  cmd.app = parent.add_subcommand(
      "report", "Write one self-contained HTML report (the estimate's table and charts, printable), optionally a PDF");
  CLI::App& a = *cmd.app;
  a.add_option("MODEL", o->request.models, "Registry name or alias, or a path to a config.json")
      ->required()
      ->expected(1);
  add_request_options(a, o->request, false);
  a.add_option("-o,--output", o->output, "The HTML file to write")->required();
  a.add_option("--pdf", o->pdf, "Also print the report to this PDF file (needs Chromium)");

  cmd.run = [o] {
    const nlohmann::json req = build_request(o->request);
    const std::string data = report_json(req.dump(), -1);  // bad input fails before a missing runtime
    const std::string html = fill_report(find_runtime(), data);
    write_text(o->output, html, "--output");
    if (!o->pdf.empty()) print_pdf(o->output, o->pdf);
    std::cerr << "flopcast: wrote " << o->output << (o->pdf.empty() ? "" : " and " + o->pdf) << "\n";
    return 0;
  };
  return cmd;
}

}  // namespace flopcast::cli
