// ferry/pgas.hpp: UPC-style shared arrays and UPC++-style global pointers for C++20, on an
// OpenSHMEM 1.5 library (Ferry's libferry-shmem; only the public shmem.h API is used).
//
//   #include <ferry/pgas.hpp>          // -I<prefix>/include/ferry/shmem, as for <shmem.h>
//   ferry::pgas::runtime rt;           // shmem_init ... shmem_finalize
//   ferry::pgas::shared_array<double, 4> a(1000);   // UPC: shared [4] double a[1000]
//   ferry::pgas::forall(a, [](std::size_t i, double& v) { v = i; });   // upc_forall(...; &a[i])
//   ferry::pgas::barrier();            // upc_barrier
//   double x = a[999];                 // a get from the owner (a load where it is reachable)
//
// Layout. Element i of a shared_array<T, Block> of n elements lives on PE
// (i / Block) % THREADS at offset ((i / Block) / THREADS) * Block + i % Block of that PE's
// part: UPC's blocked-cyclic layout, blocks dealt to the PEs in turn. Every PE's part is one
// symmetric block of ceil(ceil(n / Block) / THREADS) * Block elements.
//
// Memory model: UPC's relaxed accesses. An element access or memput/memget returns when the
// caller's side is done (a get has its value; a put's source may be reused). A PE reads back
// what it wrote itself. Other PEs see a put after barrier(), fence() followed by their own
// synchronisation, or the unlock of a lock_t held around it. Where the owner's memory is
// reachable (shmem_ptr: the PE itself and the PEs of its node) an access is a load or a store.
//
// Futures: rput/rget issue non-blocking SHMEM operations, which OpenSHMEM completes only
// together (shmem_quiet). A future is ready once any quiet of this library (fence(),
// barrier(), or waiting on any future) has happened since it was issued, so waiting on one
// future completes every outstanding one. A quiet the program calls itself is not seen: the
// future answers "not ready" and its wait() quiets once more. This is UPC++'s rget/rput with
// OpenSHMEM's completion model: there is no per-operation completion to poll.
//
// Errors: an index or range outside an array throws std::out_of_range naming it and the size,
// before any communication; a collective allocation the heap cannot hold throws
// std::bad_alloc on every PE alike. SHMEM itself ends the job on a bad PE number.
#pragma once

#include <shmem.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ferry::pgas {

// ==== the runtime ==========================================================================

inline void init() { shmem_init(); }
inline void finalize() { shmem_finalize(); }

// shmem_init for the lifetime of a scope. Declare it before any shared object: those are
// freed (collectively) before it finalizes.
class runtime {
 public:
  runtime() { init(); }
  ~runtime() { finalize(); }
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;
};

// UPC's MYTHREAD and THREADS: the PEs of SHMEM_TEAM_WORLD.
inline int my_thread() { return shmem_my_pe(); }
inline int threads() { return shmem_n_pes(); }

// ==== completion bookkeeping ===============================================================

namespace detail {

// Counts the quiets this library has issued. A future records the count after it issued its
// operation; any later quiet completed it. Where a quiet races with the issue the future just
// reports "not ready" once more than needed, never "ready" too early.
inline std::atomic<std::uint64_t> quiet_epoch{0};

// Set by a blocking put that went through SHMEM's RMA path (a PE that shmem_ptr does not
// reach). OpenSHMEM does not order a later get behind such a put, so the next get through that
// path quiets first: a PE reads back its own writes, as UPC requires of a thread.
inline std::atomic<bool> remote_puts_pending{false};

// Runs `complete` (a routine that quiets: shmem_quiet, or shmem_barrier_all, which OpenSHMEM
// 1.5 defines as a quiet and a sync) and records it. The flag is cleared before the call, so
// a put racing with it either is completed by it or sets the flag again.
template <class F>
void completing(F complete) {
  remote_puts_pending.store(false, std::memory_order_relaxed);
  complete();
  quiet_epoch.fetch_add(1, std::memory_order_release);
}

inline void quiet() { completing([] { shmem_quiet(); }); }

inline void before_remote_get() {
  if (remote_puts_pending.load(std::memory_order_relaxed)) quiet();
}

// A T from bytes that need not be aligned for T, without needing T to be default-constructible.
template <class T>
T load(const void* src) noexcept {
  std::array<std::byte, sizeof(T)> bytes;
  std::memcpy(bytes.data(), src, sizeof(T));
  return std::bit_cast<T>(bytes);
}

[[noreturn]] inline void throw_index(std::size_t i, std::size_t n) {
  throw std::out_of_range("ferry::pgas::shared_array: index " + std::to_string(i) + " is out of range (size " +
                          std::to_string(n) + ")");
}

[[noreturn]] inline void throw_range(std::size_t first, std::size_t count, std::size_t n) {
  throw std::out_of_range("ferry::pgas::shared_array: range of " + std::to_string(count) + " elements from index " +
                          std::to_string(first) + " is out of range (size " + std::to_string(n) + ")");
}

}  // namespace detail

