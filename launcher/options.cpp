#include "launcher/options.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include "common/version.hpp"
#include "launcher/messages.hpp"

namespace mpf::launcher {
namespace {

// The name the help and the version line use: oshrun when started as
// oshrun (OpenSHMEM's name for the launcher, a link to mpfrun), else mpfrun.
std::string command_name(const char* argv0) {
  const std::string_view path = argv0 == nullptr ? "" : argv0;
  return path.substr(path.rfind('/') + 1) == "oshrun" ? "oshrun" : "mpfrun";
}

std::string usage(const std::string& name) {
  return name + ": start a parallel job of the MPF Toolkit\n" + "usage: " + name +
         " [options] PROGRAM [ARGS...]\n" + "       " + name +
         " [options] -n N1 PROGRAM1 [ARGS...] : -n N2 PROGRAM2 [ARGS...]";
}

// Options a later MPMD context may repeat for itself.
// -x and --env, in the order they were given: the later setting of a
// variable wins. `export_option` tells -x from --env.
struct EnvSetting {
  bool export_option;
  std::string text;
};

void add_context_options(CLI::App& app, AppContext& ctx, std::vector<EnvSetting>& settings) {
  app.add_option("-n,--np", ctx.nranks, "Number of ranks to start (also -np)")
      ->check(CLI::Range(1, 1 << 20));
  // trigger_on_parse: each occurrence is recorded as it is parsed, so -x and
  // --env interleave in command-line order.
  app.add_option_function<std::string>("-x", [&settings](const std::string& v) { settings.push_back({true, v}); },
                                       "Give the ranks environment variable VAR (with mpfrun's value) or VAR=VALUE")
      ->type_name("VAR[=VALUE]")
      ->allow_extra_args(false)
      ->trigger_on_parse();
  app.add_option_function<std::string>("--env", [&settings](const std::string& v) { settings.push_back({false, v}); },
                                       "Set VAR=VALUE in the ranks' environment")
      ->type_name("VAR=VALUE")
      ->allow_extra_args(false)
      ->trigger_on_parse();
}

// CLI11 takes single-dash options as one letter; mpirun's "-np" is rewritten
// to "--np" where it stands among the options (not among the program's
// arguments, which are left untouched).
void normalise_np(std::vector<std::string>& tokens, CLI::App& app) {
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::string& t = tokens[i];
    if (t == "-np") t = "--np";
    if (t.empty() || t[0] != '-') return;  // the program: options end here
    if (t.find('=') != std::string::npos) continue;
    const CLI::Option* opt = app.get_option_no_throw(t);
    if (opt != nullptr && opt->get_expected_min() > 0) ++i;  // skip the option's value
  }
}

std::vector<std::string> reversed(std::vector<std::string> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string resolve_program(const std::string& program) {
  auto usable = [](const std::string& path) { return is_regular_file(path) && ::access(path.c_str(), X_OK) == 0; };
  if (program.find('/') != std::string::npos) {
    if (::access(program.c_str(), F_OK) != 0) throw UsageError("program " + program + " does not exist");
    if (!is_regular_file(program)) throw UsageError("program " + program + " is not a file");
    if (!usable(program)) throw UsageError("program " + program + " is not executable");
    return program;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (usable(candidate)) return candidate;
  }
  throw UsageError("program '" + program + "' not found in PATH");
}

// Tunables are the same for every rank of a job: mpfrun resolves them once
// and hands them to the ranks, which never read MPF_* themselves. Setting one
// for the ranks alone would be silently ignored, so it is refused.
void refuse_tunable(const std::string& option, const std::string& name) {
  if (name.rfind("MPF_", 0) == 0) {
    throw UsageError(option + ": " + name + " is a tunable, which applies to the whole job; set it in " +
                     "mpfrun's environment or with --set");
  }
}

void apply_env_options(AppContext& ctx, const std::vector<EnvSetting>& settings) {
  for (const EnvSetting& setting : settings) {
    const std::string& x = setting.text;
    const auto eq = x.find('=');
    const std::string name = x.substr(0, eq);
    if (!setting.export_option && (eq == std::string::npos || eq == 0)) {
      throw UsageError("--env " + x + ": expected VAR=VALUE");
    }
    refuse_tunable((setting.export_option ? "-x " : "--env ") + x, name);
    if (eq != std::string::npos) {
      ctx.env.emplace_back(name, x.substr(eq + 1));
      continue;
    }
    const char* value = std::getenv(x.c_str());
    if (value == nullptr) throw UsageError("-x " + x + ": " + x + " is not set in mpfrun's environment");
    ctx.env.emplace_back(x, value);
  }
}

void take_program(AppContext& ctx, std::vector<std::string> rest, std::size_t context_index) {
  // "--" ends mpfrun's options explicitly: `mpfrun -n 2 -- ./app`.
  if (!rest.empty() && rest[0] == "--") rest.erase(rest.begin());
  if (rest.empty()) {
    throw UsageError(context_index == 0 ? "no program given (usage: mpfrun [options] PROGRAM [ARGS])"
                                        : "application context " + std::to_string(context_index + 1) +
                                              " after ':' names no program");
  }
  if (rest[0].size() > 1 && rest[0][0] == '-') {
    throw UsageError(context_index == 0 ? "unknown option " + rest[0]
                                        : "option " + rest[0] +
                                              " is not allowed after ':' (only -n, -x and --env are)");
  }
  ctx.program = rest[0];
  ctx.program_path = resolve_program(rest[0]);
  ctx.args.assign(rest.begin() + 1, rest.end());
}

bool is_this_machine(const std::string& host) {
  const std::string me = this_host_name();
  const std::string short_me = me.substr(0, me.find('.'));
  return host == "localhost" || host == "127.0.0.1" || host == "::1" || host == me || host == short_me;
}

std::vector<std::string> read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--hostfile " + path + ": cannot be read");
  std::vector<std::string> hosts;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string host;
    if (words >> host) hosts.push_back(host);  // "host slots=N": slots are not needed on one node
  }
  if (hosts.empty()) throw UsageError("--hostfile " + path + ": names no host");
  return hosts;
}

