// Datatypes as the data path sees them (MPI 3.1 §4.1): every handle, the
// predefined ones included, names a TypeInfo whose layout is flattened once,
// when the type is built, into blocks of bytes — each a run of `count`
// equal pieces `stride` apart — so that contiguous and strided layouts move
// with straight copies and no per-element interpretation (seed 002 §3.2:
// contiguous, strided and irregular classes). A type whose data is one
// block from its start (`contiguous`) is used in place; any other is packed
// into (or unpacked from) a staging buffer around the transfer.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coll/combine.hpp"

namespace mpf::mpi {

// Fortran REAL*16 (MPI_REAL16, and the parts of MPI_COMPLEX32): IEEE
// quadruple precision, as gfortran's REAL(16), the type the reductions
// combine it as.
using Quad = mpf::coll::Quad;

struct Block {
  std::int64_t offset;       // of the first piece, from the element's start (may be negative)
  std::uint64_t bytes;       // of each piece
  std::uint64_t count;       // pieces
  std::int64_t stride;       // between pieces
  std::uint32_t basic_size;  // size of the basic elements the piece holds (for MPI_Get_elements)
  std::uint32_t swap;        // external32: size of the scalars to byte-swap, or a kExternal* code
};

// Block::swap codes for scalars whose external32 form (MPI 3.1 §13.5.2)
// differs from the native one in more than byte order (pack.cpp converts).
inline constexpr std::uint32_t kExternalLong = 0x100;          // 8-byte long <-> 4-byte two's complement
inline constexpr std::uint32_t kExternalUnsignedLong = 0x101;  // 8-byte unsigned long <-> 4 bytes
inline constexpr std::uint32_t kExternalLongDouble = 0x102;    // x87 extended (16 bytes) <-> IEEE binary128

struct TypeInfo;

// A datatype argument of a constructor, kept as MPI_Type_get_contents must
// return it (MPI 3.1 §4.1.13): a predefined type by its handle, which the
// program gets back as it was; a derived one by value, since the program may
// free its handle (§4.1.9: arguments behave as if passed by value).
struct TypeArgument {
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  std::shared_ptr<const TypeInfo> type;  // null for a predefined type
};

// How a type was built, for MPI_Type_get_envelope and MPI_Type_get_contents:
// the constructor's combiner and its arguments in the order those calls
// return them (integers, addresses, large counts, datatypes). Written once,
// by the constructor; the named predefined types keep the default.
// `large_counts` is filled only by a large-count constructor (MPI_Type_*_c,
// large_count.cpp) given a count above INT_MAX: it then holds every count,
// block length, stride and displacement of the call, in the MPI-4.0 order,
// and only the _c decoding calls can return the recipe.
struct Recipe {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> integers;
  std::vector<MPI_Aint> addresses;
  std::vector<TypeArgument> types;
  std::vector<MPI_Count> large_counts = {};  // last: the constructors' {combiner, ints, addresses, types} stay valid
};

struct TypeInfo {
  std::string name;             // MPI_Type_set_name, or the predefined name
  std::uint64_t size = 0;       // data bytes of one element
  std::int64_t lb = 0, ub = 0;  // extent = ub - lb
  std::int64_t true_lb = 0, true_ub = 0;
  std::uint32_t alignment = 1;  // the largest basic alignment inside (struct padding)
  std::vector<Block> blocks;    // one element's data, in typemap order
  MPI_Datatype basic = MPI_DATATYPE_NULL;  // the one predefined type all data is made of, if any
  std::uint64_t basic_count = 0;           // such elements per element (0 when mixed)
  // Predefined: cannot be freed, needs no commit. The named ones (handles
  // below kFirstDerivedType) and the unnamed ones MPI_Type_create_f90_*
  // returns, which decode as MPI_COMBINER_F90_* and have `basic` set to the
  // sized type (MPI_REAL8, ...) whose data and operations they share.
  bool predefined = false;
  bool committed = false;
  bool contiguous = false;      // one block at offset 0 and extent == size: usable in place
  // Type signature for the datatype_check tunable (seed 002 §5): the basic
  // type when there is one (0 for MPI_BYTE and MPI_PACKED, which match any
  // data), else 0x8000 and a hash of one element's layout.
  std::uint16_t signature = 0;
  Recipe recipe;