// Completes every outstanding put and get of this PE (upc_fence; shmem_quiet).
inline void fence() { detail::quiet(); }

// Waits for every PE, after completing this PE's puts and gets (upc_barrier;
// shmem_barrier_all, which quiets first).
inline void barrier() {
  detail::completing([] { shmem_barrier_all(); });
}

// ==== the layout ===========================================================================

// UPC's blocked-cyclic layout of n elements over `threads` PEs, as plain arithmetic: what a
// shared_array uses, and what a program uses to place its own work the same way.
template <std::size_t Block>
class block_cyclic {
  static_assert(Block > 0, "a block holds at least one element");

 public:
  constexpr block_cyclic(std::size_t n, int threads) noexcept : n_(n), threads_(static_cast<std::size_t>(threads)) {}

  constexpr std::size_t size() const noexcept { return n_; }
  constexpr int threads() const noexcept { return static_cast<int>(threads_); }
  // Blocks in all, the last one possibly partial.
  constexpr std::size_t blocks() const noexcept { return n_ / Block + (n_ % Block != 0 ? 1 : 0); }

  // upc_threadof: the PE that holds element i.
  constexpr int owner(std::size_t i) const noexcept { return static_cast<int>((i / Block) % threads_); }
  // Element i's offset in its owner's part.
  constexpr std::size_t local_index(std::size_t i) const noexcept {
    return (i / Block) / threads_ * Block + i % Block;
  }
  // The inverse: the element at offset `local` of PE `pe`'s part.
  constexpr std::size_t global_index(int pe, std::size_t local) const noexcept {
    return ((local / Block) * threads_ + static_cast<std::size_t>(pe)) * Block + local % Block;
  }

  // Elements each PE's part has room for: the most blocks any PE holds. The same on every PE,
  // as a symmetric allocation must be.
  constexpr std::size_t local_capacity() const noexcept {
    const std::size_t b = blocks();
    return (b / threads_ + (b % threads_ != 0 ? 1 : 0)) * Block;
  }

  // Elements PE `pe` holds: its blocks, less what the partial last block lacks if it is pe's.
  // They are offsets 0 .. local_size(pe) - 1 of its part, since only the last block is partial.
  constexpr std::size_t local_size(int pe) const noexcept {
    const std::size_t b = blocks(), p = static_cast<std::size_t>(pe);
    if (b <= p) return 0;
    std::size_t count = ((b - 1 - p) / threads_ + 1) * Block;
    if ((b - 1) % threads_ == p) count -= b * Block - n_;
    return count;
  }

  // How many of the `count` elements from i on lie contiguously in one PE's part: the rest of
  // i's block, or all of them on one PE (where consecutive blocks are adjacent).
  constexpr std::size_t run_length(std::size_t i, std::size_t count) const noexcept {
    return threads_ == 1 ? count : std::min(count, Block - i % Block);
  }

 private:
  std::size_t n_;
  std::size_t threads_;
};

// ==== global pointers and futures ==========================================================

