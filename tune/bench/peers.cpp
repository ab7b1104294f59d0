#include "tune/bench/peers.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "common/binding_rule.hpp"
#include "common/child_process.hpp"

namespace mpf::tune::bench {

namespace fs = std::filesystem;

namespace {

// The same optimisation for every peer's kernels as CMake's Release build
// gives the toolkit's.
constexpr const char* kPeerFlags = "-O3 -Wall -Wextra";
constexpr double kCompileTimeout = 120;

struct PeerDescription {
  const char* id;
  const char* name;
  Api api;
  LauncherKind kind;
  const char* compiler;
  const char* launcher;
  const char* package;  // Debian packages that provide it
  // A wrapper and launcher whose names do not say whose they are (oshcc,
  // oshrun: the toolkit has them too) must be the very programs these are.
  const char* same_compiler_as = nullptr;
  const char* same_launcher_as = nullptr;
};

// Open MPI's OSHMEM is started by oshrun, which is its mpirun: same kind.
constexpr PeerDescription kPeers[] = {
    {"openmpi", "Open MPI", Api::mpi, LauncherKind::openmpi, "mpicc.openmpi", "mpirun.openmpi",
     "openmpi-bin libopenmpi-dev"},
    {"mpich", "MPICH", Api::mpi, LauncherKind::mpich, "mpicc.mpich", "mpiexec.mpich", "mpich libmpich-dev"},
    {"oshmem", "Open MPI OSHMEM", Api::shmem, LauncherKind::openmpi, "oshcc", "oshrun", "openmpi-bin libopenmpi-dev",
     "mpicc.openmpi", "mpirun.openmpi"},
};

// Why `found` (the program `name` in PATH) is not the one `reference` names
// in PATH; "" when it is.
std::string not_the_same(const char* name, const std::string& found, const char* reference) {
  if (reference == nullptr) return "";
  const std::string ref = common::find_in_path(reference);
  std::error_code ec;
  if (!ref.empty() && fs::equivalent(found, ref, ec)) return "";
  return std::string(name) + " in PATH (" + found + ") is not the program " + reference +
         (ref.empty() ? " (not found)" : " (" + ref + ")") + " is";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// What decides whether a cached kernel is still good: the compile command
// and the contents of the kernel's source and of every header beside it.
std::string build_stamp(const std::vector<std::string>& command, const fs::path& source_dir, const fs::path& source) {
  std::string text = common::shell_words(command) + "\n";
  std::string contents = read_file(source);
  std::vector<fs::path> headers;
  for (const auto& entry : fs::directory_iterator(source_dir)) {
    if (entry.path().extension() == ".h") headers.push_back(entry.path());
  }
  std::sort(headers.begin(), headers.end());
  for (const fs::path& h : headers) contents += read_file(h);
  std::ostringstream hash;
  hash << std::hex << std::hash<std::string>{}(contents);
  return text + "sources " + hash.str() + "\n";
}

std::string first_lines(const std::string& text, int count) {
  std::istringstream in(text);
  std::string line, out;
  for (int i = 0; i < count && std::getline(in, line); ++i) out += (out.empty() ? "" : "\n") + line;
  return out;
}

}  // namespace

std::string Implementation::short_library() const {
  if (library.empty()) return name;
  std::string out;
  std::size_t start = 0;
  for (int part = 0; start <= library.size(); ++part) {
    std::size_t end = library.find("; ", start);
    if (end == std::string::npos) end = library.size();
    const std::string segment = library.substr(start, end - start);
    if (part == 0 || segment.find("Device") != std::string::npos) out += (out.empty() ? "" : "; ") + segment;
    start = end + 2;
  }
  return out;
}

std::vector<std::string> Implementation::launch(int np, const std::string& binding, double timeout,
                                                const std::string& program,
                                                const std::vector<std::string>& args) const {
  std::vector<std::string> cmd = {launcher};
  const std::string n = std::to_string(np);
  switch (kind) {
    case LauncherKind::mpfrun:
      cmd.insert(cmd.end(), launcher_options.begin(), launcher_options.end());
      if (network && np >= 2) cmd.insert(cmd.end(), {"--virtual-nodes", "2"});
      cmd.insert(cmd.end(), {"--timeout", std::to_string(static_cast<long>(timeout)), "--bind-to", binding, "-n", n});
      break;
    case LauncherKind::openmpi:
      if (::geteuid() == 0) cmd.push_back("--allow-run-as-root");
      // Open MPI refuses more ranks than cores unless told, and binding more
      // ranks than cores to cores unless allowed to overload them.
      if (network) cmd.insert(cmd.end(), {"--mca", "btl", "tcp,self", "--mca", "pml", "ob1"});
      cmd.insert(cmd.end(), {"--oversubscribe", "--bind-to", binding == "core" && np > usable_cpus()
                                                                  ? "core:overload-allowed"
                                                                  : binding,
                             "-n", n});
      break;
    case LauncherKind::mpich:
      if (network) cmd.insert(cmd.end(), {"-genv", "UCX_TLS", "tcp", "-genv", "FI_PROVIDER", "tcp"});
      cmd.insert(cmd.end(), {"-bind-to", binding, "-n", n});
      break;
  }
  cmd.push_back(program);
  cmd.insert(cmd.end(), args.begin(), args.end());
  return cmd;
}

Implementation toolkit(const Layout& layout, const std::vector<std::string>& kernels) {
  Implementation mpf;
  mpf.id = "mpf";
  mpf.name = "MPF Toolkit";
  mpf.kind = LauncherKind::mpfrun;
  mpf.launcher = layout.mpfrun;
  mpf.compiler = "CMake (" + (layout.build_type.empty() ? std::string("no build type") : layout.build_type) + ")";
  for (const std::string& k : kernels) {
    const fs::path exe = fs::path(layout.kernel_dir) / ("kernel_" + k);
    if (::access(exe.c_str(), X_OK) == 0) {
      mpf.kernels[k] = exe;
    } else {
      mpf.unavailable[k] = "kernel " + k + " is not built for mpf (no " + exe.string() + ")";
    }
  }
  return mpf;
}

PeerSearch find_peers(const std::vector<Api>& apis) {
  PeerSearch search;
  for (const PeerDescription& p : kPeers) {
    if (std::find(apis.begin(), apis.end(), p.api) == apis.end()) continue;
    const std::string compiler = common::find_in_path(p.compiler);
    const std::string launcher = common::find_in_path(p.launcher);
    if (compiler.empty() || launcher.empty()) {
      std::string what = compiler.empty() && launcher.empty() ? std::string(p.compiler) + " and " + p.launcher
                         : compiler.empty()                   ? std::string(p.compiler)
                                                              : std::string(p.launcher);
      search.missing.push_back(std::string(p.name) + " is not compared: " + what + " not found in PATH (Debian: " +
                               p.package + ")");
      continue;
    }
    std::string other = not_the_same(p.compiler, compiler, p.same_compiler_as);
    if (other.empty()) other = not_the_same(p.launcher, launcher, p.same_launcher_as);
    if (!other.empty()) {
      search.missing.push_back(std::string(p.name) + " is not compared: " + other + " (Debian: " + p.package + ")");
      continue;
    }
    Implementation peer;
    peer.id = p.id;
    peer.name = p.name;
    peer.kind = p.kind;
    peer.api = p.api;
    peer.compiler = compiler;
    peer.launcher = launcher;
    peer.flags = kPeerFlags;
    search.found.push_back(std::move(peer));
  }
  return search;
}

void build_peer_kernels(Implementation& peer, const std::string& source_dir, const std::string& cache_dir,
                        const std::vector<std::string>& kernels, std::vector<std::string>& log) {
  const fs::path dir = fs::path(cache_dir) / peer.id;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    for (const std::string& k : kernels) peer.unavailable[k] = "cannot create " + dir.string() + ": " + ec.message();
    return;
  }
  for (const std::string& k : kernels) {
    const fs::path source = fs::path(source_dir) / (k + ".c");
    const fs::path exe = dir / ("kernel_" + k);
    if (!fs::is_regular_file(source)) {
      peer.unavailable[k] = "no source " + source.string();
      continue;
    }
    std::vector<std::string> command = {peer.compiler};
    std::istringstream flags(peer.flags);
    for (std::string f; flags >> f;) command.push_back(f);
    const fs::path partial = exe.string() + ".partial";
    command.insert(command.end(), {"-o", partial.string(), source.string()});
    // The stamp names the final executable, not the partial one.
    std::vector<std::string> stamp_command = command;
    stamp_command[stamp_command.size() - 2] = exe.string();
    const std::string stamp = build_stamp(stamp_command, source_dir, source);
    const fs::path stamp_file = exe.string() + ".stamp";
    if (fs::exists(exe) && read_file(stamp_file) == stamp) {
      peer.kernels[k] = exe;
      continue;
    }
    const common::ProcessResult built = common::run_process(command, kCompileTimeout);
    if (!built.ok()) {
      peer.unavailable[k] = "kernel " + k + " does not build with " + peer.compiler + " (" +
                            built.how_it_ended(kCompileTimeout) + "): " + first_lines(built.err, 3);
      continue;
    }
    fs::rename(partial, exe, ec);
    if (ec) {
      peer.unavailable[k] = "cannot rename " + partial.string() + ": " + ec.message();
      continue;
    }
    std::ofstream(stamp_file) << stamp;
    peer.kernels[k] = exe;
    log.push_back("built " + exe.string() + ": " + common::shell_words(stamp_command) +
                  (built.err.empty() ? "" : "\n" + built.err));
  }
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  return CPU_COUNT(&set);
}

std::string resolve_binding(const std::string& policy, int np) {
  if (policy != "auto") return policy;
  // As mpfrun's own default for more ranks than CPUs, so that every MPI
  // runs with the binding our users get.
  const int cpus = usable_cpus();
  return np <= cpus || common::binds_by_default(np, cpus) ? "core" : "none";
}

}  // namespace mpf::tune::bench
