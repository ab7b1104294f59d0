// MPI_Pack, MPI_Unpack and their external32 forms (MPI 3.1 §4.2, §13.5.2):
// the packed form is the type's data in typemap order; external32 is the
// same with every scalar big-endian, longs in 4 bytes and long doubles as
// binary128.
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"

using namespace mpf::mpi;

namespace {

int check(const char* call, MPI_Comm comm, int count, MPI_Datatype datatype, const TypeInfo** type) {
  require_initialized(call);
  if (!comm_is_valid(comm)) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (count < 0) return comm_error(call, comm, MPI_ERR_COUNT, "negative count " + std::to_string(count));
  const std::string problem = datatype_problem(datatype);
  if (!problem.empty()) return comm_error(call, comm, MPI_ERR_TYPE, problem);
  *type = find_type(datatype);
  return MPI_SUCCESS;
}

int no_room(const char* call, MPI_Comm comm, std::uint64_t need, std::int64_t have) {
  return comm_error(call, comm, MPI_ERR_TRUNCATE,
                    "needs " + std::to_string(need) + " bytes but the packed buffer has " + std::to_string(have) +
                        " left");
}

// ---- external32 (MPI 3.1 §13.5.2) ------------------------------------------
//
// The packed form with every scalar big-endian, longs in 4 bytes and long
// doubles as IEEE binary128. Block::swap says what each block's scalars are:
// a size (only the byte order differs) or a kExternal* code.

static_assert(std::endian::native == std::endian::little, "external32 conversion reverses bytes");

std::uint32_t native_scalar(std::uint32_t code) {
  if (code == kExternalLong || code == kExternalUnsignedLong) return 8;
  return code == kExternalLongDouble ? 16 : code;
}
std::uint32_t external_scalar(std::uint32_t code) {
  return code == kExternalLong || code == kExternalUnsignedLong ? 4 : native_scalar(code);
}

// external32 bytes of one element of `type`; 0 with *ok false when a part
// has no external32 form.
std::uint64_t external_size(const TypeInfo& type, bool* ok) {
  std::uint64_t bytes = 0;
  *ok = true;
  for (const Block& b : type.blocks) {
    if (b.swap == 0) {
      *ok = false;
      return 0;
    }
    bytes += b.count * (b.bytes / native_scalar(b.swap)) * external_scalar(b.swap);
  }
  return bytes;
}

void put_big_endian(std::byte* out, std::uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) out[i] = static_cast<std::byte>(value >> (8 * (bytes - 1 - i)));
}
std::uint64_t get_big_endian(const std::byte* in, unsigned bytes) {
  std::uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i) value = (value << 8) | static_cast<std::uint64_t>(in[i]);
  return value;
}

// x87 extended precision (a 64-bit significand with its integer bit, then
// sign and a 15-bit exponent) and binary128 (sign, the same 15-bit
// exponent and bias, a 112-bit fraction without the integer bit).
void extended_to_quad(const std::byte* native, std::byte* out) {
  std::uint64_t significand = 0;
  std::uint16_t sign_exponent = 0;
  std::memcpy(&significand, native, 8);
  std::memcpy(&sign_exponent, native + 8, 2);
  const std::uint64_t fraction = significand & 0x7fffffffffffffffull;  // 63 bits, the top of the 112
  put_big_endian(out, (std::uint64_t{sign_exponent} << 48) | (fraction >> 15), 8);
  put_big_endian(out + 8, fraction << 49, 8);
}

void quad_to_extended(const std::byte* in, std::byte* native) {
  const std::uint64_t high = get_big_endian(in, 8), low = get_big_endian(in + 8, 8);
  std::uint16_t sign_exponent = static_cast<std::uint16_t>(high >> 48);
  const std::uint32_t exponent = sign_exponent & 0x7fffu;
  std::uint64_t fraction = ((high & 0xffffffffffffull) << 15) | (low >> 49);
  const std::uint64_t rest = low & ((std::uint64_t{1} << 49) - 1), half = std::uint64_t{1} << 48;
  if (exponent == 0x7fff) {
    if (fraction == 0 && rest != 0) fraction = std::uint64_t{1} << 62;  // a NaN stays a NaN
  } else if (rest > half || (rest == half && (fraction & 1) != 0)) {
    // Rounded to nearest, ties to even; a carry out of the fraction moves
    // the exponent up (to infinity past the largest value).
    if (++fraction == (std::uint64_t{1} << 63)) {
      fraction = 0;
      ++sign_exponent;
    }
  }
  const bool normal = (sign_exponent & 0x7fffu) != 0;
  const std::uint64_t significand = (normal ? std::uint64_t{1} << 63 : 0) | fraction;
  std::memset(native, 0, 16);
  std::memcpy(native, &significand, 8);
  std::memcpy(native + 8, &sign_exponent, 2);
}

