// ferry serve: the device daemon (tools/ferry/daemon.h).
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "tools/ferry/commands.h"
#include "tools/ferry/daemon.h"
#include "tools/ferry/launcher.h"

namespace ferry::tools {
namespace {

// A worker loads its clients' device images with the stock host plugin, and their
// constructors start libomptarget, which looks up the x86_64 plugin by name. Found in Ferry's
// plugin directory (a shell set up with `ferry env`), Ferry's own plugin would start in the
// daemon as if it were a rank of an offload job. The dynamic loader reads LD_LIBRARY_PATH once,
// so the daemon starts itself again without that directory.
void dropOwnPluginDirOrReexec() {
  const char* path = std::getenv("LD_LIBRARY_PATH");
  auto dir = pluginDir();
  if (!path || !dir) return;
  std::string kept, item, list = path;
  bool dropped = false;
  for (size_t start = 0; start <= list.size();) {
    size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    item = list.substr(start, end - start);
    if (item == *dir) dropped = true;
    else if (!item.empty()) kept += (kept.empty() ? "" : ":") + item;
    start = end + 1;
  }
  if (!dropped) return;
  if (kept.empty()) unsetenv("LD_LIBRARY_PATH");
  else setenv("LD_LIBRARY_PATH", kept.c_str(), 1);
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> words;
  for (std::string w; std::getline(in, w, '\0');) words.push_back(w);
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  execv("/proc/self/exe", argv.data());  // returns only on failure: go on, and the worker will say why
}

}  // namespace

Command addServeCommand(CLI::App& app) {
  auto line = std::make_shared<ServeCommandLine>();
  addServeOptions(app, *line);
  return [line] {
    dropOwnPluginDirOrReexec();
    return startDaemon(*line);
  };
}

}  // namespace ferry::tools
