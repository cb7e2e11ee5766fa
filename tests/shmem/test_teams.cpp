// Teams and contexts: split_strided (evens, odds, a 1-PE team, a split of a split), split_2d,
// translate_pe both ways and into a team the PE is not in, team_my_pe/n_pes, get_config,
// destroy (many times over), SHMEM_TEAM_SHARED against the layout's virtual nodes; contexts
// created with options, on a team (PE numbers in the team), ctx_get_team, and quiet on one
// of two contexts completing its own puts. Every team is also used: a sum over it of the
// members' world PE numbers must come out right.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "shmem_test_util.h"

namespace ferry::shmem::testing {
namespace {

int gMyWorldPe;
int gSumOfWorldPes;

// The members (world PE numbers, in team order) of the strided split of the world.
std::vector<int> strided(int start, int stride, int size) {
  std::vector<int> m;
  for (int i = 0; i < size; ++i) m.push_back(start + i * stride);
  return m;
}

// What every PE checks of a team it asked for: membership as `members` says, numbering,
// translation both ways, and that the team works (team_sync, a sum reduction).
void checkTeam(shmem_team_t team, const std::vector<int>& members, const std::string& what) {
  SCOPED_TRACE(what);
  const int me = myPe(), n = nPes();
  int index = -1;
  for (size_t j = 0; j < members.size(); ++j)
    if (members[j] == me) index = static_cast<int>(j);
  if (index < 0) {
    EXPECT_EQ(team, SHMEM_TEAM_INVALID) << "a PE outside the team gets SHMEM_TEAM_INVALID";
    EXPECT_EQ(shmem_team_my_pe(team), -1);
    EXPECT_EQ(shmem_team_n_pes(team), -1);
    return;
  }
  ASSERT_NE(team, SHMEM_TEAM_INVALID);
  EXPECT_EQ(shmem_team_my_pe(team), index);
  EXPECT_EQ(shmem_team_n_pes(team), static_cast<int>(members.size()));
  for (size_t j = 0; j < members.size(); ++j) {
    EXPECT_EQ(shmem_team_translate_pe(team, static_cast<int>(j), SHMEM_TEAM_WORLD), members[j]) << "team PE " << j;
    EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, members[j], team), static_cast<int>(j)) << "world PE " << members[j];
  }
  for (int p = 0; p < n; ++p) {
    if (std::find(members.begin(), members.end(), p) == members.end()) {
      EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, team), -1) << "world PE " << p << " is not in the team";
    }
  }
  EXPECT_EQ(shmem_team_translate_pe(team, static_cast<int>(members.size()), SHMEM_TEAM_WORLD), -1)
      << "a team PE number past the end";
  EXPECT_EQ(shmem_team_sync(team), 0);
  gMyWorldPe = me;
  EXPECT_EQ(shmem_int_sum_reduce(team, &gSumOfWorldPes, &gMyWorldPe, 1), 0);
  EXPECT_EQ(gSumOfWorldPes, std::accumulate(members.begin(), members.end(), 0)) << "a sum over the team";
  EXPECT_EQ(shmem_team_sync(team), 0);
}

void destroyIfMine(shmem_team_t team) {
  if (team != SHMEM_TEAM_INVALID) shmem_team_destroy(team);
}

TEST(Teams, WorldIsEveryPe) {
  const int n = nPes();
  EXPECT_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), n);
  EXPECT_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), myPe());
  checkTeam(SHMEM_TEAM_WORLD, strided(0, 1, n), "world");
}

TEST(Teams, SplitStrided) {
  const int n = nPes();
  shmem_team_t evens = SHMEM_TEAM_INVALID, odds = SHMEM_TEAM_INVALID, last = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens), 0);
  checkTeam(evens, strided(0, 2, (n + 1) / 2), "evens: start 0, stride 2");
  if (n >= 2) {
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odds), 0);
    checkTeam(odds, strided(1, 2, n / 2), "odds: start 1, stride 2");
    // A PE of one is not in the other.
    if (evens != SHMEM_TEAM_INVALID) {
      EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, evens), -1) << "PE 1 is not an even PE";
    }
  }
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 1, 1, nullptr, 0, &last), 0);
  checkTeam(last, {n - 1}, "the last PE alone");
  // A split of the evens: all of them but the first (members 2, 4, ... of the world).
  const int m = (n + 1) / 2;
  if (m >= 2) {
    shmem_team_t tail = SHMEM_TEAM_INVALID;
    if (evens != SHMEM_TEAM_INVALID) {
      ASSERT_EQ(shmem_team_split_strided(evens, 1, 1, m - 1, nullptr, 0, &tail), 0);
    }
    checkTeam(tail, strided(2, 2, m - 1), "evens less PE 0, split from the evens");
    destroyIfMine(tail);
  }
  destroyIfMine(last);
  destroyIfMine(odds);
  destroyIfMine(evens);
  shmem_barrier_all();
}

