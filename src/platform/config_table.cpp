// THE table of FERRY_* settings. Add a knob here and in the Knob enum, nowhere else.
#include "platform/config.h"
#include "platform/log.h"
#include "platform/net_address.h"

namespace ferry {
namespace {

constexpr int64_t kNoLimit = INT64_MAX;

Status checkRemoteList(std::string_view text) {
  if (text.empty()) return {};
  return parseNetAddressList(text).takeStatus();
}

constexpr KnobSpec kKnobTable[] = {
    {Knob::Log, "FERRY_LOG", KnobType::String, "warn", nullptr, 0, 0, "log",
     "Log level and subsystems: LEVEL[,SUBSYS...]. Levels: error, warn, info, debug, trace. "
     "Subsystems: init, config, comm, shm, offload, service, coll, bench, bind, all (default all); "
     "subsystems without a level mean info for them. Examples: FERRY_LOG=debug,comm,offload; FERRY_LOG=coll",
     log::checkSpec},
    {Knob::LogFile, "FERRY_LOG_FILE", KnobType::String, "", nullptr, 0, 0, "log",
     "Write log lines to this file instead of stderr; %r becomes the rank (a process without one keeps "
     "stderr), %h the host, %p the pid"},
    {Knob::Timeout, "FERRY_TIMEOUT", KnobType::Duration, "30s", nullptr, 100, 86400000, "comm",
     "Fault-detection timeout: a peer that answers neither requests nor liveness probes for this "
     "long is declared dead and the job ends with an error; so does an offload job whose start-up "
     "(device discovery; at least 30 s) or end (trace gather, MPI_Finalize) takes longer. In the allreduce, a live "
     "rank that is late to a call is waited for, as MPI requires, with a warning after this long"},
    {Knob::Heartbeat, "FERRY_HEARTBEAT", KnobType::Duration, "1s", nullptr, 10, 3600000, "comm",
     "While waiting on a peer, probe its liveness this often (at most a quarter of FERRY_TIMEOUT apart, whatever "
     "this says)"},
    {Knob::SpinTime, "FERRY_SPIN_TIME", KnobType::Duration, "50us", nullptr, 0, 10000, "comm",
     "How long a waiting thread busy-polls before it yields; offload waits and serving ranks "
     "then go on yielding, and sleep with backoff (up to 1 ms) only where the job runs more ranks "
     "on a machine than it has hardware threads; 0 yields at once (best when ranks outnumber "
     "cores; the allreduce then uses 0 whatever this says)"},
    {Knob::VirtualNodes, "FERRY_VIRTUAL_NODES", KnobType::Int, "1", nullptr, 1, 4096, "comm",
     "Split the ranks of each physical node into this many virtual nodes (contiguous blocks of "
     "node-local ranks) so that inter-node paths run on one machine"},
    {Knob::DevicesPerRank, "FERRY_DEVICES_PER_RANK", KnobType::Int, "1", nullptr, 0, 4, "offload",
     "CPU devices each serving rank exposes, taken from the stock LLVM host plugin (at most 4)"},
    {Knob::GpusPerRank, "FERRY_GPUS_PER_RANK", KnobType::Count, "all", nullptr, 0, 64, "offload",
     "GPU devices each serving rank exposes through the stock CUDA plugin: a number or 'all'"},
    {Knob::Rank0Devices, "FERRY_RANK0_DEVICES", KnobType::Bool, "0", nullptr, 0, 0, "offload",
     "Also expose rank 0's own devices (served by a thread inside rank 0); needed for 1-rank runs"},
    {Knob::CpuStaging, "FERRY_CPU_STAGING", KnobType::Bool, "0", nullptr, 0, 0, "service",
     "Serve CPU devices the way GPUs are served: memory allocated by the stock plugin on request "
     "and every transfer staged through the serving rank's memory. Slower; it runs the GPU data "
     "path on machines without a GPU"},
    {Knob::DeviceMemory, "FERRY_DEVICE_MEMORY", KnobType::Size, "0", nullptr, 0, kNoLimit, "service",
     "Memory of each CPU device; 0 means the node's physical memory divided among the devices "
     "served on that node"},
    {Knob::DeviceRetain, "FERRY_DEVICE_RETAIN", KnobType::Size, "1G", nullptr, 0, kNoLimit, "offload",
     "Freed memory of each CPU device that stays resident for reuse: frees of 1 MiB or more give "
     "their pages back to the serving rank's kernel only beyond this, so that blocks allocated "
     "in their place need no page faults; 0 gives them back at once"},
    {Knob::NodeShare, "FERRY_NODE_SHARE", KnobType::Bool, "1", nullptr, 0, 0, "offload",
     "One transfer per node: host data mapped to several devices of another node crosses the "
     "network once, to the first; the others copy it from that device's rank on their node. "
     "Rank 0 recognises the same bytes by a 128-bit digest of them (xxHash), computed for "
     "transfers of FERRY_NODE_SHARE_MIN or more to nodes that serve two devices or more"},
    {Knob::NodeShareMin, "FERRY_NODE_SHARE_MIN", KnobType::Size, "256K", nullptr, 4096, kNoLimit, "offload",
     "Smallest host-to-device transfer that FERRY_NODE_SHARE considers: below it, digesting the "
     "bytes and the extra round of messages cost more than the network transfer they save"},
    {Knob::StagingRetain, "FERRY_STAGING_RETAIN", KnobType::Size, "256M", nullptr, 0, kNoLimit, "service",
     "Pinned host memory each staged device (GPU) keeps between transfers: its transfers pass "
     "through pinned buffers that are allocated once and reused up to this much; beyond it they "
     "are freed after use"},
    {Knob::EagerLimit, "FERRY_EAGER_LIMIT", KnobType::Size, "8K", nullptr, 0, 32768, "comm",
     "Transfers up to this size travel inside the control message; larger ones use the "
     "chunked data path"},
    {Knob::ChunkSize, "FERRY_CHUNK_SIZE", KnobType::Size, "1M", nullptr, 4096, 1LL << 30, "comm",
     "Chunk size of pipelined transfers over MPI"},
    {Knob::PipelineDepth, "FERRY_PIPELINE_DEPTH", KnobType::Int, "8", nullptr, 1, 1024, "comm",
     "Chunks in flight per pipelined transfer"},
    {Knob::Shm, "FERRY_SHM", KnobType::Enum, "auto", "auto|cma|off", 0, 0, "shm",
     "Same-node data path: cma (process_vm_readv/writev, single copy), off (MPI), or auto "
     "(cma when the kernel allows it, else MPI)"},
    {Knob::Trace, "FERRY_TRACE", KnobType::String, "", nullptr, 0, 0, "trace",
     "Write one Chrome-trace timeline (JSON, viewable in Perfetto) merged across all ranks to this "
     "file: transfers with their bytes, kernels with their names, allocations and waits"},
    {Knob::DeviceOutput, "FERRY_DEVICE_OUTPUT", KnobType::Enum, "ordered", "ordered|direct", 0, 0, "offload",
     "What target regions print on serving ranks: ordered (sent to rank 0 and printed there, in "
     "program order with the host's output, as without Ferry) or direct (the serving rank's own "
     "stdout, forwarded by the launcher whenever it gets to it)"},
    {Knob::UnmappedAccess, "FERRY_UNMAPPED_ACCESS", KnobType::Enum, "serve", "serve|fault", 0, 0, "service",
     "A kernel on a CPU device of rank 0's node that dereferences rank 0's memory which no map "
     "clause gave it: serve (the page is read from rank 0 and what the kernel changes is written "
     "back, as with the stock host plugin, whose devices share the host's memory; a warning names "
     "the kernel) or fault (the serving rank crashes there, as a GPU would)"},
    {Knob::UsmFaultAround, "FERRY_USM_FAULT_AROUND", KnobType::Size, "64K", nullptr, 4096, 1 << 20, "service",
     "Unified shared memory and served unmapped accesses: when a kernel faults on a page of rank "
     "0's memory right after the page before it (a sweep), the serving rank mirrors this much "
     "from that page on in one step (as far as rank 0 maps it and the serving rank does not), so "
     "a sweep faults once per this many bytes instead of once per 4 KiB page; scattered "
     "accesses still mirror one page each. 4K: one page per fault"},
    {Knob::UsmWriteBack, "FERRY_USM_WRITE_BACK", KnobType::Enum, "words", "words|bytes", 0, 0, "service",
     "Unified shared memory: how a kernel's changes go back to rank 0. words: each aligned 8-byte "
     "word in which the kernel changed a byte is written whole, so arithmetic on doubles (which "
     "leaves the exponent byte as it was) goes back in one run per page; a host thread that "
     "writes another byte of such a word while the kernel runs loses that write. bytes: only "
     "the bytes that changed, for char or short data that the host and a running kernel write "
     "side by side; dense partial updates then cost one run per element (about 20x slower)"},
    // Collectives: Ferry's MPI_Allreduce (ferry_allreduce and the PMPI interposer).
    {Knob::Bind, "FERRY_BIND", KnobType::Enum, "auto", "auto|on|off", 0, 0, "bind",
     "Core binding of each rank and its OpenMP threads (ferry run, ferry bind; docs/hybrid.md): auto gives "
     "each rank of a node cores of its own from the hwloc topology, sized by OMP_NUM_THREADS or the node's "
     "cores divided by its ranks, unless the user placed the threads (OMP_PLACES, or binding options given "
     "to ferry run's launcher), which are kept and reported; on replaces the user's placement too; off "
     "leaves binding to the launcher"},
    {Knob::BindingReport, "FERRY_BINDING_REPORT", KnobType::Bool, "0", nullptr, 0, 0, "bind",
     "Each rank started by ferry run or ferry bind reports, after the first second, every thread's allowed "
     "cores, the cores it ran on and how busy it was, and warns where busy threads share a core while "
     "others idle or where a rank spans NUMA domains (ferry doctor --binding prints the same as a table)"},
    {Knob::CollMode, "FERRY_COLL", KnobType::Enum, "auto", "auto|on|off", 0, 0, "coll",
     "Ferry's allreduce: auto (the cost model picks Ferry or the MPI library per call), on (Ferry for "
     "every call it supports, whatever the size), off (always the MPI library, which then also serves "
     "every MPI_Alloc_mem)"},
    {Knob::CollMinSize, "FERRY_COLL_MIN_SIZE", KnobType::Size, "4K", nullptr, 0, kNoLimit, "coll",
     "In auto mode, messages smaller than this go to the MPI library (the measured crossover). Unset: "
     "4K, and 0 with MPICH (not its derivatives), whose own allreduce measured slower than Ferry's at "
     "every size"},
    {Knob::CollStagedPerRank, "FERRY_COLL_STAGED_PER_RANK", KnobType::Size, "16K", nullptr, 0, 64LL << 20, "coll",
     "Where single copy works, messages below this size times the ranks on the node still take the "
     "two-copy path through the node's segment: it makes no system calls, and below this size they "
     "cost more than the second copy (FERRY_COLL_INTRA forces one path)"},
    {Knob::CollChunkSize, "FERRY_COLL_CHUNK_SIZE", KnobType::Size, "512K", nullptr, 4096, 64LL << 20, "coll",
     "Largest pipeline chunk of the allreduce: the node reduces one chunk while the leaders reduce "
     "the previous ones across nodes. Unset, one node of two ranks with single copy, where no slot "
     "holds a chunk, uses 4 MiB chunks"},
    {Knob::CollDepth, "FERRY_COLL_DEPTH", KnobType::Int, "4", nullptr, 1, 64, "coll",
     "Chunks in flight: inter-node reductions outstanding per leader, and staging slots per rank "
     "on the two-copy path"},
    {Knob::CollIntra, "FERRY_COLL_INTRA", KnobType::Enum, "auto", "auto|single|staged|copy-in", 0, 0, "coll",
     "Same-node data path of the allreduce: single (one copy: peers' buffers are read in place, "
     "mapped when Ferry allocated them, else through process_vm_readv), copy-in (as single, but "
     "each rank first copies the parts of an input that is not in Ferry's shared heap that its "
     "peers reduce into the node's segment, where they read them), staged (two copies through "
     "the segment for every buffer), or auto (single where the kernel allows it, with copy-in "
     "where a copy measured at set-up beats the kernel's)"},
    {Knob::CollInter, "FERRY_COLL_INTER", KnobType::Enum, "auto", "auto|mpi|p2p", 0, 0, "coll",
     "Inter-node stage of the allreduce (run by each node's leader, or by every rank on its share: "
     "FERRY_COLL_LEADERS): mpi (MPI_Iallreduce over the leaders), p2p (pairwise MPI_Isend/Irecv "
     "into buffers kept per slot, reduced by Ferry; see FERRY_COLL_HALVING_MIN), or auto (p2p for "
     "up to 4 nodes, mpi beyond)"},
    {Knob::CollHalvingMin, "FERRY_COLL_HALVING_MIN", KnobType::Size, "64K", nullptr, 0, kNoLimit, "coll",
     "The p2p inter-node stage reduces chunks of at least this size by reduce-scatter and allgather "
     "(each leader moves about two chunks and reduces about one) and smaller ones by recursive "
     "doubling (fewer messages, log2(nodes) chunks moved and reduced). Same result bits either way"},
    {Knob::CollLeaders, "FERRY_COLL_LEADERS", KnobType::Enum, "auto", "auto|one|all", 0, 0, "coll",
     "Who runs the inter-node stage: one (the node's leader, on whole chunks), all (every "
     "node-local rank on its own share of each chunk, with the ranks of the same node-local "
     "index on the other nodes; needs the same number of ranks on every node, else one), or "
     "auto (all, unless a machine has more ranks than hardware threads)"},
    {Knob::CollAllocMem, "FERRY_COLL_ALLOC_MEM", KnobType::Bool, "1", nullptr, 0, 0, "coll",
     "With the PMPI interposer, serve MPI_Alloc_mem requests of at least 64 KiB from memory that "
     "same-node peers can map, so that allreduce on it needs neither system calls nor a second copy. "
     "Each such block holds a file descriptor: beyond ulimit -n / 8 blocks the library serves the requests"},
    {Knob::CollRegCache, "FERRY_COLL_REG_CACHE", KnobType::Size, "4G", nullptr, 0, kNoLimit, "coll",
     "Most bytes of peers' memory each rank keeps mapped for the allreduce (registration cache); "
     "the least recently used mappings are dropped beyond it"},
    {Knob::ShmemSymmetricSize, "SHMEM_SYMMETRIC_SIZE", KnobType::Size, "128M", nullptr, 64 << 10, 1LL << 40,
     "shmem",
     "OpenSHMEM: the symmetric heap of each PE (shmem_malloc and friends). The PEs of a node share one "
     "segment of this size times their number; pages are backed only once touched"},
    {Knob::ShmemVersion, "SHMEM_VERSION", KnobType::Bool, "0", nullptr, 0, 0, "shmem",
     "OpenSHMEM: PE 0 prints the library's name and the standard's version at shmem_init"},
    {Knob::ShmemInfo, "SHMEM_INFO", KnobType::Bool, "0", nullptr, 0, 0, "shmem",
     "OpenSHMEM: PE 0 prints the SHMEM settings (`ferry info --config` lists all) at shmem_init"},
    {Knob::ShmemDebug, "SHMEM_DEBUG", KnobType::Bool, "0", nullptr, 0, 0, "shmem",
     "OpenSHMEM: debug log lines of the shmem subsystem (as FERRY_LOG=debug,shmem)"},
    {Knob::ShmemContextWindows, "FERRY_SHMEM_CONTEXT_WINDOWS", KnobType::Int, "4", nullptr, 0, 64, "shmem",
     "OpenSHMEM across nodes: MPI windows over the heap, made at shmem_init, that created contexts "
     "take for their puts and gets (the least used first), so that quiet on one completes none of "
     "the others' transfers. 0: every context uses the library's window"},
    {Knob::Remote, "FERRY_REMOTE", KnobType::String, "", nullptr, 0, 0, "offload",
     "Device daemons (`ferry serve`) whose devices join the job's table after the ranks' devices, as a "
     "comma-separated list of HOST:PORT or unix:PATH; rank 0 connects to each at start-up. Needs "
     "FERRY_REMOTE_TOKEN_FILE", checkRemoteList},
    {Knob::RemoteTokenFile, "FERRY_REMOTE_TOKEN_FILE", KnobType::String, "", nullptr, 0, 0, "offload",
     "The token file shared with the daemons of FERRY_REMOTE (readable by its owner only; `openssl rand "
     "-hex 32 > FILE && chmod 600 FILE` makes one)"},
    {Knob::RemoteTls, "FERRY_REMOTE_TLS", KnobType::Bool, "0", nullptr, 0, 0, "offload",
     "Talk TLS to the daemons of FERRY_REMOTE (started with --tls-cert and --tls-key): for channels "
     "beyond loopback. The daemon's certificate is checked (FERRY_REMOTE_TLS_CA)"},
    {Knob::RemoteTlsCa, "FERRY_REMOTE_TLS_CA", KnobType::String, "", nullptr, 0, 0, "offload",
     "With FERRY_REMOTE_TLS: the CA certificates (PEM file) a daemon's certificate must chain to, and "
     "whose name or IP address must match FERRY_REMOTE's; empty: the system's trusted CAs"},
    {Knob::RemoteTlsVerify, "FERRY_REMOTE_TLS_VERIFY", KnobType::Bool, "1", nullptr, 0, 0, "offload",
     "With FERRY_REMOTE_TLS: check the daemon's certificate (0 encrypts without knowing who is at the "
     "other end; the token's mutual challenge still authenticates the daemon)"},
    {Knob::ServeMaxClients, "FERRY_SERVE_MAX_CLIENTS", KnobType::Int, "8", nullptr, 1, 1024, "service",
     "`ferry serve`: host programs served at once (one worker process each); a connection beyond "
     "this is refused with a logged reason"},
    {Knob::ServeMaxImage, "FERRY_SERVE_MAX_IMAGE", KnobType::Size, "1G", nullptr, 4096, int64_t{1} << 40, "service",
     "`ferry serve`: the largest device image or single transfer a client may send"},
    {Knob::ServeMaxMemory, "FERRY_SERVE_MAX_MEMORY", KnobType::Size, "0", nullptr, 0, kNoLimit, "service",
     "`ferry serve`: the CPU device memory one client may use in all, shared among its devices; 0: the "
     "machine's memory divided among FERRY_SERVE_MAX_CLIENTS clients"},
    {Knob::TestJobs, "FERRY_TEST_JOBS", KnobType::Int, "2", nullptr, 1, 1024, "scripts",
     "scripts/test.sh, fuzz.sh and sanitize.sh: how many builds and tests run at once. Read by the "
     "scripts only; Ferry's programs ignore it"},
    {Knob::FuzzDir, "FERRY_FUZZ_DIR", KnobType::String, "", nullptr, 0, 0, "scripts",
     "scripts/fuzz.sh: the build directory of the fuzz targets (empty: build-fuzz in the source tree). "
     "Read by the script only"},
};

constexpr bool tableMatchesEnum() {
  for (size_t i = 0; i < std::size(kKnobTable); ++i)
    if (static_cast<size_t>(kKnobTable[i].key) != i) return false;
  return std::size(kKnobTable) == static_cast<size_t>(Knob::Count_);
}
static_assert(tableMatchesEnum(), "kKnobTable must list every Knob in enum order");

}  // namespace

std::span<const KnobSpec> knobTable() { return kKnobTable; }
const KnobSpec& knobSpec(Knob k) { return kKnobTable[static_cast<size_t>(k)]; }

}  // namespace ferry
