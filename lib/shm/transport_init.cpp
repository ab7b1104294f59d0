// Attaching a rank to the shared-memory transport (see transport.hpp).
#include <algorithm>
#include <numeric>
#include <string>

#include "shm/transport.hpp"

namespace mpf::shm {

void Transport::init(const Segment& segment, const wireup::RouteTable& routes, bool force_two_copy) {
  segment_ = &segment;
  const std::uint32_t local_size = segment.header().nranks;
  if (routes.node_ranks().size() != local_size) {
    throw SegmentError("the shared segment is for " + std::to_string(local_size) + " ranks but " +
                       std::to_string(routes.node_ranks().size()) + " of the job's ranks are on this node");
  }
  layout_ = TransportLayout(segment.region(TransportLayout::kName, TransportLayout::kVersion), local_size);
  me_ = routes.me();
  local_me_ = routes[me_].local;
  nranks_ = routes.size();
  control_ = &segment.rank(local_me_);
  inbox_ = layout_.inbox(local_me_);
  inbox_words_ = inbox_words(local_size);
  deferred_.assign(inbox_words_, 0);
  world_of_local_.assign(routes.node_ranks().begin(), routes.node_ranks().end());
  endpoints_.assign(nranks_, {});
  const transport::RmaPath path = force_two_copy ? transport::RmaPath::by_messages : transport::RmaPath::direct;
  for (std::uint32_t local = 0; local < local_size; ++local) {
    Endpoint& e = endpoints_[world_of_local_[local]];
    e.local = local;
    e.control = &segment.rank(local);
    e.inbox_word = &layout_.inbox(local)[local_me_ / 64];
    // No ring is touched here: a pair's pages are allocated when it first talks.
    e.out = PacketRing::Producer(layout_.ring(local_me_, local), layout_.ring_slots());
    e.in = PacketRing::Consumer(layout_.ring(local, local_me_), layout_.ring_slots());
    e.rma_path = path;
  }
  cells_ = layout_.eager_cells();
  // A quarter of the pool (at least one cell) streams rendezvous chunks.
  eager_cells_ = cells_ - std::max<std::uint32_t>(1, cells_ / 4);
  next_chunk_cell_ = eager_cells_;
  small_cells_ = layout_.eager_small_cells();
  next_small_cell_ = cells_;
  // Small cells are taken a few cells apart, so that the cell a sender
  // fills next is not in the page its receiver is reading: the CPUs'
  // prefetchers, following the reader through one cell into the next,
  // took the lines the sender then had to take back.
  small_step_ = 1;
  while (small_cells_ > 4 && (small_step_ < 4 || std::gcd(small_step_, small_cells_) != 1)) ++small_step_;
  cell_bytes_ = layout_.eager_cell_bytes();
  wakes_due_.clear();
  wakes_due_.reserve(nranks_);
}

}  // namespace mpf::shm
