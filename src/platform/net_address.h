// Where a device daemon listens and where a host program finds it: HOST:PORT (TCP; an IPv6
// address in brackets, [::1]:7010) or unix:PATH (a Unix socket on the same machine). Parsing
// only; comm/channel_socket.h opens them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "platform/status.h"

namespace ferry {

struct NetAddress {
  enum class Kind : uint8_t { Tcp, Unix };
  Kind kind = Kind::Tcp;
  std::string host;  // Tcp
  int port = 0;      // Tcp
  std::string path;  // Unix
  std::string text;  // as written, for messages
};

Result<NetAddress> parseNetAddress(std::string_view text);
// A comma-separated list (FERRY_REMOTE); empty items are refused.
Result<std::vector<NetAddress>> parseNetAddressList(std::string_view text);

}  // namespace ferry
