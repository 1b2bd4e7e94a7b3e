#pragma once
// A small fork-join pool on std::thread for the measurement kernels. The calling thread is
// worker 0; size() - 1 threads wait for work (they spin briefly, then sleep), so a
// parallel_for costs a few microseconds, not a thread start. Not re-entrant: a task must not
// call the pool, and one thread at a time drives it.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace flopcast::measure {

class thread_pool {
 public:
  // threads >= 1 (the caller counts as one). Throws flopcast::error(invalid_argument, "/threads").
  explicit thread_pool(int threads);
  ~thread_pool();
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  [[nodiscard]] int size() const noexcept { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(i) for every i in [0, n), spread over the threads (dynamic: each thread takes
  // the next index). Returns when all calls are done; the first exception is rethrown.
  template <class F>
  void parallel_for(std::int64_t n, F&& fn) {
    if (n <= 0) return;
    if (n == 1 || workers_.empty()) {
      for (std::int64_t i = 0; i < n; ++i) fn(i);
      return;
    }
    using Fn = std::remove_reference_t<F>;
    dispatch(
        n, [](void* ctx, std::int64_t i, int) { (*static_cast<Fn*>(ctx))(i); },
        const_cast<void*>(static_cast<const void*>(&fn)));
  }

  // Calls fn(t) once on each thread t in [0, size()).
  template <class F>
  void run_on_all(F&& fn) {
    using Fn = std::remove_reference_t<F>;
    if (workers_.empty()) {
      fn(0);
      return;
    }
    dispatch(
        -1, [](void* ctx, std::int64_t, int t) { (*static_cast<Fn*>(ctx))(t); },
        const_cast<void*>(static_cast<const void*>(&fn)));
  }

  // Splits [0, n) into size() near-equal contiguous ranges; range t is [begin, end).
  [[nodiscard]] static std::pair<std::int64_t, std::int64_t> split(std::int64_t n, int parts, int t) noexcept {
    const std::int64_t base = n / parts, extra = n % parts;
    const std::int64_t begin = t * base + std::min<std::int64_t>(t, extra);
    return {begin, begin + base + (t < extra ? 1 : 0)};
  }

 private:
  using trampoline = void (*)(void*, std::int64_t, int);
  void dispatch(std::int64_t n, trampoline call, void* ctx);
  void work(int thread_index);
  void worker_loop(int thread_index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<std::uint64_t> epoch_{0};
  std::atomic<int> pending_{0};  // workers still inside the current job
  std::atomic<std::int64_t> next_{0};
  std::int64_t count_ = 0;  // -1: run_on_all
  trampoline call_ = nullptr;
  void* ctx_ = nullptr;
  std::atomic<bool> stop_{false};
  std::atomic<int> sleepers_{0};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

}  // namespace flopcast::measure
