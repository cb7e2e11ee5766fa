// The hwloc XML layouts of other machines in tests/platform/topologies/, as the binding
// tests load them.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "platform/topology.h"

namespace ferry {

inline NodeLayout layout(const char* file) {
  auto l = loadNodeLayout(std::string(FERRY_TEST_TOPOLOGIES) + "/" + file);
  EXPECT_TRUE(l.isOk()) << l.status().message();
  return l.isOk() ? l.value() : NodeLayout{};
}

}  // namespace ferry
