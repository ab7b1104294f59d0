#include "symmetric/static_data.hpp"

#include <elf.h>
#include <link.h>

#include <algorithm>

namespace mpf::symmetric {

StaticData find_static_data() {
  StaticData found;
  // The loader lists the main program first.
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) -> int {
        auto& data = *static_cast<StaticData*>(out);
        std::uintptr_t lo = UINTPTR_MAX;
        std::uintptr_t hi = 0;
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& h = info->dlpi_phdr[i];
          if (h.p_type != PT_LOAD || (h.p_flags & PF_W) == 0) continue;
          lo = std::min<std::uintptr_t>(lo, info->dlpi_addr + h.p_vaddr);
          hi = std::max<std::uintptr_t>(hi, info->dlpi_addr + h.p_vaddr + h.p_memsz);
        }
        if (hi > lo) data = {lo, hi - lo};
        return 1;  // the main program only
      },
      &found);
  return found;
}

}  // namespace mpf::symmetric
