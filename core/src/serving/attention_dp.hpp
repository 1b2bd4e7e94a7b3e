#pragma once
// The simulator of one attention rank (simulator.cpp); simulate() (attention_dp.cpp) deals a
// replica's requests to its attention-data-parallel ranks and runs one.
#include "flopcast/serving/simulator.hpp"

namespace flopcast {

[[nodiscard]] simulation_result simulate_one_rank(const model_spec& m, const simulation_settings& s,
                                                  const hardware_spec& gpu);

}  // namespace flopcast
