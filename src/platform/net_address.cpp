#include "platform/net_address.h"

#include <charconv>

namespace ferry {

Result<NetAddress> parseNetAddress(std::string_view text) {
  NetAddress a;
  a.text = std::string(text);
  auto bad = [&](const std::string& why) {
    return Status(Errc::InvalidArgument, "'" + a.text + "' is no daemon address (" + why +
                                             "); write HOST:PORT, [IPv6]:PORT or unix:PATH");
  };
  if (text.starts_with("unix:")) {
    a.kind = NetAddress::Kind::Unix;
    a.path = std::string(text.substr(5));
    if (a.path.empty()) return bad("no path after unix:");
    if (a.path.size() >= 108) return bad("a Unix socket path has at most 107 characters");
    return a;
  }
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return bad("no port");
  std::string_view host = text.substr(0, colon), port = text.substr(colon + 1);
  if (host.starts_with('[')) {
    if (!host.ends_with(']') || host.size() < 3) return bad("unbalanced brackets");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("an IPv6 address goes in brackets");
  }
  int p = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (ec != std::errc() || end != port.data() + port.size() || p < 1 || p > 65535) return bad("the port is not 1-65535");
  a.host = std::string(host);
  a.port = p;
  return a;
}

Result<std::vector<NetAddress>> parseNetAddressList(std::string_view text) {
  std::vector<NetAddress> out;
  while (true) {
    size_t comma = text.find(',');
    auto item = parseNetAddress(text.substr(0, comma));
    if (!item) return item.takeStatus();
    out.push_back(std::move(*item));
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace ferry
