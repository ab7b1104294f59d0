// The implementations a benchmark runs: the toolkit (its kernels built by
// CMake, launched by mpfrun) and, for --compare, the others installed on
// this machine (Open MPI and MPICH under their Debian names; Open MPI's
// OpenSHMEM, OSHMEM), whose kernels mpftune builds from the same sources
// with their compiler wrappers. Each knows how its launcher is told the
// number of ranks and the binding.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tune/bench/catalogue.hpp"
#include "tune/bench/layout.hpp"

namespace mpf::tune::bench {

enum class LauncherKind { mpfrun, openmpi, mpich };

struct Implementation {
  std::string id;        // mpf, openmpi, mpich, oshmem: in JSON, file names and plots
  std::string name;      // MPF Toolkit, Open MPI, MPICH, Open MPI OSHMEM: in tables
  LauncherKind kind = LauncherKind::mpfrun;
  Api api = Api::mpi;    // a peer's interface: it runs the kernels compared_with() it; the toolkit runs all
  std::string launcher;  // path of mpfrun, mpirun.openmpi, mpiexec.mpich, oshrun
  // mpfrun only: options put before the others, as the tunable search's
  // `--set NAME=VALUE` pairs.
  std::vector<std::string> launcher_options;
  // Through the network (mpftune bench --network): two nodes of this
  // machine for the toolkit, the TCP path for the others.
  bool network = false;
  std::string compiler;  // path of the wrapper that built its kernels (the toolkit's: CMake)
  std::string flags;     // compiler flags of its kernels
  std::string library;   // the kernels' "# library:" line (MPI_Get_library_version, lines joined
                         // by "; ", or OpenSHMEM's name and version), from its first run

  // The library's name and version, and its device where it names one:
  // "MPICH Version: 4.0.2; MPICH Device: ch4:ucx"; the name when unknown.
  std::string short_library() const;
  std::map<std::string, std::string> kernels;      // kernel name -> executable
  std::map<std::string, std::string> unavailable;  // kernel name -> why it cannot run

  // The command that runs `program args` on `np` ranks bound by `binding`
  // (core or none). `timeout` is given to mpfrun, which then prints what
  // each rank was doing before it stops a hung job.
  std::vector<std::string> launch(int np, const std::string& binding, double timeout, const std::string& program,
                                  const std::vector<std::string>& args) const;
};

// The toolkit: mpfrun and the kernels of this build or install tree.
Implementation toolkit(const Layout& layout, const std::vector<std::string>& kernels);

// The other implementations of `apis` whose compiler wrapper and launcher
// are both in PATH; and, for each one that is not, a sentence saying what is
// missing.
struct PeerSearch {
  std::vector<Implementation> found;
  std::vector<std::string> missing;
};
PeerSearch find_peers(const std::vector<Api>& apis);

// Builds `kernels` from `source_dir` with the peer's compiler wrapper into
// cache_dir/<id>/, reusing a build whose sources and command are unchanged.
// A kernel that does not build goes to `unavailable` with the compiler's
// first lines; `log` gets a line per kernel built.
void build_peer_kernels(Implementation& peer, const std::string& source_dir, const std::string& cache_dir,
                        const std::vector<std::string>& kernels, std::vector<std::string>& log);

// CPUs this process may run on (its affinity mask).
int usable_cpus();
// The binding of an --bind-to policy for a job of np ranks: auto is core
// when every rank can have its own CPU, none otherwise.
std::string resolve_binding(const std::string& policy, int np);

}  // namespace mpf::tune::bench
