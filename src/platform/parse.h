// Parsers for the value syntaxes that FERRY_* settings and CLI flags accept. Each one
// rejects trailing garbage and overflow instead of silently taking a prefix.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ferry::parse {

std::optional<int64_t> integer(std::string_view text);
// "4096", "64K", "64KiB", "1M", "2G" (binary multiples; K = 1024).
std::optional<uint64_t> size(std::string_view text);
// "250ms", "30s", "2m", "1h", "1500us"; a bare number means seconds.
std::optional<double> seconds(std::string_view text);
// 1/0, true/false, yes/no, on/off (case-insensitive).
std::optional<bool> boolean(std::string_view text);
// A keyword as a setting names it: blanks around it dropped, letters lower-cased, as every
// other value syntax here reads them ("CMA", " cma " -> "cma").
std::string keyword(std::string_view text);

std::string formatSize(uint64_t bytes);      // 1536 -> "1.5 KiB"
std::string formatSeconds(double seconds);   // 0.25 -> "250 ms"

// Levenshtein distance, for "did you mean FERRY_TIMEOUT?" hints.
size_t editDistance(std::string_view a, std::string_view b);

}  // namespace ferry::parse

namespace ferry {
// "0x7f12ab340000"
std::string hex(uint64_t v);
}  // namespace ferry
