// MPI_Pack, MPI_Unpack and their external32 forms (MPI 3.1 §4.2, §13.5.2):
// the packed form is the type's data in typemap order; external32 is the
// same with every scalar big-endian.
#include <mpi.h>

#include <algorithm>
#include <bit>
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

// Reverses the bytes of each `swap`-sized scalar of every block, in the
// packed order of `count` elements (external32 is big-endian; this machine
// is not).
bool swap_packed(const TypeInfo& type, std::byte* data, std::uint64_t count) {
  if constexpr (std::endian::native == std::endian::big) return true;
  for (const Block& b : type.blocks) {
    if (b.swap == 0) return false;
  }
  for (std::uint64_t e = 0; e < count; ++e) {
    for (const Block& b : type.blocks) {
      for (std::uint64_t k = 0; k < b.count; ++k) {
        for (std::uint64_t at = 0; at + b.swap <= b.bytes; at += b.swap) std::reverse(data + at, data + at + b.swap);
        data += b.bytes;
      }
    }
  }
  return true;
}

int no_external32(const char* call, MPI_Datatype datatype) {
  return comm_error(call, MPI_COMM_WORLD, MPI_ERR_TYPE,
                    datatype_name(datatype) + " holds long, long double or (value, index) pair data, which has no "
                                              "external32 form in this library");
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
  *size = static_cast<int>(static_cast<std::uint64_t>(incount) * type->size);
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
  *size = static_cast<MPI_Aint>(static_cast<std::uint64_t>(incount) * type->size);
  return MPI_SUCCESS;
}

int PMPI_Pack_external(const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                       MPI_Aint outsize, MPI_Aint* position) {
  const char* call = "MPI_Pack_external";
  const TypeInfo* type = nullptr;
  if (int rc = check_datarep(call, datarep)) return rc;
  if (int rc = check(call, MPI_COMM_WORLD, incount, datatype, &type)) return rc;
  const std::uint64_t bytes = static_cast<std::uint64_t>(incount) * type->size;
  if (static_cast<std::int64_t>(bytes) > outsize - *position) return no_room(call, MPI_COMM_WORLD, bytes, outsize - *position);
  std::byte* out = static_cast<std::byte*>(outbuf) + *position;
  pack(*type, inbuf, static_cast<std::uint64_t>(incount), out);
  if (!swap_packed(*type, out, static_cast<std::uint64_t>(incount))) return no_external32(call, datatype);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}

int PMPI_Unpack_external(const char* datarep, const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf,
                         int outcount, MPI_Datatype datatype) {
  const char* call = "MPI_Unpack_external";
  const TypeInfo* type = nullptr;
  if (int rc = check_datarep(call, datarep)) return rc;
  if (int rc = check(call, MPI_COMM_WORLD, outcount, datatype, &type)) return rc;
  const std::uint64_t bytes = static_cast<std::uint64_t>(outcount) * type->size;
  if (static_cast<std::int64_t>(bytes) > insize - *position) return no_room(call, MPI_COMM_WORLD, bytes, insize - *position);
  std::vector<std::byte> native(static_cast<const std::byte*>(inbuf) + *position,
                                static_cast<const std::byte*>(inbuf) + *position + bytes);
  if (!swap_packed(*type, native.data(), static_cast<std::uint64_t>(outcount))) return no_external32(call, datatype);
  unpack(*type, native.data(), bytes, outbuf);
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
