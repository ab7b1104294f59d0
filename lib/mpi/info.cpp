// MPI_Info objects: ordered (key, value) string pairs (MPI 3.1 §9), and the
// hints a communicator keeps (MPI_Comm_set_info / _get_info).
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mpi/comm.hpp"
#include "mpi/errors.hpp"
#include "mpi/info.hpp"

namespace {

using Info = std::vector<std::pair<std::string, std::string>>;

// Index = handle; 0 is MPI_INFO_NULL, 1 MPI_INFO_ENV (empty: no launch hints).
std::vector<std::unique_ptr<Info>>& table() {
  static std::vector<std::unique_ptr<Info>> infos = [] {
    std::vector<std::unique_ptr<Info>> t;
    t.emplace_back();
    t.push_back(std::make_unique<Info>());
    return t;
  }();
  return infos;
}

Info* find(MPI_Info info) {
  auto& t = table();
  return info > 0 && static_cast<std::size_t>(info) < t.size() ? t[static_cast<std::size_t>(info)].get() : nullptr;
}

MPI_Info add(Info info) {
  table().push_back(std::make_unique<Info>(std::move(info)));
  return static_cast<MPI_Info>(table().size() - 1);
}

int info_error(const char* call, int error_class, const std::string& detail) {
  return mpf::mpi::comm_error(call, MPI_COMM_WORLD, error_class, detail);
}

int bad_info(const char* call, MPI_Info info) {
  return info_error(call, MPI_ERR_INFO,
                    info == MPI_INFO_NULL ? std::string("info is MPI_INFO_NULL") : "invalid info " + std::to_string(info));
}

int check_key(const char* call, const char* key) {
  if (key == nullptr || key[0] == '\0') return info_error(call, MPI_ERR_INFO_KEY, "info key is empty");
  if (std::strlen(key) > MPI_MAX_INFO_KEY) {
    return info_error(call, MPI_ERR_INFO_KEY, "info key \"" + std::string(key, 32) + "...\" is longer than " +
                                                  std::to_string(MPI_MAX_INFO_KEY) + " characters");
  }
  return MPI_SUCCESS;
}

Info::iterator lookup(Info& info, const char* key) {
  return std::find_if(info.begin(), info.end(), [key](const auto& kv) { return kv.first == key; });
}

}  // namespace

bool mpf::mpi::info_argument_is_valid(MPI_Info info) { return info == MPI_INFO_NULL || find(info) != nullptr; }

extern "C" {

int PMPI_Info_create(MPI_Info* info) {
  if (info == nullptr) return info_error("MPI_Info_create", MPI_ERR_ARG, "info argument is NULL");
  *info = add({});
  return MPI_SUCCESS;
}

int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  Info* i = find(info);
  if (i == nullptr || info == MPI_INFO_ENV) return bad_info("MPI_Info_set", info);
  if (int rc = check_key("MPI_Info_set", key)) return rc;
  if (value == nullptr || std::strlen(value) > MPI_MAX_INFO_VAL) {
    return info_error("MPI_Info_set", MPI_ERR_INFO_VALUE,
                      value == nullptr ? std::string("info value is NULL")
                                       : "info value is longer than " + std::to_string(MPI_MAX_INFO_VAL) + " characters");
  }
  const auto it = lookup(*i, key);
  if (it != i->end()) {
    it->second = value;
  } else {
    i->emplace_back(key, value);
  }
  return MPI_SUCCESS;
}

int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  Info* i = find(info);
  if (i == nullptr) return bad_info("MPI_Info_get", info);
  if (int rc = check_key("MPI_Info_get", key)) return rc;
  if (valuelen < 0 || flag == nullptr) return info_error("MPI_Info_get", MPI_ERR_ARG, "invalid valuelen or flag");
  const auto it = lookup(*i, key);
  *flag = it != i->end() ? 1 : 0;
  if (*flag) {
    const std::size_t n = std::min<std::size_t>(it->second.size(), static_cast<std::size_t>(valuelen));
    std::memcpy(value, it->second.data(), n);
    value[n] = '\0';
  }
  return MPI_SUCCESS;
}

