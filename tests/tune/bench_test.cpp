// mpftune bench's parts without running a job: the kernels' output lines,
// the statistics, the comparison and its ratios, the plan of runs and the
// launch command of each MPI.
#include <gtest/gtest.h>

#include <algorithm>

#include "tune/bench/catalogue.hpp"
#include "tune/bench/measurement.hpp"
#include "tune/bench/peers.hpp"
#include "tune/bench/report.hpp"
#include "tune/bench/results.hpp"
#include "tune/bench/runner.hpp"

namespace mpf::tune::bench {
namespace {

constexpr const char* kLine =
    "mpfbench kernel=pingpong op=- np=2 bytes=1024 unit=us better=lower warmup=127 iters=153 reps=3 "
    "median=2.15524 min=2.13625 q1=2.14574 q3=2.161 max=2.16676 samples=2.13625,2.15524,2.16676";

TEST(Measurement, ParsesAKernelLine) {
  const auto m = parse_line(kLine);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->kernel, "pingpong");
  EXPECT_EQ(m->op, "-");
  EXPECT_EQ(m->np, 2);
  EXPECT_EQ(m->bytes, 1024);
  EXPECT_EQ(m->unit, "us");
  EXPECT_FALSE(m->higher_is_better);
  EXPECT_EQ(m->warmup, 127);
  EXPECT_EQ(m->iters, 153);
  EXPECT_EQ(m->samples, (std::vector<double>{2.13625, 2.15524, 2.16676}));
}

TEST(Measurement, NoSizeIsNegativeBytes) {
  const auto m = parse_line(
      "mpfbench kernel=token_ring op=- np=8 bytes=-1 unit=us better=lower warmup=3 iters=4 reps=1 median=1 min=1 "
      "q1=1 q3=1 max=1 samples=1");
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->bytes.has_value());
}

TEST(Measurement, OtherLinesAreNotMeasurements) {
  EXPECT_FALSE(parse_line("# library: Open MPI v4.1.4").has_value());
  EXPECT_FALSE(parse_line("mpfbench-end kernel=bw check=passed").has_value());
  EXPECT_FALSE(parse_line("").has_value());
}

TEST(Measurement, MalformedLinesSayWhatIsWrong) {
  std::string line = kLine;
  EXPECT_THROW(parse_line(line.replace(line.find("reps=3"), 6, "reps=4")), MeasurementError);
  EXPECT_THROW(parse_line("mpfbench kernel=bw np=2"), MeasurementError);
  EXPECT_THROW(parse_line("mpfbench kernel=bw op=- np=two bytes=1 unit=us better=lower warmup=1 iters=1 reps=1 "
                          "samples=1"),
               MeasurementError);
  EXPECT_THROW(parse_line("mpfbench kernel=bw op=- np=2 bytes=1 unit=us better=faster warmup=1 iters=1 reps=1 "
                          "samples=1"),
               MeasurementError);
  try {
    parse_line("mpfbench kernel=bw op=- np=2 bytes=1 unit=us better=lower warmup=1 iters=1 reps=1 samples=x");
    FAIL() << "a bad sample was accepted";
  } catch (const MeasurementError& e) {
    EXPECT_NE(std::string(e.what()).find("bad sample 'x'"), std::string::npos) << e.what();
  }
}

TEST(Measurement, OutputHasLibraryMeasurementsAndEnd) {
  const KernelOutput out = parse_output(std::string("# library: MPICH Version: 4.0.2; MPICH Device: ch4:ucx\n") +
                                        kLine + "\nmpfbench-end kernel=pingpong check=off\n");
  EXPECT_EQ(out.library, "MPICH Version: 4.0.2; MPICH Device: ch4:ucx");
  EXPECT_EQ(out.measurements.size(), 1u);
  EXPECT_TRUE(out.ended);
  EXPECT_FALSE(parse_output(kLine).ended);
}