  std::int64_t extent() const { return ub - lb; }
};

// The types by handle: index = handle, null entries are free or unused.
// Constant-initialised (empty); the predefined types go in at first use.
extern std::vector<std::shared_ptr<TypeInfo>> g_types;
void add_predefined_types();
inline std::vector<std::shared_ptr<TypeInfo>>& type_table() {
  if (g_types.empty()) [[unlikely]] add_predefined_types();
  return g_types;
}
// The type a handle names, or null for MPI_DATATYPE_NULL and bad handles.
inline const TypeInfo* find_type(MPI_Datatype datatype) {
  auto& t = type_table();
  return datatype > 0 && static_cast<std::size_t>(datatype) < t.size() ? t[static_cast<std::size_t>(datatype)].get()
                                                                         : nullptr;
}
// The type a handle names, kept alive for an operation in flight even if
// the program frees the handle (MPI_Type_free); null for bad handles.
std::shared_ptr<const TypeInfo> share_type(MPI_Datatype datatype);
// The type a handle names if it can carry data (valid and committed), else
// null; datatype_problem() then says why. No string on the data path.
inline const TypeInfo* usable_type(MPI_Datatype datatype) {
  const TypeInfo* t = find_type(datatype);
  return t != nullptr && t->committed ? t : nullptr;
}
// Size in bytes of one element of a usable type (valid and, if derived,
// committed), or nothing.
std::optional<std::size_t> datatype_size(MPI_Datatype datatype);
// "MPI_INT", "derived datatype 70", or "datatype 77".
std::string datatype_name(MPI_Datatype datatype);
// Why `datatype` cannot carry data ("invalid datatype 77", "datatype 70 is
// not committed"), or empty.
std::string datatype_problem(MPI_Datatype datatype);

// The datatype_check tunable, read at MPI_Init.
extern bool g_check_signatures;
// The signature an operation with `type` carries: 0 unless the
// datatype_check tunable is on.
inline std::uint16_t checked_signature(const TypeInfo& type) { return g_check_signatures ? type.signature : 0; }

// Calls copy(at, bytes) for each piece of `count` elements in layout order,
// `at` being the piece's byte offset from the buffer's start; stops once
// `limit` bytes have been visited (the last piece may be cut short).
template <class Copy>
void for_each_piece(const TypeInfo& type, std::uint64_t count, std::uint64_t limit, Copy&& copy) {
  std::uint64_t done = 0;
  for (std::uint64_t e = 0; e < count && done < limit; ++e) {
    const std::int64_t base = static_cast<std::int64_t>(e) * type.extent();
    for (const Block& b : type.blocks) {
      for (std::uint64_t k = 0; k < b.count && done < limit; ++k) {
        const std::uint64_t n = std::min(b.bytes, limit - done);
        copy(base + b.offset + static_cast<std::int64_t>(k) * b.stride, n);
        done += n;
      }
    }
  }
}

// The same, with pieces that follow one another in memory merged into one
// run (a contiguous type is one run; MPI_BYTE's pieces are single bytes).
template <class Run>
void for_each_run(const TypeInfo& type, std::uint64_t count, std::uint64_t limit, Run&& run) {
  if (type.contiguous) {
    const std::uint64_t bytes = std::min(count * type.size, limit);
    if (bytes > 0) run(std::int64_t{0}, bytes);
    return;
  }
  std::int64_t start = 0;
  std::uint64_t length = 0;
  for_each_piece(type, count, limit, [&](std::int64_t at, std::uint64_t n) {
    if (length > 0 && at == start + static_cast<std::int64_t>(length)) {
      length += n;
      return;
    }
    if (length > 0) run(start, length);
    start = at;
    length = n;
  });
  if (length > 0) run(start, length);
}

// Packs `count` elements at `buf` into `out` (count * size bytes).
void pack(const TypeInfo& type, const void* buf, std::uint64_t count, std::byte* out);
// Unpacks `bytes` packed bytes (whole and partial elements) into `buf`.
void unpack(const TypeInfo& type, const std::byte* in, std::uint64_t bytes, void* buf);
// Basic elements in `bytes` packed bytes of `type` (MPI_Get_elements).
std::uint64_t basic_elements(const TypeInfo& type, std::uint64_t bytes);

// Data of `count` elements of `type` as contiguous bytes: `buf` itself when
// the type is contiguous, else a packed copy kept in `staging`.
const std::byte* contiguous_source(const TypeInfo& type, const void* buf, std::uint64_t count,
                                   std::vector<std::byte>& staging);

}  // namespace mpf::mpi
