#include "flopcast/measure/thread_pool.hpp"

#include <chrono>
#include <string>

#include "flopcast/base/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FLOPCAST_PAUSE() _mm_pause()
#else
#define FLOPCAST_PAUSE() std::this_thread::yield()
#endif

namespace flopcast::measure {

namespace {
// How long an idle worker spins before it sleeps: long enough to bridge the serial work
// between two kernels of a decode step, short enough not to hold a core for nothing.
constexpr auto spin_time = std::chrono::microseconds(200);
}  // namespace

thread_pool::thread_pool(int threads) {
  if (threads < 1)
    throw error(error_code::invalid_argument, "/threads",
                "expected an integer >= 1, but got " + std::to_string(threads));
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int t = 1; t < threads; ++t) workers_.emplace_back([this, t] { worker_loop(t); });
}

thread_pool::~thread_pool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void thread_pool::work(int thread_index) {
  try {
    if (count_ < 0) {
      call_(ctx_, 0, thread_index);
    } else {
      for (std::int64_t i = next_.fetch_add(1, std::memory_order_relaxed); i < count_;
           i = next_.fetch_add(1, std::memory_order_relaxed))
        call_(ctx_, i, thread_index);
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (!error_) error_ = std::current_exception();
    next_.store(count_ < 0 ? 0 : count_, std::memory_order_relaxed);  // others stop taking work
  }
}

void thread_pool::worker_loop(int thread_index) {
  std::uint64_t seen = 0;
  for (;;) {
    std::uint64_t e = epoch_.load(std::memory_order_acquire);
    if (e == seen && !stop_.load(std::memory_order_relaxed)) {
      const auto until = std::chrono::steady_clock::now() + spin_time;
      for (int spins = 0;; ++spins) {
        e = epoch_.load(std::memory_order_acquire);
        if (e != seen || stop_.load(std::memory_order_relaxed)) break;
        FLOPCAST_PAUSE();
        if ((spins & 63) == 63 && std::chrono::steady_clock::now() > until) {
          std::unique_lock<std::mutex> lock(mutex_);
          wake_.wait(lock, [&] { return epoch_.load(std::memory_order_acquire) != seen || stop_.load(); });
          e = epoch_.load(std::memory_order_acquire);
          break;
        }
      }
    }
    if (stop_.load()) return;
    seen = e;
    work(thread_index);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void thread_pool::dispatch(std::int64_t n, trampoline call, void* ctx) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    call_ = call;
    ctx_ = ctx;
    count_ = n;
    next_.store(0, std::memory_order_relaxed);
    error_ = nullptr;
    pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    epoch_.fetch_add(1, std::memory_order_acq_rel);
  }
  wake_.notify_all();
  work(0);
  for (int spins = 0; pending_.load(std::memory_order_acquire) != 0; ++spins) {
    if (spins < 1 << 16)
      FLOPCAST_PAUSE();
    else
      std::this_thread::yield();
  }
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

}  // namespace flopcast::measure
