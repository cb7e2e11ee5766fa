// Carries the host pager's page reads to a comm::PageSource, for a serving rank that reaches
// rank 0's memory over MPI (another node, or no cross-memory attach). The pager reads pages
// inside its SIGSEGV handler, where MPI may not be called: the handler posts the read in a
// slot, wakes the courier thread through an eventfd (write() is async-signal-safe) and
// yields until the thread has done the read over MPI.
#pragma once

#include <cstdint>
#include <memory>

#include "comm/page_source.h"
#include "platform/status.h"

namespace ferry::service::courier {

// Starts the courier thread on `link`, once per process; later calls keep the first link.
Status start(std::unique_ptr<comm::PageSource> link);
// The link, or nullptr before start().
comm::PageSource* link();
// Async-signal-safe: reads up to `count` pages from `page` on into `out` through the courier
// thread; returns how many were read (0 when none, or when the link failed, which the thread
// logs).
uint32_t readFromHandler(uint64_t page, uint32_t count, uint8_t* out);

}  // namespace ferry::service::courier
