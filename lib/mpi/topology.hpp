// Process topologies (MPI-3.1 chapter 7) as a communicator holds them: a
// Cartesian grid (topology.cpp), a graph or a distributed graph
// (topology_graph.cpp). A topology is created with its communicator, never
// changed, and copied by MPI_Comm_dup and MPI_Comm_idup; MPI_Comm_split and
// its kin make communicators without one. Ranks are never reordered (on one
// node every placement is as close as another), so the topology's node i is
// rank i of the communicator.
//
// The neighbourhood collectives (neighbor.cpp) ask only neighbor_lists():
// the ranks they receive from and send to, in the order of the blocks of
// their buffers.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <variant>
#include <vector>

namespace mpf::mpi {

// MPI_Cart_create: a grid of dims[0] x dims[1] x ... ranks in row-major order.
struct CartTopology {
  std::vector<int> dims;
  std::vector<int> periods;  // 0 or 1 per dimension
};

// MPI_Graph_create's arrays as the program gave them: node i's neighbours
// are edges[index[i-1] .. index[i]) (index[-1] taken as 0). Self-loops and
// repeated edges are allowed (MPI-3.1 §7.5.3).
struct GraphTopology {
  std::vector<int> index;
  std::vector<int> edges;
};

// MPI_Dist_graph_create(_adjacent): this rank's own in- and out-edges only.
// The weights are empty when the graph is unweighted (MPI_UNWEIGHTED).
struct DistGraphTopology {
  std::vector<int> sources, source_weights;
  std::vector<int> destinations, destination_weights;
  bool weighted = false;
};

// std::monostate: no topology (MPI_Topo_test gives MPI_UNDEFINED).
using Topology = std::variant<std::monostate, CartTopology, GraphTopology, DistGraphTopology>;

// Coordinates of `rank` in the grid (row-major: the last dimension varies
// fastest).
std::vector<int> cart_coords(const CartTopology& t, int rank);
// The rank at `coords` (periodic dimensions wrap), or MPI_PROC_NULL when a
// non-periodic coordinate is outside the grid.
int cart_rank_at(const CartTopology& t, const std::vector<int>& coords);

// Node `rank`'s neighbours in a graph, in the order of its edges.
std::vector<int> graph_neighbors(const GraphTopology& t, int rank);

// The communicator argument of a topology call: MPI initialised and the
// communicator valid; MPI_SUCCESS, or the error class after the handler.
int check_topology_comm(const char* call, MPI_Comm comm);
// The same, and the communicator has the topology of variant index `kind`
// (Topology); else MPI_ERR_TOPOLOGY saying it has no `what`.
int check_topology_kind(const char* call, MPI_Comm comm, std::size_t kind, const char* what);
template <class T>
int check_topology_kind(const char* call, MPI_Comm comm, const char* what) {
  return check_topology_kind(call, comm, Topology(T{}).index(), what);
}

// Whom a neighbourhood collective at `rank` receives from and sends to, in
// the order of its buffers' blocks (MPI-3.1 §7.6): for a grid, for each
// dimension the -1 then the +1 neighbour, MPI_PROC_NULL beyond a
// non-periodic edge (its block is neither sent nor written); for a graph,
// its neighbours both ways; for a distributed graph, its sources and its
// destinations. Empty lists for no topology.
struct NeighborLists {
  std::vector<int> sources;
  std::vector<int> destinations;
  // A grid: block 2d is the -1 and block 2d+1 the +1 neighbour of dimension
  // d. In a periodic dimension of size 1 or 2 both are the same rank, and
  // only the side a block travels to tells them apart (neighbor.cpp).
  bool cartesian = false;
};
NeighborLists neighbor_lists(const Topology& t, int rank);

}  // namespace mpf::mpi
