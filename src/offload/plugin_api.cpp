// The libomptarget 16 plugin ABI (docs/llvm16-plugin-abi.md), exported
// under the x86_64 slot's names. Each entry point validates its device id, calls the
// client, and converts a failure into OFFLOAD_FAIL plus exactly one log line that names
// the operation, the device, the serving rank and its host.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "offload/bootstrap.h"
#include "offload/client.h"
#include "offload/host_image.h"
#include "offload/wait_report.h"
#include "platform/clock.h"
#include "platform/log.h"
#include "platform/main_thread.h"
#include "platform/parse.h"
#include "platform/trace.h"
#include "service/omptarget_abi.h"

#define FERRY_EXPORT extern "C" __attribute__((visibility("default")))

namespace ferry::offload {
namespace {

std::atomic<int> gRegisteredLibs{0};

// The event libomptarget attaches to a map entry: the device whose stream it marks.
struct Event {
  int device;
};

Client& client() { return *Client::instance(); }

// An operation failed: say why, and remember it, so that an abort that follows is told
// apart from one of the program's own (wait_report.h).
template <typename... Args>
void failed(const char* format, Args... args) {
  noteOffloadFailure();
  log::error(log::Offload, format, args...);
}

bool validDevice(int32_t id, const char* op) {
  Client* c = Client::instance();
  if (c && id >= 0 && id < c->numDevices()) return true;
  failed("%s: unknown device %d; this job has %d device(s) (`ferry info` lists them)", op, id, c ? c->numDevices() : 0);
  return false;
}

// An operation refused because Ferry's exit handler has ended MPI. On the main thread that is
// libomptarget's own clean-up at exit (a shared library's images), not worth alarming anyone
// about. On another thread it is a target task the program left pending when main returned
// (nowait without taskwait), which can no longer run: said as such, not as a lost device.
// Returns false before the shutdown: the failure is then the caller's to report.
bool reportedAfterShutdown(const Status& st, const char* op, int32_t id) {
  if (!client().isShutDown()) return false;
  std::string where = id >= 0 ? " on " + client().where(id) : std::string();
  if (onMainThread()) {
    log::info(log::Offload, "%s%s: %s", op, where.c_str(), st.message().c_str());
    return true;
  }
  failed("%s%s: main returned while this target task was still pending (nowait without a taskwait), and Ferry "
         "ended MPI at exit, so it cannot run. Wait for such regions before main returns (#pragma omp taskwait)",
         op, where.c_str());
  return true;
}

int32_t report(const Status& st, const char* op, int32_t id) {
  if (st.isOk()) return abi::kOffloadSuccess;
  if (!reportedAfterShutdown(st, op, id))
    failed("%s on %s failed: %s", op, client().where(id).c_str(), st.message().c_str());
  return abi::kOffloadFail;
}

// Records one plugin call on rank 0's timeline (FERRY_TRACE); costs a branch when off.
class TraceCall {
 public:
  TraceCall(const char* op, int32_t device, int64_t bytes = 0)
      : op_(op), device_(device), bytes_(bytes), start_(trace::enabled() ? nowNs() : 0) {}
  ~TraceCall() {
    if (start_) trace::record("offload", op_, start_, nowNs(), {{"device", device_}, {"bytes", bytes_}});
  }

 private:
  const char* op_;
  int32_t device_;
  int64_t bytes_;
  uint64_t start_;
};

AsyncQueue& queueOf(__tgt_async_info* ai) {
  if (!ai->Queue) ai->Queue = new AsyncQueue();
  return *static_cast<AsyncQueue*>(ai->Queue);
}

// A synchronous call is its asynchronous form followed by a synchronize.
template <typename Fn>
int32_t runSync(const char* op, int32_t id, Fn&& fn) {
  AsyncQueue q;
  Status st = fn(q);
  Status sync = client().synchronize(q);
  return report(st.isOk() ? sync : st, op, id);
}

}  // namespace
}  // namespace ferry::offload

using namespace ferry;
using namespace ferry::offload;

FERRY_EXPORT int32_t __tgt_rtl_init_plugin() {
  startOffload();  // serving ranks never return from here
  return abi::kOffloadSuccess;
}

FERRY_EXPORT int32_t __tgt_rtl_deinit_plugin() {
  // libomptarget calls this once per registered library, before that library's
  // unregister_lib; the job ends at the last unregister_lib instead.
  return abi::kOffloadSuccess;
}

