#pragma once
// Helpers shared by the CLI's commands. Options come from the core's request table
// (flopcast/request.hpp): each command's flags are the table's fields for that command, their
// text becomes a JSON request, and the core reads it exactly as it reads a request from JSON or
// WASM, so a bad value gets the same code and message on every path.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "flopcast/flopcast.hpp"

namespace flopcast::cli {

// The typed flags of one command, keyed by the field's JSON pointer.
struct request_options {
  std::uint32_t command = command_estimate;
  bool lists = false;                       // comma lists allowed (compare)
  std::map<std::string, std::string> text;  // value fields as typed
  std::map<std::string, bool> flags;        // boolean fields: the flag was given
  // Boolean fields whose default is derived (an engine's): --X (> 0) or --no-X (< 0) given.
  std::map<std::string, std::int64_t> switches;
  std::vector<std::string> models;  // MODEL arguments
  std::string gpu_file, calibration_file;
  std::string revision;  // --revision: of a MODEL fetched from the Hugging Face Hub
  bool no_calibration = false, json = false, csv = false;
  // The value options given on the command line (a field's pointer, or "--calibration",
  // "--gpu-file", "--revision"): an empty value given is refused as JSON refuses "".
  std::set<std::string> given;
};

// Records in o.given that `opt` was given (under `key`).
CLI::Option* note_given(CLI::Option* opt, request_options& o, const std::string& key);
// Applies --calibration FILE (refusing an empty FILE that was given).
void use_calibration_option(const request_options& o);

// Adds the table's fields for `o.command` (except MODEL, which each command names itself).
void add_request_options(CLI::App& cmd, request_options& o, bool output_flags = true);

// The request the options describe, as the core reads it. Config files named as models and
// --gpu-file are read and embedded; the calibration store is embedded unless disabled.
[[nodiscard]] nlohmann::json build_request(const request_options& o);

std::vector<std::string> split(const std::string& s);
[[noreturn]] void bad(const std::string& option, const std::string& message);
// Whether `s` is a number in JSON's syntax (RFC 8259; with integer_only, no fraction or exponent).
[[nodiscard]] bool is_json_number(const std::string& s, bool integer_only = false);
std::int64_t parse_int(const std::string& text, const std::string& option);
std::string read_file(const std::string& path, const std::string& option);
// A typed CLI text as the JSON value of a field of `type` (a number where it reads as one,
// else the string, so the core reports the type error as JSON would).
[[nodiscard]] nlohmann::json typed_value(const request_field& f, const std::string& text);
// A typed CLI text as a JSON value: a number where it is in JSON's number syntax (an integer
// where it fits one), else the text (the core then refuses it as JSON refuses "0x10").
[[nodiscard]] nlohmann::json json_number_or_text(const std::string& text);
// Names the flag of a pointer outside the request table ("/utilization" -> "--utilization") for
// cli_message.
void name_flag(const std::string& pointer, const std::string& flag);
// A model argument as a request value: a registry name, or a config.json path read into an object.
[[nodiscard]] nlohmann::json model_value(const std::string& name, const std::string& pointer);

// The error as the CLI prints it: the flag it was given as beside the JSON pointer,
// "[flopcast.config.range] (--batch, /batch_size) expected ...", and the file a nested
// pointer came from.
[[nodiscard]] std::string cli_message(const error& e);

// The calibration store: --calibration FILE, else $FLOPCAST_CALIBRATION_FILE, else
// $XDG_CONFIG_HOME/flopcast/calibration.json, else ~/.config/flopcast/calibration.json.
// A store that is a symbolic link is followed (the link stays); writes keep its permissions. A link
// loop and a read-only store are refused, never replaced; a new store gets 0666 less the umask.
void set_calibration_file(const std::string& path);
// Where the request's weight_bytes came from ("exact bytes from model.gguf (Q4_K_M mix: ...)",
// "--weight-bytes"), set by build_request; empty when it set none.
std::string& weight_bytes_source();
std::string calibration_path();
// Reads the store (none: no entries). A store that exists but cannot be read, is a directory or
// is not valid is an error naming the file (never silently ignored, never overwritten).
// A store named by --calibration must exist unless `missing_ok` (calibrate creates it).
std::vector<calibration_entry> load_calibration(bool missing_ok = false);
// Read-modify-write of the store happens under this exclusive lock (flock on "<store>.lock"), so
// concurrent `flopcast calibrate` runs never lose each other's entries.
class calibration_lock {
 public:
  calibration_lock();
  ~calibration_lock();
  calibration_lock(const calibration_lock&) = delete;
  calibration_lock& operator=(const calibration_lock&) = delete;

 private:
  int fd_ = -1;
};
// Replaces the store atomically: a unique temporary file in the same folder, every write checked,
// fsync, rename. On any failure the old store is intact and this throws.
void save_calibration(const std::vector<calibration_entry>& entries);
// Deletes the store; false if there was none.
bool remove_calibration();

}  // namespace flopcast::cli
