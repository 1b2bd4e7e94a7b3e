#pragma once
// The provider entry's fields into an open JSON object (providers.cpp), for the estimate result.
#include "flopcast/providers.hpp"
#include "json_out.hpp"

namespace flopcast::detail {
void write_provider_entry(json_out& w, const provider_entry& e);
}  // namespace flopcast::detail
