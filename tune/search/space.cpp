#include "tune/search/space.hpp"

#include <algorithm>

#include "common/tunables.hpp"

namespace mpf::tune::search {

const char* to_string(Method method) {
  switch (method) {
    case Method::crossover:
      return "crossover";
    case Method::choice:
      return "choice";
    case Method::smallest:
      return "smallest within noise";
  }
  return "?";
}

std::vector<int> ProcessCounts::oversubscribed() const {
  if (quick) return {over4};
  return {over4, over32};
}

ProcessCounts process_counts(int cpus, bool quick) {
  cpus = std::max(1, cpus);
  return ProcessCounts{.pair = 2, .per_cpu = std::max(2, cpus), .over4 = 4 * cpus, .over32 = 32 * cpus, .quick = quick};
}

namespace {

const common::TunableSpec& row(const std::string& tunable) {
  const std::optional<common::Tunable> t = common::find_tunable(tunable);
  if (!t) throw common::TunableError("the tunable search names an unknown tunable '" + tunable + "'");
  return common::spec(*t);
}

// The kernels' sizes of the collectives: what one rank moves.
Probe collectives(int np, std::vector<std::string> ops, std::vector<long> sizes = {}) {
  return Probe{.kernel = "collectives", .np = np, .sizes = std::move(sizes), .ops = std::move(ops)};
}

std::vector<Probe> over(const std::vector<int>& counts, const std::function<Probe(int)>& make) {
  std::vector<Probe> out;
  for (const int n : counts) out.push_back(make(n));
  return out;
}

std::int64_t value_of(const Config& c, const std::string& tunable) {
  return numeric_value(tunable, current_text(c, tunable));
}

// Fewer candidates under --quick: every other one, the ends kept.
std::vector<std::string> thin(std::vector<std::string> values, bool quick) {
  if (!quick || values.size() <= 3) return values;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < values.size(); i += 2) out.push_back(values[i]);
  if (out.back() != values.back()) out.push_back(values.back());
  return out;
}

}  // namespace

std::int64_t numeric_value(const std::string& tunable, const std::string& text) {
  return common::parse_value(row(tunable), text, "the tunable search").number;
}

std::string value_text(const std::string& tunable, std::int64_t value) {
  return row(tunable).kind == common::TunableKind::size ? common::format_size(value) : std::to_string(value);
}

bool same_value(const std::string& tunable, const std::string& a, const std::string& b) {
  const common::TunableValue x = common::parse_value(row(tunable), a, "the tunable search");
  const common::TunableValue y = common::parse_value(row(tunable), b, "the tunable search");
  return x.number == y.number && x.text == y.text;
}

std::string default_text(const std::string& tunable) { return std::string(row(tunable).default_value); }

std::string current_text(const Config& config, const std::string& tunable) {
  const auto it = config.find(tunable);
  return it != config.end() ? it->second : default_text(tunable);
}

