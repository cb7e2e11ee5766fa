// The World every multi-rank comm test uses (created once per process).
#pragma once

#include <gtest/gtest.h>

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

}  // namespace ferry::comm
