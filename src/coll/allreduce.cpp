#include "coll/allreduce.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <mutex>
#include <set>
#include <utility>

#include "coll/comm_context.h"
#include "coll/job_check.h"
#include "coll/library_comms.h"
#include "coll/library_ops.h"
#include "coll/next_layer.h"
#include "coll/pipeline.h"
#include "coll/select.h"
#include "coll/stats.h"
#include "coll/types.h"
#include "platform/init.h"
#include "platform/log.h"
#include "platform/parse.h"

namespace ferry::coll {
namespace {

// Set while this thread is inside Ferry: an MPI_Allreduce that reaches the interposer then
// (a PMPI tool's own, say) goes to the layer below, never into Ferry again. Ferry's own
// calls go to PMPI_Allreduce directly.
// initial-exec: a %fs-relative load instead of a __tls_get_addr call on every
// MPI_Allreduce; both libraries are loaded at start-up (linked or LD_PRELOAD), never
// dlopen'ed.
__attribute__((tls_model("initial-exec"))) thread_local bool tInside = false;

#if MPI_VERSION >= 4
// Set while an MPI_Allreduce_c call runs here: what Ferry hands on goes to the next layer as
// MPI_Allreduce_c, the call the program made.
__attribute__((tls_model("initial-exec"))) thread_local bool tLargeCount = false;
#endif

class InsideGuard {
 public:
  InsideGuard() { tInside = true; }
  ~InsideGuard() { tInside = false; }
  InsideGuard(const InsideGuard&) = delete;
  InsideGuard& operator=(const InsideGuard&) = delete;
};

std::string commLabelFor(MPI_Comm comm, const CommContext* ctx) {
  if (comm == MPI_COMM_NULL) return "MPI_COMM_NULL";  // the library reports the error
  if (!ctx) ctx = existingContext(comm);  // a call the library ran, on a communicator Ferry knows
  if (ctx) return ctx->label();
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0;
  MPI_Comm_get_name(comm, name, &len);
  if (len > 0) return std::string(name, static_cast<size_t>(len));
  // Not set up, so without the number its ranks agree on then: its size is the same on every
  // rank, the handle tells it apart in this rank's log.
  int size = 0;
  MPI_Comm_size(comm, &size);
  return "an unnamed communicator of " + std::to_string(size) + (size == 1 ? " rank" : " ranks") +
         " (not set up; handle " + hex(commKey(comm)) + " on this rank)";
}

// At info level each kind of decision is explained once per communicator; at debug level,
// every call is.
bool firstOfItsKind(MPI_Comm comm, Rule rule) {
  static std::mutex mutex;
  static std::set<std::pair<uint64_t, Rule>>* seen = new std::set<std::pair<uint64_t, Rule>>();
  std::lock_guard lock(mutex);
  return seen->emplace(commKey(comm), rule).second;
}

void report(const Decision& d, const Settings& s, const CallShape& call, MPI_Comm comm, const CommContext* ctx) {
  if (!log::enabled(log::Level::Info, log::Coll)) return;
  bool first = firstOfItsKind(comm, d.rule);
  if (!first && !log::enabled(log::Level::Debug, log::Coll)) return;
  std::string why = d.rule == Rule::Disabled && ctx ? ctx->disabledReason()
                                                        : explain(d, s, call, ctx ? &ctx->shape() : nullptr);
  if (d.ferry && ctx) why += std::string("; same-node path ") + intraPathName(ctx->pathFor(call.bytes));
  log::write(first ? log::Level::Info : log::Level::Debug, log::Coll, "allreduce of %s on %s: %s (%s): %s",
             parse::formatSize(call.bytes).c_str(), commLabelFor(comm, ctx).c_str(),
             d.ferry ? "Ferry" : "MPI library", ruleName(d.rule), why.c_str());
}

// A call Ferry does not run, to the layer below the interposer (next_layer.h): a PMPI tool
// there sees it as the program made it. (Ferry's own allreduces are none of the program's:
// they call PMPI_Allreduce, and never reach this.)
int handOn(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
#if MPI_VERSION >= 4
  if (tLargeCount) {
    // Cleared first: a layer below whose MPI_Allreduce_c calls MPI_Allreduce comes back here
    // with an int call, which must not be taken for a large-count one again.
    tLargeCount = false;
    return nextLayer().allreduceC(send, recv, count, type, op, comm);
  }
#endif
  return nextLayer().allreduce(send, recv, count, type, op, comm);
}

int library(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  countCall(false);
  return handOn(send, recv, count, type, op, comm);
}

bool mpiUsable() {
  // Calls before MPI_Init or after MPI_Finalize go to the library, whose error then names
  // MPI_Allreduce (Ferry's path would fail first in a call the user never made). MPI cannot
  // be initialised again once finalised, so "was initialised" is cached, but "finalised"
  // is asked on every call.
  static std::atomic<bool> initialised{false};
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin) return false;
  if (initialised.load(std::memory_order_relaxed)) return true;
  int init = 0;
  MPI_Initialized(&init);
  if (init) initialised = true;
  return init;
}

std::string opText(MPI_Op op) {
  if (op == MPI_MINLOC || op == MPI_MAXLOC) return "MPI_MINLOC/MPI_MAXLOC (pair types)";
  if (op == MPI_REPLACE || op == MPI_NO_OP) return "MPI_REPLACE/MPI_NO_OP, which are not reductions";
  int commutes = 0;
  MPI_Op_commutative(op, &commutes);
  return commutes ? "a user-defined op (commutative)" : "a user-defined, non-commutative op";
}

constexpr const char* kOneRank = "a communicator of one rank";

// Why Ferry cannot run this call (empty if it can). Depends only on arguments that MPI
// requires to be equal on every rank, so every rank finds the same answer.
std::string unsupportedReason(const void* send, const void* recv, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                              TypeInfo& typeInfo, OpKind& opKind) {
  int inter = 0, size = 0;
  MPI_Comm_test_inter(comm, &inter);
  if (inter) return "an inter-communicator";
  MPI_Comm_size(comm, &size);
  if (size == 1) return kOneRank;
  auto t = classifyType(type);
  if (!t) {
    int ints = 0, addrs = 0, types = 0, combiner = 0;
    MPI_Type_get_envelope(type, &ints, &addrs, &types, &combiner);
    return combiner == MPI_COMBINER_NAMED ? "a predefined datatype Ferry does not reduce (pair, complex, "
                                            "Fortran LOGICAL or wide character)"
                                          : "a derived datatype";
  }
  auto o = classifyOp(op);
  if (!o) return opText(op);
  if (!opAllowed(*o, t->group))
    return std::string(opName(*o)) + " on " + t->name + ", which the MPI standard does not define (the MPI library "
                                                         "reports the error)";
  if (!recv || !send) return "a NULL buffer (the MPI library reports the error)";
  if (recv == MPI_IN_PLACE) return "MPI_IN_PLACE as the receive buffer (the MPI library reports the error)";
  if (send == recv) return "the same send and receive buffer without MPI_IN_PLACE (the MPI library reports the error)";
  typeInfo = *t;
  opKind = *o;
  return {};
}

int fail(MPI_Comm comm, CommContext& ctx, uint64_t bytes, const Status& st) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  log::error(log::Coll, "allreduce of %s on %s (rank %d of %d) failed: %s", parse::formatSize(bytes).c_str(),
             ctx.label().c_str(), rank, ctx.shape().size, st.message().c_str());
  ctx.callFailed();
  int code = st.code() == Errc::InvalidArgument ? MPI_ERR_ARG : MPI_ERR_OTHER;
  MPI_Comm_call_errhandler(comm, code);
  return code;
}