// A pointer to a T in PE where()'s copy of a symmetric object (heap or static data), as
// UPC++'s global_ptr. Arithmetic moves within that PE's copy; it never moves to another PE.
template <class T>
class global_ptr {
 public:
  using element_type = T;

  constexpr global_ptr() noexcept = default;
  constexpr global_ptr(std::nullptr_t) noexcept {}
  // `symmetric` is this PE's address of the object (what shmem_malloc returned, or a global).
  constexpr global_ptr(T* symmetric, int pe) noexcept : addr_(symmetric), pe_(symmetric ? pe : -1) {}

  constexpr int where() const noexcept { return pe_; }
  // The address to use in SHMEM calls naming where(): this PE's address of the object.
  constexpr T* symmetric_address() const noexcept { return addr_; }
  // A pointer this PE can load and store through (where() is this PE or on its node, per
  // shmem_ptr), or nullptr.
  T* local() const noexcept { return addr_ ? static_cast<T*>(shmem_ptr(addr_, pe_)) : nullptr; }
  constexpr bool is_null() const noexcept { return addr_ == nullptr; }
  constexpr explicit operator bool() const noexcept { return addr_ != nullptr; }

  constexpr global_ptr& operator+=(std::ptrdiff_t d) noexcept {
    addr_ += d;
    return *this;
  }
  constexpr global_ptr& operator-=(std::ptrdiff_t d) noexcept {
    addr_ -= d;
    return *this;
  }
  constexpr global_ptr& operator++() noexcept { return *this += 1; }
  constexpr global_ptr& operator--() noexcept { return *this -= 1; }
  constexpr global_ptr operator++(int) noexcept {
    global_ptr old = *this;
    ++*this;
    return old;
  }
  constexpr global_ptr operator--(int) noexcept {
    global_ptr old = *this;
    --*this;
    return old;
  }
  friend constexpr global_ptr operator+(global_ptr p, std::ptrdiff_t d) noexcept { return p += d; }
  friend constexpr global_ptr operator+(std::ptrdiff_t d, global_ptr p) noexcept { return p += d; }
  friend constexpr global_ptr operator-(global_ptr p, std::ptrdiff_t d) noexcept { return p -= d; }
  // Defined for two pointers into the same PE's copy of one object, as for plain pointers.
  friend constexpr std::ptrdiff_t operator-(global_ptr a, global_ptr b) noexcept { return a.addr_ - b.addr_; }
  friend constexpr bool operator==(global_ptr a, global_ptr b) noexcept {
    return a.addr_ == b.addr_ && a.pe_ == b.pe_;
  }

 private:
  T* addr_ = nullptr;
  int pe_ = -1;
};

namespace detail {

// What every future holds: the quiet epoch after its issue, and the bytes that the
// non-blocking operation still reads or writes (a copied rput value, an rget's result). A
// future that owns such bytes completes its operation before it lets them go, so dropping an
// unwaited future is safe (it costs a quiet).
class pending_op {
 public:
  pending_op() noexcept = default;  // ready: nothing was issued
  // Records the epoch; call it after issuing the operation (see quiet_epoch).
  explicit pending_op(std::unique_ptr<std::byte[]> keep) noexcept
      : keep_(std::move(keep)), issued_(quiet_epoch.load(std::memory_order_acquire)), pending_(true) {}
  pending_op(pending_op&& o) noexcept
      : keep_(std::move(o.keep_)), issued_(o.issued_), pending_(std::exchange(o.pending_, false)) {}
  pending_op& operator=(pending_op&& o) noexcept {
    if (this != &o) {
      release();
      keep_ = std::move(o.keep_);
      issued_ = o.issued_;
      pending_ = std::exchange(o.pending_, false);
    }
    return *this;
  }
  pending_op(const pending_op&) = delete;
  pending_op& operator=(const pending_op&) = delete;
  ~pending_op() { release(); }

  bool ready() const noexcept { return !pending_ || quiet_epoch.load(std::memory_order_acquire) > issued_; }
  void wait() {
    if (!ready()) quiet();
    pending_ = false;
  }
  const std::byte* bytes() const noexcept { return keep_.get(); }

