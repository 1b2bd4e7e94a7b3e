#include "inputs/hub.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "common.hpp"
#include "flopcast/flopcast.hpp"
#include "flopcast/io/request_json.hpp"
#include "inputs/curl_library.hpp"

namespace flopcast::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t max_bytes = std::size_t{16} << 20;
constexpr long default_total_ms = 30000;
constexpr long default_connect_ms = 10000;
constexpr long min_index_ms = 1000;  // the optional index is not asked for with less of the deadline left
constexpr const char* token_hint =
    "gated or private repository: accept its license on the Hub and set HF_TOKEN=<token>";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool offline() {
  std::string v = env("HF_HUB_OFFLINE");
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

std::string& revision_override() {
  static std::string k = "main";
  return k;
}

// Percent-encodes everything but RFC 3986's unreserved characters (so "/" in a revision too).
std::string encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// A git ref name as the Hub takes it (git check-ref-format: no component begins with "." and so
// none is "." or ".."; no "..", no empty component): "refs/pr/1" is one, "." and "a/../b" are
// not. The cache folder is the percent-encoded revision, so a valid one is never a path of its own.
void check_revision(const std::string& r) {
  const bool chars = std::all_of(r.begin(), r.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == '/';
  });
  bool dot_segment = !r.empty() && r.front() == '.';
  for (std::size_t i = 1; i < r.size(); ++i) dot_segment = dot_segment || (r[i - 1] == '/' && r[i] == '.');
  if (r.empty() || r.size() > 256 || !chars || r.find("..") != std::string::npos || r.front() == '/' ||
      r.back() == '/' || r.find("//") != std::string::npos || dot_segment)
    throw error(error_code::invalid_argument, "--revision",
                "expected a branch, tag or commit of at most 256 of [A-Za-z0-9._/-], no part starting with \".\", "
                "without \"..\" or \"//\", but got \"" +
                    r + "\"");
}

std::string endpoint(const std::string& pointer) {
  std::string e = env("HF_ENDPOINT");
  if (e.empty()) e = "https://huggingface.co";
  while (!e.empty() && e.back() == '/') e.pop_back();
  if (e.rfind("https://", 0) != 0 && e.rfind("http://", 0) != 0)
    throw error(error_code::invalid_argument, pointer, "HF_ENDPOINT=\"" + e + "\" is not an http(s) URL");
  return e;
}

long timeout_ms(const std::string& pointer) {
  const std::string t = env("FLOPCAST_HUB_TIMEOUT_MS");
  if (t.empty()) return default_total_ms;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(t.c_str(), &end, 10);
  if (end != t.c_str() + t.size() || errno != 0 || v <= 0 || v > 3600000)
    throw error(error_code::invalid_argument, pointer,
                "FLOPCAST_HUB_TIMEOUT_MS=\"" + t + "\": expected milliseconds from 1 to 3600000");
  return v;
}

fs::path hf_home() {
  if (std::string h = env("HF_HOME"); !h.empty()) return h;
  if (std::string x = env("XDG_CACHE_HOME"); !x.empty()) return fs::path(x) / "huggingface";
  if (std::string h = env("HOME"); !h.empty()) return fs::path(h) / ".cache" / "huggingface";
  return fs::path(".cache") / "huggingface";
}

