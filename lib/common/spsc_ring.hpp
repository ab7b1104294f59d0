// A bounded single-producer / single-consumer ring of fixed-size slots that
// can live in shared memory (no pointers inside, layout fixed).
//
// Algorithm: Vyukov's bounded queue specialised to one producer and one
// consumer. Every slot carries a sequence word; with N slots, the producer of
// lap L may fill slot i when seq == L*N, and publishes it with seq = L*N + 1
// (release, after the payload); the consumer reads slot i of lap L when
// seq == L*N + 1 (acquire), and frees it with seq = (L+1)*N (release, after
// reading the payload). (Vyukov stores L*N + i; leaving out the slot index
// makes all-zero memory a valid empty ring, so a fresh memfd needs no pass
// over its slots.) Producer and consumer never touch each other's
// index: the only shared writes are to the slot being handed over, so an idle
// ring costs no cache-line traffic (seed 000: lock-free per-pair slots).
//
// Usage (the ring memory starts zeroed, e.g. a fresh memfd):
//   using Ring = SpscRing<128>;                 // 128-byte slots
//   Ring::init(memory, nslots);                 // once, by the creator
//   Ring::Producer tx(memory);                  // in the one producer process
//   if (void* p = tx.try_claim()) { fill(p); tx.publish(); }
//   Ring::Consumer rx(memory);                  // in the one consumer process
//   if (const void* p = rx.try_peek()) { use(p); rx.release(); }
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

namespace mpf::common {

template <std::size_t SlotBytes>
class SpscRing {
  static_assert(SlotBytes % 64 == 0, "slots are whole cache lines");
  // A ring needs N >= 2: with one slot "published" (L*N + 1) and "free in the
  // next lap" ((L+1)*N) would be the same number.

 public:
  // Cache line 0 of a ring: its geometry, written once by init().
  struct alignas(64) Header {
    std::uint32_t nslots;
  };
  // A slot: the sequence word, then the payload, in one or more cache lines.
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> seq;
    std::byte payload[SlotBytes - sizeof(std::atomic<std::uint64_t>)];
  };
  static_assert(sizeof(Slot) == SlotBytes);
  static constexpr std::size_t kPayloadBytes = sizeof(Slot::payload);

  static constexpr std::size_t bytes_for(std::uint32_t nslots) { return sizeof(Header) + nslots * sizeof(Slot); }

  // Writes the header. The slots must be zero (seq 0: free in lap 0).
  static void init(void* memory, std::uint32_t nslots) { new (memory) Header{nslots}; }

  class Producer {
   public:
    Producer() = default;
    explicit Producer(void* memory)
        : slots_(slots_of(static_cast<Header*>(memory))), nslots_(static_cast<Header*>(memory)->nslots) {}

    // The next free slot's payload, or null when the ring is full.
    void* try_claim() {
      Slot& s = slots_[head_ % nslots_];
      // Acquire: the consumer's reads of this slot's old payload are done.
      if (s.seq.load(std::memory_order_acquire) != lap_base(head_)) return nullptr;
      return s.payload;
    }
    // Hands the claimed slot to the consumer. The store is seq_cst, not
    // just release (payload visible before the slot is): it is also a full
    // fence, so a caller may follow it with loads that must not move ahead
    // of it (the transport's wake check). On x86 that is one xchg.
    void publish() {
      Slot& s = slots_[head_ % nslots_];
      s.seq.store(lap_base(head_) + 1, std::memory_order_seq_cst);
      ++head_;
    }
    // Slots published and not yet freed by the consumer (for introspection).
    std::uint32_t in_flight() const {
      std::uint32_t n = 0;
      for (std::uint32_t i = 0; i < nslots_; ++i) {
        // Published and not yet freed: L*N + 1 (N >= 2).
        if (slots_[i].seq.load(std::memory_order_relaxed) % nslots_ == 1) ++n;
      }
      return n;
    }

   private:
    std::uint64_t lap_base(std::uint64_t position) const { return position - position % nslots_; }
    Slot* slots_ = nullptr;
    std::uint32_t nslots_ = 0;
    std::uint64_t head_ = 0;
  };

  class Consumer {
   public:
    Consumer() = default;
    explicit Consumer(void* memory)
        : slots_(slots_of(static_cast<Header*>(memory))), nslots_(static_cast<Header*>(memory)->nslots) {}

    // The oldest published slot's payload, or null when the ring is empty.
    const void* try_peek() const {
      const Slot& s = slots_[tail_ % nslots_];
      // Acquire: pairs with publish(); the payload is complete.
      if (s.seq.load(std::memory_order_acquire) != lap_base(tail_) + 1) return nullptr;
      return s.payload;
    }
    // Gives the peeked slot back to the producer. seq_cst for the same
    // reason as publish(): our reads of the payload happen before the
    // producer reuses the slot, and later loads stay after the store.
    void release() {
      Slot& s = slots_[tail_ % nslots_];
      s.seq.store(lap_base(tail_) + nslots_, std::memory_order_seq_cst);
      ++tail_;
    }

   private:
    std::uint64_t lap_base(std::uint64_t position) const { return position - position % nslots_; }
    Slot* slots_ = nullptr;
    std::uint32_t nslots_ = 0;
    std::uint64_t tail_ = 0;
  };

 private:
  static Slot* slots_of(Header* header) {
    return reinterpret_cast<Slot*>(reinterpret_cast<std::byte*>(header) + sizeof(Header));
  }
};

}  // namespace mpf::common
