#include "mpi/attributes.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/runtime.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/win.hpp"

namespace mpf::mpi {
namespace {

// What an attribute hangs on; a keyval serves one kind (MPI-3.1 §6.7).
enum class Kind { communicator, datatype, window };

const char* kind_name(Kind kind) {
  return kind == Kind::communicator ? "communicator" : kind == Kind::datatype ? "datatype" : "window";
}

// The callbacks of every kind have the same signature here (all handles are
// ints), so one record serves them all.
struct Keyval {
  MPI_Comm_copy_attr_function* copy = nullptr;
  MPI_Comm_delete_attr_function* del = nullptr;
  void* extra_state = nullptr;
  Kind kind = Kind::communicator;
  bool live = false;  // false once freed: no new uses, but set values keep their callbacks
};

// Index = keyval. The predefined keyvals come first and have no entry here
// that users may change.
std::vector<Keyval>& keyvals() {
  static std::vector<Keyval> table(kFirstUserKeyval);
  return table;
}

bool is_predefined(int keyval) { return keyval >= MPI_TAG_UB && keyval <= MPI_WIN_MODEL; }
bool is_window_keyval(int keyval) { return keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL; }
bool in_table(int keyval) {
  return keyval >= kFirstUserKeyval && static_cast<std::size_t>(keyval) < keyvals().size();
}

// A keyval the program may use on an object of `kind` now.
const Keyval* live_keyval(int keyval, Kind kind) {
  if (!in_table(keyval)) return nullptr;
  const Keyval& k = keyvals()[static_cast<std::size_t>(keyval)];
  return k.live && k.kind == kind ? &k : nullptr;
}

// Values of the predefined attributes (MPI 3.1 §8.1.2): pointers to these.
int g_tag_ub = INT_MAX;
int g_host = MPI_PROC_NULL;
int g_io = MPI_ANY_SOURCE;        // every rank can do I/O
int g_wtime_is_global = 1;        // one clock (CLOCK_MONOTONIC) for every rank of a node's job
int g_universe_size = 0;
int g_appnum = 0;
int g_last_used_code = 0;

void* predefined_value(int keyval) {
  switch (keyval) {
    case MPI_TAG_UB: return &g_tag_ub;
    case MPI_HOST: return &g_host;
    case MPI_IO: return &g_io;
    case MPI_WTIME_IS_GLOBAL: return &g_wtime_is_global;
    case MPI_UNIVERSE_SIZE:
      g_universe_size = static_cast<int>(core::Runtime::instance().job().size);
      return &g_universe_size;
    case MPI_LASTUSEDCODE:
      g_last_used_code = last_used_error_code();
      return &g_last_used_code;
    default: return &g_appnum;
  }
}

// A window's predefined attributes (MPI-3.1 §11.2.6): MPI_WIN_BASE is the
// base address itself, the others point to their values.
void* window_value(Window& w, int keyval) {
  switch (keyval) {
    case MPI_WIN_BASE: return w.base;
    case MPI_WIN_SIZE: return &w.bytes;
    case MPI_WIN_DISP_UNIT: return &w.disp_unit;
    case MPI_WIN_CREATE_FLAVOR: return &w.flavor_value;
    default: return &w.model;
  }
}

// Datatypes' attributes, by handle (handles are never reused).
std::unordered_map<MPI_Datatype, AttributeSet>& type_attributes() {
  static std::unordered_map<MPI_Datatype, AttributeSet> table;
  return table;
}

// An object of one kind as the attribute calls see it: valid or not, its
// attributes, and the communicator whose handler reports its errors.
struct Object {
  Kind kind;
  int handle;

