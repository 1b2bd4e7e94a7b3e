#include "inputs/curl_library.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include "flopcast/base/error.hpp"

namespace flopcast::cli {
namespace {

constexpr const char* library_name = "libcurl.so.4";

struct loaded {
  curl_library lib;
  std::string failure;  // empty: loaded
};

template <class Fn>
bool resolve(void* handle, const char* name, Fn& fn, std::string& failure) {
  void* p = ::dlsym(handle, name);
  if (!p) {
    failure = std::string("the loaded libcurl has no ") + name;
    return false;
  }
  fn = reinterpret_cast<Fn>(p);
  return true;
}

loaded open_curl() {
  loaded out;
  // FLOPCAST_LIBCURL names another library file (a libcurl of one's own; the tests point it at a
  // missing file to check the error).
  const char* chosen = std::getenv("FLOPCAST_LIBCURL");
  const std::string name = chosen && *chosen ? chosen : library_name;
  void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    out.failure = "cannot load " + name + (why ? std::string(" (") + why + ")" : std::string()) +
                  ": fetching from the Hub needs libcurl (Debian: apt-get install libcurl4); a local config.json "
                  "or a bundled model works without it";
    return out;
  }
  curl_library& l = out.lib;
  std::string& f = out.failure;
  const bool ok =
      resolve(handle, "curl_global_init", l.global_init, f) && resolve(handle, "curl_easy_init", l.easy_init, f) &&
      resolve(handle, "curl_easy_cleanup", l.easy_cleanup, f) &&
      resolve(handle, "curl_easy_setopt", l.easy_setopt, f) &&
      resolve(handle, "curl_easy_perform", l.easy_perform, f) &&
      resolve(handle, "curl_easy_getinfo", l.easy_getinfo, f) &&
      resolve(handle, "curl_easy_strerror", l.easy_strerror, f) &&
      resolve(handle, "curl_slist_append", l.slist_append, f) &&
      resolve(handle, "curl_slist_free_all", l.slist_free_all, f) && resolve(handle, "curl_version", l.version, f);
  if (!ok) return out;
  if (const CURLcode init = l.global_init(CURL_GLOBAL_DEFAULT); init != CURLE_OK)
    f = std::string("cannot start libcurl: ") + l.easy_strerror(init);
  return out;  // the library stays loaded for the life of the process
}

}  // namespace

const curl_library& load_curl(const std::string& pointer) {
  static const loaded once = open_curl();  // a function-local static: initialised once, thread-safe
  if (!once.failure.empty()) throw error(error_code::io, pointer, once.failure);
  return once.lib;
}

}  // namespace flopcast::cli
