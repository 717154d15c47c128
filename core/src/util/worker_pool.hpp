// AttnScope core — the threads run_tasks borrows, kept between calls. Internal.
// GPL-3.0-or-later.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace attn::detail {

/// Worker threads parked between computations: starting a thread costs about 0.3 ms on a
/// virtual machine (its stack faulted in, its creation and join), more than many of the
/// products core splits, so run_tasks hands its work to these instead. One computation at a
/// time: a nested or concurrent call finds the pool busy and makes its own threads.
class WorkerPool {
  public:
    /// Runs FN(CTX) on N of the pool's threads (starting them on first use) and returns true,
    /// or returns false, starting nothing, when the pool is running another computation or
    /// the process forked since it was made. FN must not throw. Each true is paired with wait().
    bool try_start(int n, void (*fn)(void*), void* ctx);
    /// Waits until every thread of the last try_start has returned from FN; frees the pool.
    void wait();

  private:
    /// A pool thread: runs each round after SEEN that still wants a thread.
    void loop(std::uint64_t seen);

    std::mutex mu_;
    std::condition_variable wake_, done_;
    bool busy_ = false;
    int threads_ = 0;              ///< started so far
    int want_ = 0, taken_ = 0;     ///< threads this round asks for, and how many took it
    std::atomic<int> running_{0};  ///< of those, still in FN (changed under mu_; read spinning)
    std::atomic<std::uint64_t> round_{0};  ///< changed under mu_; read spinning
    void (*fn_)(void*) = nullptr;
    void* ctx_ = nullptr;
};

/// The process's pool (never destroyed: its threads sleep until the process ends).
WorkerPool& worker_pool();

}  // namespace attn::detail
