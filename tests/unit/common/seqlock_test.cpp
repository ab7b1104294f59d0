// The seqlock: a reader in another process never sees a torn value.
#include "common/seqlock.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <new>

namespace {

struct Pair {
  std::uint64_t a[8];  // all equal in every consistent state
};

TEST(Seqlock, ReadsWhatWasWritten) {
  mpf::common::Seqlock<Pair> s{};
  s.write([](Pair& p) {
    for (auto& x : p.a) x = 42;
  });
  Pair copy{};
  ASSERT_TRUE(s.try_read(copy));
  for (auto x : copy.a) EXPECT_EQ(x, 42u);
  EXPECT_EQ(s.sequence.load() % 2, 0u);
}

TEST(Seqlock, ReaderInAnotherProcessNeverSeesATornValue) {
  void* mem = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  auto* s = new (mem) mpf::common::Seqlock<Pair>{};
  constexpr std::uint64_t kWrites = 200000;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (std::uint64_t i = 1; i <= kWrites; ++i) {
      s->write([i](Pair& p) {
        for (auto& x : p.a) x = i;
      });
    }
    ::_exit(0);
  }
  std::uint64_t torn = 0, reads = 0, last = 0, backwards = 0;
  while (last < kWrites) {
    Pair copy;
    if (!s->try_read(copy)) continue;
    ++reads;
    for (auto x : copy.a) torn += x != copy.a[0];
    backwards += copy.a[0] < last;
    last = copy.a[0];
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_EQ(torn, 0u);
  EXPECT_EQ(backwards, 0u) << "a later read returned an older value";
  EXPECT_GT(reads, 0u);
  ::munmap(mem, 4096);
}

}  // namespace
