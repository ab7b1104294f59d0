// The datatype table, the predefined types, and the copy engine that packs
// and unpacks flattened layouts.
#include "mpi/datatype.hpp"

#include <algorithm>
#include <complex.h>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cwchar>
#include <memory>

#include "core/runtime.hpp"
#include "mpi/datatype_table.hpp"
#include "mpi/errors.hpp"

namespace mpf::mpi {
namespace {

struct FloatInt { float v; int i; };
struct DoubleInt { double v; int i; };
struct LongInt { long v; int i; };
struct ShortInt { short v; int i; };
struct LongDoubleInt { long double v; int i; };
struct TwoInt { int v; int i; };

struct Predefined {
  const char* name;
  std::uint32_t size;
  std::uint32_t alignment;
  std::uint32_t swap;  // external32: the scalar size to byte-swap, or a kExternal* code (datatype.hpp)
  // (value, index) pairs: the value's size and where the int is; their
  // size is the two parts', their extent the C struct's (MPI-3.1 §5.9.4).
  std::uint32_t pair_value = 0;
  std::uint32_t pair_index_at = 0;
  // The size of the basic elements one element holds, when it holds more
  // than one (the Fortran pairs: MPI_Get_elements counts two); 0: one.
  std::uint32_t element = 0;
};

// The external32 code of a scalar: its size, when only byte order differs.
constexpr std::uint32_t kLongSwap = sizeof(long) == 4 ? 4 : kExternalLong;
constexpr std::uint32_t kUnsignedLongSwap = sizeof(unsigned long) == 4 ? 4 : kExternalUnsignedLong;
constexpr std::uint32_t kLongDoubleSwap = __LDBL_MANT_DIG__ == 64 ? kExternalLongDouble : sizeof(long double);
static_assert(__LDBL_MANT_DIG__ == 64 || __LDBL_MANT_DIG__ == 113, "long double is x87 extended or IEEE quad");

template <class Pair>
constexpr Predefined pair_type(const char* name, std::uint32_t value_swap) {
  return {name, sizeof(Pair), alignof(Pair), value_swap, sizeof(Pair::v), offsetof(Pair, i)};
}

// The Fortran pairs (MPI_2REAL, ...): two values of one type, index second,
// so they are one run of scalars like an array of two.
template <class V>
constexpr Predefined twin_type(const char* name) {
  return {name, 2 * sizeof(V), alignof(V), sizeof(V), 0, 0, sizeof(V)};
}

// Indexed by handle (mpi.h); entry 0 is MPI_DATATYPE_NULL.
constexpr Predefined kPredefined[] = {
    {"MPI_DATATYPE_NULL", 0, 1, 0},
    {"MPI_CHAR", sizeof(char), 1, 1},
    {"MPI_SIGNED_CHAR", sizeof(signed char), 1, 1},
    {"MPI_UNSIGNED_CHAR", sizeof(unsigned char), 1, 1},
    {"MPI_BYTE", 1, 1, 1},
    {"MPI_WCHAR", sizeof(wchar_t), alignof(wchar_t), sizeof(wchar_t)},
    {"MPI_SHORT", sizeof(short), alignof(short), sizeof(short)},
    {"MPI_UNSIGNED_SHORT", sizeof(unsigned short), alignof(unsigned short), sizeof(unsigned short)},
    {"MPI_INT", sizeof(int), alignof(int), sizeof(int)},
    {"MPI_UNSIGNED", sizeof(unsigned), alignof(unsigned), sizeof(unsigned)},
    // external32 longs are 4 bytes.
    {"MPI_LONG", sizeof(long), alignof(long), kLongSwap},
    {"MPI_UNSIGNED_LONG", sizeof(unsigned long), alignof(unsigned long), kUnsignedLongSwap},
    {"MPI_LONG_LONG_INT", sizeof(long long), alignof(long long), sizeof(long long)},
    {"MPI_UNSIGNED_LONG_LONG", sizeof(unsigned long long), alignof(unsigned long long), sizeof(unsigned long long)},
    {"MPI_FLOAT", sizeof(float), alignof(float), sizeof(float)},
    {"MPI_DOUBLE", sizeof(double), alignof(double), sizeof(double)},
    {"MPI_LONG_DOUBLE", sizeof(long double), alignof(long double), kLongDoubleSwap},
    {"MPI_INT8_T", 1, 1, 1},
    {"MPI_INT16_T", 2, 2, 2},
    {"MPI_INT32_T", 4, 4, 4},
    {"MPI_INT64_T", 8, 8, 8},
    {"MPI_UINT8_T", 1, 1, 1},
    {"MPI_UINT16_T", 2, 2, 2},
    {"MPI_UINT32_T", 4, 4, 4},
    {"MPI_UINT64_T", 8, 8, 8},
    {"MPI_C_BOOL", sizeof(bool), alignof(bool), 1},
    {"MPI_C_FLOAT_COMPLEX", 2 * sizeof(float), alignof(float), sizeof(float)},
    {"MPI_C_DOUBLE_COMPLEX", 2 * sizeof(double), alignof(double), sizeof(double)},
    {"MPI_C_LONG_DOUBLE_COMPLEX", 2 * sizeof(long double), alignof(long double), kLongDoubleSwap},
    {"MPI_AINT", sizeof(MPI_Aint), alignof(MPI_Aint), sizeof(MPI_Aint)},
    {"MPI_OFFSET", sizeof(MPI_Offset), alignof(MPI_Offset), sizeof(MPI_Offset)},
    {"MPI_COUNT", sizeof(MPI_Count), alignof(MPI_Count), sizeof(MPI_Count)},
    {"MPI_PACKED", 1, 1, 1},
    pair_type<FloatInt>("MPI_FLOAT_INT", sizeof(float)),
    pair_type<DoubleInt>("MPI_DOUBLE_INT", sizeof(double)),
    pair_type<LongInt>("MPI_LONG_INT", kLongSwap),
    pair_type<TwoInt>("MPI_2INT", sizeof(int)),
    pair_type<ShortInt>("MPI_SHORT_INT", sizeof(short)),
    pair_type<LongDoubleInt>("MPI_LONG_DOUBLE_INT", kLongDoubleSwap),
    // Fortran: INTEGER and LOGICAL are C ints, REAL float, DOUBLE PRECISION
    // double, as gfortran has them.
    {"MPI_INTEGER", sizeof(int), alignof(int), sizeof(int)},
    {"MPI_REAL", sizeof(float), alignof(float), sizeof(float)},
    {"MPI_DOUBLE_PRECISION", sizeof(double), alignof(double), sizeof(double)},
    {"MPI_COMPLEX", 2 * sizeof(float), alignof(float), sizeof(float)},
    {"MPI_DOUBLE_COMPLEX", 2 * sizeof(double), alignof(double), sizeof(double)},
    {"MPI_LOGICAL", sizeof(int), alignof(int), sizeof(int)},
    {"MPI_CHARACTER", 1, 1, 1},
    twin_type<float>("MPI_2REAL"),
    twin_type<double>("MPI_2DOUBLE_PRECISION"),
    twin_type<int>("MPI_2INTEGER"),
    {"MPI_INTEGER1", 1, 1, 1},
    {"MPI_INTEGER2", 2, 2, 2},
    {"MPI_INTEGER4", 4, 4, 4},
    {"MPI_INTEGER8", 8, 8, 8},
    {"MPI_REAL4", sizeof(float), alignof(float), sizeof(float)},
    {"MPI_REAL8", sizeof(double), alignof(double), sizeof(double)},
    {"MPI_REAL16", sizeof(Quad), alignof(Quad), sizeof(Quad)},
    {"MPI_COMPLEX8", 2 * sizeof(float), alignof(float), sizeof(float)},
    {"MPI_COMPLEX16", 2 * sizeof(double), alignof(double), sizeof(double)},
    {"MPI_COMPLEX32", 2 * sizeof(Quad), alignof(Quad), sizeof(Quad)},
    // C++: bool and std::complex, laid out as C's bool and _Complex.
    {"MPI_CXX_BOOL", sizeof(bool), alignof(bool), 1},
    {"MPI_CXX_FLOAT_COMPLEX", 2 * sizeof(float), alignof(float), sizeof(float)},
    {"MPI_CXX_DOUBLE_COMPLEX", 2 * sizeof(double), alignof(double), sizeof(double)},
    {"MPI_CXX_LONG_DOUBLE_COMPLEX", 2 * sizeof(long double), alignof(long double), kLongDoubleSwap},
};
constexpr MPI_Datatype kLastPredefined = MPI_CXX_LONG_DOUBLE_COMPLEX;
static_assert(sizeof(kPredefined) / sizeof(kPredefined[0]) == kLastPredefined + 1,
              "one entry per predefined datatype handle in mpi.h");
static_assert(kLastPredefined < kFirstDerivedType, "the named predefined handles must stay below the derived ones");
static_assert(sizeof(Quad) == 16 && sizeof(float) == 4 && sizeof(double) == 8 && sizeof(int) == 4,
              "the Fortran sized types (MPI_REAL4, ...) are these C types");

void fill_predefined(std::vector<std::shared_ptr<TypeInfo>>& t) {
  t.resize(kFirstDerivedType);
  for (MPI_Datatype h = 1; h <= kLastPredefined; ++h) {
    const Predefined& p = kPredefined[h];
    auto info = std::make_shared<TypeInfo>();
    info->name = p.name;
    info->ub = p.size;
    info->alignment = p.alignment;
    if (p.pair_value == 0) {
      info->size = info->true_ub = p.size;
      info->blocks = {{0, p.size, 1, p.size, p.element != 0 ? p.element : p.size, p.swap}};
    } else {
      // The value, then the int: one block when both are 4-byte scalars.
      info->size = p.pair_value + sizeof(int);
      info->true_ub = p.pair_index_at + sizeof(int);
      const auto scalar = static_cast<std::uint32_t>(sizeof(int));
      if (p.pair_value == scalar) {  // float or int values: 4-byte scalars, external32 too
        info->blocks = {{0, info->size, 1, static_cast<std::int64_t>(info->size), scalar, scalar}};
      } else {
        info->blocks = {{0, p.pair_value, 1, p.pair_value, p.pair_value, p.swap},
                        {p.pair_index_at, scalar, 1, scalar, scalar, scalar}};
      }
    }
    info->basic = h;
    info->basic_count = 1;
    info->predefined = info->committed = true;
    info->contiguous = info->blocks.size() == 1 && info->size == p.size;
    info->signature = h == MPI_BYTE || h == MPI_PACKED ? 0 : static_cast<std::uint16_t>(h);
    t[static_cast<std::size_t>(h)] = std::move(info);
  }
}

}  // namespace

constinit std::vector<std::shared_ptr<TypeInfo>> g_types;
bool g_check_signatures = false;

void add_predefined_types() { fill_predefined(g_types); }

std::shared_ptr<const TypeInfo> share_type(MPI_Datatype datatype) {
  return find_type(datatype) != nullptr ? type_table()[static_cast<std::size_t>(datatype)] : nullptr;
}

std::optional<std::size_t> datatype_size(MPI_Datatype datatype) {
  const TypeInfo* t = usable_type(datatype);
  if (t == nullptr) return std::nullopt;
  return t->size;
}

std::string datatype_name(MPI_Datatype datatype) {
  const TypeInfo* t = find_type(datatype);
  if (t != nullptr && t->predefined) return t->name;
  if (t != nullptr) return t->name.empty() ? "derived datatype " + std::to_string(datatype) : t->name;
  return datatype == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "datatype " + std::to_string(datatype);
}

std::string datatype_problem(MPI_Datatype datatype) {
  const TypeInfo* t = find_type(datatype);
  if (t == nullptr) return "invalid datatype " + datatype_name(datatype);
  if (!t->committed) return datatype_name(datatype) + " is not committed (call MPI_Type_commit first)";
  return {};
}

void pack(const TypeInfo& type, const void* buf, std::uint64_t count, std::byte* out) {
  const auto* base = static_cast<const std::byte*>(buf);
  if (type.contiguous) {
    if (count > 0) std::memcpy(out, base, count * type.size);
    return;
  }
  for_each_piece(type, count, count * type.size, [&](std::int64_t at, std::uint64_t n) {
    std::memcpy(out, base + at, n);
    out += n;
  });
}

void unpack(const TypeInfo& type, const std::byte* in, std::uint64_t bytes, void* buf) {
  auto* base = static_cast<std::byte*>(buf);
  if (type.contiguous) {
    if (bytes > 0) std::memcpy(base, in, bytes);
    return;
  }
  const std::uint64_t count = type.size == 0 ? 0 : (bytes + type.size - 1) / type.size;
  for_each_piece(type, count, bytes, [&](std::int64_t at, std::uint64_t n) {
    std::memcpy(base + at, in, n);
    in += n;
  });
}

std::uint64_t basic_elements(const TypeInfo& type, std::uint64_t bytes) {
  if (type.size == 0) return 0;
  std::uint64_t per_element = 0;
  for (const Block& b : type.blocks) per_element += b.count * (b.bytes / std::max<std::uint32_t>(b.basic_size, 1));
  std::uint64_t elements = bytes / type.size * per_element;
  std::uint64_t rest = bytes % type.size;
  for (const Block& b : type.blocks) {
    for (std::uint64_t k = 0; k < b.count && rest > 0; ++k) {
      const std::uint64_t n = std::min(b.bytes, rest);
      elements += n / std::max<std::uint32_t>(b.basic_size, 1);
      rest -= n;
    }
  }
  return elements;
}

const std::byte* contiguous_source(const TypeInfo& type, const void* buf, std::uint64_t count,
                                   std::vector<std::byte>& staging) {
  if (type.contiguous) return static_cast<const std::byte*>(buf);
  staging.resize(count * type.size);
  pack(type, buf, count, staging.data());
  return staging.data();
}

}  // namespace mpf::mpi
