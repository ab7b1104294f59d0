// Unit tests of mpfrun's command line (launcher/options.{hpp,cpp}).
#include "launcher/options.hpp"

#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "launcher/messages.hpp"
#include "launcher_test_util.hpp"

namespace mpf::launcher {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using test_util::Argv;
using test_util::CaptureFd;
using test_util::ScopedEnv;
using test_util::TempDir;
using Env = std::vector<std::pair<std::string, std::string>>;
using Strings = std::vector<std::string>;

// The options of a command line that must parse into a job.
Options parse(std::initializer_list<std::string> args) {
  Argv argv(args);
  ParseResult result = parse_command_line(argv.argc(), argv.argv());
  EXPECT_EQ(result.exit_code, 0);
  if (!result.options) {
    ADD_FAILURE() << "no options returned";
    return {};
  }
  return std::move(*result.options);
}

// The UsageError message for a command line that must be refused, or "" if it parses.
std::string usage_error(std::initializer_list<std::string> args) {
  Argv argv(args);
  try {
    parse_command_line(argv.argc(), argv.argv());
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// An executable script and a non-executable file in a directory of their own.
class Programs : public ::testing::Test {
 protected:
  void SetUp() override {
    test_util::write_file(dir_ / "mpf-unit-prog", "#!/bin/sh\nexit 0\n", 0755);
    test_util::write_file(dir_ / "mpf-unit-plain", "not a program\n", 0644);
  }
  TempDir dir_;
};

// --- Rank counts ------------------------------------------------------------

TEST(Options, RankCountSpellings) {
  EXPECT_EQ(parse({"true"}).apps.at(0).nranks, 1);
  EXPECT_EQ(parse({"-n", "3", "true"}).apps.at(0).nranks, 3);
  EXPECT_EQ(parse({"-np", "4", "true"}).apps.at(0).nranks, 4);
  EXPECT_EQ(parse({"--np", "5", "true"}).apps.at(0).nranks, 5);
  EXPECT_EQ(parse({"--np=6", "true"}).apps.at(0).nranks, 6);
  EXPECT_EQ(parse({"-n", "7", "true"}).total_ranks(), 7);
}

TEST(Options, RankCountMustBePositive) {
  EXPECT_NE(usage_error({"-n", "0", "true"}), "");
  EXPECT_NE(usage_error({"-n", "many", "true"}), "");
}

// --- The program --------------------------------------------------------------

TEST_F(Programs, AbsolutePathIsUsedAsGiven) {
  const std::string prog = dir_ / "mpf-unit-prog";
  const Options o = parse({"-n", "2", prog});
  ASSERT_EQ(o.apps.size(), 1u);
  EXPECT_EQ(o.apps[0].program, prog);
  EXPECT_EQ(o.apps[0].program_path, prog);
  EXPECT_TRUE(o.apps[0].args.empty());
}

TEST(Options, ProgramIsFoundInPath) {
  const Options o = parse({"true"});
  ASSERT_EQ(o.apps.size(), 1u);
  EXPECT_EQ(o.apps[0].program, "true");
  EXPECT_THAT(o.apps[0].program_path, ::testing::EndsWith("/true"));
  EXPECT_EQ(::access(o.apps[0].program_path.c_str(), X_OK), 0);
}

TEST_F(Programs, PathSearchSkipsFilesThatAreNotExecutable) {
  TempDir first;
  test_util::write_file(first / "mpf-unit-prog", "not executable\n", 0644);
  const ScopedEnv path("PATH", (first.path().string() + ":" + dir_.path().string()).c_str());
  EXPECT_EQ(parse({"mpf-unit-prog"}).apps.at(0).program_path, dir_ / "mpf-unit-prog");
}

TEST(Options, MissingProgramIsNamed) {
  EXPECT_THAT(usage_error({"-n", "2", "mpf-unit-no-such-program"}),
              HasSubstr("program 'mpf-unit-no-such-program' not found in PATH"));
  EXPECT_THAT(usage_error({"/nonexistent/mpf-unit-prog"}),
              HasSubstr("program /nonexistent/mpf-unit-prog does not exist"));
}

TEST_F(Programs, NonExecutableFileIsRefused) {
  const std::string plain = dir_ / "mpf-unit-plain";
  EXPECT_THAT(usage_error({plain}), HasSubstr("program " + plain + " is not executable"));
  // Found only as a non-executable file in PATH: as good as missing.
  const ScopedEnv path("PATH", dir_.path().c_str());
  EXPECT_THAT(usage_error({"mpf-unit-plain"}), HasSubstr("'mpf-unit-plain' not found in PATH"));
}

// A directory has its execute bit set but cannot be run: execve() would fail
// with EACCES after the job had been set up. The command line should refuse it.
TEST_F(Programs, DirectoryIsNotAProgram) {
  EXPECT_THAT(usage_error({dir_.path().string()}), HasSubstr(dir_.path().string()));
  std::filesystem::create_directory(dir_.path() / "mpf-unit-dir");
  const ScopedEnv path("PATH", dir_.path().c_str());
  EXPECT_THAT(usage_error({"mpf-unit-dir"}), HasSubstr("mpf-unit-dir"));
}

TEST(Options, NoProgramIsAnError) {
  EXPECT_THAT(usage_error({}), HasSubstr("no program given"));
  EXPECT_THAT(usage_error({"-n", "2"}), HasSubstr("no program given"));
  EXPECT_THAT(usage_error({"--tag-output"}), HasSubstr("no program given"));
}

TEST(Options, UnknownOptionIsAnError) {
  EXPECT_THAT(usage_error({"--no-such-option", "true"}), HasSubstr("--no-such-option"));
}

TEST(Options, ProgramArgumentsAreKeptVerbatim) {
  const Options o = parse({"-n", "2", "true", "-n", "5", "--tag-output"});
  ASSERT_EQ(o.apps.size(), 1u);
  EXPECT_EQ(o.apps[0].nranks, 2);
  EXPECT_EQ(o.apps[0].args, (Strings{"-n", "5", "--tag-output"}));
  EXPECT_FALSE(o.tag_output) << "an option after the program is the program's";

  EXPECT_EQ(parse({"true", "-np", "3", "--np=4", "-x", "A", ""}).apps.at(0).args,
            (Strings{"-np", "3", "--np=4", "-x", "A", ""}));
  EXPECT_EQ(parse({"-x", "MPFUNIT_A=1", "true", "a b", "--", "-"}).apps.at(0).args,
            (Strings{"a b", "--", "-"}));
}

TEST(Options, DoubleDashEndsTheOptions) {
  const Options o = parse({"-n", "2", "--", "true", "--", "-x"});
  EXPECT_EQ(o.apps.at(0).nranks, 2);
  EXPECT_EQ(o.apps[0].program, "true");
  EXPECT_EQ(o.apps[0].args, (Strings{"--", "-x"}));
  EXPECT_THAT(usage_error({"-n", "2", "--"}), HasSubstr("no program given"));
}

TEST(Options, CommandLineIsRecorded) {
  Argv argv({"-n", "2", "true", "x"});
  const ParseResult r = parse_command_line(argv.argc(), argv.argv());
  ASSERT_TRUE(r.options);
  EXPECT_EQ(r.options->command_line, argv.strings());
}

// --- MPMD ---------------------------------------------------------------------

TEST(Options, MpmdContexts) {
  const Options o = parse({"-n", "1", "true", ":", "-n", "3", "false"});
  ASSERT_EQ(o.apps.size(), 2u);
  EXPECT_EQ(o.apps[0].nranks, 1);
  EXPECT_EQ(o.apps[0].program, "true");
  EXPECT_EQ(o.apps[1].nranks, 3);
  EXPECT_EQ(o.apps[1].program, "false");
  EXPECT_THAT(o.apps[1].program_path, ::testing::EndsWith("/false"));
  EXPECT_EQ(o.total_ranks(), 4);

  const Options three = parse({"true", "a", ":", "-np", "2", "false", "b", ":", "true"});
  ASSERT_EQ(three.apps.size(), 3u);
  EXPECT_EQ(three.apps[0].args, (Strings{"a"}));
  EXPECT_EQ(three.apps[1].nranks, 2);
  EXPECT_EQ(three.apps[1].args, (Strings{"b"}));
  EXPECT_EQ(three.apps[2].nranks, 1);
  EXPECT_EQ(three.total_ranks(), 4);
}

TEST(Options, LaterContextMayNotGiveJobOptions) {
  const std::string error = usage_error({"-n", "1", "true", ":", "--tag-output", "-n", "3", "false"});
  EXPECT_THAT(error, HasSubstr("--tag-output"));
  EXPECT_THAT(error, HasSubstr("after ':'"));
  EXPECT_THAT(usage_error({"true", ":", "--bind-to", "core", "false"}), HasSubstr("after ':'"));
}

TEST(Options, LaterContextWithoutProgram) {
  EXPECT_THAT(usage_error({"true", ":"}), HasSubstr("application context 2 after ':' names no program"));
  EXPECT_THAT(usage_error({"true", ":", "-n", "2"}), HasSubstr("names no program"));
}

// --- Environment ----------------------------------------------------------------

TEST(Options, ExportFromEnvironmentAndWithValue) {
  const ScopedEnv a("MPFUNIT_EXPORTED", "from mpfrun");
  const Options o = parse({"-x", "MPFUNIT_EXPORTED", "-x", "MPFUNIT_B=b=c", "-x", "MPFUNIT_EMPTY=", "true"});
  EXPECT_EQ(o.apps.at(0).env,
            (Env{{"MPFUNIT_EXPORTED", "from mpfrun"}, {"MPFUNIT_B", "b=c"}, {"MPFUNIT_EMPTY", ""}}));
}

TEST(Options, ExportOfUnsetVariableIsAnError) {
  const ScopedEnv unset("MPFUNIT_UNSET", nullptr);
  EXPECT_THAT(usage_error({"-x", "MPFUNIT_UNSET", "true"}),
              HasSubstr("-x MPFUNIT_UNSET: MPFUNIT_UNSET is not set in mpfrun's environment"));
}

TEST(Options, EnvOption) {
  EXPECT_EQ(parse({"--env", "MPFUNIT_E=1", "true"}).apps.at(0).env, (Env{{"MPFUNIT_E", "1"}}));
  EXPECT_THAT(usage_error({"--env", "MPFUNIT_E", "true"}), HasSubstr("--env MPFUNIT_E: expected VAR=VALUE"));
  EXPECT_THAT(usage_error({"--env", "=1", "true"}), HasSubstr("expected VAR=VALUE"));
}

// Tunables apply to the whole job (mpfrun resolves them once); a rank's own
// MPF_* variable would be ignored, so giving one to the ranks is refused.
TEST(Options, TunablesCannotBeExportedToRanks) {
  const ScopedEnv set("MPF_STOP_GRACE_MS", "100");
  EXPECT_THAT(usage_error({"-x", "MPF_STOP_GRACE_MS", "true"}), HasSubstr("is a tunable"));
  EXPECT_THAT(usage_error({"-x", "MPF_STOP_GRACE_MS=5", "true"}), HasSubstr("--set"));
  EXPECT_THAT(usage_error({"--env", "MPF_STOP_GRACE_MS=5", "true"}), HasSubstr("is a tunable"));
  EXPECT_THAT(usage_error({"true", ":", "--env", "MPF_STOP_GRACE_MS=5", "false"}), HasSubstr("is a tunable"));
}

// The header promises the pairs "from -x and --env, in order": when one variable
// is set twice, the one given last on the command line must be the one that wins.
TEST(Options, EnvAndExportKeepCommandLineOrder) {
  const Options o = parse({"--env", "MPFUNIT_V=first", "-x", "MPFUNIT_V=second", "true"});
  ASSERT_FALSE(o.apps.at(0).env.empty());
  EXPECT_EQ(o.apps[0].env.back(), (std::pair<std::string, std::string>{"MPFUNIT_V", "second"}));
}

TEST(Options, LaterContextsInheritTheJobEnvironment) {
  const Options o = parse({"-x", "MPFUNIT_A=1", "true", ":", "--env", "MPFUNIT_B=2", "-n", "2", "false"});
  ASSERT_EQ(o.apps.size(), 2u);
  EXPECT_EQ(o.apps[0].env, (Env{{"MPFUNIT_A", "1"}}));
  EXPECT_EQ(o.apps[1].env, (Env{{"MPFUNIT_A", "1"}, {"MPFUNIT_B", "2"}}));
  EXPECT_THAT(usage_error({"true", ":", "--env", "NOEQUALS", "false"}), HasSubstr("expected VAR=VALUE"));
}

// --- Placement, output, job options -------------------------------------------

TEST(Options, BindToAndMapBy) {
  Options o = parse({"true"});
  EXPECT_EQ(o.bind_to, BindTo::automatic);
  EXPECT_EQ(o.map_by, MapBy::core);
  EXPECT_EQ(parse({"--bind-to", "auto", "true"}).bind_to, BindTo::automatic);
  EXPECT_EQ(parse({"--bind-to", "core", "true"}).bind_to, BindTo::core);
  EXPECT_EQ(parse({"--bind-to", "numa", "true"}).bind_to, BindTo::numa);
  EXPECT_EQ(parse({"--bind-to=none", "true"}).bind_to, BindTo::none);
  EXPECT_EQ(parse({"--map-by", "numa", "true"}).map_by, MapBy::numa);
  EXPECT_EQ(parse({"--map-by", "core", "true"}).map_by, MapBy::core);
  EXPECT_THAT(usage_error({"--bind-to", "socket", "true"}), HasSubstr("socket"));
  EXPECT_THAT(usage_error({"--map-by", "node", "true"}), HasSubstr("node"));
}

TEST(Options, Timeout) {
  EXPECT_EQ(parse({"true"}).timeout_seconds, 0.0);
  EXPECT_EQ(parse({"--timeout", "2.5", "true"}).timeout_seconds, 2.5);
  EXPECT_EQ(parse({"--timeout=30", "true"}).timeout_seconds, 30.0);
  EXPECT_NE(usage_error({"--timeout", "0", "true"}), "");
  EXPECT_NE(usage_error({"--timeout=-1", "true"}), "");
  EXPECT_NE(usage_error({"--timeout", "soon", "true"}), "");
}

TEST(Options, FlagsAndValues) {
  const Options o = parse({"--tag-output", "--timestamp-output", "--report-bindings", "--output-filename", "out",
                           "--set", "a=1", "--set", "b=2", "--tuning", "/dev/null", "--report", "r.json", "-v", "-v",
                           "true"});
  EXPECT_TRUE(o.tag_output);
  EXPECT_TRUE(o.timestamp_output);
  EXPECT_TRUE(o.report_bindings);
  EXPECT_EQ(o.output_dir, "out");
  EXPECT_EQ(o.sets, (Strings{"a=1", "b=2"}));
  EXPECT_EQ(o.tuning_file, "/dev/null");
  EXPECT_EQ(o.report_path, "r.json");
  EXPECT_EQ(o.verbose, 2);
  EXPECT_FALSE(o.list_params);
  EXPECT_FALSE(o.cleanup);
}

// --- Hosts ----------------------------------------------------------------------

TEST(Options, HostThisMachine) {
  EXPECT_EQ(parse({"--host", "localhost", "true"}).hosts, (Strings{"localhost"}));
  EXPECT_EQ(parse({"-H", "localhost,127.0.0.1", "true"}).hosts, (Strings{"localhost", "127.0.0.1"}));
  const std::string me = this_host_name();
  EXPECT_EQ(parse({"--host", me, "true"}).hosts, (Strings{me}));
}

TEST(Options, HostElsewhereIsRefused) {
  const std::string error = usage_error({"--host", "some-other-host.invalid", "true"});
  EXPECT_THAT(error, HasSubstr("'some-other-host.invalid'"));
  EXPECT_THAT(error, HasSubstr("on other machines only through Slurm"));
  EXPECT_THAT(usage_error({"--host", "localhost,some-other-host.invalid", "true"}),
              HasSubstr("on other machines only through Slurm"));
}

TEST(Options, HostfileWithCommentsAndSlots) {
  TempDir dir;
  test_util::write_file(dir / "hosts",
                      "# the hosts of this job\n"
                      "localhost slots=4\n"
                      "\n"
                      "   127.0.0.1   # loopback, again\n"
                      "#some-other-host.invalid\n");
  const Options o = parse({"--hostfile", dir / "hosts", "true"});
  EXPECT_EQ(o.apps.at(0).program, "true");
  // Options::hosts is documented as the hosts "from --host and --hostfile".
  EXPECT_EQ(o.hosts, (Strings{"localhost", "127.0.0.1"}));
}

TEST(Options, HostfileErrors) {
  TempDir dir;
  test_util::write_file(dir / "elsewhere", "localhost\nsome-other-host.invalid slots=2\n");
  test_util::write_file(dir / "comments", "# nothing here\n\n");
  const std::string error = usage_error({"--hostfile", dir / "elsewhere", "true"});
  EXPECT_THAT(error, HasSubstr("'some-other-host.invalid'"));
  EXPECT_THAT(error, HasSubstr("--hostfile " + dir / "elsewhere"));
  EXPECT_THAT(error, HasSubstr("on other machines only through Slurm"));
  EXPECT_THAT(usage_error({"--hostfile", dir / "comments", "true"}), HasSubstr("names no host"));
  EXPECT_THAT(usage_error({"--hostfile", dir / "missing", "true"}), HasSubstr("missing"));
}

// --- Actions that need no program -------------------------------------------------

TEST(Options, ListParamsAndCleanupNeedNoProgram) {
  const Options list = parse({"--list-params"});
  EXPECT_TRUE(list.list_params);
  EXPECT_TRUE(list.apps.empty());
  const Options with_set = parse({"--set", "a=1", "--list-params"});
  EXPECT_TRUE(with_set.list_params);
  EXPECT_EQ(with_set.sets, (Strings{"a=1"}));
  const Options cleanup = parse({"--cleanup"});
  EXPECT_TRUE(cleanup.cleanup);
  EXPECT_TRUE(cleanup.apps.empty());
}

TEST(Options, HelpAndVersionEndAtOnce) {
  for (const char* flag : {"--help", "-h", "--version"}) {
    Argv argv({flag});
    ParseResult result;
    std::string printed;
    {
      CaptureFd capture(1);
      result = parse_command_line(argv.argc(), argv.argv());
      printed = capture.text();
    }
    EXPECT_FALSE(result.options.has_value()) << flag;
    EXPECT_EQ(result.exit_code, 0) << flag;
    EXPECT_THAT(printed, HasSubstr("mpfrun")) << flag;
    if (std::string(flag) != "--version") {
      EXPECT_THAT(printed, HasSubstr("usage: mpfrun [options] PROGRAM [ARGS...]")) << flag;
    }
  }
}

}  // namespace
}  // namespace mpf::launcher
