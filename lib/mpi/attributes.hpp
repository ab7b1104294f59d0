// Attributes of communicators, datatypes and windows and their keyvals
// (MPI 3.1 §6.7), including the predefined MPI_TAG_UB, MPI_HOST, MPI_IO,
// MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM and MPI_LASTUSEDCODE,
// and the windows' MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR, _MODEL.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace mpf::mpi {

// One object's attributes, in the order they were set: MPI_Finalize runs
// MPI_COMM_SELF's delete callbacks in the reverse of that order (MPI-3.1
// §8.7.1), and so does every free here. Few per object: a vector.
class AttributeSet {
 public:
  using Entry = std::pair<int, void*>;  // keyval, value
  const Entry* find(int keyval) const {
    const auto it = std::find_if(values_.begin(), values_.end(), [keyval](const Entry& e) { return e.first == keyval; });
    return it != values_.end() ? &*it : nullptr;
  }
  // A new value goes last, even when it replaces one.
  void set(int keyval, void* value) {
    erase(keyval);
    values_.emplace_back(keyval, value);
  }
  void erase(int keyval) {
    std::erase_if(values_, [keyval](const Entry& e) { return e.first == keyval; });
  }
  const std::vector<Entry>& in_order() const { return values_; }
  bool empty() const { return values_.empty(); }

 private:
  std::vector<Entry> values_;
};

// Keyvals below this are the predefined ones (MPI_TAG_UB .. MPI_WIN_MODEL).
inline constexpr int kFirstUserKeyval = 16;

// MPI_Comm_dup: runs each attribute's copy callback from `from` to `to`.
// Returns MPI_SUCCESS or the failing callback's code.
int copy_attributes(MPI_Comm from, MPI_Comm to);
// MPI_Type_dup: the same for a datatype's attributes.
int copy_type_attributes(MPI_Datatype from, MPI_Datatype to);
// MPI_Type_free: runs the delete callbacks of a datatype's attributes, the
// last set first, and forgets them.
int delete_type_attributes(MPI_Datatype type);
// MPI_Comm_free, MPI_Finalize on MPI_COMM_SELF: runs each attribute's
// delete callback, the last set first, and removes the attribute. Stops at
// a callback that fails (returns its code); those before are gone.
int delete_attributes(MPI_Comm comm);
// MPI_Win_free: the same for a window's attributes.
int delete_window_attributes(MPI_Win win);

}  // namespace mpf::mpi