// xrange 2: the x team of PE p is its row {2r, 2r+1} (r = p / 2), the y team its column
// {c, c+2, ...} (c = p % 2); a last row may be short.
TEST(Teams, Split2d) {
  const int n = nPes(), me = myPe();
  shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, nullptr, 0, &x, nullptr, 0, &y), 0);
  std::vector<int> row, column;
  for (int p = 0; p < n; ++p) {
    if (p / 2 == me / 2) row.push_back(p);
    if (p % 2 == me % 2) column.push_back(p);
  }
  checkTeam(x, row, "x axis (row)");
  checkTeam(y, column, "y axis (column)");
  destroyIfMine(x);
  destroyIfMine(y);
  shmem_barrier_all();
}

TEST(Teams, GetConfig) {
  shmem_team_config_t cfg{};
  cfg.num_contexts = -1;
  EXPECT_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
  EXPECT_GE(cfg.num_contexts, 0);
  shmem_team_config_t want{};
  want.num_contexts = 2;
  shmem_team_t t = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, nPes(), &want, SHMEM_TEAM_NUM_CONTEXTS, &t), 0);
  ASSERT_NE(t, SHMEM_TEAM_INVALID);
  shmem_team_config_t got{};
  EXPECT_EQ(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
  EXPECT_EQ(got.num_contexts, 2);
  shmem_ctx_t a = SHMEM_CTX_INVALID, b = SHMEM_CTX_INVALID;
  EXPECT_EQ(shmem_team_create_ctx(t, 0, &a), 0) << "the first of the 2 contexts the config asked for";
  EXPECT_EQ(shmem_team_create_ctx(t, 0, &b), 0) << "the second";
  if (a != SHMEM_CTX_INVALID) shmem_ctx_destroy(a);
  if (b != SHMEM_CTX_INVALID) shmem_ctx_destroy(b);
  shmem_team_destroy(t);
  shmem_barrier_all();
}

// Teams are made and destroyed many times over: what a team holds is given back.
TEST(Teams, DestroyGivesBackWhatATeamHolds) {
  const int n = nPes();
  for (int i = 0; i < 40; ++i) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    const int start = i % n;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, 1, n - start, nullptr, 0, &t), 0) << "split " << i;
    if (t != SHMEM_TEAM_INVALID) {
      EXPECT_EQ(shmem_team_n_pes(t), n - start) << "split " << i;
      EXPECT_EQ(shmem_team_sync(t), 0);
      shmem_team_destroy(t);
    }
  }
  shmem_barrier_all();
}

// SHMEM_TEAM_SHARED: the PEs of this PE's (virtual) node, in world order, each reachable by
// shmem_ptr (FERRY_VIRTUAL_NODES gives the layout, shmem_test_util.h).
TEST(Teams, SharedIsMyNode) {
  const int n = nPes(), me = myPe();
  std::vector<int> node;
  for (int p = 0; p < n; ++p)
    if (sameNode(p, me)) node.push_back(p);
  EXPECT_EQ(shmem_team_n_pes(SHMEM_TEAM_SHARED), pesOnNodeOf(me));
  checkTeam(SHMEM_TEAM_SHARED, node, "SHMEM_TEAM_SHARED");
  auto* block = static_cast<long*>(shmem_malloc(sizeof(long)));
  ASSERT_NE(block, nullptr);
  for (size_t j = 0; j < node.size(); ++j) {
    EXPECT_NE(shmem_ptr(block, node[j]), nullptr) << "PE " << node[j] << " shares my node";
    EXPECT_EQ(shmem_team_ptr(SHMEM_TEAM_SHARED, block, static_cast<int>(j)), shmem_ptr(block, node[j]))
        << "shmem_team_ptr of shared PE " << j;
  }
  shmem_barrier_all();
  shmem_free(block);
}

