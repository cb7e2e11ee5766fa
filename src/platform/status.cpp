#include "platform/status.h"

namespace ferry {

const char* errcName(Errc code) {
  switch (code) {
    case Errc::Ok: return "ok";
    case Errc::InvalidArgument: return "invalid argument";
    case Errc::OutOfMemory: return "out of memory";
    case Errc::NotFound: return "not found";
    case Errc::Unavailable: return "unavailable";
    case Errc::Timeout: return "timeout";
    case Errc::Protocol: return "protocol error";
    case Errc::VersionMismatch: return "version mismatch";
    case Errc::Unsupported: return "unsupported";
    case Errc::LoadFailed: return "load failed";
    case Errc::Internal: return "internal error";
  }
  return "unknown";
}

}  // namespace ferry
