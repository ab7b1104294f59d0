// A bounded single-producer / single-consumer ring of fixed-size slots that
// can live in shared memory (no pointers inside, layout fixed).
//
// Algorithm: Lamport's ring with cached indices and per-slot ready words
// (the FastForward / B-Queue refinement). The producer writes a slot's
// payload, then the slot's sequence word: position + 1 (release). The
// consumer knows the slot at position `tail` is ready when its sequence is
// tail + 1 (acquire), and after taking a batch of slots publishes its new
// tail in the ring header. The producer keeps a cached copy of that tail and
// reads the header only when the cache says the ring is full. So on the
// data path the producer never reads a line the consumer writes and the
// consumer never writes a slot: one cache-line transfer each way per slot
// (seed 000: lock-free per-pair slots). All-zero memory is an empty ring
// (no slot has sequence 1 yet) and the ring holds no geometry of its own
// (both ends know the slot count), so a ring's memory is not touched, and
// its pages not allocated, before it carries its first packet.
//
// Usage (the ring memory starts zeroed, e.g. a fresh memfd):
//   using Ring = SpscRing<128>;                 // 128-byte slots
//   Ring::Producer tx(memory, nslots);          // in the one producer process
//   if (void* p = tx.try_claim()) { fill(p); tx.publish(); }
//   Ring::Consumer rx(memory, nslots);          // in the one consumer process
//   while (const void* p = rx.try_peek()) { use(p); rx.next(); }
//   rx.release();                               // hand the batch back
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

namespace mpf::common {

template <std::size_t SlotBytes>
class SpscRing {
  static_assert(SlotBytes % 64 == 0, "slots are whole cache lines");

 public:
  // Cache line 0: unused, so that the tail's line is not paired with the
  // first slot's by the CPU's adjacent-line prefetcher (the producer writes
  // that slot while the consumer writes the tail). Cache line 1: the
  // consumer's tail, written by the consumer, read by the producer only when
  // it finds the ring full.
  struct alignas(64) Header {
    std::byte unused[64];
    std::atomic<std::uint64_t> tail;
  };
  // A slot: the sequence word, then the payload, in one or more cache lines.
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> seq;
    std::byte payload[SlotBytes - sizeof(std::atomic<std::uint64_t>)];
  };
  static_assert(sizeof(Slot) == SlotBytes);
  static_assert(sizeof(Header) == 128);
  static constexpr std::size_t kPayloadBytes = sizeof(Slot::payload);

  static constexpr std::size_t bytes_for(std::uint32_t nslots) { return sizeof(Header) + nslots * sizeof(Slot); }

  class Producer {
   public:
    Producer() = default;
    // Does not touch the ring's memory.
    Producer(void* memory, std::uint32_t nslots)
        : header_(static_cast<Header*>(memory)), slots_(slots_of(header_)), nslots_(nslots) {}

    // The next free slot's payload, or null when the ring is full.
    void* try_claim() {
      if (head_ - cached_tail_ >= nslots_) {
        // Acquire: the consumer's reads of the slots it gave back are done.
        cached_tail_ = header_->tail.load(std::memory_order_acquire);
        if (head_ - cached_tail_ >= nslots_) return nullptr;
      }
      return slots_[slot_].payload;
    }
    // Hands the claimed slot to the consumer. The store is seq_cst, not just
    // release (payload visible before the slot is): it is also a full fence,
    // so the caller may follow it with loads that must not move ahead of it
    // (the transport's wake check). On x86 that is one xchg.
    void publish() {
      slots_[slot_].seq.store(head_ + 1, std::memory_order_seq_cst);
      ++head_;
      slot_ = slot_ + 1 == nslots_ ? 0 : slot_ + 1;
    }
    // The slot `ahead` places after the one the next claim returns (full or
    // not; ahead < nslots): for a prefetch.
    const void* slot_ahead(std::uint32_t ahead) const {
      const std::uint32_t s = slot_ + ahead;
      return &slots_[s < nslots_ ? s : s - nslots_];
    }
    // Slots published and not yet given back (slow: reads the consumer's line).
    std::uint32_t in_flight() const {
      return static_cast<std::uint32_t>(head_ - header_->tail.load(std::memory_order_relaxed));
    }

   private:
    Header* header_ = nullptr;
    Slot* slots_ = nullptr;
    std::uint32_t nslots_ = 0;
    std::uint32_t slot_ = 0;  // head_ % nslots_, kept without a division
    std::uint64_t head_ = 0;
    std::uint64_t cached_tail_ = 0;
  };

  class Consumer {
   public:
    Consumer() = default;
    // Does not touch the ring's memory.
    Consumer(void* memory, std::uint32_t nslots)
        : header_(static_cast<Header*>(memory)), slots_(slots_of(header_)), nslots_(nslots) {}

    // The oldest published slot's payload, or null when the ring is empty.
    const void* try_peek() const {
      const Slot& s = slots_[slot_];
      // Acquire: pairs with publish(); the payload is complete.
      if (s.seq.load(std::memory_order_acquire) != tail_ + 1) return nullptr;
      return s.payload;
    }
    // Moves past the peeked slot (still ours until release()).
    void next() {
      ++tail_;
      slot_ = slot_ + 1 == nslots_ ? 0 : slot_ + 1;
    }
    // Gives every slot moved past back to the producer. seq_cst: our reads
    // of the payloads happen before the producer reuses the slots, and it is
    // a full fence for the caller's wake check.
    void release() { header_->tail.store(tail_, std::memory_order_seq_cst); }
    // Slots taken so far (this process's own count: reads no shared line).
    std::uint64_t taken() const { return tail_; }
    // Slots published and not yet taken, as seen from the consumer.
    bool empty() const { return try_peek() == nullptr; }

   private:
    Header* header_ = nullptr;
    const Slot* slots_ = nullptr;
    std::uint32_t nslots_ = 0;
    std::uint32_t slot_ = 0;  // tail_ % nslots_, kept without a division
    std::uint64_t tail_ = 0;
  };

  // Published slots not yet given back, for an observer in another process
  // (mpfinspect): slots whose sequence is past the consumer's tail.
  static std::uint32_t occupancy(const void* memory, std::uint32_t nslots) {
    const auto* header = static_cast<const Header*>(memory);
    const Slot* slots = slots_of(const_cast<Header*>(header));
    const std::uint64_t tail = header->tail.load(std::memory_order_acquire);
    std::uint32_t n = 0;
    for (std::uint32_t i = 0; i < nslots; ++i) n += slots[i].seq.load(std::memory_order_relaxed) > tail;
    return n;
  }

 private:
  static Slot* slots_of(Header* header) {
    return reinterpret_cast<Slot*>(reinterpret_cast<std::byte*>(header) + sizeof(Header));
  }
};

}  // namespace mpf::common
