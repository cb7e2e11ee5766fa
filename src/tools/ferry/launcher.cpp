#include "tools/ferry/launcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/config.h"
#include "platform/log.h"
#include "platform/omp_registry.h"
#include "platform/topology.h"
#include "tools/ferry/stop_signals.h"

extern char** environ;

namespace ferry::tools {
namespace fs = std::filesystem;

std::string selfDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

bool inBuildTree() { return fs::exists(fs::path(selfDir()).parent_path() / "CMakeCache.txt"); }

Result<std::string> pluginDir() {
  const std::string plugin = "libomptarget.rtl.x86_64.nextgen.so";
  fs::path bin = selfDir();
  // Build tree: build/bin/ferry -> build/lib/ferry/offload. Install: prefix/bin -> prefix/<libdir>/ferry/offload.
  // Only next to this executable: an installed ferry must never run the build tree's plugin.
  std::vector<fs::path> dirs = {bin.parent_path() / "lib" / FERRY_PLUGIN_SUBDIR};
  if (std::string_view(FERRY_INSTALL_LIBDIR) != "lib")
    dirs.push_back(bin.parent_path() / FERRY_INSTALL_LIBDIR / FERRY_PLUGIN_SUBDIR);
  for (const fs::path& dir : dirs)
    if (fs::exists(dir / plugin) && fs::exists(dir / "libomptarget.rtl.x86_64.so")) return fs::canonical(dir).string();
  return Status(Errc::NotFound, "the Ferry offload plugin (" + plugin + ") is not in " + dirs[0].string() +
                                    (dirs.size() > 1 ? " nor in " + dirs[1].string() : std::string()) +
                                    "; build it (cmake --build build) or install it with this ferry (cmake --install)");
}

Result<std::string> pmpiLibrary() {
  const std::string lib = "libferry-pmpi.so";
  fs::path bin = selfDir();
  // Build tree: build/bin/ferry -> build/lib. Install: prefix/bin -> prefix/<libdir>.
  for (const fs::path& dir : {bin.parent_path() / "lib", bin.parent_path() / FERRY_INSTALL_LIBDIR})
    if (fs::exists(dir / lib)) return fs::canonical(dir / lib).string();
  return Status(Errc::NotFound, "the collectives interposer (" + lib + ") is not in " +
                                    (bin.parent_path() / "lib").string() + " nor in " +
                                    (bin.parent_path() / FERRY_INSTALL_LIBDIR).string() +
                                    "; build it (cmake --build build --target ferry_pmpi)");
}

std::string prependedLibraryPath(const std::string& dir) {
  const char* cur = std::getenv("LD_LIBRARY_PATH");
  std::string rest = cur ? cur : "";
  // Drop an existing copy so that repeated `eval "$(ferry env)"` keeps the path short.
  std::string out = dir;
  size_t start = 0;
  while (start <= rest.size()) {
    size_t end = rest.find(':', start);
    std::string part = rest.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!part.empty() && part != dir) out += ":" + part;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

int srunStepTasks() {
  // Set in the tasks of a step only, not in a batch script (which has SLURM_NTASKS).
  const char* v = std::getenv("SLURM_STEP_NUM_TASKS");
  return v ? std::atoi(v) : 0;
}

bool underMpiLauncher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v)) return true;
  // A task of an srun step of several tasks is a rank too, where srun's MPI plugin set no
  // rank variable (--mpi=none, Slurm's default): taken for the CLI, each task of `srun -n 3
  // ferry info` started a job of its own inside the step, whose launcher's srun then waited
  // for CPUs that the step holds, for ever.
  return srunStepTasks() > 1;
}

namespace {

// Whether the user placed the ranks themselves: a binding or mapping option passed through,
// or Open MPI's binding policy set in the environment.
bool bindingChosen(const std::vector<std::string>& launcherArgs) {
  if (std::getenv("OMPI_MCA_hwloc_base_binding_policy")) return true;
  for (const std::string& a : launcherArgs) {
    std::string_view opt = a;
    while (opt.starts_with('-')) opt.remove_prefix(1);
    for (std::string_view name : {"bind-to", "map-by", "rankfile", "rf", "cpu-set", "cpu-list"})
      if (opt.starts_with(name)) return true;
  }
  return false;
}

}  // namespace

std::string shellWord(const std::string& word) {
  bool plain = !word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                       "0123456789_@%+=:,./-") == std::string::npos;
  return plain ? word : shellQuoted(word);
}

