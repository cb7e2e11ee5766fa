// ferry doctor --binding: starts a program under ferry bind --report on every rank and
// gathers the reports into one table with the node-wide warnings (docs/hybrid.md).
#pragma once

#include "tools/ferry/launcher.h"

namespace ferry::tools {

// Runs spec's program with the binding report on, passes its other output through, then
// prints the table and the warnings. Returns the program's exit status, or 1 when no rank
// reported (the program ended before its threads were sampled).
int bindingDoctor(LaunchSpec spec);

}  // namespace ferry::tools