int runFerry(const Settings& s, CommContext& ctx, const CallShape& call, const TypeInfo& ti, OpKind opKind,
             const void* send, void* recv, int count, MPI_Comm comm) {
  CallArgs args;
  args.send = static_cast<const uint8_t*>(send == MPI_IN_PLACE ? recv : send);
  args.recv = static_cast<uint8_t*>(recv);
  args.reduce = ReduceOp{reduceKernel(opKind, ti.elem), elemSize(ti.elem)};
  args.signature = CallSignature{call.bytes, static_cast<uint8_t>(ti.elem), static_cast<uint8_t>(opKind)};
  if (ctx.numNodes() > 1) {
    LibraryReduction lib = libraryReduction(ti.elem, opKind);
    args.inter = InterReduction{lib.type, lib.op, args.reduce};
  }
  IntraPath path = ctx.pathFor(call.bytes);
  bool direct = ctx.directResults(path);
  uint64_t chunk = chunkBytes(s, call.bytes, ctx.shape(), direct);
  // The slots were sized with the settings the communicator was set up with.
  if (!direct) chunk = std::min<uint64_t>(chunk, ctx.area().slotBytes());
  if (path != IntraPath::Single) chunk = std::min<uint64_t>(chunk, ctx.area().inputSlotBytes());
  Plan plan(static_cast<size_t>(count), elemSize(ti.elem), chunk, ctx.localSize());
  Status st = singleCopy(path) ? runSingleCopy(ctx, args, plan, path) : runStaged(ctx, args, plan);
  if (!st) return fail(comm, ctx, call.bytes, st);
  countCall(true);
  return MPI_SUCCESS;
}

}  // namespace

