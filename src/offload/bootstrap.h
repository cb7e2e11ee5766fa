// Start-up and shutdown of remote offloading. libomptarget calls the plugin's init_plugin
// before main; there every rank joins MPI, finds its devices and contributes to the
// device table. Rank 0 returns and runs main; every other rank serves its devices until
// rank 0 is done, then finalises MPI and exits 0 without running main.
#pragma once

#include <memory>
#include <vector>

#include "comm/world.h"
#include "offload/device_table.h"
#include "service/local_device.h"

namespace ferry::offload {

class Client;

struct JobDevices {
  std::vector<std::unique_ptr<service::LocalDevice>> local;  // what this rank serves
  DeviceTable table;                                         // the whole job's table
};

// Collective: finds this rank's devices (FERRY_DEVICES_PER_RANK, FERRY_RANK0_DEVICES) and
// builds the job's device table. On failure every rank that failed says why and the job
// exits 1, so that no rank waits in a collective for one that gave up.
JobDevices discoverJobDevices(comm::World& world);
// Why a job of `ranks` ranks found no device, and which setting or launch changes that:
// the message an offload program stops with and `ferry info` prints.
std::string noDeviceMessage(int ranks);

// Returns rank 0's client. Never returns on serving ranks. On a start-up failure every rank
// says what failed and the job ends with status 1.
Client* startOffload();
// Rank 0, after the last image is unregistered: releases the serving ranks, ends MPI.
void stopOffload();
// Rank 0, at its first device operation: makes the end of the program wait for target
// regions still pending as tasks (nowait without taskwait) before libomptarget unregisters
// the program's images, so that they run to the end instead of failing half-way.
void drainTargetTasksAtExit();

}  // namespace ferry::offload
