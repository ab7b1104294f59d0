// Cartesian process topologies (MPI 3.1 §7.5): a communicator with a grid
// attached. Ranks are laid out in row-major order and never reordered (the
// ranks of one node are all equally close). Also what every kind of
// topology shares: MPI_Topo_test and the neighbour lists of the
// neighbourhood collectives (topology.hpp); graphs are in topology_graph.cpp.
#include "mpi/topology.hpp"

#include <mpi.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "mpi/comm.hpp"
#include "mpi/errors.hpp"

namespace mpf::mpi {

std::vector<int> cart_coords(const CartTopology& t, int rank) {
  std::vector<int> coords(t.dims.size());
  for (std::size_t i = t.dims.size(); i-- > 0;) {
    coords[i] = rank % t.dims[i];
    rank /= t.dims[i];
  }
  return coords;
}

int cart_rank_at(const CartTopology& t, const std::vector<int>& coords) {
  int rank = 0;
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    int c = coords[i];
    if (t.periods[i]) {
      c = ((c % t.dims[i]) + t.dims[i]) % t.dims[i];
    } else if (c < 0 || c >= t.dims[i]) {
      return MPI_PROC_NULL;
    }
    rank = rank * t.dims[i] + c;
  }
  return rank;
}

NeighborLists neighbor_lists(const Topology& topology, int rank) {
  NeighborLists out;
  if (const auto* t = std::get_if<CartTopology>(&topology)) {
    std::vector<int> c = cart_coords(*t, rank);
    for (std::size_t d = 0; d < t->dims.size(); ++d) {
      const int here = c[d];
      for (int step : {-1, 1}) {
        c[d] = here + step;
        out.sources.push_back(cart_rank_at(*t, c));
      }
      c[d] = here;
    }
    out.destinations = out.sources;
    out.cartesian = true;
  } else if (const auto* g = std::get_if<GraphTopology>(&topology)) {
    out.sources = graph_neighbors(*g, rank);
    out.destinations = out.sources;
  } else if (const auto* dg = std::get_if<DistGraphTopology>(&topology)) {
    out.sources = dg->sources;
    out.destinations = dg->destinations;
  }
  return out;
}

int check_topology_comm(const char* call, MPI_Comm comm) {
  require_initialized(call);
  if (!comm_is_valid(comm)) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (comm_of(comm).inter) {
    return comm_error(call, comm, MPI_ERR_COMM,
                      "process topologies are for intracommunicators; this is an intercommunicator");
  }
  return MPI_SUCCESS;
}

int check_topology_kind(const char* call, MPI_Comm comm, std::size_t kind, const char* what) {
  if (int rc = check_topology_comm(call, comm)) return rc;
  if (comm_of(comm).topology.index() != kind) {
    return comm_error(call, comm, MPI_ERR_TOPOLOGY, std::string("the communicator has no ") + what);
  }
  return MPI_SUCCESS;
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

namespace {

int check_cart(const char* call, MPI_Comm comm) {
  return check_topology_kind<CartTopology>(call, comm, "Cartesian topology");
}

const CartTopology& cart_of(MPI_Comm comm) { return std::get<CartTopology>(comm_of(comm).topology); }

// MPI_Cart_create's and MPI_Cart_map's grid: sizes > 0 and at most
// `size` cells. MPI_SUCCESS, or the error class after the handler returned.
int check_grid(const char* call, MPI_Comm comm, int ndims, const int dims[], const int periods[], long* cells) {
  if (ndims < 0 || (ndims > 0 && (dims == nullptr || periods == nullptr))) {
    return comm_error(call, comm, MPI_ERR_ARG, "invalid ndims " + std::to_string(ndims) + " or NULL array");
  }
  *cells = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) {
      return comm_error(call, comm, MPI_ERR_DIMS, "dimension " + std::to_string(i) + " has size " + std::to_string(dims[i]));
    }
    *cells *= dims[i];
  }
  const int size = comm_size(comm);
  if (*cells > size) {
    return comm_error(call, comm, MPI_ERR_DIMS,
                      "the grid has " + std::to_string(*cells) + " cells but the communicator only " +
                          std::to_string(size) + " ranks");
  }
  return MPI_SUCCESS;
}

}  // namespace

