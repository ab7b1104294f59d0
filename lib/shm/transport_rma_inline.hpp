// Hot paths of the shared-memory transport's rma (see transport.hpp): one
// copy between this process and a peer's with Cross Memory Attach.
#pragma once

namespace mpf::shm {

inline common::Status Transport::get(std::uint32_t peer, void* local, transport::RemoteMemory remote,
                                     std::uint64_t offset, std::uint64_t bytes) {
  return cma_copy(peer, false, static_cast<std::byte*>(local), remote.address + offset, bytes);
}

inline common::Status Transport::put(std::uint32_t peer, transport::RemoteMemory remote, std::uint64_t offset,
                                     const void* local, std::uint64_t bytes) {
  // process_vm_writev only reads the local buffer.
  return cma_copy(peer, true, static_cast<std::byte*>(const_cast<void*>(local)), remote.address + offset, bytes);
}

}  // namespace mpf::shm
