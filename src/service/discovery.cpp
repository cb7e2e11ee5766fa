#include "service/discovery.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "platform/config.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "platform/topology.h"
#include "service/cpu_device.h"
#include "service/embedded_targets.h"
#include "service/plugin_device.h"
#include "service/vendor_plugin.h"

namespace ferry::service {

namespace {

// GPU memory from the CUDA driver, when the plugin found GPUs (so libcuda is present).
uint64_t cudaDeviceMemory(int ordinal) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) return 0;
  using Init = int (*)(unsigned);
  using Get = int (*)(int*, int);
  using TotalMem = int (*)(size_t*, int);
  auto init = reinterpret_cast<Init>(dlsym(cuda, "cuInit"));
  auto get = reinterpret_cast<Get>(dlsym(cuda, "cuDeviceGet"));
  auto total = reinterpret_cast<TotalMem>(dlsym(cuda, "cuDeviceTotalMem_v2"));
  int device = 0;
  size_t bytes = 0;
  if (init && get && total && init(0) == 0 && get(&device, ordinal) == 0) total(&bytes, device);
  return bytes;
}

// A program built with offload images for the host only cannot use a GPU: unless
// FERRY_GPUS_PER_RANK says otherwise, its GPUs stay out of the table, as the stock runtime
// leaves them out (its CUDA plugin takes no image). Every rank runs the same program, so
// every rank decides alike; a program with no images found (a Ferry tool) keeps them.
bool programWantsGpus() {
  if (config().isSet(Knob::GpusPerRank)) return true;
  EmbeddedTargets t = loadedTargets();
  if (t.images == 0 || t.nvptx > 0) return true;
  log::info(log::Service, "the program's %d offload image(s) include none for nvptx64: its GPUs stay out of the device "
                          "table, as under the stock runtime (set FERRY_GPUS_PER_RANK to include them)", t.images);
  return false;
}

// FERRY_GPUS_PER_RANK=N asks for N GPUs on every serving rank: fewer is worth a word
// ("all", the default, takes what there is).
void warnIfFewerGpus(int found, const std::string& why) {
  if (!config().isSet(Knob::GpusPerRank) || config().isAll(Knob::GpusPerRank)) return;
  int wanted = static_cast<int>(config().integer(Knob::GpusPerRank));
  if (found >= wanted) return;
  log::warn(log::Service, "FERRY_GPUS_PER_RANK=%d, but this rank finds %d GPU(s)%s%s; serving %d", wanted, found,
            why.empty() ? "" : ": ", why.c_str(), found);
}

Status discoverGpus(std::vector<std::unique_ptr<LocalDevice>>& devices) {
  if (!config().isAll(Knob::GpusPerRank) && config().integer(Knob::GpusPerRank) == 0) return {};
  auto plugin = VendorPlugin::open(stockCudaPluginPath());
  if (!plugin) {
    log::debug(log::Service, "no GPUs: %s", plugin.status().message().c_str());
    warnIfFewerGpus(0, plugin.status().message());
    return {};
  }
  int n = (*plugin)->numDevices;
  warnIfFewerGpus(n, n == 0 ? "the CUDA plugin sees none" : "");
  if (n == 0 || !programWantsGpus()) return {};
  if (!config().isAll(Knob::GpusPerRank)) n = std::min(n, static_cast<int>(config().integer(Knob::GpusPerRank)));
  for (int i = 0; i < n; ++i)
    devices.push_back(std::make_unique<PluginDevice>(*plugin, i, DeviceKind::Gpu, cudaDeviceMemory(i),
                                                     "CUDA plugin device " + std::to_string(i)));
  return {};
}

// OMP_NUM_THREADS in a serving rank's environment sizes its kernels, as it sizes the stock
// host plugin's regions; 0 when it is unset (Ferry's share of the node then applies).
int userKernelThreads() {
  const char* v = std::getenv("OMP_NUM_THREADS");
  if (!v || !*v) return 0;
  // libomp reads a list (one entry per nesting level); the first is the kernels' level.
  std::string first(v, std::strcspn(v, ","));
  auto n = parse::integer(first);
  if (!n || *n < 1 || *n > 1 << 16) {
    log::warn(log::Service, "OMP_NUM_THREADS=%s is not a positive thread count; kernels use Ferry's share of the node", v);
    return 0;
  }
  return static_cast<int>(*n);
}

}  // namespace

Result<std::vector<std::unique_ptr<LocalDevice>>> discoverLocalDevices(int servingRanksOnNode, uint64_t memoryPerDevice) {
  std::vector<std::unique_ptr<LocalDevice>> devices;
  int wanted = static_cast<int>(config().integer(Knob::DevicesPerRank));
  if (wanted == 0) {
    if (Status st = discoverGpus(devices); !st) return st;
    return devices;
  }

  auto plugin = VendorPlugin::open(stockHostPluginPath());
  if (!plugin)
    return Status(Errc::NotFound, plugin.status().message() + " (install libomp-16-dev, or set FERRY_DEVICES_PER_RANK=0)");
  int n = std::min(wanted, (*plugin)->numDevices);
  if (n < wanted)
    log::warn(log::Service, "FERRY_DEVICES_PER_RANK=%d but the stock host plugin offers %d device(s); serving %d", wanted,
              (*plugin)->numDevices, n);

  const NodeTopology& topo = nodeTopology();
  uint64_t memory = memoryPerDevice ? memoryPerDevice : config().size(Knob::DeviceMemory);
  uint64_t nodeDevices = static_cast<uint64_t>(std::max(1, servingRanksOnNode * n));
  if (memory == 0) memory = topo.memoryBytes / nodeDevices;
  else if (topo.memoryBytes && memory > topo.memoryBytes / nodeDevices)
    // Reserved without backing (MAP_NORESERVE): more is accepted, and fails only when touched.
    log::warn(log::Service,
              "FERRY_DEVICE_MEMORY=%s for each of this node's %llu CPU devices (%s in all) is more than the node's "
              "memory (%s): allocations will succeed that it cannot back, and touching them ends in the OOM "
              "killer; unset it to share the node's memory among its devices",
              parse::formatSize(memory).c_str(), static_cast<unsigned long long>(nodeDevices),
              parse::formatSize(memory * nodeDevices).c_str(), parse::formatSize(topo.memoryBytes).c_str());
  int threads = userKernelThreads();
  if (threads == 0) threads = kernelThreads(topo, servingRanksOnNode, n);
  for (int i = 0; i < n; ++i) {
    if (config().flag(Knob::CpuStaging)) {
      devices.push_back(std::make_unique<PluginDevice>(
          *plugin, i, DeviceKind::Cpu, memory, machineName(nativeElfMachine()) + " host plugin device " + std::to_string(i) + ", staged"));
      continue;
    }
    auto dev = std::make_unique<CpuDevice>(*plugin, i, memory, threads);
    if (Status st = dev->reserve(); !st) return st;
    log::debug(log::Service, "CPU device %d: %s memory at %s, %d kernel thread(s)", i,
               parse::formatSize(memory).c_str(), hex(dev->heapBase()).c_str(), threads);
    devices.push_back(std::move(dev));
  }
  // GPUs come after the CPU devices in the rank's local order.
  if (Status st = discoverGpus(devices); !st) return st;
  return devices;
}

}  // namespace ferry::service
