// ferry: the command-line entry point (run, env, info, doctor, bench).
#include <cstdio>

#include "platform/init.h"
#include "platform/log.h"
#include "tools/ferry/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"Ferry: every node and accelerator of a cluster through OpenMP offload, OpenSHMEM and MPI "
               "collectives"};
  app.set_version_flag("--version", "ferry " FERRY_VERSION " (MPI: " FERRY_MPI_FLAVOR ")");
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, ferry::tools::Command>> commands;
  auto add = [&](const char* name, const char* help, auto adder) {
    CLI::App* sub = app.add_subcommand(name, help);
    commands.emplace_back(sub, adder(*sub));
  };
  add("run", "start a program on N ranks with the Ferry offload plugin", ferry::tools::addRunCommand);
  add("env", "print the shell settings that let plain mpirun/srun use Ferry", ferry::tools::addEnvCommand);
  add("info", "print the device table (--config: the FERRY_* settings)", ferry::tools::addInfoCommand);
  add("doctor", "report which data path each kind of transfer takes here, and why", ferry::tools::addDoctorCommand);
  add("bench", "measure: offload latency and bandwidth against MPI, proxy-app scaling", ferry::tools::addBenchCommand);
  CLI11_PARSE(app, argc, argv);

  // Settings errors are reported by each command in its own words (info --config lists
  // them all), so a bad FERRY_* value does not stop the CLI from starting.
  (void)ferry::initPlatform();
  for (auto& [sub, run] : commands)
    if (sub->parsed()) return run();
  return 1;
}
