#include "platform/parse.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

namespace ferry::parse {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "64KiB" into the number "64" and the unit "kib".
std::pair<std::string_view, std::string> splitUnit(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  return {s.substr(0, i), lower(trim(s.substr(i)))};
}

std::optional<double> number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<int64_t> integer(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> size(std::string_view text) {
  auto [num, unit] = splitUnit(trim(text));
  if (num.empty() || num.find('.') != std::string_view::npos) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (ec != std::errc() || p != num.data() + num.size()) return std::nullopt;
  static const std::pair<const char*, int> kUnits[] = {
      {"", 0},   {"b", 0},   {"k", 10},  {"kb", 10}, {"kib", 10}, {"m", 20}, {"mb", 20},
      {"mib", 20}, {"g", 30}, {"gb", 30}, {"gib", 30}, {"t", 40}, {"tb", 40}, {"tib", 40}};
  for (const auto& [name, shift] : kUnits) {
    if (unit != name) continue;
    if (shift > 0 && v > (UINT64_MAX >> shift)) return std::nullopt;
    return v << shift;
  }
  return std::nullopt;
}

std::optional<double> seconds(std::string_view text) {
  auto [num, unit] = splitUnit(trim(text));
  auto v = number(num);
  if (!v) return std::nullopt;
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1.0}, {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"m", 60.0}, {"min", 60.0}, {"h", 3600.0}};
  for (const auto& [name, scale] : kUnits)
    if (unit == name) return *v * scale;
  return std::nullopt;
}

std::string keyword(std::string_view text) { return lower(trim(text)); }

std::optional<bool> boolean(std::string_view text) {
  std::string v = lower(trim(text));
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  return std::nullopt;
}

std::string formatSize(uint64_t bytes) {
  static const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int i = 0;
  while (v >= 1024.0 && i < 5) { v /= 1024.0; ++i; }
  char buf[32];
  if (i == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else if (v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f %s", v, kNames[i]);
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, kNames[i]);
  return buf;
}

std::string formatSeconds(double s) {
  // Three significant digits: "3 s", "2.5 ms", "12.3 us"; whole seconds from 1000 s on
  // ("86400 s", not "8.64e+04 s").
  char buf[32];
  if (s >= 1000.0) std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s >= 1.0) std::snprintf(buf, sizeof buf, "%.3g s", s);
  else if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3g us", s * 1e6);
  return buf;
}

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace ferry::parse

namespace ferry {
std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
}  // namespace ferry
