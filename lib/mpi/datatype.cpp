#include "mpi/datatype.hpp"

#include <complex.h>
#include <cstdint>
#include <cwchar>

#include "mpi/errors.hpp"

namespace mpf::mpi {
namespace {

struct Predefined {
  const char* name;
  std::size_t size;
};

struct FloatInt { float v; int i; };
struct DoubleInt { double v; int i; };
struct LongInt { long v; int i; };
struct ShortInt { short v; int i; };
struct LongDoubleInt { long double v; int i; };

// Indexed by handle (mpi.h); entry 0 is MPI_DATATYPE_NULL.
constexpr Predefined kPredefined[] = {
    {"MPI_DATATYPE_NULL", 0},
    {"MPI_CHAR", sizeof(char)},
    {"MPI_SIGNED_CHAR", sizeof(signed char)},
    {"MPI_UNSIGNED_CHAR", sizeof(unsigned char)},
    {"MPI_BYTE", 1},
    {"MPI_WCHAR", sizeof(wchar_t)},
    {"MPI_SHORT", sizeof(short)},
    {"MPI_UNSIGNED_SHORT", sizeof(unsigned short)},
    {"MPI_INT", sizeof(int)},
    {"MPI_UNSIGNED", sizeof(unsigned)},
    {"MPI_LONG", sizeof(long)},
    {"MPI_UNSIGNED_LONG", sizeof(unsigned long)},
    {"MPI_LONG_LONG_INT", sizeof(long long)},
    {"MPI_UNSIGNED_LONG_LONG", sizeof(unsigned long long)},
    {"MPI_FLOAT", sizeof(float)},
    {"MPI_DOUBLE", sizeof(double)},
    {"MPI_LONG_DOUBLE", sizeof(long double)},
    {"MPI_INT8_T", sizeof(std::int8_t)},
    {"MPI_INT16_T", sizeof(std::int16_t)},
    {"MPI_INT32_T", sizeof(std::int32_t)},
    {"MPI_INT64_T", sizeof(std::int64_t)},
    {"MPI_UINT8_T", sizeof(std::uint8_t)},
    {"MPI_UINT16_T", sizeof(std::uint16_t)},
    {"MPI_UINT32_T", sizeof(std::uint32_t)},
    {"MPI_UINT64_T", sizeof(std::uint64_t)},
    {"MPI_C_BOOL", sizeof(bool)},
    {"MPI_C_FLOAT_COMPLEX", 2 * sizeof(float)},
    {"MPI_C_DOUBLE_COMPLEX", 2 * sizeof(double)},
    {"MPI_C_LONG_DOUBLE_COMPLEX", 2 * sizeof(long double)},
    {"MPI_AINT", sizeof(MPI_Aint)},
    {"MPI_OFFSET", sizeof(MPI_Offset)},
    {"MPI_COUNT", sizeof(MPI_Count)},
    {"MPI_PACKED", 1},
    {"MPI_FLOAT_INT", sizeof(FloatInt)},
    {"MPI_DOUBLE_INT", sizeof(DoubleInt)},
    {"MPI_LONG_INT", sizeof(LongInt)},
    {"MPI_2INT", 2 * sizeof(int)},
    {"MPI_SHORT_INT", sizeof(ShortInt)},
    {"MPI_LONG_DOUBLE_INT", sizeof(LongDoubleInt)},
};
static_assert(sizeof(kPredefined) / sizeof(kPredefined[0]) == MPI_LONG_DOUBLE_INT + 1,
              "one entry per predefined datatype handle in mpi.h");

}  // namespace

std::optional<std::size_t> datatype_size(MPI_Datatype datatype) {
  if (datatype <= MPI_DATATYPE_NULL || datatype > MPI_LONG_DOUBLE_INT) return std::nullopt;
  return kPredefined[datatype].size;
}

std::string datatype_name(MPI_Datatype datatype) {
  if (datatype < 0 || datatype > MPI_LONG_DOUBLE_INT) return "datatype " + std::to_string(datatype);
  return kPredefined[datatype].name;
}

}  // namespace mpf::mpi

extern "C" int MPI_Type_size(MPI_Datatype datatype, int* size) {
  const auto bytes = mpf::mpi::datatype_size(datatype);
  if (!bytes) {
    return mpf::mpi::comm_error("MPI_Type_size", MPI_COMM_WORLD, MPI_ERR_TYPE,
                                "invalid datatype " + mpf::mpi::datatype_name(datatype));
  }
  *size = static_cast<int>(*bytes);
  return MPI_SUCCESS;
}
