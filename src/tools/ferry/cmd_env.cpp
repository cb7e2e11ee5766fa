// ferry env: the settings that make a plain `mpirun`/`srun` use Ferry's plugin.
#include <cstdio>
#include <string>

#include "platform/log.h"
#include "tools/ferry/commands.h"
#include "tools/ferry/launcher.h"

namespace ferry::tools {
Command addEnvCommand(CLI::App& app) {
  auto shell = std::make_shared<std::string>("sh");
  app.add_option("--shell", *shell, "syntax of the output")->check(CLI::IsMember({"sh", "csh"}));
  app.footer("Use: eval \"$(ferry env)\"; then mpirun -np 4 ./app or srun -n 4 ./app\n"
             "MPI+OpenMP: mpirun --bind-to none -np 4 ferry bind ./app gives each rank cores of its own and "
             "places its threads there (docs/hybrid.md)");
  return [shell] {
    auto dir = pluginDir();
    if (!dir) {
      std::fprintf(stderr, "ferry env: %s\n", dir.status().message().c_str());
      return 1;
    }
    // Quoted, so that whatever the existing LD_LIBRARY_PATH holds ($, `, ", spaces) is
    // neither expanded nor run by the eval.
    std::string path = prependedLibraryPath(*dir);
    bool csh = *shell == "csh";
    std::printf(csh ? "setenv LD_LIBRARY_PATH %s;\n" : "export LD_LIBRARY_PATH=%s;\n", shellQuoted(path, csh).c_str());
    return 0;
  };
}

}  // namespace ferry::tools
