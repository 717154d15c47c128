// AttnScope core — the threads run_tasks borrows. GPL-3.0-or-later.
#include "worker_pool.hpp"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace attn::detail {
namespace {

/// Set in a forked child: the pool's threads were not copied into it.
std::atomic<bool> forked{false};

/// How long a thread polls before it sleeps on a condition variable. A sleeping thread takes
/// tens of µs to wake on a VM, as long as splitting a 1 MB product saves: a decoder step is
/// dozens of such rounds a few µs apart (Marian: 48 a token), which the polling catches.
constexpr auto kSpin = std::chrono::microseconds(100);

/// Polls DONE() for at most kSpin; true when it held.
template <class Done>
bool spin_until(Done&& done) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (int i = 0;; ++i) {
        if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        // The clock is read once every 64 polls.
        if (i % 64 == 63 && std::chrono::steady_clock::now() > until) return done();
    }
}

}  // namespace

bool WorkerPool::try_start(int n, void (*fn)(void*), void* ctx) {
    if (n <= 0 || forked) return false;
    std::lock_guard lock(mu_);
    if (busy_) return false;
    try {
        // A new thread has not seen this round yet: it starts from the one before.
        for (; threads_ < n; ++threads_)
            std::thread([this, before = round_.load()] { loop(before); }).detach();
    } catch (...) {  // no thread to be had: the caller makes its own, or runs alone
        if (threads_ < n) return false;
    }
    busy_ = true;
    fn_ = fn;
    ctx_ = ctx;
    want_ = n;
    taken_ = 0;
    running_ = n;
    ++round_;
    wake_.notify_all();
    return true;
}

void WorkerPool::wait() {
    spin_until([this] { return running_.load(std::memory_order_acquire) == 0; });
    std::unique_lock lock(mu_);
    done_.wait(lock, [this] { return running_ == 0; });
    busy_ = false;
}

void WorkerPool::loop(std::uint64_t seen) {
    std::unique_lock lock(mu_);
    for (;;) {
        if (round_.load(std::memory_order_acquire) == seen) {
            lock.unlock();
            spin_until([&] { return round_.load(std::memory_order_acquire) != seen; });
            lock.lock();
        }
        wake_.wait(lock, [&] { return round_ != seen; });
        seen = round_;
        if (taken_ >= want_) continue;
        ++taken_;
        void (*fn)(void*) = fn_;
        void* ctx = ctx_;
        lock.unlock();
        fn(ctx);
        lock.lock();
        if (--running_ == 0) done_.notify_all();
    }
}

WorkerPool& worker_pool() {
    static WorkerPool* const pool = [] {
        ::pthread_atfork(nullptr, nullptr, [] { forked = true; });
        return new WorkerPool;
    }();
    return *pool;
}

}  // namespace attn::detail