TEST(Statistics, QuartilesInterpolate) {
  const Summary s = summarise({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(summarise({1, 2}).median, 1.5);
  EXPECT_DOUBLE_EQ(summarise({7}).q3, 7);
  EXPECT_DOUBLE_EQ(s.relative_iqr(), 2.0 / 3.0);
}

TaggedMeasurement tagged(const std::string& impl, const std::string& kernel, long bytes, bool higher,
                         std::vector<double> samples) {
  Measurement m{.kernel = kernel, .op = "-", .np = 2, .bytes = bytes, .unit = higher ? "MB/s" : "us",
                .higher_is_better = higher, .warmup = 1, .iters = 10, .samples = std::move(samples)};
  return {impl, 0, m};
}

TEST(Results, RatioIsOfTimesToTheFasterPeer) {
  const Results r = gather({tagged("mpf", "pingpong", 0, false, {2, 2, 2}),
                            tagged("openmpi", "pingpong", 0, false, {1, 1, 1}),
                            tagged("mpich", "pingpong", 0, false, {4, 4, 4}),
                            tagged("mpf", "bw", 64, true, {500, 500, 500}),
                            tagged("openmpi", "bw", 64, true, {1000, 1000, 1000}),
                            tagged("mpich", "bw", 64, true, {2000, 2000, 2000})},
                           {"mpf", "openmpi", "mpich"});
  ASSERT_EQ(r.comparisons.size(), 2u);
  const Comparison* latency = r.comparison({"pingpong", "-", 2, 0});
  ASSERT_NE(latency, nullptr);
  EXPECT_EQ(latency->best_peer, "openmpi");
  EXPECT_DOUBLE_EQ(latency->ratio, 2.0);
  EXPECT_DOUBLE_EQ(latency->ratios.at("mpich"), 0.5);
  EXPECT_FALSE(latency->within_noise);
  // For a bandwidth the faster peer has the higher figure, and the ratio is
  // still the toolkit's time over the peer's.
  const Comparison* bw = r.comparison({"bw", "-", 2, 64});
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->best_peer, "mpich");
  EXPECT_DOUBLE_EQ(bw->ratio, 4.0);
  EXPECT_DOUBLE_EQ(bw->ratios.at("openmpi"), 2.0);
}

TEST(Results, OverlappingQuartilesAreNoise) {
  const Results r = gather({tagged("mpf", "pingpong", 8, false, {1.0, 1.1, 1.2, 1.3}),
                            tagged("openmpi", "pingpong", 8, false, {1.1, 1.2, 1.3, 1.4})},
                           {"mpf", "openmpi"});
  ASSERT_EQ(r.comparisons.size(), 1u);
  EXPECT_TRUE(r.comparisons[0].within_noise);
}

TEST(Results, SamplesOfRepetitionsAreGathered) {
  TaggedMeasurement second = tagged("mpf", "pingpong", 8, false, {3, 4});
  second.repetition = 1;
  const Results r = gather({tagged("mpf", "pingpong", 8, false, {1, 2}), second}, {"mpf"});
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_EQ(r.series[0].samples.size(), 4u);
  EXPECT_EQ(r.series[0].run_medians, (std::vector<double>{1.5, 3.5}));
  EXPECT_DOUBLE_EQ(r.series[0].summary.median, 2.5);
  EXPECT_TRUE(r.comparisons.empty());
}

TEST(Results, KeysFollowTheCatalogueThenSizes) {
  const Results r = gather({tagged("mpf", "bw", 64, true, {1}), tagged("mpf", "pingpong", 1024, false, {1}),
                            tagged("mpf", "pingpong", 0, false, {1})},
                           {"mpf"});
  ASSERT_EQ(r.keys.size(), 3u);
  EXPECT_EQ(r.keys[0].kernel, "pingpong");
  EXPECT_EQ(r.keys[0].bytes, 0);
  EXPECT_EQ(r.keys[1].bytes, 1024);
  EXPECT_EQ(r.keys[2].kernel, "bw");
}

TEST(Plan, PairKernelsRunWithTwoRanksOthersWithEachCount) {
  const auto plan = plan_runs({"startup", "pingpong", "token_ring"}, {1, 4});
  std::vector<std::string> runs;
  for (const PlannedRun& p : plan) runs.push_back(p.kernel + ":" + std::to_string(p.np));
  // Catalogue order; token_ring needs 2 ranks or more.
  EXPECT_EQ(runs, (std::vector<std::string>{"pingpong:2", "token_ring:4", "startup:1", "startup:4"}));
}

TEST(Plan, ShmemKernelsRunAsTheirMpiCounterparts) {
  const auto plan = plan_runs({"shmem_startup", "shmem_bw", "shmem_latency", "shmem_collectives"}, {1, 16});
  std::vector<std::string> runs;
  for (const PlannedRun& p : plan) runs.push_back(p.kernel + ":" + std::to_string(p.np));
  // shmem_latency's fetch_add_all needs two PEs; shmem_bw runs with 2.
  EXPECT_EQ(runs, (std::vector<std::string>{"shmem_latency:16", "shmem_bw:2", "shmem_collectives:1",
                                            "shmem_collectives:16", "shmem_startup:1", "shmem_startup:16"}));
}

TEST(Catalogue, EachKernelHasItsInterface) {
  EXPECT_EQ(find_kernel("pingpong")->api, Api::mpi);
  EXPECT_EQ(find_kernel("conversations")->api, Api::mpf);
  for (const char* k : {"shmem_latency", "shmem_bw", "shmem_collectives", "shmem_startup"}) {
    EXPECT_EQ(find_kernel(k)->api, Api::shmem) << k;
  }
  EXPECT_TRUE(find_kernel("shmem_startup")->timed_by_bench);
  // The MPIs list MPF kernels as ones they cannot build; OpenSHMEM stands alone.
  EXPECT_EQ(compared_with(Api::mpf), Api::mpi);
  EXPECT_EQ(compared_with(Api::shmem), Api::shmem);
  EXPECT_NE(api_name(Api::shmem).find("shmem.h"), std::string_view::npos);
}

TEST(Catalogue, EveryKernelHasASummary) {
  for (const KernelInfo& k : catalogue()) {
    EXPECT_FALSE(k.summary.empty()) << k.name;
    EXPECT_EQ(find_kernel(k.name), &k);
  }
  EXPECT_EQ(find_kernel("nope"), nullptr);
}

TEST(Peers, BindingAutoGivesEveryRankACpuOrNone) {
  EXPECT_EQ(resolve_binding("auto", 1), "core");
  EXPECT_EQ(resolve_binding("auto", 2 * usable_cpus()), "core");  // as mpfrun's default
  if (usable_cpus() > 1) {
    EXPECT_EQ(resolve_binding("auto", usable_cpus() + 1), "none");  // uneven: the kernel balances
  }
  EXPECT_EQ(resolve_binding("none", 1), "none");
  EXPECT_EQ(resolve_binding("core", 1000), "core");
}

TEST(Peers, EachLauncherIsToldRanksAndBinding) {
  Implementation impl;
  impl.launcher = "/x/mpfrun";
  impl.kind = LauncherKind::mpfrun;
  EXPECT_EQ(impl.launch(4, "none", 60, "/k/kernel_bw", {"--quick"}),
            (std::vector<std::string>{"/x/mpfrun", "--timeout", "60", "--bind-to", "none", "-n", "4", "/k/kernel_bw",
                                      "--quick"}));
  impl.launcher = "mpiexec.mpich";
  impl.kind = LauncherKind::mpich;
  EXPECT_EQ(impl.launch(2, "core", 60, "k", {}),
            (std::vector<std::string>{"mpiexec.mpich", "-bind-to", "core", "-n", "2", "k"}));
  impl.launcher = "mpirun.openmpi";
  impl.kind = LauncherKind::openmpi;
  const auto cmd = impl.launch(usable_cpus() + 1, "core", 60, "k", {});
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), "--oversubscribe"), cmd.end());
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), "core:overload-allowed"), cmd.end());
}