fs::path cache_dir(const std::string& repo_id, const std::string& revision) {
  const auto slash = repo_id.find('/');
  return hf_home() / "flopcast" / (repo_id.substr(0, slash) + "--" + repo_id.substr(slash + 1)) / encode(revision);
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// Writes `text` to `target` atomically (a unique temporary file beside it, then rename). A cache
// that cannot be written is no error: the next run fetches again.
void cache_write(const fs::path& target, const std::string& text) {
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return;
  std::string tmp = (target.parent_path() / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return;
  bool ok = ::fchmod(fd, 0644) == 0;
  const char* p = text.data();
  std::size_t left = text.size();
  while (ok && left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ok = false;
    if (n > 0) {
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  ok = ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), target.c_str()) != 0) ::unlink(tmp.c_str());
}

struct response {
  long status = 0;
  std::string body;
  std::string error_code;  // the Hub's X-Error-Code header (RepoNotFound, GatedRepo, ...)
  bool too_large = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* r = static_cast<response*>(user);
  const std::size_t n = size * count;
  if (r->body.size() + n > max_bytes) {
    r->too_large = true;
    return 0;  // aborts the transfer
  }
  r->body.append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* r = static_cast<response*>(user);
  const std::size_t n = size * count;
  std::string line(data, n);
  if (line.rfind("HTTP/", 0) == 0) r->error_code.clear();  // a new response (after a redirect)
  const auto colon = line.find(':');
  if (colon == std::string::npos) return n;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name == "x-error-code") {
    std::string v = line.substr(colon + 1);
    const auto b = v.find_first_not_of(" \t");
    const auto e = v.find_last_not_of(" \t\r\n");
    r->error_code = b == std::string::npos ? std::string() : v.substr(b, e - b + 1);
  }
  return n;
}

struct curl_deleter {
  void (*cleanup)(CURL*);
  void operator()(CURL* c) const { cleanup(c); }
};
struct slist_deleter {
  void (*free_all)(curl_slist*);
  void operator()(curl_slist* s) const { free_all(s); }
};

// One GET of `url` within `total` ms (what is left of the fetch's one deadline). Transport
// failures throw at `pointer`; any HTTP status comes back.
response get(const std::string& url, const std::string& base, const std::string& pointer, long total) {
  const curl_library& lib = load_curl(pointer);
  const long all = timeout_ms(pointer);
  const long connect = std::min(total, default_connect_ms);
  std::unique_ptr<CURL, curl_deleter> curl(lib.easy_init(), curl_deleter{lib.easy_cleanup});
  if (!curl) throw error(error_code::io, pointer, "cannot start libcurl");
  CURL* c = curl.get();
  response r;
  char errbuf[CURL_ERROR_SIZE] = {};
  std::unique_ptr<curl_slist, slist_deleter> headers(nullptr, slist_deleter{lib.slist_free_all});
  const auto add_header = [&](const std::string& h) {
    curl_slist* s = lib.slist_append(headers.get(), h.c_str());
    if (!s) throw error(error_code::io, pointer, "cannot start libcurl: out of memory");
    (void)headers.release();
    headers.reset(s);
  };
  add_header("Accept: application/json, */*");
  if (const std::string token = env("HF_TOKEN"); !token.empty()) {
    if (std::any_of(token.begin(), token.end(), [](unsigned char ch) { return ch < 0x20 || ch == 0x7f; }))
      throw error(error_code::invalid_argument, pointer, "HF_TOKEN contains a control character");
    add_header("Authorization: Bearer " + token);  // libcurl never sends it to another host on a redirect
  }
  const std::string agent =
      std::string("flopcast/") + flopcast::version() + " (config.json fetch; " + lib.version() + ")";
  lib.easy_setopt(c, CURLOPT_URL, url.c_str());
  lib.easy_setopt(c, CURLOPT_HTTPGET, 1L);
  lib.easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  lib.easy_setopt(c, CURLOPT_USERAGENT, agent.c_str());
  lib.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  lib.easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
#if LIBCURL_VERSION_NUM >= 0x075500
  lib.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  lib.easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
  lib.easy_setopt(c, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
  lib.easy_setopt(c, CURLOPT_REDIR_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  lib.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, connect);
  lib.easy_setopt(c, CURLOPT_TIMEOUT_MS, total);
  lib.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  lib.easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // gzip etc.; the limit applies to the decoded bytes
  lib.easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(max_bytes));
  lib.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  lib.easy_setopt(c, CURLOPT_WRITEDATA, &r);
  lib.easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  lib.easy_setopt(c, CURLOPT_HEADERDATA, &r);
  lib.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  const CURLcode rc = lib.easy_perform(c);
  lib.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  if (rc == CURLE_OK) return r;
  const std::string detail = errbuf[0] ? std::string(errbuf) : std::string(lib.easy_strerror(rc));
  switch (rc) {
    case CURLE_WRITE_ERROR:
    case CURLE_FILESIZE_EXCEEDED:
      if (rc == CURLE_FILESIZE_EXCEEDED || r.too_large)
        throw error(error_code::limit, pointer, url + " is larger than 16 MiB: expected a JSON file of at most 16 MiB");
      break;
    case CURLE_OPERATION_TIMEDOUT:
      throw error(error_code::io, pointer,
                  url + ": timed out (" + std::to_string(std::min(all, default_connect_ms)) + " ms to connect, " +
                      std::to_string(all) + " ms in all; FLOPCAST_HUB_TIMEOUT_MS sets the total)");
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      throw error(error_code::io, pointer,
                  "cannot resolve the host of " + base + " (" + detail +
                      "): check the network or HF_ENDPOINT, or set HF_HUB_OFFLINE=1 to use the cache only");
    case CURLE_COULDNT_CONNECT:
      throw error(error_code::io, pointer,
                  "cannot connect to " + base + " (" + detail +
                      "): check the network or HF_ENDPOINT, or set HF_HUB_OFFLINE=1 to use the cache only");
    case CURLE_TOO_MANY_REDIRECTS:
      throw error(error_code::io, pointer, url + ": more than 10 redirects");
    case CURLE_UNSUPPORTED_PROTOCOL:
      throw error(error_code::io, pointer, url + ": redirected to a URL that is not http(s) (" + detail + ")");
    default:
      break;
  }
  throw error(error_code::io, pointer, url + ": " + detail);
}

