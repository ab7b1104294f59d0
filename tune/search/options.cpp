#include "tune/search/options.hpp"

#include "common/tunables_table.hpp"

namespace mpf::tune::search {

std::string Options::tuning_file() const {
  if (!output.empty()) return output;
  return app.empty() ? std::string(common::kDefaultTuningFile) : std::string(kDefaultAppTuningFile);
}

void add_search_options(CLI::App& app, Options& o) {
  app.add_option("--budget", o.budget_minutes,
                 "Minutes of measuring for the whole search, the verification included (default " +
                     std::to_string(static_cast<int>(kDefaultBudgetMinutes)) + "; with --quick " +
                     std::to_string(static_cast<int>(kQuickBudgetMinutes)) + ")")
      ->check(CLI::Range(0.1, 10000.0))
      ->type_name("MINUTES");
  app.add_flag("--quick", o.quick,
               "A short search (fewer values, fewer process counts, short batches), for CI; its values are rough");
  app.add_option("-o,--output", o.output,
                 "Write the tuning file here (default " + std::string(common::kDefaultTuningFile) +
                     ", the file every job loads when MPF_TUNING_FILE and mpfrun --tuning name none)")
      ->type_name("FILE");
  app.add_option("--out", o.out_dir,
                 "Write the report (report.md, report.json, plots) and the journal of the jobs run into DIR "
                 "(default ./" +
                     std::string(kDefaultReportDir) + ")")
      ->type_name("DIR");
  app.add_flag("--resume", o.resume,
               "Go on with the search whose journal is in --out DIR (one stopped by Ctrl-C): the jobs it ran "
               "are not run again");
  app.add_flag("--progress", o.progress, "Show progress on standard error even when it is not a terminal");
  app.add_flag("--list", o.list,
               "Print what the search tunes, the values it tries and the kernels that judge them; "
               "measure nothing");
  app.add_option("-t,--tunables", o.tunables,
                 "Search only these tunables, comma-separated (default: all; --list names them); the others keep "
                 "their defaults, and the verification still runs every kernel")
      ->delimiter(',')
      ->type_name("LIST");
  CLI::Option* command = app.add_option("--app", o.app,
                                        "Tune for this application's run time instead of the kernels: COMMAND runs "
                                        "with /bin/sh -c on every rank under mpfrun, and the tuning file (default ./" +
                                            std::string(kDefaultAppTuningFile) + ") is for mpfrun --tuning FILE on it")
                             ->type_name("COMMAND");
  app.add_option("-n,--np", o.app_np, "Ranks of the --app jobs")
      ->check(CLI::Range(1, 4096))
      ->type_name("N")
      ->needs(command);
  command->needs("--np");
  app.add_option("--timeout", o.timeout,
                 "Stop a job after SECONDS; the value it ran with counts as failed (default " +
                     std::to_string(static_cast<int>(kDefaultJobTimeout)) + ")")
      ->check(CLI::Range(1.0, 86400.0))
      ->type_name("SECONDS");
  app.add_option("--bind-to", o.bind_to,
                 "Binding of ranks: core, none, or auto (core when the job has no more ranks than CPUs; the "
                 "default)")
      ->check(CLI::IsMember({"auto", "core", "none"}))
      ->type_name("POLICY");
}

}  // namespace mpf::tune::search
