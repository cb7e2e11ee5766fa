// The World every multi-rank comm test uses (created once per process).
#pragma once

#include <gtest/gtest.h>

#include "comm/liveness.h"
#include "comm/world.h"
#include "platform/init.h"

namespace ferry::comm {

inline World& testWorld() {
  static World* w = [] {
    EXPECT_TRUE(initPlatform().isOk());
    auto r = World::create();
    EXPECT_TRUE(r.isOk()) << r.status().message();
    return r.isOk() ? *r : nullptr;
  }();
  return *w;
}

// Ends the World testWorld() created after the last test, before main's MPI_Finalize, as a
// job's end does: a responder on every rank answers the probes still open (the liveness tests
// leave a peer silent on purpose), then the communicators are freed. Left to MPI_Finalize,
// they leaked (LeakSanitizer), held by those probes' receives.
class EndTestWorld : public ::testing::Environment {
 public:
  void TearDown() override {
    World* w = World::instance();
    if (!w) return;
    LivenessResponder responder(w->comm());
    EXPECT_TRUE(w->finalize(&responder).isOk());
  }
};

}  // namespace ferry::comm