[[noreturn]] void http_error(const response& r, const std::string& url, const std::string& pointer) {
  const std::string head = url + ": HTTP " + std::to_string(r.status) + ": ";
  if (r.status == 401 || r.status == 403) {
    std::string m = head;
    if (r.error_code == "RepoNotFound") m += "no such repository, or a ";
    m += token_hint;
    if (!env("HF_TOKEN").empty()) m += " (the HF_TOKEN set was refused)";
    throw error(error_code::io, pointer, m);
  }
  if (r.status == 404) {
    std::string which = "no such repository, revision or file";
    if (r.error_code == "RepoNotFound") which = "no such repository";
    if (r.error_code == "RevisionNotFound") which = "no such revision";
    if (r.error_code == "EntryNotFound") which = "no such file in the repository";
    throw error(error_code::io, pointer, head + which);
  }
  if (r.status == 429)
    throw error(error_code::io, pointer, head + "too many requests: try again later, or set HF_TOKEN");
  throw error(error_code::io, pointer, head + "expected 200");
}

// The text parsed with flopcast's limits, or the parse error naming where it came from.
nlohmann::json parse(const std::string& text, const std::string& origin, const std::string& pointer) {
  try {
    return parse_json_text(text, "config.json");
  } catch (const error& e) {
    throw error(e.code(), pointer, e.message() + " in " + origin);
  }
}

void check_config_object(const nlohmann::json& config, const std::string& origin, const std::string& pointer) {
  if (!config.is_object())
    throw error(
        error_code::config_type, pointer,
        "expected config.json to be a JSON object, but got " + std::string(config.type_name()) + " in " + origin);
}

}  // namespace

bool looks_like_hub_id(const std::string& name) {
  if (name.empty() || std::count(name.begin(), name.end(), '/') != 1) return false;
  const char first = name.front();
  return first != '/' && first != '.' && first != '~' && name.back() != '/';
}

void check_hub_id(const std::string& repo_id, const std::string& pointer) {
  const auto ok_part = [](const std::string& p) {
    const auto edge = [](unsigned char c) { return std::isalnum(c) || c == '_'; };
    return !p.empty() && p.size() <= 96 && edge(static_cast<unsigned char>(p.front())) &&
           edge(static_cast<unsigned char>(p.back())) && p.find("..") == std::string::npos &&
           p.find("--") == std::string::npos && std::all_of(p.begin(), p.end(), [](unsigned char c) {
             return std::isalnum(c) || c == '.' || c == '_' || c == '-';
           });
  };
  const auto slash = repo_id.find('/');
  if (slash == std::string::npos || !ok_part(repo_id.substr(0, slash)) || !ok_part(repo_id.substr(slash + 1)))
    throw error(error_code::invalid_argument, pointer,
                "\"" + repo_id +
                    "\" is neither a bundled model, a file nor a Hugging Face repository id: expected org/name, each "
                    "part 1 to 96 of [A-Za-z0-9._-] starting and ending with a letter, digit or \"_\", without \"..\" "
                    "or \"--\" (flopcast list-models lists the bundled ones)");
}

