#include "rma/node_addresses.hpp"

#include <map>
#include <unordered_map>

#include "core/runtime.hpp"

namespace mpf::rma {
namespace {

struct Known {
  std::uint64_t bytes;
  std::uint64_t id;
};

// By base address, to find the piece an address lies in.
std::map<const std::byte*, Known>& known() {
  static std::map<const std::byte*, Known> pieces;
  return pieces;
}

// The pieces this process opened for its windows, by id.
std::unordered_map<std::uint64_t, std::weak_ptr<shm::NodeMemory>>& opened() {
  static std::unordered_map<std::uint64_t, std::weak_ptr<shm::NodeMemory>> pieces;
  return pieces;
}

}  // namespace

void remember(const std::byte* base, std::uint64_t bytes, std::uint64_t id) {
  if (base != nullptr) known()[base] = {bytes, id};
}

void forget(const std::byte* base) { known().erase(base); }

std::optional<Placement> find(const void* address, std::uint64_t bytes) {
  const auto* p = static_cast<const std::byte*>(address);
  auto it = known().upper_bound(p);
  if (it == known().begin()) return std::nullopt;
  --it;
  const auto offset = static_cast<std::uint64_t>(p - it->first);
  if (offset > it->second.bytes || bytes > it->second.bytes - offset) return std::nullopt;
  return Placement{it->second.id, offset};
}

Mapping open(std::uint64_t id) {
  if (const auto it = opened().find(id); it != opened().end()) {
    if (std::shared_ptr<shm::NodeMemory> piece = it->second.lock()) return {piece->data(), piece->bytes(), piece};
  }
  // A piece this process created: its owner keeps it as long as MPI lets
  // windows use it.
  for (const auto& [base, piece] : known()) {
    if (piece.id == id) return {const_cast<std::byte*>(base), piece.bytes, nullptr};
  }
  const shm::Segment& segment = core::Runtime::instance().segment();
  // Its own memory in it is then found too (a window created over
  // another's allocated memory). The deleter forgets both: the maps do
  // not grow with every window the program ever made.
  std::shared_ptr<shm::NodeMemory> piece(new shm::NodeMemory(shm::NodeMemory::open(segment, id)),
                                         [id](shm::NodeMemory* m) {
                                           forget(m->data());
                                           opened().erase(id);
                                           delete m;
                                         });
  opened()[id] = piece;
  remember(piece->data(), piece->bytes(), id);
  return {piece->data(), piece->bytes(), piece};
}

}  // namespace mpf::rma
