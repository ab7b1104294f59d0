// Graph and distributed graph topologies (MPI 3.1 §7.5.3, §7.5.4): a
// communicator with a graph attached (topology.hpp). Ranks are never
// reordered, so the maps return the caller's own rank.
//
// MPI_Graph_create gets the whole graph at every rank and keeps it.
// MPI_Dist_graph_create gets any edges at any rank: every edge goes, as
// one record, to its source (an out-edge) and its destination (an
// in-edge) by an all-to-all on the old communicator, so each rank keeps
// only its own neighbours. MPI_Dist_graph_create_adjacent gets each rank's
// own neighbours and needs no exchange.
//
// The arguments of the dist graph calls differ from rank to rank, so one
// rank's bad edge must not leave the others waiting in the communicator's
// creation: every rank's error class travels with the exchange (an
// all-reduce for the adjacent form), and all ranks report it: the rank at
// fault names the bad value, the others name that rank.
#include "mpi/topology.hpp"

#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "mpi/comm.hpp"
#include "mpi/errors.hpp"

namespace mpf::mpi {

std::vector<int> graph_neighbors(const GraphTopology& t, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  const int first = rank == 0 ? 0 : t.index[r - 1];
  return {t.edges.begin() + first, t.edges.begin() + t.index[r]};
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

namespace {

int check_graph(const char* call, MPI_Comm comm) {
  return check_topology_kind<GraphTopology>(call, comm, "graph topology (MPI_Graph_create)");
}

int check_dist_graph(const char* call, MPI_Comm comm) {
  return check_topology_kind<DistGraphTopology>(call, comm, "distributed graph topology (MPI_Dist_graph_create)");
}

const GraphTopology& graph_of(MPI_Comm comm) { return std::get<GraphTopology>(comm_of(comm).topology); }
const DistGraphTopology& dist_graph_of(MPI_Comm comm) { return std::get<DistGraphTopology>(comm_of(comm).topology); }

int check_node(const char* call, MPI_Comm comm, int rank) {
  const int nodes = static_cast<int>(graph_of(comm).index.size());
  if (rank >= 0 && rank < nodes) return MPI_SUCCESS;
  return comm_error(call, comm, MPI_ERR_RANK,
                    "invalid rank " + std::to_string(rank) + " in a graph of " + std::to_string(nodes) + " nodes");
}

// MPI_Graph_create's and MPI_Graph_map's graph: at most `size` nodes,
// `index` non-decreasing, every edge naming a node.
int check_graph_args(const char* call, MPI_Comm comm, int nnodes, const int index[], const int edges[]) {
  const int size = comm_size(comm);
  if (nnodes < 0 || nnodes > size) {
    return comm_error(call, comm, MPI_ERR_ARG,
                      "invalid nnodes " + std::to_string(nnodes) + " for a communicator of size " +
                          std::to_string(size));
  }
  if (nnodes > 0 && index == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "index array is NULL");
  for (int i = 0; i < nnodes; ++i) {
    const int before = i == 0 ? 0 : index[i - 1];
    if (index[i] < before) {
      return comm_error(call, comm, MPI_ERR_ARG,
                        "index[" + std::to_string(i) + "] is " + std::to_string(index[i]) + ", less than the " +
                            std::to_string(before) + " edges before it (index holds running totals)");
    }
  }
  const int nedges = nnodes == 0 ? 0 : index[nnodes - 1];
  if (nedges > 0 && edges == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "edges array is NULL");
  for (int e = 0; e < nedges; ++e) {
    if (edges[e] < 0 || edges[e] >= nnodes) {
      return comm_error(call, comm, MPI_ERR_RANK,
                        "edges[" + std::to_string(e) + "] is " + std::to_string(edges[e]) +
                            ", not a node of a graph of " + std::to_string(nnodes) + " nodes");
    }
  }
  return MPI_SUCCESS;
}

// A problem with this rank's arguments, kept until all ranks know of it.
struct Problem {
  int error_class = MPI_SUCCESS;
  std::string detail;
};

// A neighbour list of a dist graph: `count` ranks of a communicator of
// `size`, and their weights (or MPI_UNWEIGHTED, or MPI_WEIGHTS_EMPTY when
// there are none). `what` names the arrays ("sources", "destinations").
Problem check_neighbors(const char* what, const char* weights_name, int count, const int ranks[], const int weights[],
                        int size) {
  if (count < 0) return {MPI_ERR_ARG, std::string("negative ") + what + " count " + std::to_string(count)};
  if (count > 0 && ranks == nullptr) return {MPI_ERR_ARG, std::string(what) + " array is NULL"};
  if (count > 0 && (weights == nullptr || weights == MPI_WEIGHTS_EMPTY)) {
    return {MPI_ERR_ARG, std::string(weights_name) + " is " + (weights == nullptr ? "NULL" : "MPI_WEIGHTS_EMPTY") +
                             " for " + std::to_string(count) + " " + what + " (pass MPI_UNWEIGHTED for no weights)"};
  }
  for (int i = 0; i < count; ++i) {
    if (ranks[i] < 0 || ranks[i] >= size) {
      return {MPI_ERR_RANK, std::string(what) + "[" + std::to_string(i) + "] is " + std::to_string(ranks[i]) +
                                ", not a rank of a communicator of size " + std::to_string(size)};
    }
    if (weights != MPI_UNWEIGHTED && weights[i] < 0) {
      return {MPI_ERR_ARG, std::string(weights_name) + "[" + std::to_string(i) + "] is " + std::to_string(weights[i]) +
                               " (weights are >= 0)"};
    }
  }
  return {};
}

// Reports, at every rank, its own problem if it has one, else that rank
// `bad_rank` had one of class `bad_class` (bad_rank < 0: no rank had).
int report_problem(const char* call, MPI_Comm comm, const Problem& mine, int bad_rank, int bad_class) {
  if (mine.error_class != MPI_SUCCESS) return comm_error(call, comm, mine.error_class, mine.detail);
  if (bad_rank < 0) return MPI_SUCCESS;
  return comm_error(call, comm, bad_class,
                    "rank " + std::to_string(bad_rank) + " passed invalid edges (its own message says which)");
}

// The new communicator: the old one's ranks in the same order, with `t`.
int attach(MPI_Comm comm_old, Topology t, MPI_Comm* out) {
  if (int rc = PMPI_Comm_split(comm_old, 0, comm_rank(comm_old), out)) return rc;
  comm_of(*out).topology = std::move(t);
  return MPI_SUCCESS;
}

// Weights as kept (empty when unweighted).
std::vector<int> weights_of(int count, const int weights[]) {
  if (weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY || count == 0) return {};
  return {weights, weights + count};
}

// Copies up to `max` of `from` to `to`.
void copy_out(const std::vector<int>& from, int max, int to[]) {
  const auto n = std::min<std::size_t>(from.size(), static_cast<std::size_t>(std::max(max, 0)));
  std::copy_n(from.begin(), n, to);
}

// What one rank tells each other before MPI_Dist_graph_create's records:
// how many ints of records follow, whether it passed MPI_UNWEIGHTED, and
// its error class (MPI_SUCCESS).
struct Header {
  int ints;
  int unweighted;
  int error_class;
};
constexpr int kHeaderInts = sizeof(Header) / sizeof(int);
static_assert(sizeof(Header) == kHeaderInts * sizeof(int), "a Header travels as MPI_INT");

// A record of one edge, sent to one end of it: kind, the other end, weight.
constexpr int kOutEdge = 0;
constexpr int kInEdge = 1;
constexpr int kRecordInts = 3;

// MPI_Dist_graph_create's edges at this rank, checked: each as a record
// for its source (an out-edge) and one for its destination (an in-edge),
// in records[rank].
Problem edge_records(int n, const int sources[], const int degrees[], const int destinations[], const int weights[],
                     int size, std::vector<std::vector<int>>& records) {
  if (n < 0) return {MPI_ERR_ARG, "negative number of sources " + std::to_string(n)};
  if (n > 0 && (sources == nullptr || degrees == nullptr)) return {MPI_ERR_ARG, "sources or degrees array is NULL"};
  auto not_a_rank = [size](const char* what, int i, int value) {
    return Problem{MPI_ERR_RANK, std::string(what) + "[" + std::to_string(i) + "] is " + std::to_string(value) +
                                     ", not a rank of a communicator of size " + std::to_string(size)};
  };
  int edge = 0;
  for (int i = 0; i < n; ++i) {
    const int from = sources[i];
    if (from < 0 || from >= size) return not_a_rank("sources", i, from);
    if (degrees[i] < 0) {
      return {MPI_ERR_ARG, "degrees[" + std::to_string(i) + "] is " + std::to_string(degrees[i]) + " (degrees are >= 0)"};
    }
    if (degrees[i] == 0) continue;
    if (destinations == nullptr) return {MPI_ERR_ARG, "destinations array is NULL"};
    if (weights == nullptr) return {MPI_ERR_ARG, "weights array is NULL (pass MPI_UNWEIGHTED for no weights)"};
    if (weights == MPI_WEIGHTS_EMPTY) return {MPI_ERR_ARG, "weights is MPI_WEIGHTS_EMPTY but there are edges"};
    for (int k = 0; k < degrees[i]; ++k, ++edge) {
      const int to = destinations[edge];
      if (to < 0 || to >= size) return not_a_rank("destinations", edge, to);
      const int w = weights == MPI_UNWEIGHTED ? 1 : weights[edge];
      if (w < 0) {
        return {MPI_ERR_ARG, "weights[" + std::to_string(edge) + "] is " + std::to_string(w) + " (weights are >= 0)"};
      }
      for (int v : {kOutEdge, to, w}) records[static_cast<std::size_t>(from)].push_back(v);
      for (int v : {kInEdge, from, w}) records[static_cast<std::size_t>(to)].push_back(v);
    }
  }
  return {};
}

}  // namespace

extern "C" {

// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are their addresses (mpi.h).
const int mpf_unweighted_sentinel[1] = {0};
const int mpf_weights_empty_sentinel[1] = {0};

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int, MPI_Comm* comm_graph) {
  const char* call = "MPI_Graph_create";
  if (int rc = check_topology_comm(call, comm_old)) return rc;
  if (comm_graph == nullptr) return comm_error(call, comm_old, MPI_ERR_ARG, "comm_graph argument is NULL");
  if (int rc = check_graph_args(call, comm_old, nnodes, index, edges)) return rc;
  // Ranks beyond the graph get MPI_COMM_NULL.
  const int rank = comm_rank(comm_old);
  if (int rc = PMPI_Comm_split(comm_old, rank < nnodes ? 0 : MPI_UNDEFINED, rank, comm_graph)) return rc;
  if (*comm_graph != MPI_COMM_NULL) {
    const int nedges = index[nnodes - 1];
    comm_of(*comm_graph).topology = GraphTopology{{index, index + nnodes}, {edges, edges + nedges}};
  }
  return MPI_SUCCESS;
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  const char* call = "MPI_Graph_map";
  if (int rc = check_topology_comm(call, comm)) return rc;
  if (newrank == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "newrank argument is NULL");
  if (int rc = check_graph_args(call, comm, nnodes, index, edges)) return rc;
  const int rank = comm_rank(comm);
  *newrank = rank < nnodes ? rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  const char* call = "MPI_Graphdims_get";
  if (int rc = check_graph(call, comm)) return rc;
  if (nnodes == nullptr || nedges == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "nnodes or nedges is NULL");
  const GraphTopology& t = graph_of(comm);
  *nnodes = static_cast<int>(t.index.size());
  *nedges = static_cast<int>(t.edges.size());
  return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const char* call = "MPI_Graph_get";
  if (int rc = check_graph(call, comm)) return rc;
  const GraphTopology& t = graph_of(comm);
  if ((maxindex > 0 && !t.index.empty() && index == nullptr) ||
      (maxedges > 0 && !t.edges.empty() && edges == nullptr)) {
    return comm_error(call, comm, MPI_ERR_ARG, "index or edges array is NULL");
  }
  copy_out(t.index, maxindex, index);
  copy_out(t.edges, maxedges, edges);
  return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  const char* call = "MPI_Graph_neighbors_count";
  if (int rc = check_graph(call, comm)) return rc;
  if (int rc = check_node(call, comm, rank)) return rc;
  if (nneighbors == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "nneighbors argument is NULL");
  *nneighbors = static_cast<int>(graph_neighbors(graph_of(comm), rank).size());
  return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const char* call = "MPI_Graph_neighbors";
  if (int rc = check_graph(call, comm)) return rc;
  if (int rc = check_node(call, comm, rank)) return rc;
  const std::vector<int> mine = graph_neighbors(graph_of(comm), rank);
  if (maxneighbors > 0 && !mine.empty() && neighbors == nullptr) {
    return comm_error(call, comm, MPI_ERR_ARG, "neighbors array is NULL");
  }
  copy_out(mine, maxneighbors, neighbors);
  return MPI_SUCCESS;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                    int outdegree, const int destinations[], const int destweights[], MPI_Info, int,
                                    MPI_Comm* comm_dist_graph) {
  const char* call = "MPI_Dist_graph_create_adjacent";
  if (int rc = check_topology_comm(call, comm_old)) return rc;
  const int size = comm_size(comm_old);
  Problem mine = check_neighbors("sources", "sourceweights", indegree, sources, sourceweights, size);
  if (mine.error_class == MPI_SUCCESS) {
    mine = check_neighbors("destinations", "destweights", outdegree, destinations, destweights, size);
  }
  if (mine.error_class == MPI_SUCCESS && (sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED)) {
    mine = {MPI_ERR_ARG, std::string(sourceweights == MPI_UNWEIGHTED ? "sourceweights" : "destweights") +
                             " is MPI_UNWEIGHTED but the other weights are not"};
  }
  if (mine.error_class == MPI_SUCCESS && comm_dist_graph == nullptr) {
    mine = {MPI_ERR_ARG, "comm_dist_graph argument is NULL"};
  }
  // Every rank learns of a rank at fault: MAXLOC on (error class, rank)
  // gives the highest class and the lowest rank that has it.
  struct {
    int value, index;
  } in{mine.error_class, comm_rank(comm_old)}, worst{};
  if (int rc = PMPI_Allreduce(&in, &worst, 1, MPI_2INT, MPI_MAXLOC, comm_old)) return rc;
  if (worst.value != MPI_SUCCESS) return report_problem(call, comm_old, mine, worst.index, worst.value);
  DistGraphTopology t;
  t.sources.assign(sources, sources + indegree);
  t.destinations.assign(destinations, destinations + outdegree);
  t.weighted = sourceweights != MPI_UNWEIGHTED;
  if (t.weighted) {
    t.source_weights = weights_of(indegree, sourceweights);
    t.destination_weights = weights_of(outdegree, destweights);
  }
  return attach(comm_old, std::move(t), comm_dist_graph);
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info, int, MPI_Comm* comm_dist_graph) {
  const char* call = "MPI_Dist_graph_create";
  if (int rc = check_topology_comm(call, comm_old)) return rc;
  const int size = comm_size(comm_old);
  // This rank's edges, checked, as records for each end.
  std::vector<std::vector<int>> records(static_cast<std::size_t>(size));
  Problem mine = edge_records(n, sources, degrees, destinations, weights, size, records);
  if (mine.error_class == MPI_SUCCESS && comm_dist_graph == nullptr) {
    mine = {MPI_ERR_ARG, "comm_dist_graph argument is NULL"};
  }
  if (mine.error_class != MPI_SUCCESS) records.assign(static_cast<std::size_t>(size), {});

  // Headers both ways: every rank learns every rank's weights and error.
  const auto n_size = static_cast<std::size_t>(size);
  std::vector<Header> out(n_size), in(n_size);
  for (std::size_t r = 0; r < n_size; ++r) {
    out[r] = {static_cast<int>(records[r].size()), weights == MPI_UNWEIGHTED ? 1 : 0, mine.error_class};
  }
  if (int rc = PMPI_Alltoall(out.data(), kHeaderInts, MPI_INT, in.data(), kHeaderInts, MPI_INT, comm_old)) return rc;
  for (int r = 0; r < size; ++r) {
    const Header& h = in[static_cast<std::size_t>(r)];
    if (h.error_class != MPI_SUCCESS) return report_problem(call, comm_old, mine, r, h.error_class);
  }
  // MPI_UNWEIGHTED at some rank and weights at another (MPI-3.1 §7.5.4).
  int unweighted_at = -1, weighted_at = -1;
  for (int r = 0; r < size; ++r) {
    int& at = in[static_cast<std::size_t>(r)].unweighted ? unweighted_at : weighted_at;
    if (at < 0) at = r;
  }
  if (unweighted_at >= 0 && weighted_at >= 0) {
    return comm_error(call, comm_old, MPI_ERR_ARG,
                      "rank " + std::to_string(unweighted_at) + " passed MPI_UNWEIGHTED but rank " +
                          std::to_string(weighted_at) + " passed weights; all ranks must do the same");
  }

  // The records: ranks in order, each rank's edges in its order.
  std::vector<int> send_counts(n_size), send_displs(n_size), recv_counts(n_size), recv_displs(n_size);
  std::vector<int> sent, received;
  for (std::size_t r = 0; r < n_size; ++r) {
    send_counts[r] = static_cast<int>(records[r].size());
    send_displs[r] = static_cast<int>(sent.size());
    sent.insert(sent.end(), records[r].begin(), records[r].end());
    recv_counts[r] = in[r].ints;
    recv_displs[r] = r == 0 ? 0 : recv_displs[r - 1] + recv_counts[r - 1];
  }
  received.resize(n_size == 0 ? 0 : static_cast<std::size_t>(recv_displs[n_size - 1] + recv_counts[n_size - 1]));
  if (int rc = PMPI_Alltoallv(sent.data(), send_counts.data(), send_displs.data(), MPI_INT, received.data(),
                              recv_counts.data(), recv_displs.data(), MPI_INT, comm_old)) {
    return rc;
  }
  DistGraphTopology t;
  t.weighted = unweighted_at < 0;
  for (std::size_t i = 0; i + kRecordInts <= received.size(); i += kRecordInts) {
    const bool out_edge = received[i] == kOutEdge;
    (out_edge ? t.destinations : t.sources).push_back(received[i + 1]);
    if (t.weighted) (out_edge ? t.destination_weights : t.source_weights).push_back(received[i + 2]);
  }
  return attach(comm_old, std::move(t), comm_dist_graph);
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  const char* call = "MPI_Dist_graph_neighbors_count";
  if (int rc = check_dist_graph(call, comm)) return rc;
  if (indegree == nullptr || outdegree == nullptr || weighted == nullptr) {
    return comm_error(call, comm, MPI_ERR_ARG, "indegree, outdegree or weighted is NULL");
  }
  const DistGraphTopology& t = dist_graph_of(comm);
  *indegree = static_cast<int>(t.sources.size());
  *outdegree = static_cast<int>(t.destinations.size());
  *weighted = t.weighted ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                              int destinations[], int destweights[]) {
  const char* call = "MPI_Dist_graph_neighbors";
  if (int rc = check_dist_graph(call, comm)) return rc;
  const DistGraphTopology& t = dist_graph_of(comm);
  if ((maxindegree > 0 && !t.sources.empty() && sources == nullptr) ||
      (maxoutdegree > 0 && !t.destinations.empty() && destinations == nullptr)) {
    return comm_error(call, comm, MPI_ERR_ARG, "sources or destinations array is NULL");
  }
  copy_out(t.sources, maxindegree, sources);
  copy_out(t.destinations, maxoutdegree, destinations);
  // Weights only where the graph has them and the program asks for them.
  auto wanted = [](const int* w) { return w != nullptr && w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY; };
  if (t.weighted && wanted(sourceweights)) copy_out(t.source_weights, maxindegree, sourceweights);
  if (t.weighted && wanted(destweights)) copy_out(t.destination_weights, maxoutdegree, destweights);
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Graph_create = PMPI_Graph_create
#pragma weak MPI_Graph_map = PMPI_Graph_map
#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
#pragma weak MPI_Graph_get = PMPI_Graph_get
#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors

}  // extern "C"
