#include "platform/spread.h"

#include <algorithm>

namespace ferry {

Spread spreadOf(const std::vector<double>& samples) {
  std::vector<double> v;
  for (double s : samples)
    if (!std::isnan(s)) v.push_back(s);
  Spread out;
  if (v.empty()) return out;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  out.n = static_cast<int>(n);
  out.min = v.front();
  out.max = v.back();
  out.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return out;
}

}  // namespace ferry