 private:
  void release() noexcept {
    if (keep_ && !ready()) quiet();
    keep_.reset();
    pending_ = false;
  }

  std::unique_ptr<std::byte[]> keep_;
  std::uint64_t issued_ = 0;
  bool pending_ = false;
};

}  // namespace detail

// The completion of an rput or rget, and an rget's value: UPC++'s future with OpenSHMEM's
// completion (see the top of this file). Move-only: it may own the operation's bytes.
template <class T = void>
class future {
 public:
  future() noexcept = default;  // ready, without a value: get() throws std::logic_error
  bool ready() const noexcept { return op_.ready(); }
  // Completes this operation and every other outstanding one of this PE (shmem_quiet).
  void wait() { op_.wait(); }
  T get() {
    wait();
    if (!op_.bytes()) throw std::logic_error("ferry::pgas::future::get: a default-constructed future has no value");
    return detail::load<T>(op_.bytes());
  }

  // For rget (the library's own): a future whose operation writes into op's bytes.
  explicit future(detail::pending_op op) noexcept : op_(std::move(op)) {}

 private:
  detail::pending_op op_;
};

template <>
class future<void> {
 public:
  future() noexcept = default;  // ready
  bool ready() const noexcept { return op_.ready(); }
  // Completes this operation and every other outstanding one of this PE (shmem_quiet).
  void wait() { op_.wait(); }
  void get() { wait(); }

  // For rput and rget (the library's own): a future for an operation just issued.
  explicit future(detail::pending_op op) noexcept : op_(std::move(op)) {}

 private:
  detail::pending_op op_;
};

namespace detail {

template <class T>
void check_transfer(const global_ptr<T>& p, const char* call) {
  static_assert(std::is_trivially_copyable_v<T>, "rput/rget copy bytes: T must be trivially copyable");
  if (!p) throw std::invalid_argument(std::string("ferry::pgas::") + call + ": null global_ptr");
}

}  // namespace detail

// Writes `count` elements from `src` to dst .. dst + count - 1 (shmem_putmem_nbi). `src` must
// stay unchanged until the future is ready.
template <class T>
[[nodiscard]] future<> rput(const T* src, global_ptr<T> dst, std::size_t count) {
  detail::check_transfer(dst, "rput");
  if (count == 0) return {};
  shmem_putmem_nbi(dst.symmetric_address(), src, count * sizeof(T), dst.where());
  return future<>(detail::pending_op(nullptr));
}

// Writes `value` to *dst. The future keeps a copy of the value until the put is complete.
template <class T>
[[nodiscard]] future<> rput(const std::type_identity_t<T>& value, global_ptr<T> dst) {
  detail::check_transfer(dst, "rput");
  auto copy = std::make_unique_for_overwrite<std::byte[]>(sizeof(T));
  std::memcpy(copy.get(), &value, sizeof(T));
  shmem_putmem_nbi(dst.symmetric_address(), copy.get(), sizeof(T), dst.where());
  return future<>(detail::pending_op(std::move(copy)));
}

// Reads src .. src + count - 1 into `dst` (shmem_getmem_nbi); `dst` is written until the future
// is ready and must outlive that.
template <class T>
[[nodiscard]] future<> rget(global_ptr<T> src, T* dst, std::size_t count) {
  detail::check_transfer(src, "rget");
  if (count == 0) return {};
  detail::before_remote_get();
  shmem_getmem_nbi(dst, src.symmetric_address(), count * sizeof(T), src.where());
  return future<>(detail::pending_op(nullptr));
}

// Reads *src into storage the future owns; get() returns it.
template <class T>
[[nodiscard]] future<T> rget(global_ptr<T> src) {
  detail::check_transfer(src, "rget");
  auto into = std::make_unique_for_overwrite<std::byte[]>(sizeof(T));
  detail::before_remote_get();
  shmem_getmem_nbi(into.get(), src.symmetric_address(), sizeof(T), src.where());
  return future<T>(detail::pending_op(std::move(into)));
}

// ==== shared arrays ========================================================================

