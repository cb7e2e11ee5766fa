// ferry: the command-line entry point (run, env, info, doctor, bench, bind).
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "platform/init.h"
#include "platform/log.h"
#include "tools/ferry/commands.h"
#include "tools/ferry/launcher.h"

namespace {

// `ferry run|bind|doctor [options] -- PROGRAM ...`: the separator is dropped, so that the program is
// the first argument that is neither an option nor an option's value, which is where the
// command's parsing stops. Which options take a value is asked of its own definitions. A
// `--` after the program is the program's.
std::vector<char*> withoutRunSeparator(int argc, char** argv, const CLI::App& app) {
  std::vector<char*> args(argv, argv + argc);
  if (args.size() < 2 || !(std::string_view(args[1]) == "run" || std::string_view(args[1]) == "bind" ||
                           std::string_view(args[1]) == "doctor"))
    return args;
  const CLI::App& run = *app.get_subcommand(args[1]);
  for (size_t i = 2; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a == "--") {
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
    if (!a.starts_with("-")) break;  // the program
    const CLI::Option* opt = run.get_option_no_throw(std::string(a));
    if (opt && opt->get_items_expected_min() > 0) ++i;  // its value follows
  }
  return args;
}

// The word at argv[pos] when it names no subcommand of `parent` (CLI11 would say only that
// a subcommand is required): says so, with the names there are, and returns true.
bool refusedUnknownSubcommand(const CLI::App& parent, const std::vector<char*>& args, size_t pos,
                              const char* what) {
  if (args.size() <= pos || args[pos][0] == '-') return false;
  std::string names;
  for (const CLI::App* sub : parent.get_subcommands({})) {
    if (sub->get_name() == args[pos]) return false;
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  std::string cmd = parent.get_parent() ? "ferry " + parent.get_name() : "ferry";
  std::fprintf(stderr, "%s: unknown %s '%s' (%ss: %s; %s --help)\n", cmd.c_str(), what, args[pos], what,
               names.c_str(), cmd.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Ferry: every node and accelerator of a cluster through OpenMP offload and MPI collectives"};
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
  add("bind", "as each rank's command: bind it to cores of its own, place its OpenMP threads there, run PROGRAM",
      ferry::tools::addBindCommand);
  add("serve", "serve this machine's devices to host programs over a socket (a DPU's daemon)",
      ferry::tools::addServeCommand);
  std::vector<char*> args = withoutRunSeparator(argc, argv, app);
  if (refusedUnknownSubcommand(app, args, 1, "command")) return 2;
  const CLI::App& bench = *app.get_subcommand("bench");
  if (args.size() > 1 && bench.get_name() == args[1] && refusedUnknownSubcommand(bench, args, 2, "benchmark")) return 2;
  CLI11_PARSE(app, static_cast<int>(args.size()), args.data());

  // Settings errors are reported by each command in its own words (info --config lists
  // them all), so a bad FERRY_* value does not stop the CLI from starting. The CLI is no
  // rank of the job it starts, and its lines say so; started as one (ferry info's ranks), it
  // is one.
  if (!ferry::tools::underMpiLauncher()) ferry::log::setLabel("cli");
  (void)ferry::initPlatform();
  for (auto& [sub, run] : commands)
    if (sub->parsed()) return run();
  return 1;
}
