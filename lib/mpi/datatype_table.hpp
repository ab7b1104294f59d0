// The datatype table behind MPI_Datatype handles, and what the datatype
// constructors share: for datatype.cpp (the table and its lookups),
// datatype_constructors.cpp, datatype_darray.cpp, datatype_fortran.cpp and
// datatype_decoding.cpp only.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi/datatype.hpp"

namespace mpf::mpi {

// Handles below this are the named predefined types; derived ones (and the
// unnamed predefined ones of MPI_Type_create_f90_*) follow.
inline constexpr MPI_Datatype kFirstDerivedType = 64;

// type_table() (datatype.hpp): index = handle; null entries are free or unused.

// `count` copies of `type`, `stride` bytes apart, the first at byte `disp`:
// the unit every constructor's layout is described in.
struct Entry {
  std::int64_t disp;
  std::uint64_t count;
  const TypeInfo* type;
  std::int64_t stride;
};

// The flattened layout of `entries` in order (size, bounds, blocks, basic
// type, signature); `is_struct` pads the extent to the largest alignment
// inside (MPI_Type_create_struct). The recipe is left empty.
TypeInfo build(const std::vector<Entry>& entries, bool is_struct);
// Sets the bounds (lb, lb + extent) of a layout and whether it is then
// usable in place.
void set_bounds(TypeInfo& t, std::int64_t lb, std::int64_t extent);
// A new handle for `t`.
MPI_Datatype add_type(TypeInfo t);
// `handle` as a constructor's datatype argument (a valid type).
TypeArgument type_argument(MPI_Datatype handle);

// A count above INT_MAX (which only the large-count constructors and calls
// give, large_count.cpp) of a type that is not one plain block would
// flatten into more blocks than memory holds: MPI_ERR_COUNT naming `what`
// ("count", "array_of_blocklengths[2]"). MPI_SUCCESS for any other entry.
int check_large_entry(const char* call, const Entry& e, const char* what);

// The layouts of MPI_Type_create_subarray and MPI_Type_create_darray
// (datatype_darray.cpp), with sizes as large counts: both forms of each
// call check their arguments and build through these, then record their
// own recipe. `old` is the old type; ndims > 0 and the arrays are there.
int subarray_layout(const char* call, int ndims, const MPI_Count sizes[], const MPI_Count subsizes[],
                    const MPI_Count starts[], int order, const TypeInfo& old, TypeInfo* out);
int darray_layout(const char* call, int size, int rank, int ndims, const MPI_Count gsizes[], const int distribs[],
                  const int dargs[], const int psizes[], int order, const TypeInfo& old, TypeInfo* out);

// Error reporting and argument checks shared by the constructors: each
// returns MPI_SUCCESS or the error class after the handler returned.
int type_error(const char* call, int error_class, const std::string& detail);
// The old type of a constructor: any valid type, committed or not.
int old_type(const char* call, MPI_Datatype handle, const TypeInfo** out);
int check_out(const char* call, const void* out);

}  // namespace mpf::mpi