TEST(Peers, OnlyImplementationsOfTheKernelsInterfacesAreLookedFor) {
  // Whether or not they are installed: found, or named as missing.
  const PeerSearch shmem = find_peers({Api::shmem});
  for (const Implementation& p : shmem.found) {
    EXPECT_EQ(p.api, Api::shmem) << p.id;
    EXPECT_EQ(p.kind, LauncherKind::openmpi) << "oshrun is Open MPI's mpirun";
  }
  for (const std::string& m : shmem.missing) EXPECT_NE(m.find("OSHMEM"), std::string::npos) << m;
  EXPECT_EQ(shmem.found.size() + shmem.missing.size(), 1u);
  const PeerSearch mpi = find_peers({Api::mpi});
  EXPECT_EQ(mpi.found.size() + mpi.missing.size(), 2u);
  for (const Implementation& p : mpi.found) EXPECT_EQ(p.api, Api::mpi) << p.id;
  const PeerSearch none = find_peers({});
  EXPECT_TRUE(none.found.empty() && none.missing.empty());
}

TEST(Runs, AFailureAfterEveryResultKeepsTheRunComplete) {
  RunRecord run;
  for (const auto& [status, complete] : std::vector<std::pair<std::string, bool>>{
           {kOk, true}, {kFailedAtExit, true}, {"failed", false}, {"timeout", false}}) {
    run.status = status;
    EXPECT_EQ(run.complete(), complete) << status;
  }
}

TEST(Peers, ShortLibraryKeepsNameVersionAndDevice) {
  Implementation impl;
  impl.name = "MPICH";
  EXPECT_EQ(impl.short_library(), "MPICH");
  impl.library = "MPICH Version: 4.0.2; MPICH Release date: Thu Apr 7; MPICH Device: ch4:ucx; MPICH configure: x";
  EXPECT_EQ(impl.short_library(), "MPICH Version: 4.0.2; MPICH Device: ch4:ucx");
}

TEST(Report, NumbersAreWrittenShort) {
  EXPECT_EQ(format_bytes(0), "0");
  EXPECT_EQ(format_bytes(1000), "1000");
  EXPECT_EQ(format_bytes(4096), "4K");
  EXPECT_EQ(format_bytes(4 << 20), "4M");
  EXPECT_EQ(format_value(0.31234), "0.312");
  EXPECT_EQ(format_value(12.345), "12.3");
  EXPECT_EQ(format_value(12345.6), "12346");
}

}  // namespace
}  // namespace mpf::tune::bench
