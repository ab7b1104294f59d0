#include "mpi/buffered.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "core/runtime.hpp"
#include "mpi/comm.hpp"
#include "mpi/errors.hpp"

namespace mpf::mpi {
namespace {

progress::Engine& engine() { return core::Runtime::instance().engine(); }

// The attached buffer and the messages that still occupy parts of it,
// ordered by offset.
struct Attached {
  std::byte* base = nullptr;
  std::size_t size = 0;
  struct Use {
    std::size_t offset;
    std::size_t bytes;  // message plus MPI_BSEND_OVERHEAD
    progress::Request* request;
    bool held;  // a request of the program's may still cancel it
  };
  std::vector<Use> uses;
};
Attached g_buffer;
// Delivered sends still held, kept apart from the buffer they no longer use.
std::vector<progress::Request*> g_held;

// Frees the parts of the buffer whose messages have been delivered.
void reclaim() {
  auto& uses = g_buffer.uses;
  for (std::size_t i = 0; i < uses.size();) {
    if (uses[i].request->done()) {
      if (uses[i].held) {
        g_held.push_back(uses[i].request);
      } else {
        engine().free_request(uses[i].request);
      }
      uses.erase(uses.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

// First fit: the lowest offset with `bytes` free after it.
bool place(std::size_t bytes, std::size_t* offset, std::size_t* index) {
  std::size_t at = 0;
  for (std::size_t i = 0; i <= g_buffer.uses.size(); ++i) {
    const std::size_t end = i < g_buffer.uses.size() ? g_buffer.uses[i].offset : g_buffer.size;
    if (end >= at && end - at >= bytes) {
      *offset = at;
      *index = i;
      return true;
    }
    if (i < g_buffer.uses.size()) at = g_buffer.uses[i].offset + g_buffer.uses[i].bytes;
  }
  return false;
}

std::size_t free_bytes() {
  std::size_t used = 0;
  for (const auto& u : g_buffer.uses) used += u.bytes;
  return g_buffer.size - used;
}

}  // namespace

int attach_buffer(const char* call, void* buffer, MPI_Count size) {
  require_initialized(call);
  if (g_buffer.base != nullptr) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_BUFFER, "a buffer is already attached (detach it first)");
  }
  if (size < 0) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "negative size " + std::to_string(size));
  if (buffer == nullptr && size > 0) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_BUFFER, "buffer is NULL");
  g_buffer.base = static_cast<std::byte*>(buffer);
  g_buffer.size = static_cast<std::size_t>(size);
  return MPI_SUCCESS;
}

int detach_buffer(const char* call, void* buffer_addr, MPI_Count* size, MPI_Count largest) {
  require_initialized(call);
  if (g_buffer.base == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_BUFFER, "no buffer is attached");
  if (g_buffer.size > static_cast<std::uint64_t>(largest)) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COUNT,
                      "the attached buffer has " + std::to_string(g_buffer.size) +
                          " bytes, more than an int holds (INT_MAX " + std::to_string(INT_MAX) +
                          "): it was attached with MPI_Buffer_attach_c, detach it with MPI_Buffer_detach_c");
  }
  // Detach blocks until every buffered message has been delivered.
  engine().wait_until(
      [] {
        reclaim();
        return g_buffer.uses.empty();
      },
      // For the receivers of every buffered message: any rank.
      progress::BlockedCall::send(progress::WaitApi::mpi, progress::kAnySource, progress::kAnyTag, 0, call));
  *static_cast<void**>(buffer_addr) = g_buffer.base;
  *size = static_cast<MPI_Count>(g_buffer.size);
  g_buffer = Attached{};
  return MPI_SUCCESS;
}

int buffered_send(const char* call, const void* buf, std::uint64_t bytes, std::int32_t dest_world, int tag,
                  MPI_Comm comm, progress::Request** held) {
  engine().progress();
  reclaim();
  const std::size_t need = bytes + MPI_BSEND_OVERHEAD;
  if (g_buffer.base == nullptr) {
    return comm_error(call, comm, MPI_ERR_BUFFER, "no buffer is attached (call MPI_Buffer_attach first)");
  }
  std::size_t offset = 0, index = 0;
  if (!place(need, &offset, &index)) {
    return comm_error(call, comm, MPI_ERR_BUFFER,
                      "no room in the attached buffer: " + std::to_string(need) + " bytes needed (" +
                          std::to_string(bytes) + " + MPI_BSEND_OVERHEAD), " + std::to_string(free_bytes()) +
                          " free of " + std::to_string(g_buffer.size));
  }
  std::byte* copy = g_buffer.base + offset;
  if (bytes > 0) std::memcpy(copy, buf, bytes);
  progress::Request* e = engine().new_request();
  e->peer = dest_world;
  e->tag = tag;
  e->context = comm_context(comm);
  e->buffer = copy;
  e->bytes = bytes;
  g_buffer.uses.insert(g_buffer.uses.begin() + static_cast<std::ptrdiff_t>(index), {offset, need, e, held != nullptr});
  engine().start_send(e);
  if (held != nullptr) *held = e;
  return MPI_SUCCESS;
}

void release_buffered(progress::Request* held) {
  if (auto at = std::find(g_held.begin(), g_held.end(), held); at != g_held.end()) {
    engine().free_request(held);
    g_held.erase(at);
    return;
  }
  for (auto& use : g_buffer.uses) {
    if (use.request == held) use.held = false;  // freed when delivered
  }
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Buffer_attach(void* buffer, int size) { return attach_buffer("MPI_Buffer_attach", buffer, size); }

int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  MPI_Count bytes = 0;
  const int rc = detach_buffer("MPI_Buffer_detach", buffer_addr, &bytes, INT_MAX);
  if (rc == MPI_SUCCESS) *size = static_cast<int>(bytes);
  return rc;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach

}  // extern "C"
