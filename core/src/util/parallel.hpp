// AttnScope core — a tiny fork-join helper (std::thread; no OpenMP). Internal. GPL-3.0-or-later.
#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "attn/util/threads.hpp"
#include "attn/util/types.hpp"
#include "worker_pool.hpp"

namespace attn::detail {

/// Threads core uses for one computation: the hardware's, at least 1, at most 16.
inline int thread_count() {
    use_own_threads();  // one thread per BLAS call
    const unsigned hw = std::thread::hardware_concurrency();
    return static_cast<int>(std::clamp(hw == 0 ? 1u : hw, 1u, 16u));
}

/// Runs task(k) for k in [0, n) on up to `threads` threads, the caller being one of them. After
/// each task the caller finishes, and once more when the others have finished theirs, it calls
/// on_done(tasks finished so far, never decreasing) on the calling thread; on_done may throw
/// (e.g. Cancelled) to stop the others. The first exception is rethrown.
template <class Task, class OnDone>
void run_tasks(Index n, Task&& task, OnDone&& on_done, int threads = thread_count()) {
    std::atomic<Index> next{0}, done{0};
    std::atomic<bool> stop{false};
    std::exception_ptr error;
    std::mutex mu;
    auto fail = [&] {
        std::lock_guard lock(mu);
        if (!error) error = std::current_exception();
        stop = true;
    };
    auto worker = [&] {
        while (!stop) {
            const Index k = next++;
            if (k >= n) return;
            try {
                task(k);
                ++done;
            } catch (...) {
                fail();
                return;
            }
        }
    };
    const Index extra = std::min<Index>(threads, n) - 1;
    using Worker = decltype(worker);
    const bool pooled = worker_pool().try_start(
        int(extra), [](void* w) { (*static_cast<Worker*>(w))(); }, &worker);
    std::vector<std::thread> own;  // when the pool is busy (a nested or concurrent call)
    if (!pooled)
        for (Index t = 0; t < extra; ++t)
            own.emplace_back(worker);
    Index reported = 0;
    while (!stop) {
        const Index k = next++;
        if (k >= n) break;
        try {
            task(k);
            reported = ++done;
            on_done(reported);
        } catch (...) {
            fail();
            break;
        }
    }
    if (pooled) worker_pool().wait();
    for (auto& t : own)
        t.join();
    if (error) std::rethrow_exception(error);
    // The last tasks may have finished on other threads: the caller reports the whole count.
    if (reported < done) on_done(done.load());
}

/// Splits [0, rows) into one contiguous chunk per thread and runs body(begin, count) on each;
/// runs inline when the work (rows · cost_per_row) is too small to pay for a thread.
template <class Body>
void parallel_rows(Index rows, double cost_per_row, Body&& body) {
    const int threads = thread_count();
    if (threads == 1 || rows < 2 || static_cast<double>(rows) * cost_per_row < 2e6) {
        body(Index{0}, rows);
        return;
    }
    const Index chunks = std::min<Index>(threads, rows);
    run_tasks(
        chunks,
        [&](Index c) {
            const Index b = rows * c / chunks, e = rows * (c + 1) / chunks;
            body(b, e - b);
        },
        [](Index) {}, threads);
}

}  // namespace attn::detail
