#pragma once
// The bundled records of one kind as cmake/embed_data.cmake writes them into the library: one
// JSON text per record, beside it the record's names ("id or name\nalias\n..."), and a name index
// (keys sorted, each with the record it finds) so that a lookup parses nothing but the record.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace flopcast::detail {

struct embedded_records {
  const std::string_view* texts;
  const std::string_view* names;
  std::size_t count;
  const std::string_view* keys;
  const std::uint32_t* key_slots;
  std::size_t key_count;
};

extern const embedded_records k_models;  // sorted by id, case-insensitively
extern const embedded_records k_gpus;    // in data/gpus.json's order

}  // namespace flopcast::detail
