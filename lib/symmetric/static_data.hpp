// Where this process's global and static variables lie: the writable
// segments of the main program (.data, .bss and what the linker puts with
// them), as the loader placed them. OpenSHMEM makes these symmetric: every
// PE runs the same program, so a variable is at the same offset from the
// start of this range in every PE, while the range itself starts wherever
// each process loaded the program (position-independent executables).
#pragma once

#include <cstdint>

namespace mpf::symmetric {

struct StaticData {
  std::uintptr_t base = 0;  // 0: the program has none
  std::uint64_t bytes = 0;

  bool holds(const void* address, std::uint64_t n) const {
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    return a >= base && n <= bytes && a - base <= bytes - n;
  }
};

StaticData find_static_data();

}  // namespace mpf::symmetric