FERRY_EXPORT int32_t __tgt_rtl_number_of_devices() { return Client::instance() ? client().numDevices() : 0; }

FERRY_EXPORT int32_t __tgt_rtl_is_valid_binary(__tgt_device_image* image) {
  Client* c = Client::instance();
  if (!c) return isX86Image(image) ? 1 : 0;
  return c->images().offer(image, c->machines()) ? 1 : 0;
}

FERRY_EXPORT int32_t __tgt_rtl_is_data_exchangable(int32_t src, int32_t dst) {
  return validDevice(src, "is_data_exchangable") && validDevice(dst, "is_data_exchangable") ? 1 : 0;
}

FERRY_EXPORT int64_t __tgt_rtl_init_requires(int64_t flags) {
  if (Client::instance()) client().setRequires(flags);
  return flags;
}

FERRY_EXPORT int32_t __tgt_rtl_init_device(int32_t id) {
  TraceCall traced("init_device", id, 0);
  if (!validDevice(id, "init_device")) return abi::kOffloadFail;
  drainTargetTasksAtExit();
  return report(client().initDevice(id), "init_device", id);
}

FERRY_EXPORT __tgt_target_table* __tgt_rtl_load_binary(int32_t id, __tgt_device_image* image) {
  TraceCall traced("load_binary", id, 0);
  if (!validDevice(id, "load_binary")) return nullptr;
  auto table = client().loadBinary(id, image);
  if (table) return *table;
  report(table.status(), "load_binary", id);
  return nullptr;
}

FERRY_EXPORT void* __tgt_rtl_data_alloc(int32_t id, int64_t size, void* hostPtr, int32_t kind) {
  TraceCall traced("data_alloc", id, size);
  if (!validDevice(id, "data_alloc")) return nullptr;
  auto p = client().allocate(id, size, kind, hostPtr);
  if (p) return *p;
  report(p.status(), "data_alloc", id);
  return nullptr;
}

FERRY_EXPORT int32_t __tgt_rtl_data_delete(int32_t id, void* ptr, int32_t kind) {
  TraceCall traced("data_delete", id, 0);
  if (!validDevice(id, "data_delete")) return abi::kOffloadFail;
  return report(client().free(id, ptr, kind), "data_delete", id);
}

FERRY_EXPORT int32_t __tgt_rtl_data_submit_async(int32_t id, void* tgt, void* host, int64_t size,
                                                 __tgt_async_info* ai) {
  TraceCall traced("data_submit", id, size);
  if (!validDevice(id, "data_submit")) return abi::kOffloadFail;
  return report(client().submit(id, tgt, host, size, queueOf(ai)), "data_submit", id);
}

FERRY_EXPORT int32_t __tgt_rtl_data_submit(int32_t id, void* tgt, void* host, int64_t size) {
  TraceCall traced("data_submit", id, size);
  if (!validDevice(id, "data_submit")) return abi::kOffloadFail;
  return runSync("data_submit", id, [&](AsyncQueue& q) { return client().submit(id, tgt, host, size, q); });
}

FERRY_EXPORT int32_t __tgt_rtl_data_retrieve_async(int32_t id, void* host, void* tgt, int64_t size,
                                                   __tgt_async_info* ai) {
  TraceCall traced("data_retrieve", id, size);
  if (!validDevice(id, "data_retrieve")) return abi::kOffloadFail;
  return report(client().retrieve(id, host, tgt, size, queueOf(ai)), "data_retrieve", id);
}

FERRY_EXPORT int32_t __tgt_rtl_data_retrieve(int32_t id, void* host, void* tgt, int64_t size) {
  TraceCall traced("data_retrieve", id, size);
  if (!validDevice(id, "data_retrieve")) return abi::kOffloadFail;
  return runSync("data_retrieve", id, [&](AsyncQueue& q) { return client().retrieve(id, host, tgt, size, q); });
}

FERRY_EXPORT int32_t __tgt_rtl_data_exchange_async(int32_t src, void* srcPtr, int32_t dst, void* dstPtr, int64_t size,
                                                   __tgt_async_info* ai) {
  TraceCall traced("data_exchange", src, size);
  if (!validDevice(src, "data_exchange") || !validDevice(dst, "data_exchange")) return abi::kOffloadFail;
  return report(client().exchange(src, srcPtr, dst, dstPtr, size, queueOf(ai)), "data_exchange", src);
}

