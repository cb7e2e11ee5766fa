// spmv_pgas: the PGAS proxy app of ferry/pgas.hpp. y = A x repeated `iters` times on N rows,
// x and y UPC-style shared arrays, row i computed by the PE that holds y[i] and x[i] (the
// arrays' blocked-cyclic layout places the rows). A is a 2D 5-point Laplacian on an m x m grid
// (N = m^2) or a random matrix with 7 entries per row drawn from a fixed seed.
//
//   oshrun -n 4 ./spmv_pgas [--matrix laplace|random] [--n N] [--iters K] [--block B]
//                           [--fetch runs|elements]
//   -> spmv_pgas pes=4 n=65536 iters=20 matrix=laplace block=1024 fetch=runs seconds=...
//      gflops=... verified=yes
//
// Remote x: inspector-executor. Once, each PE lists the columns its rows use that other PEs
// hold, sorted, and merges them into runs of consecutive indices (closing gaps of up to
// kMaxGap elements, which cost less to fetch than another call). Each iteration it fetches
// every run with one memget, which issues one shmem_getmem (or copy, within a node) per owner
// block the run crosses, into a private buffer after its own part of x; the kernel is then a
// plain CSR product over that buffer. For the Laplacian with blocks of whole grid rows this is
// two runs per block (the grid rows above and below). `--fetch elements` fetches each needed
// column with its own get instead, for comparison.
//
// x changes every iteration (x_k[i] is a formula of i and k, written by its owner), so a stale
// or misplaced fetch gives a wrong y. x is double-buffered: iteration k writes x[k % 2] while a
// slower PE may still read x[(k - 1) % 2], so one barrier per iteration suffices.
//
// Verification: each PE recomputes its rows of the last product serially from the formula for
// x, in the same order, and compares bit for bit (xValue says why that is exact). Exit status
// 0 when every PE agrees, 1 on a mismatch, 2 on bad arguments.
#include <ferry/pgas.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pgas = ferry::pgas;

namespace {

constexpr std::size_t kMaxGap = 16;      // merge runs this close: 128 B more beats one more get
constexpr int kRandomEntriesPerRow = 7;  // the diagonal and 6 random columns
constexpr std::uint64_t kSeed = 0x5EED5EED2024ULL;

// ---- options ---------------------------------------------------------------------------------

enum class Matrix { laplace, random };
enum class Fetch { runs, elements };

struct Options {
  Matrix matrix = Matrix::laplace;
  std::size_t n = 65536;
  int iters = 20;
  std::size_t block = 1024;
  Fetch fetch = Fetch::runs;
};

// The block sizes compiled in (a shared_array's block is a template argument, as in UPC).
constexpr std::size_t kBlocks[] = {1, 64, 256, 1024, 4096};

template <class T>
bool parseNumber(std::string_view s, T& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

std::size_t gridSide(std::size_t n) {
  auto m = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(n))));
  while (m * m > n) --m;
  while ((m + 1) * (m + 1) <= n) ++m;
  return m;
}

// The options, or the reason they are wrong.
std::optional<Options> parseOptions(int argc, char** argv, std::string& error) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    std::string_view key = argv[a], value;
    if (const auto eq = key.find('='); eq != std::string_view::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else if (a + 1 < argc) {
      value = argv[++a];
    } else {
      error = std::string(key) + " needs a value";
      return std::nullopt;
    }
    bool ok = true;
    if (key == "--matrix") {
      ok = value == "laplace" || value == "random";
      o.matrix = value == "random" ? Matrix::random : Matrix::laplace;
    } else if (key == "--fetch") {
      ok = value == "runs" || value == "elements";
      o.fetch = value == "elements" ? Fetch::elements : Fetch::runs;
    } else if (key == "--n") {
      ok = parseNumber(value, o.n) && o.n >= 4 && o.n <= (std::size_t{1} << 31);
    } else if (key == "--iters") {
      ok = parseNumber(value, o.iters) && o.iters >= 1;
    } else if (key == "--block") {
      ok = parseNumber(value, o.block) &&
           std::find(std::begin(kBlocks), std::end(kBlocks), o.block) != std::end(kBlocks);
    } else {
      error = "unknown option " + std::string(key);
      return std::nullopt;
    }
    if (!ok) {
      error = "bad value '" + std::string(value) + "' for " + std::string(key) +
              " (--matrix laplace|random, --n 4..2^31, --iters >= 1, --block 1|64|256|1024|4096, "
              "--fetch runs|elements)";
      return std::nullopt;
    }
  }
  if (o.matrix == Matrix::laplace && gridSide(o.n) * gridSide(o.n) != o.n) {
    error = "--matrix laplace needs --n a square (m x m grid), not " + std::to_string(o.n);
    return std::nullopt;
  }
  return o;
}

// ---- the problem ---------------------------------------------------------------------------