namespace {

// Appends to `out` the lexicographically smallest non-increasing sequence
// of `d` factors of `n`, none above `largest`; false when there is none.
// The first factor is tried from the smallest that can lead (f^d >= n).
bool balanced_factors(int n, int d, int largest, std::vector<int>& out) {
  if (d == 1) {
    if (n > largest) return false;
    out.push_back(n);
    return true;
  }
  for (int f = 1; f <= std::min(n, largest); ++f) {
    if (n % f != 0) continue;
    long long power = 1;
    for (int k = 0; k < d && power < n; ++k) power *= f;
    if (power < n) continue;
    out.push_back(f);
    if (balanced_factors(n / f, d - 1, f, out)) return true;
    out.pop_back();
  }
  return false;
}

}  // namespace

extern "C" {

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int, MPI_Comm* comm_cart) {
  const char* call = "MPI_Cart_create";
  if (int rc = check_topology_comm(call, comm_old)) return rc;
  if (comm_cart == nullptr) return comm_error(call, comm_old, MPI_ERR_ARG, "comm_cart argument is NULL");
  long cells = 0;
  if (int rc = check_grid(call, comm_old, ndims, dims, periods, &cells)) return rc;
  // Ranks beyond the grid get MPI_COMM_NULL (MPI_Comm_split does the agreeing).
  const int rank = comm_rank(comm_old);
  if (int rc = PMPI_Comm_split(comm_old, rank < cells ? 0 : MPI_UNDEFINED, rank, comm_cart)) return rc;
  if (*comm_cart != MPI_COMM_NULL) {
    CartTopology t{{dims, dims + ndims}, std::vector<int>(static_cast<std::size_t>(ndims))};
    for (int i = 0; i < ndims; ++i) t.periods[static_cast<std::size_t>(i)] = periods[i] ? 1 : 0;
    comm_of(*comm_cart).topology = std::move(t);
  }
  return MPI_SUCCESS;
}

