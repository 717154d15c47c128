// The memory budget: sizes, parsing, the estimate of a scene and refusals before allocating.
#include <gtest/gtest.h>

#include <string>

#include "../test_util.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"

namespace {

/// Restores the default budget when a test ends.
struct BudgetGuard {
    ~BudgetGuard() { attn::set_memory_budget(0); }
};

std::string words(int n) {
    std::string text;
    for (int i = 0; i < n; ++i) {
        text += 'w';
        text += std::to_string(i % 97);
        text += ' ';
    }
    return text;
}

TEST(MemoryBudget, FormatsAndParsesSizes) {
    EXPECT_EQ(attn::format_bytes(950), "950 B");
    EXPECT_EQ(attn::format_bytes(1200), "1.2 kB");
    EXPECT_EQ(attn::format_bytes(72e9), "72 GB");
    EXPECT_EQ(attn::format_bytes(1.6e17), "160 PB");
    EXPECT_EQ(attn::parse_bytes("12G"), 12'000'000'000ull);
    EXPECT_EQ(attn::parse_bytes("12 GB"), 12'000'000'000ull);
    EXPECT_EQ(attn::parse_bytes("512M"), 512'000'000ull);
    EXPECT_EQ(attn::parse_bytes("1GiB"), 1073741824ull);
    EXPECT_EQ(attn::parse_bytes("300000000"), 300'000'000ull);
    EXPECT_EQ(attn::parse_bytes("1.5k"), 1500ull);
    EXPECT_EQ(attn::parse_bytes("1"), 1ull);
    // Hexadecimal, exponents, NaN, infinity and sizes under one byte (which would round to 0,
    // "the default") are not sizes.
    for (const char* bad : {"", "-1G", "0", "12X", "G", "1e30", "0.5", "0x10", "0x10M", "1e9",
                            "nan", "inf", "infG", "1.5.2G", "0.4B"})
        EXPECT_THROW(attn::parse_bytes(bad), attn::ArgumentError) << bad;
}

TEST(MemoryBudget, DiskRefusalStatesTheReserveThatApplied) {
    // A 5 GB disk keeps its 1 GB floor (10 % would be 500 MB); a 100 GB disk keeps 10 %.
    attn::set_disk_space_query([](const std::string&, attn::DiskSpace& out) {
        out = {1.5e9, 5e9};
        return true;
    });
    EXPECT_THROW_MSG(attn::require_disk(2e9, "/tmp/x.npz", "w", "y"), attn::ResourceError,
                     "w = 2.0 GB, more than the 500 MB that can be written to /tmp (1.5 GB free, "
                     "1.0 GB kept free: at least 1 GB of any disk; 1.5 GB short); y");
    EXPECT_NO_THROW(attn::require_disk(0.5e9, "/tmp/x.npz", "w", "y"));
    attn::set_disk_space_query([](const std::string&, attn::DiskSpace& out) {
        out = {12e9, 100e9};
        return true;
    });
    EXPECT_THROW_MSG(attn::require_disk(3e9, "/tmp/x.npz", "w", "y"), attn::ResourceError,
                     "(12 GB free, 10 GB kept free: 10 % of the 100 GB disk; 1.0 GB short)");
    EXPECT_NO_THROW(attn::require_disk(2e9, "/tmp/x.npz", "w", "y"));
    attn::set_disk_space_query(nullptr);
}

TEST(MemoryBudget, DiskReserveScalesWithTheOutput) {
    // 500 MB free on a 5 GB disk: an 83 kB file leaves far more than ten times itself free.
    attn::set_disk_space_query([](const std::string&, attn::DiskSpace& out) {
        out = {0.5e9, 5e9};
        return true;
    });
    EXPECT_NO_THROW(attn::require_disk(83e3, "/tmp/x.npz", "w", "y"));
    // A 300 MB file keeps the whole 1 GB free: 300 MB + 1 GB − 500 MB = 800 MB are missing.
    EXPECT_THROW_MSG(attn::require_disk(0.3e9, "/tmp/x.npz", "w", "y"), attn::ResourceError,
                     "w = 300 MB, more than the 0 B that can be written to /tmp (500 MB free, "
                     "1.0 GB kept free: at least 1 GB of any disk; 800 MB short); y");
    // 500 kB free: the 83 kB file and its 830 kB reserve are 413 kB more than that.
    attn::set_disk_space_query([](const std::string&, attn::DiskSpace& out) {
        out = {0.5e6, 5e9};
        return true;
    });
    EXPECT_THROW_MSG(attn::require_disk(83e3, "/tmp/x.npz", "w", "y"), attn::ResourceError,
                     "w = 83 kB, more than the 0 B that can be written to /tmp (500 kB free, "
                     "830 kB kept free: ten times the 83 kB written; 413 kB short); y");
    attn::set_disk_space_query(nullptr);
}

TEST(MemoryBudget, DefaultIsHalfThePhysicalMemory) {
    BudgetGuard guard;
    const std::uint64_t ram = attn::physical_memory();
    ASSERT_GT(ram, 0u);
    EXPECT_LE(attn::default_memory_budget(), ram / 2);
    EXPECT_EQ(attn::memory_budget(), attn::default_memory_budget());
    attn::set_memory_budget(123);
    EXPECT_EQ(attn::memory_budget(), 123u);
    attn::set_memory_budget(0);
    EXPECT_EQ(attn::memory_budget(), attn::default_memory_budget());
}

TEST(MemoryBudget, RequireNamesTheSizeAndTheWayOut) {
    BudgetGuard guard;
    attn::set_memory_budget(12'000'000'000ull);
    EXPECT_NO_THROW(attn::require_memory(11e9, "x", "y"));
    EXPECT_THROW_MSG(attn::require_memory(72e9, "30000 tokens × 4 heads × 5 stages",
                                          "use --stages weights, fewer tokens or heads"),
                     attn::ResourceError,
                     "30000 tokens × 4 heads × 5 stages = 72 GB, more than the 12 GB memory "
                     "budget; use --stages weights, fewer tokens or heads");
}

TEST(MemoryBudget, SceneEstimateByStorage) {
    attn::SceneSpec spec;
    spec.text = words(30000);
    spec.heads = 4;
    // 30000² cells × 4 heads × 2 stages (raw, weights) × 4 bytes = 28.8 GB, the largest part.
    const attn::SceneEstimate all = attn::estimate_scene(spec, attn::Storage::Stages);
    EXPECT_NEAR(all.largest_bytes, 30000.0 * 30000 * 4 * 2 * 4 + 4.0 * 30000 * 16 * 4, 1);
    EXPECT_EQ(all.largest, "30000 tokens × 4 heads × 2 stages");
    const attn::SceneEstimate w = attn::estimate_scene(spec, attn::Storage::Weights);
    EXPECT_NEAR(w.largest_bytes, 30000.0 * 30000 * 4 * 4 + 30000.0 * 30000, 1);
    const attn::SceneEstimate s = attn::estimate_scene(spec, attn::Storage::Streamed);
    EXPECT_LT(s.bytes, 200e6);  // no n² term
    {
        // One wide head: the 9 token vectors and the keys the streamed pass packs per thread.
        attn::SceneSpec wide = spec;
        wide.heads = 1;
        wide.d_model = 1024;
        const attn::SceneEstimate e = attn::estimate_scene(wide, attn::Storage::Streamed);
        EXPECT_GE(e.bytes, 30000.0 * 1024 * 4 * 10);
    }
    EXPECT_EQ(attn::storage_for(spec), attn::Storage::Streamed);
    spec.text = words(600);
    EXPECT_EQ(attn::storage_for(spec), attn::Storage::Stages);  // 1.4 M cells
    spec.text = words(1800);
    EXPECT_EQ(attn::storage_for(spec), attn::Storage::Weights);  // 13 M cells
}

/// Counts every call a computation makes to its progress: one that started would report or ask
/// whether to stop, one refused up front never does.
struct CountingProgress : attn::Progress {
    mutable int calls = 0;
    void update(double) override { ++calls; }
    bool cancelled() const override {
        ++calls;
        return false;
    }
};

TEST(MemoryBudget, HugeRequestsAreRefusedBeforeAllocating) {
    BudgetGuard guard;
    attn::set_memory_budget(12'000'000'000ull);
    attn::SceneSpec spec;
    spec.d_model = 100'000'000;
    CountingProgress progress;
    EXPECT_THROW_MSG(attn::compute_scene(spec, &progress, attn::Storage::Stages),
                     attn::ResourceError, "d_model 100000000", "160 PB", "12 GB memory budget");
    spec.d_model = 64;
    spec.text = words(30000);
    EXPECT_THROW_MSG(attn::compute_scene(spec, &progress, attn::Storage::Stages),
                     attn::ResourceError, "30000 tokens × 4 heads × 2 stages", "29 GB");
    // Refused, not attempted: no computation began (none reported progress).
    EXPECT_EQ(progress.calls, 0);
    // The probe sees a computation that does begin: a small scene reports as it goes.
    spec.text = words(40);
    CountingProgress small;
    EXPECT_EQ(attn::compute_scene(spec, &small, attn::Storage::Stages).heads.size(), 4u);
    EXPECT_GT(small.calls, 0);
}

}  // namespace
