// Small operations on memory reached by Cross Memory Attach, handed to a
// target that waits in its engine (rma/mailbox.hpp): the target applies
// them to its own memory faster than a CMA system call copies, and the
// origin takes an operation back and copies by CMA itself when the target
// does not take it at once, so the target's help is never needed.
#pragma once

#include <cstdint>

#include "coll/combine.hpp"
#include "mpi/win.hpp"
#include "rma/mailbox.hpp"

namespace mpf::mpi {

struct MailRequest {
  rma::MailKind kind;
  std::uint64_t offset;  // of the target's data, from its base (dynamic: the address)
  const std::byte* data = nullptr;  // put, accumulate: the data; compare_and_swap: origin then compare
  std::uint32_t bytes = 0;
  std::byte* answer = nullptr;  // get, a fetching accumulate, compare_and_swap
  std::uint32_t answer_bytes = 0;
  coll::Op op = coll::Op::no_op;  // accumulate
  coll::Element element = coll::Element::opaque;
};

// True when the target applied the operation (its answer is in place);
// false when it was not handed over (too large, the target is not in its
// engine, more ranks than CPUs) or was taken back: the caller applies it.
bool hand_over(Window& w, int target, const MailRequest& request);

// The target's side, from the progress hook: applies what origins posted.
void serve_mailboxes(Window& w);

}  // namespace mpf::mpi
