// The large-count forms (MPI-4.0 §2.5.8: the "_c" functions, whose counts
// are MPI_Count) over the int forms: what large_count.cpp (point-to-point,
// statuses, the attached buffer, datatypes, packing) and
// large_count_coll.cpp (collectives, neighbourhood collectives, reductions)
// share.
//
// The rule every _c function follows: a count that fits an int goes to the
// int form as it is (a negative one too, which the int form reports). A
// larger one is served where the int form can carry it:
//   - a single (count, datatype) buffer becomes one element of a derived
//     type that lays the count elements out as they are (Counted below);
//     the int forms move such a type in place when it is contiguous;
//   - a blocking reduction runs in pieces of at most INT_MAX elements;
//   - what the int form cannot carry (an array of counts or displacements
//     with an entry above INT_MAX, a nonblocking reduction of more than
//     INT_MAX elements) is refused with MPI_ERR_COUNT, naming the argument
//     and the limit. Nothing is truncated.
// Errors the int form finds name the int call (MPI_Send for MPI_Send_c);
// those found here name the _c call.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mpf::mpi::large {

static_assert(sizeof(MPI_Count) == sizeof(MPI_Aint), "a large count is an address-sized integer here");

// True when the int form can take `n` as it is.
inline bool int_sized(MPI_Count n) { return n >= INT_MIN && n <= INT_MAX; }

// `count` elements of `datatype` as the int forms take them: the same pair
// when the count fits an int, else one element of a derived type built
// with the 64-bit count (a contiguous type: its extent is count extents of
// `datatype`, so consecutive ones sit where the elements would). The
// derived type is freed when this goes away: the int forms keep what a
// started operation needs of a type (MPI_Type_free's rules), so that is
// safe as soon as a nonblocking or persistent call has returned.
class Counted {
 public:
  Counted() = default;
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  ~Counted();

  // MPI_SUCCESS, or the error class after `comm`'s handler returned (the
  // call's: MPI_COMM_WORLD's for calls without a communicator). A count
  // above INT_MAX needs a valid committed datatype whose element is one
  // contiguous block (a basic type, or a contiguous or resized one): of
  // any other the derived type would flatten into more blocks than memory
  // holds, and the count is refused (MPI_ERR_COUNT). `what` names the
  // buffer in messages ("send ", "receive ", or ""). An invalid
  // communicator is left to the int form to report.
  int describe(const char* call, MPI_Comm comm, const char* what, const void* buf, MPI_Count count,
               MPI_Datatype datatype);
  // The same for an argument the call ignores at this rank (a Gather's
  // receive buffer away from the root): passed on as it is, or as a count
  // of 0 when it does not fit an int.
  void ignore(MPI_Count count, MPI_Datatype datatype) {
    count_ = int_sized(count) ? static_cast<int>(count) : 0;
    type_ = datatype;
  }

  int count() const { return count_; }
  MPI_Datatype type() const { return type_; }

 private:
  int count_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Datatype made_ = MPI_DATATYPE_NULL;  // the derived type this made, if any
};

// An array of `n` counts or displacements (`what`: "recvcounts",
// "sdispls") as the ints an int form takes: MPI_SUCCESS with `out`
// filled, or MPI_ERR_COUNT (through comm's handler) naming the first entry
// outside the int range. A null array stays null (`*data` is null), for
// the int form to report if it needed one.
template <class T>
int narrow(const char* call, MPI_Comm comm, const char* what, const T* in, std::size_t n, std::vector<int>& out,
           const int** data);

// Reports that `what` = `value` is above INT_MAX where the int form has
// no room for it; `detail` says which calls or why ("the v-collectives'
// counts and displacements are ints here").
int too_large(const char* call, MPI_Comm comm, const std::string& what, MPI_Count value, const char* detail);

}  // namespace mpf::mpi::large