// One scalar of code `code` from the native packed form to external32, or
// back. False when a long does not fit in external32's 4 bytes.
bool scalar_to_external(std::uint32_t code, const std::byte* in, std::byte* out) {
  if (code == kExternalLong || code == kExternalUnsignedLong) {
    std::uint64_t raw = 0;
    std::memcpy(&raw, in, 8);
    const auto value = static_cast<std::int64_t>(raw);
    const bool fits = code == kExternalLong ? value >= INT32_MIN && value <= INT32_MAX : raw <= UINT32_MAX;
    if (!fits) return false;
    put_big_endian(out, raw, 4);
    return true;
  }
  if (code == kExternalLongDouble) {
    extended_to_quad(in, out);
    return true;
  }
  std::reverse_copy(in, in + code, out);
  return true;
}

void scalar_from_external(std::uint32_t code, const std::byte* in, std::byte* out) {
  if (code == kExternalLong || code == kExternalUnsignedLong) {
    const auto value = static_cast<std::uint32_t>(get_big_endian(in, 4));
    const std::uint64_t wide = code == kExternalLong ? static_cast<std::uint64_t>(static_cast<std::int64_t>(
                                                           static_cast<std::int32_t>(value)))
                                                     : value;
    std::memcpy(out, &wide, 8);
  } else if (code == kExternalLongDouble) {
    quad_to_extended(in, out);
  } else {
    std::reverse_copy(in, in + code, out);
  }
}

// `count` elements of `type`, packed natively at `native`, to external32 at
// `external` (or back, `to_external` false). Returns false when a value has
// no external32 form (a long beyond 4 bytes).
bool convert(const TypeInfo& type, std::byte* native, std::byte* external, std::uint64_t count, bool to_external) {
  for (std::uint64_t e = 0; e < count; ++e) {
    for (const Block& b : type.blocks) {
      const std::uint32_t from = native_scalar(b.swap), to = external_scalar(b.swap);
      const std::uint64_t scalars = b.count * (b.bytes / from);
      for (std::uint64_t k = 0; k < scalars; ++k, native += from, external += to) {
        if (!to_external) {
          scalar_from_external(b.swap, external, native);
        } else if (!scalar_to_external(b.swap, native, external)) {
          return false;
        }
      }
    }
  }
  return true;
}

int no_external32(const char* call, MPI_Datatype datatype) {
  return comm_error(call, MPI_COMM_WORLD, MPI_ERR_TYPE, datatype_name(datatype) + " has no external32 form");
}

int out_of_range(const char* call, MPI_Datatype datatype) {
  return comm_error(call, MPI_COMM_WORLD, MPI_ERR_CONVERSION,
                    "a value of " + datatype_name(datatype) +
                        " does not fit in external32's 4-byte long (MPI 3.1 §13.5.2)");
}

