# Every third-party library comes from a Debian 12 package. A missing one stops
# configuration with the name of the package that provides it; scripts/setup.sh
# installs them all.
find_package(PkgConfig QUIET)

function(mpf_missing what package)
  message(FATAL_ERROR
    "${what} was not found. On Debian 12 install it with:\n"
    "    sudo apt-get install ${package}\n"
    "(scripts/setup.sh installs every dependency of the toolkit.)")
endfunction()

if(NOT PkgConfig_FOUND)
  mpf_missing("pkg-config" "pkg-config")
endif()

find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  mpf_missing("CLI11 (command-line parser)" "libcli11-dev")
endif()

find_package(nlohmann_json 3.10 CONFIG QUIET)
if(NOT nlohmann_json_FOUND)
  mpf_missing("nlohmann/json (JSON library)" "nlohmann-json3-dev")
endif()

pkg_check_modules(PMIX QUIET IMPORTED_TARGET pmix>=4.2)
if(NOT PMIX_FOUND)
  mpf_missing("OpenPMIx 4.2 or later (process wire-up)" "libpmix-dev")
endif()

pkg_check_modules(FABRIC QUIET IMPORTED_TARGET libfabric>=1.17)
if(NOT FABRIC_FOUND)
  mpf_missing("libfabric 1.17 or later (network endpoints)" "libfabric-dev")
endif()

find_path(NUMA_INCLUDE_DIR numa.h)
find_library(NUMA_LIBRARY numa)
if(NOT NUMA_INCLUDE_DIR OR NOT NUMA_LIBRARY)
  mpf_missing("libnuma (memory placement and binding)" "libnuma-dev")
endif()
add_library(mpf_numa INTERFACE)
target_include_directories(mpf_numa INTERFACE ${NUMA_INCLUDE_DIR})
target_link_libraries(mpf_numa INTERFACE ${NUMA_LIBRARY})

find_package(Threads REQUIRED)
