#pragma once
// libcurl, loaded when a command first fetches (dlopen), not linked: the ~30 shared libraries it
// pulls in (TLS, Kerberos, LDAP, SSH...) cost every CLI start about 3 ms in the dynamic loader
// even when nothing is fetched. The types come from <curl/curl.h>; the functions from the library.
#include <curl/curl.h>

#include <string>

namespace flopcast::cli {

struct curl_library {
  CURLcode (*global_init)(long flags) = nullptr;
  CURL* (*easy_init)() = nullptr;
  void (*easy_cleanup)(CURL*) = nullptr;
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
  CURLcode (*easy_perform)(CURL*) = nullptr;
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
  const char* (*easy_strerror)(CURLcode) = nullptr;
  curl_slist* (*slist_append)(curl_slist*, const char*) = nullptr;
  void (*slist_free_all)(curl_slist*) = nullptr;
  char* (*version)() = nullptr;
};

// libcurl.so.4 with its functions resolved and curl_global_init done, loaded once (thread-safe).
// A missing library or function throws flopcast::error(io) at `pointer`, saying what to install.
const curl_library& load_curl(const std::string& pointer);

}  // namespace flopcast::cli
