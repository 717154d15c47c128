// AttnScope core — the threads run_tasks borrows. GPL-3.0-or-later.
#include "worker_pool.hpp"

#include <pthread.h>

#include <atomic>
#include <thread>

namespace attn::detail {
namespace {

/// Set in a forked child: the pool's threads were not copied into it.
std::atomic<bool> forked{false};

}  // namespace

bool WorkerPool::try_start(int n, void (*fn)(void*), void* ctx) {
    if (n <= 0 || forked) return false;
    std::lock_guard lock(mu_);
    if (busy_) return false;
    try {
        // A new thread has not seen this round yet: it starts from the one before.
        for (; threads_ < n; ++threads_)
            std::thread([this, before = round_] { loop(before); }).detach();
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
    std::unique_lock lock(mu_);
    done_.wait(lock, [this] { return running_ == 0; });
    busy_ = false;
}

void WorkerPool::loop(std::uint64_t seen) {
    std::unique_lock lock(mu_);
    for (;;) {
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