// x_k[i]: multiples of 1/64 below 17, repeating only every 1021 indices, and different for the
// iterations k and k - 2 that share a buffer. With the matrix entries (small multiples of
// 1/1024) every product and partial sum is exact, so the serial check holds bit for bit even
// where a compiler contracts a multiply-add; a wrong or stale x still shows.
double xValue(std::size_t i, int k) {
  return 1.0 + static_cast<double>((i * 7 + static_cast<std::size_t>(k) * 13) % 1021) / 64.0;
}

std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The rows a PE holds, in CSR form with global column indices.
struct Rows {
  std::vector<std::size_t> global;  // the global index of each row, in local order
  std::vector<std::size_t> start;   // row r's entries: start[r] .. start[r + 1] - 1
  std::vector<std::size_t> col;
  std::vector<double> val;
};

// Appends row i of A. Each row depends on i alone, so every PE builds only its own rows and
// the matrix does not depend on how many PEs there are.
void appendRow(Rows& rows, Matrix matrix, std::size_t n, std::size_t i) {
  auto add = [&](std::size_t c, double v) {
    rows.col.push_back(c);
    rows.val.push_back(v);
  };
  if (matrix == Matrix::laplace) {
    const std::size_t m = gridSide(n), gx = i % m, gy = i / m;
    if (gy > 0) add(i - m, -1.0);
    if (gx > 0) add(i - 1, -1.0);
    add(i, 4.0);
    if (gx + 1 < m) add(i + 1, -1.0);
    if (gy + 1 < m) add(i + m, -1.0);
  } else {
    add(i, 7.0);
    for (int e = 1; e < kRandomEntriesPerRow; ++e) {
      const std::uint64_t h = mix(kSeed ^ mix(i * kRandomEntriesPerRow + static_cast<std::uint64_t>(e)));
      add(static_cast<std::size_t>(h % n), -static_cast<double>((h >> 40) % 1024 + 1) / 1024.0);
    }
  }
}

template <std::size_t B>
Rows buildRows(const pgas::block_cyclic<B>& layout, Matrix matrix) {
  Rows rows;
  const std::size_t count = layout.local_size(pgas::my_thread());
  rows.start.push_back(0);
  for (std::size_t r = 0; r < count; ++r) {
    const std::size_t i = layout.global_index(pgas::my_thread(), r);
    rows.global.push_back(i);
    appendRow(rows, matrix, layout.size(), i);
    rows.start.push_back(rows.col.size());
  }
  return rows;
}

// ---- the inspector ---------------------------------------------------------------------------

struct Run {
  std::size_t first;  // global index of x
  std::size_t count;
  std::size_t slot;  // where it goes in the working copy of x
};

// What each iteration fetches, and each entry's place in the working copy of x: this PE's
// part of x at 0 .. local_size - 1, then the runs.
struct Plan {
  std::vector<Run> runs;
  std::vector<std::uint32_t> ref;  // per entry, the index of its x in the working copy
  std::size_t width = 0;           // size of the working copy
};

template <std::size_t B>
Plan inspect(const Rows& rows, const pgas::block_cyclic<B>& layout, std::size_t maxGap) {
  const int me = pgas::my_thread();
  std::vector<std::size_t> remote;
  for (std::size_t c : rows.col)
    if (layout.owner(c) != me) remote.push_back(c);
  std::sort(remote.begin(), remote.end());
  remote.erase(std::unique(remote.begin(), remote.end()), remote.end());

  Plan plan;
  const std::size_t own = layout.local_size(me);
  std::size_t slot = own;
  for (std::size_t c : remote) {
    if (!plan.runs.empty() && c <= plan.runs.back().first + plan.runs.back().count + maxGap) {
      Run& r = plan.runs.back();
      slot += c + 1 - (r.first + r.count);
      r.count = c + 1 - r.first;
    } else {
      plan.runs.push_back(Run{c, 1, slot});
      ++slot;
    }
  }
  plan.width = slot;

  plan.ref.reserve(rows.col.size());
  for (std::size_t c : rows.col) {
    if (layout.owner(c) == me) {
      plan.ref.push_back(static_cast<std::uint32_t>(layout.local_index(c)));
      continue;
    }
    // The run holding c: the last that starts at or before it.
    const auto it = std::upper_bound(plan.runs.begin(), plan.runs.end(), c,
                                     [](std::size_t v, const Run& r) { return v < r.first; }) - 1;
    plan.ref.push_back(static_cast<std::uint32_t>(it->slot + (c - it->first)));
  }
  return plan;
}

// ---- the executor ----------------------------------------------------------------------------

template <std::size_t B>
void fetchRemote(const pgas::shared_array<double, B>& x, const Plan& plan, Fetch fetch, std::vector<double>& work) {
  for (const Run& r : plan.runs) {
    if (fetch == Fetch::runs) {
      x.memget(work.data() + r.slot, r.first, r.count);
    } else {
      for (std::size_t k = 0; k < r.count; ++k) work[r.slot + k] = x.get(r.first + k);
    }
  }
}

