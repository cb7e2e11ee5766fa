// Repetitions of one figure, as every benchmark reports them: the median is the figure, min
// and max show how noisy it was.
#pragma once

#include <cmath>
#include <vector>

namespace ferry {

struct Spread {
  double median = NAN, min = NAN, max = NAN;
  int n = 0;  // repetitions that produced the figure
  bool valid() const { return n > 0; }
};

// Ignores NaN entries (a repetition that lacked the figure); the median of an even count is
// the mean of the middle two.
Spread spreadOf(const std::vector<double>& samples);

}  // namespace ferry
