// What a window has besides its memory (MPI-3.1 §11.2.5-11.2.7, §8.3.2):
// its group, name, hints and error handler. Its attributes are with every
// other object's in attributes.cpp.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "mpi/comm.hpp"
#include "mpi/errors.hpp"
#include "mpi/group.hpp"
#include "mpi/info.hpp"
#include "mpi/win.hpp"
#include "shm/introspection.hpp"

using namespace mpf::mpi;

namespace {

// The hints a window uses, as MPI_Win_get_info returns them.
void set_hint(MPI_Info info, const char* key, const char* value) { PMPI_Info_set(info, key, value); }

}  // namespace

extern "C" {

int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  int rc = 0;
  Window* w = window_of("MPI_Win_get_group", win, &rc);
  if (w == nullptr) return rc;
  if (group == nullptr) return win_error("MPI_Win_get_group", win, MPI_ERR_ARG, "group is NULL");
  *group = add_group(comm_of(w->comm).world);
  return MPI_SUCCESS;
}

int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  const char* call = "MPI_Win_set_name";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (win_name == nullptr) return win_error(call, win, MPI_ERR_ARG, "win_name is NULL");
  const std::size_t length = std::strlen(win_name);
  if (length >= MPI_MAX_OBJECT_NAME) {
    return win_error(call, win, MPI_ERR_ARG,
                     "the name has " + std::to_string(length) + " characters (at most " +
                         std::to_string(MPI_MAX_OBJECT_NAME - 1) + ")");
  }
  w->name = win_name;
  // mpfinspect shows it too (cut to the member block's field).
  char* shown = w->member(w->rank).name;
  const std::size_t room = sizeof(w->member(w->rank).name) - 1;
  std::memset(shown, 0, room + 1);
  std::memcpy(shown, win_name, length < room ? length : room);
  return MPI_SUCCESS;
}

int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  const char* call = "MPI_Win_get_name";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (win_name == nullptr || resultlen == nullptr) return win_error(call, win, MPI_ERR_ARG, "win_name or resultlen is NULL");
  std::snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name.c_str());
  *resultlen = static_cast<int>(std::strlen(win_name));
  return MPI_SUCCESS;
}

// The hints this library acts on are fixed when the window is made
// (no_locks, alloc_shared_noncontig); MPI_Win_set_info keeps the others for
// MPI_Win_get_info and changes nothing else (MPI-3.1 §11.2.7 lets it).
int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  const char* call = "MPI_Win_set_info";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (info == MPI_INFO_NULL || !info_argument_is_valid(info)) {
    return win_error(call, win, MPI_ERR_INFO, "invalid info object " + std::to_string(info));
  }
  if (w->info != MPI_INFO_NULL) PMPI_Info_free(&w->info);
  PMPI_Info_dup(info, &w->info);
  return MPI_SUCCESS;
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  const char* call = "MPI_Win_get_info";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (info_used == nullptr) return win_error(call, win, MPI_ERR_ARG, "info_used is NULL");
  if (w->info != MPI_INFO_NULL) {
    PMPI_Info_dup(w->info, info_used);
  } else {
    PMPI_Info_create(info_used);
  }
  // What is in effect: operations from one origin are always applied in
  // order, and any operation may be used on any location.
  set_hint(*info_used, "no_locks", w->no_locks ? "true" : "false");
  set_hint(*info_used, "accumulate_ordering", "rar,raw,war,waw");
  set_hint(*info_used, "accumulate_ops", "same_op_no_op");
  set_hint(*info_used, "alloc_shared_noncontig", w->noncontiguous ? "true" : "false");
  return MPI_SUCCESS;
}

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* function, MPI_Errhandler* errhandler) {
  const char* call = "MPI_Win_create_errhandler";
  require_initialized(call);
  if (function == nullptr || errhandler == nullptr) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "function or errhandler is NULL");
  }
  *errhandler = add_errhandler(function);
  return MPI_SUCCESS;
}

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  const char* call = "MPI_Win_set_errhandler";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (!errhandler_is_valid(errhandler)) {
    return win_error(call, win, MPI_ERR_ARG, "invalid error handler " + std::to_string(errhandler));
  }
  w->errhandler = errhandler;
  return MPI_SUCCESS;
}

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  const char* call = "MPI_Win_get_errhandler";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (errhandler == nullptr) return win_error(call, win, MPI_ERR_ARG, "errhandler is NULL");
  *errhandler = w->errhandler;
  return MPI_SUCCESS;
}

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  const char* call = "MPI_Win_call_errhandler";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  win_error(call, win, errorcode, "error " + std::to_string(errorcode) + " raised by the program");
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Win_get_group = PMPI_Win_get_group
#pragma weak MPI_Win_set_name = PMPI_Win_set_name
#pragma weak MPI_Win_get_name = PMPI_Win_get_name
#pragma weak MPI_Win_set_info = PMPI_Win_set_info
#pragma weak MPI_Win_get_info = PMPI_Win_get_info
#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler

}  // extern "C"
