// Core's fork-join helper (core/src/util/parallel.hpp, internal): every task runs once, and the
// caller's last report counts every task, also when another thread finishes last; the worker
// pool it borrows threads from survives many rounds, nesting, concurrency and fork.
// GPL-3.0-or-later.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "../../../core/src/util/parallel.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Index;

TEST(RunTasks, EveryTaskRunsOnceAndReportsNeverDecrease) {
    std::vector<std::atomic<int>> runs(257);
    std::vector<Index> reports;
    attn::detail::run_tasks(
        Index(runs.size()), [&](Index k) { ++runs[std::size_t(k)]; },
        [&](Index done) { reports.push_back(done); }, 4);
    for (const auto& r : runs)
        EXPECT_EQ(r.load(), 1);
    ASSERT_FALSE(reports.empty());
    for (std::size_t i = 1; i < reports.size(); ++i)
        EXPECT_LT(reports[i - 1], reports[i]);
    EXPECT_EQ(reports.back(), Index(runs.size()));
}

// The other thread's task waits until the caller has reported its own, so it finishes last: the
// caller must still report the whole count (patching's progress once stopped at 39 of 40).
TEST(RunTasks, TheLastReportCountsATaskAnotherThreadFinishedLast) {
    const auto caller = std::this_thread::get_id();
    std::mutex mu;
    std::condition_variable cv;
    bool other_started = false, caller_reported = false;
    std::vector<Index> reports;
    const auto wait_for = [&](const bool& flag) {
        std::unique_lock lock(mu);
        cv.wait_for(lock, std::chrono::seconds(20), [&] { return flag; });
    };
    const auto set = [&](bool& flag) {
        {
            std::lock_guard lock(mu);
            flag = true;
        }
        cv.notify_all();
    };
    attn::detail::run_tasks(
        2,
        [&](Index) {
            if (std::this_thread::get_id() == caller) {
                wait_for(other_started);
            } else {
                set(other_started);
                wait_for(caller_reported);
            }
        },
        [&](Index done) {
            reports.push_back(done);
            set(caller_reported);
        },
        2);
    ASSERT_FALSE(reports.empty());
    EXPECT_EQ(reports.front(), 1);
    EXPECT_EQ(reports.back(), 2);
}

TEST(RunTasks, AnExceptionFromAReportIsRethrownAfterTheOthersStop) {
    std::atomic<int> ran{0};
    EXPECT_THROW(attn::detail::run_tasks(
                     1000, [&](Index) { ++ran; }, [&](Index) { throw attn::Cancelled(); }, 2),
                 attn::Cancelled);
    EXPECT_GE(ran.load(), 1);
    EXPECT_LE(ran.load(), 1000);
}

}  // namespace

namespace {

// The pool: thousands of rounds in a row (a lost wake-up would hang), a loop nested in a task and
// loops from two threads at once (the pool busy: each makes its own threads), each task once.
TEST(WorkerPool, ManyRoundsNestedAndConcurrentLoopsRunEveryTaskOnce) {
    for (int round = 0; round < 3000; ++round) {
        std::vector<std::atomic<int>> hits(7);
        attn::detail::run_tasks(
            7, [&](Index k) { ++hits[std::size_t(k)]; }, [](Index) {}, 2);
        for (const auto& h : hits)
            ASSERT_EQ(h.load(), 1) << "round " << round;
    }
    std::atomic<long> sum{0};
    const auto nested = [&] {
        attn::detail::run_tasks(
            8,
            [&](Index k) {
                attn::detail::run_tasks(
                    8, [&](Index j) { sum += (k + 1) * 100 + j; }, [](Index) {}, 2);
            },
            [](Index) {}, 2);
    };
    std::thread other(nested);
    nested();
    other.join();
    // Twice Σ_k Σ_j ((k + 1)·100 + j) = 2·(8·100·36 + 8·28).
    EXPECT_EQ(sum.load(), 2 * (8 * 100 * 36 + 8 * 28));
}

TEST(WorkerPool, AForkedChildRunsItsLoopsWithoutThePoolsThreads) {
    attn::detail::run_tasks(
        4, [](Index) {}, [](Index) {}, 2);  // the pool's threads exist
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::atomic<int> n{0};
        attn::detail::run_tasks(
            100, [&](Index) { ++n; }, [](Index) {}, 2);
        std::_Exit(n == 100 ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
