// Status and Result<T>: rich errors inside Ferry, converted once at each C boundary
// (a __tgt_rtl_* return code, an MPI error code, a CLI exit status) into a return code
// plus one log line that carries the whole context.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace ferry {

enum class Errc : uint8_t {
  Ok = 0,
  InvalidArgument,   // bad user input: env value, device id, pointer range
  OutOfMemory,       // allocation larger than what the device can hold
  NotFound,          // unknown device, kernel, image, peer
  Unavailable,       // peer unreachable or dead, transport not usable
  Timeout,           // a wait exceeded FERRY_TIMEOUT
  Protocol,          // malformed, truncated or foreign message
  VersionMismatch,   // peer built from another Ferry protocol version
  Unsupported,       // a valid request that Ferry does not implement
  LoadFailed,        // an image could not be loaded on a device
  Internal,          // a broken invariant; a bug in Ferry
  PermissionDenied,  // a peer without the right credentials (the channel's token)
  // New codes go here: they travel in replies, and kLastErrc bounds what a decoder accepts.
};
inline constexpr Errc kLastErrc = Errc::PermissionDenied;

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Errc code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }
  bool isOk() const { return code_ == Errc::Ok; }
  explicit operator bool() const { return isOk(); }
  Errc code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prepends context ("while loading image 2 on device 3: ") so that a failure deep in
  // the stack reaches the user with the whole path that led to it.
  Status& withContext(const std::string& context) {
    if (!isOk()) message_ = context + ": " + message_;
    return *this;
  }

 private:
  Errc code_ = Errc::Ok;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}   // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT

  bool isOk() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return isOk(); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& value() const& { return std::get<T>(v_); }
  T* operator->() { return &std::get<T>(v_); }
  T& operator*() { return std::get<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return isOk() ? kOk : std::get<Status>(v_);
  }
  Status takeStatus() { return isOk() ? Status() : std::get<Status>(std::move(v_)); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace ferry
