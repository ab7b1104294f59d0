#include "tune/bench/layout.hpp"

#include <unistd.h>

#include <filesystem>

namespace mpf::tune::bench {

namespace fs = std::filesystem;

Layout Layout::find() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw LayoutError("cannot read /proc/self/exe: " + ec.message());
  const fs::path dir = self.parent_path();
  Layout layout;
  layout.build_type = MPF_TUNE_BUILD_TYPE;
  const fs::path installed = dir / "mpfrun";
  const fs::path built = dir.parent_path() / "launcher" / "mpfrun";
  if (::access(installed.c_str(), X_OK) == 0) {
    const fs::path prefix = dir.parent_path();
    layout.install_tree = true;
    layout.mpfrun = installed;
    layout.kernel_dir = prefix / MPF_TUNE_INSTALLED_KERNELS;
    layout.source_dir = prefix / MPF_TUNE_INSTALLED_SOURCES;
  } else if (::access(built.c_str(), X_OK) == 0) {
    layout.mpfrun = built;
    layout.kernel_dir = dir;
    layout.source_dir = MPF_TUNE_SOURCE_KERNELS;
  } else {
    throw LayoutError("cannot find mpfrun next to " + self.string() + " (looked for " + installed.string() +
                      " and " + built.string() + ")");
  }
  return layout;
}

}  // namespace mpf::tune::bench