FERRY_EXPORT int32_t __tgt_rtl_data_exchange(int32_t src, void* srcPtr, int32_t dst, void* dstPtr, int64_t size) {
  TraceCall traced("data_exchange", src, size);
  if (!validDevice(src, "data_exchange") || !validDevice(dst, "data_exchange")) return abi::kOffloadFail;
  return runSync("data_exchange", src,
                 [&](AsyncQueue& q) { return client().exchange(src, srcPtr, dst, dstPtr, size, q); });
}

FERRY_EXPORT int32_t __tgt_rtl_launch_kernel(int32_t id, void* entry, void** args, ptrdiff_t* offsets,
                                             KernelArgsTy* ka, __tgt_async_info* ai) {
  TraceCall traced("launch_kernel", id, 0);
  if (!validDevice(id, "launch_kernel")) return abi::kOffloadFail;
  if (!ai) return runSync("launch_kernel", id, [&](AsyncQueue& q) { return client().launch(id, entry, args, offsets, ka, q); });
  return report(client().launch(id, entry, args, offsets, ka, queueOf(ai)), "launch_kernel", id);
}

FERRY_EXPORT int32_t __tgt_rtl_synchronize(int32_t id, __tgt_async_info* ai) {
  if (!ai->Queue) return abi::kOffloadSuccess;
  auto* q = static_cast<AsyncQueue*>(ai->Queue);
  Status st = client().synchronize(*q);
  delete q;
  ai->Queue = nullptr;
  if (st) return abi::kOffloadSuccess;
  if (!reportedAfterShutdown(st, "synchronize", id)) failed("synchronize: %s", st.message().c_str());
  return abi::kOffloadFail;
}

FERRY_EXPORT int32_t __tgt_rtl_query_async(int32_t id, __tgt_async_info* ai) {
  TraceCall traced("query_async", id, 0);
  if (!ai->Queue) return abi::kOffloadSuccess;
  auto* q = static_cast<AsyncQueue*>(ai->Queue);
  auto done = client().query(*q);
  if (done && !*done) return abi::kOffloadSuccess;  // still running: Queue stays set
  delete q;
  ai->Queue = nullptr;
  if (!done) {
    if (!reportedAfterShutdown(done.status(), "nowait region", id))
      failed("nowait region: %s", done.status().message().c_str());
    return abi::kOffloadFail;
  }
  return abi::kOffloadSuccess;
}

FERRY_EXPORT void __tgt_rtl_print_device_info(int32_t id) {
  Client* c = Client::instance();
  if (!c || id < 0 || id >= c->numDevices()) return;
  const DeviceEntry& e = c->entry(id);
  std::printf("    Ferry remote device\n");
  std::printf("    %-22s %d\n", "Global index", e.index);
  std::printf("    %-22s %d\n", "Served by rank", e.rank);
  std::printf("    %-22s %s\n", "Host", e.host.c_str());
  std::printf("    %-22s %d\n", "Node", e.node);
  std::printf("    %-22s %s\n", "Kind", service::deviceKindName(e.kind));
  std::printf("    %-22s %s\n", "Memory", parse::formatSize(e.memoryBytes).c_str());
  std::printf("    %-22s %s\n", "Details", e.description.c_str());
  std::fflush(stdout);
}

FERRY_EXPORT int32_t __tgt_rtl_create_event(int32_t id, void** event) {
  *event = new Event{id};
  return abi::kOffloadSuccess;
}

FERRY_EXPORT int32_t __tgt_rtl_record_event(int32_t id, void* event, __tgt_async_info* ai) {
  // Once the queue's held-back ops are sent, every op it issued to `id` is in that
  // device's in-order stream; the event marks that stream.
  if (ai && ai->Queue) {
    if (Status st = client().flushQueue(*static_cast<AsyncQueue*>(ai->Queue), false); !st)
      return report(st, "record_event", id);
  }
  static_cast<Event*>(event)->device = id;
  return abi::kOffloadSuccess;
}

FERRY_EXPORT int32_t __tgt_rtl_wait_event(int32_t id, void* event, __tgt_async_info*) {
  int on = static_cast<Event*>(event)->device;
  if (on == id) return abi::kOffloadSuccess;  // later ops on the same stream come after it
  if (!validDevice(on, "wait_event")) return abi::kOffloadFail;
  return report(client().syncDevice(on), "wait_event", on);
}

