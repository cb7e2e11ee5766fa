// Platform start-up shared by every entry point (offload plugin, CLI, libraries): parse the
// FERRY_* registry, configure logging, and print the registry's warnings once.
#pragma once

#include "platform/status.h"

namespace ferry {

Status initPlatform();

}  // namespace ferry
