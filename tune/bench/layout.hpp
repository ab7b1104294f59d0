// Where mpftune finds what it runs, relative to its own executable:
//   build tree    <build>/tune/mpftune, <build>/launcher/mpfrun,
//                 kernels in <build>/tune, sources in the source tree's tune/kernels
//   install tree  <prefix>/bin/mpftune, <prefix>/bin/mpfrun,
//                 kernels in <prefix>/libexec/mpf, sources in <prefix>/share/mpf/kernels
#pragma once

#include <stdexcept>
#include <string>

namespace mpf::tune::bench {

struct LayoutError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Layout {
  std::string mpfrun;       // the launcher
  std::string kernel_dir;   // kernel_<name> built against the toolkit
  std::string source_dir;   // <name>.c and the headers, for other MPIs
  bool install_tree = false;
  std::string build_type;   // CMAKE_BUILD_TYPE of this build

  // The layout around the running executable; throws LayoutError naming the
  // places it looked when mpfrun is in neither.
  static Layout find();
};

}  // namespace mpf::tune::bench
