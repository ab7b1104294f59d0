// Unit tests of the machine's fingerprint (lib/common/machine.hpp).
#include "common/machine.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

namespace mpf::common {
namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

MachineFingerprint xeon() { return {.cpu_model = "Intel Xeon X @ 2.8GHz", .cpus = 8, .memory_bytes = 32 * kGiB}; }

TEST(MachineFingerprint, CurrentIsThisMachine) {
  const MachineFingerprint here = MachineFingerprint::current();
  EXPECT_FALSE(here.cpu_model.empty()) << "\"unknown\" when /proc/cpuinfo names no model";
  EXPECT_EQ(here.cpus, ::sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_EQ(here.memory_bytes, static_cast<std::int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(MachineFingerprint::current(), here);
  EXPECT_EQ(machine_difference(here, MachineFingerprint::current()), "");
}

TEST(MachineFingerprint, EqualityIsExact) {
  MachineFingerprint other = xeon();
  EXPECT_EQ(other, xeon());
  other.memory_bytes += 4096;
  EXPECT_NE(other, xeon());
  other = xeon();
  other.cpu_model += " ";
  EXPECT_NE(other, xeon());
  other = xeon();
  other.cpus = 4;
  EXPECT_NE(other, xeon());
}

TEST(MachineFingerprint, MemoryIsComparedInWholeGiB) {
  EXPECT_EQ(rounded_gib(0), 0);
  EXPECT_EQ(rounded_gib(kGiB / 2 - 1), 0);
  EXPECT_EQ(rounded_gib(kGiB / 2), 1);
  EXPECT_EQ(rounded_gib(25'000'000'000), 23);
  EXPECT_EQ(rounded_gib(INT64_MAX), INT64_MAX / kGiB + 1);
  // MemTotal moves by a few MiB between boots and kernels: the same machine.
  MachineFingerprint wobbled = xeon();
  wobbled.memory_bytes -= 37 << 20;
  EXPECT_EQ(machine_difference(wobbled, xeon()), "");
  wobbled.memory_bytes = 31 * kGiB;
  EXPECT_EQ(machine_difference(wobbled, xeon()), "31 GiB of memory; this one: 32 GiB of memory");
}

TEST(MachineFingerprint, DifferenceNamesOnlyWhatDiffers) {
  EXPECT_EQ(machine_difference(xeon(), xeon()), "");
  MachineFingerprint here = xeon();
  here.cpus = 2;
  EXPECT_EQ(machine_difference(xeon(), here), "8 CPUs; this one: 2 CPUs");
  here.cpus = 1;
  EXPECT_EQ(machine_difference(xeon(), here), "8 CPUs; this one: 1 CPU");
  here = {.cpu_model = "Intel Xeon Y", .cpus = 2, .memory_bytes = 24 * kGiB};
  EXPECT_EQ(machine_difference(xeon(), here),
            "Intel Xeon X @ 2.8GHz, 8 CPUs, 32 GiB of memory; this one: Intel Xeon Y, 2 CPUs, 24 GiB of memory");
  here = xeon();
  here.cpu_model = "intel xeon x @ 2.8ghz";  // compared exactly
  EXPECT_EQ(machine_difference(xeon(), here), "Intel Xeon X @ 2.8GHz; this one: intel xeon x @ 2.8ghz");
}

TEST(MachineFingerprint, Describe) {
  EXPECT_EQ(describe(xeon()), "Intel Xeon X @ 2.8GHz, 8 CPUs, 32 GiB of memory");
  EXPECT_FALSE(kernel_description().empty());
  EXPECT_EQ(cpuinfo_field("no such key in cpuinfo"), "");
}

}  // namespace
}  // namespace mpf::common