std::string shellQuoted(const std::string& value, bool csh) {
  // A ' ends the quote, is escaped and reopens it; csh expands ! even inside quotes.
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') out += "'\\''";
    else if (c == '!' && csh) out += "'\\!'";
    else out += c;
  }
  return out + "'";
}

namespace {

// Open MPI's launcher: root, oversubscription, binding, and the environment it carries.
void addOpenMpiOptions(const LaunchSpec& spec, std::vector<std::string>& argv,
                       const std::function<void(const char*, const std::string&)>& set) {
  if (geteuid() == 0 && !std::getenv("OMPI_ALLOW_RUN_AS_ROOT")) {
    // Open MPI refuses to start as root unless told twice; a launcher wrapper that is
    // itself run as root means it.
    set("OMPI_ALLOW_RUN_AS_ROOT", "1");
    set("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    log::info(log::Init, "running as root: set OMPI_ALLOW_RUN_AS_ROOT for Open MPI's launcher");
  }
  if (spec.ranks > nodeTopology().pus) {
    argv.push_back("--oversubscribe");  // Open MPI then yields instead of refusing
    log::info(log::Init, "%d ranks on %d hardware threads: adding --oversubscribe", spec.ranks, nodeTopology().pus);
  }
  // Open MPI binds each rank to one core when it starts two ranks or fewer (to a package
  // beyond), and OpenMP then piles the rank's threads onto that core. Unless the user places
  // the ranks, ferry bind does (platform/binding.h): the launcher binds nothing.
  if (!bindingChosen(spec.launcherArgs)) {
    argv.insert(argv.end(), {"--bind-to", "none"});
    log::info(log::Init, "adding --bind-to none: ferry bind gives each rank cores of its own");
  }
  // Local ranks inherit the environment; -x carries it to other nodes too.
  argv.insert(argv.end(), {"-x", "LD_LIBRARY_PATH"});
  if (!spec.preload.empty()) argv.insert(argv.end(), {"-x", "LD_PRELOAD"});
  // OMP_* too: OMP_NUM_THREADS, say, sizes the kernels of serving ranks; SHMEM_* the
  // OpenSHMEM library's heap.
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "FERRY_", 6) == 0 || std::strncmp(*e, "OMP_", 4) == 0 || std::strncmp(*e, "SHMEM_", 6) == 0)
      argv.insert(argv.end(), {"-x", std::string(*e).substr(0, std::strchr(*e, '=') - *e)});
}

// Every rank starts as `ferry bind [--offload] [--keep] -- PROGRAM`: it binds itself to the
// cores the node's plan gives it, places its OpenMP threads there, and execs the program
// (cmd_bind.cpp). Binding options the user gave the launcher are kept (and reported).
void addBindStep(const LaunchSpec& spec, std::vector<std::string>& argv) {
  if (config().text(Knob::Bind) == "off" && !spec.bindReport) return;  // ferry bind then only reports
  argv.insert(argv.end(), {selfDir() + "/ferry", "bind"});
  if (spec.offload) argv.push_back("--offload");
  if (spec.bindReport) argv.push_back("--report");
  if (bindingChosen(spec.launcherArgs)) argv.push_back("--keep");
  argv.push_back("--");
}

// MPICH's Hydra SIGKILLs every rank within milliseconds of one dying, so that none can say
// which it lost (its own report names a pid, not always the lost rank's). An offload job
// ends itself when a rank dies, naming it (comm/liveness.h: at once on this machine, within
// FERRY_TIMEOUT elsewhere): Hydra leaves that to it. An MPI program under --pmpi keeps
// Hydra's clean-up, since a rank the library still waits for would wait for ever.
void addMpichOptions(const LaunchSpec& spec, std::vector<std::string>& argv) {
  if (spec.offload) argv.push_back("-disable-auto-cleanup");
}

}  // namespace

