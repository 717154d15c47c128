// Tests of attn::report (progress + cancellation).
#include <gtest/gtest.h>

#include "attn/util/error.hpp"
#include "attn/util/progress.hpp"

namespace {

struct Recorder : attn::Progress {
    double last = -1;
    bool stop = false;
    void update(double f) override { last = f; }
    bool cancelled() const override { return stop; }
};

TEST(Progress, ReportsFractionAndThrowsWhenCancelled) {
    Recorder r;
    attn::report(&r, 0.25);
    EXPECT_DOUBLE_EQ(r.last, 0.25);
    r.stop = true;
    EXPECT_THROW(attn::report(&r, 0.5), attn::Cancelled);
    EXPECT_NO_THROW(attn::report(nullptr, 0.5));
}

}  // namespace
