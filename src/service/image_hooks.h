// What OpenMP's device-query routines answer inside a target region on a serving rank.
// There, the process's own libomptarget never finished registering devices (the rank serves
// from inside init_plugin), so omp_get_num_devices(), omp_get_initial_device() and
// omp_get_device_num() would say 0. After the stock plugin loads an image, Ferry points the
// image's imports of those routines at its own, which answer from the job's device table:
// the same count and host number as rank 0 sees, and the executing device's global number.
#pragma once

#include <set>
#include <string>

#include "platform/status.h"

namespace ferry::service {

// The job's view, set once before the first image loads.
void setJobView(int numDevices);
int jobNumDevices();
// The global number of the device whose kernel the calling thread runs (also used as the
// process's answer when it serves a single device: threads a kernel forks ask too).
void setExecutingDevice(int globalDevice);

// Names of the images (loaded objects) present now, to find the one a load adds.
std::set<std::string> loadedImagePaths();
// Patches the device-query imports of every object loaded since `before`. Returns how many
// imports it redirected.
Result<int> hookNewImages(const std::set<std::string>& before);

}  // namespace ferry::service
