#include "core/context_ids.hpp"

#include <algorithm>
#include <bitset>
#include <tuple>
#include <vector>

#include "coll/algorithms.hpp"
#include "core/internal_p2p.hpp"
#include "core/runtime.hpp"

namespace mpf::core {
namespace {

// A round offers one window of ids, so that an offer fits in a ring
// packet (short protocol, 88 bytes by default): most programs never get
// past the first window. Rounds go through the windows in turn.
constexpr std::size_t kWindowIds = 256;
constexpr std::size_t kWindowWords = kWindowIds / 64;
constexpr std::size_t kWindows = kContextIds / kWindowIds;

std::bitset<kContextIds> g_used;  // ids of this rank's communicators
std::bitset<kContextIds> g_held;  // ids offered by agreement rounds in flight
std::uint32_t g_freed_seq = 0;    // the highest collective count of a communicator this rank released

// What each member sends up the tree, combined on the way: AND of the free
// ids of the round's window, MAX of the freed counts, OR of "another
// agreement held my ids".
struct Offer {
  std::uint64_t free[kWindowWords];
  std::uint32_t freed_seq;
  std::uint32_t busy;

  void combine(const Offer& other) {
    for (std::size_t w = 0; w < kWindowWords; ++w) free[w] &= other.free[w];
    freed_seq = std::max(freed_seq, other.freed_seq);
    busy |= other.busy;
  }
};
static_assert(sizeof(Offer) <= 88, "an offer travels inside a ring packet");

// The agreements in flight at this rank, by (nonblocking, parent context,
// parent count): the lowest offers the free ids. A blocking one (there is
// at most one at a time) comes first: the ranks it waits for may not start
// this rank's nonblocking ones until it ends.
using AgreementKey = std::tuple<bool, std::uint32_t, std::uint32_t>;
std::vector<AgreementKey> g_in_flight;

bool owns_free_ids(AgreementKey key) { return *std::min_element(g_in_flight.begin(), g_in_flight.end()) == key; }

// The window round `round` of agreement `key` offers. A nonblocking
// agreement's round may hold its ids for as long as its other members take
// to start it, which may be after this rank's next blocking one: so it
// offers only the upper half, and a blocking one always finds the lower
// half free of such rounds.
std::size_t window_of(AgreementKey key, unsigned round) {
  const bool nonblocking = std::get<0>(key);
  const std::size_t first = nonblocking ? kWindows / 2 : 0;
  return first + round % (kWindows - first);
}
std::size_t windows_for(AgreementKey key) { return std::get<0>(key) ? kWindows / 2 : kWindows; }

// This rank's offer for a round of agreement `key`; its ids are held (not
// offered to another agreement) until release_offer().
Offer make_offer(AgreementKey key, std::size_t window) {
  Offer offer{};
  offer.freed_seq = g_freed_seq;
  offer.busy = g_in_flight.size() > 1 ? 1 : 0;
  if (!owns_free_ids(key)) return offer;
  for (std::size_t i = 0; i < kWindowIds; ++i) {
    const std::size_t id = window * kWindowIds + i;
    if (g_used.test(id) || g_held.test(id)) continue;
    offer.free[i / 64] |= std::uint64_t{1} << (i % 64);
    g_held.set(id);
  }
  return offer;
}

void release_offer(const Offer& offer, std::size_t window) {
  for (std::size_t i = 0; i < kWindowIds; ++i) {
    if ((offer.free[i / 64] >> (i % 64)) & 1) g_held.reset(window * kWindowIds + i);
  }
}

// The agreement's messages: a context no group has (the parent's with
// kAgreementContextBit flipped) and a tag from the parent's count, the
// round and the direction.
std::int32_t message_tag(std::uint32_t parent_seq, unsigned round, bool down) {
  return static_cast<std::int32_t>(((parent_seq & 0xffffffu) << 6) | ((round & 31u) << 1) | (down ? 1u : 0u));
}

// co_await transfer(...): sends or receives one offer and waits for it.
mpf::coll::Task transfer(bool is_send, std::uint32_t peer, std::uint32_t context, std::int32_t tag, Offer* data) {
  progress::Request* r = start_internal(is_send, static_cast<std::int32_t>(peer), context, tag, data, sizeof(Offer));
  co_await mpf::coll::until(static_cast<std::int32_t>(peer), [r] { return r->done(); });
  Runtime::instance().engine().free_request(r);
}

}  // namespace

mpf::coll::Task agree_context_task(std::vector<std::uint32_t> members, std::size_t me, std::uint32_t parent_context,
                                   std::uint32_t parent_seq, bool blocking, NewContext* made) {
  const AgreementKey key{!blocking, parent_context, parent_seq};
  const std::uint32_t context = parent_context ^ kAgreementContextBit;
  const std::size_t n = members.size();
  g_in_flight.push_back(key);
  // Rounds in a row that found no id free everywhere and no member whose
  // ids another agreement held: after a whole turn of windows, none is left.
  std::size_t fruitless = 0;
  for (unsigned round = 0;; ++round) {
    const std::size_t window = window_of(key, round);
    const Offer mine = make_offer(key, window);
    Offer all = mine;
    // Up a binomial tree to member 0: each member takes its children's
    // offers (members me + 1, me + 2, me + 4, ... below its lowest set bit)
    // and passes the combination to its parent.
    std::size_t mask = 1;
    for (; mask < n; mask <<= 1) {
      if (me & mask) {
        mpf::coll::Task up = transfer(true, members[me - mask], context, message_tag(parent_seq, round, false), &all);
        co_await mpf::coll::finished(up);
        break;
      }
      if (me + mask < n) {
        Offer child{};
        mpf::coll::Task in = transfer(false, members[me + mask], context, message_tag(parent_seq, round, false), &child);
        co_await mpf::coll::finished(in);
        all.combine(child);
      }
    }
    // And the result down the same tree.
    if (me != 0) {
      mpf::coll::Task in = transfer(false, members[me - mask], context, message_tag(parent_seq, round, true), &all);
      co_await mpf::coll::finished(in);
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
      if (me + mask < n) {
        mpf::coll::Task down = transfer(true, members[me + mask], context, message_tag(parent_seq, round, true), &all);
        co_await mpf::coll::finished(down);
      }
    }
    release_offer(mine, window);
    made->first_seq = all.freed_seq;
    made->agreed = false;
    for (std::size_t w = 0; w < kWindowWords && !made->agreed; ++w) {
      if (all.free[w] != 0) {
        made->context = static_cast<std::uint32_t>(window * kWindowIds + w * 64 +
                                                   static_cast<std::size_t>(__builtin_ctzll(all.free[w])));
        made->agreed = true;
      }
    }
    if (made->agreed) break;
    // No id of this window free everywhere: the next window, unless every
    // window has come up empty with no member's ids held by another
    // agreement (which will let them go).
    fruitless = all.busy != 0 ? 0 : fruitless + 1;
    if (fruitless == windows_for(key)) break;
  }
  g_in_flight.erase(std::find(g_in_flight.begin(), g_in_flight.end(), key));
}

NewContext agree_context(coll::Group& parent, std::vector<std::uint32_t> members, std::size_t me, const char* call) {
  NewContext made;
  const coll::Key key = parent.next_collective(coll::kAllreduce, -1);
  coll::Task agree = agree_context_task(std::move(members), me, key.context, key.seq, true, &made);
  agree.run(Runtime::instance().engine(), coll::collective_wait(parent, -1, call));
  return made;
}

void claim_context(std::uint32_t context) { g_used.set(context); }

void release_context(std::uint32_t context, std::uint32_t last_seq) {
  if (context >= kReservedContexts) g_used.reset(context);
  g_freed_seq = std::max(g_freed_seq, last_seq);
}

void reset_contexts() {
  g_used.reset();
  for (std::uint32_t id = 0; id < kReservedContexts; ++id) g_used.set(id);
  g_held.reset();
  g_in_flight.clear();
  g_freed_seq = 0;
}

}  // namespace mpf::core