// UPC's `shared [Block] T a[n]`: n elements dealt to the PEs in blocks of Block (see the top
// of this file). Construction and destruction are collective: every PE constructs its
// shared_arrays with the same n in the same order.
template <class T, std::size_t Block = 1>
class shared_array {
  static_assert(std::is_trivially_copyable_v<T>,
                "a shared_array moves elements as bytes: T must be trivially copyable");
  static_assert(Block > 0, "a block holds at least one element");

 public:
  using value_type = T;
  using layout_type = block_cyclic<Block>;

  // What a[i] gives: reads get the element, assignments put it (a proxy, as
  // std::vector<bool>::reference). Compound assignments read, then write: not atomic.
  class reference {
   public:
    reference(const reference&) = default;
    operator T() const { return array_->get(index_); }
    reference& operator=(const T& v) {
      array_->put(index_, v);
      return *this;
    }
    // a[i] = a[j] copies the element, not the proxy.
    reference& operator=(const reference& other) { return *this = static_cast<T>(other); }
    template <class U>
    reference& operator+=(const U& u) { return update([&](T& v) { v += u; }); }
    template <class U>
    reference& operator-=(const U& u) { return update([&](T& v) { v -= u; }); }
    template <class U>
    reference& operator*=(const U& u) { return update([&](T& v) { v *= u; }); }
    template <class U>
    reference& operator/=(const U& u) { return update([&](T& v) { v /= u; }); }
    global_ptr<T> ptr() const { return array_->ptr(index_); }

   private:
    friend class shared_array;
    reference(shared_array& a, std::size_t i) noexcept : array_(&a), index_(i) {}
    template <class F>
    reference& update(F f) {
      T v = *this;
      f(v);
      return *this = v;
    }
    shared_array* array_;
    std::size_t index_;
  };

  // Collective: allocates every PE's part on the symmetric heap, zero-filled.
  explicit shared_array(std::size_t n)
      : layout_(n, threads()), me_(my_thread()), local_size_(layout_.local_size(me_)) {
    const std::size_t capacity = layout_.local_capacity();
    if (capacity == 0) return;  // n == 0 on every PE: nothing to share
    if (capacity > SIZE_MAX / sizeof(T)) throw std::length_error("ferry::pgas::shared_array: too many elements");
    base_ = allocate(capacity);
    direct_.resize(static_cast<std::size_t>(layout_.threads()));
    for (int pe = 0; pe < layout_.threads(); ++pe)
      direct_[static_cast<std::size_t>(pe)] = static_cast<T*>(shmem_ptr(base_, pe));
  }

  // Collective (shmem_free): every PE destroys it, after its last access.
  ~shared_array() { release(); }

  shared_array(shared_array&& o) noexcept
      : layout_(std::exchange(o.layout_, layout_type(0, o.layout_.threads()))),
        me_(o.me_),
        local_size_(std::exchange(o.local_size_, 0)),
        base_(std::exchange(o.base_, nullptr)),
        direct_(std::move(o.direct_)) {}
  // Collective where this array holds memory: it is freed.
  shared_array& operator=(shared_array&& o) noexcept {
    if (this != &o) {
      release();
      layout_ = std::exchange(o.layout_, layout_type(0, o.layout_.threads()));
      me_ = o.me_;
      local_size_ = std::exchange(o.local_size_, 0);
      base_ = std::exchange(o.base_, nullptr);
      direct_ = std::move(o.direct_);
    }
    return *this;
  }
  shared_array(const shared_array&) = delete;
  shared_array& operator=(const shared_array&) = delete;

  std::size_t size() const noexcept { return layout_.size(); }
  static constexpr std::size_t block_size() noexcept { return Block; }
  const layout_type& layout() const noexcept { return layout_; }

  // Affinity (upc_threadof and friends); each checks i < size().
  int owner(std::size_t i) const { return layout_.owner(checked(i)); }
  std::size_t local_index(std::size_t i) const { return layout_.local_index(checked(i)); }
  bool is_local(std::size_t i) const { return owner(i) == me_; }