Result<std::vector<std::string>> launcherCommand(const LaunchSpec& spec, std::vector<std::string>* environment) {
  auto dir = pluginDir();
  if (!dir) return dir.takeStatus();
  auto set = [environment](const char* name, const std::string& value) {
    setenv(name, value.c_str(), 1);
    if (environment) environment->push_back(std::string(name) + "=" + value);
  };
  set("LD_LIBRARY_PATH", prependedLibraryPath(*dir));
  if (!spec.preload.empty()) {
    // Ferry's libraries first, then what the user preloads already, which used to be dropped.
    // Where both define an MPI function, Ferry's runs first and hands what it does not run
    // itself to the next definition (src/coll/next_layer.h): the tool's.
    std::string pre;
    for (const auto& p : spec.preload) pre += (pre.empty() ? "" : ":") + p;
    if (const char* old = std::getenv("LD_PRELOAD"); old && *old) {
      pre += std::string(":") + old;
      log::warn(log::Init,
                "LD_PRELOAD already holds %s: it is kept, after Ferry's interposer. A PMPI tool in it (mpiP, Darshan, "
                "Score-P) sees MPI_Init and every call that Ferry hands to the MPI library, but not the allreduces "
                "Ferry runs itself (within a node they use shared memory, across nodes the tool sees the messages "
                "they are made of), nor the MPI_Alloc_mem/MPI_Free_mem of blocks Ferry serves; FERRY_COLL=off "
                "hands every call to it",
                old);
    }
    set("LD_PRELOAD", pre);
  }

  std::vector<std::string> argv = {FERRY_MPIEXEC};
  if (std::string(FERRY_MPI_FLAVOR) == "openmpi") addOpenMpiOptions(spec, argv, set);
  else addMpichOptions(spec, argv);
  argv.insert(argv.end(), {"-n", std::to_string(spec.ranks)});
  argv.insert(argv.end(), spec.launcherArgs.begin(), spec.launcherArgs.end());
  addBindStep(spec, argv);
  argv.insert(argv.end(), spec.program.begin(), spec.program.end());
  return argv;
}

namespace {
volatile sig_atomic_t gLauncher = 0;
volatile sig_atomic_t gStopSignal = 0;  // the signal that stopped the job, once one came

// SIGTERM, SIGHUP, and a SIGINT that a process sent, are passed on to the launcher: sent to
// this process alone (`kill PID`, a batch system that signals the job's first process),
// they would otherwise leave the job running. One sent to the whole process group
// (`timeout`, `kill -TERM -PGID`) reaches the launcher twice, which nothing in a signal
// tells apart; Open MPI's launcher may then end the ranks at once, before rank 0 reports.
// The terminal's Ctrl-C (SI_KERNEL) is the group's for sure: only noted.
void onStopSignal(int sig, siginfo_t* info, void*) {
  gStopSignal = sig;
  bool fromTerminal = sig == SIGINT && info != nullptr && info->si_code == SI_KERNEL;
  if (!fromTerminal && gLauncher > 0) kill(static_cast<pid_t>(gLauncher), sig);
}

// The launcher's status as this process's end. A job this process was told to stop ends it
// with that signal, whatever the launcher returned: MPICH's Hydra sometimes exits 0 after a
// SIGTERM, which a batch system would read as success, and a calling script must stop as
// after its own Ctrl-C. A launcher that reports a rank killed by a crash signal does so
// too; other statuses are returned.
int mirrorEnd(int status) {
  if (gStopSignal != 0) {
    dieOfSignal(gStopSignal);
    return 128 + gStopSignal;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  int sig = code > 128 ? code - 128 : 0;
  // Not SIGILL: Open MPI's launcher exits 132 when it cannot start the processes at all.
  for (int crash : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGKILL})
    if (sig == crash) dieOfSignal(sig);
  return code;
}
}  // namespace

int runAndMirror(const std::vector<std::string>& argv) {
  StopSignalsHeld held;
  // Before the fork: the launcher inherits SIG_IGN for what this process was started
  // ignoring (exec keeps it, and resets the handlers).
  handleStopSignals(onStopSignal);
  pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "ferry run: fork failed: %s\n", std::strerror(errno));
    return 127;
  }
  if (child == 0) {
    defaultStopSignalsInChild();  // before the unblocking: what is pending ends the child
    sigprocmask(SIG_SETMASK, &held.callersMask(), nullptr);  // the launcher gets the caller's mask
    Status st = execCommand(argv);
    std::fprintf(stderr, "ferry run: %s\n", st.message().c_str());
    _exit(127);
  }
  gLauncher = child;
  long started = static_cast<long>(time(nullptr)) - 1;
  held.release();  // what came meanwhile is passed on now
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  gLauncher = 0;  // reaped: its pid may be another process's now
  // Ranks the launcher SIGKILLed could not remove libomp's entries in /dev/shm.
  if (int n = removeStaleOpenMpRegistrations(started))
    log::debug(log::Init, "removed %d entries of libomp in /dev/shm left by ranks that were killed", n);
  return mirrorEnd(status);
}

Status execCommand(const std::vector<std::string>& argv) {
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  execvp(cargv[0], cargv.data());
  return Status(Errc::NotFound, "cannot start " + argv[0] + ": " + std::strerror(errno));
}

}  // namespace ferry::tools
