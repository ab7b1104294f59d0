// Datatype decoding (MPI 3.1 §4.1.13): MPI_Type_get_envelope and
// MPI_Type_get_contents read back the recipe each constructor recorded
// (TypeInfo::recipe: datatype_constructors.cpp, datatype_darray.cpp,
// datatype_fortran.cpp).
#include <mpi.h>

#include <algorithm>
#include <memory>
#include <string>

#include "mpi/datatype.hpp"
#include "mpi/datatype_table.hpp"
#include "mpi/errors.hpp"

using namespace mpf::mpi;

namespace {

int decoded_type(const char* call, MPI_Datatype datatype, const TypeInfo** t) {
  *t = find_type(datatype);
  if (*t == nullptr) return type_error(call, MPI_ERR_TYPE, "invalid datatype " + datatype_name(datatype));
  return MPI_SUCCESS;
}

// `max` (the caller's array length, named `what`) holds the `need` values
// `datatype` was built with, and the array is there if any are.
int check_room(const char* call, const char* what, int max, std::size_t need, const void* array,
               MPI_Datatype datatype) {
  if (max < 0 || static_cast<std::size_t>(max) < need) {
    return type_error(call, MPI_ERR_ARG,
                      std::string(what) + " is " + std::to_string(max) + " but " + datatype_name(datatype) +
                          " was built with " + std::to_string(need) + " (MPI_Type_get_envelope gives the counts)");
  }
  if (need > 0 && array == nullptr) {
    return type_error(call, MPI_ERR_ARG, std::string("the array for ") + what + " is NULL");
  }
  return MPI_SUCCESS;
}

// A datatype argument as MPI_Type_get_contents hands it out: a predefined
// type is its own handle, which the program must not free; a derived one
// is a new handle on a copy of that argument as it was passed, which the
// program frees (MPI 3.1 §4.1.13).
MPI_Datatype hand_out(const TypeArgument& argument) {
  if (argument.type == nullptr) return argument.handle;
  return add_type(*argument.type);
}

}  // namespace

extern "C" {

int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
                           int* combiner) {
  const char* call = "MPI_Type_get_envelope";
  require_initialized(call);
  const TypeInfo* t = nullptr;
  if (int rc = decoded_type(call, datatype, &t)) return rc;
  if (num_integers == nullptr || num_addresses == nullptr || num_datatypes == nullptr || combiner == nullptr) {
    return type_error(call, MPI_ERR_ARG, "an output argument is NULL");
  }
  const Recipe& r = t->recipe;
  *num_integers = static_cast<int>(r.integers.size());
  *num_addresses = static_cast<int>(r.addresses.size());
  *num_datatypes = static_cast<int>(r.types.size());
  *combiner = r.combiner;
  return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
  const char* call = "MPI_Type_get_contents";
  require_initialized(call);
  const TypeInfo* t = nullptr;
  if (int rc = decoded_type(call, datatype, &t)) return rc;
  const Recipe& r = t->recipe;
  if (r.combiner == MPI_COMBINER_NAMED) {
    return type_error(call, MPI_ERR_TYPE,
                      datatype_name(datatype) +
                          " is a named predefined datatype, which has no contents (its combiner is MPI_COMBINER_NAMED)");
  }
  if (int rc = check_room(call, "max_integers", max_integers, r.integers.size(), array_of_integers, datatype)) return rc;
  if (int rc = check_room(call, "max_addresses", max_addresses, r.addresses.size(), array_of_addresses, datatype)) {
    return rc;
  }
  if (int rc = check_room(call, "max_datatypes", max_datatypes, r.types.size(), array_of_datatypes, datatype)) return rc;
  std::copy(r.integers.begin(), r.integers.end(), array_of_integers);
  std::copy(r.addresses.begin(), r.addresses.end(), array_of_addresses);
  // A new handle may grow the type table (and drop entries freed while
  // collectives were pending); `keep` holds `r` where it is.
  const std::shared_ptr<const TypeInfo> keep = share_type(datatype);
  for (std::size_t i = 0; i < r.types.size(); ++i) array_of_datatypes[i] = hand_out(r.types[i]);
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents

}  // extern "C"