std::vector<Dimension> search_space(const ProcessCounts& np, bool quick, const std::vector<std::string>& kernels) {
  const std::vector<int> over = np.oversubscribed();
  std::vector<int> all_counts = {np.per_cpu};
  all_counts.insert(all_counts.end(), over.begin(), over.end());
  const int largest = all_counts.back();
  std::vector<Dimension> space;

  // ---- point-to-point: protocols ----
  space.push_back(
      Dimension{.tunable = "short_limit",
                .group = "point-to-point",
                .method = Method::crossover,
                .question = "where sending inside the ring packet (short) stops beating an eager buffer",
                .candidates = {"0", "8", "16", "32", "48", "64", "88"},
                .all_below = "88",
                .all_above = "0",
                .probes = [](const Config&) {
                  return std::vector<Probe>{{.kernel = "pingpong", .np = 2}, {.kernel = "msgrate", .np = 2}};
                }});
  space.push_back(Dimension{
      .tunable = "rndv_mode",
      .group = "point-to-point",
      .method = Method::choice,
      .question = "how a rendezvous copies: both ends at once, the receiver pulls, the sender pushes, or two copies",
      .candidates = {"split", "get", "put", "copy"},
      .probes = [quick, np](const Config&) {
        const std::vector<long> sizes =
            quick ? std::vector<long>{256 << 10, 4 << 20} : std::vector<long>{64 << 10, 256 << 10, 1 << 20, 4 << 20};
        // The mode also decides whether collectives may copy straight
        // between ranks (copy turns that off): they judge it too.
        return std::vector<Probe>{{.kernel = "pingpong", .np = 2, .sizes = sizes},
                                  {.kernel = "bw", .np = 2, .sizes = sizes},
                                  {.kernel = "bibw", .np = 2, .sizes = sizes},
                                  collectives(np.per_cpu, {"bcast", "allreduce", "alltoall"}, {256 << 10, 1 << 20})};
      }});
  // After the rendezvous mode: where eager stops paying depends on what
  // rendezvous costs.
  space.push_back(Dimension{
      .tunable = "eager_limit",
      .group = "point-to-point",
      .method = Method::crossover,
      .question = "where copying through an eager buffer stops beating a rendezvous",
      .candidates = thin({"1KiB", "2KiB", "4KiB", "8KiB", "16KiB", "32KiB", "64KiB", "128KiB", "256KiB"}, quick),
      .all_below = "256KiB",
      .all_above = "64",
      .prefer_low = true,
      .probes =
          [](const Config&) {
            return std::vector<Probe>{{.kernel = "pingpong", .np = 2}, {.kernel = "bw", .np = 2}};
          },
      .memory = [](const std::string& v, const Config& c) -> std::optional<std::int64_t> {
        return numeric_value("eager_limit", v) * value_of(c, "eager_cells");
      },
      .memory_note = "eager buffers per rank (eager_cells of them)"});

  // ---- buffers: the smallest that costs nothing ----
  space.push_back(Dimension{.tunable = "eager_small_cells",
                            .group = "buffers",
                            .method = Method::smallest,
                            .question = "how many 1 KiB eager buffers keep a stream of small messages flowing",
                            .candidates = thin({"0", "8", "16", "32", "64", "128", "256"}, quick),
                            .probes =
                                [](const Config&) {
                                  return std::vector<Probe>{{.kernel = "bw", .np = 2, .sizes = {256, 1024}},
                                                            {.kernel = "bibw", .np = 2, .sizes = {256, 1024}},
                                                            {.kernel = "msgrate", .np = 2, .sizes = {512}}};
                                },
                            .memory = [](const std::string& v, const Config&) -> std::optional<std::int64_t> {
                              return numeric_value("eager_small_cells", v) * 1024;
                            },
                            .memory_note = "small eager buffers per rank"});
  space.push_back(
      Dimension{.tunable = "eager_cells",
                .group = "buffers",
                .method = Method::smallest,
                .question = "how many eager buffers of eager_limit bytes keep a stream of eager messages flowing",
                // Not beyond 32: at a 256 KiB eager limit that is 8 MiB per rank.
                .candidates = thin({"2", "4", "8", "16", "32"}, quick),
                .probes =
                    [](const Config& c) {
                      const long limit = value_of(c, "eager_limit");
                      const std::vector<long> sizes = {std::max(2048L, limit / 2), limit};
                      return std::vector<Probe>{{.kernel = "bw", .np = 2, .sizes = sizes},
                                                {.kernel = "bibw", .np = 2, .sizes = sizes}};
                    },
                .memory = [](const std::string& v, const Config& c) -> std::optional<std::int64_t> {
                  return numeric_value("eager_cells", v) * value_of(c, "eager_limit");
                },
                .memory_note = "eager buffers per rank (of eager_limit bytes each)"});
  space.push_back(Dimension{.tunable = "ring_slots",
                            .group = "buffers",
                            .method = Method::smallest,
                            .question = "how many packet slots each pair's ring needs for a stream of small messages",
                            .candidates = thin({"4", "8", "16", "32", "64", "128", "256"}, quick),
                            .probes =
                                [](const Config&) {
                                  return std::vector<Probe>{{.kernel = "msgrate", .np = 2, .sizes = {8, 64}},
                                                            {.kernel = "bw", .np = 2, .sizes = {64}}};
                                },
                            // A rank reads a ring from every other rank (128-byte slots).
                            .memory = [largest](const std::string& v, const Config&) -> std::optional<std::int64_t> {
                              return numeric_value("ring_slots", v) * 128 * (largest - 1);
                            },
                            .memory_note = "ring slots per rank, in a job of " + std::to_string(largest) + " ranks"});
  // The mission's buffer (seed 004, MPICH_UNEX_BUFFER_SIZE): many senders
  // flood one receiver with messages it has not asked for yet.
  space.push_back(
      Dimension{.tunable = "unexpected_pool",
                .group = "buffers",
                .method = Method::smallest,
                .question = "how many bytes of unexpected messages a rank buffers before senders wait for their match",
                // Not beyond 16 MiB: it is what a rank may hold for its senders, at
                // worst, at every rank of the job.
                .candidates = thin({"64KiB", "256KiB", "1MiB", "2MiB", "4MiB", "8MiB", "16MiB"}, quick),
                .probes =
                    [np](const Config& c) {
                      const long eager = value_of(c, "eager_limit");
                      const std::vector<long> sizes = {64, 4096, eager};
                      const std::vector<std::string> burst = {"--messages", "64"};
                      return std::vector<Probe>{{.kernel = "flood", .np = 2, .sizes = sizes, .args = burst},
                                                {.kernel = "flood", .np = np.over4, .sizes = sizes, .args = burst}};
                    },
                .memory = [](const std::string& v, const Config&) -> std::optional<std::int64_t> {
                  return numeric_value("unexpected_pool", v);
                },
                .memory_note = "at most, per rank, while unexpected messages wait"});

  // ---- waiting ----
  // Not below 50000 polls: with far fewer, a virtual machine can settle
  // into a state where every wait outlasts the polls (the spin_count row of
  // lib/common/tunables_table.hpp), which a short kernel does not show.
  space.push_back(Dimension{.tunable = "spin_count",
                            .group = "waiting",
                            .method = Method::choice,
                            .question = "how long a rank with a CPU of its own polls before it yields",
                            .candidates = thin({"50000", "100000", "200000", "400000", "1000000"}, quick),
                            .probes = [np](const Config&) {
                              return std::vector<Probe>{{.kernel = "pingpong", .np = 2, .sizes = {8}},
                                                        {.kernel = "token_ring", .np = np.per_cpu},
                                                        collectives(np.per_cpu, {"barrier", "allreduce"}, {8})};
                            }});
  const auto oversubscribed_probes = [over](const Config&) {
    std::vector<Probe> out = search::over(over, [](int n) { return Probe{.kernel = "token_ring", .np = n}; });
    for (const int n : over) out.push_back(collectives(n, {"barrier", "bcast", "allreduce"}, {8, 4096}));
    return out;
  };
  space.push_back(Dimension{.tunable = "yield_us",
                            .group = "waiting",
                            .method = Method::choice,
                            .question = "how long a waiting rank yields before it sleeps when ranks outnumber CPUs",
                            .candidates = thin({"250", "500", "1000", "2000", "5000", "20000"}, quick),
                            .probes = oversubscribed_probes});
  space.push_back(Dimension{.tunable = "yielders_per_cpu",
                            .group = "waiting",
                            .method = Method::choice,
                            .question = "how many waiting ranks per CPU keep yielding while the others sleep",
                            .candidates = {"1", "2", "4"},
                            .probes = oversubscribed_probes});
  space.push_back(Dimension{.tunable = "all_yield_per_cpu",
                            .group = "waiting",
                            .method = Method::choice,
                            .question = "up to how many ranks per CPU every waiting rank yields",
                            .candidates = thin({"0", "2", "4", "8", "32"}, quick),
                            .probes = oversubscribed_probes});

  // ---- collectives ----
  space.push_back(
      Dimension{.tunable = "coll_short_limit",
                .group = "collectives",
                .method = Method::crossover,
                .question = "where a collective's pieces stop going through the per-pair cells and take the slots",
                .candidates = {"0", "256", "512", "1KiB", "2KiB", "4032"},
                .all_below = "4032",
                .all_above = "0",
                .probes = [all_counts](const Config&) {
                  return search::over(all_counts, [](int n) {
                    return collectives(n, {"bcast", "allreduce", "allgather", "alltoall"});
                  });
                }});
  space.push_back(Dimension{
      .tunable = "coll_single_copy",
      .group = "collectives",
      .method = Method::crossover,
      .question = "from which size ranks read each other's buffers (one copy) instead of copying through slots",
      .candidates = thin({"4KiB", "8KiB", "16KiB", "32KiB", "64KiB", "128KiB", "256KiB", "1MiB"}, quick),
      .all_below = "0",
      .all_above = "4KiB",
      .threshold_is_above = true,
      .probes = [all_counts](const Config&) {
        return search::over(all_counts, [](int n) {
          return collectives(n, {"bcast", "reduce", "allreduce", "alltoall", "allgather"});
        });
      }});
  space.push_back(Dimension{
      .tunable = "coll_exchange_max",
      .group = "collectives",
      .method = Method::choice,
      .question = "up to how many ranks Barrier and short Allreduce exchange pairwise instead of using a tree or "
                  "the board",
      .candidates = {"0", "4", "8", "16", "64"},
      .probes = [all_counts](const Config&) {
        return search::over(all_counts, [](int n) { return collectives(n, {"barrier", "allreduce"}, {8, 1024}); });
      }});
  space.push_back(Dimension{
      .tunable = "coll_board",
      .group = "collectives",
      .method = Method::choice,
      .question = "whether MPI_COMM_WORLD's collectives go flat through the shared board when ranks outnumber CPUs",
      .candidates = {"1", "0"},
      .probes = [over](const Config&) {
        return search::over(over, [](int n) {
          return collectives(n, {"barrier", "bcast", "reduce", "allreduce", "alltoall", "allgather"}, {8, 4096, 65536});
        });
      }});
  space.push_back(
      Dimension{.tunable = "coll_buffer",
                .group = "collectives",
                .method = Method::smallest,
                .question = "how large each rank's collective slot must be for collectives of medium size",
                .candidates = thin({"4KiB", "8KiB", "16KiB", "32KiB", "64KiB", "128KiB"}, quick),
                .probes =
                    [np](const Config&) {
                      return std::vector<Probe>{
                          collectives(np.per_cpu, {"bcast", "allreduce", "allgather"}, {4096, 16384, 65536}),
                          collectives(np.over4, {"bcast", "allreduce", "allgather"}, {4096, 16384, 65536})};
                    },
                .memory = [](const std::string& v, const Config&) -> std::optional<std::int64_t> {
                  return numeric_value("coll_buffer", v);
                },
                .memory_note = "collective slot per rank"});

  space.push_back(Dimension{
      .tunable = "coll_board_stage",
      .group = "collectives",
      .method = Method::smallest,
      .question = "how large the board's stage must be for large Bcasts, Allgathers and Allreduces when ranks "
                  "outnumber CPUs",
      .candidates = thin({"256KiB", "512KiB", "1MiB", "2MiB", "4MiB"}, quick),
      .probes =
          [over](const Config&) {
            return search::over(over, [](int n) {
              return collectives(n, {"bcast", "allgather", "allreduce"}, {65536, 262144, 1 << 20});
            });
          },
      // One stage, and two sums of its size, per node.
      .memory = [](const std::string& v, const Config&) -> std::optional<std::int64_t> {
        return 3 * numeric_value("coll_board_stage", v);
      },
      .memory_note = "of shared memory per node (the stage and the board's two sums)"});

  // ---- one-sided and MPF ----
  space.push_back(Dimension{.tunable = "rma_stream_copy",
                            .group = "one-sided",
                            .method = Method::choice,
                            .question = "from which size a put into window or symmetric memory bypasses the cache",
                            .candidates = {"0", "256KiB", "1MiB", "4MiB", "1TiB"},
                            .probes = [](const Config&) {
                              const std::vector<long> sizes = {256 << 10, 1 << 20, 4 << 20};
                              return std::vector<Probe>{
                                  {.kernel = "rma_bw", .np = 2, .sizes = sizes, .args = {"--flavors", "allocate"}},
                                  {.kernel = "shmem_bw", .np = 2, .sizes = sizes, .ops = {"put"}}};
                            }});
  space.push_back(Dimension{.tunable = "mpf_queue_bytes",
                            .group = "conversations",
                            .method = Method::smallest,
                            .question = "how many bytes one MPF conversation must queue for its senders not to wait",
                            .candidates = thin({"64KiB", "256KiB", "512KiB", "1MiB", "2MiB", "8MiB"}, quick),
                            .probes =
                                [np](const Config&) {
                                  return std::vector<Probe>{
                                      {.kernel = "conversations", .np = np.per_cpu, .ops = {"fcfs", "broadcast"}},
                                      {.kernel = "conversations", .np = np.over4, .ops = {"fcfs", "broadcast"}}};
                                },
                            .memory = [](const std::string& v, const Config&) -> std::optional<std::int64_t> {
                              return numeric_value("mpf_queue_bytes", v);
                            },
                            .memory_note = "shared memory per conversation in use"});

  // Leave out what this build cannot measure.
  std::vector<Dimension> out;
  for (Dimension& d : space) {
    bool all_there = true;
    for (const Probe& p : d.probes({})) {
      all_there = all_there && std::find(kernels.begin(), kernels.end(), p.kernel) != kernels.end();
    }
    if (all_there) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace mpf::tune::search