bool ensureStarted() {
  static const bool ok = [] {
    Status st = initPlatform();
    if (!st)
      log::error(log::Coll, "%s; Ferry's collectives are off and the MPI library runs every call",
                 st.message().c_str());
    return st.isOk();
  }();
  return ok;
}

namespace {

// Everything but the fast path: classification, set-up, decision, explanation, pipeline.
// `known`: the communicator's context where the caller has already looked it up.
[[gnu::noinline]] int decideAndRun(const Settings& s, const void* send, void* recv, int count, MPI_Datatype type,
                                   MPI_Op op, MPI_Comm comm, CommContext* known) {
  InsideGuard guard;
  CallShape call;
  // The cheap part first: most small calls are decided here, without looking further.
  bool validHandles = count > 0 && type != MPI_DATATYPE_NULL && op != MPI_OP_NULL && comm != MPI_COMM_NULL;
  int typeSize = 0;
  if (validHandles && MPI_Type_size(type, &typeSize) == MPI_SUCCESS)
    call.bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(typeSize);
  else
    call.unsupported = count == 0 ? "count 0" : "an invalid argument (the MPI library reports the error)";
  Decision d = preselect(s, call);
  if (d.ferry) {
    TypeInfo ti{};
    OpKind opKind{};
    call.unsupported = unsupportedReason(send, recv, type, op, comm, ti, opKind);
    if (call.unsupported == kOneRank) libraryComms::add(comm);
    d = preselect(s, call);
    if (d.ferry) {
      auto ctx = known ? Result<CommContext*>(known) : contextFor(comm, s);
      if (!ctx) {
        log::error(log::Coll, "allreduce: %s", ctx.status().message().c_str());
        MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
        return MPI_ERR_OTHER;
      }
      d = (*ctx)->acceptsNextCall() ? select(s, call, (*ctx)->shape()) : Decision{false, Rule::Disabled};
      report(d, s, call, comm, *ctx);
      if (d.ferry) return runFerry(s, **ctx, call, ti, opKind, send, recv, count, comm);
      return library(send, recv, count, type, op, comm);
    }
  }
  report(d, s, call, comm, nullptr);
  return library(send, recv, count, type, op, comm);
}

// The fast path, for the many small calls: decided below the crossover with a few loads
// and one MPI_Type_size, before the library runs the call (its cost is what the "never 5%
// slower" target is about). When coll logging is on, the slow path explains the decision.
bool smallForTheLibrary(const Settings& s, int count, MPI_Datatype type) {
  int typeSize = 0;
  return s.mode == Mode::Auto && s.minSize > 0 && count > 0 && type != MPI_DATATYPE_NULL &&
         !log::enabled(log::Level::Info, log::Coll) &&
         MPI_Type_size(type, &typeSize) == MPI_SUCCESS &&
         belowCrossover(s, static_cast<uint64_t>(count) * static_cast<uint64_t>(typeSize));
}

// Communicators where auto mode hands every call to the library whatever its size (one rank
// per node, or a set-up that failed): once set up, their calls skip the classification of
// type and op and the MPI queries behind it (about 0.15 us, 12% of a 4 KiB allreduce with one
// rank on each of 2 virtual nodes).
bool libraryForEveryCall(const Settings& s, const CommContext& ctx) {
  return s.mode == Mode::Auto && (!ctx.usable() || ctx.shape().maxLocal == 1);
}

// What the fast path of allreduce() reads, in one cache line. A small call on a busy node
// finds Ferry's state evicted by the other ranks' work, and every cold line costs more
// than the code it serves (measured: the path spread over seven lines cost 2-3% of an
// 8-byte allreduce with 4 ranks on 2 cores).
struct alignas(64) FastPath {
  std::atomic<bool> ready{false};  // platform started, MPI initialised, fields below set
  int fewElements = 0;             // calls of fewer elements are below the crossover (auto mode)
  Settings crossover;              // mode and minSize, copied from settings()
};
FastPath gFast;

// Whether a call is below the crossover by its count alone, whatever its datatype (see
// kMaxElemSize): no MPI_Type_size, which with its call through the PLT was about a third of
// the fast path's cost on an 8-byte call.
bool fewElements(int count) {
  return count > 0 && count < gFast.fewElements && !log::enabled(log::Level::Info, log::Coll);
}

// A communicator whose every call goes to the library in auto mode (library_comms.h).
// Asked after the crossover: its table is one more cache line, which a small call on a busy
// node finds evicted (asked first, it took 256 B calls with 2 ranks from 0.97-0.98x of the
// library to 0.92-0.93x).
bool libraryComm(MPI_Comm comm) {
  return gFast.crossover.mode == Mode::Auto && libraryComms::contains(comm) && !log::enabled(log::Level::Info, log::Coll);
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first: the fast path closes there, so that
// a call after MPI_Finalize reaches mpiUsable() and the library's own error, instead of
// failing in the fast path's MPI_Type_size.
int disarmFastPath(MPI_Comm, int, void*, void*) {
  gFast.ready.store(false, std::memory_order_release);
  return MPI_SUCCESS;
}

void armFastPath() {
  static const bool armed = [] {
    gFast.crossover.mode = settings().mode;
    gFast.crossover.minSize = settings().minSize;
    if (settings().mode == Mode::Auto)
      gFast.fewElements = static_cast<int>(std::min<uint64_t>(settings().minSize / kMaxElemSize, INT_MAX));
    int key = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, disarmFastPath, &key, nullptr) != MPI_SUCCESS ||
        MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr) != MPI_SUCCESS)
      return false;  // without the hook, every call takes the checked path
    MPI_Comm_free_keyval(&key);  // it goes with its attribute (left, MPI_Finalize leaked it)
    gFast.ready.store(true, std::memory_order_release);
    return true;
  }();
  (void)armed;
}

