// MPI_Type_create_darray (MPI 3.1 §4.1.4): the part of an ndims-dimensional
// global array that one process of a process grid owns, under block, cyclic
// or no distribution in each dimension, stored in C or Fortran order.
//
// Each dimension reduces to the standard's cyclic(darg) form: the process
// at grid position r owns the blocks of darg elements that start at
// (r + k * psize) * darg. Those are built as one strided entry of whole
// blocks plus, at the end of the dimension, one partial block, so a cyclic
// distribution of a million elements is still one Block when the level
// inside it is one. Levels nest from the fastest-varying dimension out, as
// for MPI_Type_create_subarray; the result's typemap is in array order.
#include <mpi.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "mpi/datatype.hpp"
#include "mpi/datatype_table.hpp"
#include "mpi/errors.hpp"

using namespace mpf::mpi;

namespace {

std::string dimension(int d) { return "dimension " + std::to_string(d) + ": "; }

// The block length of dimension `d` in the cyclic form, or the error.
int cyclic_block(const char* call, int d, std::int64_t gsize, int distrib, int darg, int psize, std::int64_t* block) {
  switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
      if (psize != 1) {
        return type_error(call, MPI_ERR_ARG,
                          dimension(d) + "MPI_DISTRIBUTE_NONE needs 1 process in that dimension of the grid, not " +
                              std::to_string(psize));
      }
      *block = gsize;
      return MPI_SUCCESS;
    case MPI_DISTRIBUTE_BLOCK:
      if (darg == MPI_DISTRIBUTE_DFLT_DARG) {
        *block = (gsize + psize - 1) / psize;
        return MPI_SUCCESS;
      }
      if (darg <= 0 || static_cast<std::int64_t>(darg) * psize < gsize) {
        return type_error(call, MPI_ERR_ARG,
                          dimension(d) + "MPI_DISTRIBUTE_BLOCK with darg " + std::to_string(darg) + " on " +
                              std::to_string(psize) + " processes cannot hold " + std::to_string(gsize) +
                              " elements (need darg * psize >= gsize, or MPI_DISTRIBUTE_DFLT_DARG)");
      }
      *block = darg;
      return MPI_SUCCESS;
    case MPI_DISTRIBUTE_CYCLIC:
      if (darg == MPI_DISTRIBUTE_DFLT_DARG) {
        *block = 1;
        return MPI_SUCCESS;
      }
      if (darg <= 0) {
        return type_error(call, MPI_ERR_ARG,
                          dimension(d) + "MPI_DISTRIBUTE_CYCLIC needs a positive darg or MPI_DISTRIBUTE_DFLT_DARG, not " +
                              std::to_string(darg));
      }
      *block = darg;
      return MPI_SUCCESS;
    default:
      return type_error(call, MPI_ERR_ARG,
                        dimension(d) + "distribution " + std::to_string(distrib) +
                            " is not MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC or MPI_DISTRIBUTE_NONE");
  }
}

// The elements of one dimension (gsize of them, `stride` bytes apart, each a
// `level`) that grid position `r` of `psize` owns, blocks of `block`.
TypeInfo owned(const TypeInfo& level, std::int64_t stride, std::int64_t gsize, std::int64_t block, std::int64_t r,
               std::int64_t psize) {
  const TypeInfo whole = build({{0, static_cast<std::uint64_t>(block), &level, stride}}, false);
  const std::int64_t first = r * block, period = psize * block;
  // Blocks that start before gsize, and how many of them end by it.
  const std::int64_t starts = first < gsize ? (gsize - first + period - 1) / period : 0;
  const std::int64_t full = first + block <= gsize ? (gsize - first - block) / period + 1 : 0;
  std::vector<Entry> entries = {{first * stride, static_cast<std::uint64_t>(full), &whole, period * stride}};
  if (starts > full) {
    const std::int64_t last = first + full * period;
    entries.push_back({last * stride, static_cast<std::uint64_t>(gsize - last), &level, stride});
  }
  return build(entries, false);
}

}  // namespace