FERRY_EXPORT int32_t __tgt_rtl_sync_event(int32_t id, void* event) {
  int on = static_cast<Event*>(event)->device;
  if (!validDevice(on, "sync_event")) return abi::kOffloadFail;
  return report(client().syncDevice(on), "sync_event", on);
}

FERRY_EXPORT int32_t __tgt_rtl_destroy_event(int32_t, void* event) {
  delete static_cast<Event*>(event);
  return abi::kOffloadSuccess;
}

FERRY_EXPORT void __tgt_rtl_set_info_flag(uint32_t flags) {
  if (Client::instance())
    if (Status st = client().setInfoFlag(flags); !st) log::warn(log::Offload, "set_info_flag: %s", st.message().c_str());
}

// Host memory needs no pinning for Ferry's transports (MPI and CMA take any address), so a
// lock is the identity, as on the stock host plugin.
FERRY_EXPORT int32_t __tgt_rtl_data_lock(int32_t, void* hostPtr, int64_t, void** lockedPtr) {
  *lockedPtr = hostPtr;
  return abi::kOffloadSuccess;
}

FERRY_EXPORT int32_t __tgt_rtl_data_unlock(int32_t, void*) { return abi::kOffloadSuccess; }

FERRY_EXPORT int32_t __tgt_rtl_register_lib(__tgt_bin_desc*) {
  gRegisteredLibs.fetch_add(1);
  return abi::kOffloadSuccess;
}

FERRY_EXPORT int32_t __tgt_rtl_unregister_lib(__tgt_bin_desc*) {
  // The last library to go ends the job: later calls from libomptarget find no device work.
  if (gRegisteredLibs.fetch_sub(1) == 1) stopOffload();
  return abi::kOffloadSuccess;
}

// ---- Ferry's own queries (include/ferry/ferry_offload.h) ------------------------------

#include "ferry/ferry_offload.h"

FERRY_EXPORT int ferry_offload_counters_v1(ferry_offload_counters* out, size_t size) {
  Client* c = Client::instance();
  if (!c || !out) return FERRY_OFFLOAD_UNAVAILABLE;
  ferry_offload_counters v{};
  OffloadCounters& k = c->counters();
  v.host_to_device_bytes = k.hostToDeviceBytes.load();
  v.device_to_host_bytes = k.deviceToHostBytes.load();
  v.device_to_device_bytes = k.deviceToDeviceBytes.load();
  v.control_messages = k.controlMessages.load();
  v.kernels_launched = k.kernelsLaunched.load();
  v.network_bytes = k.networkBytes.load();
  v.node_copy_bytes = k.nodeCopyBytes.load();
  std::memcpy(out, &v, std::min(size, sizeof v));
  return FERRY_OFFLOAD_OK;
}

FERRY_EXPORT int ferry_offload_device_v1(int device, ferry_offload_device* out, size_t size) {
  Client* c = Client::instance();
  if (!c || !out) return FERRY_OFFLOAD_UNAVAILABLE;
  if (device < 0 || device >= c->numDevices()) return FERRY_OFFLOAD_BAD_DEVICE;
  const DeviceEntry& e = c->entry(device);
  ferry_offload_device v{};
  v.rank = e.rank;
  v.local_index = e.localIndex;
  v.node = e.node;
  v.is_gpu = e.kind == service::DeviceKind::Gpu;
  v.memory_bytes = e.memoryBytes;
  std::snprintf(v.host, sizeof v.host, "%s", e.host.c_str());
  std::memcpy(out, &v, std::min(size, sizeof v));
  return FERRY_OFFLOAD_OK;
}

FERRY_EXPORT int ferry_offload_mpi_baseline_v1(const ferry_offload_baseline* spec, size_t size, double* seconds) {
  Client* c = Client::instance();
  if (!c || !spec || !seconds) return FERRY_OFFLOAD_UNAVAILABLE;
  ferry_offload_baseline s{};
  std::memcpy(&s, spec, std::min(size, sizeof s));
  comm::BaselineSpec b{s.kind == 1 ? comm::BaselineKind::Bandwidth : comm::BaselineKind::PingPong, s.bytes, s.warmup,
                       s.iters, s.window ? s.window : 64};
  auto r = c->mpiBaseline(s.rank_a, s.rank_b, b);
  if (!r) {
    log::error(log::Offload, "mpi baseline between ranks %d and %d: %s", s.rank_a, s.rank_b, r.status().message().c_str());
    return FERRY_OFFLOAD_FAILED;
  }
  *seconds = *r;
  return FERRY_OFFLOAD_OK;
}
