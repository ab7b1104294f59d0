// Handle and status conversion between C and Fortran (MPI 3.1 §17.2.4,
// §17.2.5).
//
// Every handle is an int in both languages here (MPI_Fint is int), so a
// handle converts to itself; the functions exist because tools and
// libraries written for any MPI call them. A Fortran status is the C
// status word for word: MPI_SOURCE, MPI_TAG and MPI_ERROR at MPI_F_SOURCE,
// MPI_F_TAG and MPI_F_ERROR, and the private fields (cancelled flag, byte
// count) after them, so a status that goes to Fortran and back still
// answers MPI_Get_count and MPI_Test_cancelled as before.
#include <mpi.h>

#include <cstddef>
#include <cstring>

#include "mpi/errors.hpp"

using namespace mpf::mpi;

static_assert(sizeof(MPI_Fint) == sizeof(int) && sizeof(MPI_Comm) == sizeof(MPI_Fint),
              "handles convert to Fortran as they are");
static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
              "MPI_F_STATUS_SIZE covers the whole C status, private fields included");
static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                  offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                  offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
              "MPI_F_SOURCE, MPI_F_TAG and MPI_F_ERROR index the C status's fields");

extern "C" {

MPI_Fint PMPI_Comm_c2f(MPI_Comm comm) { return comm; }
MPI_Comm PMPI_Comm_f2c(MPI_Fint comm) { return comm; }
MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype) { return datatype; }
MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype) { return datatype; }
MPI_Fint PMPI_Group_c2f(MPI_Group group) { return group; }
MPI_Group PMPI_Group_f2c(MPI_Fint group) { return group; }
MPI_Fint PMPI_Request_c2f(MPI_Request request) { return request; }
MPI_Request PMPI_Request_f2c(MPI_Fint request) { return request; }
MPI_Fint PMPI_Op_c2f(MPI_Op op) { return op; }
MPI_Op PMPI_Op_f2c(MPI_Fint op) { return op; }
MPI_Fint PMPI_Info_c2f(MPI_Info info) { return info; }
MPI_Info PMPI_Info_f2c(MPI_Fint info) { return info; }
MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler) { return errhandler; }
MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler) { return errhandler; }
MPI_Fint PMPI_Message_c2f(MPI_Message message) { return message; }
MPI_Message PMPI_Message_f2c(MPI_Fint message) { return message; }
MPI_Fint PMPI_Win_c2f(MPI_Win win) { return win; }
MPI_Win PMPI_Win_f2c(MPI_Fint win) { return win; }

// MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are NULL here: converting
// either is erroneous (§17.2.5), reported as a NULL argument.
int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  const char* call = "MPI_Status_c2f";
  require_initialized(call);
  if (c_status == nullptr || f_status == nullptr) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG,
                      c_status == nullptr ? "c_status is NULL (MPI_STATUS_IGNORE has no Fortran form)"
                                          : "f_status is NULL");
  }
  std::memcpy(f_status, c_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  const char* call = "MPI_Status_f2c";
  require_initialized(call);
  if (f_status == nullptr || c_status == nullptr) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG,
                      f_status == nullptr ? "f_status is NULL" : "c_status is NULL (MPI_STATUS_IGNORE cannot be written)");
  }
  std::memcpy(c_status, f_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Comm_c2f = PMPI_Comm_c2f
#pragma weak MPI_Comm_f2c = PMPI_Comm_f2c
#pragma weak MPI_Type_c2f = PMPI_Type_c2f
#pragma weak MPI_Type_f2c = PMPI_Type_f2c
#pragma weak MPI_Group_c2f = PMPI_Group_c2f
#pragma weak MPI_Group_f2c = PMPI_Group_f2c
#pragma weak MPI_Request_c2f = PMPI_Request_c2f
#pragma weak MPI_Request_f2c = PMPI_Request_f2c
#pragma weak MPI_Op_c2f = PMPI_Op_c2f
#pragma weak MPI_Op_f2c = PMPI_Op_f2c
#pragma weak MPI_Info_c2f = PMPI_Info_c2f
#pragma weak MPI_Info_f2c = PMPI_Info_f2c
#pragma weak MPI_Errhandler_c2f = PMPI_Errhandler_c2f
#pragma weak MPI_Errhandler_f2c = PMPI_Errhandler_f2c
#pragma weak MPI_Message_c2f = PMPI_Message_c2f
#pragma weak MPI_Message_f2c = PMPI_Message_f2c
#pragma weak MPI_Win_c2f = PMPI_Win_c2f
#pragma weak MPI_Win_f2c = PMPI_Win_f2c
#pragma weak MPI_Status_c2f = PMPI_Status_c2f
#pragma weak MPI_Status_f2c = PMPI_Status_f2c

}  // extern "C"
