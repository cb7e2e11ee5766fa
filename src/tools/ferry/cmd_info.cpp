// ferry info: the job's device table, or (--config) the FERRY_* settings registry.
#include <mpi.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "comm/world.h"
#include "offload/bootstrap.h"
#include "platform/config.h"
#include "platform/init.h"
#include "platform/parse.h"
#include "service/local_device.h"
#include "tools/ferry/commands.h"
#include "tools/ferry/launcher.h"

namespace ferry::tools {
namespace {

struct InfoOptions {
  bool config = false;
  bool json = false;
  int ranks = 3;
};

// Every knob, its type and default, the value in effect and where it came from.
int printConfig(bool json) {
  Status st = initGlobalConfig();
  Config current = config();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& k : knobTable())
      out.push_back({{"name", k.name},
                     {"type", knobTypeName(k.type)},
                     {"default", k.defaultValue},
                     {"value", current.isSet(k.key) ? current.text(k.key) : std::string(k.defaultValue)},
                     {"set", current.isSet(k.key)},
                     {"choices", k.choices ? k.choices : ""},
                     {"help", k.help}});
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("%-24s %-9s %-8s %s\n", "SETTING", "TYPE", "DEFAULT", "VALUE IN EFFECT / HELP");
    for (const auto& k : knobTable()) {
      std::string value = current.isSet(k.key) ? current.text(k.key) + " (from the environment)" : "(default)";
      std::printf("%-24s %-9s %-8s %s\n", k.name, knobTypeName(k.type), k.defaultValue, value.c_str());
      std::printf("%-24s %s%s%s\n\n", "", k.help, k.choices ? "; one of " : "", k.choices ? k.choices : "");
    }
  }
  for (const auto& w : current.warnings()) std::fprintf(stderr, "ferry info: warning: %s\n", w.c_str());
  if (!st) {
    std::fprintf(stderr, "ferry info: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}

int printTable(const InfoOptions& opt) {
  if (Status st = initPlatform(); !st) {
    std::fprintf(stderr, "ferry info: %s\n", st.message().c_str());
    return 1;
  }
  auto world = comm::World::create();
  if (!world) {
    std::fprintf(stderr, "ferry info: %s\n", world.status().message().c_str());
    return 1;
  }
  comm::World& w = **world;
  offload::JobDevices job = offload::discoverJobDevices(w);
  if (w.rank() == 0) {
    const auto& t = job.table;
    if (opt.json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& e : t.entries())
        out.push_back({{"device", e.index}, {"rank", e.rank}, {"host", e.host}, {"node", e.node},
                       {"kind", service::deviceKindName(e.kind)}, {"memory_bytes", e.memoryBytes},
                       {"details", e.description}});
      std::printf("%s\n", out.dump(2).c_str());
    } else {
      char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
      int len = 0;
      MPI_Get_library_version(lib, &len);
      std::string libLine(lib, std::min<size_t>(std::strlen(lib), std::string(lib).find('\n')));
      std::printf("Ferry %s, %d ranks on %d node(s)%s; MPI: %s\n", FERRY_VERSION, w.size(), w.nodes().numNodes,
                  config().integer(Knob::VirtualNodes) > 1 ? " (virtual)" : "", libLine.c_str());
      std::printf("Rank 0 runs main; %zu device(s) in the job's table:\n\n", t.size());
      t.print(stdout);
    }
    std::fflush(stdout);
  }
  return w.finalize().isOk() ? 0 : 1;
}

}  // namespace

Command addInfoCommand(CLI::App& app) {
  auto opt = std::make_shared<InfoOptions>();
  app.add_flag("--config", opt->config, "print every FERRY_* setting: type, default, value in effect, help");
  app.add_flag("--json", opt->json, "machine-readable output");
  app.add_option("-n,--np", opt->ranks, "ranks to start when not already inside an MPI job")->check(CLI::PositiveNumber);
  return [opt] {
    if (opt->config) return printConfig(opt->json);
    if (underMpiLauncher()) return printTable(*opt);
    // Started from a shell: start the job that the table describes.
    LaunchSpec spec;
    spec.ranks = opt->ranks;
    spec.program = {selfDir() + "/ferry", "info"};
    if (opt->json) spec.program.push_back("--json");
    auto argv = launcherCommand(spec);
    if (!argv) {
      std::fprintf(stderr, "ferry info: %s\n", argv.status().message().c_str());
      return 1;
    }
    Status st = execCommand(*argv);
    std::fprintf(stderr, "ferry info: %s\n", st.message().c_str());
    return 1;
  };
}

}  // namespace ferry::tools
