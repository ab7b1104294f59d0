// Contexts and memory ordering. On one node every operation is complete
// when its call returns (the nonblocking ones too), so a context needs no
// state of its own beyond its team, and fence and quiet order this PE's
// stores with a fence: streaming stores of large puts are fenced where
// they are made.
#include <shmem.h>

#include <atomic>
#include <string>

#include "shmem/state.hpp"

struct mpf_shmem_ctx mpf_shmem_ctx_default = {mpf::shmem::kContextMagic, &mpf_shmem_team_world, 0};

using namespace mpf::shmem;

namespace {

constexpr long kContextOptions = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;

int create(const char* call, shmem_team_t team, long options, shmem_ctx_t* ctx) {
  if (ctx == nullptr) fail(call, "ctx is NULL");
  *ctx = SHMEM_CTX_INVALID;
  if ((options & ~kContextOptions) != 0) {
    warn(call, "options " + std::to_string(options) +
                   " has bits that are none of SHMEM_CTX_SERIALIZED, SHMEM_CTX_PRIVATE, SHMEM_CTX_NOSTORE");
    return -1;
  }
  mpf_shmem_ctx& made = g_state.contexts.emplace_back();
  made.magic = kContextMagic;
  made.team = team;
  made.options = options;
  *ctx = &made;
  return 0;
}

void order() { std::atomic_thread_fence(std::memory_order_seq_cst); }

}  // namespace

extern "C" {

int pshmem_ctx_create(long options, shmem_ctx_t* ctx) {
  require_initialized("shmem_ctx_create");
  return create("shmem_ctx_create", SHMEM_TEAM_WORLD, options, ctx);
}
MPF_SHMEM_WEAK(ctx_create)

int pshmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx) {
  const char* call = "shmem_team_create_ctx";
  require_initialized(call);
  if (team == SHMEM_TEAM_INVALID || team->magic != kTeamMagic) {
    if (ctx != nullptr) *ctx = SHMEM_CTX_INVALID;
    return -1;
  }
  return create(call, team, options, ctx);
}
MPF_SHMEM_WEAK(team_create_ctx)

// On SHMEM_CTX_INVALID, destroy, fence and quiet do nothing (the standard).
void pshmem_ctx_destroy(shmem_ctx_t ctx) {
  const char* call = "shmem_ctx_destroy";
  if (ctx == SHMEM_CTX_INVALID) return;
  if (ctx == SHMEM_CTX_DEFAULT) fail(call, "SHMEM_CTX_DEFAULT cannot be destroyed");
  check_context(call, ctx);
  order();  // the standard: destroying a context quiets it
  ctx->magic = 0;
}
MPF_SHMEM_WEAK(ctx_destroy)

int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team) {
  require_initialized("shmem_ctx_get_team");
  if (team == nullptr) return -1;
  if (ctx == SHMEM_CTX_INVALID || ctx->magic != kContextMagic) {
    *team = SHMEM_TEAM_INVALID;
    return -1;
  }
  *team = ctx->team;
  return 0;
}
MPF_SHMEM_WEAK(ctx_get_team)

void pshmem_fence(void) { order(); }
MPF_SHMEM_WEAK(fence)

void pshmem_quiet(void) { order(); }
MPF_SHMEM_WEAK(quiet)

void pshmem_ctx_fence(shmem_ctx_t ctx) {
  if (ctx == SHMEM_CTX_INVALID) return;
  if (ctx != SHMEM_CTX_DEFAULT) check_context("shmem_ctx_fence", ctx);
  order();
}
MPF_SHMEM_WEAK(ctx_fence)

void pshmem_ctx_quiet(shmem_ctx_t ctx) {
  if (ctx == SHMEM_CTX_INVALID) return;
  if (ctx != SHMEM_CTX_DEFAULT) check_context("shmem_ctx_quiet", ctx);
  order();
}
MPF_SHMEM_WEAK(ctx_quiet)

}  // extern "C"