// MPI-4.0: the value and its length in one call; *buflen in: the buffer's
// size (0: only ask the length), out: the value's length plus its NUL.
int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  Info* i = find(info);
  if (i == nullptr) return bad_info("MPI_Info_get_string", info);
  if (int rc = check_key("MPI_Info_get_string", key)) return rc;
  if (buflen == nullptr || flag == nullptr || *buflen < 0 || (*buflen > 0 && value == nullptr)) {
    return info_error("MPI_Info_get_string", MPI_ERR_ARG, "invalid buflen, value or flag");
  }
  const auto it = lookup(*i, key);
  *flag = it != i->end() ? 1 : 0;
  if (!*flag) return MPI_SUCCESS;
  if (*buflen > 0) {
    const std::size_t n = std::min<std::size_t>(it->second.size(), static_cast<std::size_t>(*buflen - 1));
    std::memcpy(value, it->second.data(), n);
    value[n] = '\0';
  }
  *buflen = static_cast<int>(it->second.size()) + 1;
  return MPI_SUCCESS;
}

int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  Info* i = find(info);
  if (i == nullptr) return bad_info("MPI_Info_get_valuelen", info);
  if (int rc = check_key("MPI_Info_get_valuelen", key)) return rc;
  const auto it = lookup(*i, key);
  *flag = it != i->end() ? 1 : 0;
  if (*flag) *valuelen = static_cast<int>(it->second.size());
  return MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char* key) {
  Info* i = find(info);
  if (i == nullptr || info == MPI_INFO_ENV) return bad_info("MPI_Info_delete", info);
  if (int rc = check_key("MPI_Info_delete", key)) return rc;
  const auto it = lookup(*i, key);
  if (it == i->end()) return info_error("MPI_Info_delete", MPI_ERR_INFO_NOKEY, "info key \"" + std::string(key) + "\" is not set");
  i->erase(it);
  return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  Info* i = find(info);
  if (i == nullptr) return bad_info("MPI_Info_get_nkeys", info);
  *nkeys = static_cast<int>(i->size());
  return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  Info* i = find(info);
  if (i == nullptr) return bad_info("MPI_Info_get_nthkey", info);
  if (n < 0 || static_cast<std::size_t>(n) >= i->size()) {
    return info_error("MPI_Info_get_nthkey", MPI_ERR_ARG,
                      "key number " + std::to_string(n) + " of an info with " + std::to_string(i->size()) + " keys");
  }
  std::memcpy(key, (*i)[static_cast<std::size_t>(n)].first.c_str(), (*i)[static_cast<std::size_t>(n)].first.size() + 1);
  return MPI_SUCCESS;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  Info* i = find(info);
  if (i == nullptr) return bad_info("MPI_Info_dup", info);
  *newinfo = add(*i);
  return MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info* info) {
  if (info == nullptr || find(*info) == nullptr || *info == MPI_INFO_ENV) {
    return bad_info("MPI_Info_free", info == nullptr ? MPI_INFO_NULL : *info);
  }
  table()[static_cast<std::size_t>(*info)].reset();
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

// A communicator keeps a copy of the hints it was given; none of them
// changes how the toolkit works today, and MPI_Comm_get_info returns them.
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  mpf::mpi::require_initialized("MPI_Comm_set_info");
  if (!mpf::mpi::comm_is_valid(comm)) {
    return mpf::mpi::comm_error("MPI_Comm_set_info", MPI_COMM_WORLD, MPI_ERR_COMM, mpf::mpi::describe_bad_comm(comm));
  }
  Info* i = find(info);
  if (i == nullptr) return bad_info("MPI_Comm_set_info", info);
  mpf::mpi::comm_of(comm).info = add(*i);
  return MPI_SUCCESS;
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  mpf::mpi::require_initialized("MPI_Comm_get_info");
  if (!mpf::mpi::comm_is_valid(comm)) {
    return mpf::mpi::comm_error("MPI_Comm_get_info", MPI_COMM_WORLD, MPI_ERR_COMM, mpf::mpi::describe_bad_comm(comm));
  }
  Info* kept = find(mpf::mpi::comm_of(comm).info);
  *info_used = add(kept != nullptr ? *kept : Info{});
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Info_create = PMPI_Info_create
#pragma weak MPI_Info_set = PMPI_Info_set
#pragma weak MPI_Info_get = PMPI_Info_get
#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
#pragma weak MPI_Info_get_string = PMPI_Info_get_string
#pragma weak MPI_Info_delete = PMPI_Info_delete
#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
#pragma weak MPI_Info_dup = PMPI_Info_dup
#pragma weak MPI_Info_free = PMPI_Info_free
#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info

}  // extern "C"
