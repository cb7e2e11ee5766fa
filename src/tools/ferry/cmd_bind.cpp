// ferry bind: the step each rank takes before its program runs. It binds the rank to the
// cores the node's binding plan gives it (platform/binding.h), points OpenMP's placement at
// exactly those cores, optionally starts the binding report's sampler, and execs the
// program, which keeps the rank's pid, binding and environment. ferry run puts it in front
// of every rank; with a plain launcher: mpirun -np 4 ferry bind ./app (docs/hybrid.md).
//
// The plan is applied here rather than through each launcher's own options because one
// mechanism then behaves the same under Open MPI, MPICH's Hydra and srun, and handles what
// their options cannot express alike: uneven ranks per node, threads on hardware threads,
// and the OpenMP places that must match the cores.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "platform/binding.h"
#include "platform/config.h"
#include "platform/log.h"
#include "platform/thread_report.h"
#include "tools/ferry/commands.h"
#include "tools/ferry/stop_signals.h"

namespace ferry::tools {
namespace {

constexpr double kReportDelaySeconds = 1.0;   // the program's threads start first
constexpr double kReportWindowSeconds = 1.0;
constexpr double kReportIntervalSeconds = 0.01;

int envThreads() {
  const char* v = std::getenv("OMP_NUM_THREADS");
  auto n = v ? parse::integer(v) : std::nullopt;  // "4,2" (nested levels): the first level
  if (!n && v) n = parse::integer(std::string(v).substr(0, std::string(v).find(',')));
  return n && *n > 0 ? static_cast<int>(*n) : 0;
}

// Why this rank keeps the placement it has, or "" to apply the plan.
std::string keptBecause(bool keep) {
  if (keep) return "the launcher's binding options were given to ferry run";
  const std::string& mode = config().text(Knob::Bind);
  if (mode == "off") return "FERRY_BIND=off";
  if (mode == "auto" && std::getenv("OMP_PLACES"))
    return std::string("OMP_PLACES=") + std::getenv("OMP_PLACES") + " is the user's (FERRY_BIND=on replaces it)";
  return "";
}

// Binds this process and sets OpenMP's placement to match. Notes about the whole node go
// out once, from its first rank. In an offload job rank 0 is left unbound: it runs main and
// libomp's helper threads, which wait on the devices and must never be piled onto one core
// (2 ranks on 2 cores, bound a core each, ran nowait regions 17x slower); its node's cores go
// to the serving ranks there, which run the kernels. The launchers number a node's ranks as
// a block, so rank 0's node is the one whose local rank 0 is rank 0.
void applyPlan(const NodeLayout& node, LocalRank local, bool offload) {
  if (offload && log::rank() == 0) {
    log::info(log::Bind, "rank 0 runs main and waits on the devices: left unbound, its node's cores go to the "
                         "serving ranks");
    return;
  }
  if (offload && log::rank() == local.rank) --local.rank, --local.size;  // rank 0's node: rank 0 takes none
  if (local.size > static_cast<int>(node.cores.size())) {
    if (local.rank == 0)
      log::warn(log::Bind, "%d ranks on the %zu cores of this node: they are left unbound for the kernel to share "
                           "out (bound, some cores would carry two ranks while others carry one); fewer ranks per "
                           "node give each rank cores of its own", local.size, node.cores.size());
    return;
  }
  NodePlan plan = planNode(node, local.size, envThreads());
  const RankCores& mine = plan.ranks[static_cast<size_t>(local.rank) % plan.ranks.size()];
  if (Status st = bindProcess(mine.pus); !st) {
    log::warn(log::Bind, "%s; the rank runs unbound", st.message().c_str());
    return;
  }
  setenv("OMP_NUM_THREADS", std::to_string(mine.threads).c_str(), 0);  // the user's value stays
  setenv("OMP_PLACES", mine.places.c_str(), 1);
  setenv("OMP_PROC_BIND", "close", 1);  // thread i on place i: the places are in the order wanted
  log::info(log::Bind, "node-local rank %d of %d (%s): CPUs %s, %d OpenMP thread(s), OMP_PLACES=%s", local.rank,
            local.size, local.source, cpuList(mine.pus).c_str(), mine.threads, mine.places.c_str());
  if (local.rank == 0)
    for (const std::string& note : plan.notes) log::warn(log::Bind, "%s", note.c_str());
}

void printReport(pid_t pid, const NodeLayout& node) {
  RankThreads r;
  r.rank = log::rank();
  r.host = log::hostName();
  r.threads = sampleThreads(pid, kReportWindowSeconds, kReportIntervalSeconds);
  for (const ThreadRecord& t : r.threads)
    if (t.tid == pid) r.allowed = t.allowed;
  std::string prefix = log::linePrefix(log::Level::Info, log::Bind);
  for (const ThreadRecord& t : r.threads) {
    std::string line = prefix + reportLine(r.rank, t) + "\n";
    log::writeRaw(line.c_str(), line.size());
  }
  for (const std::string& w : bindingWarnings({r}, node)) log::warn(log::Bind, "%s", w.c_str());
}

// The sampler watches the program from a grandchild, which init adopts: the program never
// finds an unknown child of its own (a wait(-1) would reap it).
void startReport(const NodeLayout& node) {
  pid_t program = getpid();
  pid_t child = fork();
  if (child != 0) {
    if (child > 0) waitpid(child, nullptr, 0);
    return;
  }
  if (fork() != 0) _exit(0);
  usleep(static_cast<useconds_t>(kReportDelaySeconds * 1e6));
  printReport(program, node);
  _exit(0);
}

int bindAndExec(const std::vector<std::string>& program, bool keep, bool report, bool offload) {
  if (program.empty()) {
    std::fprintf(stderr, "ferry bind: no program given (mpirun -np 4 ferry bind ./app)\n");
    return 2;
  }
  if (Status st = initPlatform(); !st)
    log::warn(log::Bind, "%s; the settings in effect bind this rank", st.message().c_str());
  auto node = loadNodeLayout();
  if (!node) log::warn(log::Bind, "%s; the rank runs as the launcher placed it", node.status().message().c_str());
  std::string kept = keptBecause(keep);
  if (node && kept.empty()) applyPlan(node.value(), localRankFromLauncher(), offload);
  else if (node) log::info(log::Bind, "keeps its placement: %s", kept.c_str());
  if (node && (report || config().flag(Knob::BindingReport))) startReport(node.value());
  std::vector<char*> argv;
  for (const auto& a : program) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  restoreIgnoredStopSignals();  // nohup's SIGHUP, hidden by MPICH's UCX handler, stays ignored
  execvp(argv[0], argv.data());
  std::fprintf(stderr, "ferry bind: cannot start %s: %s\n", argv[0], std::strerror(errno));
  return 127;
}

}  // namespace

Command addBindCommand(CLI::App& app) {
  auto keep = std::make_shared<bool>(false);
  auto report = std::make_shared<bool>(false);
  auto offload = std::make_shared<bool>(false);
  app.add_flag("--keep", *keep, "keep the placement the launcher gave (report only)");
  app.add_flag("--offload", *offload,
               "an offload job: rank 0, which runs main, stays unbound; the serving ranks share out the cores");
  app.add_flag("--report", *report,
               "after a second, report each thread's allowed cores, where it ran and how busy it was "
               "(as FERRY_BINDING_REPORT=1 does)");
  app.prefix_command();
  app.footer("Usage, as each rank's command: mpirun -np 4 ferry bind [--report] [--] PROGRAM [ARGS...]\n"
             "Binds the rank to cores of its own (FERRY_BIND; OMP_NUM_THREADS sizes it) and execs PROGRAM.");
  return [keep, report, offload, &app] {
    std::vector<std::string> program = app.remaining();
    return bindAndExec(program, *keep, *report, *offload);
  };
}

}  // namespace ferry::tools
