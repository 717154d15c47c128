// use_own_threads (core/include/attn/util/threads.hpp): BLAS runs one thread a call, and the
// idle workers OpenBLAS started when it loaded are gone — they spun on sched_yield beside a
// model's opening. Each test runs in a process of its own (ctest), so the workers are there
// at the start. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <filesystem>

#include "attn/util/threads.hpp"

#ifdef ATTN_OPENBLAS
extern "C" int openblas_get_num_threads();
#endif

namespace {

long threads_of_this_process() {
    long n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task"))
        ++n;
    return n;
}

TEST(OwnThreads, BlasWorkersStopAndProductsStayRightOnOneThread) {
#ifdef ATTN_OPENBLAS
    // OpenBLAS's pthreads build starts (its thread count − 1) workers when it loads.
    const int blas_threads = openblas_get_num_threads();
    const long before = threads_of_this_process();
    attn::use_own_threads();
    EXPECT_EQ(openblas_get_num_threads(), 1);
    EXPECT_EQ(threads_of_this_process(), before - (blas_threads - 1));
    attn::use_own_threads();  // once per process: a second call changes nothing
    // A product large enough for OpenBLAS to thread it, were it allowed: the right numbers, and
    // no worker started again.
    const Eigen::MatrixXf a = Eigen::MatrixXf::Random(300, 200),
                          b = Eigen::MatrixXf::Random(200, 250);
    const Eigen::MatrixXf c = a * b;
    const Eigen::MatrixXd exact = a.cast<double>() * b.cast<double>();
    EXPECT_LT((c.cast<double>() - exact).cwiseAbs().maxCoeff(), 1e-4);
    EXPECT_EQ(threads_of_this_process(), before - (blas_threads - 1));
#else
    GTEST_FAIL() << "this build does not use OpenBLAS, which set-up installs";
#endif
}

}  // namespace
