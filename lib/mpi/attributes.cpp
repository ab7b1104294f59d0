#include "mpi/attributes.hpp"

#include <climits>
#include <string>
#include <vector>

#include "core/runtime.hpp"
#include "mpi/comm.hpp"
#include "mpi/errors.hpp"

namespace mpf::mpi {
namespace {

struct Keyval {
  MPI_Comm_copy_attr_function* copy = nullptr;
  MPI_Comm_delete_attr_function* del = nullptr;
  void* extra_state = nullptr;
  bool live = false;
};

// Index = keyval. The predefined keyvals come first and have no entry here
// that users may change.
std::vector<Keyval>& keyvals() {
  static std::vector<Keyval> table(kFirstUserKeyval);
  return table;
}

bool is_predefined(int keyval) { return keyval >= MPI_TAG_UB && keyval <= MPI_APPNUM; }

Keyval* find_keyval(int keyval) {
  auto& t = keyvals();
  if (keyval < kFirstUserKeyval || static_cast<std::size_t>(keyval) >= t.size()) return nullptr;
  Keyval& k = t[static_cast<std::size_t>(keyval)];
  return k.live ? &k : nullptr;
}

// Values of the predefined attributes (MPI 3.1 §8.1.2): pointers to these.
int g_tag_ub = INT_MAX;
int g_host = MPI_PROC_NULL;
int g_io = MPI_ANY_SOURCE;        // every rank can do I/O
int g_wtime_is_global = 1;        // one clock (CLOCK_MONOTONIC) for every rank of a node's job
int g_universe_size = 0;
int g_appnum = 0;

void* predefined_value(int keyval) {
  switch (keyval) {
    case MPI_TAG_UB: return &g_tag_ub;
    case MPI_HOST: return &g_host;
    case MPI_IO: return &g_io;
    case MPI_WTIME_IS_GLOBAL: return &g_wtime_is_global;
    case MPI_UNIVERSE_SIZE:
      g_universe_size = static_cast<int>(core::Runtime::instance().job().size);
      return &g_universe_size;
    default: return &g_appnum;
  }
}

int check_comm(const char* call, MPI_Comm comm) {
  require_initialized(call);
  if (!comm_is_valid(comm)) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  return MPI_SUCCESS;
}

int bad_keyval(const char* call, MPI_Comm comm, int keyval) {
  return comm_error(call, comm, MPI_ERR_KEYVAL,
                    is_predefined(keyval) ? "keyval " + std::to_string(keyval) + " is predefined and read-only"
                                          : "invalid keyval " + std::to_string(keyval));
}

}  // namespace

int copy_attributes(MPI_Comm from, MPI_Comm to) {
  Communicator& src = comm_of(from);
  Communicator& dst = comm_of(to);
  for (const auto& [keyval, value] : src.attributes.in_order()) {
    Keyval* k = find_keyval(keyval);
    if (k == nullptr || k->copy == nullptr) continue;
    void* copied = nullptr;
    int flag = 0;
    const int rc = k->copy(from, keyval, k->extra_state, value, &copied, &flag);
    if (rc != MPI_SUCCESS) return rc;
    if (flag) dst.attributes.set(keyval, copied);
  }
  return MPI_SUCCESS;
}

int delete_attributes(MPI_Comm comm) {
  Communicator& c = comm_of(comm);
  while (!c.attributes.empty()) {
    // A callback may set or delete attributes: take the last one afresh each time.
    const auto [keyval, value] = c.attributes.in_order().back();
    c.attributes.erase(keyval);
    // A keyval freed while set still has its callbacks (MPI 3.1 §6.7.2).
    const Keyval& k = keyvals()[static_cast<std::size_t>(keyval)];
    if (k.del == nullptr) continue;
    if (const int rc = k.del(comm, keyval, value, k.extra_state); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                            int* keyval, void* extra_state) {
  require_initialized("MPI_Comm_create_keyval");
  if (keyval == nullptr) return comm_error("MPI_Comm_create_keyval", MPI_COMM_WORLD, MPI_ERR_ARG, "keyval is NULL");
  keyvals().push_back({copy_fn, delete_fn, extra_state, true});
  *keyval = static_cast<int>(keyvals().size() - 1);
  return MPI_SUCCESS;
}

int PMPI_Comm_free_keyval(int* keyval) {
  require_initialized("MPI_Comm_free_keyval");
  if (keyval == nullptr || find_keyval(*keyval) == nullptr) {
    return bad_keyval("MPI_Comm_free_keyval", MPI_COMM_WORLD, keyval == nullptr ? MPI_KEYVAL_INVALID : *keyval);
  }
  // Attributes still set keep working until deleted (MPI 3.1 §6.7.2): the
  // entry stays, only the handle is invalidated for new uses.
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void* attribute_val) {
  const char* call = "MPI_Comm_set_attr";
  if (int rc = check_comm(call, comm)) return rc;
  Keyval* k = find_keyval(keyval);
  if (k == nullptr) return bad_keyval(call, comm, keyval);
  Communicator& c = comm_of(comm);
  const AttributeSet::Entry* old = c.attributes.find(keyval);
  if (old != nullptr && k->del != nullptr) {
    if (int rc = k->del(comm, keyval, old->second, k->extra_state)) {
      return comm_error(call, comm, rc, "the delete callback of the old value failed with error " + std::to_string(rc));
    }
  }
  c.attributes.set(keyval, attribute_val);
  return MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  const char* call = "MPI_Comm_get_attr";
  if (int rc = check_comm(call, comm)) return rc;
  if (flag == nullptr || attribute_val == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "flag or value is NULL");
  if (is_predefined(keyval)) {
    *static_cast<void**>(attribute_val) = predefined_value(keyval);
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (keyval < kFirstUserKeyval || static_cast<std::size_t>(keyval) >= keyvals().size()) {
    return bad_keyval(call, comm, keyval);
  }
  const AttributeSet::Entry* e = comm_of(comm).attributes.find(keyval);
  *flag = e != nullptr ? 1 : 0;
  if (e != nullptr) *static_cast<void**>(attribute_val) = e->second;
  return MPI_SUCCESS;
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  const char* call = "MPI_Comm_delete_attr";
  if (int rc = check_comm(call, comm)) return rc;
  if (keyval < kFirstUserKeyval || static_cast<std::size_t>(keyval) >= keyvals().size()) {
    return bad_keyval(call, comm, keyval);
  }
  Communicator& c = comm_of(comm);
  const AttributeSet::Entry* e = c.attributes.find(keyval);
  if (e == nullptr) {
    return comm_error(call, comm, MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) + " has no value here");
  }
  const Keyval& k = keyvals()[static_cast<std::size_t>(keyval)];
  if (k.del != nullptr) {
    if (int rc = k.del(comm, keyval, e->second, k.extra_state)) {
      return comm_error(call, comm, rc, "the delete callback failed with error " + std::to_string(rc));
    }
  }
  c.attributes.erase(keyval);
  return MPI_SUCCESS;
}

// MPI-1 names, still used by older programs and test suites.
int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) { return PMPI_Comm_set_attr(comm, keyval, attribute_val); }
int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return PMPI_Comm_delete_attr(comm, keyval); }

int PMPI_COMM_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
int PMPI_COMM_DUP_FN(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}
int PMPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
#pragma weak MPI_Attr_get = PMPI_Attr_get
#pragma weak MPI_Attr_put = PMPI_Attr_put
#pragma weak MPI_Attr_delete = PMPI_Attr_delete
#pragma weak MPI_COMM_NULL_COPY_FN = PMPI_COMM_NULL_COPY_FN
#pragma weak MPI_COMM_DUP_FN = PMPI_COMM_DUP_FN
#pragma weak MPI_COMM_NULL_DELETE_FN = PMPI_COMM_NULL_DELETE_FN

}  // extern "C"