int check_datarep(const char* call, const char* datarep) {
  if (datarep == nullptr || std::string(datarep) != "external32") {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG,
                      std::string("unknown data representation '") + (datarep ? datarep : "(null)") +
                          "' (only \"external32\")");
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  const TypeInfo* type = nullptr;
  if (int rc = check("MPI_Pack_size", comm, incount, datatype, &type)) return rc;
  const std::uint64_t bytes = static_cast<std::uint64_t>(incount) * type->size;
  if (bytes > static_cast<std::uint64_t>(INT_MAX)) {
    return comm_error("MPI_Pack_size", comm, MPI_ERR_COUNT,
                      std::to_string(bytes) + " bytes do not fit the int size (use MPI_Pack_size_c)");
  }
  *size = static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position,
              MPI_Comm comm) {
  const char* call = "MPI_Pack";
  const TypeInfo* type = nullptr;
  if (int rc = check(call, comm, incount, datatype, &type)) return rc;
  if (position == nullptr || *position < 0) return comm_error(call, comm, MPI_ERR_ARG, "invalid position");
  const std::uint64_t bytes = static_cast<std::uint64_t>(incount) * type->size;
  if (static_cast<std::int64_t>(bytes) > static_cast<std::int64_t>(outsize) - *position) {
    return no_room(call, comm, bytes, static_cast<std::int64_t>(outsize) - *position);
  }
  pack(*type, inbuf, static_cast<std::uint64_t>(incount), static_cast<std::byte*>(outbuf) + *position);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,
                MPI_Comm comm) {
  const char* call = "MPI_Unpack";
  const TypeInfo* type = nullptr;
  if (int rc = check(call, comm, outcount, datatype, &type)) return rc;
  if (position == nullptr || *position < 0) return comm_error(call, comm, MPI_ERR_ARG, "invalid position");
  const std::uint64_t bytes = static_cast<std::uint64_t>(outcount) * type->size;
  if (static_cast<std::int64_t>(bytes) > static_cast<std::int64_t>(insize) - *position) {
    return no_room(call, comm, bytes, static_cast<std::int64_t>(insize) - *position);
  }
  unpack(*type, static_cast<const std::byte*>(inbuf) + *position, bytes, outbuf);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size) {
  const TypeInfo* type = nullptr;
  if (int rc = check_datarep("MPI_Pack_external_size", datarep)) return rc;
  if (int rc = check("MPI_Pack_external_size", MPI_COMM_WORLD, incount, datatype, &type)) return rc;
  bool ok = false;
  const std::uint64_t each = external_size(*type, &ok);
  if (!ok) return no_external32("MPI_Pack_external_size", datatype);
  *size = static_cast<MPI_Aint>(static_cast<std::uint64_t>(incount) * each);
  return MPI_SUCCESS;
}

int PMPI_Pack_external(const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                       MPI_Aint outsize, MPI_Aint* position) {
  const char* call = "MPI_Pack_external";
  const TypeInfo* type = nullptr;
  if (int rc = check_datarep(call, datarep)) return rc;
  if (int rc = check(call, MPI_COMM_WORLD, incount, datatype, &type)) return rc;
  bool ok = false;
  const std::uint64_t bytes = static_cast<std::uint64_t>(incount) * external_size(*type, &ok);
  if (!ok) return no_external32(call, datatype);
  if (static_cast<std::int64_t>(bytes) > outsize - *position) return no_room(call, MPI_COMM_WORLD, bytes, outsize - *position);
  std::vector<std::byte> native(static_cast<std::size_t>(incount) * type->size);
  pack(*type, inbuf, static_cast<std::uint64_t>(incount), native.data());
  std::byte* out = static_cast<std::byte*>(outbuf) + *position;
  if (!convert(*type, native.data(), out, static_cast<std::uint64_t>(incount), true)) return out_of_range(call, datatype);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}

int PMPI_Unpack_external(const char* datarep, const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf,
                         int outcount, MPI_Datatype datatype) {
  const char* call = "MPI_Unpack_external";
  const TypeInfo* type = nullptr;
  if (int rc = check_datarep(call, datarep)) return rc;
  if (int rc = check(call, MPI_COMM_WORLD, outcount, datatype, &type)) return rc;
  bool ok = false;
  const std::uint64_t bytes = static_cast<std::uint64_t>(outcount) * external_size(*type, &ok);
  if (!ok) return no_external32(call, datatype);
  if (static_cast<std::int64_t>(bytes) > insize - *position) return no_room(call, MPI_COMM_WORLD, bytes, insize - *position);
  std::vector<std::byte> native(static_cast<std::size_t>(outcount) * type->size);
  auto* in = static_cast<std::byte*>(const_cast<void*>(inbuf)) + *position;
  convert(*type, native.data(), in, static_cast<std::uint64_t>(outcount), false);
  unpack(*type, native.data(), native.size(), outbuf);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Pack_size = PMPI_Pack_size
#pragma weak MPI_Pack = PMPI_Pack
#pragma weak MPI_Unpack = PMPI_Unpack
#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
#pragma weak MPI_Pack_external = PMPI_Pack_external
#pragma weak MPI_Unpack_external = PMPI_Unpack_external

}  // extern "C"
