// The machine this process runs on, as far as tuning goes: its CPU model, how
// many logical CPUs are online, how much physical memory it has.
//
// A tuning file records the fingerprint of the machine it was measured on (its
// "machine" object, common/tunables.hpp), and the tunables resolved from it carry a
// warning when this machine is another one; mpftune's reports describe the machine
// with the same values (tune/bench/machine.cpp). It is the toolkit's one reader of
// /proc/cpuinfo.
//
//   const MachineFingerprint here = MachineFingerprint::current();
//   std::string why = machine_difference(measured, here);  // "" on the same machine
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mpf::common {

struct MachineFingerprint {
  std::string cpu_model;          // /proc/cpuinfo's first "model name"; "unknown" when it has none
  int cpus = 0;                   // online logical CPUs (sysconf _SC_NPROCESSORS_ONLN)
  std::int64_t memory_bytes = 0;  // physical memory (_SC_PHYS_PAGES * _SC_PAGESIZE)

  // This machine's. Reads /proc/cpuinfo: not for a hot path.
  static MachineFingerprint current();

  // Every field exactly; machine_difference() is the comparison that matters for tuning.
  bool operator==(const MachineFingerprint&) const = default;
};

// The value of the first "key : value" line of /proc/cpuinfo with this key, e.g.
// "model name" or "flags"; "" when no line has it.
std::string cpuinfo_field(std::string_view key);

// The kernel as uname(2) tells it: "Linux 6.1.0-18-amd64 x86_64".
std::string kernel_description();

// Bytes in whole GiB, rounded to the nearest: 25'000'000'000 -> 23.
std::int64_t rounded_gib(std::int64_t bytes);

// For people: "Intel Xeon @ 2.80GHz, 8 CPUs, 32 GiB of memory".
std::string describe(const MachineFingerprint& machine);

// How the machine a tuning file was `measured` on differs from this one (`here`),
// naming only what differs, the measured machine's values first:
// "8 CPUs, 32 GiB of memory; this one: 2 CPUs, 24 GiB of memory". Empty when they are
// the same machine for tuning: the same CPU model (exactly), the same number of CPUs
// and the same memory in whole GiB (rounded, as the kernel's MemTotal moves a little
// between boots and kernel versions).
std::string machine_difference(const MachineFingerprint& measured, const MachineFingerprint& here);

}  // namespace mpf::common
