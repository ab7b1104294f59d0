// The size-specific Fortran datatypes (MPI 3.1 §17.1.9): MPI_Type_match_size
// and MPI_Type_create_f90_integer, _real and _complex.
//
// MPI_Type_match_size returns a named sized type (MPI_INTEGER4, MPI_REAL8,
// ...). The f90 calls return "unnamed predefined" types: they cannot be
// freed, need no commit, and decode as MPI_COMBINER_F90_* with the (p, r)
// they were asked for. Each is a copy of the sized type it matches (its
// `basic`, through which reductions find their kernel: coll/ops.cpp), made
// once per (combiner, p, r): the same arguments give the same handle, as
// the standard advises, so repeated calls do not pile up handles.
#include <mpi.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "mpi/datatype.hpp"
#include "mpi/datatype_table.hpp"
#include "mpi/errors.hpp"

using namespace mpf::mpi;

namespace {

// What each sized type can hold, as gfortran's KIND values report it:
// decimal exponent range r (and precision p for reals) of INTEGER(1, 2, 4, 8)
// and REAL(4, 8, 16).
struct Capacity {
  int p;
  int r;
  MPI_Datatype real, complex;
};
constexpr Capacity kReals[] = {
    {6, 37, MPI_REAL4, MPI_COMPLEX8},
    {15, 307, MPI_REAL8, MPI_COMPLEX16},
    {33, 4931, MPI_REAL16, MPI_COMPLEX32},
};
struct IntegerCapacity {
  int r;
  MPI_Datatype type;
};
constexpr IntegerCapacity kIntegers[] = {{2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8}};

// (combiner, p, r) -> the handle made for it.
std::map<std::tuple<int, int, int>, MPI_Datatype> g_f90_types;

// The unnamed predefined type for `sized` asked for as (combiner, p, r):
// made on first use; `integers` is what MPI_Type_get_contents returns.
MPI_Datatype f90_type(MPI_Datatype sized, int combiner, int p, int r, std::vector<int> integers, std::string name) {
  const auto key = std::make_tuple(combiner, p, r);
  if (auto it = g_f90_types.find(key); it != g_f90_types.end()) return it->second;
  TypeInfo t = *find_type(sized);
  t.name = std::move(name);
  t.recipe = {combiner, std::move(integers), {}, {}};
  const MPI_Datatype handle = add_type(std::move(t));
  g_f90_types.emplace(key, handle);
  return handle;
}

// The sized real (or complex) type for precision p and range r, either of
// which may be MPI_UNDEFINED (not both); MPI_DATATYPE_NULL if none holds them.
MPI_Datatype select_real(int p, int r, bool complex) {
  for (const Capacity& c : kReals) {
    if ((p == MPI_UNDEFINED || p <= c.p) && (r == MPI_UNDEFINED || r <= c.r)) return complex ? c.complex : c.real;
  }
  return MPI_DATATYPE_NULL;
}

int create_real(const char* call, int combiner, int p, int r, MPI_Datatype* newtype) {
  require_initialized(call);
  if (int rc = check_out(call, newtype)) return rc;
  const bool complex = combiner == MPI_COMBINER_F90_COMPLEX;
  const MPI_Datatype sized = p == MPI_UNDEFINED && r == MPI_UNDEFINED ? MPI_DATATYPE_NULL : select_real(p, r, complex);
  const std::string args = "(" + std::to_string(p) + ", " + std::to_string(r) + ")";
  if (sized == MPI_DATATYPE_NULL) {
    return type_error(call, MPI_ERR_ARG,
                      "no " + std::string(complex ? "complex" : "real") + " type has precision p and range r " + args +
                          " (the largest has p 33, r 4931; either, not both, may be MPI_UNDEFINED)");
  }
  *newtype = f90_type(sized, combiner, p, r, {p, r}, std::string(call) + args);
  return MPI_SUCCESS;
}

std::string sizes_of(int typeclass) {
  switch (typeclass) {
    case MPI_TYPECLASS_INTEGER: return "1, 2, 4 or 8";
    case MPI_TYPECLASS_REAL: return "4, 8 or 16";
    default: return "8, 16 or 32";
  }
}

}  // namespace

extern "C" {

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  const char* call = "MPI_Type_match_size";
  require_initialized(call);
  if (datatype == nullptr) return type_error(call, MPI_ERR_ARG, "datatype argument is NULL");
  if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL && typeclass != MPI_TYPECLASS_COMPLEX) {
    return type_error(call, MPI_ERR_ARG,
                      "typeclass " + std::to_string(typeclass) +
                          " is not MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL or MPI_TYPECLASS_COMPLEX");
  }
  MPI_Datatype match = MPI_DATATYPE_NULL;
  if (typeclass == MPI_TYPECLASS_INTEGER) {
    for (const IntegerCapacity& c : kIntegers) {
      if (find_type(c.type)->size == static_cast<std::uint64_t>(size)) match = c.type;
    }
  } else {
    for (const Capacity& c : kReals) {
      const MPI_Datatype t = typeclass == MPI_TYPECLASS_REAL ? c.real : c.complex;
      if (find_type(t)->size == static_cast<std::uint64_t>(size)) match = t;
    }
  }
  if (match == MPI_DATATYPE_NULL) {
    return type_error(call, MPI_ERR_ARG,
                      "no type of that class has " + std::to_string(size) + " bytes (there are " + sizes_of(typeclass) +
                          ")");
  }
  *datatype = match;
  return MPI_SUCCESS;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_f90_integer";
  require_initialized(call);
  if (int rc = check_out(call, newtype)) return rc;
  MPI_Datatype sized = MPI_DATATYPE_NULL;
  for (const IntegerCapacity& c : kIntegers) {
    if (r != MPI_UNDEFINED && r <= c.r) {
      sized = c.type;
      break;
    }
  }
  if (sized == MPI_DATATYPE_NULL) {
    return type_error(call, MPI_ERR_ARG,
                      "no integer type has decimal range r " + std::to_string(r) + " (the largest has 18)");
  }
  *newtype = f90_type(sized, MPI_COMBINER_F90_INTEGER, 0, r, {r}, std::string(call) + "(" + std::to_string(r) + ")");
  return MPI_SUCCESS;
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  return create_real("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  return create_real("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Type_match_size = PMPI_Type_match_size
#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex

}  // extern "C"