  // This PE's elements: offsets 0 .. local_size() - 1, in global order (upc_localsizeof's
  // part of it; the element at offset k is layout().global_index(my_thread(), k)).
  T* local_data() noexcept { return base_; }
  const T* local_data() const noexcept { return base_; }
  std::size_t local_size() const noexcept { return local_size_; }

  // Element i as a global pointer into its owner's part.
  global_ptr<T> ptr(std::size_t i) const {
    return global_ptr<T>(base_ + layout_.local_index(checked(i)), layout_.owner(i));
  }

  reference operator[](std::size_t i) { return reference(*this, checked(i)); }
  T operator[](std::size_t i) const { return get(i); }

  T get(std::size_t i) const {
    checked(i);
    std::array<std::byte, sizeof(T)> bytes;  // T need not be default-constructible
    read(bytes.data(), layout_.owner(i), layout_.local_index(i), 1);
    return std::bit_cast<T>(bytes);
  }
  void put(std::size_t i, const T& v) {
    checked(i);
    write(layout_.owner(i), layout_.local_index(i), &v, 1);
  }

  // upc_memput: elements first .. first + count - 1 from src, one copy or shmem_putmem per
  // contiguous run in one owner's part. src may be reused on return.
  void memput(std::size_t first, const T* src, std::size_t count) {
    for_each_run(first, count, [&](int pe, std::size_t local, std::size_t done, std::size_t len) {
      write(pe, local, src + done, len);
    });
  }
  // upc_memget: elements first .. first + count - 1 into dst, one copy or shmem_getmem per
  // contiguous run in one owner's part; dst holds them on return.
  void memget(T* dst, std::size_t first, std::size_t count) const {
    for_each_run(first, count, [&](int pe, std::size_t local, std::size_t done, std::size_t len) {
      read(dst + done, pe, local, len);
    });
  }

 private:
  // Over-aligned element types need shmem_align, which does not zero.
  static T* allocate(std::size_t count) {
    void* p = nullptr;
    if constexpr (alignof(T) <= alignof(std::max_align_t)) {
      p = shmem_calloc(count, sizeof(T));  // zeroes before its barrier
    } else {
      p = shmem_align(alignof(T), count * sizeof(T));
      if (p) {
        std::memset(p, 0, count * sizeof(T));
        shmem_barrier_all();  // no PE writes into a part before its owner zeroed it
      }
    }
    if (!p) throw std::bad_alloc();  // every PE got NULL (the allocation is collective)
    return static_cast<T*>(p);
  }

  void release() noexcept {
    if (base_) shmem_free(base_);
    base_ = nullptr;
  }

  std::size_t checked(std::size_t i) const {
    if (i >= size()) detail::throw_index(i, size());
    return i;
  }

  // Calls f(owner, local offset, offset in the caller's buffer, length) for each contiguous
  // run of first .. first + count - 1, after checking the whole range.
  template <class F>
  void for_each_run(std::size_t first, std::size_t count, F f) const {
    if (first > size() || count > size() - first) detail::throw_range(first, count, size());
    for (std::size_t done = 0; done < count;) {
      const std::size_t i = first + done;
      const std::size_t len = layout_.run_length(i, count - done);
      f(layout_.owner(i), layout_.local_index(i), done, len);
      done += len;
    }
  }

  // A load or store where shmem_ptr reaches the owner's part, else SHMEM's RMA path.
  void write(int pe, std::size_t local, const void* src, std::size_t count) {
    if (T* d = direct_[static_cast<std::size_t>(pe)]) {
      std::memcpy(d + local, src, count * sizeof(T));
      return;
    }
    shmem_putmem(base_ + local, src, count * sizeof(T), pe);
    detail::remote_puts_pending.store(true, std::memory_order_relaxed);
  }
  void read(void* dst, int pe, std::size_t local, std::size_t count) const {
    if (const T* s = direct_[static_cast<std::size_t>(pe)]) {
      std::memcpy(dst, s + local, count * sizeof(T));
      return;
    }
    detail::before_remote_get();
    shmem_getmem(dst, base_ + local, count * sizeof(T), pe);
  }