hub_files hub_fetch(const std::string& repo_id, const hub_options& o, const std::string& pointer) {
  check_hub_id(repo_id, pointer);
  check_revision(o.revision);
  const fs::path dir = cache_dir(repo_id, o.revision);
  const fs::path config_path = dir / "config.json";
  const fs::path index_path = dir / "model.safetensors.index.json";
  const fs::path absent_path = dir / "model.safetensors.index.json.absent";
  const bool off = offline();
  // One deadline for every request of this fetch: what is left of it bounds each request.
  using clock = std::chrono::steady_clock;
  const clock::time_point deadline = clock::now() + std::chrono::milliseconds(timeout_ms(pointer));
  const auto left_ms = [&] {
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count());
  };

  hub_files files;
  bool cached = false;
  if (is_file(config_path)) {
    files.config = read_file(config_path.string(), pointer);
    files.origin = config_path.string();
    (void)parse(files.config, files.origin + " (delete it to fetch it again)", pointer);
    cached = true;
  } else if (off) {
    throw error(error_code::io, pointer,
                repo_id + " at revision \"" + o.revision + "\" is not in the cache and HF_HUB_OFFLINE=1 (expected " +
                    config_path.string() + "; unset HF_HUB_OFFLINE to fetch it)");
  }
  const auto slash = repo_id.find('/');
  const auto url_of = [&](const char* file) {
    return endpoint(pointer) + "/" + encode(repo_id.substr(0, slash)) + "/" + encode(repo_id.substr(slash + 1)) +
           "/resolve/" + encode(o.revision) + "/" + file;
  };
  if (!cached) {
    const std::string url = url_of("config.json");
    response r = get(url, endpoint(pointer), pointer, std::max(1L, left_ms()));
    if (r.status != 200) http_error(r, url, pointer);
    // Checked before it is cached: what would be refused is never cached.
    check_config_object(parse(r.body, url, pointer), url, pointer);
    files.config = std::move(r.body);
    files.origin = url;
  }
  if (o.index) {
    if (is_file(index_path)) {
      try {
        files.index = read_file(index_path.string(), pointer);
      } catch (const error&) {
        files.index.reset();  // optional: an unreadable cached index is as good as none
      }
    } else if (!off && !is_file(absent_path) && left_ms() >= min_index_ms) {
      // Optional: only a 200 with a JSON object counts; a 404 is remembered, any other failure is
      // not. It gets what is left of the deadline, and is skipped when little is left.
      const std::string url = url_of("model.safetensors.index.json");
      try {
        response r = get(url, endpoint(pointer), pointer, left_ms());
        if (r.status == 200 && parse_json_text(r.body, "model.safetensors.index.json").is_object()) {
          cache_write(index_path, r.body);
          files.index = std::move(r.body);
        } else if (r.status == 404) {
          cache_write(absent_path, "");
        }
      } catch (const error&) {
        files.index.reset();
      }
    }
  }
  // The config last: a cached config means the index (or its absence) was settled before it.
  if (!cached) cache_write(config_path, files.config);
  return files;
}

nlohmann::json hub_config(const std::string& repo_id, const hub_options& o, const std::string& pointer) {
  const hub_files files = hub_fetch(repo_id, o, pointer);
  nlohmann::json config = parse(files.config, files.origin, pointer);
  check_config_object(config, files.origin, pointer);
  config["_name_or_path"] = repo_id;
  return config;
}

void set_hub_revision(const std::string& revision) { revision_override() = revision.empty() ? "main" : revision; }

const std::string& hub_revision() { return revision_override(); }

}  // namespace flopcast::cli
