// What the plugin knows of rank 0's own memory before it writes there. A retrieve into the
// read-only part of the program or a library (a const global that a map clause names, or
// that a region uses without 'declare target', is mapped tofrom by default) would crash rank 0
// inside the plugin when the bytes arrive; the stock runtime refuses it with an error, and so
// does Ferry, naming the object.
#pragma once

#include <cstdint>
#include <string>

namespace ferry::offload {

// The object (program or library path) whose read-only segments (text, rodata, RELRO) overlap
// [addr, addr+len), or nullptr when none does. The segments are read once, at the first call,
// and searched by address: every retrieve asks, so it must cost next to nothing.
const std::string* readOnlyObjectAt(uint64_t addr, uint64_t len);

}  // namespace ferry::offload