void check_hosts(const std::vector<std::string>& hosts, const std::string& source) {
  for (const std::string& host : hosts) {
    if (!is_this_machine(host)) {
      throw UsageError("host '" + host + "' (from " + source + ") is not this machine (" + this_host_name() +
                       "); mpfrun starts ranks on other machines only through Slurm: inside an allocation "
                       "(salloc -N 2, sbatch), it launches with srun on the allocation's nodes");
    }
  }
}

}  // namespace

int Options::total_ranks() const {
  int n = 0;
  for (const AppContext& a : apps) n += a.nranks;
  return n;
}

ParseResult parse_command_line(int argc, char** argv) {
  Options o;
  o.command_line.assign(argv, argv + argc);
  std::vector<std::vector<std::string>> contexts(1);
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == ":") {
      contexts.emplace_back();
    } else {
      contexts.back().emplace_back(argv[i]);
    }
  }

  const std::string name = command_name(argc > 0 ? argv[0] : nullptr);
  CLI::App app(usage(name), name);
  app.prefix_command();
  app.set_version_flag("--version", common::version_line(name));
  app.get_formatter()->column_width(34);
  AppContext first;
  std::vector<EnvSetting> env_settings;
  std::vector<std::string> hosts;
  std::string hostfile, bind_to = "auto", map_by = "core";
  add_context_options(app, first, env_settings);
  app.add_option("-H,--host", hosts,
                 "Hosts to run on, comma-separated: this machine only (other machines: through Slurm)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--hostfile", hostfile, "File of hosts, one per line: this machine only (other machines: through Slurm)")
      ->check(CLI::ExistingFile);
  app.add_option("--map-by", map_by, "Place consecutive ranks on consecutive cores, or round-robin over NUMA nodes")
      ->check(CLI::IsMember({"core", "numa"}))
      ->capture_default_str();
  app.add_option("--bind-to", bind_to,
                 "Bind each rank to its core, its NUMA node's CPUs, or nothing; auto: to its core when ranks "
                 "outnumber the CPUs and divide evenly among them, else nothing")
      ->check(CLI::IsMember({"auto", "none", "core", "numa"}))
      ->capture_default_str();
  std::string launcher = "auto";
  app.add_option("--launcher", launcher,
                 "Who starts the ranks: srun (Slurm places them on the allocation's nodes), mpfrun (on this "
                 "machine), or auto: srun inside a Slurm allocation of several nodes, else mpfrun")
      ->check(CLI::IsMember({"auto", "mpfrun", "srun"}))
      ->capture_default_str();
  app.add_option("--virtual-nodes", o.virtual_nodes,
                 "Split this machine's ranks into K nodes, consecutive ranks together, each with its own shared "
                 "memory, that reach each other only through the network transport (to test the network path)")
      ->check(CLI::PositiveNumber)
      ->type_name("K");
  app.add_flag("--report-bindings", o.report_bindings, "Print each rank's binding on standard error");
  app.add_flag("--tag-output", o.tag_output, "Prefix every output line with [RANK]");
  app.add_flag("--timestamp-output", o.timestamp_output, "Prefix every output line with the time mpfrun received it");
  app.add_option("--output-filename", o.output_dir, "Write each rank's output to DIR/rank.N/{stdout,stderr}")
      ->type_name("DIR");
  app.add_option("--timeout", o.timeout_seconds,
                 "Stop the job after SECONDS, naming the ranks still running and what they were doing")
      ->check(CLI::PositiveNumber)
      ->type_name("SECONDS");
  app.add_option("--set", o.sets, "Set a tunable for this job (see --list-params); repeatable")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  app.add_option("--tuning", o.tuning_file, "Load tunables from this JSON tuning file")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  app.add_flag("--list-params", o.list_params,
               "Print every tunable with its value and where the value came from, then exit");
  app.add_option("--report", o.report_path, "Write a JSON report of the job to FILE when it ends")
      ->type_name("FILE.json");
  app.add_flag("-v,--verbose", o.verbose, "Say what mpfrun does: the job's size, placement and segment");
  app.add_flag("--cleanup", o.cleanup,
               "Remove what jobs whose mpfrun was killed left behind, then exit");
  app.footer(
      "Exit status: 0 when every rank exits 0; else the first failing rank's exit code, or 128+N when it\n"
      "was killed by signal N; the code given to MPI_Abort; 1 when a rank exited without MPI_Finalize or\n"
      "mpfrun itself failed; 124 when --timeout expired; 2 for a bad command line, program or tunable.\n"
      "See mpfrun(1) and mpf(7).");

  try {
    normalise_np(contexts[0], app);
    app.parse(reversed(contexts[0]));
  } catch (const CLI::Success& e) {  // --help or --version: printed, not an error
    return {std::nullopt, app.exit(e)};
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  o.bind_to = bind_to == "core"   ? BindTo::core
              : bind_to == "numa" ? BindTo::numa
              : bind_to == "none" ? BindTo::none
                                  : BindTo::automatic;
  o.map_by = map_by == "numa" ? MapBy::numa : MapBy::core;
  o.launcher = launcher == "srun"     ? Options::Launcher::srun
               : launcher == "mpfrun" ? Options::Launcher::mpfrun
                                      : Options::Launcher::automatic;
  for (const char* name : {"--host", "--hostfile", "--map-by", "--bind-to", "--report-bindings", "--virtual-nodes"}) {
    if (app.count(name) > 0) o.placement_options.push_back(name);
  }
  if (!hosts.empty()) check_hosts(hosts, "--host");
  o.hosts = hosts;
  if (!hostfile.empty()) {
    const std::vector<std::string> listed = read_hostfile(hostfile);
    check_hosts(listed, "--hostfile " + hostfile);
    o.hosts.insert(o.hosts.end(), listed.begin(), listed.end());
  }
  if (o.list_params || o.cleanup) return {std::move(o), 0};

  apply_env_options(first, env_settings);
  take_program(first, app.remaining(), 0);
  o.apps.push_back(std::move(first));

  for (std::size_t c = 1; c < contexts.size(); ++c) {
    CLI::App sub("application context", "mpfrun");
    sub.prefix_command();
    sub.set_help_flag();
    AppContext ctx;
    std::vector<EnvSetting> sub_settings;
    add_context_options(sub, ctx, sub_settings);
    try {
      normalise_np(contexts[c], sub);
      sub.parse(reversed(contexts[c]));
    } catch (const CLI::ParseError& e) {
      throw UsageError("after ':': " + std::string(e.what()));
    }
    // The job-wide -x/--env of the first context apply to every context.
    ctx.env = o.apps.front().env;
    apply_env_options(ctx, sub_settings);
    take_program(ctx, sub.remaining(), c);
    o.apps.push_back(std::move(ctx));
  }
  if (o.virtual_nodes > o.total_ranks()) {
    throw UsageError("--virtual-nodes " + std::to_string(o.virtual_nodes) + " asks for more nodes than the job's " +
                     std::to_string(o.total_ranks()) + " ranks: each node needs at least one rank");
  }
  return {std::move(o), 0};
}

}  // namespace mpf::launcher
