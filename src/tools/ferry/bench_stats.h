// Repetitions of one figure: the median is what `ferry bench` reports, min and max show how
// noisy it was.
#pragma once

#include <cmath>
#include <vector>

namespace ferry::tools::bench {

struct Spread {
  double median = NAN, min = NAN, max = NAN;
  int n = 0;  // repetitions that produced the figure
  bool valid() const { return n > 0; }
};

// Ignores NaN entries (a repetition that lacked the figure).
Spread spreadOf(const std::vector<double>& samples);

}  // namespace ferry::tools::bench