void multiply(const Rows& rows, const Plan& plan, const std::vector<double>& work, double* y) {
  for (std::size_t r = 0; r + 1 < rows.start.size(); ++r) {
    double sum = 0.0;
    for (std::size_t e = rows.start[r]; e < rows.start[r + 1]; ++e) sum += rows.val[e] * work[plan.ref[e]];
    y[r] = sum;
  }
}

// This PE's rows of A x_k, serially from the formula for x, summed in the same order.
std::size_t countMismatches(const Rows& rows, const double* y, int k) {
  std::size_t bad = 0;
  for (std::size_t r = 0; r + 1 < rows.start.size(); ++r) {
    double sum = 0.0;
    for (std::size_t e = rows.start[r]; e < rows.start[r + 1]; ++e) sum += rows.val[e] * xValue(rows.col[e], k);
    if (std::bit_cast<std::uint64_t>(sum) != std::bit_cast<std::uint64_t>(y[r])) {
      if (bad == 0)
        std::fprintf(stderr, "spmv_pgas: PE %d: row %zu is %.17g, the serial product gives %.17g\n", pgas::my_thread(),
                     rows.global[r], y[r], sum);
      ++bad;
    }
  }
  return bad;
}

// Every PE's value of `mine`, in PE order: each PE writes its own element of a cyclic array
// (a local store), and after the barrier reads them all with one memget.
template <class T>
std::vector<T> allGather(T mine) {
  pgas::shared_array<T> slots(static_cast<std::size_t>(pgas::threads()));
  slots[static_cast<std::size_t>(pgas::my_thread())] = mine;
  pgas::barrier();
  std::vector<T> all(slots.size());
  slots.memget(all.data(), 0, all.size());
  return all;  // slots' destructor waits for every PE before its memory goes
}

struct Result {
  double seconds;
  std::size_t nnz;
  std::size_t mismatches;
};

template <std::size_t B>
Result run(const Options& o) {
  pgas::shared_array<double, B> x[2] = {pgas::shared_array<double, B>(o.n), pgas::shared_array<double, B>(o.n)};
  pgas::shared_array<double, B> y(o.n);
  const Rows rows = buildRows(x[0].layout(), o.matrix);
  const Plan plan = inspect(rows, x[0].layout(), o.fetch == Fetch::runs ? kMaxGap : 0);
  std::vector<double> work(plan.width);
  const std::size_t own = x[0].local_size();

  pgas::barrier();
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < o.iters; ++k) {
    auto& xk = x[k % 2];
    pgas::forall(xk, [k](std::size_t i, double& v) { v = xValue(i, k); });  // the owner updates x
    pgas::barrier();
    std::copy_n(xk.local_data(), own, work.begin());
    fetchRemote(xk, plan, o.fetch, work);
    multiply(rows, plan, work, y.local_data());
  }
  pgas::barrier();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return Result{seconds, rows.col.size(), countMismatches(rows, y.local_data(), o.iters - 1)};
}

// run<B> for the compiled-in block size that --block names (parseOptions accepted only those).
template <std::size_t... Bs>
Result runWithBlock(const Options& o, std::index_sequence<Bs...>) {
  Result r{};
  const bool found = ((o.block == kBlocks[Bs] && (r = run<kBlocks[Bs]>(o), true)) || ...);
  return found ? r : Result{0.0, 0, 1};
}

}  // namespace

int main(int argc, char** argv) {
  pgas::runtime rt;
  const int me = pgas::my_thread();
  std::string error;
  const std::optional<Options> o = parseOptions(argc, argv, error);
  if (!o) {
    if (me == 0) std::fprintf(stderr, "spmv_pgas: %s\n", error.c_str());
    return 2;
  }

  const Result mine = runWithBlock(*o, std::make_index_sequence<std::size(kBlocks)>());
  const std::vector<double> seconds = allGather(mine.seconds);
  const std::vector<std::size_t> nnz = allGather(mine.nnz);
  const std::vector<std::size_t> bad = allGather(mine.mismatches);

  const double slowest = *std::max_element(seconds.begin(), seconds.end());
  std::size_t totalNnz = 0, totalBad = 0;
  for (std::size_t v : nnz) totalNnz += v;
  for (std::size_t v : bad) totalBad += v;
  if (me == 0) {
    const double flops = 2.0 * static_cast<double>(totalNnz) * o->iters;
    std::printf("spmv_pgas pes=%d n=%zu iters=%d matrix=%s block=%zu fetch=%s seconds=%.6f gflops=%.3f verified=%s\n",
                pgas::threads(), o->n, o->iters, o->matrix == Matrix::laplace ? "laplace" : "random", o->block,
                o->fetch == Fetch::runs ? "runs" : "elements", slowest, flops / slowest * 1e-9,
                totalBad ? "no" : "yes");
    if (totalBad) std::fprintf(stderr, "spmv_pgas: %zu of %zu rows differ from the serial product\n", totalBad, o->n);
  }
  return totalBad ? 1 : 0;
}
