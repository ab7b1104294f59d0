// The words mpfrun uses for people: signals, rank lists, rank states, times.
// Kept together so every message reads in one voice.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shm/ranks_layout.hpp"

namespace mpf::launcher {

// "signal 11 (Segmentation fault)"
std::string signal_description(int signo);
// "0-3,5,7-8"
std::string rank_list(const std::vector<std::uint32_t>& ranks);
// What a rank's recorded state says it is doing.
std::string describe_rank_state(shm::RankState state);
// "5 s", "0.5 s"
std::string format_seconds(double seconds);
std::string this_host_name();

}  // namespace mpf::launcher