// Calls that Ferry hands on whatever they are: those that reach it while it is inside a call
// (tInside), before it started or the job agreed on its settings, and outside MPI's lifetime.
bool libraryOnly() { return tInside || !ensureStarted() || !jobAgreed() || !mpiUsable(); }

}  // namespace

int allreduceWith(const Settings& s, const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  if (libraryOnly()) return handOn(send, recv, count, type, op, comm);
  if (smallForTheLibrary(s, count, type)) return library(send, recv, count, type, op, comm);
  // A lookup that never sets a context up, so that a call that would not reach set-up on
  // every rank (a derived datatype on one) cannot start one; set-up waits for decideAndRun.
  // With coll logging on, the slow path runs, to explain its decisions.
  CommContext* known = comm == MPI_COMM_NULL || s.mode == Mode::Off ? nullptr : existingContext(comm);
  if (known && libraryForEveryCall(s, *known) && !log::enabled(log::Level::Info, log::Coll)) {
    libraryComms::add(comm);  // the next calls find it on the fast path
    return library(send, recv, count, type, op, comm);
  }
  return decideAndRun(s, send, recv, count, type, op, comm, known);
}

int allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  // Small calls made while inside Ferry take the fast path to the library too; the others
  // meet the tInside check in allreduceWith.
  if (gFast.ready.load(std::memory_order_acquire) &&
      (fewElements(count) || smallForTheLibrary(gFast.crossover, count, type) || libraryComm(comm)))
    return library(send, recv, count, type, op, comm);
  if (libraryOnly()) return handOn(send, recv, count, type, op, comm);
  armFastPath();
  return allreduceWith(settings(), send, recv, count, type, op, comm);
}

#if MPI_VERSION >= 4
int allreduceLargeCount(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  tLargeCount = true;
  int rc = allreduce(send, recv, count, type, op, comm);
  tLargeCount = false;
  return rc;
}
#endif

}  // namespace ferry::coll
