// Prints, for each tunable named on the command line, "rank R NAME=VALUE
// (SOURCE)" as the runtime of a rank sees it: checks that the launcher's
// resolved table (defaults, tuning file, environment, --set) reaches every rank.
#include <cstdio>

#include "core/runtime.hpp"

int main(int argc, char** argv) {
  auto& rt = mpf::core::Runtime::instance();
  try {
    rt.init();
    for (int i = 1; i < argc; ++i) {
      const auto tunable = mpf::common::find_tunable(argv[i]);
      if (!tunable) {
        std::fprintf(stderr, "print_tunables: no tunable %s\n", argv[i]);
        return 1;
      }
      std::printf("rank %u %s=%s (%s)\n", rt.job().rank, argv[i], rt.tunables().value_text(*tunable).c_str(),
                  std::string(mpf::common::to_string(rt.tunables().source(*tunable))).c_str());
    }
    rt.finalize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "print_tunables: %s\n", e.what());
    return 1;
  }
  return 0;
}
