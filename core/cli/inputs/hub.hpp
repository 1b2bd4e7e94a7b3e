#pragma once
// The Hugging Face Hub fetch of the native CLI (never part of the core or the WebAssembly
// build): `flopcast estimate org/name` for an id that is not bundled reads the repository's
// config.json (and model.safetensors.index.json where there is one) with libcurl.
//
//   URL       $HF_ENDPOINT/<org>/<name>/resolve/<revision>/<file>, each segment percent-encoded;
//             $HF_ENDPOINT defaults to https://huggingface.co and must be http(s).
//   token     Authorization: Bearer $HF_TOKEN when set (never sent to another host on a redirect).
//   offline   HF_HUB_OFFLINE=1 (or true/yes/on): the cache only, no request.
//   limits    10 s to connect, 30 s in all: one deadline for every request of a fetch (the optional
//             index gets what is left, and is skipped with under 1 s left; FLOPCAST_HUB_TIMEOUT_MS
//             sets the total, in ms); a config.json that is not a JSON object is never cached; at most
//             16 MiB per file (the transfer stops there), at most 10 redirects, http(s) only.
//   cache     $HF_HOME/flopcast/<org>--<name>/<revision>/config.json ($HF_HOME defaults to
//             $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface; a revision with "/" is
//             stored percent-encoded, "refs%2Fpr%2F1"). Files are written atomically (temporary
//             file, rename); a repository without an index gets an empty
//             "model.safetensors.index.json.absent" marker. No "/"-separated part of a revision
//             may start with "." ("." and ".." are refused), so it is never a path of its own. A
//             cached revision is used as is, with no request: delete its folder to fetch it again.
// Every failure is a flopcast::error at the caller's pointer ("/model": "(MODEL, /model)").
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace flopcast::cli {

struct hub_options {
  std::string revision = "main";  // a branch, tag or commit (--revision)
  bool index = true;              // also fetch model.safetensors.index.json (optional: 404 is fine)
};

struct hub_files {
  std::string config;                // config.json, checked to be JSON (flopcast's limits)
  std::optional<std::string> index;  // model.safetensors.index.json, where the repository has one
  std::string origin;                // the URL or cached file config.json came from
};

// Whether `name` has the shape of a Hub id, "org/name" (exactly one "/", no path prefix), so a
// model argument that is neither a registry name nor a file goes to the Hub. It may still be an
// invalid id (hub_fetch refuses those before any request).
[[nodiscard]] bool looks_like_hub_id(const std::string& name);

// Throws invalid_argument at `pointer` unless `repo_id` is "org/name", each part 1 to 96 of
// [A-Za-z0-9._-], starting and ending with a letter, digit or "_", without ".." or "--".
void check_hub_id(const std::string& repo_id, const std::string& pointer);

// config.json of `repo_id` at `o.revision`: from the cache, else from the Hub (then cached).
[[nodiscard]] hub_files hub_fetch(const std::string& repo_id, const hub_options& o, const std::string& pointer);

// The parsed config.json object, with "_name_or_path" set to `repo_id`.
[[nodiscard]] nlohmann::json hub_config(const std::string& repo_id, const hub_options& o, const std::string& pointer);

// The revision --revision gave (default "main"), for model_value.
void set_hub_revision(const std::string& revision);
[[nodiscard]] const std::string& hub_revision();

}  // namespace flopcast::cli
