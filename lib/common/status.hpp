// The runtime's one status type (STYLE 6), for a step that may not finish
// at once: what a transport or a protocol step reports to its caller.
//
//   done         it happened
//   in_progress  it started and completes later (the caller looks again)
//   retry        nothing happened: out of room or refused for now (back-
//                pressure, counted by whoever holds it back); the caller
//                tries later or another way
//   error        it failed; the error was reported once where it was found
//                (with the system call and errno text) and the caller fails
//                what depended on it
//
// Exceptions are for setup failures and the API boundary only.
#pragma once

#include <cstdint>

namespace mpf::common {

enum class Status : std::uint8_t { done, in_progress, retry, error };

}  // namespace mpf::common
