// ferry info --shmem: where the OpenSHMEM library and its wrappers are, and the SHMEM
// settings in effect (the one registry's shmem subsystem).
#include <cstdio>
#include <filesystem>
#include <string>

#include "platform/config.h"
#include "tools/ferry/commands.h"
#include "tools/ferry/launcher.h"

namespace ferry::tools {
namespace fs = std::filesystem;
namespace {

// Build tree: build/bin/ferry next to build/lib. Install: prefix/bin next to prefix/<libdir>.
std::string findLibrary() {
  fs::path bin = selfDir();
  for (const fs::path& dir : {bin.parent_path() / "lib", bin.parent_path() / FERRY_INSTALL_LIBDIR})
    if (fs::exists(dir / "libferry-shmem.so")) return (fs::absolute(dir) / "libferry-shmem.so").lexically_normal().string();
  return "(not built: cmake --build build --target ferry_shmem)";
}

std::string tool(const char* name) {
  fs::path p = fs::path(selfDir()) / name;
  return fs::exists(p) ? p.string() : std::string("(missing) ") + p.string();
}

}  // namespace

int printShmemInfo() {
  Status st = initGlobalConfig();
  std::printf("Ferry OpenSHMEM: standard 1.5, vendor string \"Ferry\", built with %s (%s)\n", FERRY_MPI_FLAVOR,
              FERRY_MPIEXEC);
  std::printf("  library  %s\n", findLibrary().c_str());
  for (const char* name : {"oshcc", "oshc++", "oshrun"}) std::printf("  %-8s %s\n", name, tool(name).c_str());
  std::printf("\nSettings (SHMEM_* are the standard's names; docs/shmem.md):\n");
  for (const auto& k : knobTable()) {
    if (std::string(k.subsystem) != "shmem") continue;
    const Config& c = config();
    std::string value = c.isSet(k.key) ? c.text(k.key) + " (from the environment)" : "(default)";
    if (!c.error(k.key).empty()) value = "'" + c.rawText(k.key) + "' NOT in effect: " + c.error(k.key);
    std::printf("  %-22s %-8s %s\n  %-22s %s\n", k.name, k.defaultValue, value.c_str(), "", k.help);
  }
  return st ? 0 : 1;
}

}  // namespace ferry::tools
