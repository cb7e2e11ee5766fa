#include "offload/bootstrap.h"

#include <dlfcn.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "comm/liveness.h"
#include "comm/mpi_check.h"
#include "comm/trace_merge.h"
#include "comm/watchdog.h"
#include "comm/channel_auth.h"
#include "comm/channel_tls.h"
#include "comm/channel_socket.h"
#include "comm/channel_transport.h"
#include "comm/mpi_transport.h"
#include "comm/routed_transport.h"
#include "comm/world.h"
#include "offload/app_check.h"
#include "offload/client.h"
#include "offload/device_table.h"
#include "offload/wait_report.h"
#include "platform/config.h"
#include "platform/init.h"
#include "platform/log.h"
#include "platform/main_thread.h"
#include "platform/net_address.h"
#include "platform/topology.h"
#include "platform/trace.h"
#include "service/client_memory.h"
#include "service/crash_report.h"
#include "service/discovery.h"
#include "service/image_hooks.h"
#include "service/serving.h"

namespace ferry::offload {
namespace {

struct Runtime {
  comm::World* world = nullptr;
  std::unique_ptr<comm::LivenessResponder> responder;
  std::unique_ptr<service::ServerThread> localServer;  // rank 0's own devices (FERRY_RANK0_DEVICES)
  Client* client = nullptr;
  std::vector<std::unique_ptr<comm::Transport>> daemons;  // rank 0: FERRY_REMOTE's channels
  bool stopped = false;
  bool tracing = false;
};

// Whether rank 0 can write the timeline to `path` (created or replaced at the end).
Status traceFileWritable(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  bool exists = access(path.c_str(), F_OK) == 0;
  struct stat st {};
  if (exists && stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return Status(Errc::InvalidArgument, "FERRY_TRACE=" + path + " is a directory; name a file (" + path +
                                             "/trace.json, say)");
  if (access(exists ? path.c_str() : dir.c_str(), W_OK) == 0) return {};
  return Status(Errc::InvalidArgument, "FERRY_TRACE=" + path + ": rank 0 cannot write " +
                                           (exists ? "that file" : "in " + dir) + " (" + std::strerror(errno) +
                                           "); name a file in a directory rank 0 can write");
}

// Collective at the end of the job: every rank's events, merged on rank 0.
std::string gatherTimeline(Runtime& rt, const std::string& processName) {
  if (!rt.tracing) return {};
  auto doc = comm::gatherTrace(*rt.world, processName);
  if (doc) return std::move(doc.value());
  log::error(log::Init, "FERRY_TRACE: %s", doc.status().message().c_str());
  return {};
}

// Rank 0, after the job's last collective: a slow file system holds up no other rank.
void saveTimeline(const std::string& document) {
  if (document.empty()) return;
  std::string path = config().text(Knob::Trace);
  if (path.empty()) path = "ferry-trace.json";
  if (Status st = comm::writeTraceFile(path, document); !st) log::error(log::Init, "FERRY_TRACE: %s", st.message().c_str());
  else log::info(log::Init, "FERRY_TRACE: timeline written to %s", path.c_str());
}
Runtime* gRuntime = nullptr;  // never destroyed, see Client

// "3 devices (0-2) served by ranks 1-3", "... by rank 1 and 1 daemon(s)"
std::string describeTable(const DeviceTable& t) {
  if (t.size() == 0) return "no devices";
  int lo = -1, hi = -1;
  std::set<std::string> daemons;
  for (const auto& e : t.entries()) {
    if (e.node < 0) {  // a daemon's device (DeviceTable::appendRemote): no rank serves it
      daemons.insert(e.host);
      continue;
    }
    lo = lo < 0 ? e.rank : lo;
    hi = e.rank;
  }
  std::string by;
  if (lo >= 0) by = lo == hi ? "rank " + std::to_string(lo) : "ranks " + std::to_string(lo) + "-" + std::to_string(hi);
  if (!daemons.empty()) by += (by.empty() ? "" : " and ") + std::to_string(daemons.size()) + " daemon(s)";
  return std::to_string(t.size()) + " device(s), numbered 0-" + std::to_string(t.size() - 1) + ", served by " + by;
}

[[noreturn]] void exitBeforeMpi(const Status& st) {
  log::error(log::Init, "%s", st.message().c_str());
  std::exit(1);
}

// The largest of the ranks' values. A job whose ranks cannot even reduce one integer cannot
// go on: this rank says why and ends (the launcher then ends the others). PMPI_, as all of
// Ferry's own allreduces: a PMPI tool counts only the program's (docs/collectives.md).
int maxOverRanks(comm::World& w, int mine, const char* step) {
  int most = 0;
  Status st = comm::mpiStatus(PMPI_Allreduce(&mine, &most, 1, MPI_INT, MPI_MAX, w.comm()), "PMPI_Allreduce");
  if (st) return most;
  log::error(log::Init, "%s failed: %s", step, st.message().c_str());
  std::exit(1);
}

// Start-up steps after MPI_Init are collective: a rank that fails must not leave the others
// waiting in the next collective. All ranks agree on success; every rank that failed says
// why, and the whole job exits 1.
void agreeOrExit(comm::World& w, const Status& local, const char* step) {
  bool anyFailed = maxOverRanks(w, local.isOk() ? 0 : 1, step);
  if (!anyFailed) return;
  if (!local.isOk()) log::error(log::Init, "%s failed: %s", step, local.message().c_str());
  else if (w.rank() == 0) log::error(log::Init, "%s failed on another rank; its message says why", step);
  // The job ends with 1 either way; a failed finalize only adds to what is said.
  if (Status fin = w.finalize(); !fin) log::warn(log::Init, "after %s failed: %s", step, fin.message().c_str());
  std::exit(1);
}

// Tracing is decided together: a rank that records alone would wait in the gather.
bool agreeOnTracing(comm::World& w) {
  if (!maxOverRanks(w, trace::enabled() ? 1 : 0, "agreeing on FERRY_TRACE")) return false;
  trace::enable();
  // Rank 0 writes the timeline when the job ends: a file it cannot write is an error now,
  // not after the run.
  agreeOrExit(w, w.rank() == 0 ? traceFileWritable(config().text(Knob::Trace)) : Status(), "checking FERRY_TRACE");
  agreeOrExit(w, comm::alignTraceClocks(w), "aligning trace clocks");
  return true;
}

// Rank 0 runs main's OpenMP threads and libomp's hidden helper threads, which carry every
// nowait region. Bound to one core they take turns on it: with 2 ranks on 2 cores, Open
// MPI's default binding made empty nowait regions 17x slower. `ferry run` starts ranks
// unbound; a job started otherwise is told how.
void warnIfHostOnOneCore() {
  const NodeTopology& t = nodeTopology();
  if (!t.bound || t.boundCores > 1 || t.cores < 2) return;
  log::warn(log::Init,
            "rank 0 is bound to one core (PUs %s of the node's %d cores): main's OpenMP threads, and libomp's "
            "hidden helper threads that run every nowait region, take turns on it (17x fewer nowait regions per "
            "second, measured). Start rank 0 on more cores: `ferry run` does (--bind-to none), except under --pmpi, "
            "which keeps the launcher's binding; with mpirun add --bind-to none or --map-by slot:PE=<cores per "
            "rank>, with srun -c <cores per rank>",
            t.bindingText.c_str(), t.cores);
}

int servingRanksOnNode(const comm::World& w, bool rank0Serves) {
  int n = 0;
  for (int r = 0; r < w.size(); ++r)
    if (w.peer(r).physNode == w.self().physNode && (r != 0 || rank0Serves)) ++n;
  return n;
}

[[noreturn]] void serveAndExit(Runtime& rt, std::vector<std::unique_ptr<service::LocalDevice>> devices,
                               std::vector<int> globalIds) {
  auto transport = std::make_unique<comm::MpiTransport>(*rt.world, comm::MpiTransport::Role::Server);
  bool sleep = rt.world->machineOversubscribed();
  log::info(log::Service, "rank %d: an idle server %s (%s)", rt.world->rank(), sleep ? "sleeps" : "polls",
            sleep ? "more ranks than hardware threads on this machine" : "each rank of this machine has a core");
  service::ServeOutcome out =
      service::serve(std::move(transport), std::move(devices), std::move(globalIds), 0, {}, sleep);
  Status st = out.status;
  if (!st) {
    log::error(log::Service, "rank %d stops serving: %s", rt.world->rank(), st.message().c_str());
    if (out.lostIssuer) rt.world->abortForLostRank(0);
    comm::World::abortJob();
  }
  (void)gatherTimeline(rt, "rank " + std::to_string(rt.world->rank()) + " (" + rt.world->self().host +
                                 "): device server");  // a document on rank 0 only
  st = rt.world->finalize(rt.responder.get());
  if (!st) log::error(log::Service, "rank %d, done serving: %s", rt.world->rank(), st.message().c_str());
  service::exitServingProcess(st.isOk());
}

}  // namespace

JobDevices discoverJobDevices(comm::World& w) {
  const bool rank0Serves = config().flag(Knob::Rank0Devices);
  JobDevices job;
  Status found;
  if (w.rank() != 0 || rank0Serves) {
    service::setClientMemory(&service::mpiClientMemory());  // kernels may reach rank 0's memory
    auto d = service::discoverLocalDevices(servingRanksOnNode(w, rank0Serves));
    if (d) job.local = std::move(d.value());
    else found = d.takeStatus();
  }
  agreeOrExit(w, found, "device discovery");
  auto table = DeviceTable::build(w, job.local);
  agreeOrExit(w, table.status(), "building the device table");
  job.table = std::move(table.value());
  return job;
}

namespace {

// srun's tasks find each other through its MPI plugin (--mpi). With one that this MPI
// library does not speak (MPICH under srun's default --mpi=none or --mpi=pmix), every task
// starts as a job of one rank of its own and runs main, and "start 2 or more ranks" would
// tell the user to do what they did. SLURM_STEP_NUM_TASKS is set in the tasks of a step
// only, not in a batch script. Empty when the job's size is what srun started.
std::string srunPluginMismatch(int ranks) {
  const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
  if (ranks != 1 || !tasks || std::atoi(tasks) <= 1) return "";
  return "srun started " + std::string(tasks) +
         " tasks, but MPI sees a job of 1 rank in each: srun's MPI plugin does not reach this MPI library, so "
         "every task runs main alone. Name the plugin: srun --mpi=pmix for Open MPI, srun --mpi=pmi2 for MPICH "
         "(srun --mpi=list shows those there are; MpiDefault in slurm.conf sets one for every srun)";
}
}  // namespace

// Names the cause: too few ranks, or serving ranks set to expose nothing.
std::string noDeviceMessage(int ranks) {
  if (std::string mismatch = srunPluginMismatch(ranks); !mismatch.empty())
    return "no device to offload to: " + mismatch;
  // FERRY_DEVICES_PER_RANK=0 leaves rank 0 without CPU devices too: FERRY_RANK0_DEVICES
  // would not help then.
  if (config().isSet(Knob::DevicesPerRank) && config().integer(Knob::DevicesPerRank) == 0)
    return "no device to offload to: the job has " + std::to_string(ranks) +
           " rank(s), and FERRY_DEVICES_PER_RANK=0 leaves every rank without CPU devices (and they found no GPU). "
           "Unset it or set it to 1 or more";
  return "no device to offload to: the job has " + std::to_string(ranks) +
         " rank(s) and rank 0 serves none. Start 2 or more ranks (`ferry run -n 3 ./app`), or set "
         "FERRY_RANK0_DEVICES=1 to use rank 0's own devices";
}

// Rank 0's own devices (FERRY_RANK0_DEVICES) are served by a thread of rank 0.
void startLocalServer(Runtime& rt, std::vector<std::unique_ptr<service::LocalDevice>> devices,
                      std::vector<int> globalIds) {
  rt.localServer = std::make_unique<service::ServerThread>(
      std::make_unique<comm::MpiTransport>(*rt.world, comm::MpiTransport::Role::Server), std::move(devices),
      std::move(globalIds), [] { comm::World::abortJob(); });
}

// A daemon's socket, with TLS under it where FERRY_REMOTE_TLS says (comm/channel_tls.h).
Result<std::unique_ptr<comm::ChannelIo>> connectChannel(const NetAddress& a, double timeout) {
  auto fd = comm::connectTo(a, timeout);
  if (!fd) return fd.takeStatus();
  if (!config().flag(Knob::RemoteTls)) return comm::plainChannelIo(*fd, "daemon " + a.text);
  comm::TlsClientOptions tls{config().text(Knob::RemoteTlsCa), config().flag(Knob::RemoteTlsVerify)};
  auto io = comm::tlsConnect(*fd, a, tls, "daemon " + a.text, timeout);
  if (!io) return io.takeStatus().withContext("FERRY_REMOTE_TLS");
  return io;
}

// Rank 0, with FERRY_REMOTE: connects to each daemon, proves the token and learns its devices,
// which join the table after the ranks' (peer numbers from the job's size on).
Status connectDaemons(Runtime& rt, DeviceTable& table) {
  const std::string list = config().text(Knob::Remote);
  if (list.empty()) return {};
  auto addrs = parseNetAddressList(list);
  if (!addrs) return addrs.takeStatus().withContext("FERRY_REMOTE");
  const std::string tokenFile = config().text(Knob::RemoteTokenFile);
  if (tokenFile.empty())
    return Status(Errc::InvalidArgument, "FERRY_REMOTE names daemons but FERRY_REMOTE_TOKEN_FILE is not set: set it "
                                         "to the token file the daemons were started with");
  auto token = comm::readTokenFile(tokenFile);
  if (!token) return token.takeStatus().withContext("FERRY_REMOTE_TOKEN_FILE");
  const double timeout = config().seconds(Knob::Timeout);
  for (const NetAddress& a : *addrs) {
    auto io = connectChannel(a, timeout);
    if (!io) return io.takeStatus();
    auto t = std::make_unique<comm::ChannelTransport>(std::move(io.value()), 0, "rank 0 on host " + rt.world->self().host,
                                                      "daemon " + a.text);
    auto announced = comm::authenticateServer(*t, *token, timeout);
    if (!announced) return announced.takeStatus().withContext("daemon " + a.text);
    auto devices = DeviceTable::decodeLocal(announced->data(), announced->size());
    if (!devices) return devices.takeStatus().withContext("daemon " + a.text);
    log::info(log::Offload, "daemon %s: %zu device(s)", a.text.c_str(), devices->size());
    table.appendRemote(std::move(devices.value()), rt.world->size() + static_cast<int>(rt.daemons.size()), a.text);
    rt.daemons.push_back(std::move(t));
  }
  return {};
}

std::unique_ptr<comm::Transport> clientTransport(Runtime& rt) {
  auto ranks = std::make_unique<comm::MpiTransport>(*rt.world, comm::MpiTransport::Role::Issuer);
  if (rt.daemons.empty()) return ranks;
  return std::make_unique<comm::RoutedTransport>(std::move(ranks), std::move(rt.daemons));
}

void startClient(Runtime& rt, DeviceTable table) {
  rt.client = new Client(*rt.world, clientTransport(rt), std::move(table));
  Client::setInstance(rt.client);
  std::vector<std::string> where;
  for (int d = 0; d < rt.client->numDevices(); ++d) where.push_back(rt.client->where(d));
  installTerminationReport(describeTable(rt.client->table()), std::move(where));
  // The last unregister_lib normally ends the job, but a shared library's image is
  // unregistered from _dl_fini, after other libraries (UCX under MPICH) have run their
  // destructors, which is too late for MPI_Finalize. This handler runs before _dl_fini,
  // and after the executable's own unregistration (registered later, so run earlier).
  std::atexit([] { stopOffload(); });
  if (log::enabled(log::Level::Info, log::Offload)) {
    log::info(log::Offload, "device table (%zu devices):", rt.client->table().size());
    log::info(log::Offload, "%s", DeviceTable::header().c_str());
    for (size_t i = 0; i < rt.client->table().size(); ++i)
      log::info(log::Offload, "%s", rt.client->table().row(i).c_str());
  }
}

Client* startOffload() {
  if (gRuntime) return gRuntime->client;  // init_plugin may run twice on one object
  if (Status st = initPlatform(); !st) exitBeforeMpi(st);
  if (std::string init = executableImportsMpiInit(); !init.empty())
    exitBeforeMpi(Status(Errc::Unsupported,
                         "this program calls " + init + " itself, but in offload mode Ferry owns MPI: rank 0 runs "
                         "main and the other ranks serve devices, so the program's MPI calls would wait for ranks "
                         "that never run main. Remove the MPI calls, or run the program without Ferry's offload "
                         "plugin (for MPI programs, see `ferry run --pmpi`)"));

  auto* rt = new Runtime();
  auto world = comm::World::create();
  if (!world) exitBeforeMpi(world.status());
  rt->world = *world;
  comm::World& w = *rt->world;
  // Every step up to the responders' start waits for every rank, which no probe watches yet.
  std::optional<comm::Watchdog> startUp;
  startUp.emplace("Ferry's start-up (device discovery, the device table)", comm::startUpSeconds(), w.rank());

  JobDevices job = discoverJobDevices(w);
  const bool noRankDevices = job.table.size() == 0;  // the same on every rank
  // Collective: a daemon rank 0 cannot reach ends the whole job, not rank 0 alone.
  agreeOrExit(w, w.rank() == 0 ? connectDaemons(*rt, job.table) : Status(), "connecting to FERRY_REMOTE's daemons");
  // A job of rank 0's own devices runs anyway, as many times as srun started it.
  if (std::string mismatch = srunPluginMismatch(w.size()); !mismatch.empty() && job.table.size() > 0)
    log::warn(log::Init, "%s", mismatch.c_str());
  if (noRankDevices) {
    // Every rank sees the same empty table of ranks' devices; rank 0 alone, which holds the
    // daemons' too, decides and says why.
    bool none = w.rank() == 0 && job.table.size() == 0;
    agreeOrExit(w, none ? Status(Errc::NotFound, noDeviceMessage(w.size())) : Status(), "finding devices");
  }
  auto devices = std::move(job.local);
  service::setJobView(static_cast<int>(job.table.size()));
  std::vector<int> globalIds;  // this rank's devices, by their number in the job's table
  for (const auto& e : job.table.entries())
    if (e.rank == w.rank()) globalIds.push_back(e.index);
  rt->tracing = agreeOnTracing(w);
  rt->responder = std::make_unique<comm::LivenessResponder>(w.comm());
  startUp.reset();
  gRuntime = rt;

  if (w.rank() != 0) {
    service::installCrashReport();
    serveAndExit(*rt, std::move(devices), std::move(globalIds));
  }

  if (!devices.empty()) startLocalServer(*rt, std::move(devices), std::move(globalIds));
  trace::nameThread("main");
  warnIfHostOnOneCore();
  startClient(*rt, std::move(job.table));
  return rt->client;
}

void drainTargetTasksAtExit() {
  // An exit handler registered now, after the program's constructors registered the image's
  // unregistration, runs before it; libomp ends later still, in its destructor. Only on the
  // main thread: a taskwait waits for the children of the calling thread's task, and the
  // initial task is the one that made the program's nowait regions.
  static std::once_flag once;
  std::call_once(once, [] {
    std::atexit([] {
      using Taskwait = void (*)();
      auto taskwait = reinterpret_cast<Taskwait>(dlsym(RTLD_DEFAULT, "GOMP_taskwait"));
      if (taskwait && onMainThread() && gRuntime && !gRuntime->stopped) taskwait();
    });
  });
}

void stopOffload() {
  Runtime* rt = gRuntime;
  if (!rt || rt->stopped || !rt->client) return;
  rt->stopped = true;
  Status st = rt->client->shutdown();
  if (!st) log::error(log::Offload, "at shutdown: %s", st.message().c_str());
  rt->localServer.reset();  // joins it: the client's Shutdown ended it
  std::string timeline = gatherTimeline(*rt, "rank 0 (" + rt->world->self().host + "): main");
  if (Status fin = rt->world->finalize(rt->responder.get()); !fin) log::error(log::Offload, "%s", fin.message().c_str());
  saveTimeline(timeline);
  if (!st) std::_Exit(1);
}

}  // namespace ferry::offload
