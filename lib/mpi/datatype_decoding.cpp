// Datatype decoding (MPI 3.1 §4.1.13): MPI_Type_get_envelope and
// MPI_Type_get_contents read back the recipe each constructor recorded
// (TypeInfo::recipe: datatype_constructors.cpp, datatype_darray.cpp,
// datatype_fortran.cpp, large_count.cpp). Their large-count forms
// (MPI-4.0 §5.1.13: MPI_Type_get_envelope_c, _contents_c) also return the
// large counts of a type built with a count above INT_MAX; the int forms
// refuse such a type, whose counts they could not return.
#include <mpi.h>

#include <algorithm>
#include <climits>
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
int check_room(const char* call, const char* what, MPI_Count max, std::size_t need, const void* array,
               MPI_Datatype datatype) {
  if (max < 0 || static_cast<std::uint64_t>(max) < need) {
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

// The int decoding calls cannot return a count above INT_MAX.
int needs_large_counts(const char* call, MPI_Datatype datatype, const Recipe& r) {
  if (r.large_counts.empty()) return MPI_SUCCESS;
  return type_error(call, MPI_ERR_TYPE,
                    datatype_name(datatype) + " was built with a count above INT_MAX (" + std::to_string(INT_MAX) +
                        "), which an int cannot return: decode it with " + call + "_c");
}

// The recipe's arrays into the caller's (room checked).
void copy_out(MPI_Datatype datatype, const Recipe& r, int integers[], MPI_Aint addresses[], MPI_Count large_counts[],
              MPI_Datatype datatypes[]) {
  std::copy(r.integers.begin(), r.integers.end(), integers);
  std::copy(r.addresses.begin(), r.addresses.end(), addresses);
  std::copy(r.large_counts.begin(), r.large_counts.end(), large_counts);
  // A new handle may grow the type table (and drop entries freed while
  // collectives were pending); `keep` holds `r` where it is.
  const std::shared_ptr<const TypeInfo> keep = share_type(datatype);
  for (std::size_t i = 0; i < r.types.size(); ++i) datatypes[i] = hand_out(r.types[i]);
}

int no_contents(const char* call, MPI_Datatype datatype) {
  return type_error(call, MPI_ERR_TYPE,
                    datatype_name(datatype) +
                        " is a named predefined datatype, which has no contents (its combiner is MPI_COMBINER_NAMED)");
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
  if (int rc = needs_large_counts(call, datatype, r)) return rc;
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
  if (r.combiner == MPI_COMBINER_NAMED) return no_contents(call, datatype);
  if (int rc = needs_large_counts(call, datatype, r)) return rc;
  if (int rc = check_room(call, "max_integers", max_integers, r.integers.size(), array_of_integers, datatype)) return rc;
  if (int rc = check_room(call, "max_addresses", max_addresses, r.addresses.size(), array_of_addresses, datatype)) {
    return rc;
  }
  if (int rc = check_room(call, "max_datatypes", max_datatypes, r.types.size(), array_of_datatypes, datatype)) return rc;
  copy_out(datatype, r, array_of_integers, array_of_addresses, nullptr, array_of_datatypes);
  return MPI_SUCCESS;
}

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                             MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  const char* call = "MPI_Type_get_envelope_c";
  require_initialized(call);
  const TypeInfo* t = nullptr;
  if (int rc = decoded_type(call, datatype, &t)) return rc;
  if (num_integers == nullptr || num_addresses == nullptr || num_large_counts == nullptr || num_datatypes == nullptr ||
      combiner == nullptr) {
    return type_error(call, MPI_ERR_ARG, "an output argument is NULL");
  }
  const Recipe& r = t->recipe;
  *num_integers = static_cast<MPI_Count>(r.integers.size());
  *num_addresses = static_cast<MPI_Count>(r.addresses.size());
  *num_large_counts = static_cast<MPI_Count>(r.large_counts.size());
  *num_datatypes = static_cast<MPI_Count>(r.types.size());
  *combiner = r.combiner;
  return MPI_SUCCESS;
}

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[]) {
  const char* call = "MPI_Type_get_contents_c";
  require_initialized(call);
  const TypeInfo* t = nullptr;
  if (int rc = decoded_type(call, datatype, &t)) return rc;
  const Recipe& r = t->recipe;
  if (r.combiner == MPI_COMBINER_NAMED) return no_contents(call, datatype);
  if (int rc = check_room(call, "max_integers", max_integers, r.integers.size(), array_of_integers, datatype)) return rc;
  if (int rc = check_room(call, "max_addresses", max_addresses, r.addresses.size(), array_of_addresses, datatype)) {
    return rc;
  }
  if (int rc = check_room(call, "max_large_counts", max_large_counts, r.large_counts.size(), array_of_large_counts,
                          datatype)) {
    return rc;
  }
  if (int rc = check_room(call, "max_datatypes", max_datatypes, r.types.size(), array_of_datatypes, datatype)) return rc;
  copy_out(datatype, r, array_of_integers, array_of_addresses, array_of_large_counts, array_of_datatypes);
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
#pragma weak MPI_Type_get_envelope_c = PMPI_Type_get_envelope_c
#pragma weak MPI_Type_get_contents_c = PMPI_Type_get_contents_c

}  // extern "C"
