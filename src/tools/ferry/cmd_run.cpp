// ferry run: start a program on N ranks with the offload plugin in place.
#include <strings.h>

#include <cstdio>
#include <cstdlib>

#include "platform/log.h"

#include "tools/ferry/commands.h"
#include "tools/ferry/launcher.h"
#include "tools/ferry/program_check.h"

namespace ferry::tools {
namespace {

// A program that never loads libomptarget has no target regions for Ferry to serve: every
// rank runs its main, as under mpiexec. Said before the job starts (when it has more than
// one rank), not noticed from N copies of output. True for such a program.
bool plainProgram(const std::string& exe, int ranks) {
  if (!knownPlainProgram(exe)) return false;
  if (ranks > 1)
    log::warn(log::Init,
              "%s does not load LLVM's offload runtime (libomptarget), so Ferry has no target regions of it to "
              "serve: each of the %d ranks runs it whole. An offload program needs clang-16 -fopenmp "
              "-fopenmp-targets=x86_64-pc-linux-gnu; an MPI program runs as under mpiexec, and ferry run --pmpi "
              "gives it Ferry's MPI_Allreduce",
              exe.c_str(), ranks);
  return true;
}

// What ferry run checks before it starts anything: each problem is said once, here, rather
// than by every rank. Returns the exit status to end with, or -1 to go on.
int refusedBeforeLaunch(LaunchSpec& spec) {
  if (spec.program.empty()) {
    std::fprintf(stderr, "ferry run: no program given (ferry run -n 3 ./app)\n");
    return 2;
  }
  // An option ferry run does not know ends up here, before the program: say so rather
  // than hand it to the launcher.
  if (spec.program.front().starts_with("-")) {
    std::fprintf(stderr,
                 "ferry run: unknown option %s; ferry run's options go before the program (ferry run --help), "
                 "and --launcher-arg ARG passes one to the MPI launcher\n",
                 spec.program.front().c_str());
    return 2;
  }
  // ferry run is a launcher: as one of several tasks that srun started, each task would
  // start a whole job inside srun's step, whose launcher's srun waits for CPUs that the step
  // holds, for ever (a silent hang).
  if (int tasks = srunStepTasks(); tasks > 1) {
    std::fprintf(stderr,
                 "ferry run: this is one of %d tasks that srun started, and each would start a job of its own "
                 "inside srun's job step, which would wait for CPUs that the step holds. Start ferry run once (in "
                 "a batch script or under salloc), or let srun start the program: eval \"$(ferry env)\"; srun "
                 "--mpi=pmix ./app (Open MPI; --mpi=pmi2 for MPICH)\n",
                 tasks);
    return 2;
  }
  // An invalid setting stops every rank of an offload job, each saying so. (Under --pmpi the
  // interposer hands every call to the library instead and says why: the job still runs.)
  if (spec.offload && refusedForSettings("ferry run")) return 1;
  // With offloading disabled libomptarget never loads the plugin, so every rank would run
  // main: run one.
  const char* offload = std::getenv("OMP_TARGET_OFFLOAD");
  if (offload && strcasecmp(offload, "disabled") == 0 && spec.ranks != 1) {
    log::info(log::Init, "OMP_TARGET_OFFLOAD=DISABLED: running 1 rank instead of %d", spec.ranks);
    spec.ranks = 1;
  }
  return -1;
}

// A command that reproduces the run when pasted: the environment ferry run sets too.
std::string dryRunLine(const std::vector<std::string>& environment, const std::vector<std::string>& argv) {
  std::string line = environment.empty() ? "" : "env";
  for (const auto& e : environment) line += " " + shellWord(e);
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + shellWord(a);
  return line;
}

int runProgram(LaunchSpec& spec, bool dryRun, bool pmpi) {
  if (pmpi) {
    spec.offload = false;
    auto lib = pmpiLibrary();
    if (!lib) {
      std::fprintf(stderr, "ferry run --pmpi: %s\n", lib.status().message().c_str());
      return 1;
    }
    spec.preload.push_back(*lib);
  }
  if (int refused = refusedBeforeLaunch(spec); refused >= 0) return refused;
  std::vector<std::string> environment;
  auto argv = launcherCommand(spec, &environment);
  if (!argv) {
    std::fprintf(stderr, "ferry run: %s\n", argv.status().message().c_str());
    return 1;
  }
  // Checked here, once, rather than by the launcher once per rank; the launcher's search
  // (LD_LIBRARY_PATH included) is what launcherCommand has just set up.
  int exitCode = 0;
  auto exe = resolveProgram(spec.program.front(), exitCode);
  if (exe && spec.offload && plainProgram(*exe, spec.ranks)) {
    spec.offload = false;  // its ranks are alike: each gets cores of its own (ferry bind)
    environment.clear();
    argv = launcherCommand(spec, &environment);
    if (!argv) {
      std::fprintf(stderr, "ferry run: %s\n", argv.status().message().c_str());
      return 1;
    }
  }
  if (dryRun) {
    std::printf("%s\n", dryRunLine(environment, *argv).c_str());
    return 0;
  }
  if (!exe) {
    std::fprintf(stderr, "ferry run: cannot start %s\n", exe.status().message().c_str());
    return exitCode;
  }
  return runAndMirror(*argv);
}

}  // namespace

Command addRunCommand(CLI::App& app) {
  auto spec = std::make_shared<LaunchSpec>();
  auto dryRun = std::make_shared<bool>(false);
  auto pmpi = std::make_shared<bool>(false);
  app.add_option("-n,--np", spec->ranks,
                 "number of ranks (offload: rank 0 runs main, the others serve devices; --pmpi: every rank runs it)")
      ->check(rankCount())
      ->capture_default_str();
  // One value per occurrence: otherwise the option would swallow the program and its arguments.
  app.add_option("--launcher-arg", spec->launcherArgs, "extra argument for the MPI launcher (repeatable; one per use)")
      ->allow_extra_args(false);
  app.add_flag("--dry-run", *dryRun, "print the launcher command instead of running it");
  app.add_flag("--pmpi", *pmpi,
               "preload Ferry's MPI interposer (libferry-pmpi.so): a faster MPI_Allreduce for unmodified MPI "
               "programs; every other MPI call still goes to the MPI library");
  // Everything from the program on belongs to the program.
  app.prefix_command();
  app.footer("Usage: ferry run [-n N] [--pmpi] [--launcher-arg ARG]... [--] PROGRAM [ARGS...]");
  return [spec, dryRun, pmpi, &app] {
    spec->program = app.remaining();
    return runProgram(*spec, *dryRun, *pmpi);
  };
}

}  // namespace ferry::tools
