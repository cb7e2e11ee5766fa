// ferry doctor: which path each kind of transfer takes on this machine, and why.
#include <mpi.h>
#include <sys/statvfs.h>

#include <cstdio>
#include <filesystem>

#include "comm/cma.h"
#include "comm/world.h"
#include "platform/config.h"
#include "platform/init.h"
#include "platform/parse.h"
#include "platform/topology.h"
#include "service/vendor_plugin.h"
#include "tools/ferry/commands.h"
#include "tools/ferry/doctor_binding.h"
#include "tools/ferry/launcher.h"
#include "tools/ferry/program_check.h"

namespace ferry::tools {
namespace {

void line(const char* what, const std::string& value) { std::printf("  %-34s %s\n", what, value.c_str()); }

void localReport() {
  std::printf("This node\n");
  const NodeTopology& t = nodeTopology();
  line("cores / hardware threads", std::to_string(t.cores) + " / " + std::to_string(t.pus));
  line("memory", parse::formatSize(t.memoryBytes));
  line("this process is bound to", t.bound ? "PUs " + t.bindingText : "the whole node (not bound)");
  int scope = comm::yamaPtraceScope();
  line("kernel.yama.ptrace_scope", scope < 0 ? "Yama absent (CMA allowed between a user's processes)"
                                             : std::to_string(scope) + (scope == 0 ? " (CMA allowed)" : " (CMA restricted)"));
  struct statvfs sv {};
  if (statvfs("/dev/shm", &sv) == 0)
    line("/dev/shm", parse::formatSize(static_cast<uint64_t>(sv.f_blocks) * sv.f_frsize) + " total, " +
                         parse::formatSize(static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize) + " free");
  else
    line("/dev/shm", "missing");
  auto host = service::VendorPlugin::open(service::stockHostPluginPath());
  line("stock host plugin", host ? std::to_string((*host)->numDevices) + " CPU device(s)"
                                 : "unavailable: " + host.status().message());
  auto cuda = service::VendorPlugin::open(service::stockCudaPluginPath());
  line("stock CUDA plugin", cuda ? std::to_string((*cuda)->numDevices) + " GPU(s)"
                                 : "unavailable (no GPU driver): " + cuda.status().message());
  auto dir = pluginDir();
  line("Ferry offload plugin", dir ? *dir : dir.status().message());
}

int jobReport() {
  comm::World* world = openWorld("ferry doctor");
  if (!world) return 1;
  comm::World& w = *world;
  if (w.rank() == 0) {
    localReport();
    std::printf("\nThis job (%d ranks, %d node(s)%s)\n", w.size(), w.nodes().numNodes,
                config().integer(Knob::VirtualNodes) > 1 ? ", virtual" : "");
    const char* levels[] = {"single", "funneled", "serialized", "multiple"};
    line("MPI thread level", levels[std::min(3, std::max(0, w.threadLevel()))]);
    line("same-node transfers", w.cmaEnabled() ? "shm-cma: single copy with process_vm_readv/writev"
                                               : "mpi: " + w.cmaReason());
    line("eager limit / chunk / depth", parse::formatSize(config().size(Knob::EagerLimit)) + " / " +
                                            parse::formatSize(config().size(Knob::ChunkSize)) + " / " +
                                            std::to_string(config().integer(Knob::PipelineDepth)));
    std::printf("\nPath from rank 0 to each rank (host<->device transfers)\n");
    for (int r = 0; r < w.size(); ++r)
      std::printf("  rank %-4d host %-16s node %-4d %s\n", r, w.peer(r).host.c_str(), w.peer(r).node,
                  comm::pathName(w.pathTo(r)));
    std::fflush(stdout);
  }
  return w.finalize().isOk() ? 0 : 1;
}

// --binding: the program is planned as ferry run plans it (an offload program's rank 0
// stays unbound; a plain program's ranks are alike).
int doctorBinding(int ranks, const std::vector<std::string>& launcherArgs, const std::vector<std::string>& program) {
  if (program.empty()) {
    std::fprintf(stderr, "ferry doctor --binding: no program given (ferry doctor --binding -n 4 ./app)\n");
    return 2;
  }
  if (underMpiLauncher()) {
    std::fprintf(stderr, "ferry doctor --binding starts the job itself: run it outside mpirun/srun\n");
    return 2;
  }
  LaunchSpec spec;
  spec.ranks = ranks;
  spec.launcherArgs = launcherArgs;
  spec.program = program;
  int exitCode = 0;
  auto exe = resolveProgram(program.front(), exitCode);
  if (!exe) {
    std::fprintf(stderr, "ferry doctor --binding: cannot start %s\n", exe.status().message().c_str());
    return exitCode;
  }
  spec.offload = !knownPlainProgram(*exe);
  if (spec.offload && refusedForSettings("ferry doctor")) return 1;
  return bindingDoctor(spec);
}

}  // namespace

// `ferry doctor`: this machine and the job's paths. `ferry doctor --binding PROGRAM`: where
// PROGRAM's threads ran on every rank (doctor_binding.cpp).
Command addDoctorCommand(CLI::App& app) {
  auto ranks = std::make_shared<int>(2);
  auto binding = std::make_shared<bool>(false);
  auto launcherArgs = std::make_shared<std::vector<std::string>>();
  app.add_option("-n,--np", *ranks, "ranks to start when not already inside an MPI job")->check(rankCount());
  app.add_flag("--binding", *binding,
               "run PROGRAM with each rank bound as ferry run binds it, and report per thread the allowed cores, "
               "the cores it ran on and how busy it was, with warnings (threads piled on a core, ranks that "
               "overlap or span NUMA domains)");
  app.add_option("--launcher-arg", *launcherArgs,
                 "with --binding: an argument for the MPI launcher (repeatable); its own binding options are "
                 "then kept and only reported")
      ->allow_extra_args(false);
  app.prefix_command();
  app.footer("Usage: ferry doctor [-n N]\n       ferry doctor --binding [-n N] [--launcher-arg ARG]... [--] PROGRAM [ARGS...]");
  return [ranks, binding, launcherArgs, &app] {
    std::vector<std::string> program = app.remaining();
    if (!program.empty() && program.front().starts_with("-")) {
      std::fprintf(stderr, "ferry doctor: unknown option %s (ferry doctor --help)\n", program.front().c_str());
      return 2;
    }
    if (*binding) return doctorBinding(*ranks, *launcherArgs, program);
    if (!program.empty()) {
      std::fprintf(stderr, "ferry doctor: %s is a program; ferry doctor --binding runs one and reports its binding\n",
                   program.front().c_str());
      return 2;
    }
    if (underMpiLauncher()) return jobReport();
    if (refusedForSettings("ferry doctor")) return 1;
    LaunchSpec spec;
    spec.ranks = *ranks;
    spec.program = {selfDir() + "/ferry", "doctor"};
    auto argv = launcherCommand(spec);
    if (!argv) {
      localReport();
      std::fprintf(stderr, "ferry doctor: %s\n", argv.status().message().c_str());
      return 1;
    }
    Status st = execCommand(*argv);
    std::fprintf(stderr, "ferry doctor: %s\n", st.message().c_str());
    return 1;
  };
}

}  // namespace ferry::tools