// ---- contexts ---------------------------------------------------------------------------------
TEST(Contexts, CreateWithEachOptionAndUse) {
  const int me = myPe(), right = rightOf(me), left = leftOf(me);
  auto* slot = static_cast<long*>(shmem_calloc(4, sizeof(long)));
  ASSERT_NE(slot, nullptr);
  const long options[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
  shmem_barrier_all();
  for (size_t k = 0; k < 4; ++k) {
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    ASSERT_EQ(shmem_ctx_create(options[k], &ctx), 0) << "options " << options[k];
    ASSERT_NE(ctx, SHMEM_CTX_INVALID);
    shmem_team_t team = SHMEM_TEAM_INVALID;
    EXPECT_EQ(shmem_ctx_get_team(ctx, &team), 0);
    EXPECT_EQ(team, SHMEM_TEAM_WORLD) << "shmem_ctx_create makes contexts on the world team";
    shmem_ctx_long_p(ctx, &slot[k], 100L * (me + 1) + static_cast<long>(k), right);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
  }
  shmem_barrier_all();
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(slot[k], 100L * (left + 1) + static_cast<long>(k)) << "options " << options[k];
  shmem_team_t team = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team), 0);
  EXPECT_EQ(team, SHMEM_TEAM_WORLD) << "the default context is on the world team";
  team = SHMEM_TEAM_WORLD;
  EXPECT_NE(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team), 0);
  EXPECT_EQ(team, SHMEM_TEAM_INVALID);
  shmem_barrier_all();
  shmem_free(slot);
}

// A context made on a team numbers PEs in that team: team PE j is world PE 2j of the evens.
TEST(Contexts, TeamContextUsesTeamPeNumbers) {
  const int n = nPes(), me = myPe(), m = (n + 1) / 2;
  shmem_team_t evens = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, m, nullptr, 0, &evens), 0);
  auto* slot = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  ASSERT_NE(slot, nullptr);
  shmem_barrier_all();
  if (evens != SHMEM_TEAM_INVALID) {
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    ASSERT_EQ(shmem_team_create_ctx(evens, 0, &ctx), 0);
    shmem_team_t team = SHMEM_TEAM_INVALID;
    EXPECT_EQ(shmem_ctx_get_team(ctx, &team), 0);
    EXPECT_EQ(team, evens);
    const int j = me / 2, next = (j + 1) % m;
    shmem_ctx_long_p(ctx, slot, 5000L + me, next);  // team PE `next` is world PE 2 * next
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
  } else {
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    EXPECT_NE(shmem_team_create_ctx(evens, 0, &ctx), 0) << "a context on SHMEM_TEAM_INVALID";
    EXPECT_EQ(ctx, SHMEM_CTX_INVALID);
  }
  shmem_barrier_all();
  if (me % 2 == 0) {
    const int prevWorld = 2 * ((me / 2 + m - 1) % m);
    EXPECT_EQ(*slot, 5000L + prevWorld) << "the put of the previous even PE, addressed by team PE number";
  } else {
    EXPECT_EQ(*slot, 0) << "an odd PE received a put meant for the team";
  }
  shmem_barrier_all();
  destroyIfMine(evens);
  shmem_free(slot);
}

// Puts on two contexts; quiet on the first completes the first's: a flag raised after it
// (on the default context) finds them delivered. The second's are completed by its own quiet.
TEST(Contexts, QuietOnOneContextCompletesItsOwnPuts) {
  const int me = myPe(), right = rightOf(me), left = leftOf(me);
  constexpr size_t kBytes = 65536;
  auto* a = static_cast<unsigned char*>(shmem_malloc(kBytes));
  auto* b = static_cast<unsigned char*>(shmem_malloc(kBytes));
  auto* flag = static_cast<uint64_t*>(shmem_calloc(1, sizeof(uint64_t)));
  ASSERT_TRUE(a && b && flag);
  shmem_ctx_t ca = SHMEM_CTX_INVALID, cb = SHMEM_CTX_INVALID;
  ASSERT_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ca), 0);
  ASSERT_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &cb), 0);
  std::vector<unsigned char> sa(kBytes), sb(kBytes);
  fillPattern(sa.data(), kBytes, me, right, 91);
  fillPattern(sb.data(), kBytes, me, right, 92);
  shmem_barrier_all();
  for (size_t off = 0; off < kBytes; off += 4096) {
    shmem_ctx_putmem_nbi(ca, a + off, sa.data() + off, 4096, right);
    shmem_ctx_putmem_nbi(cb, b + off, sb.data() + off, 4096, right);
  }
  shmem_ctx_quiet(ca);
  shmem_uint64_atomic_set(flag, 1, right);
  shmem_uint64_wait_until(flag, SHMEM_CMP_EQ, 1);
  EXPECT_EQ(firstMismatch(a, kBytes, left, me, 91), kBytes) << "context A's puts from PE " << left;
  shmem_ctx_quiet(cb);
  shmem_barrier_all();
  EXPECT_EQ(firstMismatch(b, kBytes, left, me, 92), kBytes) << "context B's puts from PE " << left;
  shmem_ctx_destroy(cb);
  shmem_ctx_destroy(ca);
  shmem_barrier_all();
  shmem_free(flag);
  shmem_free(b);
  shmem_free(a);
}

}  // namespace
}  // namespace ferry::shmem::testing