  bool valid() const {
    switch (kind) {
      case Kind::communicator: return comm_is_valid(handle);
      case Kind::datatype: return find_type(handle) != nullptr;
      default: return find_win(handle) != nullptr;
    }
  }
  std::string invalid() const {
    switch (kind) {
      case Kind::communicator: return describe_bad_comm(handle);
      case Kind::datatype: return "invalid datatype " + datatype_name(handle);
      default: return describe_bad_win(handle);
    }
  }
  int invalid_class() const {
    return kind == Kind::communicator ? MPI_ERR_COMM : kind == Kind::datatype ? MPI_ERR_TYPE : MPI_ERR_WIN;
  }
  AttributeSet& attributes() const {
    switch (kind) {
      case Kind::communicator: return comm_of(handle).attributes;
      case Kind::datatype: return type_attributes()[handle];
      default: return find_win(handle)->attributes;
    }
  }
  MPI_Comm reporter() const { return kind == Kind::communicator && comm_is_valid(handle) ? handle : MPI_COMM_WORLD; }
  int error(const char* call, int error_class, const std::string& detail) const {
    if (kind == Kind::window) return win_error(call, handle, error_class, detail);
    return comm_error(call, reporter(), error_class, detail);
  }
};

int bad_keyval(const char* call, const Object& o, int keyval) {
  std::string detail = "invalid keyval " + std::to_string(keyval);
  if (is_predefined(keyval)) {
    detail = "keyval " + std::to_string(keyval) + " is predefined and read-only";
  } else if (in_table(keyval) && keyvals()[static_cast<std::size_t>(keyval)].kind != o.kind) {
    detail = "keyval " + std::to_string(keyval) + " was made for " +
             kind_name(keyvals()[static_cast<std::size_t>(keyval)].kind) + "s, not " + kind_name(o.kind) + "s";
  } else if (in_table(keyval)) {
    detail = "keyval " + std::to_string(keyval) + " has been freed";
  }
  return o.error(call, MPI_ERR_KEYVAL, detail);
}

int create_keyval(const char* call, Kind kind, MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* del,
                  int* keyval, void* extra_state) {
  require_initialized(call);
  if (keyval == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "keyval is NULL");
  keyvals().push_back({copy, del, extra_state, kind, true});
  *keyval = static_cast<int>(keyvals().size() - 1);
  return MPI_SUCCESS;
}

// True when some object still holds a value set with `keyval`.
bool still_set(int keyval) {
  for (const auto& c : comm_table()) {
    if (c != nullptr && c->attributes.find(keyval) != nullptr) return true;
  }
  for (const auto& [type, set] : type_attributes()) {
    if (set.find(keyval) != nullptr) return true;
  }
  for (const auto& w : window_table()) {
    if (w != nullptr && w->attributes.find(keyval) != nullptr) return true;
  }
  return false;
}

// The keyvals whose delete callbacks are running, innermost last.
std::vector<int> g_deleting;

// Runs `keyval`'s delete callback on one value.
int run_delete(int handle, int keyval, void* value) {
  const Keyval k = keyvals()[static_cast<std::size_t>(keyval)];  // a copy: the callback may add keyvals
  g_deleting.push_back(keyval);
  const int rc = k.del(handle, keyval, value, k.extra_state);
  g_deleting.pop_back();
  return rc;
}

int free_keyval(const char* call, Kind kind, int* keyval) {
  require_initialized(call);
  if (keyval == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "keyval is NULL");
  // A keyval freed already while values set with it remain is still there
  // to free again (MPICH counts references the same way), and so is one
  // whose delete callback is running: a callback that frees its keyval is
  // a common idiom, also when the program freed it before. Nothing more to
  // do then.
  const bool deleting = std::find(g_deleting.begin(), g_deleting.end(), *keyval) != g_deleting.end();
  if (in_table(*keyval) && keyvals()[static_cast<std::size_t>(*keyval)].kind == kind &&
      !keyvals()[static_cast<std::size_t>(*keyval)].live && (deleting || still_set(*keyval))) {
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
  }
  if (live_keyval(*keyval, kind) == nullptr) return bad_keyval(call, Object{kind, MPI_COMM_WORLD}, *keyval);
  // Attributes still set keep working until deleted (MPI 3.1 §6.7.2): the
  // entry stays, only the keyval is closed to new uses.
  keyvals()[static_cast<std::size_t>(*keyval)].live = false;
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int set_attr(const char* call, const Object& o, int keyval, void* value) {
  require_initialized(call);
  if (!o.valid()) return comm_error(call, MPI_COMM_WORLD, o.invalid_class(), o.invalid());
  const Keyval* k = live_keyval(keyval, o.kind);
  if (k == nullptr) return bad_keyval(call, o, keyval);
  AttributeSet& set = o.attributes();
  const AttributeSet::Entry* old = set.find(keyval);
  if (old != nullptr && k->del != nullptr) {
    if (int rc = run_delete(o.handle, keyval, old->second)) {
      return o.error(call, rc, "the delete callback of the old value failed with error " + std::to_string(rc));
    }
  }
  set.set(keyval, value);
  return MPI_SUCCESS;
}

int get_attr(const char* call, const Object& o, int keyval, void* value, int* flag) {
  require_initialized(call);
  if (!o.valid()) return comm_error(call, MPI_COMM_WORLD, o.invalid_class(), o.invalid());
  if (flag == nullptr || value == nullptr) return o.error(call, MPI_ERR_ARG, "flag or value is NULL");
  if (o.kind == Kind::communicator && is_predefined(keyval) && !is_window_keyval(keyval)) {
    *static_cast<void**>(value) = predefined_value(keyval);
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (o.kind == Kind::window && is_window_keyval(keyval)) {
    *static_cast<void**>(value) = window_value(*find_win(o.handle), keyval);
    *flag = 1;
    return MPI_SUCCESS;
  }
  // A freed keyval still reads the values set with it.
  if (!in_table(keyval) || keyvals()[static_cast<std::size_t>(keyval)].kind != o.kind) return bad_keyval(call, o, keyval);
  const AttributeSet::Entry* e = o.attributes().find(keyval);
  *flag = e != nullptr ? 1 : 0;
  if (e != nullptr) *static_cast<void**>(value) = e->second;
  return MPI_SUCCESS;
}

int delete_attr(const char* call, const Object& o, int keyval) {
  require_initialized(call);
  if (!o.valid()) return comm_error(call, MPI_COMM_WORLD, o.invalid_class(), o.invalid());
  if (!in_table(keyval) || keyvals()[static_cast<std::size_t>(keyval)].kind != o.kind) return bad_keyval(call, o, keyval);
  AttributeSet& set = o.attributes();
  const AttributeSet::Entry* e = set.find(keyval);
  if (e == nullptr) return o.error(call, MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) + " has no value here");
  const Keyval& k = keyvals()[static_cast<std::size_t>(keyval)];
  if (k.del != nullptr) {
    if (int rc = run_delete(o.handle, keyval, e->second)) {
      return o.error(call, rc, "the delete callback failed with error " + std::to_string(rc));
    }
  }
  set.erase(keyval);
  return MPI_SUCCESS;
}

// Runs the copy callbacks of `from`'s attributes into `to`'s set, in the
// order they were set.
int copy_all(int from, const AttributeSet& source, AttributeSet& target) {
  for (const auto& [keyval, value] : source.in_order()) {
    const Keyval& k = keyvals()[static_cast<std::size_t>(keyval)];
    if (k.copy == nullptr) continue;
    void* copied = nullptr;
    int flag = 0;
    const int rc = k.copy(from, keyval, k.extra_state, value, &copied, &flag);
    if (rc != MPI_SUCCESS) return rc;
    if (flag) target.set(keyval, copied);
  }
  return MPI_SUCCESS;
}

// Runs the delete callbacks, the last set first; stops at a failing one.
int delete_all(int handle, AttributeSet& set) {
  while (!set.empty()) {
    // A callback may set or delete attributes: take the last one afresh each time.
    const auto [keyval, value] = set.in_order().back();
    set.erase(keyval);
    const Keyval& k = keyvals()[static_cast<std::size_t>(keyval)];
    if (k.del == nullptr) continue;
    if (const int rc = run_delete(handle, keyval, value); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace

int copy_attributes(MPI_Comm from, MPI_Comm to) {
  return copy_all(from, comm_of(from).attributes, comm_of(to).attributes);
}

int delete_attributes(MPI_Comm comm) { return delete_all(comm, comm_of(comm).attributes); }

int copy_type_attributes(MPI_Datatype from, MPI_Datatype to) {
  const auto it = type_attributes().find(from);
  if (it == type_attributes().end()) return MPI_SUCCESS;
  AttributeSet copied;
  const int rc = copy_all(from, it->second, copied);
  if (!copied.empty()) type_attributes()[to] = std::move(copied);
  return rc;
}

int delete_window_attributes(MPI_Win win) { return delete_all(win, find_win(win)->attributes); }

int delete_type_attributes(MPI_Datatype type) {
  const auto it = type_attributes().find(type);
  if (it == type_attributes().end()) return MPI_SUCCESS;
  const int rc = delete_all(type, it->second);
  if (it->second.empty()) type_attributes().erase(type);
  return rc;
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

namespace {
constexpr Object comm_object(MPI_Comm comm) { return {Kind::communicator, comm}; }
constexpr Object type_object(MPI_Datatype type) { return {Kind::datatype, type}; }
constexpr Object win_object(MPI_Win win) { return {Kind::window, win}; }
}  // namespace

extern "C" {

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                            int* keyval, void* extra_state) {
  return create_keyval("MPI_Comm_create_keyval", Kind::communicator, copy_fn, delete_fn, keyval, extra_state);
}
int PMPI_Comm_free_keyval(int* keyval) { return free_keyval("MPI_Comm_free_keyval", Kind::communicator, keyval); }
int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void* attribute_val) {
  return set_attr("MPI_Comm_set_attr", comm_object(comm), keyval, attribute_val);
}
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return get_attr("MPI_Comm_get_attr", comm_object(comm), keyval, attribute_val, flag);
}
int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  return delete_attr("MPI_Comm_delete_attr", comm_object(comm), keyval);
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn, MPI_Type_delete_attr_function* delete_fn,
                            int* keyval, void* extra_state) {
  return create_keyval("MPI_Type_create_keyval", Kind::datatype, copy_fn, delete_fn, keyval, extra_state);
}
int PMPI_Type_free_keyval(int* keyval) { return free_keyval("MPI_Type_free_keyval", Kind::datatype, keyval); }
int PMPI_Type_set_attr(MPI_Datatype type, int keyval, void* attribute_val) {
  return set_attr("MPI_Type_set_attr", type_object(type), keyval, attribute_val);
}
int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void* attribute_val, int* flag) {
  return get_attr("MPI_Type_get_attr", type_object(type), keyval, attribute_val, flag);
}
int PMPI_Type_delete_attr(MPI_Datatype type, int keyval) {
  return delete_attr("MPI_Type_delete_attr", type_object(type), keyval);
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy_fn, MPI_Win_delete_attr_function* delete_fn, int* keyval,
                           void* extra_state) {
  return create_keyval("MPI_Win_create_keyval", Kind::window, copy_fn, delete_fn, keyval, extra_state);
}
int PMPI_Win_free_keyval(int* keyval) { return free_keyval("MPI_Win_free_keyval", Kind::window, keyval); }
int PMPI_Win_set_attr(MPI_Win win, int keyval, void* attribute_val) {
  return set_attr("MPI_Win_set_attr", win_object(win), keyval, attribute_val);
}
int PMPI_Win_get_attr(MPI_Win win, int keyval, void* attribute_val, int* flag) {
  return get_attr("MPI_Win_get_attr", win_object(win), keyval, attribute_val, flag);
}
int PMPI_Win_delete_attr(MPI_Win win, int keyval) {
  return delete_attr("MPI_Win_delete_attr", win_object(win), keyval);
}

// MPI-1 names, deprecated but still called by older programs and test suites.
int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval, void* extra_state) {
  return create_keyval("MPI_Keyval_create", Kind::communicator, copy_fn, delete_fn, keyval, extra_state);
}
int PMPI_Keyval_free(int* keyval) { return free_keyval("MPI_Keyval_free", Kind::communicator, keyval); }
int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return get_attr("MPI_Attr_get", comm_object(comm), keyval, attribute_val, flag);
}
int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return set_attr("MPI_Attr_put", comm_object(comm), keyval, attribute_val);
}
int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return delete_attr("MPI_Attr_delete", comm_object(comm), keyval); }

// The predefined callbacks: copy nothing, copy the value, delete nothing.
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
// library may replace (MPI-3.1 §14.2). The callbacks of the other kinds and
// of MPI-1 are the same functions under their names.
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
#pragma weak MPI_Keyval_create = PMPI_Keyval_create
#pragma weak MPI_Keyval_free = PMPI_Keyval_free
#pragma weak MPI_Attr_get = PMPI_Attr_get
#pragma weak MPI_Attr_put = PMPI_Attr_put
#pragma weak MPI_Attr_delete = PMPI_Attr_delete
#pragma weak MPI_COMM_NULL_COPY_FN = PMPI_COMM_NULL_COPY_FN
#pragma weak MPI_COMM_DUP_FN = PMPI_COMM_DUP_FN
#pragma weak MPI_COMM_NULL_DELETE_FN = PMPI_COMM_NULL_DELETE_FN

}  // extern "C"
