// Every counter of RankCounters, named once, so that the launcher's report,
// mpfinspect, MPI_T (lib/mpi/tool_interface.cpp: the docs are its descriptions,
// so each stands alone) and any other reader list them all without repeating
// the list.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "shm/ranks_layout.hpp"

namespace mpf::shm {

struct CounterField {
  std::string_view name;
  std::atomic<std::uint64_t> RankCounters::*member;
  std::string_view doc;
};

inline constexpr std::array<CounterField, 41> kCounterFields{{
    {"pmix_puts", &RankCounters::pmix_puts, "wire-up key/value pairs published"},
    {"pmix_gets", &RankCounters::pmix_gets, "wire-up key/value pairs read"},
    {"pmix_fences", &RankCounters::pmix_fences, "wire-up fences completed"},
    {"init_ns", &RankCounters::init_ns, "nanoseconds spent initialising"},
    {"finalize_ns", &RankCounters::finalize_ns, "nanoseconds spent finalizing"},
    {"short_sent", &RankCounters::short_sent, "messages sent inside their packet"},
    {"short_bytes", &RankCounters::short_bytes, "payload bytes of the messages sent inside their packet"},
    {"eager_sent", &RankCounters::eager_sent, "messages sent through an eager buffer"},
    {"eager_bytes", &RankCounters::eager_bytes, "payload bytes of the messages sent through an eager buffer"},
    {"rndv_sent", &RankCounters::rndv_sent, "messages sent by rendezvous"},
    {"rndv_bytes", &RankCounters::rndv_bytes, "payload bytes of the messages sent by rendezvous"},
    {"received", &RankCounters::received, "messages received"},
    {"received_bytes", &RankCounters::received_bytes, "payload bytes of the messages received"},
    {"unexpected", &RankCounters::unexpected, "messages that arrived before their receive"},
    {"unexpected_hwm_bytes", &RankCounters::unexpected_hwm_bytes, "most unexpected-pool bytes in use at once"},
    {"flow_stalls", &RankCounters::flow_stalls, "sends held back for ring space or an eager buffer"},
    {"sleeps", &RankCounters::sleeps, "times the rank slept on its futex"},
    {"wakeups_sent", &RankCounters::wakeups_sent, "futex wakes issued to sleeping peers"},
    {"turn_sleeps", &RankCounters::turn_sleeps, "sleeps until a Bcast of rotating roots came near this rank's turn"},
    {"turn_timeouts", &RankCounters::turn_timeouts, "turn sleeps that nobody woke (ended by their time limit)"},
    {"rma_operations", &RankCounters::rma_operations, "one-sided operations issued (MPI_Put, MPI_Get, accumulates)"},
    {"rma_applied", &RankCounters::rma_applied,
     "one-sided operations this rank's engine applied for origins that could not reach its memory"},
    {"rma_types_sent", &RankCounters::rma_types_sent,
     "datatype layouts sent to a target with a one-sided operation (once per target and datatype)"},
    {"rma_type_cache_hits", &RankCounters::rma_type_cache_hits,
     "one-sided operations whose target datatype this rank had cached from an earlier one"},
    {"mpf_sent", &RankCounters::mpf_sent, "MPF messages sent (mpf_send)"},
    {"mpf_sent_bytes", &RankCounters::mpf_sent_bytes, "bytes of the MPF messages sent"},
    {"mpf_received", &RankCounters::mpf_received, "MPF messages received (mpf_receive)"},
    {"mpf_received_bytes", &RankCounters::mpf_received_bytes, "bytes of the MPF messages received"},
    {"mpf_full_waits", &RankCounters::mpf_full_waits,
     "MPF sends that waited for room because their conversation's queue was full (mpf_queue_bytes)"},
    {"shmem_puts", &RankCounters::shmem_puts, "OpenSHMEM puts issued (p, put, iput, put_nbi, put_signal and kin)"},
    {"shmem_put_bytes", &RankCounters::shmem_put_bytes, "bytes of the OpenSHMEM puts issued"},
    {"shmem_gets", &RankCounters::shmem_gets, "OpenSHMEM gets issued (g, get, iget, get_nbi and kin)"},
    {"shmem_get_bytes", &RankCounters::shmem_get_bytes, "bytes of the OpenSHMEM gets issued"},
    {"shmem_amo_fetch", &RankCounters::shmem_amo_fetch, "OpenSHMEM atomic fetches (atomic_fetch, signal_fetch)"},
    {"shmem_amo_set", &RankCounters::shmem_amo_set, "OpenSHMEM atomic sets (atomic_set)"},
    {"shmem_amo_swap", &RankCounters::shmem_amo_swap, "OpenSHMEM atomic swaps (atomic_swap)"},
    {"shmem_amo_compare_swap", &RankCounters::shmem_amo_compare_swap,
     "OpenSHMEM atomic compare-and-swaps (atomic_compare_swap, test_lock, set_lock)"},
    {"shmem_amo_add", &RankCounters::shmem_amo_add, "OpenSHMEM atomic adds and increments, fetching or not"},
    {"shmem_amo_bitwise", &RankCounters::shmem_amo_bitwise, "OpenSHMEM atomic and, or and xor, fetching or not"},
    {"shmem_signals", &RankCounters::shmem_signals, "OpenSHMEM signals set or added (put_signal and kin)"},
    {"shmem_static_accesses", &RankCounters::shmem_static_accesses,
     "OpenSHMEM accesses to another PE's global or static variables, by Cross Memory Attach"},
}};
static_assert(kCounterFields.size() * sizeof(std::atomic<std::uint64_t>) == sizeof(RankCounters),
              "every counter of RankCounters is listed once");

}  // namespace mpf::shm
