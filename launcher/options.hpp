// mpfrun's command line (SPEC §6), parsed with CLI11. MPMD jobs separate
// application contexts with ':' (`mpfrun -n 1 ./a : -n 3 ./b`); the options of
// the first context apply to the whole job, later contexts may only give
// -n, -x and --env for themselves.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mpf::launcher {

// A bad command line: the message is one line naming what is wrong.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// auto: core when ranks outnumber the CPUs and divide evenly among them
// (common::binds_by_default), else none.
enum class BindTo { automatic, none, core, numa };
enum class MapBy { core, numa };

struct AppContext {
  int nranks = 1;
  std::string program;       // as the user wrote it
  std::string program_path;  // resolved, executable
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // from -x and --env, in order
};

struct Options {
  std::vector<AppContext> apps;
  std::vector<std::string> hosts;  // from --host and --hostfile
  BindTo bind_to = BindTo::automatic;
  MapBy map_by = MapBy::core;
  bool report_bindings = false;
  bool tag_output = false;
  bool timestamp_output = false;
  std::string output_dir;
  double timeout_seconds = 0;  // 0: no timeout
  int virtual_nodes = 1;       // --virtual-nodes: split the ranks into this many nodes joined by the network
  // --launcher: who starts the ranks. auto: srun inside a Slurm allocation
  // of several nodes, mpfrun itself otherwise.
  enum class Launcher { automatic, mpfrun, srun } launcher = Launcher::automatic;
  // Options given that decide where ranks run, which under srun Slurm
  // decides instead ("--bind-to", ...), as the user wrote them.
  std::vector<std::string> placement_options;
  std::vector<std::string> sets;  // NAME=VALUE
  std::string tuning_file;
  bool list_params = false;
  std::string report_path;
  int verbose = 0;
  bool cleanup = false;
  std::vector<std::string> command_line;  // mpfrun's argv, for the report and run directory

  int total_ranks() const;
};

// What main() does with a parse: run a job, or an action that ends at once.
struct ParseResult {
  std::optional<Options> options;  // empty when help or version was printed
  int exit_code = 0;
};

// Parses argv. Prints --help and --version itself; throws UsageError for
// anything wrong (unknown option, bad value, missing or unusable program,
// a host that is not this machine).
ParseResult parse_command_line(int argc, char** argv);

}  // namespace mpf::launcher