namespace mpf::mpi {

// The layout: each dimension's owned elements, nested from the
// fastest-varying dimension out.
int darray_layout(const char* call, int size, int rank, int ndims, const MPI_Count gsizes[], const int distribs[],
                  const int dargs[], const int psizes[], int order, const TypeInfo& old, TypeInfo* out) {
  if (size <= 0 || rank < 0 || rank >= size) {
    return type_error(call, MPI_ERR_ARG,
                      "rank " + std::to_string(rank) + " is not in a process grid of size " + std::to_string(size));
  }
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    return type_error(call, MPI_ERR_ARG, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN, not " + std::to_string(order));
  }
  std::vector<std::int64_t> blocks(static_cast<std::size_t>(ndims));
  std::int64_t grid = 1;
  for (int d = 0; d < ndims; ++d) {
    if (gsizes[d] <= 0 || psizes[d] <= 0) {
      return type_error(call, MPI_ERR_ARG,
                        dimension(d) + "gsize " + std::to_string(gsizes[d]) + " and psize " +
                            std::to_string(psizes[d]) + " must be positive");
    }
    std::int64_t& block = blocks[static_cast<std::size_t>(d)];
    if (int rc = cyclic_block(call, d, gsizes[d], distribs[d], dargs[d], psizes[d], &block)) return rc;
    grid *= psizes[d];
  }
  if (grid != size) {
    return type_error(call, MPI_ERR_ARG,
                      "the process grid has " + std::to_string(grid) + " positions (the product of array_of_psizes) "
                      "but size is " + std::to_string(size));
  }
  // The grid is row-major in either order (MPI 3.1 §4.1.4), as Cartesian
  // topologies are: the last dimension varies fastest with the rank.
  std::vector<std::int64_t> coords(static_cast<std::size_t>(ndims));
  for (int d = ndims - 1, rest = rank; d >= 0; --d) {
    coords[static_cast<std::size_t>(d)] = rest % psizes[d];
    rest /= psizes[d];
  }
  std::vector<int> dims(static_cast<std::size_t>(ndims));
  std::iota(dims.begin(), dims.end(), 0);
  if (order == MPI_ORDER_C) std::reverse(dims.begin(), dims.end());
  TypeInfo level = old;
  std::int64_t stride = old.extent();
  for (int d : dims) {
    const auto i = static_cast<std::size_t>(d);
    // A dimension's elements are runs of the level inside it: counts above
    // INT_MAX need that level to be one block.
    if (int rc = check_large_entry(call, {0, static_cast<std::uint64_t>(gsizes[d]), &level, stride},
                                   ("array_of_gsizes[" + std::to_string(d) + "]").c_str())) {
      return rc;
    }
    level = owned(level, stride, gsizes[d], blocks[i], coords[i], psizes[d]);
    stride *= gsizes[d];
  }
  // The whole global array's extent from 0, as the standard's cyclic()
  // places its bounds: darray types of consecutive arrays step over them.
  set_bounds(level, 0, stride);
  *out = std::move(level);
  return MPI_SUCCESS;
}

}  // namespace mpf::mpi

extern "C" {

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[],
                            const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_darray";
  require_initialized(call);
  const TypeInfo* old = nullptr;
  if (int rc = old_type(call, oldtype, &old)) return rc;
  if (int rc = check_out(call, newtype)) return rc;
  if (ndims <= 0 || array_of_gsizes == nullptr || array_of_distribs == nullptr || array_of_dargs == nullptr ||
      array_of_psizes == nullptr) {
    return type_error(call, MPI_ERR_ARG, "ndims " + std::to_string(ndims) + " must be positive, with non-NULL arrays");
  }
  const std::vector<MPI_Count> gsizes(array_of_gsizes, array_of_gsizes + ndims);
  TypeInfo t;
  if (int rc = darray_layout(call, size, rank, ndims, gsizes.data(), array_of_distribs, array_of_dargs, array_of_psizes,
                             order, *old, &t)) {
    return rc;
  }
  t.recipe = {MPI_COMBINER_DARRAY, {size, rank, ndims}, {}, {type_argument(oldtype)}};
  for (const int* a : {array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes}) {
    t.recipe.integers.insert(t.recipe.integers.end(), a, a + ndims);
  }
  t.recipe.integers.push_back(order);
  *newtype = add_type(std::move(t));
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray

}  // extern "C"
