// THE table of tunables: every tunable of the MPF Toolkit is declared here, once,
// and nowhere else is a default, a range or a doc line written.
//
// The library resolves them (common/tunables.hpp: default < tuning file < MPF_*
// environment < mpfrun --set), `mpfrun --list-params` and `mpfinspect` print them
// with where each value came from, `mpftune` writes the same names into tuning
// files and `man 7 mpf` is generated from this table.
//
// Adding a tunable is one enumerator in `Tunable` and one row in `kTunableTable`, in
// the same position. The build fails when the two disagree (the static_asserts at the
// end of this file) or when a default does not parse or lies outside its range
// (common/tunables.hpp); tests/unit/common checks names and doc lines.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/version.hpp"

namespace mpf::common {

// Names a tunable in code: `tunables.integer(Tunable::stop_grace_ms)`. Each
// enumerator's value is the index of its row in kTunableTable.
enum class Tunable : std::size_t {
  tuning_file,
  run_dir,
  stop_grace_ms,
  short_limit,
  eager_limit,
  eager_cells,
  eager_small_cells,
  ring_slots,
  rndv_mode,
  unexpected_pool,
  wait_policy,
  spin_count,
  yield_count,
  yield_us,
  yielders_per_cpu,
  all_yield_per_cpu,
  coll_buffer,
  coll_radix,
  coll_short_limit,
  coll_exchange_max,
  coll_board,
  coll_board_stage,
  coll_single_copy,
  coll_stream_copy,
  coll_rules,
  rma_regions,
  rma_stream_copy,
  net_provider,
  mpf_conversations,
  mpf_queue_bytes,
  shmem_symmetric_size,
  shmem_debug,
  shmem_version,
  shmem_info,
  datatype_check,
  debug,
  count,  // not a tunable: the number of tunables; keep it last
};

inline constexpr std::size_t kTunableCount = static_cast<std::size_t>(Tunable::count);

// How a value is written and checked. Every source (the default below, a tuning
// file, the environment, --set) goes through the same parser (common/tunables.hpp).
enum class TunableKind {
  integer,  // decimal with optional sign, within [min, max]
  size,     // bytes: decimal with optional suffix k/K/KiB, m/M/MiB, g/G/GiB, t/T/TiB, within [min, max]
  boolean,  // 1/0, true/false, yes/no, on/off, any case
  choice,   // exactly one of `choices` (case-sensitive)
  text,     // any string, the empty one included
};

// One row of the table.
struct TunableSpec {
  Tunable id;                  // the enumerator naming this row; must equal its index
  std::string_view name;       // lower snake case; the variable is MPF_ + NAME upper-cased
  TunableKind kind;
  std::string_view default_value;  // text form, parsed like any other source
  std::int64_t min = 0;            // integer and size: inclusive range
  std::int64_t max = 0;
  std::span<const std::string_view> choices{};  // choice: the accepted words
  std::string_view doc;            // one line, no trailing period
  // A second environment variable a standard names for it (OpenSHMEM's
  // SHMEM_SYMMETRIC_SIZE), read as the standard says its values are
  // written; MPF_NAME wins when both are set. Empty: none.
  std::string_view standard_env{};
};

namespace detail {

// A string built at compile time from others, so that a default derived from a
// configured path (kInstallDataDir) is still written once, in the table.
template <std::size_t N>
struct JoinedText {
  std::array<char, N + 1> chars{};
  constexpr std::string_view view() const { return {chars.data(), N}; }
};

template <std::size_t N>
consteval JoinedText<N> join(std::string_view a, std::string_view b) {
  JoinedText<N> out;
  std::size_t at = 0;
  for (char c : a) out.chars[at++] = c;
  for (char c : b) out.chars[at++] = c;
  return out;
}

inline constexpr std::string_view kTuningFileName = "/tuning.json";
inline constexpr auto kDefaultTuningFileText =
    join<kInstallDataDir.size() + kTuningFileName.size()>(kInstallDataDir, kTuningFileName);

}  // namespace detail

// <install data dir>/tuning.json, the file `mpftune` writes.
inline constexpr std::string_view kDefaultTuningFile = detail::kDefaultTuningFileText.view();

// The words of the choice tunables.
inline constexpr std::array<std::string_view, 4> kRndvModes{"split", "get", "put", "copy"};
inline constexpr std::array<std::string_view, 4> kWaitPolicies{"adaptive", "spin", "yield", "sleep"};
inline constexpr std::array<std::string_view, 5> kDebugTopics{"none", "wireup", "protocol", "wait", "all"};

// The largest short message: what fits in a ring slot after the packet
// header (lib/progress/packet.hpp checks this against the packet layout).
inline constexpr std::int64_t kMaxShortLimit = 88;

inline constexpr std::array<TunableSpec, kTunableCount> kTunableTable{{
    {
        .id = Tunable::tuning_file,
        .name = "tuning_file",
        .kind = TunableKind::text,
        .default_value = kDefaultTuningFile,
        .doc = "JSON tuning file read at start-up; mpftune writes the default one, which is skipped "
               "when missing (empty: none)",
    },
    {
        .id = Tunable::run_dir,
        .name = "run_dir",
        .kind = TunableKind::text,
        .default_value = "",
        .doc = "Directory where running jobs register for mpfinspect "
               "(empty: $TMPDIR/mpf-<uid>, or /tmp/mpf-<uid> without TMPDIR)",
    },
    {
        .id = Tunable::stop_grace_ms,
        .name = "stop_grace_ms",
        .kind = TunableKind::integer,
        .default_value = "2000",
        .min = 0,
        .max = 600000,
        .doc = "Milliseconds the ranks of a job being stopped get between SIGTERM and SIGKILL",
    },
    {
        .id = Tunable::short_limit,
        .name = "short_limit",
        .kind = TunableKind::size,
        .default_value = "88",
        .min = 0,
        .max = kMaxShortLimit,
        .doc = "Largest message sent inside its ring packet (short protocol)",
    },
    {
        .id = Tunable::eager_limit,
        .name = "eager_limit",
        .kind = TunableKind::size,
        .default_value = "16KiB",
        .min = 64,
        .max = 1 << 20,
        .doc = "Largest message copied through a shared eager buffer; larger ones use rendezvous",
    },
    {
        .id = Tunable::eager_cells,
        .name = "eager_cells",
        .kind = TunableKind::integer,
        .default_value = "16",
        .min = 2,
        .max = 4096,
        .doc = "Eager buffers of eager_limit bytes each rank owns in the shared segment",
    },
    {
        // A message of a few hundred bytes in an eager_limit buffer leaves a
        // window of such messages in flight (a stream, a flood) with 16
        // buffers: the rest went by rendezvous, at 256 B half of them
        // (tune/kernels/bibw.c, 2.5x below the faster peer).
        .id = Tunable::eager_small_cells,
        .name = "eager_small_cells",
        .kind = TunableKind::integer,
        .default_value = "64",
        .min = 0,
        .max = 4096,
        .doc = "Eager buffers of 1 KiB each rank owns for messages of at most 1 KiB, so that many small messages "
               "can be in flight at once (when they are all taken, such messages use the eager_limit buffers)",
    },
    {
        .id = Tunable::ring_slots,
        .name = "ring_slots",
        .kind = TunableKind::integer,
        .default_value = "32",
        .min = 2,
        .max = 65536,
        .doc = "Packet slots in the ring of each ordered pair of ranks",
    },
    {
        .id = Tunable::rndv_mode,
        .name = "rndv_mode",
        .kind = TunableKind::choice,
        .default_value = "split",
        .choices = kRndvModes,
        .doc = "Rendezvous copy: split (both ends copy chunks with CMA at once, from 256 KiB; get below), "
               "get (receiver pulls with CMA), put (sender pushes with CMA), "
               "copy (pipelined two copies through the segment, no CMA; RMA on process memory then goes through "
               "the target's engine)",
    },
    {
        .id = Tunable::unexpected_pool,
        .name = "unexpected_pool",
        .kind = TunableKind::size,
        .default_value = "4MiB",
        .min = 1024,
        .max = std::int64_t{1} << 30,
        .doc = "Bytes of messages with their data a rank buffers before their receive (each sender "
               "gets a share; beyond it the sender waits for the match, never fails); envelopes "
               "of waiting rendezvous messages are not counted",
    },
    {
        .id = Tunable::wait_policy,
        .name = "wait_policy",
        .kind = TunableKind::choice,
        .default_value = "adaptive",
        .choices = kWaitPolicies,
        .doc = "How a waiting rank waits: adaptive (spin, yield, then sleep; when ranks outnumber CPUs, "
               "yield only while holding one of the node's yield slots, else sleep, and in a run of Bcasts "
               "of rotating roots sleep while the rank's turn is far off), spin, yield (spin, unless ranks "
               "outnumber CPUs, then yield; never sleep), or sleep at once",
    },
    // About 10 ms of polling. With far fewer polls a 2-rank ping-pong on
    // virtual machines can fall into a state where every wait outlasts the
    // polls: once a waiting rank has slept its virtual CPU idles, the host
    // may then run both virtual CPUs on one of its own, and each rank
    // sleeps at every message from then on. Polls that outlast such a wait
    // keep the virtual CPUs busy and the ranks awake.
    {
        .id = Tunable::spin_count,
        .name = "spin_count",
        .kind = TunableKind::integer,
        .default_value = "200000",
        .min = 0,
        .max = 1000000000,
        .doc = "Polls a waiting rank makes before it starts yielding (adaptive policy, "
               "when the job has a CPU per rank; 200000 polls take about 10 ms on a 2.8 GHz Xeon)",
    },
    {
        .id = Tunable::yield_count,
        .name = "yield_count",
        .kind = TunableKind::integer,
        .default_value = "64",
        .min = 0,
        .max = 1000000000,
        .doc = "Times a waiting rank yields the CPU before it sleeps on its futex (adaptive policy, "
               "when the job has a CPU per rank)",
    },
    {
        .id = Tunable::yield_us,
        .name = "yield_us",
        .kind = TunableKind::integer,
        .default_value = "2000",
        .min = 0,
        .max = 60000000,
        .doc = "Microseconds a waiting rank holding one of the node's yield slots keeps "
               "yielding before it sleeps (adaptive policy, when ranks outnumber CPUs)",
    },
    {
        .id = Tunable::yielders_per_cpu,
        .name = "yielders_per_cpu",
        .kind = TunableKind::integer,
        .default_value = "1",
        .min = 0,
        .max = 4096,
        .doc = "When ranks outnumber CPUs: how many waiting ranks per CPU may keep yielding (for yield_us) "
               "while the rest sleep on their futex; a slot whose holder's wait ends passes to the rank "
               "that has slept longest (adaptive policy)",
    },
    {
        .id = Tunable::all_yield_per_cpu,
        .name = "all_yield_per_cpu",
        .kind = TunableKind::integer,
        .default_value = "4",
        .min = 0,
        .max = 4096,
        .doc = "When ranks outnumber CPUs by at most this many per CPU, every waiting rank keeps yielding "
               "(for yield_us) instead of yielders_per_cpu of them: a CPU's round of yields stays short "
               "(adaptive policy)",
    },
    {
        .id = Tunable::coll_buffer,
        .name = "coll_buffer",
        .kind = TunableKind::size,
        .default_value = "32KiB",
        .min = 4096,
        .max = std::int64_t{16} << 20,
        .doc = "Bytes of each rank's collective slot in the shared segment: collective data larger "
               "than this moves in several steps",
    },
    {
        .id = Tunable::coll_radix,
        .name = "coll_radix",
        .kind = TunableKind::integer,
        .default_value = "4",
        .min = 2,
        .max = 65536,
        .doc = "Radix of the k-nomial trees of Barrier, Bcast and Reduce (2: binomial; at least the "
               "number of ranks: flat, every rank reads the root's slot)",
    },
    {
        .id = Tunable::coll_short_limit,
        .name = "coll_short_limit",
        .kind = TunableKind::size,
        .default_value = "2KiB",
        .min = 0,
        .max = 4032,
        .doc = "Largest piece of collective data (a rank's contribution, or one block of an all-to-all) "
               "sent through the per-pair collective cells, one cache-line transfer each, instead of "
               "the collective slot; a cell holds this many bytes",
    },
    {
        .id = Tunable::coll_exchange_max,
        .name = "coll_exchange_max",
        .kind = TunableKind::integer,
        .default_value = "0",
        .min = 0,
        .max = 65536,
        .doc = "Largest communicator on which Barrier and short Allreduce exchange pairwise "
               "(dissemination, recursive doubling: fewer steps) instead of going up and down a tree "
               "(fewer wake-ups when ranks outnumber CPUs); 0: the number of CPUs the job runs on",
    },
    {
        .id = Tunable::coll_board,
        .name = "coll_board",
        .kind = TunableKind::boolean,
        .default_value = "1",
        .doc = "When MPI_COMM_WORLD has more ranks than coll_exchange_max, its Barrier, Reduce, Allreduce, "
               "Alltoall (blocks up to 4 KiB; larger ones by single copy), Allgather (64 KiB and more in all; beyond coll_board_stage, in rounds) "
               "and Bcast go flat through one shared "
               "board: each rank waits once per call, and a Bcast root runs up to one call per rank (at least "
               "16) ahead of the readers (from 64 KiB, through the board's stage: see coll_board_stage; in a "
               "run of rotating roots, only the next roots yield, the others sleep until their turn comes "
               "near); Reduce and Allreduce "
               "above 8 KiB with a commutative operation have each rank add its input into one of the board's "
               "sums (as it runs for integers, logicals and bytes; in rank order for floating point); large "
               "ones with a non-commutative operation go by single copy, in pieces that whichever rank has a "
               "CPU combines; 0: trees and exchanges over the collective cells and slots",
    },
    {
        .id = Tunable::coll_board_stage,
        .name = "coll_board_stage",
        .kind = TunableKind::size,
        .default_value = "1MiB",
        .min = 0,
        .max = std::int64_t{1} << 30,
        .doc = "Bytes of the board's stage in the shared segment (see coll_board): a Bcast of 64 KiB or more "
               "goes through it (the root copies the message in once, every rank copies it out; larger messages "
               "in rounds), so does an Allgather of 64 KiB or more in all (in rounds too), and a large Allreduce's result is "
               "written there once and copied out by each rank (past this size, written into every rank's "
               "buffer with Cross Memory Attach); the board's two sums, into which ranks add the inputs of a "
               "Reduce or Allreduce with a commutative operation (larger vectors in rounds), are this size too; "
               "0: no stage and no sums (Bcast by entries, or from coll_single_copy bytes "
               "by single-copy reads)",
    },
    {
        .id = Tunable::coll_single_copy,
        .name = "coll_single_copy",
        .kind = TunableKind::size,
        .default_value = "64KiB",
        .min = 0,
        .max = std::int64_t{1} << 40,
        .doc = "Smallest Bcast, Reduce and Allreduce (above coll_exchange_max ranks: each rank's share of it; "
               "on the board: each piece of a Reduce or Allreduce, two per CPU), Alltoall or Allgather block that ranks "
               "read straight from each other's buffers with Cross Memory Attach (one copy) instead of "
               "through the collective slots (two copies; on the board, Alltoall blocks of more than 4 KiB "
               "whatever this says); 0: never (also off when rndv_mode is copy)",
    },
    {
        .id = Tunable::coll_stream_copy,
        .name = "coll_stream_copy",
        .kind = TunableKind::size,
        .default_value = "0",
        .min = 0,
        .max = std::int64_t{1} << 40,
        .doc = "Bytes that a collective's copies out of shared memory (a staged Bcast or Allgather, a large "
               "Allreduce result from the board) write across the node (each rank's bytes times the "
               "ranks) from which every rank copies with streaming stores that bypass the cache: destinations "
               "that together outgrow the last-level cache are evicted before they are read again, and an "
               "ordinary store reads each line in first; 0: half the last-level cache (its size from sysfs; "
               "32 MiB when it does not say); 1024GiB: never",
    },
    {
        .id = Tunable::coll_rules,
        .name = "coll_rules",
        .kind = TunableKind::text,
        .default_value = "",
        .doc = "Collective rules read before the default ones, first match wins: a JSON array of rules "
               "(operation, byte range, ranks, ranks per CPU -> algorithm and parameters; man 7 mpf, "
               "Collective rules), normally a tuning file's collective_rules array, as mpftune writes it; "
               "empty: the default rules alone",
    },
    {
        .id = Tunable::rma_regions,
        .name = "rma_regions",
        .kind = TunableKind::integer,
        .default_value = "1024",
        .min = 1,
        .max = 1048576,
        .doc = "Memory regions one rank may have attached to one dynamic window at once (MPI_Win_attach); "
               "each takes 32 bytes of the window's shared memory per rank, touched only when used",
    },
    {
        .id = Tunable::rma_stream_copy,
        .name = "rma_stream_copy",
        .kind = TunableKind::size,
        .default_value = "0",
        .min = 0,
        .max = std::int64_t{1} << 40,
        .doc = "Bytes from which a put into window or symmetric heap memory reached directly uses streaming "
               "stores (not through the cache); 0: an eighth of the last-level cache",
    },
    {
        .id = Tunable::net_provider,
        .name = "net_provider",
        .kind = TunableKind::text,
        .default_value = "tcp;ofi_rxm",
        .doc = "libfabric provider of the reliable-datagram endpoints that reach ranks on other nodes: the "
               "first of this comma-separated list that the machine has (fi_info -t FI_EP_RDM lists them; "
               "libfabric's FI_* variables pass through)",
    },
    {
        .id = Tunable::mpf_conversations,
        .name = "mpf_conversations",
        .kind = TunableKind::integer,
        .default_value = "256",
        .min = 1,
        .max = 65536,
        .doc = "MPF conversations that may exist on a node at once (each exists while a process has it open); "
               "each takes mpf_queue_bytes of shared memory, touched only when used",
    },
    {
        .id = Tunable::mpf_queue_bytes,
        .name = "mpf_queue_bytes",
        .kind = TunableKind::size,
        .default_value = "2MiB",
        .min = 4096,
        .max = std::int64_t{1} << 36,
        .doc = "Bytes of messages one MPF conversation queues (64 bytes per message besides its data, rounded "
               "to 64); a full queue makes senders wait, and a message that can never fit is read from the "
               "sender's buffer while the sender waits",
    },
    {
        .id = Tunable::shmem_symmetric_size,
        .name = "shmem_symmetric_size",
        .kind = TunableKind::size,
        .default_value = "256MiB",
        .min = 4096,
        .max = std::int64_t{1} << 40,
        .doc = "Bytes of each OpenSHMEM PE's symmetric heap (shmem_malloc and its kin), rounded up to pages; "
               "virtual memory that takes pages only when touched",
        .standard_env = "SHMEM_SYMMETRIC_SIZE",
    },
    {
        .id = Tunable::shmem_debug,
        .name = "shmem_debug",
        .kind = TunableKind::boolean,
        .default_value = "0",
        .doc = "OpenSHMEM says more: each PE reports at start-up where its symmetric heap and static data lie, "
               "and whether every PE runs the same program",
        .standard_env = "SHMEM_DEBUG",
    },
    {
        .id = Tunable::shmem_version,
        .name = "shmem_version",
        .kind = TunableKind::boolean,
        .default_value = "0",
        .doc = "OpenSHMEM PE 0 prints the library's name and version at start-up",
        .standard_env = "SHMEM_VERSION",
    },
    {
        .id = Tunable::shmem_info,
        .name = "shmem_info",
        .kind = TunableKind::boolean,
        .default_value = "0",
        .doc = "OpenSHMEM PE 0 prints the environment variables the library reads, with their values, at "
               "start-up",
        .standard_env = "SHMEM_INFO",
    },
    {
        .id = Tunable::datatype_check,
        .name = "datatype_check",
        .kind = TunableKind::boolean,
        .default_value = "0",
        .doc = "Check that each point-to-point receive's datatype has the sender's type signature (a "
               "mismatch is MPI_ERR_TYPE; one compare per message)",
    },
    {
        .id = Tunable::debug,
        .name = "debug",
        .kind = TunableKind::choice,
        .default_value = "none",
        .choices = kDebugTopics,
        .doc = "What each rank reports on standard error: wireup (start-up and segment), protocol "
               "(each message's protocol and why), wait (sleeps and wake-ups), all, or none",
    },
}};

namespace detail {

consteval bool rows_match_enum() {
  for (std::size_t i = 0; i < kTunableTable.size(); ++i) {
    if (static_cast<std::size_t>(kTunableTable[i].id) != i) return false;
  }
  return true;
}

}  // namespace detail

static_assert(detail::rows_match_enum(),
              "kTunableTable: row i must declare the tunable whose Tunable enumerator is i");

}  // namespace mpf::common
