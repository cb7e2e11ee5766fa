// The C entry points of teams and communication contexts. SHMEM_TEAM_INVALID and
// SHMEM_CTX_INVALID are answered as the standard says (-1, a non-zero code, or nothing
// done) before the core sees them.
#include "shmem/c_api_types.h"

namespace {

int createCtx(core::Team* team, long options, shmem_ctx_t* ctx) {
  core::Ctx* made = nullptr;
  int rc = team ? core::ctxCreate(team, options, &made) : -1;
  if (ctx) *ctx = rc == 0 ? capi::toHandle(made) : SHMEM_CTX_INVALID;
  return rc;
}

}  // namespace

extern "C" {

// ---- teams -------------------------------------------------------------------------------------

int shmem_team_my_pe(shmem_team_t team) {
  core::Team* t = capi::toTeam(team);
  return t ? core::teamMyPe(t) : -1;
}

int shmem_team_n_pes(shmem_team_t team) {
  core::Team* t = capi::toTeam(team);
  return t ? core::teamNPes(t) : -1;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config) {
  core::Team* t = capi::toTeam(team);
  return t ? core::teamGetConfig(t, config_mask, config) : -1;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
  core::Team* src = capi::toTeam(src_team);
  core::Team* dest = capi::toTeam(dest_team);
  return src && dest ? core::teamTranslatePe(src, src_pe, dest) : -1;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t* config, long config_mask, shmem_team_t* new_team) {
  core::Team* parent = capi::toTeam(parent_team);
  core::Team* made = nullptr;
  int rc = parent ? core::teamSplitStrided(parent, start, stride, size, config, config_mask, &made) : -1;
  if (new_team) *new_team = rc == 0 ? capi::toHandle(made) : SHMEM_TEAM_INVALID;
  return rc;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t* xaxis_config,
                        long xaxis_mask, shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config,
                        long yaxis_mask, shmem_team_t* yaxis_team) {
  core::Team* parent = capi::toTeam(parent_team);
  core::Team* x = nullptr;
  core::Team* y = nullptr;
  int rc = parent ? core::teamSplit2d(parent, xrange, xaxis_config, xaxis_mask, &x, yaxis_config,
                                      yaxis_mask, &y)
                  : -1;
  if (xaxis_team) *xaxis_team = rc == 0 ? capi::toHandle(x) : SHMEM_TEAM_INVALID;
  if (yaxis_team) *yaxis_team = rc == 0 ? capi::toHandle(y) : SHMEM_TEAM_INVALID;
  return rc;
}

void shmem_team_destroy(shmem_team_t team) {
  if (core::Team* t = capi::toTeam(team)) core::teamDestroy(t);
}

// ---- contexts ----------------------------------------------------------------------------------

int shmem_ctx_create(long options, shmem_ctx_t* ctx) { return createCtx(core::teamWorld(), options, ctx); }

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx) {
  return createCtx(capi::toTeam(team), options, ctx);
}

// The default context is never destroyed (the standard leaves that undefined), and an
// invalid one is no context at all.
void shmem_ctx_destroy(shmem_ctx_t ctx) {
  if (ctx == SHMEM_CTX_INVALID || ctx == SHMEM_CTX_DEFAULT) return;
  core::ctxDestroy(capi::toCtx(ctx, "shmem_ctx_destroy"));
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team) {
  if (ctx == SHMEM_CTX_INVALID || ctx == SHMEM_CTX_DEFAULT) {
    if (team) *team = ctx == SHMEM_CTX_DEFAULT ? SHMEM_TEAM_WORLD : SHMEM_TEAM_INVALID;
    return ctx == SHMEM_CTX_DEFAULT ? 0 : -1;
  }
  core::Team* t = nullptr;
  int rc = core::ctxGetTeam(capi::toCtx(ctx, "shmem_ctx_get_team"), &t);
  if (team) *team = rc == 0 ? capi::toHandle(t) : SHMEM_TEAM_INVALID;
  return rc;
}

}  // extern "C"
