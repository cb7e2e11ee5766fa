#include "platform/init.h"

#include <mutex>

#include "platform/config.h"
#include "platform/log.h"
#include "platform/trace.h"

namespace ferry {

Status initPlatform() {
  static std::once_flag once;
  static Status* result = nullptr;
  std::call_once(once, [] {
    Status st = initGlobalConfig();
    // Logging is configured even when another knob is bad, so that the error is visible.
    if (Status logSt = log::configure(config().text(Knob::Log)); !logSt) st = logSt;
    if (Status fileSt = log::setFile(config().text(Knob::LogFile)); !fileSt && st) st = fileSt;
    for (const auto& w : config().warnings()) log::warn(log::Config, "%s", w.c_str());
    if (!config().text(Knob::Trace).empty()) trace::enable();
    result = new Status(st);
  });
  return *result;
}

}  // namespace ferry