// Where MPI_Cart_create would put this rank: ranks are not reordered, so
// its own rank, or MPI_UNDEFINED beyond the grid.
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  const char* call = "MPI_Cart_map";
  if (int rc = check_topology_comm(call, comm)) return rc;
  if (newrank == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "newrank argument is NULL");
  long cells = 0;
  if (int rc = check_grid(call, comm, ndims, dims, periods, &cells)) return rc;
  const int rank = comm_rank(comm);
  *newrank = rank < cells ? rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  const char* call = "MPI_Dims_create";
  if (nnodes <= 0 || ndims < 0 || (ndims > 0 && dims == nullptr)) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG,
                      "invalid nnodes " + std::to_string(nnodes) + " or ndims " + std::to_string(ndims));
  }
  int fixed = 1;
  int free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_DIMS, "dims[" + std::to_string(i) + "] is negative");
    if (dims[i] > 0) {
      fixed *= dims[i];
    } else {
      ++free_dims;
    }
  }
  if (nnodes % fixed != 0) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_DIMS,
                      std::to_string(nnodes) + " nodes cannot be divided by the fixed dimensions' product " +
                          std::to_string(fixed));
  }
  if (free_dims == 0) {
    if (fixed != nnodes) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_DIMS, "the fixed dimensions do not multiply to nnodes");
    return MPI_SUCCESS;
  }
  // Dimensions as close to each other as possible, in non-increasing
  // order (MPI 3.1 §7.5.2): the smallest such sequence in lexicographic
  // order (72 in 2: 9 x 8, not 12 x 6; 72 in 3: 6 x 4 x 3).
  std::vector<int> free_sizes;
  balanced_factors(nnodes / fixed, free_dims, nnodes / fixed, free_sizes);
  std::size_t next = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] == 0) dims[i] = free_sizes[next++];
  }
  return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int* status) {
  require_initialized("MPI_Topo_test");
  // An intercommunicator is a valid argument: it has no topology.
  if (!comm_is_valid(comm)) return comm_error("MPI_Topo_test", MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (status == nullptr) return comm_error("MPI_Topo_test", comm, MPI_ERR_ARG, "status argument is NULL");
  constexpr int kinds[] = {MPI_UNDEFINED, MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH};  // in Topology's order
  *status = kinds[comm_of(comm).topology.index()];
  return MPI_SUCCESS;
}

int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  if (int rc = check_cart("MPI_Cartdim_get", comm)) return rc;
  *ndims = static_cast<int>(cart_of(comm).dims.size());
  return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  if (int rc = check_cart("MPI_Cart_get", comm)) return rc;
  const CartTopology& t = cart_of(comm);
  const std::vector<int> mine = cart_coords(t, comm_rank(comm));
  for (std::size_t i = 0; i < t.dims.size() && static_cast<int>(i) < maxdims; ++i) {
    dims[i] = t.dims[i];
    periods[i] = t.periods[i];
    coords[i] = mine[i];
  }
  return MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  const char* call = "MPI_Cart_rank";
  if (int rc = check_cart(call, comm)) return rc;
  const CartTopology& t = cart_of(comm);
  std::vector<int> c(coords, coords + t.dims.size());
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    if (!t.periods[i] && (c[i] < 0 || c[i] >= t.dims[i])) {
      return comm_error(call, comm, MPI_ERR_ARG,
                        "coordinate " + std::to_string(c[i]) + " is outside non-periodic dimension " +
                            std::to_string(i) + " of size " + std::to_string(t.dims[i]));
    }
  }
  *rank = cart_rank_at(t, c);
  return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  const char* call = "MPI_Cart_coords";
  if (int rc = check_cart(call, comm)) return rc;
  if (rank < 0 || rank >= comm_size(comm)) {
    return comm_error(call, comm, MPI_ERR_RANK,
                      "invalid rank " + std::to_string(rank) + " in a communicator of size " + std::to_string(comm_size(comm)));
  }
  const std::vector<int> c = cart_coords(cart_of(comm), rank);
  for (std::size_t i = 0; i < c.size() && static_cast<int>(i) < maxdims; ++i) coords[i] = c[i];
  return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  const char* call = "MPI_Cart_shift";
  if (int rc = check_cart(call, comm)) return rc;
  const CartTopology& t = cart_of(comm);
  if (direction < 0 || static_cast<std::size_t>(direction) >= t.dims.size()) {
    return comm_error(call, comm, MPI_ERR_DIMS,
                      "direction " + std::to_string(direction) + " in a grid of " + std::to_string(t.dims.size()) +
                          " dimensions");
  }
  std::vector<int> c = cart_coords(t, comm_rank(comm));
  const auto d = static_cast<std::size_t>(direction);
  const int here = c[d];
  c[d] = here + disp;
  *rank_dest = cart_rank_at(t, c);
  c[d] = here - disp;
  *rank_source = cart_rank_at(t, c);
  return MPI_SUCCESS;
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  const char* call = "MPI_Cart_sub";
  if (int rc = check_cart(call, comm)) return rc;
  const CartTopology t = cart_of(comm);
  const std::vector<int> c = cart_coords(t, comm_rank(comm));
  // Ranks that agree on the dropped coordinates form one sub-grid.
  int color = 0;
  int key = 0;
  CartTopology sub;
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    if (remain_dims[i]) {
      key = key * t.dims[i] + c[i];
      sub.dims.push_back(t.dims[i]);
      sub.periods.push_back(t.periods[i]);
    } else {
      color = color * t.dims[i] + c[i];
    }
  }
  if (int rc = PMPI_Comm_split(comm, color, key, newcomm)) return rc;
  comm_of(*newcomm).topology = std::move(sub);
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Cart_create = PMPI_Cart_create
#pragma weak MPI_Cart_map = PMPI_Cart_map
#pragma weak MPI_Dims_create = PMPI_Dims_create
#pragma weak MPI_Topo_test = PMPI_Topo_test
#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
#pragma weak MPI_Cart_get = PMPI_Cart_get
#pragma weak MPI_Cart_rank = PMPI_Cart_rank
#pragma weak MPI_Cart_coords = PMPI_Cart_coords
#pragma weak MPI_Cart_shift = PMPI_Cart_shift
#pragma weak MPI_Cart_sub = PMPI_Cart_sub

}  // extern "C"
