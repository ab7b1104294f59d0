// Buffered sends (MPI_Bsend family) over the buffer the application attaches
// with MPI_Buffer_attach. Each message takes its size plus
// MPI_BSEND_OVERHEAD of the buffer until the engine has delivered it.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "progress/request.hpp"

namespace mpf::mpi {

// Copies the message into the attached buffer and starts sending the copy.
// Returns MPI_SUCCESS, or MPI_ERR_BUFFER (through comm's error handler) when
// no buffer is attached or it has no room. With `held`, *held is the copy's
// send, kept (even once delivered) until release_buffered(): the program's
// request may still cancel it (MPI_Cancel of an MPI_Ibsend).
int buffered_send(const char* call, const void* buf, std::uint64_t bytes, std::int32_t dest_world, int tag,
                  MPI_Comm comm, progress::Request** held = nullptr);
// The program's request is done with a held send (it was waited for or freed).
void release_buffered(progress::Request* held);

// MPI_Buffer_attach and MPI_Buffer_detach, and their large-count forms
// (large_count.cpp). Detach waits until the buffered messages have been
// delivered; it refuses (MPI_ERR_COUNT, the buffer still attached) a buffer
// of more than `largest` bytes, which the caller's size could not hold.
int attach_buffer(const char* call, void* buffer, MPI_Count size);
int detach_buffer(const char* call, void* buffer_addr, MPI_Count* size, MPI_Count largest);

}  // namespace mpf::mpi
