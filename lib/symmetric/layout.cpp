#include "symmetric/layout.hpp"

#include <unistd.h>

#include <stdexcept>
#include <string>

namespace mpf::symmetric {
namespace {

std::uint64_t page_bytes() { return static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)); }

std::uint64_t round_up(std::uint64_t n, std::uint64_t unit) { return (n + unit - 1) / unit * unit; }

std::uint64_t pes_offset() { return round_up(sizeof(Header), kCacheLine); }

std::uint64_t heaps_offset(std::uint32_t npes) {
  return round_up(pes_offset() + static_cast<std::uint64_t>(npes) * sizeof(PeState), page_bytes());
}

}  // namespace

std::uint64_t Layout::piece_bytes(std::uint32_t npes, std::uint64_t heap_bytes) {
  return heaps_offset(npes) + static_cast<std::uint64_t>(npes) * round_up(heap_bytes, page_bytes());
}

void Layout::format(std::byte* base, std::uint32_t npes, std::uint64_t heap_bytes) {
  auto* h = reinterpret_cast<Header*>(base);
  h->magic = kMagic;
  h->version = kVersion;
  h->npes = npes;
  h->pe_state_bytes = sizeof(PeState);
  h->heap_bytes = round_up(heap_bytes, page_bytes());
  h->pes_offset = pes_offset();
  h->heaps_offset = heaps_offset(npes);
}

Layout::Layout(std::byte* base, std::uint64_t bytes) {
  const auto* h = reinterpret_cast<const Header*>(base);
  if (bytes < sizeof(Header) || h->magic != kMagic || h->version != kVersion) {
    throw std::runtime_error("the node's OpenSHMEM heaps (" + std::string(kPieceName) +
                             ") are not of this version of the library");
  }
  if (h->pe_state_bytes != sizeof(PeState) || h->pes_offset != pes_offset() ||
      h->heaps_offset != heaps_offset(h->npes) || piece_bytes(h->npes, h->heap_bytes) > bytes) {
    throw std::runtime_error("the node's OpenSHMEM heaps (" + std::string(kPieceName) +
                             ") have a geometry this library does not expect");
  }
  header_ = h;
  pes_ = reinterpret_cast<PeState*>(base + h->pes_offset);
  heaps_ = base + h->heaps_offset;
}

}  // namespace mpf::symmetric