  layout_type layout_;
  int me_;
  std::size_t local_size_;
  T* base_ = nullptr;       // this PE's part; as a symmetric address it names every PE's part
  std::vector<T*> direct_;  // per PE, its part as this PE loads and stores it, or null
};

// ==== work sharing =========================================================================

namespace detail {

template <class A>
struct is_shared_array : std::false_type {};
template <class T, std::size_t B>
struct is_shared_array<shared_array<T, B>> : std::true_type {};

// Calls f(i, element) for every element of [first, last) that this PE holds, in increasing i:
// this PE's blocks that meet the range, clipped to it.
template <class A, class F>
void forall_local(A& a, std::size_t first, std::size_t last, F& f) {
  if (first > last || last > a.size()) {
    throw std::out_of_range("ferry::pgas::forall: range [" + std::to_string(first) + ", " + std::to_string(last) +
                            ") is out of range (size " + std::to_string(a.size()) + ")");
  }
  constexpr std::size_t B = std::remove_cvref_t<A>::block_size();
  const auto p = static_cast<std::size_t>(a.layout().threads());
  const auto me = static_cast<std::size_t>(my_thread());
  auto* data = a.local_data();
  std::size_t b = first / B;
  b += (me + p - b % p) % p;  // this PE's first block at or after first's
  for (; b < a.layout().blocks() && b * B < last; b += p) {
    const std::size_t start = b * B, local = (b / p) * B;
    const std::size_t lo = std::max(start, first), hi = std::min(start + B, last);
    for (std::size_t i = lo; i < hi; ++i) std::invoke(f, i, data[local + (i - start)]);
  }
}

}  // namespace detail

// A shared_array, const or not: what forall takes (one template for both, so that a generic
// callback is only ever instantiated with the element type it will get).
template <class A>
concept shared_array_ref = detail::is_shared_array<std::remove_const_t<A>>::value;

// upc_forall with affinity to the element: f(i, element) for every element this PE holds, the
// element by reference into this PE's part (const for a const array; no communication).
template <shared_array_ref A, class F>
  requires std::invocable<F&, std::size_t, decltype(*std::declval<A&>().local_data())>
void forall(A& a, F f) {
  detail::forall_local(a, 0, a.size(), f);
}
// The same over the indices first .. last - 1 only.
template <shared_array_ref A, class F>
  requires std::invocable<F&, std::size_t, decltype(*std::declval<A&>().local_data())>
void forall(std::size_t first, std::size_t last, A& a, F f) {
  detail::forall_local(a, first, last, f);
}

// ==== locks ================================================================================

// UPC's upc_lock_t (upc_all_lock_alloc): a distributed lock in a symmetric long, for
// std::lock_guard, std::unique_lock and std::scoped_lock (BasicLockable and Lockable). PEs
// enter in the order they asked (Ferry's shmem_set_lock is a ticket lock). Construction and
// destruction are collective. Named lock_t because a C++ class cannot have a member lock().
class lock_t {
 public:
  lock_t() : word_(static_cast<long*>(shmem_calloc(1, sizeof(long)))) {  // zero: unlocked
    if (!word_) throw std::bad_alloc();
  }
  ~lock_t() {
    if (word_) shmem_free(word_);
  }
  lock_t(lock_t&& o) noexcept : word_(std::exchange(o.word_, nullptr)) {}
  lock_t& operator=(lock_t&& o) noexcept {
    if (this != &o) {
      if (word_) shmem_free(word_);
      word_ = std::exchange(o.word_, nullptr);
    }
    return *this;
  }
  lock_t(const lock_t&) = delete;
  lock_t& operator=(const lock_t&) = delete;

  void lock() { shmem_set_lock(word_); }
  // shmem_clear_lock completes the critical region's stores before it releases, so the next
  // holder sees what this one wrote. (It is not counted as a quiet for futures: the standard
  // promises it for stores, not for an rget issued inside.)
  void unlock() { shmem_clear_lock(word_); }
  bool try_lock() { return shmem_test_lock(word_) == 0; }

 private:
  long* word_;
};

}  // namespace ferry::pgas
